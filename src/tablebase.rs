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
//! guessed (see [`crate::chess::tablebase::Reading::result`]). Files are read
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

use crate::chess::tablebase::{Dtz, MoveReading, Reading, Tables, Unread, Wdl, Wdl50, pieces};

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

/// A legal position with exactly this material, White to move, with no
/// capture to play (so a probe reads this very table, not one a capture
/// leads to), found by a seeded search.
fn sample_position(white: &[Role], black: &[Role]) -> Option<Chess> {
    let mut rng = StdRng::seed_from_u64(26);
    for _ in 0..2000 {
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
        let fen = format!("{} w - - 0 1", board.board_fen());
        let Ok(position) = fen.parse::<Fen>().map_err(|_| ()).and_then(|f| {
            f.into_position::<Chess>(CastlingMode::Standard)
                .map_err(|_| ())
        }) else {
            continue;
        };
        if position.capture_moves().is_empty() && !position.is_game_over() {
            return Some(position);
        }
    }
    None
}

impl Syzygy {
    /// Opens the tables in `folders`, checking each file once (its size, its
    /// header and that its contents are the table its name says), and says
    /// what it found. Files that fail are left out and listed; a folder that
    /// is not there, or no usable table at all, is an error.
    ///
    /// Cost: one probe per table (a few header reads): well under a second
    /// for every 5-piece table, a few seconds for the 6-piece set, and the 7
    /// pieces' ~1,500 files about a minute on a cold disk.
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
            let sample = sample_position(&white, &black);
            let mut check = Tablebase::<Chess>::new();
            let mut usable_wdl = false;
            let mut usable_dtz = false;
            if let Some(path) = wdl {
                let _ = check.add_file(&path);
                match sample.as_ref().map(|p| check.probe_wdl_after_zeroing(p)) {
                    Some(Err(SyzygyError::ProbeFailed { error, .. })) => {
                        inventory
                            .left_out
                            .push((path, format!("not a good {name} table: {}", fault(&error))));
                    }
                    _ => {
                        usable_wdl = tables.add_file(&path).is_ok();
                    }
                }
            }
            if let Some(path) = dtz {
                let _ = check.add_file(&path);
                match sample.as_ref().map(|p| check.probe_dtz(p)) {
                    Some(Err(SyzygyError::ProbeFailed {
                        error,
                        metric: shakmaty_syzygy::Metric::Dtz,
                        ..
                    })) => {
                        inventory
                            .left_out
                            .push((path, format!("not a good {name} table: {}", fault(&error))));
                    }
                    _ => {
                        usable_dtz = tables.add_file(&path).is_ok();
                    }
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
    fn read(&self, position: &Chess) -> Result<Reading, Unread> {
        let men = pieces(position);
        if men > self.most {
            return Err(Unread::TooManyPieces {
                pieces: men,
                most: self.most,
            });
        }
        let wdl = self
            .tables
            .probe_wdl_after_zeroing(position)
            .map_err(|e| self.unread(e, position))?;
        // Without a DTZ table the WDL still decides an ICCF claim.
        let dtz = self.tables.probe_dtz(position).ok();
        let wdl50 = self.tables.probe_wdl(position).ok();
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
        out.sort_by_key(|r| (std::cmp::Reverse(r.wdl), -r.dtz.map_or(0, |d| d.plies)));
        Ok(out)
    }
}
