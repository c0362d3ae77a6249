//! SHA-256 in lower-case hex, cut to a length: the one way our keys,
//! Message-IDs, MIME boundaries and fingerprints name bytes. Each caller
//! keeps the length it always had, so every key stays what it was.

use sha2::{Digest, Sha256};

/// The first `take` bytes (at most 32) of the SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8], take: usize) -> String {
    hex(&Sha256::digest(bytes)[..take.min(32)])
}

/// Bytes in lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_hash_is_the_start_of_the_whole_one() {
        let whole = sha256_hex(b"dopis", 32);
        assert_eq!(whole.len(), 64);
        assert_eq!(sha256_hex(b"dopis", 8), whole[..16]);
        assert_eq!(sha256_hex(b"dopis", 99), whole);
    }
}
