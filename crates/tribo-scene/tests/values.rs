//! Numbers in project files and on the command line: formulas with Unicode whitespace, located
//! errors in characters, non-finite values, translations given as lists of vectors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tribo_scene::{LoadOptions, Project};
use tribo_yaml::Diagnostic;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const BALL_LINE: &str = "translation: [0, 0, drop_height + 0.1]";

/// `samples/ball/ball.yaml` with `edit` applied, loaded as `ball.yaml` from the sample's directory.
fn ball(edit: impl Fn(&str) -> String, overrides: &[(&str, &str)]) -> Result<Project, Diagnostic> {
    let path = root().join("samples/ball/ball.yaml");
    let text = std::fs::read_to_string(&path).expect("ball.yaml");
    assert!(text.contains(BALL_LINE), "the sample still has its translation line");
    let node = tribo_yaml::parse_str(&edit(&text), "ball.yaml")?;
    let options = LoadOptions {
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        share_dir: root().join("share"),
        ..Default::default()
    };
    Project::from_node(&node, &path, &options)
}

fn with_translation(formula: &str) -> impl Fn(&str) -> String + '_ {
    move |text: &str| text.replace(BALL_LINE, &format!("translation: {formula}"))
}

fn ball_height(project: &Project) -> f64 {
    project.scene.bodies[1].root_pose.translation.vector.z
}

fn error(result: Result<Project, Diagnostic>) -> String {
    result.map(|_| ()).expect_err("an error").to_string()
}

#[test]
fn an_ideographic_space_in_a_formula_is_a_space() {
    let project = ball(with_translation("[0, 0, drop_height\u{3000}+ 0.1]"), &[]).expect("loads");
    assert!((ball_height(&project) - 1.1).abs() < 1e-12);
    let project = ball(
        with_translation("[0, 0, \"\u{3000}drop_height\u{a0}*\u{3000}2 \"]"),
        &[],
    )
    .expect("loads");
    assert!((ball_height(&project) - 2.0).abs() < 1e-12);
}

#[test]
fn formula_errors_are_located_in_characters() {
    // Line 18, the list starts at column 18 and the formula at column 25; `drop_hieght` is 14
    // characters (16 bytes) into it.
    let err = error(ball(with_translation("[0, 0, drop_height\u{3000}+ drop_hieght]"), &[]));
    assert_eq!(
        err,
        "ball.yaml:18:39: unknown parameter `drop_hieght` (did you mean `drop_height`?)"
    );
    let err = error(ball(with_translation("[0, 0, drop_height × 2]"), &[]));
    assert_eq!(
        err,
        "ball.yaml:18:37: unexpected `×` (U+00D7) (did you mean `*`?) in expression `drop_height × 2`"
    );
    // In a quoted scalar the column moves past the quote.
    let err = error(ball(with_translation("[0, 0, \"1 + (2\"]"), &[]));
    assert_eq!(err, "ball.yaml:18:32: expected `)` in expression `1 + (2`");
}

#[test]
fn deep_nesting_in_a_project_is_a_located_error() {
    let deep = format!("[0, 0, {}1{}]", "(".repeat(100_000), ")".repeat(100_000));
    let err = error(ball(with_translation(&deep), &[]));
    assert!(err.starts_with("ball.yaml:18:"), "{err}");
    assert!(err.contains("is nested too deeply (at most 128 levels"), "{err}");
    let signs = format!("[0, 0, {}1]", "-".repeat(100_000));
    assert!(error(ball(with_translation(&signs), &[])).contains("nested too deeply"));
}

#[test]
fn non_finite_values_on_the_command_line_are_rejected() {
    for value in ["inf", "-inf", "infinity", "NaN", "1e400"] {
        let err = error(ball(|t| t.to_string(), &[("drop_height", value)]));
        assert_eq!(
            err,
            format!(
                "command line: parameter `drop_height` (--set drop_height={value}): expected a finite number, \
                 found `{value}`"
            )
        );
    }
    let project = ball(|t| t.to_string(), &[("drop_height", "2.5")]).expect("a finite value loads");
    assert!((ball_height(&project) - 2.6).abs() < 1e-12);
}

#[test]
fn non_finite_values_in_the_file_are_located_errors() {
    // A parameter default that is a number but not finite is not the word `.inf`.
    let err = error(ball(|t| t.replace("default: 1.0", "default: .inf"), &[]));
    assert!(
        err.starts_with("ball.yaml:6:27: expected a finite number, found"),
        "{err}"
    );
    // A literal.
    let err = error(ball(with_translation("[0, 0, 1e400]"), &[]));
    assert!(
        err.starts_with("ball.yaml:18:25: expected a finite number, found"),
        "{err}"
    );
    // Inside a formula: located at the number.
    let err = error(ball(with_translation("[0, 0, drop_height + 1e400]"), &[]));
    assert_eq!(err, "ball.yaml:18:39: expected a finite number, found `1e400`");
    // A formula whose value is not finite: located at the formula.
    let err = error(ball(with_translation("[0, 0, drop_height / 0]"), &[]));
    assert_eq!(
        err,
        "ball.yaml:18:25: `drop_height / 0` evaluates to infinity; a value must be a finite number"
    );
    let err = error(ball(with_translation("[0, 0, sqrt(0 - drop_height)]"), &[]));
    assert_eq!(
        err,
        "ball.yaml:18:25: `sqrt(0 - drop_height)` evaluates to NaN; a value must be a finite number"
    );
}

#[test]
fn a_word_parameter_in_a_formula_says_so() {
    let edit = |t: &str| {
        t.replace(
            "parameters:\n",
            "parameters:\n  surface: { default: rubber, choices: [rubber, ice] }\n",
        )
        .replace(BALL_LINE, "translation: [0, 0, drop_height + surface]")
    };
    let err = error(ball(edit, &[]));
    assert_eq!(
        err,
        "ball.yaml:19:39: parameter `surface` is a word (`rubber`), not a number"
    );
}

#[test]
fn a_translation_may_be_a_list_of_vectors() {
    let project = ball(
        with_translation("[[0, 0, drop_height], [0.2, 0, 0.1], [0, -0.5, 0]]"),
        &[],
    )
    .expect("loads");
    let t = project.scene.bodies[1].root_pose.translation.vector;
    assert_eq!([t.x, t.y, t.z], [0.2, -0.5, 1.1]);
    let err = error(ball(with_translation("[[0, 0, 1], [0, 1]]"), &[]));
    assert_eq!(err, "ball.yaml:18:30: expected a list of 3 numbers, found 2 values");
    let err = error(ball(
        with_translation("[[0, 0, 1e300], [0, 0, 1.7e308], [0, 0, 1.7e308]]"),
        &[],
    ));
    assert_eq!(err, "ball.yaml:18:18: the translation is too large to represent");
}
