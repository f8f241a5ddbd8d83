//! The crate boundaries ARCHITECTURE.md states, checked on the manifests: which crate may depend
//! on which. A dependency that breaks a boundary fails here with the rule it breaks.

#![allow(clippy::panic)]

use std::collections::BTreeMap;
use std::path::Path;

use tribo_tests::root;

/// A crate's internal (`tribo*`) dependencies by kind (`dependencies`, `dev-dependencies`, …).
struct Manifest {
    path: String,
    internal: BTreeMap<String, Vec<String>>,
    /// Internal dependencies not written `name.workspace = true`.
    not_from_workspace: Vec<String>,
}

fn read_manifest(path: &Path) -> Manifest {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut section = String::new();
    let mut internal: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut not_from_workspace = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_string();
            continue;
        }
        if !section.ends_with("dependencies") {
            continue;
        }
        let Some(name) = line.split(['=', '.', ' ']).next().filter(|n| n.starts_with("tribo")) else {
            continue;
        };
        internal.entry(section.clone()).or_default().push(name.to_string());
        if !line.starts_with(&format!("{name}.workspace = true")) {
            not_from_workspace.push(name.to_string());
        }
    }
    Manifest {
        path: path.display().to_string(),
        internal,
        not_from_workspace,
    }
}

/// Every crate under `crates/` by package name (directory = package).
fn manifests() -> BTreeMap<String, Manifest> {
    let crates = root().join("crates");
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(&crates).expect("crates/") {
        let dir = entry.expect("entry").path();
        let manifest = dir.join("Cargo.toml");
        if manifest.exists() {
            let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            all.insert(name, read_manifest(&manifest));
        }
    }
    all.insert("tribo-tests".into(), read_manifest(&root().join("tests/Cargo.toml")));
    all
}

fn deps<'a>(m: &'a Manifest, kinds: &[&str]) -> Vec<&'a str> {
    kinds
        .iter()
        .flat_map(|k| m.internal.get(*k).into_iter().flatten())
        .map(String::as_str)
        .collect()
}

const ENGINES: [&str; 3] = ["tribo-pgs", "tribo-rapier", "tribo-cslc-engine"];
const SOLVERS: [&str; 3] = ["tribo-lcp", "tribo-multibody", "tribo-cslc"];
const ALL_KINDS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

#[test]
fn engines_never_depend_on_each_other_nor_on_files_runner_or_projects() {
    let all = manifests();
    for engine in ENGINES {
        let m = &all[engine];
        for dep in deps(m, &ALL_KINDS) {
            assert!(
                !ENGINES.contains(&dep),
                "{}: engine `{engine}` depends on engine `{dep}` (engines never depend on each other; \
                 a test or benchmark that needs two engines lives in `tribo` or `tests/`)",
                m.path
            );
        }
        for dep in deps(m, &["dependencies"]) {
            assert!(
                !["tribo-scene", "tribo-runner", "tribo-yaml", "tribo-report", "tribo"].contains(&dep),
                "{}: engine `{engine}` depends on `{dep}`; engines compile against the engine API \
                 (tribo-engine), the model and material types and solver crates only",
                m.path
            );
        }
    }
}

#[test]
fn solver_crates_know_nothing_of_the_project() {
    let all = manifests();
    for solver in SOLVERS {
        let m = &all[solver];
        let internal = deps(m, &["dependencies"]);
        assert!(
            internal.is_empty(),
            "{}: solver crate `{solver}` depends on {internal:?}; solvers know nothing of files, models or engines",
            m.path
        );
    }
}

#[test]
fn the_engine_api_depends_on_no_runner_project_or_engine() {
    let all = manifests();
    let m = &all["tribo-engine"];
    for dep in deps(m, &ALL_KINDS) {
        assert!(
            ["tribo-yaml", "tribo-model", "tribo-material"].contains(&dep),
            "{}: the engine API depends on `{dep}`; it may use only the model and material data types \
             (and tribo-yaml for located option errors)",
            m.path
        );
    }
}

#[test]
fn internal_crates_come_from_the_workspace_table() {
    let all = manifests();
    let workspace = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    for (name, m) in &all {
        assert!(
            m.not_from_workspace.is_empty(),
            "{}: {:?} should be written `NAME.workspace = true`",
            m.path,
            m.not_from_workspace
        );
        if name != "tribo-tests" && name != "tribo-cli" {
            assert!(
                workspace.contains(&format!("\n{name} = {{ path = \"crates/{name}\" }}")),
                "the workspace Cargo.toml has no `[workspace.dependencies]` entry for `{name}`"
            );
        }
    }
}

/// `Result<…, String>` in `text` (the shape `Result<[^>]*, *String>`), by line number.
fn string_results(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(start) = rest.find("Result<") {
            let after = &rest[start + "Result<".len()..];
            let inside = after.split('>').next().unwrap_or_default();
            if inside.contains(',') && inside.rsplit(',').next().is_some_and(|last| last.trim() == "String") {
                lines.push(number + 1);
                break;
            }
            rest = after;
        }
    }
    lines
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn engine_crates_have_typed_errors() {
    assert_eq!(string_results("fn f() -> Result<(), String> {"), vec![1]);
    assert_eq!(
        string_results("fn f() -> Result<Vec<u8>, Error> {"),
        Vec::<usize>::new()
    );
    let mut found = Vec::new();
    for engine in ENGINES {
        let mut files = Vec::new();
        rust_files(&root().join("crates").join(engine).join("src"), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            found.extend(
                string_results(&text)
                    .into_iter()
                    .map(|l| format!("{}:{l}", file.display())),
            );
        }
    }
    assert!(
        found.is_empty(),
        "errors as strings in engine crates (use a typed error): {found:#?}"
    );
}
