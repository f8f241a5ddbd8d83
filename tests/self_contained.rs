#![allow(clippy::panic)]
//! The repository stands alone: no source, project, model or script in it reads a directory beside
//! the checkout. (`.ci/run` proves the same end to end by running the test suite in a fresh clone
//! with nothing beside it.)

use std::fs;
use std::path::{Path, PathBuf};

/// Files whose contents a test, sample or command reads or runs.
const CHECKED: &[&str] = &["rs", "toml", "yaml", "yml", "body", "seq", "cnoid", "sh", "py", "run"];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    files_with(dir, CHECKED, out);
}

/// Every file below `dir` (outside `target/`, `.git/` and Python environments such as the one
/// `bench/anchors.py` installs MuJoCo into, `bench/.venv/`) with one of `extensions`, or named
/// `run`.
fn files_with(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name == ".git" || name == ".venv" {
            continue;
        }
        if path.is_dir() {
            files_with(&path, extensions, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e))
            || name == "run"
        {
            out.push(path);
        }
    }
}

#[test]
fn nothing_reads_outside_the_repository() {
    // Spelled in two pieces so that this file does not match itself.
    let outside = ["../", "shared"].concat();
    let root = tribo_tests::root();
    let mut all = Vec::new();
    for top in ["crates", "tests", "samples", "share", ".ci"] {
        files(&root.join(top), &mut all);
    }
    assert!(
        all.len() > 100,
        "only {} files found under {}",
        all.len(),
        root.display()
    );
    let offenders: Vec<String> = all
        .iter()
        .filter_map(|path| {
            let text = fs::read_to_string(path).ok()?;
            let line = text.lines().position(|l| l.contains(&outside))?;
            Some(format!("{}:{}", path.display(), line + 1))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "files reaching outside the repository: {offenders:#?}"
    );
}

#[test]
fn choreonoid_files_carry_their_licence() {
    let dir = tribo_tests::root().join("share/choreonoid");
    let licence = fs::read_to_string(dir.join("LICENSE")).expect("share/choreonoid/LICENSE");
    assert!(licence.contains("MIT license"), "{licence}");
    for file in ["model/SR1.body", "motion/SR1WalkPattern1.seq", "SR1WalkSlippy.cnoid"] {
        assert!(dir.join(file).is_file(), "share/choreonoid/{file} is missing");
    }
}

/// Files that may cite documents: sources, manifests, scripts and Markdown.
const CITING: &[&str] = &["rs", "md", "toml", "yaml", "yml", "py", "sh"];

fn citing_files(dir: &Path, out: &mut Vec<PathBuf>) {
    files_with(dir, CITING, out);
}

/// The characters of a file path written in text.
fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')
}

/// The Markdown file a citation names, if it exists in the repository: a path with a directory is
/// taken relative to the repository root or to the citing file's directory; a bare name may live
/// beside the citing file, in the root, in `docs/` or in `docs/design/`.
fn resolve_markdown(name: &str, root: &Path, citing: &Path) -> Option<PathBuf> {
    let here = citing.parent().unwrap_or(root);
    let mut candidates = vec![here.join(name)];
    if name.contains('/') {
        candidates.insert(0, root.join(name));
    } else {
        candidates.extend([
            root.join(name),
            root.join("docs").join(name),
            root.join("docs/design").join(name),
        ]);
    }
    candidates
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .find(|p| p.is_file() && p.starts_with(root))
}

/// The section numbers a Markdown file's headings give: `## 3.1 Anchor spring` → `3.1`,
/// `## 0. The YAML dialect` → `0`.
fn headings(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('#'))
        .filter_map(|l| l.trim_start_matches('#').split_whitespace().next())
        .map(|n| n.trim_end_matches('.').to_string())
        .filter(|n| n.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect()
}

/// The path token that ends just before byte `end` of `line`, skipping a closing backtick and a
/// Markdown link target: for "`docs/design/x.md` §2", "[x.md](../x.md) §2" and "x.md §2".
fn path_before(line: &str, end: usize) -> Option<&str> {
    let mut head = line[..end].trim_end();
    if head.ends_with(')') {
        if let Some(open) = head.rfind("](") {
            let target = &head[open + 2..head.len() - 1];
            if target.ends_with(".md") && target.chars().all(is_path_char) {
                return Some(target);
            }
        }
    }
    head = head.trim_end_matches('`');
    let start = head
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_path_char(c))
        .last()
        .map(|(i, _)| i)?;
    Some(&head[start..])
}

/// Section numbers written after a `§` at byte `at`: "§3.1" → [3.1]; "§4.1.2–4.1.3, §4.2.4" →
/// [4.1.2, 4.1.3, 4.2.4]; "§3.2 and §6.1" → [3.2, 6.1]; "§3–4" → [3, 4].
fn sections_after(line: &str, at: usize) -> Vec<String> {
    let number = |s: &str| -> usize {
        let n = s
            .char_indices()
            .take_while(|&(_, c)| c.is_ascii_digit() || c == '.')
            .last()
            .map_or(0, |(i, c)| i + c.len_utf8());
        // "§3.1." at the end of a sentence: the last dot is punctuation.
        if s[..n].ends_with('.') {
            n - 1
        } else {
            n
        }
    };
    let mut out = Vec::new();
    let mut rest = &line[at + '§'.len_utf8()..];
    loop {
        let n = number(rest);
        if n == 0 {
            break;
        }
        out.push(rest[..n].to_string());
        rest = &rest[n..];
        let next = ["–", "-", ", §", " and §", ", and §", "; §"]
            .iter()
            .find(|sep| rest.starts_with(**sep));
        match next {
            Some(sep) => rest = &rest[sep.len()..],
            None => break,
        }
    }
    out
}

/// Is there `choreonoid@` followed by at least seven hex digits on this line?
fn names_choreonoid_commit(line: &str) -> bool {
    line.match_indices("choreonoid@").any(|(i, m)| {
        line[i + m.len()..]
            .chars()
            .take_while(|c| c.is_ascii_hexdigit())
            .count()
            >= 7
    })
}

/// Does this line cite a line of a C++ file (`File.cpp:123`, `File.h:12-40`, "`File.cpp`, lines 5-9")?
fn cites_cpp_line(line: &str) -> bool {
    [".cpp", ".h", ".hpp"].iter().any(|ext| {
        line.match_indices(ext).any(|(i, _)| {
            let before = line[..i].chars().next_back();
            let after = &line[i + ext.len()..];
            let after = after.trim_start_matches('`');
            before.is_some_and(|c| c.is_ascii_alphanumeric())
                && (after.starts_with(':') && after[1..].starts_with(|c: char| c.is_ascii_digit())
                    || after.starts_with(", line"))
        })
    })
}

/// Everything the code and documents cite is in the repository: a `name.md §N` citation names a
/// Markdown file that exists and a numbered heading of it; no text points at the design folder or
/// seed texts beside the checkout; and a Choreonoid source line is cited with the commit it was
/// read at (`choreonoid@<hex> src/Body/File.cpp:LINE`), since line numbers move between versions.
#[test]
fn citations_name_files_in_the_repository() {
    let root = tribo_tests::root().canonicalize().expect("repository root");
    let mut all = Vec::new();
    citing_files(&root, &mut all);
    assert!(
        all.len() > 100,
        "only {} files found under {}",
        all.len(),
        root.display()
    );
    // Spelled in pieces so that this file does not match itself.
    let outside: Vec<String> = [
        ["shared", "/seeds"],
        ["shared", "/design"],
        ["../", "shared"],
        ["cslc-paper", "-summary"],
        ["contact-mechanics", "-chapter"],
        ["contact-materials", ".ja"],
        ["rapier-0.36", "-notes"],
        // A section of a document named only by description.
        ["chapter", " §"],
        ["chapter's", " §"],
        ["Chapter", " §"],
    ]
    .iter()
    .map(|p| p.concat())
    .collect();
    let mut offenders = Vec::new();
    for path in &all {
        let shown = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        // This file's comments show the forms it checks.
        if shown == "tests/self_contained.rs" {
            continue;
        }
        let Ok(text) = fs::read_to_string(path) else { continue };
        for (n, line) in text.lines().enumerate() {
            let at = format!("{shown}:{}", n + 1);
            if let Some(word) = outside.iter().find(|w| line.contains(w.as_str())) {
                offenders.push(format!("{at}: points outside the repository (`{word}`)"));
            }
            if cites_cpp_line(line) && !names_choreonoid_commit(line) {
                offenders.push(format!("{at}: a C++ line citation without `choreonoid@<commit>`"));
            }
            for (i, _) in line.match_indices('§') {
                let Some(name) = path_before(line, i) else { continue };
                // A file name, not a pattern such as "`<file>.md §N`".
                let stem = name.rsplit('/').next().unwrap_or(name);
                if !name.ends_with(".md") || stem.len() <= ".md".len() {
                    continue;
                }
                let Some(target) = resolve_markdown(name, &root, path) else {
                    offenders.push(format!("{at}: cites `{name}`, which is not in the repository"));
                    continue;
                };
                let numbers = headings(&fs::read_to_string(&target).unwrap_or_default());
                for section in sections_after(line, i) {
                    if !numbers.contains(&section) {
                        offenders.push(format!("{at}: `{name}` has no section {section}"));
                    }
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "citations of files outside the repository: {offenders:#?}"
    );
}
