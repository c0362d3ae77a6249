//! Real players playing real games through the Maildir club, for the fault
//! tests that mix bad mail into good: a scripted opening every game plays,
//! who is to move, and the genuine replies of the player to move.

use std::collections::{BTreeMap, HashMap};

use crate::club::{Club, Sent};
use crate::support::TestDb;

/// The moves every game plays: a Ruy Lopez, legal from the start.
pub const SCRIPT: [&str; 20] = [
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    "c3", "O-O", "h3", "Nb8", "d4", "Nbd7",
];

/// One game and its two players.
#[derive(Debug, Clone)]
pub struct Table {
    /// The game's number.
    pub game: i64,
    /// White's address.
    pub white: String,
    /// Black's address.
    pub black: String,
}

impl Table {
    /// Who is to move after `plies` half-moves.
    pub fn to_move(&self, plies: usize) -> &str {
        if plies.is_multiple_of(2) {
            &self.white
        } else {
            &self.black
        }
    }

    /// Who waits after `plies` half-moves.
    pub fn waiting(&self, plies: usize) -> &str {
        if plies.is_multiple_of(2) {
            &self.black
        } else {
            &self.white
        }
    }
}

/// Alice and Bob's game 1 of the club, and `more` games of new pairs.
pub fn tables(club: &Club, db: &TestDb, more: usize) -> Vec<Table> {
    let mut tables = vec![Table {
        game: 1,
        white: "alice@players.test".into(),
        black: "bob@players.test".into(),
    }];
    for i in 0..more {
        let (w, b) = (format!("w{i}@players.test"), format!("b{i}@players.test"));
        club.add_player(db, &w, &format!("White {i}"));
        club.add_player(db, &b, &format!("Black {i}"));
        let game = club.new_game(db, &w, &b);
        tables.push(Table {
            game,
            white: w,
            black: b,
        });
    }
    tables
}

/// Every game of the club, from `dopis game list`.
pub fn all_tables(club: &Club, db: &TestDb) -> Vec<Table> {
    let json: serde_json::Value = serde_json::from_str(&crate::support::ok(
        &crate::support::dopis(club.path(), db, &["game", "list", "--format", "json"]),
    ))
    .unwrap();
    let mut tables: Vec<Table> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|g| Table {
            game: g["id"].as_i64().unwrap(),
            white: g["white_player"]["email"].as_str().unwrap().to_string(),
            black: g["black_player"]["email"].as_str().unwrap().to_string(),
        })
        .collect();
    tables.sort_by_key(|t| t.game);
    tables
}

/// The game and position (plies played) one of our mails shows, from its
/// Message-ID `dopis.g<game>.p<plies>.<hash>@…`.
pub fn position_of(message_id: &str) -> Option<(i64, usize)> {
    let rest = message_id.strip_prefix("dopis.g")?;
    let (game, rest) = rest.split_once(".p")?;
    let (plies, _) = rest.split_once('.')?;
    Some((game.parse().ok()?, plies.parse().ok()?))
}

/// Each player's reply address in each game, from the mails they got:
/// (game, player) → address with their token (`chess+g1.TOKEN@…`; a
/// confirmation request about a game has an address of its own).
pub fn reply_addresses(sent: &[Sent]) -> HashMap<(i64, String), String> {
    sent.iter()
        .filter_map(|m| {
            let (game, _) = position_of(&m.message_id)?;
            let reply_to = m.reply_to.clone()?;
            reply_to
                .contains(&format!("+g{game}."))
                .then(|| ((game, m.to.clone()), reply_to))
        })
        .collect()
}

/// The "your move" mail that shows `game` after `plies` half-moves.
pub fn your_move_at(sent: &[Sent], game: i64, plies: usize) -> Option<&Sent> {
    sent.iter().rev().find(|m| {
        m.subject.contains("Your move") && position_of(&m.message_id) == Some((game, plies))
    })
}

/// A person's reply to one of our mails, as a mail client writes it: to its
/// Reply-To, threaded, quoting it.
pub fn reply_raw(mail: &Sent, from: &str, text: &str, message_id: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {}\r\nSubject: Re: {}\r\nMessage-ID: <{message_id}>\r\n\
         In-Reply-To: <{}>\r\nReferences: <{}>\r\nDate: Mon, 2 Mar 2026 12:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n\r\n\
         On Monday dopis wrote:\r\n> {}\r\n",
        mail.reply_to.clone().unwrap_or_default(),
        mail.subject,
        mail.message_id,
        mail.message_id,
        mail.subject,
    )
    .into_bytes()
}

/// The number of moves stored per game.
pub async fn plies(store: &dopis::adapter::store::Store) -> BTreeMap<i64, usize> {
    dopis::adapter::store::sql::query("SELECT game_id, COUNT(*) AS n FROM moves GROUP BY game_id")
        .fetch_all(store.pool())
        .await
        .unwrap()
        .iter()
        .map(|r| {
            let n: i64 = r.try_get("n").unwrap();
            (r.try_get::<i64, _>("game_id").unwrap(), n as usize)
        })
        .collect()
}

/// The files still waiting in a Maildir's `new/`.
pub fn waiting_in(maildir: &std::path::Path) -> usize {
    std::fs::read_dir(maildir.join("new"))
        .map(|d| d.count())
        .unwrap_or(0)
}
