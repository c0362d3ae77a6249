//! The Syzygy endgame tables a club supplies, read with `shakmaty-syzygy`
//! (by shakmaty's author, for shakmaty): an adapter behind the core's
//! [`Tables`].
//!
//! Chosen and why: the crate is the Rust port of the reference probing code
//! (as python-chess's and Fathom's), and the one made for the shakmaty
//! positions the rules core already keeps. Its known quirk is Syzygy's own,
//! by design: some DTZ values are stored to within one ply where that cannot
//! change the result (lichess-org/lila#5953); [`Dtz::rounded`] carries it,
//! and the 50-move rule's verdict near its line is left open rather than
//! guessed (see [`crate::domain::chess::tablebase::Reading::result`]). Files are read
//! with positioned reads, not memory maps, so a file truncated or replaced
//! while the daemon runs gives an error, not a SIGBUS.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position, Role, Square};
use shakmaty_syzygy::{AmbiguousWdl, MaybeRounded, SyzygyError, Tablebase, Wdl as SWdl};

use crate::domain::chess::tablebase::{
    Dtz, MoveReading, Reading, Tables, Unread, Wdl, Wdl50, pieces,
};

/// Why the tables named in the config cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TablebaseError {
    /// A folder that does not exist.
    #[error(
        "[tablebase] syzygy_path: {0} does not exist; point it at a folder holding Syzygy .rtbw/.rtbz files, or remove it"
    )]
    Missing(PathBuf),
    /// A path that is a file, not a folder.
    #[error(
        "[tablebase] syzygy_path: {0} is not a folder; name the folder the .rtbw/.rtbz files are in"
    )]
    NotAFolder(PathBuf),
    /// A folder that cannot be listed.
    #[error("[tablebase] syzygy_path: {path} cannot be read ({error}); check its permissions")]
    Unreadable {
        /// The folder.
        path: PathBuf,
        /// What the system said.
        error: String,
    },
    /// No usable table in any folder.
    #[error(
        "[tablebase] syzygy_path: no usable Syzygy table in {}; the files are named like KRvK.rtbw (WDL) and KRvK.rtbz (DTZ){}",
        folders.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "),
        if left_out.is_empty() { String::new() } else { format!("; left out: {}", left_out.join("; ")) }
    )]
    NoTables {
        /// The folders looked in.
        folders: Vec<PathBuf>,
        /// The files found but not usable, with why.
        left_out: Vec<String>,
    },
}

/// What was found in the folders: for `dopis doctor` and the log.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Inventory {
    /// The folders looked in.
    pub folders: Vec<PathBuf>,
    /// Usable tables by the number of men they hold: (WDL files, DTZ files).
    pub by_pieces: BTreeMap<u32, (usize, usize)>,
    /// Tables with a WDL file but no DTZ file (claims work; DTZ is not
    /// shown and the 50-move rule's verdict is left open).
    pub wdl_only: Vec<String>,
    /// Tables with a DTZ file but no WDL file (unusable: WDL decides).
    pub dtz_only: Vec<String>,
    /// Files that look like tables but cannot be used, with why.
    pub left_out: Vec<(PathBuf, String)>,
}

impl Inventory {
    /// The most men any usable table holds.
    pub fn most_pieces(&self) -> u32 {
        self.by_pieces.keys().next_back().copied().unwrap_or(0)
    }

    /// One line of what was found: `3 pieces: 5 tables (WDL and DTZ); 4
    /// pieces: 30 …; in /srv/syzygy`.
    pub fn summary(&self) -> String {
        let counts: Vec<String> = self
            .by_pieces
            .iter()
            .map(|(men, (wdl, dtz))| {
                if wdl == dtz {
                    format!("{men} pieces: {wdl} tables (WDL and DTZ)")
                } else {
                    format!("{men} pieces: {wdl} WDL, {dtz} DTZ tables")
                }
            })
            .collect();
        let folders: Vec<String> = self
            .folders
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        format!(
            "{}; claims are judged up to {} pieces; in {}",
            counts.join("; "),
            self.most_pieces(),
            folders.join(", ")
        )
    }

    /// What is wrong with the set, one line each with how to mend it:
    /// files left out, tables that have only one of their two files.
    pub fn problems(&self) -> Vec<(String, String)> {
        const REPLACE: &str =
            "replace the file with a good copy (the published checksums tell), or remove it";
        let mut lines: Vec<(String, String)> = self
            .left_out
            .iter()
            .map(|(path, why)| {
                (
                    format!("{} left out: {why}", path.display()),
                    REPLACE.into(),
                )
            })
            .collect();
        lines.extend(self.wdl_only.iter().map(|t| {
            (
                format!("{t} has a WDL file but no DTZ file: claims work, DTZ is not shown and the 50-move rule's verdict is left open"),
                format!("add {t}.rtbz"),
            )
        }));
        lines.extend(self.dtz_only.iter().map(|t| {
            (
                format!("{t} has a DTZ file but no WDL file, so it is not used"),
                format!("add {t}.rtbw"),
            )
        }));
        lines
    }
}

/// Syzygy tables, opened and checked.
pub struct Syzygy {
    tables: Tablebase<Chess>,
    most: u32,
}

impl fmt::Debug for Syzygy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Syzygy")
            .field("most_pieces", &self.most)
            .finish_non_exhaustive()
    }
}

/// A table file's name read: its material (`KRvK`) and whether WDL.
fn table_name(path: &Path) -> Option<(String, bool)> {
    let ext = path.extension()?.to_str()?;
    let wdl = match ext {
        "rtbw" => true,
        "rtbz" => false,
        _ => return None,
    };
    let stem = path.file_stem()?.to_str()?;
    Some((stem.to_owned(), wdl))
}

/// The pieces of a material name (`KRvKP` → White K R, Black K P), if it is one.
fn material_of(name: &str) -> Option<(Vec<Role>, Vec<Role>)> {
    let (white, black) = name.split_once('v')?;
    let side = |s: &str| -> Option<Vec<Role>> {
        let roles: Option<Vec<Role>> = s.chars().map(Role::from_char).collect();
        let roles = roles?;
        (roles.iter().filter(|r| **r == Role::King).count() == 1).then_some(roles)
    };
    Some((side(white)?, side(black)?))
}

/// Legal positions with exactly this material and no capture to play (so a
/// probe reads this very table, not one a capture leads to), found by a
/// seeded search: up to `per_side` with White to move, then as many with
/// Black to move (a two-sided WDL file keeps each side's data apart).
fn sample_positions(white: &[Role], black: &[Role], per_side: usize) -> Vec<Chess> {
    let mut rng = StdRng::seed_from_u64(26);
    let mut out = Vec::new();
    for turn in ['w', 'b'] {
        let mut found = 0;
        for _ in 0..2000 {
            if found == per_side {
                break;
            }
            let mut board = shakmaty::Board::empty();
            let mut ok = true;
            for (color, roles) in [(Color::White, white), (Color::Black, black)] {
                for role in roles {
                    let placed = (0..64).find_map(|_| {
                        let sq = Square::new(rng.random_range(0..64));
                        let back_rank =
                            matches!(sq.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth);
                        (board.piece_at(sq).is_none() && !(*role == Role::Pawn && back_rank))
                            .then_some(sq)
                    });
                    match placed {
                        Some(sq) => board.set_piece_at(sq, role.of(color)),
                        None => ok = false,
                    }
                }
            }
            if !ok {
                continue;
            }
            // No castling rights, no en passant square: what Syzygy holds.
            let fen = format!("{} {turn} - - 0 1", board.board_fen());
            let Ok(position) = fen.parse::<Fen>().map_err(|_| ()).and_then(|f| {
                f.into_position::<Chess>(CastlingMode::Standard)
                    .map_err(|_| ())
            }) else {
                continue;
            };
            if position.capture_moves().is_empty() && !position.is_game_over() {
                out.push(position);
                found += 1;
            }
        }
    }
    out
}

/// Samples of each side to move looked through for a won or lost one.
const MORE_SAMPLES: usize = 48;

/// How a table's file fared when opened for real.
enum Trial {
    /// Probed and answered (or nothing to probe it with).
    Good,
    /// The file failed: why, in a line.
    Bad(String),
}

/// Opens a WDL file for real: a probe of each sample position must answer.
fn try_wdl(check: &Tablebase<Chess>, samples: &[Chess]) -> Trial {
    for position in samples {
        if let Err(SyzygyError::ProbeFailed { error, .. }) = check.probe_wdl_after_zeroing(position)
        {
            return Trial::Bad(fault(&error));
        }
    }
    Trial::Good
}

/// Opens a DTZ file for real. A drawn position never reaches the DTZ file
/// (the WDL answers it), so the probe is of a sample the WDL file calls won
/// or lost, looked for among more samples where the first are all drawn
/// (K+R v K+R: a won one in some tens); a material with none (K+B v K) is
/// one whose DTZ file no probe ever reads.
fn try_dtz(check: &Tablebase<Chess>, samples: &[Chess], white: &[Role], black: &[Role]) -> Trial {
    let won_or_lost = |position: &&Chess| {
        check
            .probe_wdl_after_zeroing(position)
            .is_ok_and(|w| w != SWdl::Draw)
    };
    let more;
    let decisive = match samples.iter().find(won_or_lost) {
        Some(found) => Some(found),
        None => {
            more = sample_positions(white, black, MORE_SAMPLES);
            more.iter().find(won_or_lost)
        }
    };
    match decisive.map(|position| check.probe_dtz(position)) {
        Some(Err(SyzygyError::ProbeFailed {
            error,
            metric: shakmaty_syzygy::Metric::Dtz,
            ..
        })) => Trial::Bad(fault(&error)),
        _ => Trial::Good,
    }
}

impl Syzygy {
    /// Opens the tables in `folders`, checking each file once (its size, its
    /// header and that its contents are the table its name says), and says
    /// what it found. Files that fail are left out and listed; a folder that
    /// is not there, or no usable table at all, is an error.
    ///
    /// Cost: per table its headers and a few blocks (four WDL probes, one
    /// DTZ probe, and for a mostly drawn material up to ~100 more WDL
    /// probes to find a won position): the 38 tables of the 25 MB test set
    /// open in about 0.1 s (debug build); the 6-piece set (hundreds of tables) takes
    /// a few seconds, the 7-piece set (over a thousand) up to a minute or
    /// two on a cold spinning disk, each probe being a random read or two.
    pub fn open(folders: &[PathBuf]) -> Result<(Syzygy, Inventory), TablebaseError> {
        let mut inventory = Inventory {
            folders: folders.to_vec(),
            ..Inventory::default()
        };
        let mut files: Vec<PathBuf> = Vec::new();
        for folder in folders {
            let meta = std::fs::metadata(folder).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => TablebaseError::Missing(folder.clone()),
                _ => TablebaseError::Unreadable {
                    path: folder.clone(),
                    error: e.to_string(),
                },
            })?;
            if !meta.is_dir() {
                return Err(TablebaseError::NotAFolder(folder.clone()));
            }
            let entries = std::fs::read_dir(folder).map_err(|e| TablebaseError::Unreadable {
                path: folder.clone(),
                error: e.to_string(),
            })?;
            let mut here: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            here.sort();
            files.extend(here.into_iter().filter(|p| table_name(p).is_some()));
        }
        // Add every file on its own (`add_directory` stops at the first bad
        // one), then open each table for real with a probe.
        let mut candidates = Tablebase::<Chess>::new();
        let mut found: BTreeMap<String, (Option<PathBuf>, Option<PathBuf>)> = BTreeMap::new();
        for path in files {
            let Some((name, wdl)) = table_name(&path) else {
                continue;
            };
            if material_of(&name).is_none() {
                inventory
                    .left_out
                    .push((path, format!("{name} is not a table's name")));
                continue;
            }
            if let Err(e) = candidates.add_file(&path) {
                let why = match e.kind() {
                    std::io::ErrorKind::InvalidData => {
                        "its size is not that of a whole table (truncated?)".to_string()
                    }
                    _ => format!("cannot be read ({e})"),
                };
                inventory.left_out.push((path, why));
                continue;
            }
            let slot = found.entry(name).or_default();
            if wdl {
                slot.0 = Some(path);
            } else {
                slot.1 = Some(path);
            }
        }
        let mut tables = Tablebase::<Chess>::new();
        let mut most = 0;
        for (name, (wdl, dtz)) in found {
            let Some((white, black)) = material_of(&name) else {
                continue;
            };
            let men = (white.len() + black.len()) as u32;
            // Two of each side to move for the WDL file; more to find a
            // won or lost one for the DTZ file (most materials have one
            // within a few; K+R v K+R needs more).
            let samples = sample_positions(&white, &black, 8);
            let mut check = Tablebase::<Chess>::new();
            let mut usable_wdl = false;
            let mut usable_dtz = false;
            if let Some(path) = wdl {
                let _ = check.add_file(&path);
                let side = |turn| samples.iter().filter(move |p| p.turn() == turn).take(2);
                let firsts: Vec<Chess> = side(Color::White)
                    .chain(side(Color::Black))
                    .cloned()
                    .collect();
                match try_wdl(&check, &firsts) {
                    Trial::Bad(why) => inventory
                        .left_out
                        .push((path, format!("not a good {name} table: {why}"))),
                    Trial::Good => usable_wdl = tables.add_file(&path).is_ok(),
                }
            }
            if let Some(path) = dtz {
                let _ = check.add_file(&path);
                match try_dtz(&check, &samples, &white, &black) {
                    Trial::Bad(why) => inventory
                        .left_out
                        .push((path, format!("not a good {name} table: {why}"))),
                    Trial::Good => usable_dtz = tables.add_file(&path).is_ok(),
                }
            }
            match (usable_wdl, usable_dtz) {
                (true, true) => {
                    let e = inventory.by_pieces.entry(men).or_default();
                    e.0 += 1;
                    e.1 += 1;
                }
                (true, false) => {
                    inventory.by_pieces.entry(men).or_default().0 += 1;
                    inventory.wdl_only.push(name);
                }
                (false, true) => inventory.dtz_only.push(name),
                (false, false) => {}
            }
            if usable_wdl {
                most = most.max(men);
            }
        }
        if most == 0 {
            return Err(TablebaseError::NoTables {
                folders: folders.to_vec(),
                left_out: inventory
                    .left_out
                    .iter()
                    .map(|(p, why)| format!("{}: {why}", p.display()))
                    .collect(),
            });
        }
        Ok((Syzygy { tables, most }, inventory))
    }
}

/// What is wrong with a table file, in a line (the crate's own text of a
/// corrupt table carries a backtrace).
fn fault(e: &shakmaty_syzygy::ProbeError) -> String {
    match e {
        shakmaty_syzygy::ProbeError::Read { error } => format!("cannot be read ({error})"),
        shakmaty_syzygy::ProbeError::Magic { .. } => {
            "not a Syzygy file (its first bytes are wrong)".into()
        }
        shakmaty_syzygy::ProbeError::CorruptedTable { .. } => {
            "corrupt, truncated, or another table's contents under this name".into()
        }
    }
}

/// A probe's answer, `None` where a table it needs is not in the set.
fn or_missing<T>(probed: Result<T, SyzygyError>) -> Result<Option<T>, SyzygyError> {
    match probed {
        Ok(value) => Ok(Some(value)),
        Err(SyzygyError::MissingTable { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

fn wdl_of(w: SWdl) -> Wdl {
    match w {
        SWdl::Loss => Wdl::Loss,
        SWdl::BlessedLoss => Wdl::BlessedLoss,
        SWdl::Draw => Wdl::Draw,
        SWdl::CursedWin => Wdl::CursedWin,
        SWdl::Win => Wdl::Win,
    }
}

fn wdl50_of(w: AmbiguousWdl) -> Wdl50 {
    match w {
        AmbiguousWdl::Loss => Wdl50::Loss,
        AmbiguousWdl::MaybeLoss => Wdl50::MaybeLoss,
        AmbiguousWdl::BlessedLoss => Wdl50::BlessedLoss,
        AmbiguousWdl::Draw => Wdl50::Draw,
        AmbiguousWdl::CursedWin => Wdl50::CursedWin,
        AmbiguousWdl::MaybeWin => Wdl50::MaybeWin,
        AmbiguousWdl::Win => Wdl50::Win,
    }
}

fn dtz_of(d: MaybeRounded<shakmaty_syzygy::Dtz>) -> Dtz {
    match d {
        MaybeRounded::Precise(d) => Dtz {
            plies: d.0,
            rounded: false,
        },
        MaybeRounded::Rounded(d) => Dtz {
            plies: d.0,
            rounded: true,
        },
    }
}

/// The table's name as Syzygy writes it for a position: White's men first.
fn material_name(position: &Chess) -> String {
    let side = |color: Color| {
        let mut s = String::new();
        for role in [
            Role::King,
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
        ] {
            let n = (position.board().by_color(color) & position.board().by_role(role)).count();
            s.extend(std::iter::repeat_n(role.upper_char(), n));
        }
        s
    };
    format!("{}v{}", side(Color::White), side(Color::Black))
}

impl Syzygy {
    fn unread(&self, e: SyzygyError, position: &Chess) -> Unread {
        match e {
            SyzygyError::Castling => Unread::Castling,
            SyzygyError::TooManyPieces => Unread::TooManyPieces {
                pieces: pieces(position),
                most: self.most,
            },
            SyzygyError::MissingTable { material, .. } => Unread::NoTable {
                material: material.to_string(),
            },
            SyzygyError::ProbeFailed {
                material, error, ..
            } => Unread::Broken {
                material: material.to_string(),
                detail: fault(&error),
            },
        }
    }
}

impl Tables for Syzygy {
    fn probe(&self, position: &Chess) -> Result<Reading, Unread> {
        let men = pieces(position);
        let wdl = self
            .tables
            .probe_wdl_after_zeroing(position)
            .map_err(|e| self.unread(e, position))?;
        // Without a DTZ table the WDL still decides an ICCF claim; a DTZ
        // file that fails is said, not taken for a missing one.
        let dtz =
            or_missing(self.tables.probe_dtz(position)).map_err(|e| self.unread(e, position))?;
        let wdl50 =
            or_missing(self.tables.probe_wdl(position)).map_err(|e| self.unread(e, position))?;
        Ok(Reading {
            material: material_name(position),
            pieces: men,
            turn: position.turn(),
            halfmoves: position.halfmoves(),
            wdl: wdl_of(wdl),
            wdl50: wdl50.map(wdl50_of),
            dtz: dtz.map(dtz_of),
        })
    }

    fn most_pieces(&self) -> u32 {
        self.most
    }

    /// Best first, as syzygy-tables.info orders them: for the mover a win
    /// before a draw before a loss; among wins the fewest plies to zeroing
    /// first, among losses the most.
    fn moves(&self, position: &Chess) -> Result<Vec<MoveReading>, Unread> {
        self.read(position)?;
        let mut out = Vec::new();
        for m in position.legal_moves() {
            let mut after = position.clone();
            let san = shakmaty::san::SanPlus::from_move(position.clone(), m).to_string();
            after.play_unchecked(m);
            let (wdl, dtz) = if after.is_checkmate() {
                (
                    Wdl::Win,
                    Some(Dtz {
                        plies: 0,
                        rounded: false,
                    }),
                )
            } else if after.is_stalemate() || after.is_insufficient_material() {
                (
                    Wdl::Draw,
                    Some(Dtz {
                        plies: 0,
                        rounded: false,
                    }),
                )
            } else {
                let r = self.read(&after)?;
                (r.wdl.flip(), r.dtz)
            };
            out.push(MoveReading {
                uci: m.to_uci(CastlingMode::Standard).to_string(),
                san,
                wdl,
                dtz,
            });
        }
        // The DTZ after the move is the opponent's: negative where the mover
        // wins (nearer zero is faster), positive where the mover loses
        // (larger holds out longer), so one key orders both.
        // Without a DTZ table a move comes after those with one.
        out.sort_by_key(|r| {
            (
                std::cmp::Reverse(r.wdl),
                r.dtz.is_none(),
                -r.dtz.map_or(0, |d| d.plies),
            )
        });
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    //! The adapter on the shared test tables (`../shared/syzygy`: every 3-
    //! and 4-piece table, KBBvKN, KBNvKN, KRBvKR) and on copies of them
    //! broken on purpose.

    use super::*;

    fn shared() -> PathBuf {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy");
        assert!(
            dir.join("KRvK.rtbw").is_file(),
            "the test tables are missing: {} (shared/ beside the repository)",
            dir.display()
        );
        dir
    }

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// A folder holding copies of these shared files, under the same names.
    fn folder_with(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            std::fs::copy(shared().join(f), dir.path().join(f)).unwrap();
        }
        dir
    }

    #[test]
    fn the_shared_set_opens_whole_and_is_counted_by_pieces() {
        let (tables, found) = Syzygy::open(&[shared()]).unwrap();
        assert_eq!(tables.most_pieces(), 5);
        assert_eq!(found.by_pieces.get(&3), Some(&(5, 5)), "{found:?}");
        assert_eq!(found.by_pieces.get(&4), Some(&(30, 30)), "{found:?}");
        assert_eq!(found.by_pieces.get(&5), Some(&(3, 3)), "{found:?}");
        assert!(found.problems().is_empty(), "{:?}", found.problems());
        assert!(
            found
                .summary()
                .starts_with("3 pieces: 5 tables (WDL and DTZ); 4 pieces: 30")
        );
    }

    #[test]
    fn a_reading_gives_wdl_dtz_and_the_fifty_move_verdict_for_the_side_to_move() {
        let (tables, _) = Syzygy::open(&[shared()]).unwrap();
        let r = tables
            .read(&position("8/8/8/4k3/8/8/8/R3K3 b - - 0 1"))
            .unwrap();
        assert_eq!((r.material.as_str(), r.pieces), ("KRvK", 3));
        assert_eq!(
            (r.turn, r.wdl, r.wdl50),
            (Color::Black, Wdl::Loss, Some(Wdl50::Loss))
        );
        assert!(r.dtz.unwrap().plies < 0, "{r:?}");
        // The rook with Black: the name says White's men first.
        let r = tables
            .read(&position("8/8/8/4k3/8/8/8/r3K3 w - - 0 1"))
            .unwrap();
        assert_eq!((r.material.as_str(), r.wdl), ("KvKR", Wdl::Loss));
        // A cursed win: won, but not within the 50-move rule.
        let r = tables
            .read(&position("1K6/1B6/4k3/4B3/8/8/8/2n5 w - - 0 1"))
            .unwrap();
        assert_eq!((r.wdl, r.wdl50), (Wdl::CursedWin, Some(Wdl50::CursedWin)));
        assert!(r.dtz.unwrap().plies > 100, "{r:?}");
    }

    #[test]
    fn what_the_tables_cannot_say_is_told_apart() {
        let (tables, _) = Syzygy::open(&[shared()]).unwrap();
        assert_eq!(
            tables.read(&position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")),
            Err(Unread::Castling)
        );
        assert_eq!(
            tables.read(&position("8/p6p/8/4k3/8/8/1P6/R3K3 w - - 0 1")),
            Err(Unread::TooManyPieces { pieces: 6, most: 5 })
        );
        assert_eq!(
            tables.read(&position("8/8/8/4k3/8/8/1P6/R1Q1K3 w - - 0 1")),
            Err(Unread::NoTable {
                material: "KQRPvK".into()
            })
        );
    }

    #[test]
    fn too_many_men_are_refused_without_reading_a_file() {
        let dir = folder_with(&["KRvK.rtbw", "KRvK.rtbz"]);
        let (tables, _) = Syzygy::open(&[dir.path().to_path_buf()]).unwrap();
        assert_eq!(tables.most_pieces(), 3);
        // Gone after opening: a probe that touched them would fail.
        drop(dir);
        assert_eq!(
            tables.read(&position("8/8/8/4k3/8/8/1P6/R3K3 w - - 0 1")),
            Err(Unread::TooManyPieces { pieces: 4, most: 3 })
        );
    }

    #[test]
    fn without_its_dtz_file_a_table_still_gives_wdl() {
        let dir = folder_with(&["KRvK.rtbw"]);
        let (tables, found) = Syzygy::open(&[dir.path().to_path_buf()]).unwrap();
        assert_eq!(found.wdl_only, vec!["KRvK".to_string()]);
        assert_eq!(found.by_pieces.get(&3), Some(&(1, 0)));
        let r = tables
            .read(&position("8/8/8/4k3/8/8/8/R3K3 w - - 0 1"))
            .unwrap();
        assert_eq!((r.wdl, r.wdl50, r.dtz), (Wdl::Win, None, None));
    }

    #[test]
    fn a_file_truncated_while_open_is_a_broken_table_not_a_crash() {
        let dir = folder_with(&["KRvK.rtbw", "KRvK.rtbz"]);
        let (tables, _) = Syzygy::open(&[dir.path().to_path_buf()]).unwrap();
        let krk = position("8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
        assert!(tables.read(&krk).is_ok());
        for f in ["KRvK.rtbw", "KRvK.rtbz"] {
            std::fs::File::options()
                .write(true)
                .open(dir.path().join(f))
                .unwrap()
                .set_len(16)
                .unwrap();
        }
        let other = position("8/8/8/8/3k4/8/8/6KR b - - 0 1");
        assert!(
            matches!(tables.read(&other), Err(Unread::Broken { ref material, .. }) if material == "KRvK"),
            "{:?}",
            tables.read(&other)
        );
    }

    #[test]
    fn a_dtz_file_of_a_drawn_material_is_opened_on_a_won_or_lost_position() {
        // K+R v K+R is mostly drawn: a probe of a drawn position never
        // opens the DTZ file, so a foreign one would pass unseen.
        let dir = folder_with(&["KRvKR.rtbw", "KQvKQ.rtbw"]);
        std::fs::copy(shared().join("KRvKB.rtbz"), dir.path().join("KRvKR.rtbz")).unwrap();
        // Zeros of a size the size check lets through.
        std::fs::write(dir.path().join("KQvKQ.rtbz"), vec![0u8; 64 * 40 + 16]).unwrap();
        let (_, found) = Syzygy::open(&[dir.path().to_path_buf()]).unwrap();
        let left: Vec<String> = found
            .left_out
            .iter()
            .map(|(p, why)| format!("{}: {why}", p.file_name().unwrap().to_string_lossy()))
            .collect();
        assert!(
            left.contains(&"KRvKR.rtbz: not a good KRvKR table: corrupt, truncated, or another table's contents under this name".to_string()),
            "{left:?}"
        );
        assert!(
            left.contains(&"KQvKQ.rtbz: not a good KQvKQ table: not a Syzygy file (its first bytes are wrong)".to_string()),
            "{left:?}"
        );
        assert_eq!(
            found.wdl_only,
            vec!["KQvKQ".to_string(), "KRvKR".to_string()]
        );
    }

    #[test]
    fn moves_come_best_first_for_the_side_to_move() {
        let (tables, _) = Syzygy::open(&[shared()]).unwrap();
        // White wins: the fastest win first.
        let moves = tables
            .moves(&position("8/8/8/4k3/8/8/8/R3K3 w - - 0 1"))
            .unwrap();
        assert_eq!(moves.len(), 15);
        let wins: Vec<i32> = moves
            .iter()
            .take_while(|m| m.wdl == Wdl::Win)
            .map(|m| -m.dtz.unwrap().plies)
            .collect();
        assert!(!wins.is_empty() && wins.is_sorted(), "{wins:?}");
        // The losing side holds out longest first.
        let moves = tables
            .moves(&position("8/8/8/4k3/8/8/8/R3K3 b - - 0 1"))
            .unwrap();
        let holds: Vec<i32> = moves.iter().map(|m| m.dtz.unwrap().plies).collect();
        assert!(moves.iter().all(|m| m.wdl == Wdl::Loss), "{moves:?}");
        assert!(holds.is_sorted_by(|a, b| a >= b), "{holds:?}");
        // A mate in one comes first, a stalemate is a draw.
        let moves = tables
            .moves(&position("k7/8/1K6/8/8/8/8/7R w - - 0 1"))
            .unwrap();
        assert_eq!(moves[0].san, "Rh8#");
        let moves = tables
            .moves(&position("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"))
            .unwrap();
        assert_eq!(moves[0].san, "Qc8#", "{moves:?}");
        let stalemate = moves.iter().find(|m| m.san == "Qc7").unwrap();
        assert_eq!(stalemate.wdl, Wdl::Draw);
        assert!(
            moves
                .iter()
                .rev()
                .take_while(|m| m.wdl == Wdl::Draw)
                .any(|m| m.san == "Qc7")
        );
    }

    #[test]
    fn sample_positions_are_legal_of_that_material_with_either_side_to_move() {
        for name in ["KRvK", "KPvKP", "KBBvKN", "KQPvK", "KRPPvKRP", "KNNNvKBB"] {
            let (white, black) = material_of(name).unwrap();
            let samples = sample_positions(&white, &black, 3);
            for turn in [Color::White, Color::Black] {
                assert_eq!(
                    samples.iter().filter(|p| p.turn() == turn).count(),
                    3,
                    "{name}"
                );
            }
            for p in &samples {
                assert_eq!(material_name(p), name);
                assert!(
                    p.castles().is_empty() && p.ep_square(shakmaty::EnPassantMode::Legal).is_none()
                );
                assert!(p.capture_moves().is_empty() && !p.is_game_over());
            }
        }
    }
}
