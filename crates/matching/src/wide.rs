//! Unsigned integers of a fixed number of 64-bit limbs: the edge weights of
//! the pairing matching.
//!
//! The Dutch system's criteria are compared lexicographically, one after
//! the other; dopis's `swiss::criteria` packs them into one number, a
//! field per criterion, most important field highest, so that a larger sum
//! over a matching is a better pairing. For a hundred players over eleven
//! rounds that number has some eight hundred bits. Only a handful of
//! operations are needed (add, subtract, shift, compare); a big-integer
//! crate (`ruint`, `bnum`, `num-bigint`) would bring hundreds more, an MSRV
//! of its own to watch and, for the heap-allocated ones, an allocation per
//! operation in the matching's inner loop. These few lines are tested below
//! against `u128`.

use std::cmp::Ordering;

/// An unsigned integer of `L` 64-bit limbs, least significant limb first.
/// Arithmetic wraps modulo 2^(64·L); callers size `L` so that it never has to.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wide<const L: usize>([u64; L]);

impl<const L: usize> Wide<L> {
    /// Zero.
    pub const ZERO: Self = Wide([0; L]);

    /// The number of bits this width holds.
    pub const BITS: u32 = 64 * L as u32;

    /// A small number.
    pub fn from_u64(value: u64) -> Self {
        let mut limbs = [0; L];
        if let Some(first) = limbs.first_mut() {
            *first = value;
        }
        Wide(limbs)
    }

    /// 2^bit (zero if `bit` does not fit).
    pub fn bit(bit: u32) -> Self {
        let mut limbs = [0; L];
        if let Some(limb) = limbs.get_mut((bit / 64) as usize) {
            *limb = 1 << (bit % 64);
        }
        Wide(limbs)
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }

    /// `self << bits` (bits shifted past the top are lost).
    pub fn shl(&self, bits: u32) -> Self {
        let (limbs, rest) = ((bits / 64) as usize, bits % 64);
        let mut out = [0; L];
        for i in (limbs..L).rev() {
            let low = self.0[i - limbs];
            let below = if rest > 0 && i > limbs {
                self.0[i - limbs - 1] >> (64 - rest)
            } else {
                0
            };
            out[i] = (low << rest) | below;
        }
        Wide(out)
    }

    /// `self >> 1`.
    pub fn half(&self) -> Self {
        let mut out = [0; L];
        for (i, o) in out.iter_mut().enumerate() {
            let above = self.0.get(i + 1).map_or(0, |a| a << 63);
            *o = (self.0[i] >> 1) | above;
        }
        Wide(out)
    }

    /// `self + other`, wrapping.
    pub fn add(&self, other: &Self) -> Self {
        let mut out = [0; L];
        let mut carry = false;
        for ((o, a), b) in out.iter_mut().zip(&self.0).zip(&other.0) {
            let (sum, c1) = a.overflowing_add(*b);
            let (sum, c2) = sum.overflowing_add(u64::from(carry));
            *o = sum;
            carry = c1 || c2;
        }
        Wide(out)
    }

    /// `self - other`, wrapping.
    pub fn sub(&self, other: &Self) -> Self {
        let mut out = [0; L];
        let mut borrow = false;
        for ((o, a), b) in out.iter_mut().zip(&self.0).zip(&other.0) {
            let (diff, b1) = a.overflowing_sub(*b);
            let (diff, b2) = diff.overflowing_sub(u64::from(borrow));
            *o = diff;
            borrow = b1 || b2;
        }
        Wide(out)
    }

    /// `self + value`, wrapping.
    pub fn add_u64(&self, value: u64) -> Self {
        self.add(&Self::from_u64(value))
    }

    /// `self - value`, wrapping.
    pub fn sub_u64(&self, value: u64) -> Self {
        self.sub(&Self::from_u64(value))
    }

    /// `self | other`.
    pub fn or(&self, other: &Self) -> Self {
        let mut out = self.0;
        for (o, b) in out.iter_mut().zip(other.0.iter()) {
            *o |= b;
        }
        Wide(out)
    }

    /// The number of significant bits (0 for zero).
    pub fn bit_len(&self) -> u32 {
        for i in (0..L).rev() {
            if self.0[i] != 0 {
                return 64 * i as u32 + (64 - self.0[i].leading_zeros());
            }
        }
        0
    }
}

impl<const L: usize> Default for Wide<L> {
    fn default() -> Self {
        Wide::ZERO
    }
}

impl<const L: usize> Ord for Wide<L> {
    fn cmp(&self, other: &Self) -> Ordering {
        for i in (0..L).rev() {
            match self.0[i].cmp(&other.0[i]) {
                Ordering::Equal => continue,
                unequal => return unequal,
            }
        }
        Ordering::Equal
    }
}

impl<const L: usize> PartialOrd for Wide<L> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const L: usize> std::fmt::Debug for Wide<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("0x")?;
        let mut started = false;
        for i in (0..L).rev() {
            if started {
                write!(f, "{:016x}", self.0[i])?;
            } else if self.0[i] != 0 || i == 0 {
                write!(f, "{:x}", self.0[i])?;
                started = true;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type W2 = Wide<2>;

    fn of(v: u128) -> W2 {
        Wide([v as u64, (v >> 64) as u64])
    }

    fn back(w: W2) -> u128 {
        u128::from(w.0[0]) | (u128::from(w.0[1]) << 64)
    }

    #[test]
    fn bits_and_lengths_are_where_they_should_be() {
        assert_eq!(back(W2::bit(0)), 1);
        assert_eq!(back(W2::bit(64)), 1 << 64);
        assert_eq!(back(W2::bit(127)), 1 << 127);
        assert!(W2::bit(128).is_zero());
        assert_eq!(W2::bit(100).bit_len(), 101);
        assert_eq!(W2::ZERO.bit_len(), 0);
        assert_eq!(
            format!("{:?}", of(0x1_0000_0000_0000_0002)),
            "0x10000000000000002"
        );
    }

    proptest! {
        #[test]
        fn arithmetic_agrees_with_u128(a in any::<u128>(), b in any::<u128>(), s in 0u32..130) {
            prop_assert_eq!(back(of(a).add(&of(b))), a.wrapping_add(b));
            prop_assert_eq!(back(of(a).sub(&of(b))), a.wrapping_sub(b));
            prop_assert_eq!(back(of(a).or(&of(b))), a | b);
            prop_assert_eq!(back(of(a).half()), a >> 1);
            prop_assert_eq!(back(of(a).shl(s)), if s >= 128 { 0 } else { a << s });
            prop_assert_eq!(of(a).cmp(&of(b)), a.cmp(&b));
            prop_assert_eq!(of(a).bit_len(), 128 - a.leading_zeros());
            prop_assert_eq!(back(of(a).add_u64(b as u64)), a.wrapping_add(u128::from(b as u64)));
        }
    }
}
