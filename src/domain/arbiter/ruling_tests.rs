//! Tests of [`super::hear`]: a whole mail, with the player's own settings.

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use shakmaty::Color;

use super::*;
use crate::domain::arbiter::{Conditionals, LastOffers};
use crate::domain::chess::game::{Game, StartPosition};
use crate::domain::clock::{Allowance, LeaveError};
use crate::domain::command;
use crate::domain::event::DrawPolicy;
use crate::domain::ids::{EventId, GameId};
use crate::domain::lang::Lang;

fn at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap()
}

fn writer(lang: Lang) -> Writer {
    Writer {
        lang,
        tz: None,
        leaves: Vec::new(),
        allowance: Allowance::ICCF,
        asked_at: at(),
    }
}

fn start() -> StateOfPlay {
    StateOfPlay {
        game: Game::new(StartPosition::Standard).unwrap(),
        draw_offer_by: None,
        conditionals: Conditionals::default(),
        draw_policy: DrawPolicy::default(),
        last_offers: LastOffers::default(),
        messages: true,
        tables: std::sync::Arc::new(crate::domain::chess::tablebase::NoTables),
        tablebase: Default::default(),
    }
}

fn in_game(board: &StateOfPlay) -> Place<'_> {
    Place::Game {
        id: GameId(7),
        board,
        side: Color::White,
        at: at(),
        flagged: None,
        annulled: false,
        event: None,
    }
}

fn said(text: &str, lang: Lang) -> Vec<Command> {
    command::parse(text, lang).commands
}

fn mv(text: &str) -> Command {
    Command::Move {
        text: command::MoveText::new(text).unwrap(),
        offer_draw: false,
    }
}

fn leave(from: NaiveDate, to: NaiveDate) -> Command {
    Command::Leave { from, to }
}

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

#[test]
fn leave_is_booked_for_all_games_and_a_second_one_sees_the_first() {
    let board = start();
    let commands = [
        leave(day(2026, 12, 24), day(2027, 1, 2)),
        leave(day(2026, 12, 30), day(2026, 12, 31)),
    ];
    let ruling = hear(&writer(Lang::En), in_game(&board), &commands);
    match &ruling.steps[..] {
        [
            Step::BookLeave { leave, left },
            Step::RefuseLeave {
                reason: LeaveError::Overlaps { .. },
                ..
            },
        ] => {
            assert_eq!(leave.from(), day(2026, 12, 24));
            assert_eq!(left, &vec![(2026, 37), (2027, 43)]);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        ruling
            .summary
            .starts_with("booked leave 2026-12-24 to 2027-01-02; refused")
    );
}

#[test]
fn a_language_change_comes_first_and_the_move_is_read_in_the_new_language() {
    let board = start();
    // `Sf3` is a knight move in Slovenian letters, no move in English.
    let ruling = hear(
        &writer(Lang::En),
        in_game(&board),
        &[Command::Language(Lang::Sl), mv("Sf3")],
    );
    match &ruling.steps[..] {
        [
            Step::Settings {
                lang: Some(Lang::Sl),
                digest: None,
            },
            Step::Play(verdict),
        ] => {
            assert!(verdict.changed);
            assert_eq!(verdict.game.plies()[0].san, "Nf3");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn standings_outside_an_event_are_turned_down_and_the_move_still_played() {
    let board = start();
    let ruling = hear(
        &writer(Lang::En),
        in_game(&board),
        &[mv("e4"), Command::Standings],
    );
    assert!(matches!(
        &ruling.steps[..],
        [Step::Standings(StandingsAsked::NotInEvent(GameId(7))), Step::Play(v)] if v.changed
    ));
}

#[test]
fn time_that_ran_out_before_the_mail_ends_the_game_whatever_it_says() {
    let board = start();
    let mut place = in_game(&board);
    if let Place::Game { flagged, .. } = &mut place {
        *flagged = Some((Color::White, at()));
    }
    let ruling = hear(&writer(Lang::En), place, &said("e4", Lang::En));
    assert!(matches!(
        &ruling.steps[..],
        [Step::EndOnTime {
            side: Color::White,
            ..
        }]
    ));
    assert_eq!(
        ruling.summary,
        "White ran out of time before this mail arrived"
    );
}

#[test]
fn an_annulled_game_turns_down_every_move_and_changes_nothing() {
    let board = start();
    let mut place = in_game(&board);
    if let Place::Game { annulled, .. } = &mut place {
        *annulled = true;
    }
    let ruling = hear(&writer(Lang::En), place, &said("e4", Lang::En));
    match &ruling.steps[..] {
        [Step::Play(v)] => {
            assert!(!v.changed);
            assert!(matches!(
                &v.notices[..],
                [Notice::Rejected {
                    kind: RejectionKind::GameOver,
                    ..
                }]
            ));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn without_a_game_standings_go_to_every_event_and_a_move_is_turned_down() {
    let place = |events: Vec<EventId>| Place::NoGame {
        games: vec![GameId(3), GameId(4)],
        events,
        first_line: "e4".into(),
    };
    let ruling = hear(
        &writer(Lang::En),
        place(vec![EventId(1), EventId(2)]),
        &said("standings", Lang::En),
    );
    assert!(matches!(
        &ruling.steps[..],
        [Step::Standings(StandingsAsked::OfEvents(e))] if e.len() == 2
    ));
    let ruling = hear(&writer(Lang::En), place(Vec::new()), &said("e4", Lang::En));
    assert!(matches!(
        &ruling.steps[..],
        [Step::Answer(Answer::Rejected {
            kind: RejectionKind::UnknownGame,
            ..
        })]
    ));
    let ruling = hear(
        &writer(Lang::En),
        place(Vec::new()),
        &said("leave 2026-12-24 2027-01-02", Lang::En),
    );
    assert!(matches!(
        &ruling.steps[..],
        [Step::Answer(Answer::LeaveNeedsGame { .. })]
    ));
}

#[test]
fn a_director_gets_the_report_only_from_their_report_address() {
    let report = said("report", Lang::En);
    let more = [Command::Report, Command::Status];
    assert_eq!(
        hear_director(&report, DirectorAddress::Report),
        Some(DirectorAnswer::Report)
    );
    assert_eq!(
        hear_director(&report, DirectorAddress::Elsewhere),
        Some(DirectorAnswer::HowToAsk)
    );
    assert_eq!(
        hear_director(&report, DirectorAddress::WrongToken),
        Some(DirectorAnswer::HowToAsk)
    );
    assert_eq!(hear_director(&more, DirectorAddress::Elsewhere), None);
    assert_eq!(
        hear_director(&said("status", Lang::En), DirectorAddress::Report),
        Some(DirectorAnswer::Nothing)
    );
}
