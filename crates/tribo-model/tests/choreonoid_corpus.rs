//! Counts how many `.body` files of a Choreonoid tree load and pass the engines' checks (as
//! `tribo check FILE` does), how many of those have collision geometry on every link, and how
//! many close kinematic loops (`extra_joints`: `rapier` closes them, `pgs` refuses them). Choreonoid's tree is not part of the repository, so the test is
//! ignored unless asked for:
//!
//! ```text
//! TRIBO_CHOREONOID_DIR=/path/to/choreonoid cargo test -p tribo-model --test choreonoid_corpus -- --ignored --nocapture
//! ```
//!
//! It prints the counts and the refusals grouped by message, and fails if a refusal is not
//! located (file, line and column) or if a load panics.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn body_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            body_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "body") {
            out.push(path);
        }
    }
}

/// The message without the parts that name one file (paths, `…` in backquotes stay).
fn kind(message: &str) -> String {
    let message = message.split(" (in the sub-body included at").next().unwrap_or(message);
    message.chars().take(110).collect()
}

#[test]
#[ignore = "needs a Choreonoid tree: set TRIBO_CHOREONOID_DIR"]
fn choreonoid_bodies_load_and_collide() {
    let dir = std::env::var_os("TRIBO_CHOREONOID_DIR").expect("set TRIBO_CHOREONOID_DIR to a Choreonoid tree");
    let mut files = Vec::new();
    body_files(Path::new(&dir), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .body file under {}", Path::new(&dir).display());

    let mut loaded = 0;
    let mut colliding = 0;
    let mut closed_loops = Vec::new();
    // Files with a link that has no collision shape: from a mesh format tribo does not read, or
    // from no shape at all.
    let mut unread_meshes = 0;
    let mut shapeless_links = 0;
    let mut refusals: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut unlocated = Vec::new();
    for file in &files {
        let checked = tribo_model::load_body(file).and_then(|body| tribo_model::validate(&body, false).map(|()| body));
        match checked {
            Ok(body) => {
                loaded += 1;
                if !body.extra_joints.is_empty() {
                    closed_loops.push(file.display().to_string());
                }
                if body
                    .links
                    .iter()
                    .all(|l| !l.shapes.is_empty() && l.uncollided.is_empty())
                {
                    colliding += 1;
                } else if body.links.iter().any(|l| !l.uncollided.is_empty()) {
                    unread_meshes += 1;
                } else {
                    shapeless_links += 1;
                }
            }
            Err(e) => {
                if e.location.line == 0 || e.location.col == 0 {
                    unlocated.push(e.to_string());
                }
                refusals
                    .entry(kind(&e.message))
                    .or_default()
                    .push(file.display().to_string());
            }
        }
    }
    println!(
        "{} .body files: {loaded} load and pass the engines' checks, {colliding} of them with collision geometry \
         on every link; {} of them close kinematic loops (extra_joints)",
        files.len(),
        closed_loops.len()
    );
    for f in &closed_loops {
        println!("        {f}");
    }
    println!(
        "not colliding on every link: {unread_meshes} with a mesh tribo does not read, {shapeless_links} with a link \
         that has no shape"
    );
    for (message, files) in &refusals {
        println!("{:4}  {message}", files.len());
        for f in files {
            println!("        {f}");
        }
    }
    assert!(
        unlocated.is_empty(),
        "refusals without a line and column: {unlocated:#?}"
    );
}
