//! E-mail addresses, validated once at the boundary.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A syntactically valid e-mail address, lower-cased (`local@domain`).
///
/// Comparison is on the lower-cased form: mail systems treat the domain
/// case-insensitively and in practice the local part too, and a player must
/// not become two players by writing `Alice@` once.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EmailAddress(String);

/// Why a text is not an e-mail address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not an e-mail address ({why}); write it as name@example.org")]
pub struct BadAddress {
    /// What was given.
    pub text: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// Longest address accepted (RFC 5321 path limit).
const MAX_LEN: usize = 254;

impl EmailAddress {
    /// Parses an address, trimming surrounding space and one pair of `<>`.
    pub fn parse(text: &str) -> Result<EmailAddress, BadAddress> {
        let bad = |why| BadAddress {
            text: text.chars().take(80).collect(),
            why,
        };
        let trimmed = text.trim();
        let trimmed = trimmed
            .strip_prefix('<')
            .and_then(|t| t.strip_suffix('>'))
            .unwrap_or(trimmed);
        if trimmed.is_empty() {
            return Err(bad("it is empty"));
        }
        if trimmed.len() > MAX_LEN {
            return Err(bad("it is longer than 254 characters"));
        }
        let Some((local, domain)) = trimmed.rsplit_once('@') else {
            return Err(bad("there is no @"));
        };
        if local.is_empty() {
            return Err(bad("nothing before the @"));
        }
        if domain.is_empty() {
            return Err(bad("nothing after the @"));
        }
        if trimmed
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "<>()[],;:\\\"".contains(c))
        {
            return Err(bad(
                "it contains spaces or characters not allowed in an address",
            ));
        }
        if local.contains('@') {
            return Err(bad("it has more than one @"));
        }
        if domain.starts_with('.') || domain.ends_with('.') || domain.contains("..") {
            return Err(bad("the domain after the @ is malformed"));
        }
        Ok(EmailAddress(trimmed.to_lowercase()))
    }

    /// The address as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The part before the `@`.
    pub fn local_part(&self) -> &str {
        self.0.rsplit_once('@').map(|(l, _)| l).unwrap_or(&self.0)
    }

    /// The part after the `@`.
    pub fn domain(&self) -> &str {
        self.0.rsplit_once('@').map(|(_, d)| d).unwrap_or("")
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for EmailAddress {
    type Err = BadAddress;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EmailAddress::parse(s)
    }
}

impl TryFrom<String> for EmailAddress {
    type Error = BadAddress;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        EmailAddress::parse(&s)
    }
}

impl From<EmailAddress> for String {
    fn from(a: EmailAddress) -> String {
        a.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_lower_cased_and_unwrapped() {
        let a = EmailAddress::parse(" <Alice@Players.TEST> ").unwrap();
        assert_eq!(a.as_str(), "alice@players.test");
        assert_eq!(a.local_part(), "alice");
        assert_eq!(a.domain(), "players.test");
    }

    #[test]
    fn malformed_addresses_say_what_is_wrong() {
        for (text, why) in [
            ("", "it is empty"),
            ("alice", "there is no @"),
            ("@x.org", "nothing before the @"),
            ("a@", "nothing after the @"),
            (
                "a b@x.org",
                "it contains spaces or characters not allowed in an address",
            ),
            ("a@b@x.org", "it has more than one @"),
            ("a@x..org", "the domain after the @ is malformed"),
        ] {
            assert_eq!(EmailAddress::parse(text).unwrap_err().why, why, "{text}");
        }
        let msg = EmailAddress::parse("alice").unwrap_err().to_string();
        assert!(msg.contains("write it as name@example.org"), "{msg}");
    }
}
