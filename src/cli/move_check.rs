//! `dopis move`: check a move text against a position, as a TD checking a
//! disputed move would, or in bulk (`--batch`) to test the parser.

use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

use shakmaty::{CastlingMode, Chess, fen::Fen};

use crate::domain::chess::notation::{self, LegalMoves, MoveTextError, Notation};
use crate::domain::lang::Lang;

/// How to write a FEN, shown when one cannot be read.
const FEN_EXAMPLE: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

/// Arguments of `dopis move`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MoveArgs {
    /// The position, as FEN (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// The player's language (ISO 639-1 code); its piece letters are read
    /// together with English ones.
    #[arg(long, default_value = "en")]
    pub lang: String,
    /// Chess960: read castling rights from the FEN as Chess960 (X-FEN or
    /// Shredder-FEN) and write castling in UCI as king-takes-rook.
    #[arg(long)]
    pub chess960: bool,
    /// Read lines `FEN<TAB>LANG<TAB>TEXT` from stdin and answer one line each.
    #[arg(long)]
    pub batch: bool,
    /// The move text, e.g. `Nf3`, `12... Sf6`, `e2-e4`, `5254` (required
    /// without --batch; several words are joined with spaces).
    pub text: Vec<String>,
}

/// A bad argument: said on stderr, exit code 2.
struct Usage(String);

/// Runs `dopis move`: exit 0 for a legal move (or a finished batch), 1 for a
/// move text that is not a legal move, 2 for bad arguments.
pub fn run(
    args: &MoveArgs,
    stdin: &mut dyn BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> ExitCode {
    let done = if args.batch {
        batch(args, stdin, out)
    } else {
        single(args, out, err)
    };
    match done {
        Ok(code) => code,
        Err(Failure::Usage(Usage(message))) => {
            // Nothing more can be said if stderr itself is gone.
            let _ = writeln!(err, "dopis move: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Io(e)) => {
            let _ = writeln!(err, "dopis move: {e}");
            ExitCode::FAILURE
        }
    }
}

enum Failure {
    Usage(Usage),
    Io(std::io::Error),
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Io(e)
    }
}

impl From<Usage> for Failure {
    fn from(u: Usage) -> Self {
        Failure::Usage(u)
    }
}

fn single(args: &MoveArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitCode, Failure> {
    if args.text.is_empty() {
        return Err(Usage(
            "give the move text, e.g. `dopis move --fen FEN Nf3`, or use --batch".to_string(),
        )
        .into());
    }
    let lang = language(&args.lang)?;
    let (pos, mode) = position(args.fen.as_deref(), args.chess960)?;
    match check(&pos, &args.text.join(" "), lang, mode) {
        Ok((uci, san)) => {
            writeln!(out, "{uci} {san}")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            writeln!(err, "{}: {e}", e.kind())?;
            Ok(ExitCode::FAILURE)
        }
    }
}

fn batch(
    args: &MoveArgs,
    stdin: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    // One write for many answers: stdout writes each line through by
    // itself, a system call per line.
    let mut out = BufWriter::with_capacity(64 * 1024, out);
    let mut last = LastPosition::default();
    let mut raw = Vec::new();
    loop {
        raw.clear();
        if stdin.read_until(b'\n', &mut raw)? == 0 {
            break;
        }
        // A bad byte spoils one line, not the batch.
        let line = String::from_utf8_lossy(&raw);
        let line = line.trim_end_matches(['\n', '\r']);
        answer(line, args.chess960, &mut last, &mut out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The position of the batch's last FEN: lines that check moves in one
/// position one after another (every move of a game's position, say)
/// read it and generate its moves once.
#[derive(Default)]
struct LastPosition {
    fen: String,
    position: Option<Result<(LegalMoves, CastlingMode), Usage>>,
}

impl LastPosition {
    fn of(&mut self, fen: &str, chess960: bool) -> &Result<(LegalMoves, CastlingMode), Usage> {
        if self.position.is_none() || self.fen != fen {
            self.fen.clear();
            self.fen.push_str(fen);
            self.position = None;
        }
        self.position.get_or_insert_with(|| {
            position(Some(fen), chess960).map(|(pos, mode)| (LegalMoves::of(pos), mode))
        })
    }
}

/// Writes the answer line for one batch line `FEN<TAB>LANG<TAB>TEXT`.
fn answer(
    line: &str,
    chess960: bool,
    last: &mut LastPosition,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut fields = line.splitn(3, '\t');
    let (Some(fen), Some(lang), Some(text)) = (fields.next(), fields.next(), fields.next()) else {
        let found = line.splitn(3, '\t').count();
        return writeln!(
            out,
            "error\texpected FEN<TAB>LANG<TAB>TEXT, found {found} field(s)"
        );
    };
    let lang = if lang.trim().is_empty() { "en" } else { lang };
    let lang = match language(lang) {
        Ok(lang) => lang,
        Err(Usage(message)) => return writeln!(out, "error\t{}", one_line(&message)),
    };
    let (moves, mode) = match last.of(fen, chess960) {
        Ok(found) => found,
        Err(Usage(message)) => return writeln!(out, "error\t{}", one_line(message)),
    };
    match moves.parse_move(text, lang, *mode) {
        Ok(mv) => writeln!(
            out,
            "ok\t{}\t{}",
            moves.render(&mv, Notation::Uci, *mode),
            moves.render(&mv, Notation::San(Lang::En), *mode)
        ),
        Err(e) => writeln!(out, "{}\t{}", e.kind(), one_line(&e.to_string())),
    }
}

fn one_line(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

fn check(
    pos: &Chess,
    text: &str,
    lang: Lang,
    mode: CastlingMode,
) -> Result<(String, String), MoveTextError> {
    let mv = notation::parse_move(pos, text, lang, mode)?;
    Ok((
        notation::render(pos, &mv, Notation::Uci, mode),
        notation::render(pos, &mv, Notation::San(Lang::En), mode),
    ))
}

fn language(code: &str) -> Result<Lang, Usage> {
    code.parse::<Lang>()
        .map_err(|e| Usage(format!("{e} (as in --lang sl)")))
}

/// The position of a FEN (or the start position). Chess960 castling is
/// used when asked for, or when the FEN's castling rights need it.
fn position(fen: Option<&str>, chess960: bool) -> Result<(Chess, CastlingMode), Usage> {
    let Some(fen) = fen.map(str::trim) else {
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        return Ok((Chess::default(), mode));
    };
    let bad = |why: String| {
        Usage(format!(
            "cannot read the FEN \"{fen}\": {why}; write it like \"{FEN_EXAMPLE}\""
        ))
    };
    let parsed: Fen = fen.parse().map_err(|e| bad(format!("{e}")))?;
    let setup = parsed.into_setup();
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::detect(&setup)
    };
    let pos = setup.position(mode).map_err(|e| bad(format!("{e}")))?;
    Ok((pos, mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(fen: Option<&str>, lang: &str, text: &str) -> MoveArgs {
        MoveArgs {
            fen: fen.map(String::from),
            lang: lang.to_string(),
            chess960: false,
            batch: false,
            text: text.split_whitespace().map(String::from).collect(),
        }
    }

    fn run_with(args: &MoveArgs, stdin: &str) -> (ExitCode, String, String) {
        let mut out = Vec::new();
        let mut err = Vec::new();
        let code = run(args, &mut stdin.as_bytes(), &mut out, &mut err);
        (
            code,
            String::from_utf8_lossy(&out).into_owned(),
            String::from_utf8_lossy(&err).into_owned(),
        )
    }

    #[test]
    fn each_kind_of_text_gets_its_exit_code_and_message() {
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        // (fen, lang, text, exit code, stdout, words on stderr)
        let table = [
            (None, "en", "Nf3", ExitCode::SUCCESS, "g1f3 Nf3\n", ""),
            (None, "sl", "Sf3", ExitCode::SUCCESS, "g1f3 Nf3\n", ""),
            (
                Some(after_e4),
                "pl",
                "1... Sf6",
                ExitCode::SUCCESS,
                "g8f6 Nf6\n",
                "",
            ),
            (None, "en", "5254", ExitCode::SUCCESS, "e2e4 e4\n", ""),
            (
                None,
                "en",
                "Nf4",
                ExitCode::FAILURE,
                "",
                "illegal: \"Nf4\" cannot be played",
            ),
            (None, "fr", "Rf3", ExitCode::FAILURE, "", "illegal:"),
            (
                None,
                "en",
                "gibberish",
                ExitCode::FAILURE,
                "",
                "unreadable: could not read",
            ),
            (None, "en", "", ExitCode::from(2), "", "give the move text"),
            (
                None,
                "xx",
                "Nf3",
                ExitCode::from(2),
                "",
                "unknown language 'xx'",
            ),
            (
                Some("8/8/8 w"),
                "en",
                "Nf3",
                ExitCode::from(2),
                "",
                "write it like \"rnbqkbnr/",
            ),
        ];
        for (fen, lang, text, code, stdout, words) in table {
            let (got, out, err) = run_with(&args(fen, lang, text), "");
            assert_eq!((got, out.as_str()), (code, stdout), "{text}: {err}");
            assert!(err.contains(words), "{text}: {err}");
        }
    }

    #[test]
    fn a_chess960_fen_is_read_with_its_castling() {
        let fen = "r2k3r/8/8/8/8/8/8/RK5R w HAha - 0 1";
        for (chess960, text) in [(false, "O-O"), (true, "O-O"), (true, "b1h1")] {
            let mut a = args(Some(fen), "en", text);
            a.chess960 = chess960;
            let (code, out, err) = run_with(&a, "");
            assert_eq!(
                (code, out.as_str()),
                (ExitCode::SUCCESS, "b1h1 O-O\n"),
                "{err}"
            );
        }
    }

    #[test]
    fn batch_answers_every_line_even_the_broken_ones() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let input = format!(
            "{start}\ten\tNf3\n{start}\tde\tSf3\n{start}\ten\tNf4\n\
             4k3/8/8/8/8/8/8/N1N1K3 w - - 0 1\ten\tNb3\n{start}\ten\tblah\n\
             {start}\tNf3\n\nnot a fen\ten\te4\n{start}\tqq\te4\n{start}\t\te4\r\n"
        );
        let mut a = args(None, "en", "");
        a.batch = true;
        let (code, out, err) = run_with(&a, &input);
        let lines: Vec<&str> = out.lines().collect();
        let want_starts = [
            "ok\tg1f3\tNf3",
            "ok\tg1f3\tNf3",
            "illegal\t\"Nf4\" cannot be played: none of your knights can reach f4",
            "ambiguous\t\"Nb3\" could be more than one move",
            "unreadable\tcould not read \"blah\"",
            "error\texpected FEN<TAB>LANG<TAB>TEXT, found 2 field(s)",
            "error\texpected FEN<TAB>LANG<TAB>TEXT, found 1 field(s)",
            "error\tcannot read the FEN \"not a fen\"",
            "error\tunknown language 'qq'",
            "ok\te2e4\te4",
        ];
        assert_eq!(code, ExitCode::SUCCESS, "{err}");
        assert_eq!(lines.len(), want_starts.len(), "{out}");
        for (line, want) in lines.iter().zip(want_starts) {
            assert!(
                line.starts_with(want),
                "{line:?} should start with {want:?}"
            );
        }
    }

    #[test]
    fn batch_survives_bytes_that_are_not_utf8() {
        let mut a = args(None, "en", "");
        a.batch = true;
        let mut out = Vec::new();
        let mut err = Vec::new();
        let input: &[u8] =
            b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\ten\t\xff\xfe\n";
        let code = run(&a, &mut &input[..], &mut out, &mut err);
        assert_eq!(code, ExitCode::SUCCESS);
        assert!(String::from_utf8_lossy(&out).starts_with("unreadable\t"));
    }
}
