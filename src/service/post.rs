//! Turning what happened into mails in the outbox: addresses with reply
//! tokens, deterministic keys and Message-IDs, threading, and the letters
//! themselves (composed from `templates/`).

use crate::service::ServiceError;
use chrono::{DateTime, Utc};
use shakmaty::Color;

use crate::adapter::config::MailConfig;
use crate::adapter::mail::compose::{
    self, DigestGame, GameListEntry, GameView, Letter, LetterKind, PairingNote, Party,
    StandingLine, Talk,
};
use crate::adapter::mail::inbound::MessageId;
use crate::adapter::mail::key::sha256_hex;
use crate::adapter::mail::route::{self, ReplyAddresses, ReplyTag, Tokens, message_id_local};
use crate::adapter::store::StoreError;
use crate::adapter::store::Tx;
use crate::adapter::store::outbox::{NewOutboxMail, OutboxKind};
use crate::domain::address::EmailAddress;
use crate::domain::arbiter::Notice;
use crate::domain::chess::analysis::AnalysisLink;
use crate::domain::chess::side;
use crate::domain::clock::{Clocks, TimeControl};
use crate::domain::ids::GameId;
use crate::domain::locale;
use crate::domain::player::Player;
use crate::service::loaded_game::{LoadedGame, load_table};

/// Everything needed to address and compose our mails.
#[derive(Debug, Clone)]
pub struct Post {
    /// Our address.
    pub ours: EmailAddress,
    /// How reply addresses are formed and read (`[mail] reply_delimiter`,
    /// `reply_domain`).
    pub replies: ReplyAddresses,
    /// Our display name.
    pub name: String,
    /// Reply tokens.
    pub tokens: Tokens,
    /// Whether mail must carry an aligned DKIM pass to act (`[mail] require_dkim`).
    pub require_dkim: bool,
    /// Where the DKIM check looks keys up (`[mail] dns_servers`).
    pub dns_servers: crate::service::dkim::DnsServers,
    /// When a bouncing address pauses its player (`[mail] bounces_to_pause`,
    /// `bounce_days`).
    pub bounces: BouncePolicy,
    /// The analysis board link of "your move" mails (`[mail]
    /// analysis_link`), unless a game's event sets its own.
    pub analysis: AnalysisLink,
    /// `[web] base_url` (no trailing slash), when set: mails about a game
    /// link to the game's page from the recipient's side, event mails to
    /// the event's page ([`Post::with_pages`]). Unset, mails are as before.
    pub pages: Option<String>,
    /// Answers per hour to one address (`[mail] answers_per_hour`): the
    /// limit [`Post::answer`] keeps.
    pub answers_per_hour: u32,
}

/// When hard bounces pause a player's mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BouncePolicy {
    /// Hard bounces that pause a player; 0 never pauses.
    pub to_pause: u32,
    /// Over how many days they are counted.
    pub days: u32,
}

/// Why the mail settings are unusable.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    /// `[mail] address` is not an address.
    #[error("[mail] address: {0}")]
    Address(crate::domain::address::BadAddress),
    /// No secret for reply tokens.
    #[error(
        "[mail] secret is empty: reply addresses need a secret. Run `dopis init` to write one into \
         the config, or set DOPIS_MAIL_SECRET to a long random text"
    )]
    NoSecret,
    /// `[mail] dns_servers` holds something that is not a server address.
    #[error("[mail] dns_servers: {0}")]
    DnsServers(String),
    /// `[mail] analysis_link` is not `off`, `lichess` or an address template.
    #[error("[mail] analysis_link: {0}")]
    AnalysisLink(crate::domain::chess::analysis::BadAnalysisLink),
    /// `[mail] reply_delimiter` is not one character providers use.
    #[error(
        "[mail] reply_delimiter is '{0}': write the one character your mail provider puts \
         between an address and its tag: \"+\" (Gmail, Fastmail, Outlook.com, Postfix), \
         \"-\" (Yahoo, qmail, many hosts), \"_\" or \"=\"; without subaddressing set \
         reply_domain to a catch-all domain instead"
    )]
    ReplyDelimiter(String),
    /// `[mail] reply_domain` is not a domain.
    #[error(
        "[mail] reply_domain is '{0}': write a domain whose every address reaches dopis's \
         mailbox (a catch-all), e.g. \"chess.club.example\", or leave it empty to use \
         subaddresses of [mail] address"
    )]
    ReplyDomain(String),
}

/// What a mail is in reply to, for threading and keys.
#[derive(Debug, Clone)]
pub struct Answering<'a> {
    /// The inbound mail's idempotency key.
    pub mail_key: &'a str,
    /// Its Message-ID, if it had one.
    pub message_id: Option<&'a MessageId>,
}

impl Answering<'_> {
    /// The outbox key of an answer to this mail: `what` names the answer
    /// (`confirm`, `entry.2`, …), so that handling the same mail again
    /// queues the same answers once.
    pub fn key(&self, what: &str) -> String {
        answer_key(self.mail_key, what)
    }
}

/// The outbox key of an answer `what` to the inbound mail keyed `mail_key`:
/// `in.` and the SHA-256 of that key (32 hex digits, one length for all).
pub fn answer_key(mail_key: &str, what: &str) -> String {
    format!("in.{}.{what}", sha256_hex(mail_key.as_bytes(), 32))
}

/// One mail to queue: what it says, to whom, and about which game.
#[derive(Debug, Clone)]
pub struct Outgoing<'a> {
    /// Deterministic outbox key: queueing the same key twice queues it once.
    key: String,
    /// What the letter says.
    kind: LetterKind,
    /// The recipient.
    to: &'a Player,
    /// The game it is about (threading, the board, the clocks).
    game: Option<&'a LoadedGame>,
    /// The side the recipient plays in that game, if they play.
    side: Option<Color>,
    /// The player's mail it answers, if any (then it is rate-limited).
    answering: Option<&'a Answering<'a>>,
    /// A Reply-To other than the game's.
    reply_to: Option<EmailAddress>,
    /// For a mail telling of the opponent's move: that move's ply.
    ply: Option<i64>,
}

impl<'a> Outgoing<'a> {
    /// A mail `key` saying `kind` to `to`: about no game, answering no mail,
    /// with the usual Reply-To. The methods below add what a mail needs.
    pub fn new(key: String, kind: LetterKind, to: &'a Player) -> Outgoing<'a> {
        Outgoing {
            key,
            kind,
            to,
            game: None,
            side: None,
            answering: None,
            reply_to: None,
            ply: None,
        }
    }

    /// About `game`, to the player of `side` in it (`None`: the recipient
    /// does not play in it, e.g. a TD).
    pub fn about(self, game: &'a LoadedGame, side: impl Into<Option<Color>>) -> Outgoing<'a> {
        Outgoing {
            game: Some(game),
            side: side.into(),
            ..self
        }
    }

    /// An answer to the player's mail (threaded to it, and rate-limited).
    pub fn answering(self, answering: impl Into<Option<&'a Answering<'a>>>) -> Outgoing<'a> {
        Outgoing {
            answering: answering.into(),
            ..self
        }
    }

    /// With this Reply-To instead of the game's.
    pub fn reply_to(self, reply_to: impl Into<Option<EmailAddress>>) -> Outgoing<'a> {
        Outgoing {
            reply_to: reply_to.into(),
            ..self
        }
    }

    /// Telling of the opponent's move at this ply.
    pub fn after_ply(self, ply: impl Into<Option<i64>>) -> Outgoing<'a> {
        Outgoing {
            ply: ply.into(),
            ..self
        }
    }
}

impl Post {
    /// Reads the mail settings.
    pub fn new(cfg: &MailConfig) -> Result<Post, PostError> {
        let ours = EmailAddress::parse(&cfg.address).map_err(PostError::Address)?;
        if cfg.secret.expose().trim().is_empty() {
            return Err(PostError::NoSecret);
        }
        let replies = Self::reply_addresses(cfg, &ours)?;
        Ok(Post {
            ours,
            replies,
            name: cfg.name.clone(),
            tokens: Tokens::new(cfg.secret.expose()),
            require_dkim: cfg.require_dkim,
            dns_servers: crate::service::dkim::DnsServers::parse(&cfg.dns_servers)
                .map_err(PostError::DnsServers)?,
            bounces: BouncePolicy {
                to_pause: cfg.bounces_to_pause,
                days: cfg.bounce_days,
            },
            analysis: AnalysisLink::parse(&cfg.analysis_link).map_err(PostError::AnalysisLink)?,
            pages: None,
            answers_per_hour: cfg.answers_per_hour,
        })
    }

    /// The same post keeping another hourly limit of answers.
    #[must_use]
    pub fn with_answer_limit(mut self, answers_per_hour: u32) -> Post {
        self.answers_per_hour = answers_per_hour;
        self
    }

    /// Whether another answer to this address stays within the hourly
    /// limit. [`Post::answer`] asks it itself; the inbox asks it first only
    /// where the answer is about something it would do first (a
    /// confirmation stored, a move saved).
    pub async fn may_answer(
        &self,
        tx: &mut Tx,
        address: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let sent = tx
            .answers_since(address, now - chrono::Duration::hours(1))
            .await?;
        Ok(sent < i64::from(self.answers_per_hour))
    }

    /// The same post with mails linking to the web pages under `base`
    /// (`[web] base_url`, without its trailing slash).
    #[must_use]
    pub fn with_pages(mut self, base: Option<String>) -> Post {
        self.pages = base.map(|b| b.trim_end_matches('/').to_string());
        self
    }

    /// The address of a player's own pages (`BASE/me/SEGMENT`), when mails
    /// link to the pages.
    async fn own_pages(&self, tx: &mut Tx, player: &Player) -> Result<Option<String>, StoreError> {
        let Some(base) = &self.pages else {
            return Ok(None);
        };
        Ok(tx.link_generation(player.id).await?.map(|generation| {
            format!(
                "{base}/me/{}",
                crate::service::links::segment(&self.tokens, player.id, generation)
            )
        }))
    }

    /// The page a mail about a game links to: the game from the
    /// recipient's side when they play in it; else its public page, if its
    /// event has one.
    async fn game_page(
        &self,
        tx: &mut Tx,
        table: &LoadedGame,
        to: &Player,
    ) -> Result<Option<String>, StoreError> {
        let Some(base) = &self.pages else {
            return Ok(None);
        };
        let id = table.record.id;
        if table.record.side_of(to.id).is_some() {
            return Ok(self
                .own_pages(tx, to)
                .await?
                .map(|own| format!("{own}/games/{}", id.0)));
        }
        let visibility = table.event.as_ref().map(|e| e.visibility);
        Ok(
            crate::service::links::game_path(&self.tokens, id, visibility)
                .map(|path| format!("{base}{path}")),
        )
    }

    /// The page an event mail links to: the event's page for anyone when
    /// it is public or unlisted; a private event's from the recipient's
    /// own pages.
    pub async fn event_page(
        &self,
        tx: &mut Tx,
        event: crate::domain::ids::EventId,
        to: &Player,
    ) -> Result<Option<String>, StoreError> {
        let Some(base) = &self.pages else {
            return Ok(None);
        };
        let visibility = tx.event(event).await?.visibility;
        if visibility == crate::domain::event::Visibility::Private {
            return Ok(self
                .own_pages(tx, to)
                .await?
                .map(|own| format!("{own}/events/{}", event.0)));
        }
        Ok(Some(format!(
            "{base}{}",
            crate::service::links::event_path(&self.tokens, event, visibility)
        )))
    }

    /// How reply addresses are formed, from `reply_domain` if set, else
    /// from `reply_delimiter`.
    fn reply_addresses(cfg: &MailConfig, ours: &EmailAddress) -> Result<ReplyAddresses, PostError> {
        let domain = cfg.reply_domain.trim();
        if !domain.is_empty() {
            let valid = !domain.contains('@')
                && domain.contains('.')
                && EmailAddress::parse(&format!("g1.a@{domain}")).is_ok();
            if !valid {
                return Err(PostError::ReplyDomain(
                    cfg.reply_domain.chars().take(80).collect(),
                ));
            }
            return Ok(ReplyAddresses::catch_all(ours.clone(), domain));
        }
        let mut chars = cfg.reply_delimiter.trim().chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if route::DELIMITERS.contains(&c) => {
                Ok(ReplyAddresses::subaddress(ours.clone(), c))
            }
            _ => Err(PostError::ReplyDelimiter(
                cfg.reply_delimiter.chars().take(20).collect(),
            )),
        }
    }

    fn sender(&self) -> Party {
        Party {
            name: self.name.clone(),
            address: self.ours.clone(),
        }
    }

    /// The reply address of a player in a game.
    pub fn reply_to(&self, game: GameId, player: &Player) -> EmailAddress {
        let token = self.tokens.player(game.0, player.id.0);
        self.replies.address(&ReplyTag::Game {
            game: game.0,
            token: token.as_str().to_string(),
        })
    }

    /// The reply address of a player's daily digest: a reply to it names
    /// its games line by line (see `mail::digest_reply`).
    pub fn digest_address(&self, player: &Player) -> EmailAddress {
        let token = self.tokens.digest(player.id.0);
        self.replies.address(&ReplyTag::Digest {
            player: player.id.0,
            token: token.as_str().to_string(),
        })
    }

    /// The reply address of an entry waiting for its confirmation.
    pub fn entry_address(&self, id: i64) -> EmailAddress {
        let token = self.tokens.entry(id);
        self.replies.address(&ReplyTag::Entry {
            id,
            token: token.as_str().to_string(),
        })
    }

    /// The reply address of a pending confirmation.
    pub fn confirmation_address(&self, id: i64) -> EmailAddress {
        let token = self.tokens.confirmation(id);
        self.replies.address(&ReplyTag::Confirmation {
            id,
            token: token.as_str().to_string(),
        })
    }

    /// The reply address of an event's deadline reports for one TD.
    pub fn report_address(&self, event: i64, director: &EmailAddress) -> EmailAddress {
        let token = self.tokens.director(event, director.as_str());
        self.replies.address(&ReplyTag::Report {
            event,
            token: token.as_str().to_string(),
        })
    }

    /// The Message-ID of a mail with a key: derived from it, so a retry
    /// sends the very same Message-ID. A mail about a game also names the
    /// position it shows (half-moves played), so a reply to it tells which
    /// position the player answered (see `mail::stale`).
    fn message_id(
        &self,
        table: Option<&LoadedGame>,
        mail_key: &str,
    ) -> Result<MessageId, ServiceError> {
        let game = table.map(|t| {
            let ply = u32::try_from(t.game.plies().len()).unwrap_or(u32::MAX);
            (t.record.id.0, ply)
        });
        // Keyed by the secret: a bounce proves it is about our mail by
        // returning its Message-ID, so the id must not be guessable.
        let text = format!(
            "{}@{}",
            message_id_local(game, self.tokens.message(mail_key).as_str()),
            self.ours.domain()
        );
        MessageId::parse(&text).ok_or_else(|| bad_message_id(&text))
    }

    /// The Message-ID every mail of a game refers to, so clients keep one
    /// thread per game: the (virtual) first mail of the game.
    fn thread_root(&self, game: GameId) -> Result<MessageId, ServiceError> {
        let text = format!("dopis.g{}.start@{}", game.0, self.ours.domain());
        MessageId::parse(&text).ok_or_else(|| bad_message_id(&text))
    }

    /// The analysis board link of a game's mails: its event's setting, else ours.
    fn analysis_of(&self, table: &LoadedGame) -> Result<AnalysisLink, StoreError> {
        let own = match &table.event {
            Some(event) => event.settings.analysis_link()?,
            None => None,
        };
        Ok(own.unwrap_or_else(|| self.analysis.clone()))
    }

    /// Composes a letter and queues it.
    pub async fn queue(
        &self,
        tx: &mut Tx,
        mail: Outgoing<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        self.queue_with_talk(tx, mail, None, now).await
    }

    /// Composes a letter that also carries a message between the players,
    /// and queues it.
    pub async fn queue_with_talk(
        &self,
        tx: &mut Tx,
        mail: Outgoing<'_>,
        talk: Option<Talk>,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let page = match mail.game {
            Some(table) => self.game_page(tx, table, mail.to).await?,
            None => None,
        };
        self.queue_linked(tx, mail, talk, page, now).await
    }

    /// Composes a letter about an event and queues it, linking to the
    /// event's page ([`Post::event_page`]) when mails link to the pages.
    pub async fn queue_about_event(
        &self,
        tx: &mut Tx,
        mail: Outgoing<'_>,
        event: crate::domain::ids::EventId,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let page = self.event_page(tx, event, mail.to).await?;
        self.queue_linked(tx, mail, None, page, now).await
    }

    async fn queue_linked(
        &self,
        tx: &mut Tx,
        mail: Outgoing<'_>,
        talk: Option<Talk>,
        page: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let Outgoing {
            key: mail_key,
            kind,
            to,
            game: table,
            side,
            answering,
            reply_to,
            ply,
        } = mail;
        let game_id = table.map(|t| t.record.id);
        let message_id = self.message_id(table, &mail_key)?;
        let root = game_id.map(|id| self.thread_root(id)).transpose()?;
        // The thread is kept by References (the game's root first). Only an
        // answer to a player's mail is In-Reply-To it, and so marked
        // `Auto-Submitted: auto-replied`; a notice of our own (the opponent's
        // move, a reminder) is `auto-generated` (RFC 3834 §5).
        let mut references: Vec<MessageId> = root.iter().cloned().collect();
        let in_reply_to = answering.and_then(|a| a.message_id).cloned();
        references.extend(in_reply_to.iter().cloned());
        let analysis = match table {
            Some(t) if matches!(kind, LetterKind::YourMove) => self.analysis_of(t)?,
            _ => AnalysisLink::Off,
        };
        let game = table.map(|t| game_view(t, side, to, now, &analysis));
        // The mails that introduce a game (to White, the first "your
        // move") or the commands give the player's calendar feed.
        // (A thematic line's moves were played for both.)
        let first_move = matches!(kind, LetterKind::YourMove)
            && table.is_some_and(|t| t.game.plies().len() < t.game.opening_plies() + 2);
        let calendar =
            if first_move || matches!(kind, LetterKind::GameStarted | LetterKind::Help { .. }) {
                self.own_pages(tx, to)
                    .await?
                    .map(|own| format!("{own}/deadlines.ics"))
            } else {
                None
            };
        // A mail the player chose in bulk carries a one-click unsubscribe
        // link when the pages are at an https address (service::unsubscribe).
        let unsubscribe = crate::service::links::List::of(&kind).and_then(|list| {
            let base = self.pages.as_deref();
            crate::service::links::unsubscribe_url(base, &self.tokens, to.id, list, now)
        });
        let letter = Letter {
            kind,
            lang: to.lang,
            from: self.sender(),
            to: Party {
                name: to.name.clone(),
                address: to.email.clone(),
            },
            reply_to,
            message_id: message_id.clone(),
            in_reply_to,
            references,
            date: now,
            game,
            talk,
            page,
            calendar,
            unsubscribe,
        };
        let raw = compose::compose(&letter).map_err(ServiceError::Compose)?;
        Ok(tx
            .enqueue(
                &NewOutboxMail {
                    mail_key,
                    message_id: message_id.as_str().to_string(),
                    kind: if answering.is_some() {
                        OutboxKind::Answer
                    } else {
                        OutboxKind::Notice
                    },
                    envelope_from: self.ours.to_string(),
                    recipient: to.email.to_string(),
                    raw,
                    game_id,
                    ply,
                },
                now,
            )
            .await?)
    }

    /// The deadline of a game where it is `to`'s move, as an entry of
    /// their calendar feed: the event the "your move" mail would carry
    /// now, with their reply address, and `link` (the game's page). `None`
    /// when it is not their move or the game has no deadline.
    pub fn feed_entry(
        &self,
        table: &LoadedGame,
        to: &Player,
        link: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<Option<compose::FeedEntry>, ServiceError> {
        let Some(side) = table.record.side_of(to.id) else {
            return Ok(None);
        };
        let letter = Letter {
            kind: LetterKind::YourMove,
            lang: to.lang,
            from: self.sender(),
            to: Party {
                name: to.name.clone(),
                address: to.email.clone(),
            },
            reply_to: Some(self.reply_to(table.record.id, to)),
            message_id: self.thread_root(table.record.id)?,
            in_reply_to: None,
            references: Vec::new(),
            date: now,
            game: Some(game_view(table, Some(side), to, now, &AnalysisLink::Off)),
            talk: None,
            // The feed gives its own link (`link`).
            page: None,
            calendar: None,
            unsubscribe: None,
        };
        Ok(compose::feed_entry(&letter, link)?)
    }

    /// Tells both players, and `directors`, that a game is over: the one
    /// game-over fan-out (a move that ends it, a timeout, a TD's result).
    /// `stem` starts the outbox keys: `<stem>.over.<side>` for each player,
    /// `<stem>.over.td.<address>` for each TD.
    pub async fn game_over(
        &self,
        tx: &mut Tx,
        stem: &str,
        table: &LoadedGame,
        directors: &[Player],
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        // Every end of a game passes here, so the rating list moves in the
        // transaction that ends the game, whichever way it ended.
        let rated = table.event.as_ref().map(|e| e.settings.rated);
        crate::service::ratings::rate_game(tx, &table.record, &table.game, rated, now).await?;
        for side in [Color::White, Color::Black] {
            self.to_player(
                tx,
                format!("{stem}.over.{}", side::key(side)),
                LetterKind::GameOver,
                table,
                side,
                now,
            )
            .await?;
        }
        for td in directors {
            self.queue(
                tx,
                Outgoing::new(
                    format!("{stem}.over.td.{}", td.email),
                    LetterKind::GameOver,
                    td,
                )
                .about(table, None),
                now,
            )
            .await?;
        }
        Ok(())
    }

    /// Queues a mail about a game to the player of `side`, with their reply
    /// address (it is not an answer to a mail of theirs).
    pub async fn to_player(
        &self,
        tx: &mut Tx,
        mail_key: String,
        kind: LetterKind,
        table: &LoadedGame,
        side: Color,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let to = table.player(side);
        let reply_to = self.reply_to(table.record.id, to);
        let fellows = Self::fellows(table, side);
        self.to_fellows(tx, &mail_key, &kind, table, side, &fellows, now)
            .await?;
        self.queue(
            tx,
            Outgoing::new(mail_key, kind, to)
                .about(table, side)
                .reply_to(reply_to),
            now,
        )
        .await
    }

    /// The members of a consultation game's side but its captain (who is
    /// the game's player): they get the side's mails too. None in any
    /// other game.
    fn fellows(table: &LoadedGame, side: Color) -> Vec<Player> {
        let captain = table.player(side).id;
        table
            .members
            .of(side)
            .filter(|(member, _)| member.player != captain)
            .map(|(_, player)| player.clone())
            .collect()
    }

    /// Queues to each of `fellows` (see [`Post::fellows`]) the mail the
    /// captain gets under `mail_key`, keyed by it and the member.
    #[allow(clippy::too_many_arguments)]
    async fn to_fellows(
        &self,
        tx: &mut Tx,
        mail_key: &str,
        kind: &LetterKind,
        table: &LoadedGame,
        side: Color,
        fellows: &[Player],
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        for member in fellows {
            self.queue(
                tx,
                Outgoing::new(format!("{mail_key}.m{}", member.id.0), kind.clone(), member)
                    .about(table, side)
                    .reply_to(self.reply_to(table.record.id, member)),
                now,
            )
            .await?;
        }
        Ok(())
    }

    /// Queues an answer to a player's mail (`mail`, made `answering` it),
    /// unless it would go over the hourly limit of answers to their
    /// address, which also bounds how many mails one sender can make the
    /// server send: whether it was queued.
    pub async fn answer(
        &self,
        tx: &mut Tx,
        mail: Outgoing<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, ServiceError> {
        if !self.may_answer(tx, mail.to.email.as_str(), now).await? {
            return Ok(false);
        }
        self.queue(tx, mail, now).await?;
        Ok(true)
    }

    /// Queues the mails for a new game: the side to move (White, unless a
    /// thematic line ends with White's move) gets "your move", the other
    /// "game started".
    pub async fn game_started(
        &self,
        tx: &mut Tx,
        table: &LoadedGame,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let id = table.record.id.0;
        // The side to move is White but after a thematic line that ends
        // with White's move (1.e4 e5 2.Nf3 Nc6 3.Bb5): then Black.
        let first = table.game.turn();
        for (side, kind) in [
            (first, LetterKind::YourMove),
            (!first, LetterKind::GameStarted),
        ] {
            let to = table.player(side);
            if matches!(kind, LetterKind::YourMove) && tx.wants_digest(to.id).await? {
                continue;
            }
            self.to_player(
                tx,
                format!("g{id}.start.{}", side::key(side)),
                kind,
                table,
                side,
                now,
            )
            .await?;
        }
        Ok(())
    }

    /// Queues the mails for the arbiter's notices about a game.
    pub async fn notices(
        &self,
        tx: &mut Tx,
        table: &LoadedGame,
        notices: &[Notice],
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let id = table.record.id;
        let ply = i64::try_from(table.game.plies().len()).unwrap_or(i64::MAX);
        // A message rides with the first mail its recipient gets of this
        // mail's news, and the writer hears of it in their answer; with no
        // such mail, a short one of its own says it (see the end).
        let mut talks = Talks::of(table, notices);
        // What the tables say rides with every mail of this news.
        let told;
        let table = match notices.iter().find_map(|n| match n {
            Notice::TablesSay { news } => Some(news.clone()),
            _ => None,
        }) {
            Some(news) => {
                told = LoadedGame {
                    tables_news: Some(news),
                    ..table.clone()
                };
                &told
            }
            None => table,
        };
        let alone = notices
            .iter()
            .all(|n| matches!(n, Notice::Message { .. } | Notice::MessageHeld { .. }));
        for (index, notice) in notices.iter().enumerate() {
            // Mails caused by a move are keyed by the move, so that the same
            // move can never produce two "your move" mails; answers by the
            // inbound mail.
            let answer_key = answering.key(&index.to_string());
            let move_key =
                |what: &str, side: Color| format!("g{}.p{ply}.{what}.{}", id.0, side::key(side));
            let (key, kind, side, answer, notice_ply) = match notice {
                Notice::YourMove { to } => (
                    move_key("yourmove", *to),
                    LetterKind::YourMove,
                    *to,
                    false,
                    Some(ply),
                ),
                Notice::MoveAccepted { to, ply } => (
                    move_key("accepted", *to),
                    LetterKind::MoveAccepted { ply: *ply },
                    *to,
                    true,
                    None,
                ),
                Notice::GameOver => {
                    self.game_over(tx, &format!("g{}", id.0), table, &[], now)
                        .await?;
                    continue;
                }
                Notice::DrawOfferDeclined { to } => (
                    move_key("declined", *to),
                    LetterKind::DrawOfferDeclined,
                    *to,
                    false,
                    None,
                ),
                Notice::DrawOffered { to } => (
                    move_key("drawoffer", *to),
                    LetterKind::Status,
                    *to,
                    false,
                    None,
                ),
                Notice::Rejected {
                    to,
                    wrote,
                    reason,
                    kind,
                } => (
                    answer_key,
                    LetterKind::Rejected {
                        wrote: wrote.clone(),
                        reason: reason.clone(),
                        kind: *kind,
                    },
                    *to,
                    true,
                    None,
                ),
                Notice::Status { to } => (answer_key, LetterKind::Status, *to, true, None),
                Notice::Pgn { to } => (answer_key, LetterKind::Pgn, *to, true, None),
                Notice::Help { to } => (
                    answer_key,
                    LetterKind::Help {
                        examples: help_examples(table, *to),
                    },
                    *to,
                    true,
                    None,
                ),
                Notice::Games { to } => {
                    let player = table.player(*to);
                    let games = tx.active_games_of(player.id).await?;
                    (
                        answer_key,
                        LetterKind::Games {
                            games: game_list(tx, &games, player, now).await?,
                        },
                        *to,
                        true,
                        None,
                    )
                }
                Notice::Conditionals { to, note, lines } => (
                    // Keyed by the mail that caused it: set/list/cancel answer
                    // a mail; a cancellation follows the opponent's move.
                    format!("{answer_key}.cond.{}", side::key(*to)),
                    LetterKind::Conditionals {
                        note: note.clone(),
                        lines: lines.clone(),
                    },
                    *to,
                    false,
                    None,
                ),
                Notice::ConditionalPlayed { to, ply } => (
                    move_key("conditional", *to),
                    LetterKind::ConditionalPlayed { ply: *ply },
                    *to,
                    false,
                    None,
                ),
                // Told with the other mails (see `Talks`).
                Notice::Message { .. } | Notice::MessageHeld { .. } | Notice::TablesSay { .. } => {
                    continue;
                }
            };
            let to = table.player(side);
            // A consultation side's members hear what its captain hears,
            // but for the answers to the captain's own mail.
            if !answer {
                let fellows = Self::fellows(table, side);
                self.to_fellows(tx, &key, &kind, table, side, &fellows, now)
                    .await?;
            }
            // A player on the daily digest hears of their move there.
            if matches!(kind, LetterKind::YourMove) && tx.wants_digest(to.id).await? {
                continue;
            }
            let talk = talks.take(side, answer);
            self.queue_with_talk(
                tx,
                Outgoing::new(key, kind, to)
                    .about(table, side)
                    .answering(answer.then_some(answering))
                    .reply_to(self.reply_to(id, to))
                    .after_ply(notice_ply),
                talk,
                now,
            )
            .await?;
        }
        // What no other mail carried goes in a short mail of its own: the
        // message to its recipient, and to the writer that it was passed
        // on (or why not), as an answer to their mail.
        for (side, answer, talk) in talks.left() {
            let to = table.player(side);
            let key = if answer {
                answering.key("message.ack")
            } else {
                answering.key(&format!("message.{}", side::key(side)))
            };
            self.queue_with_talk(
                tx,
                Outgoing::new(key, LetterKind::Message { alone }, to)
                    .about(table, side)
                    .answering(answer.then_some(answering))
                    .reply_to(self.reply_to(id, to)),
                Some(talk),
                now,
            )
            .await?;
        }
        Ok(())
    }

    /// Queues a player's daily digest: every game in `tables` (where it is
    /// their move), each with its board, with the digest's reply address
    /// (one line per game) and each game's own. The digest is what tells the
    /// player of the last move in each game, so their clock there starts
    /// when it is sent (recorded in `digest_games`, applied on delivery),
    /// and the clocks and deadlines it shows count from now.
    pub async fn digest(
        &self,
        tx: &mut Tx,
        to: &Player,
        tables: &[LoadedGame],
        day: &str,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let key = format!("digest.p{}.{day}", to.id.0);
        let mut games = Vec::with_capacity(tables.len());
        for t in tables {
            let side = t.record.side_of(to.id);
            let analysis = self.analysis_of(t)?;
            let mut told = t.clone();
            if let Some(last) = told
                .clock
                .as_mut()
                .and_then(|c| c.timeline.moves.last_mut())
                && last.sent.is_none()
            {
                last.sent = Some(now);
            }
            games.push(DigestGame {
                view: game_view(&told, side, to, now, &analysis),
                reply_to: self.reply_to(t.record.id, to),
            });
            let ply = i64::try_from(t.game.plies().len()).unwrap_or(i64::MAX);
            tx.record_digest_game(&key, t.record.id, ply).await?;
        }
        self.queue(
            tx,
            Outgoing::new(key, LetterKind::Digest { games }, to).reply_to(self.digest_address(to)),
            now,
        )
        .await
    }
}

/// The messages a mail's notices carry between the players, each waiting
/// for the mail that tells of it.
struct Talks {
    /// For the recipient of a message (told in a mail of our own, not an answer).
    to: Option<(Color, Talk)>,
    /// For the writer (told in an answer to their mail).
    writer: Option<(Color, Talk)>,
}

impl Talks {
    fn of(table: &LoadedGame, notices: &[Notice]) -> Talks {
        let mut talks = Talks {
            to: None,
            writer: None,
        };
        for notice in notices {
            match notice {
                Notice::Message { to, message, .. } => {
                    talks.to = Some((
                        *to,
                        Talk::From {
                            name: table.player(!*to).name.clone(),
                            text: message.as_str().to_string(),
                            shortened: message.shortened(),
                        },
                    ));
                    talks.writer = Some((
                        !*to,
                        Talk::Passed {
                            to: table.player(*to).name.clone(),
                            shortened: message.shortened(),
                        },
                    ));
                }
                Notice::MessageHeld { to } => talks.writer = Some((*to, Talk::Held)),
                _ => {}
            }
        }
        talks
    }

    /// The talk for a mail to `side` (an answer to their mail or not), once.
    fn take(&mut self, side: Color, answer: bool) -> Option<Talk> {
        let slot = if answer {
            &mut self.writer
        } else {
            &mut self.to
        };
        if slot.as_ref().is_some_and(|(s, _)| *s == side) {
            slot.take().map(|(_, talk)| talk)
        } else {
            None
        }
    }

    /// What no mail took: (side, whether an answer, the talk).
    fn left(self) -> impl Iterator<Item = (Color, bool, Talk)> {
        let to = self.to.map(|(side, talk)| (side, false, talk));
        let writer = self.writer.map(|(side, talk)| (side, true, talk));
        to.into_iter().chain(writer)
    }
}

/// Our own Message-IDs are made from a validated domain, so this is a bug
/// report, not a player's error: the mail cannot be built.
fn bad_message_id(text: &str) -> ServiceError {
    ServiceError::Compose(compose::ComposeError::Build(format!(
        "cannot make a Message-ID from '{text}'"
    )))
}

/// Example move texts for a help mail: legal moves of the position in the
/// player's own letters, and the other notations.
fn help_examples(table: &LoadedGame, side: Color) -> Vec<String> {
    use crate::domain::chess::notation::{Notation, render};
    use shakmaty::Position;
    let lang = table.player(side).lang;
    let pos = table.game.position();
    let mode = table.game.castling_mode();
    let moves = pos.legal_moves();
    let Some(mv) = moves
        .iter()
        .find(|m| m.role() != shakmaty::Role::Pawn)
        .or(moves.first())
    else {
        return Vec::new();
    };
    let mut examples: Vec<String> = [
        Notation::San(lang),
        Notation::Long,
        Notation::Uci,
        Notation::Iccf,
    ]
    .into_iter()
    .map(|n| render(pos, mv, n, mode))
    .collect();
    examples.dedup();
    examples
}

/// Both clocks on one line, e.g. `White 12 days used, 38 left until move
/// 20; Black 9 days used, 41 left until move 20, on leave`, as `dopis game
/// show` prints them. English; see [`locale::describe_clocks`] for the
/// player's language and the days left under each control.
pub fn clocks_text(clocks: &Clocks, control: TimeControl) -> String {
    locale::describe_clocks(clocks, control, crate::domain::lang::Lang::En).replace('\n', " ")
}

/// The deadline of the side to move; none once the game is over.
fn deadline_of(clocks: Option<&Clocks>, over: bool) -> Option<DateTime<Utc>> {
    clocks
        .filter(|_| !over)
        .and_then(|c| c.players.get(c.to_move).next_deadline)
}

/// A player's games in progress as their `games` mail lists them: who
/// plays whom, in which event, the move now, whose it is, the deadline.
pub(crate) async fn game_list(
    tx: &mut Tx,
    games: &[GameId],
    to: &Player,
    now: DateTime<Utc>,
) -> Result<Vec<GameListEntry>, StoreError> {
    let mut list = Vec::with_capacity(games.len());
    for id in games {
        let table = load_table(tx, *id).await?;
        let event = table.event.as_ref().map(|e| e.name.clone());
        let over = table.game.is_over();
        let clocks = table.clock.as_ref().map(|c| c.clocks(now));
        let side = if table.white.id == to.id {
            Color::White
        } else {
            Color::Black
        };
        list.push(GameListEntry {
            id: id.0,
            white: table.white.name.clone(),
            black: table.black.name.clone(),
            event,
            move_number: shakmaty::Position::fullmoves(table.game.position()).get(),
            your_move: !over && table.game.turn() == side,
            deadline: deadline_of(clocks.as_ref(), over)
                .map(|d| locale::describe_deadline(d, to.tz, to.lang)),
        });
    }
    Ok(list)
}

fn game_view(
    table: &LoadedGame,
    recipient: Option<Color>,
    to: &Player,
    now: DateTime<Utc>,
    analysis: &AnalysisLink,
) -> GameView {
    let over = table.game.is_over();
    let clocks = table.clock.as_ref().map(|c| {
        if over {
            // A finished game's clocks stand where it ended: no move runs.
            c.final_clocks(table.record.finished_at.unwrap_or(now))
        } else {
            c.clocks(now)
        }
    });
    let deadline_at = deadline_of(clocks.as_ref(), over);
    let deadline = deadline_at.map(|d| locale::describe_deadline(d, to.tz, to.lang));
    // The board is seen by the recipient, or by the side to move.
    let seen_by = recipient.unwrap_or_else(|| table.game.turn());
    let analysis_url = analysis.url(
        table.game.position(),
        seen_by,
        table.game.start().is_chess960(),
    );
    GameView {
        id: table.record.id.0,
        white: table.white.name.clone(),
        black: table.black.name.clone(),
        recipient,
        game: table.game.clone(),
        time_control: locale::describe_control(&table.record.time_control, to.lang),
        deadline,
        deadline_at,
        analysis_url,
        clocks: clocks.map(|c| locale::describe_clocks(&c, table.record.time_control, to.lang)),
        draw_offer_from: table.draw_offer_by,
        pgn: Some(table.pgn()),
        ratings: table.ratings,
        tables: table.tables_news.clone(),
        pairing: table.pairing.as_deref().map(|note| PairingNote {
            standings: note
                .standings
                .iter()
                .map(|line| StandingLine {
                    you: line.player == to.id,
                    ..line.clone()
                })
                .collect(),
            ..note.clone()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_analysis_link_is_off_by_default_and_a_bad_one_is_refused_plainly() {
        let mut cfg = MailConfig {
            secret: crate::adapter::config::Secret::new("s"),
            ..MailConfig::default()
        };
        assert_eq!(
            Post::new(&cfg).expect("defaults").analysis,
            AnalysisLink::Off
        );
        cfg.analysis_link = "lichess".into();
        assert_eq!(
            Post::new(&cfg).expect("lichess").analysis,
            AnalysisLink::Template(crate::domain::chess::analysis::LICHESS.into())
        );
        cfg.analysis_link = "https://example.org/board".into();
        let message = Post::new(&cfg).expect_err("no {fen}").to_string();
        assert!(
            message.starts_with("[mail] analysis_link: 'https://example.org/board'")
                && message.contains("no {fen}")
                && message.contains("\"lichess\""),
            "{message}"
        );
    }

    #[test]
    fn the_reply_delimiter_and_catch_all_domain_shape_reply_addresses_and_bad_ones_say_what_to_write()
     {
        let player = Player {
            id: crate::domain::player::PlayerId(7),
            email: EmailAddress::parse("ana@players.test").expect("address"),
            name: "Ana".into(),
            lang: crate::domain::lang::Lang::En,
            tz: None,
        };
        let mut cfg = MailConfig {
            address: "chess@club.example".into(),
            secret: crate::adapter::config::Secret::new("s"),
            ..MailConfig::default()
        };
        let reply = |cfg: &MailConfig| {
            Post::new(cfg)
                .expect("valid")
                .reply_to(GameId(42), &player)
                .to_string()
        };
        assert!(reply(&cfg).starts_with("chess+g42."), "{}", reply(&cfg));
        cfg.reply_delimiter = "-".into();
        assert!(reply(&cfg).starts_with("chess-g42."), "{}", reply(&cfg));
        cfg.reply_domain = "Play.Club.Example".into();
        let catch_all = reply(&cfg);
        assert!(
            catch_all.starts_with("g42.") && catch_all.ends_with("@play.club.example"),
            "{catch_all}"
        );
        for bad in ["++", "", "#", "ab"] {
            cfg.reply_domain = String::new();
            cfg.reply_delimiter = bad.into();
            let message = Post::new(&cfg).expect_err(bad).to_string();
            assert!(
                message.starts_with("[mail] reply_delimiter is")
                    && message.contains("\"-\" (Yahoo"),
                "{message}"
            );
        }
        cfg.reply_delimiter = "+".into();
        for bad in [
            "localhost",
            "a@b.example",
            "spaces in.example",
            "x..example",
        ] {
            cfg.reply_domain = bad.into();
            let message = Post::new(&cfg).expect_err(bad).to_string();
            assert!(
                message.starts_with("[mail] reply_domain is") && message.contains("catch-all"),
                "{message}"
            );
        }
    }
}
