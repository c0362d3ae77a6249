//! ARCHITECTURE.md stays true: every path it writes as `src/…` exists, and
//! every module at the top of `src/` and of its layer folders is named in
//! it, so a module added, moved or removed shows up here until the map is
//! updated.

use std::collections::BTreeSet;
use std::path::Path;

/// The layer folders whose every module the map must name.
const LAYERS: &[&str] = &["src", "src/domain", "src/adapter"];

/// Every `src/…` path the text writes in backticks or as a code-block line.
fn paths_named(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, part) in text.split('`').enumerate() {
        let candidates: Vec<&str> = if i % 2 == 1 {
            vec![part]
        } else {
            part.lines().collect()
        };
        for c in candidates {
            for word in c.split_whitespace() {
                let word = word.trim_end_matches([',', '.', ';', ':', ')']);
                if word.starts_with("src/") {
                    out.insert(word.to_string());
                }
            }
        }
    }
    out
}

/// What is wrong with the map `text` of the tree at `root`: the paths it
/// names that do not exist, and the modules it does not name.
fn problems(root: &Path, text: &str) -> (Vec<String>, Vec<String>) {
    let named = paths_named(text);
    let missing = named
        .iter()
        .filter(|p| !root.join(p.trim_end_matches('/')).exists())
        .cloned()
        .collect();
    let mut unnamed = Vec::new();
    for layer in LAYERS {
        let Ok(entries) = std::fs::read_dir(root.join(layer)) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_dir = entry.path().is_dir();
            if (!is_dir && !name.ends_with(".rs")) || name == "mod.rs" {
                continue;
            }
            let path = format!("{layer}/{name}");
            let stem = path.trim_end_matches(".rs");
            // A module is named as its file or its folder (`x.rs` beside
            // `x/` by either).
            let found = [format!("{stem}/"), format!("{stem}.rs"), path.clone()]
                .iter()
                .any(|p| named.contains(p));
            if !found {
                unnamed.push(if is_dir { format!("{path}/") } else { path });
            }
        }
    }
    (missing, unnamed)
}

#[test]
fn the_architecture_map_names_every_module_and_only_paths_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let (missing, unnamed) = problems(root, &text);
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
    assert!(
        unnamed.is_empty(),
        "ARCHITECTURE.md does not name these modules (add them to its code map): {unnamed:?}"
    );
}

/// The check can fail: on a small tree, a path that is not there and a
/// module the map leaves out are both found.
#[test]
fn a_map_naming_a_missing_path_or_leaving_a_module_out_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "src/lib.rs",
        "src/domain/mod.rs",
        "src/domain/chess/mod.rs",
        "src/domain/lang.rs",
    ] {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "").unwrap();
    }
    let text = "- `src/lib.rs`, `src/domain/` and `src/domain/chess/`, the rules\n\
                ```\nsrc/nowhere/  gone\n```\n";
    let (missing, unnamed) = problems(dir.path(), text);
    assert_eq!(missing, vec!["src/nowhere/".to_string()]);
    assert_eq!(unnamed, vec!["src/domain/lang.rs".to_string()]);
}
