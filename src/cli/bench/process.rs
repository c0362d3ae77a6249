//! CLI latency: `player add` and `game new` as a user runs them, each a
//! new process on a SQLite database.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Result, bail};

use super::{Sizes, children_cpu, median};

/// Writes a config for a SQLite database in `dir`, and creates the
/// database; returns the config's path.
pub(super) async fn bench_config(dir: &Path, url: &str, extra: &str) -> Result<std::path::PathBuf> {
    let path = dir.join("dopis.toml");
    std::fs::write(
        &path,
        format!(
            "[database]\nurl = \"{url}\"\n\n[mail]\naddress = \"chess@bench.test\"\n\
             secret = \"a bench secret, not for real mail\"\nanswers_per_hour = 100000\n\n\
             [mail.maildir]\npath = \"{}\"\n\n[log]\nlevel = \"warn\"\n{extra}",
            dir.join("mail").display()
        ),
    )?;
    let store = crate::service::create_store(url).await?;
    store.close().await;
    Ok(path)
}

fn dopis(config: &Path, args: &[&str]) -> Result<Command> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg("--config").arg(config).args(args);
    // The bench's config alone: no variable of the caller's overrides it.
    for (key, _) in std::env::vars() {
        if key.starts_with("DOPIS_") {
            cmd.env_remove(key);
        }
    }
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    Ok(cmd)
}

/// Runs `args` `calls` times (`args` gets the call's number); returns the
/// median wall time and the mean CPU time per call, in milliseconds.
fn time_calls(
    config: &Path,
    calls: usize,
    args: impl Fn(usize) -> Vec<String>,
) -> Result<(f64, f64)> {
    let mut walls = Vec::with_capacity(calls);
    let before = children_cpu();
    for i in 0..calls {
        let a = args(i);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let started = Instant::now();
        let output = dopis(config, &a)?.output()?;
        walls.push(started.elapsed().as_secs_f64() * 1e3);
        if !output.status.success() {
            bail!(
                "dopis {} failed: {}",
                a.join(" "),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    let cpu = (children_cpu() - before) * 1e3 / calls.max(1) as f64;
    Ok((median(&mut walls), cpu))
}

/// `player add` and `game new`, each `sizes.cli_calls` times.
pub(super) async fn cli_latency(sizes: &Sizes, dir: &Path, out: &mut dyn Write) -> Result<()> {
    let dir = dir.join("cli");
    std::fs::create_dir_all(&dir)?;
    let url = format!("sqlite://{}", dir.join("cli.db").display());
    let config = bench_config(&dir, &url, "").await?;
    let calls = sizes.cli_calls;
    // Players for the games first, so that `game new` has someone to pair.
    let (add_wall, add_cpu) = time_calls(&config, calls * 2, |i| {
        vec![
            "player".into(),
            "add".into(),
            "--email".into(),
            format!("p{i}@bench.test"),
            "--name".into(),
            format!("Player {i}"),
        ]
    })?;
    let (new_wall, new_cpu) = time_calls(&config, calls, |i| {
        vec![
            "game".into(),
            "new".into(),
            "--white".into(),
            format!("p{}@bench.test", 2 * i),
            "--black".into(),
            format!("p{}@bench.test", 2 * i + 1),
        ]
    })?;
    // The same start-up and database opening with nothing committed: what
    // a write command costs on top is its commit, and SQLite's checkpoint
    // when the last connection closes (each with its fsyncs).
    let (list_wall, list_cpu) = time_calls(&config, calls, |_| vec!["game".into(), "list".into()])?;
    let (version_wall, version_cpu) = time_calls(&config, calls, |_| vec!["--version".into()])?;
    writeln!(
        out,
        "CLI player add: {add_wall:.1} ms median per call, {add_cpu:.1} ms CPU ({} calls, a new process each)",
        calls * 2
    )?;
    writeln!(
        out,
        "CLI game new: {new_wall:.1} ms median per call, {new_cpu:.1} ms CPU ({calls} calls)"
    )?;
    writeln!(
        out,
        "CLI game list (opens the database, reads, commits nothing): {list_wall:.1} ms median, {list_cpu:.1} ms CPU ({calls} calls)"
    )?;
    writeln!(
        out,
        "CLI --version (the floor: start and exit): {version_wall:.1} ms median, {version_cpu:.1} ms CPU"
    )?;
    Ok(())
}
