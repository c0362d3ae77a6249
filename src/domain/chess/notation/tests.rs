//! Tests of reading and writing move text: tables over real positions,
//! perft against the published suites, and properties over random games.

use proptest::prelude::*;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, File, Move, Position, Setup, fen::Fen, perft,
    uci::UciMove,
};

use super::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// After 1.e4 e5 2.Nf3 Nc6.
const OPEN: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
/// After 1.e4: Black's first move.
const BLACK_FIRST: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
const CASTLE: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
const PROMOTE: &str = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1";
const EN_PASSANT: &str = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
/// Pawn b3 and bishop f1 can both take on c4.
const BC4: &str = "4k3/8/8/8/2p5/1P6/8/4KB2 w - - 0 1";
const MATE_IN_ONE: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
/// Chess960: king b1, rooks a1 and h1 (and the same for Black).
const C960: &str = "r2k3r/8/8/8/8/8/8/RK5R w HAha - 0 1";

fn mode_of(fen: &str) -> CastlingMode {
    let setup = fen
        .parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_setup();
    CastlingMode::detect(&setup)
}

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(mode_of(fen))
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn uci_move(pos: &Chess, uci: &str) -> Move {
    uci.parse::<UciMove>()
        .unwrap_or_else(|e| panic!("{uci}: {e}"))
        .to_move(pos)
        .unwrap_or_else(|e| panic!("{uci}: {e}"))
}

fn lang(code: &str) -> Lang {
    code.parse().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_notation_and_language_reads_to_its_move() {
    // (position, language, text, the move in UCI)
    let table = [
        (START, "en", "e4", "e2e4"),
        (START, "en", "e2-e4", "e2e4"),
        (START, "en", "e2e4", "e2e4"),
        (START, "en", "5254", "e2e4"),
        (START, "en", "1. e4", "e2e4"),
        (START, "en", "1.e4!", "e2e4"),
        (START, "en", "Pe4", "e2e4"),
        (START, "en", "Nf3", "g1f3"),
        (START, "en", "Nf3+", "g1f3"),
        (START, "en", "Ng1-f3", "g1f3"),
        (START, "en", "Ng1f3", "g1f3"),
        (START, "en", "g1f3", "g1f3"),
        (START, "en", "7163", "g1f3"),
        (START, "en", "nf3", "g1f3"),
        (START, "en", "NF3", "g1f3"),
        (START, "en", "E4", "e2e4"),
        (START, "en", "♘f3", "g1f3"),
        (START, "en", "♞f3", "g1f3"),
        (START, "sl", "Sf3", "g1f3"),
        (START, "pl", "Sf3", "g1f3"),
        (START, "lv", "Zf3", "g1f3"),
        (START, "de", "Sf3", "g1f3"),
        (START, "cs", "Jf3", "g1f3"),
        (START, "sk", "Jf3", "g1f3"),
        (START, "hr", "Sf3", "g1f3"),
        (START, "sr", "Sf3", "g1f3"),
        // Dutch P is the knight: a piece letter beats the English pawn letter.
        (START, "nl", "Pf3", "g1f3"),
        (START, "nl", "Oe4", "e2e4"),
        (START, "fr", "Cf3", "g1f3"),
        (START, "es", "Cf3", "g1f3"),
        (START, "it", "Cf3", "g1f3"),
        (START, "pt", "Cf3", "g1f3"),
        (START, "ro", "Cf3", "g1f3"),
        (START, "sv", "Sf3", "g1f3"),
        (START, "da", "Sf3", "g1f3"),
        (START, "no", "Sf3", "g1f3"),
        (START, "fi", "Rf3", "g1f3"),
        (START, "et", "Rf3", "g1f3"),
        (START, "lt", "Žf3", "g1f3"),
        (START, "lt", "žf3", "g1f3"),
        (START, "hu", "Hf3", "g1f3"),
        (START, "hu", "Ge4", "e2e4"),
        (START, "is", "Rf3", "g1f3"),
        (START, "pl", "sf3", "g1f3"),
        (START, "pl", "Nf3", "g1f3"),
        (OPEN, "en", "Bb5", "f1b5"),
        (OPEN, "sl", "Lb5", "f1b5"),
        (OPEN, "pl", "Gb5", "f1b5"),
        (OPEN, "lv", "Lb5", "f1b5"),
        (OPEN, "de", "Lb5", "f1b5"),
        (OPEN, "cs", "Sb5", "f1b5"),
        (OPEN, "hr", "Lb5", "f1b5"),
        (OPEN, "nl", "Lb5", "f1b5"),
        (OPEN, "fr", "Fb5", "f1b5"),
        (OPEN, "es", "Ab5", "f1b5"),
        (OPEN, "it", "Ab5", "f1b5"),
        (OPEN, "pt", "Bb5", "f1b5"),
        (OPEN, "ro", "Nb5", "f1b5"),
        (OPEN, "sv", "Lb5", "f1b5"),
        (OPEN, "hu", "Fb5", "f1b5"),
        (OPEN, "lt", "Rb5", "f1b5"),
        (OPEN, "et", "Ob5", "f1b5"),
        (OPEN, "is", "Bb5", "f1b5"),
        (OPEN, "en", "Nxe5", "f3e5"),
        (OPEN, "en", "N:e5", "f3e5"),
        (OPEN, "de", "Sxe5", "f3e5"),
        (OPEN, "en", "3. Nxe5", "f3e5"),
        (OPEN, "de", "De2", "d1e2"),
        (OPEN, "pl", "He2", "d1e2"),
        (OPEN, "hu", "Ve2", "d1e2"),
        (OPEN, "et", "Le2", "d1e2"),
        (OPEN, "lt", "Ve2", "d1e2"),
        (BLACK_FIRST, "en", "1...e5", "e7e5"),
        (BLACK_FIRST, "en", "1… c5", "c7c5"),
        (BLACK_FIRST, "en", "1. e5", "e7e5"),
        (BLACK_FIRST, "en", "5755", "e7e5"),
        (CASTLE, "en", "O-O", "e1g1"),
        (CASTLE, "en", "0-0", "e1g1"),
        (CASTLE, "en", "o-o", "e1g1"),
        (CASTLE, "en", "O-O-O", "e1c1"),
        (CASTLE, "en", "0-0-0+", "e1c1"),
        (CASTLE, "en", "e1g1", "e1g1"),
        (CASTLE, "en", "e1h1", "e1g1"),
        (CASTLE, "en", "Ke1-g1", "e1g1"),
        (CASTLE, "en", "5171", "e1g1"),
        (CASTLE, "en", "5131", "e1c1"),
        (CASTLE, "nl", "O-O", "e1g1"),
        (CASTLE, "en", "Kxh1", "e1g1"),
        (CASTLE, "pl", "Wd1", "a1d1"),
        // German B is the pawn, English B the bishop: the piece letter wins.
        ("4k3/8/8/8/8/2P5/8/4KB2 w - - 0 1", "de", "Bc4", "f1c4"),
        ("4k3/8/8/8/8/2P5/8/4KB2 w - - 0 1", "de", "c4", "c3c4"),
        // A lower-case h is the h-file in English ...
        ("4k3/8/3Q4/8/8/6n1/7P/4K3 w - - 0 1", "en", "hg3", "h2g3"),
        // ... and for a Pole too, though H is the Polish queen (hetman):
        // in SAN a lower-case file letter is a pawn.
        ("4k3/8/3Q4/8/8/6n1/7P/4K3 w - - 0 1", "pl", "hg3", "h2g3"),
        ("4k3/8/3Q4/8/8/6n1/7P/4K3 w - - 0 1", "pl", "hxg3", "h2g3"),
        // The lower-case queen is read only where no pawn can mean it.
        ("4k3/8/3Q4/8/8/6n1/8/4K3 w - - 0 1", "pl", "hg3", "d6g3"),
        ("4k3/8/3Q4/8/8/6n1/8/4K3 w - - 0 1", "pl", "hxg3", "d6g3"),
        // Issue 12: h4xg5 and Hg4xg5 are both legal; hxg5 is the pawn.
        ("4k3/8/8/6p1/6QP/8/8/4K3 w - - 0 1", "pl", "hxg5", "h4g5"),
        ("4k3/8/8/6p1/6QP/8/8/4K3 w - - 0 1", "pl", "Hxg5", "g4g5"),
        (PROMOTE, "en", "e8=Q", "e7e8q"),
        (PROMOTE, "en", "e8Q", "e7e8q"),
        (PROMOTE, "en", "e8q", "e7e8q"),
        (PROMOTE, "en", "e8(Q)", "e7e8q"),
        (PROMOTE, "en", "e7e8q", "e7e8q"),
        (PROMOTE, "en", "e7-e8=N", "e7e8n"),
        (PROMOTE, "en", "e8=♕", "e7e8q"),
        (PROMOTE, "en", "57581", "e7e8q"),
        (PROMOTE, "en", "57584", "e7e8n"),
        (PROMOTE, "de", "e8=D", "e7e8q"),
        (PROMOTE, "de", "e8S", "e7e8n"),
        (PROMOTE, "pl", "e8=H", "e7e8q"),
        (PROMOTE, "fr", "e8=T", "e7e8r"),
        (EN_PASSANT, "en", "exf6", "e5f6"),
        (EN_PASSANT, "en", "exf6 e.p.", "e5f6"),
        (EN_PASSANT, "en", "exf6ep", "e5f6"),
        (EN_PASSANT, "en", "e5:f6", "e5f6"),
        (EN_PASSANT, "en", "5566", "e5f6"),
        (BC4, "en", "Bc4", "f1c4"),
        (BC4, "en", "Bxc4", "f1c4"),
        (BC4, "en", "b3c4", "b3c4"),
        (BC4, "en", "b3xc4", "b3c4"),
        // Issue 12: the standard SAN reading of a lower-case file letter.
        (BC4, "en", "bxc4", "b3c4"),
        (BC4, "en", "bc4", "b3c4"),
        (BC4, "de", "bxc4", "b3c4"),
        (BC4, "pl", "bxc4", "b3c4"),
        // Without the pawn, a lower-case bishop is still a bishop.
        ("4k3/8/8/8/2p5/8/8/4KB2 w - - 0 1", "en", "bxc4", "f1c4"),
        ("4k3/8/8/8/2p5/8/8/4KB2 w - - 0 1", "en", "bc4", "f1c4"),
        (MATE_IN_ONE, "en", "Qxf7#", "h5f7"),
        (MATE_IN_ONE, "fr", "Dxf7#", "h5f7"),
        (C960, "en", "O-O", "b1h1"),
        (C960, "en", "b1h1", "b1h1"),
        (C960, "en", "Kb1-g1", "b1h1"),
        (C960, "en", "Kxh1", "b1h1"),
        (C960, "en", "Kh1", "b1h1"),
        (C960, "en", "Kxa1", "b1a1"),
        (C960, "en", "2171", "b1h1"),
        (C960, "en", "O-O-O", "b1a1"),
        (C960, "en", "b1a1", "b1a1"),
        (C960, "en", "2111", "b1a1"),
        // Beside its castling square the king's plain move wins.
        (C960, "en", "b1c1", "b1c1"),
        (C960, "en", "2131", "b1c1"),
        (C960, "en", "Kc1", "b1c1"),
    ];
    for (fen, code, text, uci) in table {
        let pos = position(fen);
        let want = uci_move(&pos, uci);
        let got = parse_move(&pos, text, lang(code), mode_of(fen));
        assert_eq!(got, Ok(want), "{code} {text:?} in {fen}");
    }
}

#[test]
fn errors_say_what_is_wrong_in_words() {
    // (position, language, text, kind, words the message must contain)
    let table = [
        (
            START,
            "en",
            "Nf4",
            "illegal",
            "none of your knights can reach f4",
        ),
        (
            START,
            "en",
            "e5",
            "illegal",
            "the pawn on e2 cannot reach e5",
        ),
        (
            START,
            "en",
            "Qd3",
            "illegal",
            "the queen on d1 cannot reach d3",
        ),
        (
            START,
            "en",
            "Ke2",
            "illegal",
            "e2 is taken by your own pawn",
        ),
        (START, "en", "e3e4", "illegal", "there is no piece on e3"),
        (
            START,
            "en",
            "e7e5",
            "illegal",
            "the pawn on e7 is not yours",
        ),
        (
            START,
            "en",
            "Bg1-f3",
            "illegal",
            "the piece on g1 is your knight, not a bishop",
        ),
        (
            START,
            "en",
            "Nxf3",
            "illegal",
            "there is nothing to capture on f3",
        ),
        (
            START,
            "en",
            "Nf3=Q",
            "illegal",
            "only a pawn reaching the last rank promotes",
        ),
        (
            START,
            "en",
            "O-O",
            "illegal",
            "f1 between king and rook is not empty",
        ),
        (
            START,
            "de",
            "Lc4",
            "illegal",
            "none of your bishops can reach c4",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "en",
            "Qd4",
            "illegal",
            "you have no queen",
        ),
        (
            OPEN,
            "en",
            "Nbd4",
            "illegal",
            "the knight on b1 cannot reach d4",
        ),
        (
            OPEN,
            "en",
            "Nbd2",
            "illegal",
            "d2 is taken by your own pawn",
        ),
        (
            OPEN,
            "en",
            "Ncd4",
            "illegal",
            "you have no knight on the c-file",
        ),
        (
            "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
            "en",
            "Nf3",
            "illegal",
            "the knight on d2 is pinned: moving it would expose your king to the bishop on b4",
        ),
        (
            "4k3/8/8/8/8/8/3P4/r3K3 w - - 0 1",
            "en",
            "d3",
            "illegal",
            "your king is in check from the rook on a1, and this move does not end the check",
        ),
        (
            "4k3/8/8/8/8/8/3P4/r3K3 w - - 0 1",
            "en",
            "Kd1",
            "illegal",
            "your king would be in check on d1",
        ),
        (
            "4k3/8/8/8/8/8/5r2/4K3 w - - 0 1",
            "en",
            "Kf1",
            "illegal",
            "your king would be in check on f1",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
            "en",
            "O-O",
            "illegal",
            "not allowed any more: the king or that rook has moved earlier",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R4K1R w kq - 0 1",
            "en",
            "O-O-O",
            "illegal",
            "because your king has moved",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K3 w Qkq - 0 1",
            "en",
            "0-0",
            "illegal",
            "the rook on h1 has moved",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3KB1R w KQkq - 0 1",
            "en",
            "O-O",
            "illegal",
            "f1 between king and rook is not empty",
        ),
        (
            "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",
            "en",
            "O-O",
            "illegal",
            "your king would pass f1, which the rook on f2 attacks",
        ),
        (
            "r3k2r/8/8/8/8/8/6r1/R3K2R w KQkq - 0 1",
            "en",
            "e1g1",
            "illegal",
            "your king would be in check on g1",
        ),
        (
            "4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "en",
            "O-O",
            "illegal",
            "not allowed while your king is in check (from the rook on e8)",
        ),
        (
            PROMOTE,
            "en",
            "e8",
            "illegal",
            "a pawn reaching e8 must promote: write e8=Q",
        ),
        (PROMOTE, "en", "e7e8", "illegal", "must promote"),
        (
            PROMOTE,
            "en",
            "e8=K",
            "illegal",
            "a pawn cannot promote to a king",
        ),
        (
            START,
            "en",
            "3. e4",
            "illegal",
            "the move number \"3.\" does not fit: this is move 1.",
        ),
        (START, "en", "1... e5", "illegal", "this is move 1."),
        (BLACK_FIRST, "en", "2...e5", "illegal", "this is move 1..."),
        (
            "4k3/8/8/8/8/8/8/N1N1K3 w - - 0 1",
            "en",
            "Nb3",
            "ambiguous",
            "could be more than one move: Nab3 (knight a1 to b3) or Ncb3 (knight c1 to b3)",
        ),
        (
            "4k3/8/8/8/8/8/8/5KR1 w - - 0 1",
            "en",
            "Kg1",
            "illegal",
            "g1 is taken by your own rook",
        ),
        (
            "r3k2r/8/8/8/8/8/6r1/R3K2R w KQkq - 0 1",
            "en",
            "Kxh1",
            "illegal",
            "your king would be in check on g1",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
            "en",
            "e1h1",
            "illegal",
            "the king or that rook has moved",
        ),
        // In capitals the text is no SAN (caps lock, a phone): both readings are asked about.
        (
            BC4,
            "en",
            "BXC4",
            "ambiguous",
            "Bxc4 (bishop f1 to c4) or bxc4 (pawn b3 to c4)",
        ),
        // Letters that mean one piece in the player's language and another in English.
        (
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            "fr",
            "Rd1",
            "ambiguous",
            "Ke1-d1 (king e1 to d1) or Td1 (rook a1 to d1)",
        ),
        (
            "4k3/8/8/8/8/5B2/8/R3K3 w - - 0 1",
            "hu",
            "Bd1",
            "ambiguous",
            "Ra1-d1 (rook a1 to d1) or Fd1 (bishop f3 to d1)",
        ),
        (
            "4k3/8/8/8/8/8/8/4KRN1 w - - 0 1",
            "fi",
            "Rf3",
            "ambiguous",
            "Ng1-f3 (knight g1 to f3) or Tf3 (rook f1 to f3)",
        ),
        (
            PROMOTE,
            "hu",
            "e8=B",
            "ambiguous",
            "e7-e8=R (pawn e7 to e8, promoting to a rook) or e8=F (pawn e7 to e8, promoting to a bishop)",
        ),
        (
            START,
            "en",
            "hello",
            "unreadable",
            "could not read \"hello\" as a move",
        ),
        (
            START,
            "en",
            "Nf9",
            "unreadable",
            "write it like Nf3, exd5, O-O, e2-e4, 5254",
        ),
        (
            START,
            "sl",
            "Xf3",
            "unreadable",
            "write it like Sf3, Nf3, exd5",
        ),
        (START, "en", "5294", "unreadable", "(read \"5294\")"),
        (START, "en", "", "unreadable", "could not read"),
        (
            START,
            "en",
            "e2-e4 please play",
            "unreadable",
            "read \"e2e4pleaseplay\"",
        ),
    ];
    for (fen, code, text, kind, words) in table {
        let pos = position(fen);
        let err = match parse_move(&pos, text, lang(code), mode_of(fen)) {
            Ok(m) => panic!("{code} {text:?} in {fen} read as {m:?}"),
            Err(e) => e,
        };
        let message = err.to_string();
        assert_eq!(err.kind(), kind, "{code} {text:?}: {message}");
        assert!(message.contains(words), "{code} {text:?}: {message}");
    }
}

#[test]
fn ambiguous_answers_list_every_candidate_in_a_form_the_player_can_send_back() {
    // (position, language, text, candidates as (English SAN, UCI, written))
    type Shown<'a> = &'a [(&'a str, &'a str, &'a str)];
    let table: [(&str, &str, &str, Shown); 3] = [
        (
            "4k3/8/8/8/8/8/8/N1N1K3 w - - 0 1",
            "en",
            "Nb3",
            &[("Nab3", "a1b3", "Nab3"), ("Ncb3", "c1b3", "Ncb3")],
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            "es",
            "Rd1",
            &[("Kd1", "e1d1", "Ke1-d1"), ("Rd1", "a1d1", "Td1")],
        ),
        (
            "8/8/8/8/8/8/1p5k/4K3 b - - 0 1",
            "fi",
            "b1=R",
            &[("b1=N", "b2b1n", "b2-b1=N"), ("b1=R+", "b2b1r", "b1=T+")],
        ),
    ];
    for (fen, code, text, want) in table {
        let pos = position(fen);
        let err = parse_move(&pos, text, lang(code), mode_of(fen));
        let Err(MoveTextError::Ambiguous { candidates, .. }) = err else {
            panic!("{text}: {err:?}");
        };
        let shown: Vec<(&str, &str, &str)> = candidates
            .iter()
            .map(|c| (c.san.as_str(), c.uci.as_str(), c.written.as_str()))
            .collect();
        assert_eq!(shown, want, "{text}");
        for c in &candidates {
            let back = parse_move(&pos, &c.written, lang(code), mode_of(fen));
            assert_eq!(
                back.map(|m| render(&pos, &m, Notation::Uci, mode_of(fen))),
                Ok(c.uci.clone())
            );
        }
    }
}

/// A position where a white pawn on `file` and a white `role` can both
/// take a black knight on the next file's fourth rank, with the two moves;
/// the first such position trying every square for the piece.
fn pawn_and_piece_take(file: File, role: Role) -> Option<(Chess, Move, Move)> {
    use shakmaty::{Color, Piece};
    let x = file.to_u32();
    let target_file = File::new(if x < 7 { x + 1 } else { x - 1 });
    let target = Square::from_coords(target_file, Rank::Fourth);
    let pawn_from = Square::from_coords(file, Rank::Third);
    let piece = |role| Piece {
        color: Color::White,
        role,
    };
    for from in Square::ALL {
        let kings: &[Square] = if role == Role::King {
            &[from]
        } else {
            &[Square::A1, Square::H1]
        };
        for (&white_king, black_king) in kings
            .iter()
            .flat_map(|k| [(k, Square::A8), (k, Square::H8)])
        {
            let mut taken = vec![from, black_king, target, pawn_from];
            if role != Role::King {
                taken.push(white_king);
            }
            let distinct = taken
                .iter()
                .enumerate()
                .all(|(i, a)| taken.iter().skip(i + 1).all(|b| a != b));
            if !distinct {
                continue;
            }
            let mut board = Board::empty();
            board.set_piece_at(from, piece(role));
            board.set_piece_at(white_king, piece(Role::King));
            board.set_piece_at(pawn_from, piece(Role::Pawn));
            board.set_piece_at(
                black_king,
                Piece {
                    color: Color::Black,
                    role: Role::King,
                },
            );
            board.set_piece_at(
                target,
                Piece {
                    color: Color::Black,
                    role: Role::Knight,
                },
            );
            let setup = Setup {
                board,
                ..Setup::empty()
            };
            let Ok(pos) = setup.position::<Chess>(CastlingMode::Standard) else {
                continue;
            };
            let legal = pos.legal_moves();
            let find = |r: Role, f: Square| {
                legal
                    .iter()
                    .find(|m| m.role() == r && m.from() == Some(f) && m.to() == target)
                    .copied()
            };
            if let (Some(pawn), Some(other)) = (find(Role::Pawn, pawn_from), find(role, from)) {
                return Some((pos, pawn, other));
            }
        }
    }
    None
}

#[test]
fn a_lower_case_file_letter_is_a_pawn_and_a_piece_only_where_no_pawn_can_mean_it() {
    // The lower-case letters that are both a file and a piece letter for a
    // player of each language (their own letters or English ones).
    let table = [
        (Lang::En, "b"),
        (Lang::Sl, "bd"),
        (Lang::Pl, "bgh"),
        (Lang::Lv, "bd"),
        (Lang::De, "bd"),
        (Lang::Cs, "bd"),
        (Lang::Sk, "bd"),
        (Lang::Hr, "bd"),
        (Lang::Sr, "bd"),
        (Lang::Nl, "bd"),
        (Lang::Fr, "bcdf"),
        (Lang::Es, "abcd"),
        (Lang::It, "abcd"),
        (Lang::Pt, "bcd"),
        (Lang::Ro, "bcd"),
        (Lang::Sv, "bd"),
        (Lang::Da, "bd"),
        (Lang::No, "bd"),
        (Lang::Fi, "bd"),
        (Lang::Et, "b"),
        (Lang::Lt, "b"),
        (Lang::Hu, "bfh"),
        (Lang::Is, "bdh"),
    ];
    assert_eq!(table.len(), Lang::ALL.len());
    for (lang, letters_clashing) in table {
        let clashing: String = ('a'..='h')
            .filter(|c| {
                letters::roles_for(lang, *c)
                    .iter()
                    .any(|r| *r != Role::Pawn)
            })
            .collect();
        assert_eq!(clashing, letters_clashing, "{lang}");
        for c in clashing.chars() {
            let Some(file) = File::from_char(c) else {
                panic!("{c} is a file");
            };
            for role in letters::roles_for(lang, c) {
                if role == Role::Pawn {
                    continue;
                }
                let Some((pos, pawn, piece)) = pawn_and_piece_take(file, role) else {
                    panic!("no position for {c} {role:?}");
                };
                let to = pawn.to();
                for text in [format!("{c}x{to}"), format!("{c}{to}"), format!("{c}:{to}")] {
                    let got = parse_move(&pos, &text, lang, CastlingMode::Standard);
                    assert_eq!(got, Ok(pawn), "{lang} {text} in {}", fen(&pos));
                }
                // Without the pawn, the lower-case letter is the piece.
                let mut setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
                setup.board.discard_piece_at(pawn_from(&pawn));
                let Ok(alone) = setup.position::<Chess>(CastlingMode::Standard) else {
                    panic!("{lang} {c}: position without the pawn");
                };
                for text in [format!("{c}x{to}"), format!("{c}{to}")] {
                    let got = parse_move(&alone, &text, lang, CastlingMode::Standard);
                    assert_eq!(got, Ok(piece), "{lang} {text} in {}", fen(&alone));
                }
            }
        }
    }
}

#[test]
fn every_san_python_chess_writes_reads_back_as_its_move_in_every_language() {
    // Positions from random games with every legal move as python-chess
    // writes it (tests/fixtures/san/generate.py): an independent SAN writer.
    let fixture = include_str!("../../../../tests/fixtures/san/python_chess.tsv");
    let mut checked = 0;
    let mut pawn_beside_piece = 0;
    for line in fixture.lines().filter(|l| !l.starts_with('#')) {
        let [fen, sans, ucis] = line.split('\t').collect::<Vec<_>>()[..] else {
            panic!("a fixture line has three fields: {line}");
        };
        let pos = position(fen);
        for (san, uci) in sans.split(' ').zip(ucis.split(' ')) {
            let want = uci_move(&pos, uci);
            assert_eq!(
                parse_move(&pos, san, Lang::En, CastlingMode::Standard),
                Ok(want),
                "{san} in {fen}"
            );
            for lang in Lang::ALL {
                match parse_move(&pos, san, lang, CastlingMode::Standard) {
                    Ok(got) => assert_eq!(got, want, "{lang} {san} in {fen}"),
                    // Hungarian B (rook) beside the English bishop, and the like.
                    Err(MoveTextError::Ambiguous { candidates, .. }) => {
                        assert!(letter_clash(san, lang), "{lang} {san} in {fen}");
                        assert!(candidates.iter().any(|c| c.uci == uci), "{lang} {san}");
                    }
                    Err(e) => panic!("{lang} {san} in {fen}: {e}"),
                }
            }
            checked += 1;
            // `bxc4` where a bishop can take on c4 too: English's own clash.
            let bishop_too = pos
                .legal_moves()
                .iter()
                .any(|m| m.role() == Role::Bishop && m.to() == want.to());
            if want.role() == Role::Pawn && san.starts_with("bx") && bishop_too {
                pawn_beside_piece += 1;
            }
        }
    }
    assert!(checked > 4000, "{checked} moves checked");
    assert!(
        pawn_beside_piece >= 10,
        "{pawn_beside_piece} bxc4 beside Bxc4"
    );
}

fn pawn_from(m: &Move) -> Square {
    m.from()
        .unwrap_or_else(|| panic!("{m:?} has a from square"))
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

#[test]
fn moves_are_written_in_every_notation() {
    use Notation::*;
    // (position, move in UCI, notation, castling mode, text)
    let table = [
        (START, "g1f3", San(Lang::En), "Nf3"),
        (START, "g1f3", San(Lang::De), "Sf3"),
        (START, "g1f3", San(Lang::Cs), "Jf3"),
        (START, "g1f3", San(Lang::Lt), "Žf3"),
        (START, "g1f3", San(Lang::Fr), "Cf3"),
        (START, "g1f3", Figurine, "♘f3"),
        (START, "g1f3", Long, "Ng1-f3"),
        (START, "g1f3", Uci, "g1f3"),
        (START, "g1f3", Iccf, "7163"),
        (START, "e2e4", San(Lang::Hu), "e4"),
        (START, "e2e4", Long, "e2-e4"),
        (START, "e2e4", Iccf, "5254"),
        (CASTLE, "e1g1", San(Lang::En), "O-O"),
        (CASTLE, "e1g1", San(Lang::Nl), "O-O"),
        (CASTLE, "e1c1", Long, "O-O-O"),
        (CASTLE, "e1g1", Uci, "e1g1"),
        (CASTLE, "e1g1", Iccf, "5171"),
        (CASTLE, "e1c1", Iccf, "5131"),
        (CASTLE, "a1a8", San(Lang::En), "Rxa8+"),
        (CASTLE, "a1a8", San(Lang::Pl), "Wxa8+"),
        (CASTLE, "a1a8", Long, "Ra1xa8+"),
        (PROMOTE, "e7e8q", San(Lang::En), "e8=Q"),
        (PROMOTE, "e7e8q", San(Lang::De), "e8=D"),
        (PROMOTE, "e7e8q", San(Lang::Hu), "e8=V"),
        (PROMOTE, "e7e8q", Figurine, "e8=♕"),
        (PROMOTE, "e7e8n", Long, "e7-e8=N"),
        (PROMOTE, "e7e8q", Uci, "e7e8q"),
        (PROMOTE, "e7e8q", Iccf, "57581"),
        (PROMOTE, "e7e8r", Iccf, "57582"),
        (PROMOTE, "e7e8b", Iccf, "57583"),
        (PROMOTE, "e7e8n", Iccf, "57584"),
        (EN_PASSANT, "e5f6", San(Lang::En), "exf6"),
        (EN_PASSANT, "e5f6", Long, "e5xf6"),
        (EN_PASSANT, "e5f6", Iccf, "5566"),
        (MATE_IN_ONE, "h5f7", San(Lang::En), "Qxf7#"),
        (MATE_IN_ONE, "h5f7", San(Lang::Fr), "Dxf7#"),
        (MATE_IN_ONE, "h5f7", San(Lang::Hu), "Vxf7#"),
        (MATE_IN_ONE, "h5f7", Figurine, "♕xf7#"),
        (MATE_IN_ONE, "h5f7", Long, "Qh5xf7#"),
        (C960, "b1h1", San(Lang::En), "O-O"),
        (C960, "b1h1", Uci, "b1h1"),
        (C960, "b1h1", Iccf, "2171"),
        (C960, "b1a1", San(Lang::En), "O-O-O+"),
        (C960, "b1a1", Iccf, "2111"),
        (C960, "b1a1", Long, "O-O-O+"),
    ];
    for (fen, uci, notation, text) in table {
        let pos = position(fen);
        let mv = uci_move(&pos, uci);
        assert_eq!(
            render(&pos, &mv, notation, mode_of(fen)),
            text,
            "{uci} {notation:?}"
        );
    }
}

#[test]
fn standard_castling_is_written_for_the_chosen_uci_mode() {
    let pos = position(CASTLE);
    let mv = uci_move(&pos, "e1g1");
    assert_eq!(
        render(&pos, &mv, Notation::Uci, CastlingMode::Chess960),
        "e1h1"
    );
    assert_eq!(
        render(&pos, &mv, Notation::Uci, CastlingMode::Standard),
        "e1g1"
    );
}

#[test]
fn an_illegal_move_is_written_without_panicking() {
    let pos = position(START);
    let mv = Move::Normal {
        role: Role::Queen,
        from: Square::D1,
        capture: None,
        to: Square::D5,
        promotion: None,
    };
    assert_eq!(
        render(&pos, &mv, Notation::San(Lang::En), CastlingMode::Standard),
        "Qd1-d5"
    );
}

#[test]
fn perft_agrees_with_the_published_suites() {
    // chessprogramming.org "Perft Results" positions 1-6 and the first
    // position of its "Chess960 Perft Results"; depths that take about a
    // second in a debug build.
    let table: [(&str, &[u64]); 7] = [
        (START, &[20, 400, 8902, 197_281]),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            &[48, 2039, 97_862],
        ),
        (
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            &[14, 191, 2812, 43_238],
        ),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            &[6, 264, 9467],
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            &[44, 1486, 62_379],
        ),
        (
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            &[46, 2079, 89_890],
        ),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            &[21, 528, 12_189],
        ),
    ];
    for (fen, counts) in table {
        let pos = position(fen);
        for (depth, want) in (1..).zip(counts) {
            assert_eq!(perft(&pos, depth), *want, "depth {depth} of {fen}");
        }
    }
}

/// A start position: the standard one, or Chess960 number `n` with every
/// rook's castling right.
fn start(chess960: Option<u32>) -> (Chess, CastlingMode) {
    match chess960 {
        None => (Chess::default(), CastlingMode::Standard),
        Some(n) => {
            let board = Board::chess960(n);
            let backranks = Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth);
            let setup = Setup {
                castling_rights: board.rooks() & backranks,
                board,
                ..Setup::initial()
            };
            let pos = setup
                .position(CastlingMode::Chess960)
                .unwrap_or_else(|e| panic!("960 #{n}: {e}"));
            (pos, CastlingMode::Chess960)
        }
    }
}

fn play_out(mut pos: Chess, choices: &[u16]) -> Chess {
    for choice in choices {
        let legal = pos.legal_moves();
        let Some(m) = legal
            .get(usize::from(*choice) % legal.len().max(1))
            .copied()
        else {
            break;
        };
        pos.play_unchecked(m);
    }
    pos
}

/// Whether some piece letter of a text means two pieces for a player of
/// `lang` (their language's and English), so that "ambiguous" is a right
/// answer. A lower-case file letter is no clash: it is the pawn's file.
fn letter_clash(text: &str, lang: Lang) -> bool {
    text.chars().any(|c| letters::roles_for(lang, c).len() > 1)
}

fn game() -> impl Strategy<Value = (Chess, CastlingMode)> {
    (
        prop::option::of(0u32..960),
        prop::collection::vec(any::<u16>(), 0..80),
    )
        .prop_map(|(n, choices)| {
            let (pos, mode) = start(n);
            (play_out(pos, &choices), mode)
        })
}

proptest! {
    // 96 cases keep the debug suite quick; PROPTEST_CASES=5000 for a deep run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(96),
        ..ProptestConfig::default()
    })]

    /// Every legal move written in every notation reads back as itself.
    /// ICCF always, in every language; English forms (standard SAN
    /// included, `bxc4` beside a bishop that can take on c4 too) for an
    /// English reader always. Other readers may find a text ambiguous only
    /// where one of its piece letters has two meanings for them (French `R`
    /// king or rook, Finnish `R` knight or rook): then the move must be
    /// among the candidates, and each candidate's written form must read
    /// back as that candidate alone.
    #[test]
    fn every_legal_move_reads_back_from_every_notation((pos, mode) in game()) {
        for mv in pos.legal_moves() {
            let iccf = render(&pos, &mv, Notation::Iccf, mode);
            for lang in Lang::ALL {
                prop_assert_eq!(parse_move(&pos, &iccf, lang, mode), Ok(mv), "{} {}", iccf, lang);
            }
            for notation in [Notation::Long, Notation::Uci, Notation::Figurine, Notation::San(Lang::En)] {
                let text = render(&pos, &mv, notation, mode);
                prop_assert_eq!(parse_move(&pos, &text, Lang::En, mode), Ok(mv), "{}", text);
            }
            let uci = render(&pos, &mv, Notation::Uci, mode);
            let english = [Notation::Long, Notation::Uci, Notation::Figurine]
                .into_iter()
                .map(|n| render(&pos, &mv, n, mode));
            let forms = Lang::ALL
                .into_iter()
                .map(|l| (render(&pos, &mv, Notation::San(l), mode), l))
                .chain(english.flat_map(|t| Lang::ALL.map(|l| (t.clone(), l))));
            for (text, lang) in forms {
                match parse_move(&pos, &text, lang, mode) {
                    Ok(got) => prop_assert_eq!(got, mv, "{} {}", text, lang),
                    Err(MoveTextError::Ambiguous { candidates, .. }) => {
                        prop_assert!(letter_clash(&text, lang), "{} {} ambiguous without a letter clash", text, lang);
                        prop_assert!(candidates.iter().any(|c| c.uci == uci), "{} {} lacks {}", text, lang, uci);
                        for c in &candidates {
                            let back = parse_move(&pos, &c.written, lang, mode).map(|m| render(&pos, &m, Notation::Uci, mode));
                            prop_assert_eq!(back, Ok(c.uci.clone()), "{} {} candidate {}", text, lang, c.written);
                        }
                    }
                    Err(e) => prop_assert!(false, "{} {}: {}", text, lang, e),
                }
            }
        }
    }

    /// Any text at all gets an answer, never a panic, and a move read is legal.
    #[test]
    fn any_text_gets_an_answer_without_panicking(
        (pos, mode) in game(),
        text in prop_oneof![
            any::<String>(),
            prop::collection::vec(any::<u8>(), 0..40).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
            "[0-9a-hA-Z♔♕♖♗♘♙♚♛♜♝♞♟ŽžoO=xX:+#!?.…() -]{0,14}",
        ],
        lang in prop::sample::select(Lang::ALL.to_vec()),
    ) {
        if let Ok(mv) = parse_move(&pos, &text, lang, mode) {
            prop_assert!(pos.is_legal(mv));
        }
    }
}

#[test]
fn a_written_move_number_is_told_apart_from_none_and_from_a_wrong_one() {
    for (fen, text, fits) in [
        (OPEN, "3. Bb5", Some(true)),
        (OPEN, "3.Bb5", Some(true)),
        (OPEN, "Bb5", None),
        (OPEN, "5254", None),
        (OPEN, "2. Bb5", Some(false)),
        (OPEN, "3... Bb5", Some(false)),
        (BLACK_FIRST, "1... e5", Some(true)),
        // Players often write Black's move as `1. e5`: it fits, as `read` takes it.
        (BLACK_FIRST, "1. e5", Some(true)),
        (BLACK_FIRST, "2... e5", Some(false)),
    ] {
        assert_eq!(move_number_fits(&position(fen), text), fits, "{fen} {text}");
    }
}
