//! Build-time steps: rebuild on migration changes, and embed the mail templates.

use std::error::Error;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn Error>> {
    // sqlx::migrate! embeds the migrations at compile time: rebuild when they change.
    println!("cargo:rerun-if-changed=migrations");
    embed_templates()
}

/// Writes `$OUT_DIR/templates.rs`: every `templates/<lang>/<name>` file as
/// `("<lang>/<name>", include_str!(…))`, sorted, so the binary needs no
/// template files at run time and a new language is just a new directory.
fn embed_templates() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=templates");
    let root = Path::new(&std::env::var("CARGO_MANIFEST_DIR")?).join("templates");
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    if root.is_dir() {
        for lang in std::fs::read_dir(&root)? {
            let lang = lang?.path();
            if !lang.is_dir() {
                continue;
            }
            let code = lang.file_name().and_then(|n| n.to_str()).unwrap_or("");
            // `templates/web/` holds the web pages' templates, which the
            // web module embeds itself; they are no mail language.
            if code == "web" {
                continue;
            }
            for file in std::fs::read_dir(&lang)? {
                let file = file?.path();
                let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if file.is_file() && (name.ends_with(".txt") || name.ends_with(".html")) {
                    files.push((format!("{code}/{name}"), file.clone()));
                }
            }
        }
    }
    files.sort();
    let mut out = String::from("/// Every template file, by `lang/name`.\n");
    out.push_str("pub(crate) static TEMPLATES: &[(&str, &str)] = &[\n");
    for (name, path) in &files {
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )?;
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR")?).join("templates.rs");
    std::fs::write(dest, out)?;
    Ok(())
}
