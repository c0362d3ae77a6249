use super::*;
use crate::domain::chess::game::{EndReason, GameResult, StartPosition};
use crate::domain::command::{self, MoveText};
use chrono::TimeZone;

fn at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap()
}

fn board(game: &Game, draw_offer_by: Option<Color>) -> StateOfPlay {
    StateOfPlay {
        game: game.clone(),
        draw_offer_by,
        conditionals: Conditionals::default(),
        draw_policy: DrawPolicy::default(),
        last_offers: LastOffers::default(),
        messages: true,
        tables: std::sync::Arc::new(crate::domain::chess::tablebase::NoTables),
        tablebase: Default::default(),
    }
}

fn seat(side: Color) -> Seat {
    Seat {
        side,
        lang: Lang::En,
    }
}

fn said(text: &str, lang: Lang) -> Vec<Command> {
    command::parse(text, lang).commands
}

fn mv(text: &str) -> Command {
    Command::Move {
        text: MoveText::new(text).unwrap(),
        offer_draw: false,
    }
}

#[test]
fn a_legal_move_is_played_and_both_players_are_told() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let v = apply(&board(&game, None), seat(Color::White), &[mv("e4")], at());
    assert!(v.changed);
    assert_eq!(v.game.plies()[0].san, "e4");
    assert_eq!(v.game.plies()[0].received_at, Some(at()));
    assert_eq!(
        v.notices,
        vec![
            Notice::MoveAccepted {
                to: Color::White,
                ply: 0
            },
            Notice::YourMove { to: Color::Black },
        ]
    );
}

#[test]
fn a_move_in_the_players_own_letters_is_confirmed_in_them() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let s = Seat {
        side: Color::White,
        lang: Lang::Sl,
    };
    let v = apply(&board(&game, None), s, &said("Sf3", Lang::Sl), at());
    assert_eq!(v.game.plies()[0].san, "Nf3");
    assert!(v.notices.contains(&Notice::MoveAccepted {
        to: Color::White,
        ply: 0
    }));
}

#[test]
fn bad_input_is_rejected_with_a_reason_and_changes_nothing() {
    let game = Game::new(StartPosition::Standard).unwrap();
    for (side, text, kind, says) in [
        (Color::White, "e5", RejectionKind::Illegal, "Move(Illegal"),
        (Color::White, "Ke2", RejectionKind::Illegal, "OwnPieceOn"),
        (
            Color::Black,
            "e5",
            RejectionKind::NotYourTurn,
            "NotYourTurn { to_move: White }",
        ),
        (
            Color::White,
            "hello there",
            RejectionKind::Unreadable,
            "NotACommand",
        ),
    ] {
        let v = apply(&board(&game, None), seat(side), &said(text, Lang::En), at());
        assert!(!v.changed, "{text}");
        assert!(v.game.plies().is_empty());
        match &v.notices[..] {
            [
                Notice::Rejected {
                    kind: k, reason, ..
                },
            ] => {
                let reason = format!("{reason:?}");
                assert_eq!(*k, kind, "{text}: {reason}");
                assert!(reason.contains(says), "{text}: {reason}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn a_rejected_second_command_undoes_the_first() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let v = apply(
        &board(&game, None),
        seat(Color::White),
        &[mv("e4"), Command::AcceptDraw],
        at(),
    );
    assert!(!v.changed);
    assert!(v.game.plies().is_empty());
}

#[test]
fn draw_offers_stand_until_accepted_or_answered_by_a_move() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let v = apply(
        &board(&game, None),
        seat(Color::White),
        &said("e4 draw", Lang::En),
        at(),
    );
    assert_eq!(v.draw_offer_by, Some(Color::White));
    // Black answers with a move: declined, and White is told so.
    let v2 = apply(
        &board(&v.game, v.draw_offer_by),
        seat(Color::Black),
        &[mv("e5")],
        at(),
    );
    assert_eq!(v2.draw_offer_by, None);
    assert!(
        v2.notices
            .contains(&Notice::DrawOfferDeclined { to: Color::White }),
        "{:?}",
        v2.notices
    );
    // Declined in words first, then a move: told once.
    let v2 = apply(
        &board(&v.game, v.draw_offer_by),
        seat(Color::Black),
        &[Command::DeclineDraw, mv("e5")],
        at(),
    );
    let told = v2
        .notices
        .iter()
        .filter(|n| matches!(n, Notice::DrawOfferDeclined { .. }))
        .count();
    assert_eq!(told, 1, "{:?}", v2.notices);
    // Accepting a standing offer ends the game for both.
    let v3 = apply(
        &board(&v.game, v.draw_offer_by),
        seat(Color::Black),
        &[Command::AcceptDraw],
        at(),
    );
    let o = v3.game.outcome().unwrap();
    assert_eq!(
        (o.result, &o.reason),
        (GameResult::Draw, &EndReason::Agreement)
    );
    assert_eq!(v3.notices, vec![Notice::GameOver]);
    // Nobody can accept their own offer.
    let v4 = apply(
        &board(&v.game, v.draw_offer_by),
        seat(Color::White),
        &[Command::AcceptDraw],
        at(),
    );
    assert!(!v4.changed);
}

#[test]
fn resigning_ends_the_game_and_later_moves_are_refused() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let v = apply(
        &board(&game, None),
        seat(Color::Black),
        &[Command::Resign],
        at(),
    );
    assert_eq!(v.game.outcome().unwrap().result, GameResult::WhiteWins);
    assert_eq!(v.notices, vec![Notice::GameOver]);
    let v2 = apply(&board(&v.game, None), seat(Color::White), &[mv("e4")], at());
    assert!(matches!(
        &v2.notices[..],
        [Notice::Rejected {
            kind: RejectionKind::GameOver,
            ..
        }]
    ));
}

#[test]
fn mate_ends_the_game_with_one_mail_to_each() {
    let game = Game::replay(StartPosition::Standard, &["f2f3", "e7e5", "g2g4"]).unwrap();
    let v = apply(&board(&game, None), seat(Color::Black), &[mv("Qh4#")], at());
    assert_eq!(v.game.outcome().unwrap().reason, EndReason::Checkmate);
    assert_eq!(v.notices, vec![Notice::GameOver]);
}

#[test]
fn report_in_a_game_is_turned_down_and_changes_nothing() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let v = apply(
        &board(&game, None),
        seat(Color::White),
        &[Command::Report],
        at(),
    );
    assert!(!v.changed);
    assert!(matches!(
        &v.notices[..],
        [Notice::Rejected {
            kind: RejectionKind::Other,
            ..
        }]
    ));
}

#[test]
fn a_valid_claim_ends_the_game_and_an_invalid_one_plays_nothing() {
    // Nf3 Nf6 Ng1 Ng8 twice: the start position for the third time after Ng1.
    let ucis = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
    let game = Game::replay(StartPosition::Standard, &ucis).unwrap();
    // Black to move: claiming with Ng8 (the position's third time) is valid.
    let v = apply(
        &board(&game, None),
        seat(Color::Black),
        &said("claim draw Ng8", Lang::En),
        at(),
    );
    let o = v.game.outcome().unwrap();
    assert_eq!(
        (o.result, &o.reason),
        (GameResult::Draw, &EndReason::ThreefoldRepetition)
    );
    assert_eq!(v.notices, vec![Notice::GameOver]);
    // Claiming with another move is refused, and the move is not played.
    let v = apply(
        &board(&game, None),
        seat(Color::Black),
        &said("claim draw Nc6", Lang::En),
        at(),
    );
    assert!(!v.changed);
    match &v.notices[..] {
        [
            Notice::Rejected {
                reason,
                kind: RejectionKind::Claim,
                ..
            },
        ] => assert!(
            matches!(
                reason,
                Reason::ClaimInvalid {
                    with_move: true,
                    ..
                }
            ),
            "{reason:?}"
        ),
        other => panic!("{other:?}"),
    }
    // Only the side to move can claim.
    let v = apply(
        &board(&game, None),
        seat(Color::White),
        &said("claim draw", Lang::En),
        at(),
    );
    assert!(!v.changed);
    assert!(
        matches!(
            &v.notices[..],
            [Notice::Rejected {
                kind: RejectionKind::Claim,
                ..
            }]
        ),
        "{:?}",
        v.notices
    );
}

#[test]
fn a_refused_command_is_quoted_in_the_players_words() {
    let game = Game::replay(StartPosition::Standard, &["e2e4", "e7e5"]).unwrap();
    let sl = Seat {
        side: Color::White,
        lang: Lang::Sl,
    };
    for (text, quoted) in [
        ("zahtevam remi Sf3", "zahtevam remi Sf3"),
        ("sprejmem remi", "sprejmem remi"),
        ("zavrnem remi", "zavrnem remi"),
    ] {
        let v = apply(&board(&game, None), sl, &said(text, Lang::Sl), at());
        match &v.notices[..] {
            [Notice::Rejected { wrote, .. }] => assert_eq!(wrote, quoted),
            other => panic!("{text}: {other:?}"),
        }
    }
}

fn cond(text: &str) -> Vec<Command> {
    said(text, Lang::En)
}

#[test]
fn conditional_lines_are_listed_in_the_owners_words_and_piece_letters() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let mut cmds = said("e4", Lang::Sl);
    cmds.extend(said("če e5 Sf3", Lang::Sl));
    let slovenian = Seat {
        side: Color::White,
        lang: Lang::Sl,
    };
    let v = apply(&board(&game, None), slovenian, &cmds, at());
    let lines = v.notices.iter().find_map(|n| match n {
        Notice::Conditionals { lines, .. } => Some(lines.clone()),
        _ => None,
    });
    assert_eq!(
        lines,
        Some(vec!["če 1...e5 2.Sf3".to_string()]),
        "{:?}",
        v.notices
    );
}

#[test]
fn a_conditional_line_fires_at_once_and_a_wrong_guess_cancels_the_rest() {
    let game = Game::new(StartPosition::Standard).unwrap();
    // White plays e4 and sets: if e5 Nf3 (then if Nc6 Bb5), and if c5 Nf3.
    let mut cmds = cond("e4");
    cmds.extend(cond("if e5 Nf3 Nc6 Bb5"));
    cmds.extend(cond("if c5 Nc3"));
    let v = apply(&board(&game, None), seat(Color::White), &cmds, at());
    assert!(v.changed, "{:?}", v.notices);
    assert_eq!(v.conditionals.white.len(), 2, "{:?}", v.notices);
    // Black answers e5: Nf3 is played at once, at the same instant.
    let b = StateOfPlay {
        game: v.game.clone(),
        draw_offer_by: None,
        conditionals: v.conditionals.clone(),
        draw_policy: DrawPolicy::default(),
        last_offers: LastOffers::default(),
        messages: true,
        tables: std::sync::Arc::new(crate::domain::chess::tablebase::NoTables),
        tablebase: Default::default(),
    };
    let later = at() + chrono::Duration::hours(5);
    let v2 = apply(&b, seat(Color::Black), &cond("e5"), later);
    let sans: Vec<&str> = v2.game.plies().iter().map(|p| p.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5", "Nf3"]);
    assert_eq!(v2.game.plies()[2].received_at, Some(later), "costs no time");
    assert!(v2.notices.contains(&Notice::MoveAccepted {
        to: Color::Black,
        ply: 1
    }));
    assert!(v2.notices.contains(&Notice::ConditionalPlayed {
        to: Color::White,
        ply: 2
    }));
    assert!(v2.notices.contains(&Notice::YourMove { to: Color::Black }));
    assert_eq!(
        v2.conditionals.white,
        vec![vec!["b8c6".to_string(), "f1b5".to_string()]]
    );
    // Black plays d6 instead of Nc6: White's remaining line is cancelled.
    let b2 = StateOfPlay {
        game: v2.game.clone(),
        draw_offer_by: None,
        conditionals: v2.conditionals.clone(),
        draw_policy: DrawPolicy::default(),
        last_offers: LastOffers::default(),
        messages: true,
        tables: std::sync::Arc::new(crate::domain::chess::tablebase::NoTables),
        tablebase: Default::default(),
    };
    let v3 = apply(&b2, seat(Color::Black), &cond("d6"), later);
    assert!(v3.conditionals.white.is_empty());
    assert!(v3.notices.iter().any(|n| matches!(n, Notice::Conditionals { to: Color::White, note, .. } if *note == ConditionalNote::Unexpected { ply: 3 })));
    assert!(v3.notices.contains(&Notice::YourMove { to: Color::White }));
}

#[test]
fn an_illegal_conditional_line_is_refused_whole() {
    let game = Game::replay(StartPosition::Standard, &["e2e4"]).unwrap();
    let v = apply(
        &board(&game, None),
        seat(Color::White),
        &cond("if e5 Nf3 Nc6 Ke3"),
        at(),
    );
    assert!(!v.changed);
    match &v.notices[..] {
        [Notice::Rejected { reason, .. }] => {
            assert!(
                matches!(reason, Reason::ConditionalMove { index: 4, .. }),
                "{reason:?}"
            )
        }
        other => panic!("{other:?}"),
    }
    // On one's own move, conditionals are refused with the way to do it.
    let v = apply(
        &board(&game, None),
        seat(Color::Black),
        &cond("if Nf3 Nc6"),
        at(),
    );
    assert!(!v.changed);
}

#[test]
fn an_events_draw_rules_refuse_early_and_repeated_offers() {
    let policy = DrawPolicy {
        first_offer_move: 3,
        moves_between_offers: 2,
    };
    let mut b = StateOfPlay {
        game: Game::new(StartPosition::Standard).unwrap(),
        draw_offer_by: None,
        conditionals: Conditionals::default(),
        draw_policy: policy,
        last_offers: LastOffers::default(),
        messages: true,
        tables: std::sync::Arc::new(crate::domain::chess::tablebase::NoTables),
        tablebase: Default::default(),
    };
    // Move 1: too early; the move is not played either.
    let v = apply(&b, seat(Color::White), &said("e4 draw", Lang::En), at());
    assert!(!v.changed);
    match &v.notices[..] {
        [Notice::Rejected { reason, .. }] => assert_eq!(
            *reason,
            Reason::DrawTooEarly {
                first: 3,
                with_move: true
            }
        ),
        other => panic!("{other:?}"),
    }
    // Play on to move 3 and offer then: allowed.
    for (side, m) in [
        (Color::White, "e4"),
        (Color::Black, "e5"),
        (Color::White, "Nf3"),
        (Color::Black, "Nc6"),
    ] {
        let v = apply(&b, seat(side), &[mv(m)], at());
        b.game = v.game;
    }
    let v = apply(&b, seat(Color::White), &said("Bc4 draw", Lang::En), at());
    assert_eq!(v.draw_offer_by, Some(Color::White), "{:?}", v.notices);
    assert_eq!(v.last_offers.white, Some(4));
    b = StateOfPlay {
        game: v.game,
        draw_offer_by: v.draw_offer_by,
        conditionals: v.conditionals,
        draw_policy: policy,
        last_offers: v.last_offers,
        messages: true,
        tables: std::sync::Arc::new(crate::domain::chess::tablebase::NoTables),
        tablebase: Default::default(),
    };
    let v = apply(&b, seat(Color::Black), &[mv("Bc5")], at());
    b.game = v.game;
    b.draw_offer_by = v.draw_offer_by;
    // Move 4: within two moves of the last offer.
    let v = apply(&b, seat(Color::White), &said("c3 draw", Lang::En), at());
    match &v.notices[..] {
        [Notice::Rejected { reason, .. }] => assert!(
            matches!(reason, Reason::DrawTooSoon { next: 5, .. }),
            "{reason:?}"
        ),
        other => panic!("{other:?}"),
    }
}

fn message_notices(v: &Verdict) -> Vec<&Notice> {
    v.notices
        .iter()
        .filter(|n| matches!(n, Notice::Message { .. } | Notice::MessageHeld { .. }))
        .collect()
}

#[test]
fn a_message_with_a_move_goes_to_the_opponent_filed_after_that_move() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let v = apply(
        &board(&game, None),
        seat(Color::White),
        &said("e4\nGood luck!", Lang::En),
        at(),
    );
    assert!(v.changed);
    let Notice::Message { to, message, ply } = message_notices(&v)[0] else {
        panic!("{:?}", v.notices)
    };
    assert_eq!(
        (*to, message.as_str(), *ply),
        (Color::Black, "Good luck!", 1)
    );
    assert!(v.notices.contains(&Notice::YourMove { to: Color::Black }));
}

#[test]
fn a_message_follows_the_writers_move_even_when_a_conditional_answer_follows() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let mut cmds = vec![mv("e4")];
    cmds.extend(said("if e5 Nf3", Lang::En));
    let v = apply(&board(&game, None), seat(Color::White), &cmds, at());
    let b = StateOfPlay {
        game: v.game.clone(),
        conditionals: v.conditionals.clone(),
        ..board(&game, None)
    };
    let v2 = apply(
        &b,
        seat(Color::Black),
        &said("e5\nNice opening.", Lang::En),
        at(),
    );
    assert_eq!(v2.game.plies().len(), 3, "the conditional Nf3 was played");
    let Notice::Message { to, ply, .. } = message_notices(&v2)[0] else {
        panic!("{:?}", v2.notices)
    };
    assert_eq!(
        (*to, *ply),
        (Color::White, 2),
        "after 1... e5, not after 2. Nf3"
    );
}

#[test]
fn a_message_alone_changes_nothing_and_is_passed_on_even_off_turn() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let v = apply(
        &board(&game, None),
        seat(Color::Black),
        &said("Thanks for the game, good luck!", Lang::En),
        at(),
    );
    assert!(!v.changed);
    assert_eq!(
        message_notices(&v),
        [&Notice::Message {
            to: Color::White,
            message: command::Message::new("Thanks for the game, good luck!").unwrap(),
            ply: 0,
        }]
    );
}

#[test]
fn in_an_event_without_messages_the_move_is_played_and_the_message_held() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let b = StateOfPlay {
        messages: false,
        tables: std::sync::Arc::new(crate::domain::chess::tablebase::NoTables),
        tablebase: Default::default(),
        ..board(&game, None)
    };
    let v = apply(
        &b,
        seat(Color::White),
        &said("e4\nGood luck!", Lang::En),
        at(),
    );
    assert!(v.changed);
    assert_eq!(v.game.plies().len(), 1);
    assert_eq!(
        message_notices(&v),
        [&Notice::MessageHeld { to: Color::White }]
    );
}

#[test]
fn a_move_with_words_on_its_line_is_refused_and_nothing_is_played() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let v = apply(
        &board(&game, None),
        seat(Color::White),
        &said("e4 thanks", Lang::En),
        at(),
    );
    assert!(!v.changed);
    assert_eq!(
        v.notices,
        vec![Notice::Rejected {
            to: Color::White,
            wrote: "e4 thanks".into(),
            reason: Reason::MessageOnNextLine,
            kind: RejectionKind::Unreadable,
        }]
    );
}

#[test]
fn a_refused_move_passes_no_message_on() {
    let game = Game::new(StartPosition::Standard).unwrap();
    let v = apply(
        &board(&game, None),
        seat(Color::White),
        &said("e5\nGood luck!", Lang::En),
        at(),
    );
    assert!(!v.changed);
    assert!(message_notices(&v).is_empty(), "{:?}", v.notices);
}

/// Tables that know one thing: every position of at most `most` men with
/// White to move is `wdl` for White (`wdl50` with the counter).
#[derive(Debug)]
struct FakeTables {
    most: u32,
    wdl: crate::domain::chess::tablebase::Wdl,
    wdl50: crate::domain::chess::tablebase::Wdl50,
}

impl crate::domain::chess::tablebase::Tables for FakeTables {
    fn probe(
        &self,
        position: &shakmaty::Chess,
    ) -> Result<crate::domain::chess::tablebase::Reading, crate::domain::chess::tablebase::Unread>
    {
        use shakmaty::Position;
        let turn = position.turn();
        let (wdl, wdl50) = match turn {
            Color::White => (self.wdl, self.wdl50),
            Color::Black => (self.wdl.flip(), flip50(self.wdl50)),
        };
        Ok(crate::domain::chess::tablebase::Reading {
            material: "KRvK".into(),
            pieces: crate::domain::chess::tablebase::pieces(position),
            turn,
            halfmoves: position.halfmoves(),
            wdl,
            wdl50: Some(wdl50),
            dtz: Some(crate::domain::chess::tablebase::Dtz {
                plies: 15,
                rounded: false,
            }),
        })
    }

    fn most_pieces(&self) -> u32 {
        self.most
    }

    fn moves(
        &self,
        _: &shakmaty::Chess,
    ) -> Result<
        Vec<crate::domain::chess::tablebase::MoveReading>,
        crate::domain::chess::tablebase::Unread,
    > {
        Ok(Vec::new())
    }
}

fn flip50(w: crate::domain::chess::tablebase::Wdl50) -> crate::domain::chess::tablebase::Wdl50 {
    use crate::domain::chess::tablebase::Wdl50::*;
    match w {
        Loss => Win,
        MaybeLoss => MaybeWin,
        BlessedLoss => CursedWin,
        Draw => Draw,
        CursedWin => BlessedLoss,
        MaybeWin => MaybeLoss,
        Win => Loss,
    }
}

/// A board in tables that say `wdl` for White, under `rule`.
fn in_tables(
    fen: &str,
    wdl: crate::domain::chess::tablebase::Wdl,
    wdl50: crate::domain::chess::tablebase::Wdl50,
    policy: crate::domain::chess::tablebase::TablebasePolicy,
) -> StateOfPlay {
    let game = Game::new(StartPosition::fen(fen).unwrap()).unwrap();
    StateOfPlay {
        tables: std::sync::Arc::new(FakeTables {
            most: 5,
            wdl,
            wdl50,
        }),
        tablebase: policy,
        ..board(&game, None)
    }
}

const KRVK_WHITE_TO_MOVE: &str = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
const KRVK_BLACK_TO_MOVE: &str = "8/8/8/4k3/8/8/8/R3K3 b - - 0 1";
/// Six men: White plays Rxa7 into a position of five, which the tables hold.
const BEFORE_THE_TABLES: &str = "8/p6p/8/4k3/8/8/1P6/R3K3 w - - 0 1";

fn proof_of(v: &Verdict) -> crate::domain::chess::tablebase::TableProof {
    match &v.game.outcome().expect("over").reason {
        EndReason::Adjudication(why) => {
            crate::domain::chess::tablebase::TableProof::read(why).expect("a tables proof")
        }
        other => panic!("not a tables adjudication: {other:?}"),
    }
}

#[test]
fn a_win_the_tables_give_is_granted_on_a_claim_by_either_side_to_move() {
    use crate::domain::chess::tablebase::{Decider, TablebasePolicy, Wdl, Wdl50};
    for fen in [KRVK_WHITE_TO_MOVE, KRVK_BLACK_TO_MOVE] {
        let b = in_tables(fen, Wdl::Win, Wdl50::Win, TablebasePolicy::default());
        let v = apply(&b, seat(Color::White), &said("claim win", Lang::En), at());
        assert!(v.changed, "{fen}");
        let o = v.game.outcome().expect("over");
        assert_eq!(o.result, GameResult::WhiteWins);
        assert_eq!(o.reason.pgn_termination(), "adjudication");
        let proof = proof_of(&v);
        assert_eq!(proof.by, Decider::Claim(Color::White));
        assert_eq!(proof.material, "KRvK");
        assert_eq!(v.notices, vec![Notice::GameOver]);
    }
}

#[test]
fn a_claim_the_tables_deny_changes_nothing_and_says_what_they_say() {
    use crate::domain::chess::tablebase::{TablebasePolicy, Wdl, Wdl50};
    let b = in_tables(
        KRVK_WHITE_TO_MOVE,
        Wdl::Win,
        Wdl50::Win,
        TablebasePolicy::default(),
    );
    for (side, text, want) in [
        (Color::Black, "claim win", RejectionKind::Other),
        (Color::White, "claim draw", RejectionKind::Claim),
    ] {
        let v = apply(&b, seat(side), &said(text, Lang::En), at());
        assert!(!v.changed, "{text}");
        assert!(v.game.outcome().is_none());
        let [Notice::Rejected { reason, kind, .. }] = v.notices.as_slice() else {
            panic!("{:?}", v.notices)
        };
        assert_eq!(*kind, want, "{text}");
        let Reason::TableClaimInvalid {
            why: TableRefusal::TablesSay { result, .. },
            ..
        } = reason
        else {
            panic!("{reason:?}")
        };
        assert_eq!(*result, GameResult::WhiteWins);
    }
}

#[test]
fn a_cursed_win_is_a_win_by_the_iccf_rule_and_a_draw_by_the_fifty_move_rule() {
    use crate::domain::chess::tablebase::{TablebasePolicy, TablebaseRule, Wdl, Wdl50};
    let iccf = in_tables(
        KRVK_WHITE_TO_MOVE,
        Wdl::CursedWin,
        Wdl50::CursedWin,
        TablebasePolicy::default(),
    );
    let v = apply(
        &iccf,
        seat(Color::White),
        &said("claim win", Lang::En),
        at(),
    );
    assert_eq!(v.game.outcome().unwrap().result, GameResult::WhiteWins);
    let v = apply(
        &iccf,
        seat(Color::Black),
        &said("claim draw", Lang::En),
        at(),
    );
    assert!(!v.changed, "by ICCF's rule it is no draw");
    let fifty = in_tables(
        KRVK_WHITE_TO_MOVE,
        Wdl::CursedWin,
        Wdl50::CursedWin,
        TablebasePolicy {
            rule: TablebaseRule::FiftyMove,
            ..TablebasePolicy::default()
        },
    );
    let v = apply(
        &fifty,
        seat(Color::White),
        &said("claim win", Lang::En),
        at(),
    );
    assert!(!v.changed, "by the 50-move rule it is no win");
    // Black claims while White is to move: the tables' word holds for both.
    let v = apply(
        &fifty,
        seat(Color::Black),
        &said("claim draw", Lang::En),
        at(),
    );
    assert_eq!(v.game.outcome().unwrap().result, GameResult::Draw);
}

#[test]
fn a_claim_with_a_move_into_the_tables_plays_it_only_when_the_claim_holds() {
    use crate::domain::chess::tablebase::{TablebasePolicy, Wdl, Wdl50};
    let b = in_tables(
        BEFORE_THE_TABLES,
        Wdl::Win,
        Wdl50::Win,
        TablebasePolicy::default(),
    );
    // Six men: the tables (of five) say nothing before the capture.
    let v = apply(&b, seat(Color::White), &said("claim win", Lang::En), at());
    let [Notice::Rejected { reason, .. }] = v.notices.as_slice() else {
        panic!("{:?}", v.notices)
    };
    assert!(matches!(
        reason,
        Reason::TableClaimInvalid {
            why: TableRefusal::Unread(crate::domain::chess::tablebase::Unread::TooManyPieces {
                pieces: 6,
                most: 5
            }),
            ..
        }
    ));
    let v = apply(
        &b,
        seat(Color::White),
        &said("claim win Rxa7", Lang::En),
        at(),
    );
    assert_eq!(v.game.plies().len(), 1, "the named move is played");
    assert_eq!(v.game.plies()[0].san, "Rxa7");
    assert_eq!(v.game.outcome().unwrap().result, GameResult::WhiteWins);
    // A draw claim the tables deny leaves the named move unplayed.
    let v = apply(
        &b,
        seat(Color::White),
        &said("claim draw Rxa7", Lang::En),
        at(),
    );
    assert!(!v.changed);
    assert!(v.game.plies().is_empty());
    let [Notice::Rejected { reason, .. }] = v.notices.as_slice() else {
        panic!("{:?}", v.notices)
    };
    let Reason::TableClaimInvalid {
        with_move, fide, ..
    } = reason
    else {
        panic!("{reason:?}")
    };
    assert!(*with_move);
    assert!(
        fide.is_some(),
        "the repetition and 50-move claim is told too"
    );
}

#[test]
fn an_event_without_tables_refuses_claims_on_them_and_says_nothing() {
    use crate::domain::chess::tablebase::{TablebasePolicy, TablebaseRule, Wdl, Wdl50};
    let b = in_tables(
        BEFORE_THE_TABLES,
        Wdl::Win,
        Wdl50::Win,
        TablebasePolicy {
            rule: TablebaseRule::None,
            ..TablebasePolicy::default()
        },
    );
    let v = apply(
        &b,
        seat(Color::White),
        &said("claim win Rxa7", Lang::En),
        at(),
    );
    assert!(!v.changed);
    let [Notice::Rejected { reason, .. }] = v.notices.as_slice() else {
        panic!("{:?}", v.notices)
    };
    assert!(matches!(
        reason,
        Reason::TableClaimInvalid {
            why: TableRefusal::EventUsesNone,
            ..
        }
    ));
    let v = apply(&b, seat(Color::White), &[mv("Rxa7")], at());
    assert!(
        !v.notices
            .iter()
            .any(|n| matches!(n, Notice::TablesSay { .. })),
        "{:?}",
        v.notices
    );
}

#[test]
fn a_move_into_the_tables_is_told_once_or_ends_the_game_where_the_event_says() {
    use crate::domain::chess::tablebase::{TablebaseEnd, TablebasePolicy, Wdl, Wdl50};
    let b = in_tables(
        BEFORE_THE_TABLES,
        Wdl::Win,
        Wdl50::Win,
        TablebasePolicy::default(),
    );
    let v = apply(&b, seat(Color::White), &[mv("Rxa7")], at());
    let told: Vec<_> = v
        .notices
        .iter()
        .filter(|n| matches!(n, Notice::TablesSay { .. }))
        .collect();
    assert_eq!(told.len(), 1, "{:?}", v.notices);
    assert!(v.game.outcome().is_none(), "it waits for a claim");
    // The next move is in the tables already: nothing more is said.
    let next = StateOfPlay {
        game: v.game.clone(),
        ..b.clone()
    };
    let v2 = apply(&next, seat(Color::Black), &[mv("Kd5")], at());
    assert!(
        !v2.notices
            .iter()
            .any(|n| matches!(n, Notice::TablesSay { .. })),
        "{:?}",
        v2.notices
    );
    let quiet = StateOfPlay {
        tablebase: TablebasePolicy {
            notice: false,
            ..TablebasePolicy::default()
        },
        ..b.clone()
    };
    let v = apply(&quiet, seat(Color::White), &[mv("Rxa7")], at());
    assert!(
        !v.notices
            .iter()
            .any(|n| matches!(n, Notice::TablesSay { .. }))
    );
    let auto = StateOfPlay {
        tablebase: TablebasePolicy {
            end: TablebaseEnd::Auto,
            ..TablebasePolicy::default()
        },
        ..b
    };
    let v = apply(&auto, seat(Color::White), &[mv("Rxa7")], at());
    assert_eq!(v.game.outcome().unwrap().result, GameResult::WhiteWins);
    assert_eq!(
        proof_of(&v).by,
        crate::domain::chess::tablebase::Decider::Itself
    );
    assert!(v.notices.contains(&Notice::GameOver));
}
