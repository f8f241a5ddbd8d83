//! Malformed project files: each gives a located error naming what was expected, snapshot-tested.
//! Also: command-line overrides of unknown parameters and `--strict` on unknown materials.

use std::collections::BTreeMap;
use std::path::Path;

use tribo_scene::{LoadOptions, Project};

fn options() -> LoadOptions {
    LoadOptions {
        share_dir: tribo_tests::root().join("share"),
        ..Default::default()
    }
}

/// Messages with the machine-specific root replaced, so snapshots are stable.
fn stable(message: &str) -> String {
    let root = tribo_tests::root()
        .canonicalize()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    message
        .replace(&tribo_tests::root().display().to_string(), "<root>")
        .replace(&root, "<root>")
}

/// Each file is loaded with `--strict`, so keys nothing reads (warnings otherwise) are errors too.
#[test]
fn every_malformed_project_gives_a_located_error() {
    let dir = Path::new("malformed-projects");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the corpus has {} files", files.len());
    let mut report = String::new();
    for file in &files {
        let strict = LoadOptions {
            strict: true,
            ..options()
        };
        let err = Project::load(file, &strict).expect_err(&format!("{} should fail", file.display()));
        let text = stable(&err.to_string());
        let prefix = format!("{}:", file.display());
        assert!(text.starts_with(&prefix), "{text}");
        assert!(err.location.line > 0, "{text}: no line");
        report.push_str(&text);
        report.push('\n');
    }
    insta::assert_snapshot!("malformed_projects", report);
}

#[test]
fn unread_keys_are_warnings_with_the_closest_key() {
    let text = "bodeis: []\nbodies:\n  - {name: ball, model: \"${SHARE}/model/ball.body\", fixd: true}\n";
    let root = tribo_yaml::parse_str(text, "p.yaml").expect("yaml");
    let project = Project::from_node(&root, Path::new("p.yaml"), &options()).expect("loads with warnings");
    let warnings: Vec<String> = project.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "p.yaml:3:53: warning: unknown key `fixd` in a body is not read; did you mean `fixed`?",
            "p.yaml:1:1: warning: unknown key `bodeis` in a tribo project is not read; did you mean `bodies`?",
        ]
    );
}

#[test]
fn unknown_override_names_the_closest_parameter() {
    let mut opts = options();
    opts.overrides = BTreeMap::from([("drop_hight".to_string(), "2".to_string())]);
    let err = Project::load(&tribo_tests::root().join("samples/ball/ball.yaml"), &opts).expect_err("unknown");
    assert_eq!(
        err.to_string(),
        "command line: unknown parameter `drop_hight` (did you mean `drop_height`?); known parameters: drop_height"
    );
    opts.overrides = BTreeMap::from([("drop_height".to_string(), "high".to_string())]);
    let err = Project::load(&tribo_tests::root().join("samples/ball/ball.yaml"), &opts).expect_err("not a number");
    assert_eq!(
        err.to_string(),
        "command line: parameter `drop_height` is a number, found `high`"
    );
}

#[test]
fn unknown_material_is_a_warning_or_a_strict_error() {
    let text = "bodies:\n  - {name: ball, model: \"${SHARE}/model/ball.body\", material: Rubbr}\n";
    let root = tribo_yaml::parse_str(text, "p.yaml").expect("yaml");
    let project = Project::from_node(&root, Path::new("p.yaml"), &options()).expect("loads with a warning");
    let warning = project
        .warnings
        .iter()
        .find(|w| w.message.contains("unknown material"))
        .expect("warning");
    assert!(warning.to_string().starts_with("p.yaml:2:"), "{warning}");
    let strict = LoadOptions {
        strict: true,
        ..options()
    };
    let err = Project::from_node(&root, Path::new("p.yaml"), &strict).expect_err("strict");
    assert!(err.to_string().contains("unknown material `Rubbr`"), "{err}");
}
