//! Players: who they are, how to reach them, what language they write.

use serde::Serialize;

use crate::domain::address::EmailAddress;
use crate::domain::lang::Lang;

/// A player's database id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct PlayerId(pub i64);

/// A registered player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Player {
    /// Database id.
    pub id: PlayerId,
    /// The registered address: only mail from it can move this player's pieces.
    pub email: EmailAddress,
    /// The name shown to opponents and in PGN.
    pub name: String,
    /// The language of the player's mails and piece letters.
    pub lang: Lang,
    /// The player's time zone, for deadlines in mails.
    #[serde(serialize_with = "serialize_tz")]
    pub tz: Option<chrono_tz::Tz>,
}

fn serialize_tz<S: serde::Serializer>(tz: &Option<chrono_tz::Tz>, s: S) -> Result<S::Ok, S::Error> {
    match tz {
        Some(tz) => s.serialize_some(tz.name()),
        None => s.serialize_none(),
    }
}

/// Why and since when a player's mail is held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pause {
    /// When the player was paused.
    pub since: chrono::DateTime<chrono::Utc>,
    /// Why, in words (how many bounces, the last status).
    pub reason: String,
}

/// A player to be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPlayer {
    /// The registered address.
    pub email: EmailAddress,
    /// The display name (non-empty, one line).
    pub name: String,
    /// The player's language.
    pub lang: Lang,
    /// The player's time zone, if known.
    pub tz: Option<chrono_tz::Tz>,
}

/// Why a player's details are not acceptable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadPlayer {
    /// The name is empty or too long.
    #[error("the player's name {0}; give it with --name \"First Last\"")]
    Name(&'static str),
    /// The time zone is unknown.
    #[error(
        "unknown time zone '{0}': use an IANA name such as Europe/Ljubljana, Europe/Warsaw or UTC"
    )]
    TimeZone(String),
}

impl NewPlayer {
    /// Checks and builds a player from raw values.
    pub fn new(
        email: EmailAddress,
        name: &str,
        lang: Lang,
        tz: Option<&str>,
    ) -> Result<NewPlayer, BadPlayer> {
        let name = name.trim();
        if name.is_empty() {
            return Err(BadPlayer::Name("is empty"));
        }
        if name.chars().count() > 100 {
            return Err(BadPlayer::Name("is longer than 100 characters"));
        }
        if name.chars().any(char::is_control) {
            return Err(BadPlayer::Name("contains control characters"));
        }
        let tz = tz.map(parse_tz).transpose()?;
        Ok(NewPlayer {
            email,
            name: name.to_string(),
            lang,
            tz,
        })
    }
}

/// Parses an IANA time zone name.
pub fn parse_tz(text: &str) -> Result<chrono_tz::Tz, BadPlayer> {
    text.trim()
        .parse::<chrono_tz::Tz>()
        .map_err(|_| BadPlayer::TimeZone(text.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn email() -> EmailAddress {
        EmailAddress::parse("a@b.test").unwrap()
    }

    #[test]
    fn a_player_needs_a_name_and_a_real_time_zone() {
        assert_eq!(
            NewPlayer::new(email(), "  ", Lang::En, None),
            Err(BadPlayer::Name("is empty"))
        );
        let err = NewPlayer::new(email(), "Ana", Lang::Sl, Some("Europe/Ljublana")).unwrap_err();
        assert!(err.to_string().contains("Europe/Ljubljana"), "{err}");
        let ok =
            NewPlayer::new(email(), " Ana Novak ", Lang::Sl, Some("Europe/Ljubljana")).unwrap();
        assert_eq!(ok.name, "Ana Novak");
        assert_eq!(ok.tz, Some(chrono_tz::Europe::Ljubljana));
    }
}
