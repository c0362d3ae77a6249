//! Which game and which player a mail belongs to, and whether it may act.
//!
//! Every game mail we send has a Reply-To of the form
//! `local+g42.k7f3q9ab2c@domain`, or `local-g42.…` or `g42.…@catch-all.domain`
//! as the provider allows ([`ReplyAddresses`]): the game number and a token that only the
//! player received. The token is an HMAC of the server secret over the game
//! and player ids, so nothing needs storing and nobody can compute it without
//! the secret. A mail acts on a game only when it comes from the player's
//! registered address AND carries that player's token; the address alone
//! earns a confirmation mail, the token alone a refusal.
//!
//! Confirmation mails carry `local+c17.TOKEN@domain`: a pending command's id
//! and a token over that id, so a reply to the confirmation applies it.
//!
//! A daily digest carries `local+d7.TOKEN@domain`: the player and a token
//! over the player's id. A reply to it names its games line by line (see
//! [`crate::adapter::mail::digest_reply`]); it acts only from the player's registered
//! address, as a game's reply does.
//!
//! Deadline reports to a tournament director carry `local+r3.TOKEN@domain`:
//! the event and a token over the event and the TD's address. A TD need not
//! play, so has no game token; this one lets a reply `report` prove, as a
//! player's move does, both the address and the token.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::domain::address::EmailAddress;

/// Token length in base32 characters (50 bits: guessing is hopeless, and
/// the rate limit stops anyone trying).
const TOKEN_LEN: usize = 10;

/// A per-player secret for one game, or for one pending confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyToken(String);

impl ReplyToken {
    /// The token as written in addresses.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Compares in constant time, so timing reveals nothing of the token.
    pub fn matches(&self, written: &str) -> bool {
        let written = written.to_ascii_lowercase();
        written.len() == self.0.len()
            && written
                .bytes()
                .zip(self.0.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// Makes tokens from the server secret.
#[derive(Clone)]
pub struct Tokens {
    secret: Vec<u8>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokens(***)")
    }
}

const BASE32: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";

impl Tokens {
    /// Tokens keyed by the server secret.
    pub fn new(secret: &str) -> Tokens {
        Tokens {
            secret: secret.as_bytes().to_vec(),
        }
    }

    fn token(&self, message: &str) -> ReplyToken {
        ReplyToken(self.mac_base32(message, TOKEN_LEN))
    }

    /// The first `len` bytes of the HMAC of `message`, one base32 letter each.
    fn mac_base32(&self, message: &str, len: usize) -> String {
        #[allow(clippy::expect_used)]
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret)
            .expect("HMAC-SHA256 takes keys of any length");
        mac.update(message.as_bytes());
        let digest = mac.finalize().into_bytes();
        digest
            .iter()
            .take(len)
            .map(|b| BASE32[usize::from(b % 32)] as char)
            .collect()
    }

    /// The token of a player in a game.
    pub fn player(&self, game: i64, player: i64) -> ReplyToken {
        self.token(&format!("game {game} player {player}"))
    }

    /// The token of a pending confirmation.
    pub fn confirmation(&self, id: i64) -> ReplyToken {
        self.token(&format!("confirmation {id}"))
    }

    /// The secret part of one of our Message-IDs, from the mail's key: no one
    /// without the secret can name a mail we sent (a bounce counts only when
    /// it returns one, so a forged bounce cannot pause a player).
    pub fn message(&self, mail_key: &str) -> ReplyToken {
        self.token(&format!("message {mail_key}"))
    }

    /// The token of an entry waiting for its confirmation.
    pub fn entry(&self, id: i64) -> ReplyToken {
        self.token(&format!("entry {id}"))
    }

    /// The token of a player's daily digest.
    pub fn digest(&self, player: i64) -> ReplyToken {
        self.token(&format!("digest player {player}"))
    }

    /// The unguessable part of the web page of an unlisted event
    /// (`/events/7.TOKEN`) or of one of its games (`/games/42.TOKEN`):
    /// `kind` is `event` or `game`. Ids are counted up, so a page by
    /// number alone would list every unlisted event to whoever counts.
    pub fn page(&self, kind: &str, id: i64) -> ReplyToken {
        self.token(&format!("web page {kind} {id}"))
    }

    /// The mark a `dopis doctor` probe mail carries (see
    /// [`crate::adapter::mail::probe`]): its nonce and an HMAC of the server secret
    /// over it, `NONCE.MAC` with the MAC in hex (128 bits: the header is
    /// not rate-limited, so it gets more than a reply token's 50).
    pub fn probe_mark(&self, nonce: &str) -> String {
        format!("{nonce}.{}", self.probe_mac(nonce))
    }

    /// Whether `value` is a mark [`Tokens::probe_mark`] made with this
    /// secret (compared in constant time).
    pub fn is_probe_mark(&self, value: &str) -> bool {
        let Some((nonce, mac)) = value.trim().rsplit_once('.') else {
            return false;
        };
        let wanted = self.probe_mac(nonce);
        let written = mac.to_ascii_lowercase();
        !nonce.is_empty()
            && written.len() == wanted.len()
            && written
                .bytes()
                .zip(wanted.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }

    fn probe_mac(&self, nonce: &str) -> String {
        #[allow(clippy::expect_used)]
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret)
            .expect("HMAC-SHA256 takes keys of any length");
        mac.update(format!("doctor probe {nonce}").as_bytes());
        crate::adapter::mail::key::hex(&mac.finalize().into_bytes()[..16])
    }

    /// The secret part of a player's private web links (`dopis web`: their
    /// pages and calendar feed), for one link generation: 26 base32
    /// characters (130 bits; a URL is tried without any rate limit, so it
    /// gets more than a reply token's 50). Bumping the generation revokes
    /// every link made before.
    pub fn web_link(&self, player: i64, generation: i64) -> String {
        self.mac_base32(
            &format!("web link player {player} generation {generation}"),
            26,
        )
    }

    /// Whether `written` is the web link token of the player and generation
    /// (compared in constant time).
    pub fn is_web_link(&self, player: i64, generation: i64, written: &str) -> bool {
        let wanted = self.web_link(player, generation);
        written.len() == wanted.len()
            && written
                .bytes()
                .zip(wanted.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }

    /// The signature of a one-click unsubscribe link (RFC 8058): of the
    /// player, what it stops (`digest`, `news`) and when it was made, 26
    /// base32 characters as a private link's (a URL is tried without any
    /// rate limit).
    pub fn unsubscribe(&self, player: i64, list: &str, issued: i64) -> String {
        self.mac_base32(
            &format!("unsubscribe player {player} list {list} issued {issued}"),
            26,
        )
    }

    /// Whether `written` is the signature [`Tokens::unsubscribe`] makes
    /// (compared in constant time).
    pub fn is_unsubscribe(&self, player: i64, list: &str, issued: i64, written: &str) -> bool {
        let wanted = self.unsubscribe(player, list, issued);
        written.len() == wanted.len()
            && written
                .bytes()
                .zip(wanted.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }

    /// The token of a tournament director (by address, any case) in an event.
    pub fn director(&self, event: i64, address: &str) -> ReplyToken {
        self.token(&format!(
            "report event {event} director {}",
            address.to_ascii_lowercase()
        ))
    }
}

/// What the tag of one of our reply addresses says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyTag {
    /// `g42.TOKEN`: a game and a player's token.
    Game {
        /// The game number.
        game: i64,
        /// The token as written.
        token: String,
    },
    /// `c17.TOKEN`: a pending confirmation.
    Confirmation {
        /// The confirmation id.
        id: i64,
        /// The token as written.
        token: String,
    },
    /// `r3.TOKEN`: an event's deadline reports and a TD's token.
    Report {
        /// The event number.
        event: i64,
        /// The token as written.
        token: String,
    },
    /// `e9.TOKEN`: an entry to an event, waiting for its confirmation.
    Entry {
        /// The entry's number.
        id: i64,
        /// The token as written.
        token: String,
    },
    /// `d7.TOKEN`: a player's daily digest.
    Digest {
        /// The player's id.
        player: i64,
        /// The token as written.
        token: String,
    },
}

impl ReplyTag {
    /// The tag as written in an address: `g42.k7f3q9ab2c`.
    fn text(&self) -> String {
        match self {
            ReplyTag::Game { game, token } => format!("g{game}.{token}"),
            ReplyTag::Confirmation { id, token } => format!("c{id}.{token}"),
            ReplyTag::Report { event, token } => format!("r{event}.{token}"),
            ReplyTag::Digest { player, token } => format!("d{player}.{token}"),
            ReplyTag::Entry { id, token } => format!("e{id}.{token}"),
        }
    }

    /// Reads a tag written by [`ReplyTag::text`]; `None` for anything else.
    fn read(tag: &str) -> Option<ReplyTag> {
        let (head, token) = tag.split_once('.')?;
        let number: i64 = head.get(1..)?.parse().ok()?;
        if token.is_empty() || token.len() > 64 || token.contains('.') {
            return None;
        }
        let token = token.to_string();
        match head.as_bytes().first()? {
            b'g' => Some(ReplyTag::Game {
                game: number,
                token,
            }),
            b'c' => Some(ReplyTag::Confirmation { id: number, token }),
            b'r' => Some(ReplyTag::Report {
                event: number,
                token,
            }),
            b'e' => Some(ReplyTag::Entry { id: number, token }),
            b'd' => Some(ReplyTag::Digest {
                player: number,
                token,
            }),
            _ => None,
        }
    }
}

/// The characters a mail provider may use between an address and its tag
/// (`[mail] reply_delimiter`): `+` (Gmail, Fastmail, Outlook.com, Postfix's
/// usual setting), `-` (Yahoo, qmail, many hosts), and the rarer `_` and `=`.
pub const DELIMITERS: [char; 4] = ['+', '-', '_', '='];

/// How our reply addresses are formed: the tag after our own address's
/// local part and a delimiter (`chess+g42.TOKEN@club.example`), or, for a
/// provider without subaddressing, the tag as the whole local part on a
/// domain whose every address reaches our mailbox
/// (`g42.TOKEN@chess.club.example`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyAddresses {
    ours: EmailAddress,
    form: ReplyForm,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ReplyForm {
    Subaddress(char),
    CatchAll(String),
}

impl ReplyAddresses {
    /// Tags after `ours` and `delimiter` (one of [`DELIMITERS`]).
    pub fn subaddress(ours: EmailAddress, delimiter: char) -> ReplyAddresses {
        ReplyAddresses {
            ours,
            form: ReplyForm::Subaddress(delimiter),
        }
    }

    /// Tags as the local part on the catch-all `domain` (lower case).
    pub fn catch_all(ours: EmailAddress, domain: &str) -> ReplyAddresses {
        ReplyAddresses {
            ours,
            form: ReplyForm::CatchAll(domain.trim().to_ascii_lowercase()),
        }
    }

    /// Our reply address for a tag.
    pub fn address(&self, tag: &ReplyTag) -> EmailAddress {
        let text = match &self.form {
            ReplyForm::Subaddress(delimiter) => format!(
                "{}{delimiter}{}@{}",
                self.ours.local_part(),
                tag.text(),
                self.ours.domain()
            ),
            ReplyForm::CatchAll(domain) => format!("{}@{domain}", tag.text()),
        };
        EmailAddress::parse(&text).unwrap_or_else(|_| self.ours.clone())
    }

    /// Reads the tag of one of our reply addresses; `None` for any other
    /// address. Our own address's local part may itself contain the
    /// delimiter (`club-chess-g42.TOKEN`): the tag is what follows it.
    pub fn read(&self, address: &EmailAddress) -> Option<ReplyTag> {
        let local = address.local_part();
        let domain = address.domain();
        let tag = match &self.form {
            ReplyForm::Subaddress(delimiter) => {
                if !domain.eq_ignore_ascii_case(self.ours.domain()) {
                    return None;
                }
                let ours = self.ours.local_part();
                let rest = local
                    .get(..ours.len())
                    .filter(|head| head.eq_ignore_ascii_case(ours))
                    .and_then(|_| local.get(ours.len()..))?;
                rest.strip_prefix(*delimiter)?
            }
            ReplyForm::CatchAll(ours) => {
                if !domain.eq_ignore_ascii_case(ours) {
                    return None;
                }
                local
            }
        };
        ReplyTag::read(tag)
    }
}

/// Reads the game number from a subject tag `[dopis #42]`.
pub fn game_in_subject(subject: &str) -> Option<i64> {
    let lower = subject.to_ascii_lowercase();
    let start = lower.find("[dopis #")? + "[dopis #".len();
    let digits: String = lower[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    if !lower[start + digits.len()..].starts_with(']') {
        return None;
    }
    digits.parse().ok()
}

/// What one of our Message-IDs says about the mail that carried it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OurMessageId {
    /// The game the mail was about.
    pub game: i64,
    /// The position the mail showed, as half-moves played (`None` for the
    /// thread root and for mails sent before Message-IDs carried it).
    pub ply: Option<u32>,
}

/// The part of our Message-ID before the `@`: `dopis.g42.p12.HASH` for a
/// mail about game 42 after 12 half-moves, `dopis.x.HASH` for a mail about
/// no game. `hash` is hex, so it never reads as a `p12` part.
pub fn message_id_local(game: Option<(i64, u32)>, hash: &str) -> String {
    match game {
        Some((game, ply)) => format!("dopis.g{game}.p{ply}.{hash}"),
        None => format!("dopis.x.{hash}"),
    }
}

/// Reads one of our Message-IDs (`dopis.g42.p12.…@domain`; older ones,
/// `dopis.g42.…`, name no position); `None` for anyone else's.
pub fn read_message_id(id: &str) -> Option<OurMessageId> {
    let rest = id.trim_matches(['<', '>']).strip_prefix("dopis.g")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let game = digits.parse().ok()?;
    let ply = rest[digits.len()..]
        .strip_prefix(".p")
        .and_then(|rest| rest.split_once('.'))
        .and_then(|(ply, _)| {
            (!ply.is_empty() && ply.bytes().all(|b| b.is_ascii_digit()))
                .then(|| ply.parse().ok())
                .flatten()
        });
    Some(OurMessageId { game, ply })
}

/// Reads the game number from one of our Message-IDs (`dopis.g42.…@domain`).
pub fn game_in_message_id(id: &str) -> Option<i64> {
    read_message_id(id).map(|ours| ours.game)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours() -> EmailAddress {
        EmailAddress::parse("chess@chess.test").unwrap()
    }

    #[test]
    fn tokens_differ_per_game_player_and_secret_and_are_stable() {
        let t = Tokens::new("s3cret");
        let a = t.player(42, 1);
        assert_eq!(a, t.player(42, 1));
        assert_ne!(a, t.player(42, 2));
        assert_ne!(a, t.player(43, 1));
        assert_ne!(a, Tokens::new("other").player(42, 1));
        assert_eq!(a.as_str().len(), TOKEN_LEN);
        assert!(a.matches(&a.as_str().to_uppercase()));
        assert!(!a.matches("aaaaaaaaaa"));
        assert!(!a.matches(""));
    }

    fn plus() -> ReplyAddresses {
        ReplyAddresses::subaddress(ours(), '+')
    }

    #[test]
    fn plus_addresses_round_trip() {
        let tag = ReplyTag::Game {
            game: 42,
            token: "k7f3q9ab2c".into(),
        };
        let a = plus().address(&tag);
        assert_eq!(a.as_str(), "chess+g42.k7f3q9ab2c@chess.test");
        assert_eq!(plus().read(&a), Some(tag));
        for tag in [
            ReplyTag::Confirmation {
                id: 7,
                token: "abc".into(),
            },
            ReplyTag::Report {
                event: 3,
                token: "k7f3q9ab2c".into(),
            },
            ReplyTag::Digest {
                player: 9,
                token: "k7f3q9ab2c".into(),
            },
        ] {
            assert_eq!(plus().read(&plus().address(&tag)), Some(tag));
        }
        let report = ReplyTag::Report {
            event: 3,
            token: "abc".into(),
        };
        assert_eq!(plus().address(&report).as_str(), "chess+r3.abc@chess.test");
    }

    #[test]
    fn other_delimiters_and_a_catch_all_domain_round_trip_and_keep_apart() {
        let tag = ReplyTag::Game {
            game: 42,
            token: "k7f3q9ab2c".into(),
        };
        let club = EmailAddress::parse("club-chess@chess.test").unwrap();
        let dash = ReplyAddresses::subaddress(club.clone(), '-');
        let a = dash.address(&tag);
        assert_eq!(a.as_str(), "club-chess-g42.k7f3q9ab2c@chess.test");
        assert_eq!(dash.read(&a), Some(tag.clone()));
        // A delimiter inside our own local part is not where the tag starts.
        let bare = EmailAddress::parse("club-g42.k7f3q9ab2c@chess.test").unwrap();
        assert_eq!(dash.read(&bare), None);
        // A '+' address is not ours when the provider uses '-'.
        let plus_form = ReplyAddresses::subaddress(club, '+').address(&tag);
        assert_eq!(dash.read(&plus_form), None);

        let catch_all = ReplyAddresses::catch_all(ours(), "Play.Chess.Test");
        let a = catch_all.address(&tag);
        assert_eq!(a.as_str(), "g42.k7f3q9ab2c@play.chess.test");
        assert_eq!(catch_all.read(&a), Some(tag.clone()));
        let upper = EmailAddress::parse("G42.K7F3Q9AB2C@PLAY.chess.test").unwrap();
        assert_eq!(catch_all.read(&upper), Some(tag.clone()));
        for text in [
            "g42.k7f3q9ab2c@chess.test",
            "chess+g42.k7f3q9ab2c@play.chess.test",
            "chess@play.chess.test",
            "x.y.z@play.chess.test",
            "g42.a.b@play.chess.test",
        ] {
            let a = EmailAddress::parse(text).unwrap();
            assert_eq!(catch_all.read(&a), None, "{text}");
        }
    }

    #[test]
    fn director_tokens_differ_per_event_and_address_but_not_by_case() {
        let t = Tokens::new("s3cret");
        let a = t.director(3, "td@example.org");
        assert_eq!(a, t.director(3, "TD@Example.ORG"));
        assert_ne!(a, t.director(4, "td@example.org"));
        assert_ne!(a, t.director(3, "other@example.org"));
        // A director's token is never a player's or a confirmation's.
        assert_ne!(a, t.player(3, 0));
        assert_ne!(a, t.confirmation(3));
    }

    #[test]
    fn foreign_and_malformed_plus_addresses_route_nowhere() {
        for text in [
            "chess@chess.test",
            "chess+g42.tok@other.test",
            "other+g42.tok@chess.test",
            "chess+x42.tok@chess.test",
            "chess+g.tok@chess.test",
            "chess+g42@chess.test",
            "chess+g42.@chess.test",
            "chess+g99999999999999999999.t@chess.test",
        ] {
            let a = EmailAddress::parse(text).unwrap();
            assert_eq!(plus().read(&a), None, "{text}");
        }
    }

    #[test]
    fn subjects_and_message_ids_name_games() {
        assert_eq!(game_in_subject("Re: [dopis #42] Your move"), Some(42));
        assert_eq!(game_in_subject("AW: [Dopis #7]"), Some(7));
        assert_eq!(game_in_subject("[dopis #42x]"), None);
        assert_eq!(game_in_subject("hello"), None);
        assert_eq!(game_in_message_id("<dopis.g42.m3.w@chess.test>"), Some(42));
        assert_eq!(game_in_message_id("<abc@gmail.com>"), None);
    }

    #[test]
    fn message_ids_name_the_position_and_old_ones_still_name_the_game() {
        let local = message_id_local(Some((42, 12)), "0123abcd");
        assert_eq!(local, "dopis.g42.p12.0123abcd");
        let ours = |id: &str| read_message_id(id);
        assert_eq!(
            ours(&format!("<{local}@chess.test>")),
            Some(OurMessageId {
                game: 42,
                ply: Some(12)
            })
        );
        assert_eq!(
            ours("dopis.g42.p0.ffff@chess.test").and_then(|o| o.ply),
            Some(0)
        );
        // Sent before the position was in them, and the thread root: the
        // game, no position.
        for old in [
            "<dopis.g42.0123abcd4567ef89@chess.test>",
            "<dopis.g42.start@chess.test>",
            "<dopis.g42.m3.w@chess.test>",
            "<dopis.g42.p.x@chess.test>",
            "<dopis.g42.p12@chess.test>",
            "<dopis.g42.p99999999999.x@chess.test>",
        ] {
            assert_eq!(
                ours(old),
                Some(OurMessageId {
                    game: 42,
                    ply: None
                }),
                "{old}"
            );
        }
        // A mail about no game (answers, the digest) names neither.
        let none = message_id_local(None, "0123abcd");
        assert_eq!(none, "dopis.x.0123abcd");
        assert_eq!(ours(&none), None);
        assert_eq!(ours("<abc@gmail.com>"), None);
    }
}
