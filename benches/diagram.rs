//! Board diagram figures: PNG size and time per board, SVG time, and what
//! the PNG would cost if it went through SVG text and resvg instead.
//!
//! `cargo bench --bench diagram` prints the figures (release build).
//! `cargo bench --bench diagram -- --write DIR` also writes each sample
//! board as PNG and SVG into DIR, to look at.

use std::hint::black_box;
use std::time::{Duration, Instant};

use dopis::domain::chess::diagram::Diagram;
use resvg::{tiny_skia, usvg};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position};

/// Sample positions: a FEN, the last move in UCI (king-takes-rook for
/// castling), whether it is Chess960, and a name for written files.
const SAMPLES: &[(&str, &str, bool, &str)] = &[
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "g1f3",
        false,
        "opening",
    ),
    (
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "h5f7",
        false,
        "mate",
    ),
    (
        "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 4 8",
        "e1h1",
        false,
        "castling",
    ),
    (
        "8/1P4k1/8/8/8/8/6K1/8 w - - 0 1",
        "b7b8q",
        false,
        "promotion",
    ),
    (
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "e5f6",
        false,
        "en-passant",
    ),
    (
        "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w KQkq - 0 1",
        "g2g3",
        true,
        "chess960",
    ),
    (
        "r1b2rk1/pp1nqppp/2p1pn2/3p4/2PP4/2NBPN2/PPQ2PPP/R3K2R w KQ - 2 10",
        "e1a1",
        false,
        "long-castling",
    ),
];

fn sample_diagrams() -> Vec<(String, Diagram)> {
    let mut out = Vec::new();
    for &(fen, uci, chess960, name) in SAMPLES {
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let Ok(fen) = fen.parse::<Fen>() else {
            panic!("bad sample FEN {fen}");
        };
        let Ok(before) = fen.into_position::<Chess>(mode) else {
            panic!("bad sample position {name}");
        };
        let Ok(m) = uci.parse::<UciMove>().map(|u| u.to_move(&before)) else {
            panic!("bad sample move {uci}");
        };
        let Ok(m) = m else {
            panic!("illegal sample move {uci} in {name}");
        };
        let after = before
            .play(m)
            .unwrap_or_else(|_| panic!("cannot play {uci}"));
        let diagram = Diagram::new(&after, Some(&m));
        out.push((
            format!("{name}-white"),
            diagram.clone().seen_by(Color::White),
        ));
        out.push((format!("{name}-black"), diagram.seen_by(Color::Black)));
    }
    out
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// Times `f` once per diagram, `rounds` times over, and gives the median.
fn time_each(diagrams: &[(String, Diagram)], rounds: usize, f: impl Fn(&Diagram)) -> Duration {
    let mut times = Vec::with_capacity(diagrams.len() * rounds);
    for _ in 0..rounds {
        for (_, d) in diagrams {
            let start = Instant::now();
            f(d);
            times.push(start.elapsed());
        }
    }
    median(times)
}

fn png_via_resvg(d: &Diagram) -> Vec<u8> {
    png_via_resvg_zoomed(d, 1.0)
}

fn png_via_resvg_zoomed(d: &Diagram, zoom: f32) -> Vec<u8> {
    let svg = d.to_svg();
    let Ok(tree) = usvg::Tree::from_str(&svg, &usvg::Options::default()) else {
        panic!("our SVG does not parse");
    };
    let size = tree.size().to_int_size();
    let (w, h) = (size.width() as f32 * zoom, size.height() as f32 * zoom);
    let Some(mut pixmap) = tiny_skia::Pixmap::new(w as u32, h as u32) else {
        panic!("no pixmap");
    };
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(zoom, zoom),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let diagrams = sample_diagrams();

    if let Some(dir) = args
        .iter()
        .position(|a| a == "--write")
        .and_then(|i| args.get(i + 1))
    {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{dir}: {e}"));
        for (name, d) in &diagrams {
            let png = d.to_png().unwrap_or_else(|e| panic!("{name}: {e}"));
            std::fs::write(format!("{dir}/{name}.png"), png).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(format!("{dir}/{name}.svg"), d.to_svg())
                .unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(format!("{dir}/{name}-resvg.png"), png_via_resvg(d))
                .unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(
                format!("{dir}/{name}-zoom.png"),
                png_via_resvg_zoomed(d, 2.5),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(format!("{dir}/{name}.txt"), d.to_unicode() + &d.to_ascii())
                .unwrap_or_else(|e| panic!("{e}"));
        }
        println!("wrote {} boards to {dir}", diagrams.len());
    }

    let first = Instant::now();
    let _ = black_box(diagrams.first().map(|(_, d)| d.to_png()));
    let first = first.elapsed();

    let rounds = 300_usize.div_ceil(diagrams.len());
    let boards = rounds * diagrams.len();
    let sizes: Vec<usize> = diagrams
        .iter()
        .map(|(_, d)| d.to_png().map(|p| p.len()).unwrap_or(0))
        .collect();
    let svg_sizes: Vec<usize> = diagrams.iter().map(|(_, d)| d.to_svg().len()).collect();
    let png = time_each(&diagrams, rounds, |d| {
        black_box(d.to_png().ok());
    });
    let svg = time_each(&diagrams, rounds, |d| {
        black_box(d.to_svg());
    });
    let text = time_each(&diagrams, rounds, |d| {
        black_box(d.to_unicode());
        black_box(d.to_ascii());
    });
    let via_resvg = time_each(&diagrams, 3, |d| {
        black_box(png_via_resvg(d));
    });

    println!(
        "diagram: {} sample boards, {boards} timed renders each (median per board, one core)",
        diagrams.len()
    );
    println!("  first PNG (draws piece sprites once): {}", ms(first));
    println!("  PNG:              {}", ms(png));
    println!("  SVG:              {}", ms(svg));
    println!("  text (both):      {}", ms(text));
    println!("  PNG via SVG+resvg (for comparison): {}", ms(via_resvg));
    println!(
        "  PNG bytes: min {} max {} (target < 25600)",
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0)
    );
    println!(
        "  SVG bytes: min {} max {}",
        svg_sizes.iter().min().unwrap_or(&0),
        svg_sizes.iter().max().unwrap_or(&0)
    );
}
