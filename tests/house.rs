//! The house rules of [ARCHITECTURE.md](../ARCHITECTURE.md), checked by reading the source tree as text (no
//! build of what is read, no dependency): comments and the insides of string and character literals are
//! blanked first, and so is every item behind `#[cfg(test)]`, so only what the crate builds into its code is
//! judged.
//!
//! - The model is pure: no threads, files, network, async runtime, UI or AWS ([`the_model_is_pure`]).
//! - ARCHITECTURE.md names every module of the four layers ([`architecture_names_every_module`]).
//! - The app's vocabulary (commands, errors, tasks, colours) imports no panel
//!   ([`the_apps_vocabulary_imports_no_panel`]).
//! - No file is over 600 lines of code without saying why ([`long_files_say_why`]).
//!
//! A module file is test code when it is declared behind `#[cfg(test)]` (or under such a module), is named
//! `tests.rs` or sits in a `tests/` folder.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The most lines of code (not test code) a file holds without a reason in its module doc.
const MOST_LINES: usize = 600;

/// What a long file's module doc says before its reason.
const LONG_MARK: &str = "Over 600 lines:";

/// The app's vocabulary: the names every part of the app speaks in. None of them may depend on a panel.
const VOCABULARY: [&str; 4] = ["command", "error", "tasks", "theme"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A path relative to the repository, with `/` between its parts, for messages.
fn shown(path: &Path) -> String {
    let rel = path.strip_prefix(root()).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` with its comments and the insides of its string and character literals turned into spaces (newlines
/// kept, and as many bytes as they took, so lines and byte offsets stay where they were). Lifetimes are told
/// from character literals by what follows the quote.
fn code_only(text: &str) -> String {
    let mut lexer = Lexer {
        chars: text.chars().collect(),
        at: 0,
        out: String::with_capacity(text.len()),
    };
    while let Some(&c) = lexer.chars.get(lexer.at) {
        let next = lexer.peek(1);
        if c == '/' && next == Some('/') {
            lexer.blank_while(|c| c != '\n');
        } else if c == '/' && next == Some('*') {
            lexer.block_comment();
        } else if let Some(hashes) = lexer.raw_string_start() {
            lexer.raw_string(hashes);
        } else if c == '"' {
            lexer.string();
        } else if c == '\'' && (next == Some('\\') || lexer.peek(2) == Some('\'')) {
            lexer.char_literal();
        } else {
            lexer.copy(1);
        }
    }
    lexer.out
}

/// The reader of [`code_only`]: the text, where it is, and what it has written.
struct Lexer {
    chars: Vec<char>,
    at: usize,
    out: String,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn copy(&mut self, n: usize) {
        for _ in 0..n {
            if let Some(&c) = self.chars.get(self.at) {
                self.out.push(c);
                self.at += 1;
            }
        }
    }

    /// One character blanked: a newline kept, anything else as many spaces as its UTF-8 bytes.
    fn blank(&mut self) {
        if let Some(&c) = self.chars.get(self.at) {
            if c == '\n' {
                self.out.push('\n');
            } else {
                self.out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
            self.at += 1;
        }
    }

    fn blank_while(&mut self, keep_going: impl Fn(char) -> bool) {
        while self.peek(0).is_some_and(&keep_going) {
            self.blank();
        }
    }

    /// `/* … */`, nested ones too.
    fn block_comment(&mut self) {
        let mut depth = 0;
        while let Some(c) = self.peek(0) {
            let next = self.peek(1);
            if c == '/' && next == Some('*') {
                depth += 1;
            } else if c == '*' && next == Some('/') {
                depth -= 1;
                self.blank();
                self.blank();
                if depth == 0 {
                    return;
                }
                continue;
            }
            self.blank();
        }
    }

    /// At `r"`, `r#"` (also after `b` or `c`, copied as an identifier): how many `#`s. A raw identifier
    /// (`r#type`) is not one.
    fn raw_string_start(&self) -> Option<usize> {
        if self.peek(0) != Some('r') {
            return None;
        }
        let before = |back: usize| {
            self.at
                .checked_sub(back)
                .and_then(|i| self.chars.get(i))
                .copied()
        };
        let starts = match before(1) {
            Some('b' | 'c') => !before(2).is_some_and(is_ident),
            Some(c) => !is_ident(c),
            None => true,
        };
        let hashes = self.chars[self.at + 1..]
            .iter()
            .take_while(|&&h| h == '#')
            .count();
        (starts && self.peek(1 + hashes) == Some('"')).then_some(hashes)
    }

    fn raw_string(&mut self, hashes: usize) {
        self.copy(2 + hashes);
        while let Some(c) = self.peek(0) {
            if c == '"' && (1..=hashes).all(|k| self.peek(k) == Some('#')) {
                self.copy(1 + hashes);
                return;
            }
            self.blank();
        }
    }

    fn string(&mut self) {
        self.copy(1);
        while let Some(c) = self.peek(0) {
            if c == '"' {
                self.copy(1);
                return;
            }
            if c == '\\' {
                self.blank();
            }
            self.blank();
        }
    }

    /// `'x'`, `'\''`, `'\u{1F600}'`.
    fn char_literal(&mut self) {
        self.copy(1);
        if self.peek(0) == Some('\\') {
            self.blank();
            self.blank();
        }
        self.blank_while(|c| c != '\'');
        self.copy(1);
    }
}

/// The byte ranges of `code` (from [`code_only`]) that are test code: each item behind `#[cfg(test)]`, from
/// the attribute to the end of the item (its `;` or its closing brace).
fn test_ranges(code: &str) -> Vec<Range<usize>> {
    let bytes = code.as_bytes();
    let mut ranges = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]") {
        let start = from + at;
        let mut i = start + "#[cfg(test)]".len();
        let mut depth = 0i32;
        let mut opened_brace = false;
        while i < bytes.len() {
            match bytes[i] {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'{' => {
                    depth += 1;
                    opened_brace = true;
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 && opened_brace {
                        i += 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        ranges.push(start..i);
        from = i;
    }
    ranges
}

/// `code` with its test items blanked (newlines kept).
fn without_tests(code: &str) -> String {
    let mut out = code.to_owned().into_bytes();
    for r in test_ranges(code) {
        for b in &mut out[r] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// One source file: its code without comments and literals, and that code without its test items.
struct Source {
    code: String,
    built: String,
}

impl Source {
    fn read(file: &Path) -> Self {
        let code = code_only(&read(file));
        let built = if code.contains("#![cfg(test)]") {
            code.lines().map(|_| "\n").collect()
        } else {
            without_tests(&code)
        };
        Self { code, built }
    }

    /// The modules this file declares with `mod name;` (not inline ones), and whether each is test code.
    fn declared(&self) -> Vec<(String, bool)> {
        let built: BTreeSet<String> = mod_decls(&self.built).into_iter().collect();
        mod_decls(&self.code)
            .into_iter()
            .map(|name| {
                let test = !built.contains(&name);
                (name, test)
            })
            .collect()
    }
}

/// The names in `mod name;` declarations of `code`.
fn mod_decls(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices("mod ") {
        if at > 0 && is_ident(code[..at].chars().next_back().unwrap_or(' ')) {
            continue;
        }
        let rest = code[at + 4..].trim_start();
        let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        if !name.is_empty() && rest[name.len()..].trim_start().starts_with(';') {
            names.push(name);
        }
    }
    names
}

/// A module file of the crate or of one of `crates/`.
struct Module {
    /// Its path from the crate's root, e.g. `["source", "trace", "files"]` (empty for the root).
    path: Vec<String>,
    file: PathBuf,
    /// Declared behind `#[cfg(test)]`, or under a module that is.
    test: bool,
}

/// The modules reached from `root_file`, itself first.
fn modules_from(root_file: &Path) -> Vec<Module> {
    let mut all = Vec::new();
    let mut todo = vec![Module {
        path: Vec::new(),
        file: root_file.to_owned(),
        test: false,
    }];
    while let Some(m) = todo.pop() {
        let source = Source::read(&m.file);
        let stem = m.file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let parent = m.file.parent().unwrap_or(Path::new(""));
        let dir = if matches!(stem, "lib" | "main" | "mod") || m.path.is_empty() {
            parent.to_owned()
        } else {
            parent.join(stem)
        };
        for (name, test) in source.declared() {
            let flat = dir.join(format!("{name}.rs"));
            let file = if flat.exists() {
                flat
            } else {
                dir.join(&name).join("mod.rs")
            };
            assert!(
                file.exists(),
                "{} declares `mod {name};` and neither {name}.rs nor {name}/mod.rs is in {}: this test \
                 resolves modules as rustc does without #[path]; teach it the new case",
                shown(&m.file),
                shown(&dir)
            );
            let mut path = m.path.clone();
            path.push(name);
            todo.push(Module {
                path,
                file,
                test: m.test || test,
            });
        }
        all.push(m);
    }
    all.sort_by(|a, b| a.path.cmp(&b.path));
    all
}

/// The crate's modules (from src/lib.rs).
fn crate_modules() -> Vec<Module> {
    modules_from(&root().join("src/lib.rs"))
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every file of non-test code under src/ and crates/: the crates' module trees' files that are not test
/// modules, and any other `.rs` file there (a build script, an example) unless it is named `tests.rs` or sits
/// in a `tests/` folder.
fn code_files() -> Vec<PathBuf> {
    let root = root();
    let mut tests = BTreeSet::new();
    let mut roots = vec![root.join("src/lib.rs"), root.join("src/main.rs")];
    let mut crates = Vec::new();
    rust_files(&root.join("crates"), &mut crates);
    roots.extend(crates.iter().filter(|f| f.ends_with("src/lib.rs")).cloned());
    for r in &roots {
        for m in modules_from(r) {
            if m.test {
                tests.insert(m.file);
            }
        }
    }
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.extend(crates);
    files.retain(|f| {
        !tests.contains(f)
            && !f.ends_with("tests.rs")
            && !f
                .strip_prefix(&root)
                .unwrap_or(f)
                .components()
                .any(|c| c.as_os_str() == "tests")
    });
    files
}

/// The paths that `use` declarations in `code` bring in, one per leaf (`use std::{fs, io::Read}` gives
/// `std::fs` and `std::io::Read`; `self` leaves give their parent; a glob ends in `*`), with their lines.
fn use_paths(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("use") {
        let before = code[..at].chars().next_back().unwrap_or(' ');
        let after = code[at + 3..].chars().next().unwrap_or(' ');
        if is_ident(before) || before == '#' || !after.is_whitespace() {
            continue;
        }
        let Some(end) = code[at..].find(';') else {
            continue;
        };
        let mut tree = code[at + 3..at + end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for (spaced, tight) in [
            (" ::", "::"),
            (":: ", "::"),
            (" {", "{"),
            ("{ ", "{"),
            (" }", "}"),
            ("} ", "}"),
            (" ,", ","),
            (", ", ","),
        ] {
            tree = tree.replace(spaced, tight);
        }
        let line = code[..at].matches('\n').count() + 1;
        let mut leaves = Vec::new();
        flatten(&tree, "", &mut leaves);
        out.extend(leaves.into_iter().map(|p| (line, p)));
    }
    out
}

/// The leaves of a use tree (spaces only around `as`), each after `prefix`.
fn flatten(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim_start_matches("::");
    let join = |p: &str| {
        if prefix.is_empty() {
            p.to_owned()
        } else if p.is_empty() {
            prefix.to_owned()
        } else {
            format!("{prefix}::{p}")
        }
    };
    match tree.find('{') {
        None => {
            // A leaf: `a::b`, `a::b as c`, `a::self`, `a::*`.
            let leaf = tree.split(" as ").next().unwrap_or(tree).trim();
            let leaf = leaf.trim_end_matches("::self");
            out.push(join(if leaf == "self" { "" } else { leaf }));
        }
        Some(open) => {
            let head = tree[..open].trim_end_matches("::");
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let mut depth = 0;
            let mut start = 0;
            let new_prefix = join(head);
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        flatten(&inner[start..i], &new_prefix, out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            if !inner[start..].is_empty() {
                flatten(&inner[start..], &new_prefix, out);
            }
        }
    }
}

/// The paths of two parts or more written in `code` outside `use` (`std::thread::scope`, `::std::fs`,
/// `super::dialogs::FileError`), with their lines. A path starts at an identifier that does not follow `::`
/// (or follows a leading `::`).
fn inline_paths(code: &str) -> Vec<(usize, String)> {
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let before = if i > 0 { chars[i - 1].1 } else { ' ' };
        let after_path = i >= 2 && chars[i - 1].1 == ':' && chars[i - 2].1 == ':' && {
            let b = if i >= 3 { chars[i - 3].1 } else { ' ' };
            is_ident(b) || b == '>' || b == ')'
        };
        if !is_ident(c) || c.is_ascii_digit() || is_ident(before) || after_path {
            i += 1;
            continue;
        }
        let mut end = i;
        let mut parts = 1;
        loop {
            while end < chars.len() && is_ident(chars[end].1) {
                end += 1;
            }
            if end + 2 < chars.len()
                && chars[end].1 == ':'
                && chars[end + 1].1 == ':'
                && is_ident(chars[end + 2].1)
            {
                end += 2;
                parts += 1;
            } else {
                break;
            }
        }
        if parts > 1 {
            let stop = chars.get(end).map_or(code.len(), |&(b, _)| b);
            out.push((
                code[..at].matches('\n').count() + 1,
                code[at..stop].to_owned(),
            ));
        }
        i = end.max(i + 1);
    }
    out
}

/// Every path `code` names, in `use` declarations and outside them.
fn all_paths(code: &str) -> Vec<(usize, String)> {
    let mut paths: BTreeSet<(usize, String)> = use_paths(code).into_iter().collect();
    paths.extend(inline_paths(code));
    paths.into_iter().collect()
}

/// What the model may not name, as the start of a path: a thread, a file, the network, a process, the async
/// runtime, the UI, AWS; and the layers above it.
fn impure(path: &str) -> Option<&'static str> {
    let parts: Vec<&str> = path.split("::").collect();
    let first = parts.first().copied().unwrap_or("");
    let second = parts.get(1).copied().unwrap_or("");
    match (first, second) {
        ("std" | "core", "thread") => Some("a thread"),
        ("std", "fs") => Some("files"),
        ("std", "net") => Some("the network"),
        ("std", "process") => Some("processes"),
        ("std", "*") => Some("all of std (threads and files among it)"),
        ("tokio", _) => Some("the async runtime"),
        ("egui" | "egui_plot" | "eframe" | "rfd" | "winit", _) => Some("the UI"),
        ("crate", "source" | "app" | "cli") => Some("a layer above the model"),
        (aws, _) if aws.starts_with("aws_") => Some("AWS"),
        _ => None,
    }
}

/// The model is pure logic (ARCHITECTURE.md, Layers): no module of src/model names a thread, a file, the
/// network, a process, tokio, egui, eframe, rfd or an AWS crate (`aws_*`), nor the source, app or cli layers,
/// outside its tests. A `use std::thread;` is caught at the `use`; `use std::{fs, thread}` leaf by leaf.
/// Work that needs threads or files over the model's pure pieces lives in source/.
#[test]
fn the_model_is_pure() {
    let mut found = Vec::new();
    for m in crate_modules() {
        if m.test || m.path.first().is_none_or(|p| p != "model") {
            continue;
        }
        let source = Source::read(&m.file);
        for (line, path) in all_paths(&source.built) {
            if let Some(what) = impure(&path) {
                found.push(format!("{}:{line}: `{path}` ({what})", shown(&m.file)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the model is pure logic (ARCHITECTURE.md, Layers); move what needs these into source/ over the \
         model's pure pieces:\n{}",
        found.join("\n")
    );
}

/// The backticked names in `layer`'s section of ARCHITECTURE.md (`### layer`, up to the next heading of its
/// level or above), as module paths below the layer ([`module_name`]), with `::` as `/` and each `::` prefix
/// of an item's path too: `` `src/source/trace/files.rs` ``, `` `trace/files` `` and
/// `` `source::trace::files::Item` `` all name `trace/files`.
fn named_in(architecture: &str, layer: &str) -> BTreeSet<String> {
    let heading = format!("### {layer}\n");
    let Some(start) = architecture.find(&heading) else {
        return BTreeSet::new();
    };
    let body = &architecture[start + heading.len()..];
    let end = body
        .match_indices('\n')
        .find(|&(i, _)| body[i + 1..].starts_with("## ") || body[i + 1..].starts_with("### "))
        .map_or(body.len(), |(i, _)| i);
    let mut named = BTreeSet::new();
    for span in body[..end].split('`').skip(1).step_by(2) {
        // `read::FileLoad` names `read` too: each `::` prefix of a span is a name.
        let parts: Vec<&str> = span.trim().split("::").collect();
        for k in 1..=parts.len() {
            named.insert(module_name(&parts[..k].join("/"), layer));
        }
    }
    named
}

/// A backticked name as a module path below `layer`: without `crate/`, `src/`, `layer/`, a `.rs`, `/mod.rs`
/// or a closing `/`.
fn module_name(span: &str, layer: &str) -> String {
    let mut s = span.to_owned();
    for prefix in ["crate/", "src/", &format!("{layer}/")] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.to_owned();
        }
    }
    for suffix in ["/mod.rs", ".rs", "/"] {
        if let Some(rest) = s.strip_suffix(suffix) {
            s = rest.to_owned();
        }
    }
    s
}

/// ARCHITECTURE.md names every module of src/model, src/source, src/app and src/cli (at any depth, not test
/// modules), by the rule its first lines state: in backticks in the layer's section, a module of the layer by
/// its name (`lines`, `lines.rs`), a module inside another by its parent and name (`trace/files`) or its
/// whole path below the layer (`json/fast_json/scan`), alone or leading an item's path (`read::FileLoad`).
#[test]
fn architecture_names_every_module() {
    let architecture = read(&root().join("ARCHITECTURE.md"));
    let mut missing = Vec::new();
    for m in crate_modules() {
        let [layer, below @ ..] = m.path.as_slice() else {
            continue;
        };
        if m.test
            || below.is_empty()
            || !["model", "source", "app", "cli"].contains(&layer.as_str())
        {
            continue;
        }
        let named = named_in(&architecture, layer);
        let whole = below.join("/");
        let tail = below[below.len().saturating_sub(2)..].join("/");
        if !named.contains(&whole) && !named.contains(&tail) {
            missing.push(format!(
                "module {} is not named in ARCHITECTURE.md; add it to the layer's section (### {layer}) as `{tail}`",
                shown(&m.file)
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Whether an app module's code draws: it names egui's `Ui` or opens a window, area or panel of its own.
fn draws(code: &str) -> bool {
    let flat: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    flat.contains("&mutUi")
        || all_paths(code).iter().any(|(_, p)| {
            let p = p.strip_prefix("eframe::").unwrap_or(p);
            [
                "egui::Ui",
                "egui::Window",
                "egui::Area",
                "egui::Modal",
                "egui::Panel",
                "egui::SidePanel",
                "egui::TopBottomPanel",
                "egui::CentralPanel",
            ]
            .iter()
            .any(|d| p == *d || p.starts_with(&format!("{d}::")))
        })
}

/// The app's vocabulary files (src/app/command.rs, error.rs, tasks.rs, theme.rs: what a panel asks for, a
/// task's error, the task every background job is, the colours) import no panel, so every part of the app can
/// speak them without depending on what draws.
///
/// A panel is a module of src/app (a file, or a folder with all its files) whose non-test code draws: it
/// names egui's `Ui` (`&mut Ui`, `egui::Ui`) or opens a window, area, modal or panel of its own
/// (`egui::Window`, …); this is computed, so a new panel is one too. Modules that only hold state, schedule
/// work or apply commands (settings, data, jobs, pipeline, logic, live, …) are not panels. A vocabulary file
/// names a module by `super::name` or `crate::app::name` (in a `use` or inline); a name re-exported by
/// src/app/mod.rs is not followed.
#[test]
fn the_apps_vocabulary_imports_no_panel() {
    let app = root().join("src/app");
    let mut panels = BTreeMap::new();
    for m in crate_modules() {
        if m.test
            || m.path.len() < 2
            || m.path[0] != "app"
            || VOCABULARY.contains(&m.path[1].as_str())
        {
            continue;
        }
        if draws(&Source::read(&m.file).built) {
            panels
                .entry(m.path[1].clone())
                .or_insert_with(|| shown(&m.file));
        }
    }
    let mut found = Vec::new();
    for name in VOCABULARY {
        let file = app.join(format!("{name}.rs"));
        for (line, path) in all_paths(&Source::read(&file).built) {
            let below = path
                .strip_prefix("super::")
                .or_else(|| path.strip_prefix("crate::app::"));
            let Some(below) = below else {
                continue;
            };
            let module = below.split("::").next().unwrap_or("");
            if let Some(drawn_in) = panels.get(module) {
                let item = below.rsplit("::").next().unwrap_or(below);
                found.push(format!(
                    "{}:{line} imports `{path}` from the panel `{module}` (it draws: {drawn_in}); move `{item}` \
                     out of the panel, into a vocabulary file or the module of its concept",
                    shown(&file)
                ));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// How many lines of `text` are code that is built (not inside a `#[cfg(test)]` item); a line belongs to the
/// item its last character is in.
fn code_lines(text: &str) -> usize {
    let code = code_only(text);
    if code.contains("#![cfg(test)]") {
        return 0;
    }
    let tests = test_ranges(&code);
    let mut offset = 0;
    let mut count = 0;
    for line in code.split_inclusive('\n') {
        let last = offset + line.trim_end_matches('\n').len().saturating_sub(1);
        if !tests.iter().any(|r| r.contains(&last)) {
            count += 1;
        }
        offset += line.len();
    }
    count
}

/// The reason a file's leading module doc (`//!` lines) gives for its length: what follows
/// [`LONG_MARK`], on to the end of that paragraph of the doc.
fn long_reason(text: &str) -> Option<String> {
    let doc: Vec<&str> = text
        .lines()
        .skip_while(|l| l.starts_with("#!["))
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim())
        .collect();
    let at = doc.iter().position(|l| l.contains(LONG_MARK))?;
    let mut reason = doc[at][doc[at].find(LONG_MARK)? + LONG_MARK.len()..]
        .trim()
        .to_owned();
    for l in doc[at + 1..].iter().take_while(|l| !l.is_empty()) {
        reason.push(' ');
        reason.push_str(l);
    }
    Some(reason)
}

/// No file of non-test code under src/ or crates/ holds over [`MOST_LINES`] lines of code without a reason in
/// its module doc: a line of its leading `//!` doc saying `Over 600 lines:` and why (at least a few words).
/// Lines are counted as the file has them (blank lines and comments too) but for the items behind
/// `#[cfg(test)]` (a test module, a test helper); a file that is test code is not counted at all.
#[test]
fn long_files_say_why() {
    let mut long = Vec::new();
    for file in code_files() {
        let text = read(&file);
        let lines = code_lines(&text);
        if lines <= MOST_LINES {
            continue;
        }
        let reason = long_reason(&text).unwrap_or_default();
        if reason.split_whitespace().count() < 4 {
            long.push(format!(
                "{} has {lines} lines of code (over {MOST_LINES}): split it by concept, or give the reason in its \
                 module doc as `//! {LONG_MARK} <why>`",
                shown(&file)
            ));
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// Lines of code of every file over [`MOST_LINES`], with or without a reason (`cargo test --test house
/// -- --ignored --nocapture`).
#[test]
#[ignore = "a listing, not a check"]
fn list_long_files() {
    for file in code_files() {
        let text = read(&file);
        let lines = code_lines(&text);
        if lines > MOST_LINES {
            let why = if long_reason(&text).is_some() {
                "reason given"
            } else {
                "no reason"
            };
            println!("{lines:5} {} ({why})", shown(&file));
        }
    }
}

/// The reading above, checked on small pieces of code, so that a rule cannot pass by reading nothing.
mod reading {
    use super::*;

    #[test]
    fn comments_strings_and_tests_are_blanked() {
        let code = code_only(
            "let a = \"std::fs\"; // std::thread\n/* tokio::x */ let b = r#\"egui::Ui\"#; let c = '\"';\nfn f<'a>(x: &'a str) { std::fs::read(x) }\n",
        );
        let paths: Vec<String> = all_paths(&code).into_iter().map(|(_, p)| p).collect();
        assert_eq!(paths, ["std::fs::read"]);
        let built = without_tests(&code_only(
            "use a::b;\n#[cfg(test)]\nmod tests {\n    use std::thread;\n}\n#[cfg(test)]\nfn g() -> [u8; 2] { [0; 2] }\nuse c::d;\n",
        ));
        let paths: Vec<String> = use_paths(&built).into_iter().map(|(_, p)| p).collect();
        assert_eq!(paths, ["a::b", "c::d"]);
    }

    #[test]
    fn use_trees_are_flattened() {
        let paths: Vec<String> =
            use_paths("use std::{fs, io::{self, Read}, thread as t};\npub use super::x::*;")
                .into_iter()
                .map(|(_, p)| p)
                .collect();
        assert_eq!(
            paths,
            [
                "std::fs",
                "std::io",
                "std::io::Read",
                "std::thread",
                "super::x::*"
            ]
        );
        assert!(impure("std::thread").is_some() && impure("aws_sdk_dynamodb::Client").is_some());
        assert!(impure("std::sync::Arc").is_none());
        // A method or function whose name begins with aws_ is no path.
        assert!(all_paths("q.aws_cli(t);\nfn aws_example() {}").is_empty());
    }

    #[test]
    fn test_lines_are_not_counted_and_reasons_are_read() {
        let text = "//! A file.\n//!\n//! Over 600 lines: one story\n//! told whole.\n\nfn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() {}\n}\n";
        assert_eq!(code_lines(text), 6);
        assert_eq!(long_reason(text).as_deref(), Some("one story told whole."));
    }
}
