//! `dopis export FILE` and `dopis import FILE`: moving a club to another
//! server or database (the format: `service::export`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::service::app::App;
use crate::service::export;

/// `dopis export FILE`: writes the export to a new file (never over one).
pub async fn export(app: &App, file: &Path, out: &mut dyn Write) -> Result<ExitCode> {
    let shown = file.display().to_string();
    if file.exists() {
        bail!("{shown} exists: dopis never overwrites a file with an export; name a new file");
    }
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty());
    if folder.is_some_and(|f| !f.is_dir()) {
        bail!(
            "the folder of {shown} does not exist: create it first, or name a file in a folder that does"
        );
    }
    let (text, moved) =
        export::export(&app.store, app.config.mail.secret.expose(), app.clock.now()).await?;
    // Written whole to a file of its own, then renamed: a failed or
    // interrupted export leaves no half file that looks like one.
    let partial = file.with_extension(format!("partial-{}", std::process::id()));
    std::fs::write(&partial, text.as_bytes())
        .and_then(|()| std::fs::rename(&partial, file))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&partial);
        })
        .with_context(|| format!("cannot write {shown}"))?;
    writeln!(
        out,
        "exported {} rows of {} tables to {shown} ({} bytes)",
        moved.rows(),
        moved.tables.len(),
        text.len()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `dopis import FILE`: reads an export into this (empty) database.
pub async fn import(
    app: &App,
    file: &Path,
    new_secret: bool,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let shown = file.display().to_string();
    let text = std::fs::read_to_string(file).with_context(|| {
        format!("cannot read {shown} (the file `dopis export` wrote). Nothing was changed")
    })?;
    let read = export::read(&shown, &text)?;
    let moved = export::import(
        &app.store,
        &shown,
        &read,
        app.config.mail.secret.expose(),
        new_secret,
    )
    .await?;
    for (table, rows) in &moved.tables {
        if *rows > 0 {
            writeln!(out, "{table}: {rows}")?;
        }
    }
    writeln!(
        out,
        "imported {} rows from {shown} into {}",
        moved.rows(),
        app.store.url_shown()
    )?;
    Ok(ExitCode::SUCCESS)
}
