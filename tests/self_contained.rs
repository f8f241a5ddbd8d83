#![allow(clippy::panic)]
//! The repository stands alone: no source, project, model or script in it reads a directory beside
//! the checkout. (`.ci/run` proves the same end to end by running the test suite in a fresh clone
//! with nothing beside it.)

use std::fs;
use std::path::{Path, PathBuf};

/// Files whose contents a test, sample or command reads or runs.
const CHECKED: &[&str] = &["rs", "toml", "yaml", "yml", "body", "seq", "cnoid", "sh", "py", "run"];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        if path.is_dir() {
            files(&path, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| CHECKED.contains(&e))
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
