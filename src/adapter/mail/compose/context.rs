//! What the templates see: a letter turned into plain values (names, the
//! moves in the recipient's letters, both text boards, how to reply).

use serde::Serialize;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role};

use super::{ComposeError, GameView, Letter, LetterKind};
use crate::domain::chess::diagram::{Diagram, PNG_SIZE_PX};
use crate::domain::chess::game::{EndReason, Game, GameResult, StartPosition};
use crate::domain::chess::notation::{Notation, render};
use crate::domain::chess::outcome::WithdrawalForfeit;
use crate::domain::chess::side;
use crate::domain::chess::tablebase::TableProof;
use crate::domain::lang::Lang;

/// Width of the "game so far" lines in the plain part.
const MOVES_WIDTH: usize = 72;

/// Columns between the ASCII and the Unicode board.
const BOARD_GAP: usize = 4;

/// The template context of one letter.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Context {
    /// The kind's template name, e.g. `your_move`.
    pub kind: &'static str,
    /// The language code of the recipient.
    pub lang: &'static str,
    /// The recipient's name (may be empty).
    pub recipient: String,
    /// Our display name.
    pub server: String,
    /// Our address (for "write to").
    pub server_address: String,
    /// The reply address, when the mail wants a reply.
    pub reply_to: Option<String>,
    /// Whether this mail answers one of the player's (RFC 3834 auto-replied).
    pub is_answer: bool,
    /// The web page of what the mail is about, if mails link to pages.
    pub page: Option<String>,
    /// The recipient's calendar feed, if the mail gives it.
    pub calendar: Option<String>,
    /// The game shown, if any.
    pub game: Option<GameContext>,
    /// `MoveAccepted`, `ConditionalPlayed`: the move as the recipient
    /// writes it (`Sf6`).
    pub san: Option<String>,
    /// `MoveAccepted`: the mover's move, numbered (`8... We8`);
    /// `ConditionalPlayed`: the recipient's answer, numbered (`9. Sf1`).
    pub played: Option<String>,
    /// `MoveAccepted`: the opponent's conditional answer that the move set
    /// off, numbered, if any (it is then the recipient's move again).
    pub answer: Option<String>,
    /// `ConditionalPlayed`: the opponent's move the answer followed, numbered.
    pub trigger: Option<String>,
    /// `Rejected`: what the player wrote.
    pub wrote: Option<String>,
    /// `XfccPassword`: the new password.
    pub password: Option<String>,
    /// `XfccPassword`: the username it goes with.
    pub xfcc_user: Option<String>,
    /// `Rejected`, `Refused`: why.
    pub explanation: Option<String>,
    /// `Rejected`: the rejection key, e.g. `illegal`.
    pub rejection: Option<&'static str>,
    /// `ConfirmRequest`: the command.
    pub command: Option<String>,
    /// `Conditionals`, `Digest`, TD mails: the lines.
    pub lines: Vec<String>,
    /// `Games`: the player's games.
    pub games: Vec<super::GameListEntry>,
    /// Move texts that show accepted notation in the recipient's letters:
    /// the caller's for `Help`, else made from the position.
    pub examples: Vec<String>,
    /// The board picture, when the mail shows one.
    pub board: Option<BoardContext>,
    /// The PGN text shown inline (`Pgn`).
    pub pgn: Option<String>,
    /// The attachment's file name, when a PGN is attached.
    pub pgn_file: Option<String>,
    /// The TD and event mails: what happened, to whom, why.
    pub event: Option<EventContext>,
    /// Reminders, silence and leave mails: the times and days they tell of.
    pub time: Option<TimeNote>,
    /// The PNG bytes of the board (not for templates).
    #[serde(skip)]
    pub png: Option<Vec<u8>>,
    /// `Digest`: each game with its board and reply address.
    pub digest: Vec<DigestEntry>,
    /// `Digest`: the PNG of each game's board, by Content-ID (not for templates).
    #[serde(skip)]
    pub digest_pngs: Vec<(String, Vec<u8>)>,
    /// `NotifyChanged`: whether the player now gets the daily digest.
    pub digest_chosen: Option<bool>,
    /// `NotifyChanged`: when the digest comes, e.g. `07:00 (Europe/Ljubljana)`.
    pub digest_at: Option<String>,
    /// `NotHandled` over a cap: which, what the mail had, the cap.
    pub excess: Option<ExcessContext>,
    /// `ConfirmStale`, `Repeated`: what the player's earlier mail answered.
    pub reply: Option<ReplyNote>,
    /// A message between the players the mail carries.
    pub talk: Option<TalkContext>,
    /// `Entry`: what it says of an entry or the events open for entries.
    pub entry: Option<super::EntryNews>,
    /// `SwissBye`: what it says of a half-point bye asked for.
    pub bye: Option<super::ByeNews>,
    /// `Vote`: what it tells the member of their side's vote.
    pub vote: Option<super::VoteNews>,
    /// `Message`: the writer's mail held nothing but the message.
    pub alone: bool,
    /// `YourMove`: the deadline as an `.ics` file; a confirmation of the
    /// player's move and a game-over mail: its cancellation (not for
    /// templates; set by `compose` after the body is rendered).
    #[serde(skip)]
    pub ics: Option<Ics>,
}

/// A calendar file attached to a mail.
#[derive(Debug, Clone)]
pub(crate) struct Ics {
    /// The file name, e.g. `dopis-42.ics`.
    pub file: String,
    /// The iCalendar text.
    pub text: String,
    /// Its METHOD, for the MIME type: `PUBLISH` or `CANCEL`.
    pub method: &'static str,
}

/// A message between the players, as the templates see it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TalkContext {
    /// `from` (the opponent wrote it), `passed` or `held` (the recipient's own).
    pub kind: &'static str,
    /// The writer (`from`) or the opponent it went to (`passed`).
    pub name: String,
    /// What they wrote (`from`).
    pub text: String,
    /// Whether it was cut at `max` characters.
    pub shortened: bool,
    /// The cap, in characters.
    pub max: usize,
}

fn talk_context(talk: &super::Talk) -> TalkContext {
    let (kind, name, text, shortened) = match talk {
        super::Talk::From {
            name,
            text,
            shortened,
        } => ("from", name.clone(), text.clone(), *shortened),
        super::Talk::Passed { to, shortened } => ("passed", to.clone(), String::new(), *shortened),
        super::Talk::Held => ("held", String::new(), String::new(), false),
    };
    TalkContext {
        kind,
        name,
        text,
        shortened,
        max: crate::domain::command::MAX_MESSAGE,
    }
}

/// A cap a mail went over (see [`super::NotHandledCause::TooComplex`]).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ExcessContext {
    /// `size`, `multiparts`, `boundary`, `parts`, `depth` or `work`.
    pub cap: &'static str,
    /// What the mail had.
    pub found: String,
    /// The cap.
    pub max: String,
}

/// What a mail about a stale or repeated reply tells (fields unused by a
/// kind stay empty).
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ReplyNote {
    /// The move number of the position the player's mail answered.
    pub answered_number: u32,
    /// Whether that was Black's move.
    pub answered_black: bool,
    /// The move number now.
    pub current_number: u32,
    /// Whether it is Black's move now.
    pub current_black: bool,
    /// The move with the current move number, e.g. `14. Nf3`.
    pub example: Option<String>,
    /// `Repeated`: when the first copy reached us.
    pub first: Option<String>,
}

/// What an event or TD mail tells (fields unused by a kind stay empty).
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct EventContext {
    /// The event's name.
    pub event: String,
    /// The player the news is about (who withdrew, left, got more time).
    pub player: String,
    /// The substitute (`Replaced`).
    pub substitute: String,
    /// `Replaced`: `substitute`, `opponent` or `replaced`.
    pub role: &'static str,
    /// `Withdrawal`: `forfeit_win`, `forfeit_loss`, `annulled` or empty.
    pub effect: String,
    /// `DeadlineExtended`: days added; `AddressBounces`: days counted.
    pub days: u32,
    /// `AddressBounces`: the address that bounces.
    pub address: String,
    /// `AddressBounces`: bounces counted.
    pub count: u32,
    /// The TD's reason.
    pub reason: String,
    /// `Standings`: the table as fixed-width text lines.
    pub table_lines: Vec<String>,
    /// `Standings`: the table as HTML, already escaped.
    pub table_html: String,
    /// `Standings`: every game is over, the table is final.
    pub over: bool,
    /// `Standings` told to a Swiss event's bye: the round.
    pub bye_round: Option<u32>,
    /// `Standings`: the table is a Swiss table (a column per round), whose
    /// cells the mail explains its own way.
    pub swiss: bool,
    /// `Standings` told to a Swiss event's bye: what it scores.
    pub bye_points: String,
    /// `DeadlineReport`: the report's lines.
    pub report: Option<super::ReportView>,
    /// `SwissRoundClosing`, `SwissRoundUnpaired`: the round.
    pub round: u32,
    /// `SwissRoundClosing`: the round's closing date (`over`: it has come).
    pub closes: String,
    /// `SwissRoundClosing`: the games still played.
    pub round_games: Vec<super::ReportGame>,
    /// `Withdrawal`, to the player: the games closed.
    pub withdrawn_games: Vec<super::WithdrawnGame>,
}

/// Inline styles for the crosstable's HTML: mail clients drop style sheets.
fn styled_table(html: &str) -> String {
    const CELL: &str = "padding:2px 6px;border:1px solid #cccccc;text-align:center;";
    html.replace(
        "<table class=\"crosstable\">",
        "<table class=\"crosstable\" style=\"border-collapse:collapse;font-family:'DejaVu Sans Mono',Consolas,'Courier New',monospace;font-size:13px;margin:8px 0;\">",
    )
    .replace("<caption>", "<caption style=\"text-align:left;font-weight:bold;padding:4px 0;\">")
    .replace("<th>", &format!("<th style=\"{CELL}background:#eef4ea;\">"))
    .replace("<th scope=\"row\">", &format!("<th scope=\"row\" style=\"{CELL}text-align:left;font-weight:normal;\">"))
    .replace("<td>", &format!("<td style=\"{CELL}\">"))
}

/// What a reminder, silence or leave mail tells, already in words.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct TimeNote {
    /// A deadline.
    pub deadline: Option<String>,
    /// How long before the deadline, in minutes (reminders).
    pub before_minutes: Option<i64>,
    /// A number of days (silence, leave booked).
    pub days: Option<u32>,
    /// A player's name (the one on leave).
    pub who: Option<String>,
    /// The first day of leave.
    pub from: Option<String>,
    /// The last day of leave.
    pub to: Option<String>,
    /// When a clock runs again.
    pub until: Option<String>,
    /// Regular leave days left in each year a booking touched.
    pub left: Vec<LeftYear>,
}

/// Leave days left in one calendar year.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct LeftYear {
    /// The year.
    pub year: i32,
    /// Regular days left in it.
    pub days: u32,
}

/// One game of a digest, as the templates see it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DigestEntry {
    /// The game.
    pub game: GameContext,
    /// Its board picture.
    pub board: BoardContext,
    /// The address that answers in this game.
    pub reply_to: String,
}

/// The board as the HTML part shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BoardContext {
    /// The Content-ID of the inline PNG, without `<>`.
    pub cid: String,
    /// The alt text of the image.
    pub alt: String,
    /// Its size in pixels (square).
    pub size: u32,
}

/// A game as the templates see it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GameContext {
    /// The game number.
    pub id: i64,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// White's rating, if rated.
    pub white_rating: Option<i32>,
    /// Black's rating, if rated.
    pub black_rating: Option<i32>,
    /// `white` or `black` when the recipient plays.
    pub you_play: Option<&'static str>,
    /// The recipient's name in this game, when they play.
    pub you: Option<String>,
    /// The opponent's name, when the recipient plays.
    pub opponent: Option<String>,
    /// `white` or `black`: the side to move.
    pub to_move: &'static str,
    /// The name of the player to move.
    pub to_move_name: String,
    /// Whether the recipient is the side to move (and the game goes on).
    pub your_turn: bool,
    /// The number of the next move as written before it: `12.` or `12...`.
    pub next_move_number: String,
    /// The last move, numbered, in the recipient's letters: `12... Sf6`.
    pub last_move: Option<String>,
    /// The last move alone, in the recipient's letters: `Sf6`.
    pub last_move_san: Option<String>,
    /// The name of who played the last move.
    pub last_move_by: Option<String>,
    /// The game so far in the recipient's letters, wrapped lines.
    pub moves: Vec<String>,
    /// The game so far on one line (HTML wraps it itself).
    pub moves_line: String,
    /// Half-moves played.
    pub plies: usize,
    /// The time control, e.g. `3d`.
    pub time_control: String,
    /// The deadline, formatted by the caller.
    pub deadline: Option<String>,
    /// The clocks, one or more lines.
    pub clocks: Option<String>,
    /// `you`, `opponent` or `white`/`black` (for a non-player): a standing draw offer.
    pub draw_offer: Option<&'static str>,
    /// The name of whoever offered the draw.
    pub draw_offer_by: Option<String>,
    /// Whether the game has ended.
    pub over: bool,
    /// The outcome, when over.
    pub outcome: Option<OutcomeContext>,
    /// Whether the side to move is in check.
    pub check: bool,
    /// The ASCII and Unicode boards side by side, line by line.
    pub board_lines: Vec<String>,
    /// The position as FEN (for the alt text and for experts).
    pub fen: String,
    /// Whether this is a Chess960 game.
    pub chess960: bool,
    /// The start position's Chess960 number, while the game stands at its
    /// start (the first mails say it).
    pub chess960_number: Option<u16>,
    /// The event's thematic line in the recipient's letters (`1. e4 c5
    /// 2. Sf3 d6`), while the game stands right after it (the first mails).
    pub thematic_line: Option<String>,
    /// A link that opens the position on an analysis board, if allowed.
    pub analysis_url: Option<String>,
    /// What the endgame tables say, in the mails of the move that brought
    /// the game into them (see `super::tables::table_news`).
    pub tables: Option<serde_json::Value>,
    /// An event game's first mails: event, round, board, standings.
    pub pairing: Option<super::PairingNote>,
}

/// How the game ended, in parts a template can put into words.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OutcomeContext {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// The result as shown: `1-0`, `0-1`, `½-½`.
    pub score: &'static str,
    /// The winner's name, none for a draw.
    pub winner: Option<String>,
    /// The loser's name, none for a draw.
    pub loser: Option<String>,
    /// `white` or `black`, none for a draw.
    pub winner_side: Option<&'static str>,
    /// Whether the recipient won / lost (none when a draw or not a player).
    pub you_won: Option<bool>,
    /// The rule, e.g. `checkmate`, `resignation`, `time_forfeit`.
    pub reason: &'static str,
    /// A tournament director's words, for `adjudication`,
    /// `time_forfeit_ruled` and `default`.
    pub adjudication: Option<String>,
    /// For an `adjudication` that is a withdrawal's forfeit: who withdrew
    /// from which event (the templates say it; `adjudication` has it in
    /// English).
    pub forfeit: Option<WithdrawalForfeit>,
    /// For an `adjudication` the endgame tables made: their proof (see
    /// `super::tables::table_proof`).
    pub tables: Option<serde_json::Value>,
    /// The English sentence the PGN carries ("White wins by checkmate.").
    pub sentence: String,
}

/// How a game ended, as the templates read it (`outcome.txt`): `name`
/// names each side's player, `recipient` is the reader's side if they play.
pub(crate) fn outcome_context(
    o: &crate::domain::chess::outcome::Outcome,
    name: &dyn Fn(Color) -> String,
    recipient: Option<Color>,
) -> OutcomeContext {
    let winner = o.result.winner();
    OutcomeContext {
        result: o.result.as_pgn(),
        score: match o.result {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "½-½",
        },
        winner: winner.map(name),
        loser: winner.map(|w| name(!w)),
        winner_side: winner.map(side::key),
        you_won: winner.and_then(|w| recipient.map(|r| r == w)),
        reason: reason_key(&o.reason),
        adjudication: o.reason.ruling().map(str::to_owned),
        forfeit: match &o.reason {
            EndReason::Adjudication(why) => WithdrawalForfeit::read(why),
            _ => None,
        },
        tables: match &o.reason {
            EndReason::Adjudication(why) => {
                TableProof::read(why).map(|p| super::tables::table_proof(&p))
            }
            _ => None,
        },
        sentence: o.to_string(),
    }
}

pub(super) fn reason_key(reason: &EndReason) -> &'static str {
    match reason {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate",
        EndReason::DeadPosition => "dead_position",
        EndReason::FivefoldRepetition => "fivefold_repetition",
        EndReason::SeventyFiveMoveRule => "seventy_five_moves",
        EndReason::ThreefoldRepetition => "threefold_repetition",
        EndReason::FiftyMoveRule => "fifty_moves",
        EndReason::Resignation => "resignation",
        EndReason::Agreement => "agreement",
        EndReason::TimeForfeit => "time_forfeit",
        EndReason::TimeForfeitOpponentCannotMate => "time_forfeit_cannot_mate",
        EndReason::Adjudication(_) => "adjudication",
        EndReason::TimeForfeitRuled(_) => "time_forfeit_ruled",
        EndReason::Default(_) => "default",
    }
}

/// The template context of `letter`; the board PNG is drawn when shown and
/// `draw` (a subject alone needs no picture).
pub(crate) fn build(letter: &Letter, draw: bool) -> Result<Context, ComposeError> {
    if letter.game.is_none() && letter.kind.needs_game() {
        return Err(ComposeError::NeedsGame(letter.kind.template_name()));
    }
    let lang = letter.lang;
    let game = letter.game.as_ref().map(|v| game_context(v, lang));
    let board_view = letter.game.as_ref().filter(|_| letter.kind.shows_board());
    let (board, png) = match board_view {
        Some(view) => {
            let png = if draw {
                diagram(view)
                    .to_png()
                    .map_err(|e| ComposeError::Board(e.to_string()))?
            } else {
                Vec::new()
            };
            let alt = board_alt(view, game.as_ref());
            let cid = format!("board.{}", letter.message_id.as_str());
            (
                Some(BoardContext {
                    cid,
                    alt,
                    size: PNG_SIZE_PX,
                }),
                Some(png),
            )
        }
        None => (None, None),
    };
    let attached_pgn = letter
        .game
        .as_ref()
        .filter(|_| letter.kind.attaches_pgn())
        .and_then(|v| v.pgn.as_ref().map(|_| format!("game-{}.pgn", v.id)));
    let examples = match &letter.kind {
        LetterKind::Help { examples } if !examples.is_empty() => examples.clone(),
        _ => letter
            .game
            .as_ref()
            .map(|v| reply_examples(&v.game, lang))
            .filter(|e| !e.is_empty())
            .unwrap_or_else(|| start_examples(lang)),
    };
    let mut ctx = Context {
        kind: letter.kind.template_name(),
        lang: lang.code(),
        recipient: letter.to.name.clone(),
        server: letter.from.name.clone(),
        server_address: letter.from.address.to_string(),
        reply_to: letter.reply_to.as_ref().map(ToString::to_string),
        is_answer: letter.in_reply_to.is_some(),
        game,
        san: None,
        played: None,
        answer: None,
        trigger: None,
        wrote: None,
        password: None,
        xfcc_user: None,
        explanation: None,
        rejection: None,
        command: None,
        lines: Vec::new(),
        games: Vec::new(),
        examples,
        board,
        pgn: None,
        pgn_file: attached_pgn,
        event: None,
        time: None,
        png,
        digest: Vec::new(),
        digest_pngs: Vec::new(),
        digest_chosen: None,
        digest_at: None,
        excess: None,
        reply: None,
        entry: None,
        bye: None,
        vote: None,
        talk: letter.talk.as_ref().map(talk_context),
        alone: false,
        page: letter.page.clone(),
        calendar: letter.calendar.clone(),
        ics: None,
    };
    match &letter.kind {
        // Everything it says is the talk.
        LetterKind::Message { alone } => ctx.alone = *alone,
        LetterKind::Entry { news } => ctx.entry = Some(news.clone()),
        LetterKind::SwissBye { news } => ctx.bye = Some(news.clone()),
        LetterKind::Vote { news } => ctx.vote = Some(news.clone()),
        LetterKind::MoveAccepted { ply } | LetterKind::ConditionalPlayed { ply } => {
            let game = letter.game.as_ref().map(|v| &v.game);
            let at = |ply: usize| game.and_then(|g| move_at(g, ply, lang));
            if let Some((numbered, san)) = at(*ply) {
                ctx.played = Some(numbered);
                ctx.san = Some(san);
            }
            if matches!(letter.kind, LetterKind::MoveAccepted { .. }) {
                ctx.answer = at(ply + 1).map(|(numbered, _)| numbered);
            } else {
                ctx.trigger = ply
                    .checked_sub(1)
                    .and_then(at)
                    .map(|(numbered, _)| numbered);
            }
        }
        // The reasons' words come from their own template (see
        // `super::explained`).
        LetterKind::Rejected { wrote, kind, .. } => {
            ctx.wrote = Some(wrote.clone());
            ctx.rejection = Some(kind.key());
        }
        LetterKind::ConfirmRequest { command } => {
            ctx.command = Some(command.clone());
        }
        LetterKind::ConfirmStale {
            command,
            answered,
            current,
            example,
        } => {
            ctx.command = Some(command.clone());
            ctx.reply = Some(ReplyNote {
                answered_number: answered.number,
                answered_black: answered.black,
                current_number: current.number,
                current_black: current.black,
                example: example.clone(),
                first: None,
            });
        }
        LetterKind::Repeated { wrote, first } => {
            ctx.wrote = Some(wrote.clone());
            ctx.reply = Some(ReplyNote {
                first: Some(first.clone()),
                ..ReplyNote::default()
            });
        }
        LetterKind::Refused { .. } => {}
        LetterKind::NotHandled { subject, cause } => {
            let subject: String = subject.chars().take(60).collect();
            ctx.wrote = (!subject.trim().is_empty()).then(|| subject.trim().to_string());
            ctx.rejection = Some(cause.key());
            if let super::NotHandledCause::TooComplex { cap, found, max } = cause {
                ctx.excess = Some(ExcessContext {
                    cap,
                    found: found.clone(),
                    max: max.clone(),
                });
            }
        }
        LetterKind::Games { games } => ctx.games = games.clone(),
        LetterKind::Digest { games } => {
            for (i, entry) in games.iter().enumerate() {
                let view = &entry.view;
                let game = game_context(view, lang);
                let cid = format!("board{i}.{}", letter.message_id.as_str());
                if draw {
                    let png = diagram(view)
                        .to_png()
                        .map_err(|e| ComposeError::Board(e.to_string()))?;
                    ctx.digest_pngs.push((cid.clone(), png));
                }
                let alt = board_alt(view, Some(&game));
                ctx.digest.push(DigestEntry {
                    game,
                    board: BoardContext {
                        cid,
                        alt,
                        size: PNG_SIZE_PX,
                    },
                    reply_to: entry.reply_to.to_string(),
                });
            }
        }
        LetterKind::NotifyChanged { digest, at } => {
            ctx.digest_chosen = Some(*digest);
            ctx.digest_at = Some(at.clone());
        }
        LetterKind::Conditionals { lines, .. } => {
            ctx.lines = lines.clone();
        }
        LetterKind::Pgn => ctx.pgn = letter.game.as_ref().and_then(|v| v.pgn.clone()),
        LetterKind::Standings {
            event,
            table,
            over,
            bye,
        } => {
            let table = table.relabel(|h| crate::domain::locale::crosstable_word(h, lang));
            ctx.event = Some(EventContext {
                event: event.clone(),
                over: *over,
                bye_round: bye.as_ref().map(|(round, _)| *round),
                swiss: table.round_word.is_some(),
                bye_points: bye.as_ref().map(|(_, p)| p.clone()).unwrap_or_default(),
                table_lines: table.to_text().lines().map(str::to_owned).collect(),
                table_html: styled_table(&table.to_html()),
                ..EventContext::default()
            });
        }
        LetterKind::DeadlineReport { event, report } => {
            ctx.event = Some(EventContext {
                event: event.clone(),
                report: Some(report.clone()),
                ..EventContext::default()
            });
        }
        LetterKind::AddressBounces {
            player,
            address,
            bounces,
            days,
            status,
            games,
        } => {
            ctx.lines = games.clone();
            ctx.event = Some(EventContext {
                player: player.clone(),
                address: address.clone(),
                count: *bounces,
                days: *days,
                reason: status.clone(),
                ..EventContext::default()
            });
        }
        LetterKind::SwissRoundClosing {
            event,
            round,
            closes,
            closed,
            games,
        } => {
            ctx.event = Some(EventContext {
                event: event.clone(),
                round: *round,
                closes: closes.clone(),
                over: *closed,
                round_games: games.clone(),
                ..EventContext::default()
            });
        }
        LetterKind::SwissRoundUnpaired { event, round, why } => {
            ctx.event = Some(EventContext {
                event: event.clone(),
                round: *round,
                reason: why.clone(),
                ..EventContext::default()
            });
        }
        LetterKind::ReportInstructions { event } => {
            ctx.event = Some(EventContext {
                event: event.clone(),
                ..EventContext::default()
            });
        }
        LetterKind::Withdrawal {
            event,
            player,
            effect,
            reason,
            games,
        } => {
            ctx.event = Some(EventContext {
                event: event.clone(),
                player: player.clone(),
                effect: effect.clone(),
                reason: reason.clone(),
                withdrawn_games: games.clone(),
                ..EventContext::default()
            });
        }
        LetterKind::Replaced {
            event,
            old,
            new,
            role,
            reason,
        } => {
            ctx.event = Some(EventContext {
                event: event.clone(),
                player: old.clone(),
                substitute: new.clone(),
                role: role.key(),
                reason: reason.clone(),
                ..EventContext::default()
            });
        }
        LetterKind::DeadlineExtended {
            player,
            days,
            reason,
        } => {
            ctx.event = Some(EventContext {
                player: player.clone(),
                days: *days,
                reason: reason.clone(),
                ..EventContext::default()
            });
        }
        LetterKind::GameCancelled { reason } => {
            ctx.event = Some(EventContext {
                reason: reason.clone(),
                ..EventContext::default()
            });
        }
        LetterKind::Reminder {
            deadline,
            before_minutes,
        } => {
            ctx.time = Some(TimeNote {
                deadline: Some(deadline.clone()),
                before_minutes: Some(*before_minutes),
                ..TimeNote::default()
            });
        }
        LetterKind::Silence { days, deadline } => {
            ctx.time = Some(TimeNote {
                days: Some(*days),
                deadline: deadline.clone(),
                ..TimeNote::default()
            });
        }
        LetterKind::LeaveNotice { player, until } => {
            ctx.time = Some(TimeNote {
                who: Some(player.clone()),
                until: Some(until.clone()),
                ..TimeNote::default()
            });
        }
        LetterKind::LeaveBooked {
            from,
            to,
            days,
            left,
        } => {
            ctx.time = Some(TimeNote {
                from: Some(from.clone()),
                to: Some(to.clone()),
                days: Some(*days),
                left: left
                    .iter()
                    .map(|&(year, days)| LeftYear { year, days })
                    .collect(),
                ..TimeNote::default()
            });
        }
        LetterKind::LeaveRefused { wrote, .. } => {
            ctx.wrote = Some(wrote.clone());
        }
        LetterKind::XfccPassword { username, password } => {
            ctx.xfcc_user = Some(username.clone());
            ctx.password = Some(password.clone());
        }
        LetterKind::GameStarted
        | LetterKind::YourMove
        | LetterKind::GameOver
        | LetterKind::DrawOfferDeclined
        | LetterKind::Help { .. }
        | LetterKind::Status
        | LetterKind::LanguageChanged => {}
    }
    Ok(ctx)
}

/// The side the board is seen from: the recipient's, else the side to move.
fn viewer(view: &GameView) -> Color {
    view.recipient.unwrap_or_else(|| view.game.turn())
}

fn diagram(view: &GameView) -> Diagram {
    Diagram::new(view.game.position(), view.game.last_move()).seen_by(viewer(view))
}

fn board_alt(view: &GameView, game: Option<&GameContext>) -> String {
    let to_move = match view.game.turn() {
        Color::White => "White",
        Color::Black => "Black",
    };
    let after = game
        .and_then(|g| g.last_move.as_ref())
        .map(|m| format!(" after {m}"))
        .unwrap_or_default();
    let state = if view.game.is_over() {
        "final position".to_owned()
    } else {
        format!("{to_move} to move")
    };
    format!(
        "Chess board, {state}{after} (FEN {})",
        fen(view.game.position())
    )
}

fn fen(pos: &Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

fn game_context(view: &GameView, lang: Lang) -> GameContext {
    let game = &view.game;
    let name = |c: Color| match c {
        Color::White => view.white.clone(),
        Color::Black => view.black.clone(),
    };
    let turn = game.turn();
    let (numbered, last) = moves_in(game, lang);
    // At the start a thematic line's last move is no one's news: the first
    // mails name the line instead.
    let at_start = game.at_start();
    let last = last.filter(|_| !at_start);
    let last_move_by = game.last_move().filter(|_| !at_start).map(|_| name(!turn));
    let thematic_line = (at_start && game.opening_plies() > 0)
        .then(|| numbered[..game.opening_plies().min(numbered.len())].join(" "));
    let chess960_number = match game.start() {
        _ if !at_start || !game.start().is_chess960() => None,
        StartPosition::Chess960(n) => Some(*n),
        start => start
            .to_position()
            .ok()
            .and_then(|p| StartPosition::chess960_number_of(&p)),
    };
    let draw_offer = view.draw_offer_from.map(|c| match view.recipient {
        Some(r) if r == c => "you",
        Some(_) => "opponent",
        None => side::key(c),
    });
    let outcome = game
        .outcome()
        .map(|o| outcome_context(o, &name, view.recipient));
    let pos = game.position();
    let number = pos.fullmoves().get();
    GameContext {
        id: view.id,
        white: view.white.clone(),
        black: view.black.clone(),
        white_rating: view.ratings[0],
        black_rating: view.ratings[1],
        you_play: view.recipient.map(side::key),
        you: view.recipient.map(name),
        opponent: view.recipient.map(|r| name(!r)),
        to_move: side::key(turn),
        to_move_name: name(turn),
        your_turn: !game.is_over() && view.recipient == Some(turn),
        next_move_number: match turn {
            Color::White => format!("{number}."),
            Color::Black => format!("{number}..."),
        },
        last_move: last.as_ref().map(|(n, _)| n.clone()),
        last_move_san: last.map(|(_, san)| san),
        last_move_by,
        moves: wrap_words(&numbered, MOVES_WIDTH),
        // A move number stays with its move when the HTML wraps the line.
        moves_line: numbered
            .iter()
            .map(|w| w.replacen(' ', "\u{a0}", 1))
            .collect::<Vec<_>>()
            .join(" "),
        plies: game.plies().len(),
        time_control: view.time_control.clone(),
        deadline: view.deadline.clone(),
        clocks: view.clocks.clone(),
        draw_offer,
        draw_offer_by: view.draw_offer_from.map(name),
        over: game.is_over(),
        outcome,
        check: pos.is_check(),
        board_lines: side_by_side(&diagram(view), lang),
        fen: fen(pos),
        chess960: game.start().is_chess960(),
        chess960_number,
        thematic_line,
        analysis_url: view.analysis_url.clone(),
        tables: view.tables.as_ref().map(super::tables::table_news),
        pairing: view.pairing.clone(),
    }
}

/// The moves as words (`1. e4`, `e5`, `2. Sf3` …) in `lang`'s letters, and
/// the last move numbered on its own (`12... Sf6`) and bare (`Sf6`).
fn moves_in(game: &Game, lang: Lang) -> (Vec<String>, Option<(String, String)>) {
    let mode = game.castling_mode();
    let Ok(mut pos) = game.start().to_position() else {
        return (Vec::new(), None);
    };
    let mut words = Vec::with_capacity(game.moves().len());
    let mut last = None;
    for (i, mv) in game.moves().iter().enumerate() {
        let san = render(&pos, mv, Notation::San(lang), mode);
        let number = pos.fullmoves().get();
        let numbered = match pos.turn() {
            Color::White => format!("{number}. {san}"),
            Color::Black => format!("{number}... {san}"),
        };
        // In running text Black's move follows White's without a number.
        words.push(match pos.turn() {
            Color::Black if i > 0 => san.clone(),
            _ => numbered.clone(),
        });
        last = Some((numbered, san));
        pos = match pos.play(*mv) {
            Ok(next) => next,
            // A Game only holds legal moves; stop rather than show nonsense.
            Err(_) => break,
        };
    }
    (words, last)
}

/// The half-move `ply` of `game` (counted from 0) in `lang`'s letters:
/// numbered (`8... We8`) and bare (`We8`); `None` past the last move.
pub(crate) fn move_at(game: &Game, ply: usize, lang: Lang) -> Option<(String, String)> {
    let mode = game.castling_mode();
    let mut pos = game.start().to_position().ok()?;
    for mv in game.moves().iter().take(ply) {
        pos = pos.play(*mv).ok()?;
    }
    let mv = game.moves().get(ply)?;
    let san = render(&pos, mv, Notation::San(lang), mode);
    let number = pos.fullmoves().get();
    let numbered = match pos.turn() {
        Color::White => format!("{number}. {san}"),
        Color::Black => format!("{number}... {san}"),
    };
    Some((numbered, san))
}

fn wrap_words(words: &[String], width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in words {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The ASCII board on the left, the Unicode one on the right: fonts that draw
/// figurines wider than letters then shift only the right-hand board, and a
/// reader whose client mangles Unicode still has a whole board. Side by side
/// the two fit in 60 columns instead of 22 lines.
fn side_by_side(diagram: &Diagram, lang: Lang) -> Vec<String> {
    let ascii = diagram.to_ascii_in(lang);
    let unicode = diagram.to_unicode();
    let width = ascii.lines().map(|l| l.chars().count()).max().unwrap_or(0) + BOARD_GAP;
    ascii
        .lines()
        .zip(unicode.lines())
        .map(|(a, u)| {
            let pad = width.saturating_sub(a.chars().count());
            format!("{a}{}{u}", " ".repeat(pad))
        })
        .collect()
}

/// Examples of how to write a move now, in the recipient's letters: a piece
/// move as SAN, long algebraic and ICCF, and a pawn move as SAN.
fn reply_examples(game: &Game, lang: Lang) -> Vec<String> {
    examples_for(game.position(), lang, game.castling_mode())
}

/// The same examples for the standard start position, when there is no
/// position to take them from (no game, or a finished one).
fn start_examples(lang: Lang) -> Vec<String> {
    examples_for(&Chess::default(), lang, CastlingMode::Standard)
}

fn examples_for(pos: &Chess, lang: Lang, mode: CastlingMode) -> Vec<String> {
    let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    // Moves towards the centre first, as a player would pick them (Nf3, not
    // Na3); then by UCI, so the same position always gives the same examples.
    moves.sort_by_key(|m| {
        let to = m.to();
        let file = i32::from(u8::from(to.file()));
        let rank = i32::from(u8::from(to.rank()));
        let off_centre = (2 * file - 7).abs() + (2 * rank - 7).abs();
        (
            off_centre,
            shakmaty::uci::UciMove::from_move(*m, mode).to_string(),
        )
    });
    let piece = moves
        .iter()
        .find(|m| !matches!(m.role(), Role::Pawn | Role::King) && !m.is_capture())
        .or_else(|| moves.iter().find(|m| m.role() != Role::Pawn))
        .or(moves.first());
    let pawn = moves
        .iter()
        .find(|m| m.role() == Role::Pawn && Some(*m) != piece);
    let mut out = Vec::new();
    if let Some(m) = piece {
        for notation in [Notation::San(lang), Notation::Long, Notation::Iccf] {
            let text = render(pos, m, notation, mode);
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    if let Some(m) = pawn {
        out.push(render(pos, m, Notation::San(lang), mode));
    }
    out
}
