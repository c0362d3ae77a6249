//! The layering rules of STYLE.md, checked on the source: no cycle between
//! top-level modules, no arrow from a lower layer to a higher one, no SQL
//! outside `src/adapter/store/`. Reads `src/**/*.rs` as text (no parser crate): comments
//! and string contents are blanked, `#[cfg(test)]` items are left out (tests
//! may reach anywhere), then every `use crate::…`/`use super::…` tree and
//! every inline `crate::…`/`super::…` path becomes an edge between modules.
//!
//! `KNOWN` lists the violations main still has; the test fails on any
//! violation not listed AND on any listed one that is gone (a ratchet: each
//! refactoring commit deletes the lines it fixed). The list ends empty.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Layers, lowest first (what each may import: [`may_import`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    Core,
    Adapter,
    Service,
    Edge,
    Entry,
}

/// Every top-level module: its layer and, for the core, its rank.
/// Modules that exist only before or only after the refactoring are listed
/// too, so the same table works at every commit of the series.
fn placement(unit: &str) -> Option<(Layer, u8)> {
    Some(match unit {
        // core, by rank: a core module imports only lower ranks.
        "lang" | "address" | "ids" | "html" | "rating" => (Layer::Core, 0),
        "player" | "chess" => (Layer::Core, 1),
        "clock" | "roster" => (Layer::Core, 2),
        "locale" | "event" | "command" => (Layer::Core, 3),
        "arbiter" => (Layer::Core, 4),
        // adapters: the database, mail in and out, the config, logging.
        "store" | "mail" | "config" | "telemetry" | "tablebase" | "atom" => (Layer::Adapter, 0),
        // the application (today still in `td`, `report`, `app`).
        "service" | "td" | "report" | "app" => (Layer::Service, 0),
        // the daemon's transports and loops.
        "daemon" | "web" => (Layer::Edge, 0),
        // entry points.
        "demo" => (Layer::Entry, 0),
        "cli" | "lib" | "main" => (Layer::Entry, 1),
        _ => return None,
    })
}

/// Whether module `from` may import `to_path` (in module `to`): core
/// imports lower core ranks; adapters import the core; services import the
/// core, the adapters and each other; the daemon and the entry points import
/// the core, the services and the config, plus arrows on purpose where the
/// CLI dispatches to an entry point: `dopis serve` and `dopis demo`, and
/// `dopis failed retry`, which puts a mail back into the daemon's mailbox
/// (a mailbox is the daemon's edge, so the operation is the daemon's, as
/// `serve` is); `dopis web`, an edge of its own; `dopis doctor`, which logs in to the mail servers as the
/// daemon does (so it is the daemon's too); the daemon applying a
/// reloaded `[log] level` (`telemetry::set_level`, on SIGHUP); and the demo
/// drives the daemon's loop as a user of it would.
fn may_import(from: &str, to: &str, to_path: &[String]) -> bool {
    let (Some((lf, rf)), Some((lt, rt))) = (placement(from), placement(to)) else {
        return false;
    };
    let path: Vec<&str> = to_path.iter().map(String::as_str).collect();
    match lf {
        Layer::Core => lt == Layer::Core && rt < rf,
        Layer::Adapter => lt == Layer::Core,
        Layer::Service => lt <= Layer::Service,
        Layer::Edge | Layer::Entry => {
            matches!(lt, Layer::Core | Layer::Service)
                || to == "config"
                || (from == "cli" && to == "telemetry")
                || matches!(
                    (from, path.as_slice()),
                    ("cli", ["daemon", "serve", ..])
                        | ("cli", ["daemon", "run", "serve", ..])
                        | ("cli", ["daemon", "retry_failed", ..])
                        | ("cli", ["daemon", "doctor", ..])
                        | ("cli", ["web", "serve", ..])
                        | ("daemon", ["telemetry", "set_level", ..])
                        | ("cli", ["demo", "run", ..])
                        | ("demo", ["daemon", ..])
                )
        }
    }
}

/// Violations main still has (`from -> to`, `cycle: a, b`, `sql: file`).
/// Delete each line in the commit that removes the violation.
const KNOWN: &[&str] = &[];

/// One import: from a file (and its module path) to a module path.
#[derive(Debug, Clone)]
struct Edge {
    file: String,
    line: usize,
    from: Vec<String>,
    to: Vec<String>,
}

/// Blanks comments, string and char literal contents; keeps newlines, so
/// byte offsets and line numbers stay those of the file.
fn strip(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
            continue;
        }
        let ident_before = i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_');
        // Raw strings: r"…", r#"…"#, br"…", br#"…"#.
        if !ident_before && (c == 'r' || (c == 'b' && next == Some('r'))) {
            let mut j = if c == 'b' { i + 2 } else { i + 1 };
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&'"') {
                out.extend(&b[i..=j]);
                j += 1;
                loop {
                    if j >= b.len() {
                        break;
                    }
                    if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                        out.push('"');
                        for _ in 0..hashes {
                            out.push('#');
                        }
                        j += 1 + hashes;
                        break;
                    }
                    out.push(blank(b[j]));
                    j += 1;
                }
                i = j;
                continue;
            }
        }
        if c == '"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                    if i < b.len() {
                        out.push(blank(b[i]));
                        i += 1;
                    }
                    continue;
                }
                out.push(blank(b[i]));
                i += 1;
            }
            out.push('"');
            i += 1;
            continue;
        }
        if c == '\'' {
            // A char literal ('x', '\n', '\u{..}'), else a lifetime or label.
            let end = if next == Some('\\') {
                (i + 3..b.len().min(i + 12)).find(|&k| b[k] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            if let Some(end) = end {
                out.push('\'');
                for _ in i + 1..end {
                    out.push(' ');
                }
                out.push('\'');
                i = end + 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The byte index just past the item that starts at `start`: its `;` or
/// the `}` closing its first `{`, brackets counted.
fn item_end(s: &[u8], start: usize) -> usize {
    let mut depth = 0i32;
    let mut i = start;
    while i < s.len() {
        match s[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b';' if depth == 0 => return i + 1,
            b'{' if depth == 0 => {
                let mut d = 0;
                while i < s.len() {
                    match s[i] {
                        b'{' => d += 1,
                        b'}' => {
                            d -= 1;
                            if d == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return s.len();
            }
            _ => {}
        }
        i += 1;
    }
    s.len()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Skips whitespace and `#[…]` attributes from `i`.
fn skip_attrs(s: &[u8], mut i: usize) -> usize {
    loop {
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        if s.get(i) == Some(&b'#') && s.get(i + 1) == Some(&b'[') {
            let mut d = 0;
            while i < s.len() {
                if s[i] == b'[' {
                    d += 1;
                } else if s[i] == b']' {
                    d -= 1;
                    if d == 0 {
                        i += 1;
                        break;
                    }
                }
                i += 1;
            }
        } else {
            return i;
        }
    }
}

/// `#[cfg(test)]` items as byte ranges, and the names of `#[cfg(test)] mod x;` files.
fn test_ranges(s: &str) -> (Vec<(usize, usize)>, Vec<String>) {
    let b = s.as_bytes();
    let mut ranges = Vec::new();
    let mut files = Vec::new();
    let mut from = 0;
    while let Some(k) = s[from..].find("#[cfg(test)]") {
        let at = from + k;
        let item = skip_attrs(b, at + "#[cfg(test)]".len());
        let end = item_end(b, item);
        let text = &s[item..end];
        let words: Vec<&str> = text.split_whitespace().collect();
        let m = words.iter().position(|w| *w == "mod");
        if let Some(m) = m
            && text.trim_end().ends_with(';')
            && let Some(name) = words.get(m + 1)
        {
            files.push(name.trim_end_matches(';').to_string());
        }
        ranges.push((at, end));
        from = end.max(at + 1);
    }
    (ranges, files)
}

/// Inline `mod x { … }` blocks: (start, end, name).
fn inline_mods(s: &str) -> Vec<(usize, usize, String)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = s[from..].find("mod ") {
        let at = from + k;
        from = at + 4;
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let mut j = at + 4;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        let name_start = j;
        while j < b.len() && is_ident(b[j]) {
            j += 1;
        }
        let name = &s[name_start..j];
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if name.is_empty() || b.get(j) != Some(&b'{') {
            continue;
        }
        out.push((at, item_end(b, j), name.to_string()));
    }
    out
}

/// Expands a use tree (`a::{b, c::{d, e as f}}`) into paths.
fn expand(tree: &str) -> Vec<Vec<String>> {
    fn split_top(s: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (i, c) in s.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(&s[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        out.push(&s[start..]);
        out
    }
    fn rec(prefix: &[String], s: &str, out: &mut Vec<Vec<String>>) {
        let s = s.trim();
        if s.is_empty() {
            return;
        }
        match s.find('{') {
            None => {
                let path = s.split(" as ").next().unwrap_or("");
                let mut p = prefix.to_vec();
                p.extend(
                    path.split("::")
                        .map(str::trim)
                        .filter(|x| !x.is_empty())
                        .map(String::from),
                );
                out.push(p);
            }
            Some(i) => {
                let mut p = prefix.to_vec();
                p.extend(
                    s[..i]
                        .split("::")
                        .map(str::trim)
                        .filter(|x| !x.is_empty())
                        .map(String::from),
                );
                let inner = &s[i + 1..s.rfind('}').unwrap_or(s.len())];
                for part in split_top(inner) {
                    rec(&p, part, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    rec(&[], tree, &mut out);
    out
}

/// A path as written in module `here`, made absolute (`None`: not ours).
fn resolve(here: &[String], path: &[String]) -> Option<Vec<String>> {
    match path.first().map(String::as_str) {
        Some("crate") => Some(path[1..].to_vec()),
        Some("self") => Some(here.iter().chain(&path[1..]).cloned().collect()),
        Some("super") => {
            let mut base = here.to_vec();
            let mut rest = path;
            while rest.first().map(String::as_str) == Some("super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            Some(base)
        }
        _ => None,
    }
}

/// The module path of a file under `src`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every import of non-test code under `src`, and the SQL found outside `src/adapter/store`.
fn scan(src: &Path) -> (Vec<Edge>, Vec<String>) {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    // Files that are test-only because their parent says `#[cfg(test)] mod x;`.
    let mut test_files = BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let (_, names) = test_ranges(&strip(&text));
        let dir = if f
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
        {
            f.parent().map(Path::to_path_buf)
        } else {
            Some(f.with_extension(""))
        };
        for name in names {
            if let Some(d) = &dir {
                test_files.insert(d.join(format!("{name}.rs")));
                test_files.insert(d.join(&name).join("mod.rs"));
            }
        }
    }
    let mut edges = Vec::new();
    let mut sql = Vec::new();
    for f in &files {
        if test_files.contains(f) {
            continue;
        }
        let rel = f.strip_prefix(src).unwrap_or(f).to_path_buf();
        let name = format!("src/{}", rel.display());
        let raw = std::fs::read_to_string(f).unwrap_or_default();
        let s = strip(&raw);
        let (tests, _) = test_ranges(&s);
        let in_test = |pos: usize| tests.iter().any(|&(a, b)| a <= pos && pos < b);
        let mods = inline_mods(&s);
        let here = module_of(&rel);
        let here_at = |pos: usize| -> Vec<String> {
            let mut m = here.clone();
            let mut inner: Vec<&(usize, usize, String)> = mods
                .iter()
                .filter(|(a, b, _)| *a <= pos && pos < *b)
                .collect();
            inner.sort();
            m.extend(inner.iter().map(|(_, _, n)| n.clone()));
            m
        };
        let line_of = |pos: usize| s[..pos].matches('\n').count() + 1;
        let b = s.as_bytes();
        // `use` trees.
        let mut use_spans = Vec::new();
        let mut from = 0;
        while let Some(k) = s[from..].find("use ") {
            let at = from + k;
            from = at + 4;
            if at > 0 && is_ident(b[at - 1]) {
                continue;
            }
            let end = s[at..].find(';').map_or(s.len(), |e| at + e);
            use_spans.push((at, end));
            if in_test(at) {
                continue;
            }
            let tree = s[at + 4..end].trim();
            if !(tree.starts_with("crate") || tree.starts_with("super") || tree.starts_with("self"))
            {
                continue;
            }
            for p in expand(tree) {
                if let Some(to) = resolve(&here_at(at), &p) {
                    edges.push(Edge {
                        file: name.clone(),
                        line: line_of(at),
                        from: here.clone(),
                        to,
                    });
                }
            }
        }
        // Inline paths: `crate::a::b`, `super::x`.
        for key in ["crate::", "super::"] {
            let mut from = 0;
            while let Some(k) = s[from..].find(key) {
                let at = from + k;
                from = at + key.len();
                if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':' || b[at - 1] == b'$') {
                    continue;
                }
                if in_test(at) || use_spans.iter().any(|&(a, e)| a <= at && at < e) {
                    continue;
                }
                let mut j = at;
                while j < b.len() && (is_ident(b[j]) || b[j] == b':') {
                    j += 1;
                }
                let path: Vec<String> = s[at..j]
                    .split("::")
                    .filter(|x| !x.is_empty())
                    .map(String::from)
                    .collect();
                if let Some(to) = resolve(&here_at(at), &path) {
                    edges.push(Edge {
                        file: name.clone(),
                        line: line_of(at),
                        from: here.clone(),
                        to,
                    });
                }
            }
        }
        // SQL: sqlx or rusqlite used, or an SQL statement in a string,
        // outside src/adapter/store.
        if !name.starts_with("src/adapter/store/") {
            let code_line = |i: usize| s.lines().nth(i).unwrap_or("");
            for (i, l) in raw.lines().enumerate() {
                let code = code_line(i);
                let statement = [
                    "\"SELECT ",
                    "\"INSERT INTO",
                    "\"UPDATE ",
                    "\"DELETE FROM",
                    "\"CREATE ",
                    "\"ALTER TABLE",
                ]
                .iter()
                .any(|k| l.contains(k));
                if code.contains("sqlx::")
                    || code.contains("rusqlite::")
                    || (statement && code.contains('"'))
                {
                    let pos = s.lines().take(i).map(|x| x.len() + 1).sum::<usize>();
                    if !in_test(pos) {
                        sql.push(format!("{name}:{}", i + 1));
                    }
                }
            }
        }
    }
    (edges, sql)
}

/// The strongly connected components of more than one node.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(n) = todo.pop() {
            for m in graph.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    todo.push(m.clone());
                }
            }
        }
        seen
    };
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for n in graph.keys() {
        if done.contains(n) {
            continue;
        }
        let from_n = reach(n);
        if !from_n.contains(n) {
            continue;
        }
        let comp: BTreeSet<String> = from_n
            .iter()
            .filter(|m| reach(m).contains(n))
            .cloned()
            .collect();
        done.extend(comp.iter().cloned());
        out.push(comp);
    }
    out
}

/// Every module that has a file under `src`, and the inline `mod x { … }`
/// blocks in them.
fn scan_modules(src: &Path) -> BTreeSet<Vec<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = BTreeSet::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap_or(&f).to_path_buf();
        let here = module_of(&rel);
        let text = strip(&std::fs::read_to_string(&f).unwrap_or_default());
        for (_, _, name) in inline_mods(&text) {
            out.insert(here.iter().cloned().chain([name]).collect());
        }
        out.insert(here);
    }
    out
}

/// The folders that hold one layer's modules (`src/domain/chess/` is the
/// module `chess` of the core): a path in them is read without the folder.
const LAYER_FOLDERS: &[&str] = &["domain", "adapter"];

/// `path` without its layer folder.
fn in_layer(path: &[String]) -> &[String] {
    match path.first() {
        Some(first) if LAYER_FOLDERS.contains(&first.as_str()) && path.len() > 1 => &path[1..],
        _ => path,
    }
}

fn unit(path: &[String]) -> String {
    in_layer(path)
        .first()
        .cloned()
        .unwrap_or_else(|| "lib".to_string())
}

/// Every violation, as `KNOWN` writes them, with where they are.
fn violations(src: &Path) -> BTreeMap<String, Vec<String>> {
    let (edges, sql) = scan(src);
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in &edges {
        let (a, b) = (unit(&e.from), unit(&e.to));
        if a == b
            || e.to
                .first()
                .is_some_and(|x| x.chars().next().is_some_and(char::is_uppercase))
        {
            continue;
        }
        let at = format!("{}:{}", e.file, e.line);
        let bad = if placement(&a).is_none() || placement(&b).is_none() {
            Some(format!("unplaced: {a} -> {b}"))
        } else if !may_import(&a, &b, in_layer(&e.to)) {
            Some(format!("{a} -> {b}"))
        } else {
            None
        };
        if let Some(v) = bad {
            out.entry(v).or_default().push(at);
        }
    }
    // Cycles between siblings, at every level: the top-level modules, and
    // the children of each folder, where a child folder counts as one
    // sibling with everything under it. An edge from a module to its own
    // parent or child is how Rust nests modules (`mod.rs` re-exports,
    // `super::` uses), so it is no arrow between siblings.
    let known_modules: BTreeSet<Vec<String>> = scan_modules(src);
    let node = |path: &[String]| -> Vec<String> {
        (0..=path.len())
            .rev()
            .map(|k| path[..k].to_vec())
            .find(|p| known_modules.contains(p))
            .unwrap_or_default()
    };
    let mut siblings: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut arrows: BTreeMap<(Vec<String>, String, String), Vec<String>> = BTreeMap::new();
    for e in &edges {
        let to = node(&e.to);
        if to.starts_with(&e.from) || e.from.starts_with(&to) {
            continue;
        }
        let k = e.from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        siblings
            .entry(e.from[..k].to_vec())
            .or_default()
            .entry(e.from[k].clone())
            .or_default()
            .insert(to[k].clone());
        arrows
            .entry((e.from[..k].to_vec(), e.from[k].clone(), to[k].clone()))
            .or_default()
            .push(format!("{}:{}", e.file, e.line));
    }
    for (parent, graph) in &siblings {
        for comp in cycles(graph) {
            let names: Vec<String> = comp
                .iter()
                .map(|c| {
                    parent
                        .iter()
                        .chain([c])
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("::")
                })
                .collect();
            let at = arrows
                .iter()
                .filter(|((p, a, b), _)| p == parent && comp.contains(a) && comp.contains(b))
                .flat_map(|(_, at)| at.iter().cloned());
            out.entry(format!("cycle: {}", names.join(", ")))
                .or_default()
                .extend(at);
        }
    }
    for at in sql {
        let file = at
            .rsplit_once(':')
            .map_or(at.clone(), |(f, _)| f.to_string());
        out.entry(format!("sql: {file}")).or_default().push(at);
    }
    out
}

#[test]
fn imports_go_down_the_layers_without_cycles_and_sql_stays_in_the_store() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    let known: BTreeSet<&str> = KNOWN.iter().copied().collect();
    let new: Vec<String> = found
        .iter()
        .filter(|(v, _)| !known.contains(v.as_str()))
        .map(|(v, at)| format!("{v}   ({})", at.join(", ")))
        .collect();
    let gone: Vec<&str> = known
        .iter()
        .filter(|k| !found.contains_key(**k))
        .copied()
        .collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "layering (STYLE.md, 'Layout'):\n  new violations:\n    {}\n  fixed, delete from KNOWN:\n    {}",
        new.join("\n    "),
        gone.join("\n    ")
    );
}

/// The checker itself finds a circle between two siblings of a folder, a
/// subfolder counting as one sibling, when one arrow is a `use` and the
/// other a path written inline in a call; and passes the same tree with
/// the arrow turned into one to the parent.
#[test]
fn a_circle_between_siblings_fails_and_one_through_the_parent_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let path = src.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod service;\n");
    write(
        "service/mod.rs",
        "pub mod clocks;\npub mod td;\npub fn shared() {}\n",
    );
    write(
        "service/clocks.rs",
        "pub fn reschedule() {}\npub fn end() { crate::service::td::finals::mail(); }\n",
    );
    write("service/td/mod.rs", "pub mod finals;\npub mod deadlines;\n");
    write("service/td/finals.rs", "pub fn mail() {}\n");
    write(
        "service/td/deadlines.rs",
        "use super::super::clocks::reschedule;\npub fn extend() { reschedule(); }\n",
    );
    let found = violations(src);
    assert!(
        found.contains_key("cycle: service::clocks, service::td"),
        "{found:?}"
    );
    write(
        "service/td/deadlines.rs",
        "use crate::service::shared;\npub fn extend() { shared(); }\n",
    );
    let found = violations(src);
    assert!(found.is_empty(), "{found:?}");
}
