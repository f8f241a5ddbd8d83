//! Randomised mutations of the sample project files and of formulas never panic: each gives a
//! project (or a value), or an error located at FILE:LINE:COL inside the text. The seed is fixed,
//! so a failure reproduces.
//!
//! Mutations: bytes and characters inserted, deleted and replaced (multi-byte characters, U+3000
//! IDEOGRAPHIC SPACE, invalid UTF-8 read as U+FFFD), YAML punctuation, deep nesting, huge and
//! non-finite numbers, `${…}` variables, lines duplicated, swapped and cut, `--set` values; the
//! small `.cnoid` fixtures likewise.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tribo_scene::expr::{evaluate, ExprContext};
use tribo_scene::{LoadOptions, Project};
use tribo_yaml::Diagnostic;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Fragments a mutation inserts: YAML syntax, formula syntax, hostile characters and numbers.
fn tokens() -> Vec<String> {
    let mut out: Vec<String> = [
        "\u{3000}",
        "\u{a0}",
        "é",
        "ド",
        "×",
        "−",
        "＋",
        "１",
        "\u{feff}",
        "\u{0}",
        "\u{200b}",
        "𝑥",
        "[",
        "]",
        "{",
        "}",
        ":",
        ": ",
        "- ",
        ",",
        "&A ",
        "*A",
        "<<: ",
        "'",
        "\"",
        "\t",
        "\n",
        "#",
        "|\n",
        "? ",
        "!!str ",
        "~",
        "1e400",
        "-1e400",
        ".inf",
        "-.inf",
        ".nan",
        "inf",
        "nan",
        "0",
        "-1",
        "1e-400",
        "0x10",
        "${",
        "}",
        "${SHARE}",
        "${PROJECT_DIR}",
        "${drop_height}",
        "${nope}",
        "drop_height",
        "friction(Ground, Ball)",
        "restitution(",
        "sqrt(",
        "^",
        "/0",
        "*",
        "+",
        "-",
        "(",
        ")",
        "10^400",
        "[[0, 0, 1], [0, 0, 1]]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    out.push("9".repeat(400));
    out.push("(".repeat(300));
    out.push(")".repeat(300));
    out.push("-".repeat(300));
    out.push(format!("{}1{}", "(".repeat(200), ")".repeat(200)));
    out.push("+1".repeat(200));
    out
}

/// A random character: mostly ASCII, sometimes multi-byte or whitespace other than a space.
fn random_char(rng: &mut ChaCha8Rng) -> char {
    const SPECIAL: [char; 10] = ['\u{3000}', '\u{a0}', 'é', 'ド', '×', '＋', '\u{fffd}', '\n', '\t', '𝑥'];
    if rng.random_bool(0.7) {
        char::from(rng.random_range(0x20u8..0x7f))
    } else {
        SPECIAL[rng.random_range(0..SPECIAL.len())]
    }
}

/// A char boundary of `text` at or before `at`.
fn boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutate(text: &str, tokens: &[String], rng: &mut ChaCha8Rng) -> String {
    let mut text = text.to_string();
    let rounds = rng.random_range(1..=3);
    for _ in 0..rounds {
        let len = text.len();
        let at = boundary(&text, rng.random_range(0..=len));
        match rng.random_range(0..9) {
            0 | 1 => {
                let token = &tokens[rng.random_range(0..tokens.len())];
                text.insert_str(at, token);
            }
            2 => {
                // Delete up to 8 characters.
                let n = rng.random_range(1..=8);
                let end = text[at..].char_indices().nth(n).map_or(text.len(), |(i, _)| at + i);
                text.replace_range(at..end, "");
            }
            3 => {
                // Replace one character.
                if let Some(c) = text[at..].chars().next() {
                    let new = random_char(rng).to_string();
                    text.replace_range(at..at + c.len_utf8(), &new);
                }
            }
            4 => text.insert(at, random_char(rng)),
            5 => {
                // Raw bytes: replace one, and read the result as a file with invalid UTF-8 would be
                // shown (U+FFFD).
                let mut bytes = text.into_bytes();
                if !bytes.is_empty() {
                    let i = rng.random_range(0..bytes.len());
                    bytes[i] = rng.random();
                }
                text = String::from_utf8_lossy(&bytes).into_owned();
            }
            6 => {
                // Duplicate or drop a line.
                let mut lines: Vec<&str> = text.split('\n').collect();
                let i = rng.random_range(0..lines.len());
                if rng.random_bool(0.5) {
                    lines.insert(i, lines[i]);
                } else {
                    lines.remove(i);
                }
                text = lines.join("\n");
            }
            7 => {
                // Swap two lines.
                let mut lines: Vec<&str> = text.split('\n').collect();
                let (i, j) = (rng.random_range(0..lines.len()), rng.random_range(0..lines.len()));
                lines.swap(i, j);
                text = lines.join("\n");
            }
            _ => text.truncate(at),
        }
    }
    text
}

/// `d` names `file` at a line and column inside `text`, or another file (a model, a table) at a
/// line and column, or the command line.
fn check_located(d: &Diagnostic, file: &str, text: &str, what: &str) {
    let location = &d.location;
    if location.file.as_ref() == "command line" {
        return;
    }
    assert!(
        location.line >= 1 && location.col >= 1,
        "{what} not located: {d}\n---\n{text}"
    );
    if location.file.as_ref() == file {
        let lines: Vec<&str> = text.split('\n').collect();
        assert!(
            location.line <= lines.len() + 1,
            "{what} beyond the text's {} lines: {d}\n---\n{text}",
            lines.len()
        );
    } else {
        assert!(
            Path::new(location.file.as_ref()).is_file(),
            "{what} located in a file that does not exist: {d}"
        );
    }
}

fn options(overrides: BTreeMap<String, String>) -> LoadOptions {
    LoadOptions {
        overrides,
        share_dir: root().join("share"),
        ..Default::default()
    }
}

/// Every sample project file (those with `bodies:`), with its path and text.
fn sample_projects() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let samples = root().join("samples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&samples)
        .expect("samples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("a sample directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a sample file");
            if text.lines().any(|l| l.starts_with("bodies:")) {
                out.push((path, text));
            }
        }
    }
    out
}

/// Load `text` as if it were the file at `path` (so its relative paths resolve), named `file`.
fn load(text: &str, path: &Path, file: &str, overrides: BTreeMap<String, String>) -> Result<Project, Diagnostic> {
    let node = tribo_yaml::parse_str(text, file)?;
    Project::from_node(&node, path, &options(overrides))
}

#[test]
fn mutated_project_files_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x7472_6962_6f5f_7072);
    let tokens = tokens();
    let projects = sample_projects();
    assert!(projects.len() >= 7, "the samples' project files: {}", projects.len());
    let mut outcomes = [0usize; 2];
    for (path, source) in &projects {
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // The original loads.
        let project = load(source, path, &file, BTreeMap::new()).map_err(|e| e.to_string());
        assert!(project.is_ok(), "{file}: {project:?}");
        // The walker's 3800-frame pattern takes most of a load; it gets fewer rounds.
        let rounds = if source.contains("joint_pattern") { 12 } else { 200 };
        for _ in 0..rounds {
            let text = mutate(source, &tokens, &mut rng);
            match load(&text, path, &file, BTreeMap::new()) {
                Ok(project) => {
                    for w in &project.warnings {
                        check_located(w, &file, &text, "warning");
                    }
                    outcomes[0] += 1;
                }
                Err(e) => {
                    assert!(e.is_error(), "{e}");
                    check_located(&e, &file, &text, "error");
                    outcomes[1] += 1;
                }
            }
        }
    }
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    assert!(outcomes[0] > 100 && outcomes[1] > 100, "ok/err = {outcomes:?}");
}

#[test]
fn hostile_set_values_are_command_line_errors() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0073_6574);
    let tokens = tokens();
    let path = root().join("samples/ball/ball.yaml");
    let source = std::fs::read_to_string(&path).expect("ball.yaml");
    for _ in 0..200 {
        let value = mutate("1.0", &tokens, &mut rng);
        let overrides = BTreeMap::from([("drop_height".to_string(), value.clone())]);
        match load(&source, &path, "ball.yaml", overrides) {
            Ok(project) => {
                let z = project.scene.bodies[1].root_pose.translation.vector.z;
                assert!(z.is_finite(), "--set drop_height={value:?} gave z = {z}");
            }
            Err(e) => {
                assert_eq!(
                    e.location.file.as_ref(),
                    "command line",
                    "--set drop_height={value:?}: {e}"
                );
                assert!(e.message.contains("drop_height"), "{e}");
            }
        }
    }
}

/// Parameters and materials for formulas outside a project.
struct Ctx;

impl ExprContext for Ctx {
    fn variable(&self, name: &str) -> Option<f64> {
        match name {
            "drop_height" => Some(1.0),
            "g" => Some(9.81),
            "pi" => Some(std::f64::consts::PI),
            _ => None,
        }
    }
    fn variable_names(&self) -> Vec<String> {
        ["drop_height", "g", "pi"].iter().map(|s| s.to_string()).collect()
    }
    fn material_property(&self, _property: &str, a: &str, b: &str) -> Result<f64, String> {
        match (a, b) {
            ("Ground", "Ball") | ("Ball", "Ground") => Ok(0.5),
            _ => Err(format!("no contact material {a}/{b}")),
        }
    }
}

const FORMULAS: [&str; 8] = [
    "drop_height + 0.1",
    "drop_height * restitution(Ground, Ball)^2",
    "speed^2 / (2 * friction(Ground, Ball) * g)",
    "-(1 + 2) * 3 ^ -2 / sqrt(abs(-4))",
    "max(1, min(2, 3), atan2(1, 2)) - deg(rad(30))",
    "1e-3 * 2.5E+2",
    "((drop_height))",
    "drop_height\u{3000}+\u{3000}0.1",
];

#[test]
fn mutated_formulas_give_a_finite_value_or_an_error_inside_the_text() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x6578_7072);
    let tokens = tokens();
    let mut outcomes = [0usize; 2];
    for i in 0..4000 {
        let source = FORMULAS[i % FORMULAS.len()];
        let text = mutate(source, &tokens, &mut rng);
        match evaluate(&text, &Ctx) {
            Ok(v) => {
                assert!(v.is_finite(), "`{text}` = {v}");
                outcomes[0] += 1;
            }
            Err(e) => {
                let chars = text.chars().count();
                assert!(e.offset <= chars, "`{text}`: offset {} of {chars} characters", e.offset);
                assert!(!e.message.is_empty());
                outcomes[1] += 1;
            }
        }
    }
    assert!(outcomes[0] > 200 && outcomes[1] > 200, "ok/err = {outcomes:?}");
}

/// Formulas mutated inside a project file: their errors point into the formula's line.
#[test]
fn mutated_formulas_in_a_project_are_located_on_their_line() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x6c69_6e65);
    let tokens = tokens();
    let path = root().join("samples/ball/ball.yaml");
    let source = std::fs::read_to_string(&path).expect("ball.yaml");
    let line = "translation: [0, 0, drop_height + 0.1]";
    let line_number = source
        .lines()
        .position(|l| l.trim() == line)
        .map(|i| i + 1)
        .expect("the translation line");
    for _ in 0..250 {
        let formula = mutate("drop_height + 0.1", &tokens, &mut rng).replace('\n', " ");
        // Quoted, so YAML syntax in the formula stays part of it.
        let quoted = format!("\"{}\"", formula.replace('\\', "\\\\").replace('"', "\\\""));
        let text = source.replace(line, &format!("translation: [0, 0, {quoted}]"));
        match load(&text, &path, "ball.yaml", BTreeMap::new()) {
            Ok(project) => {
                let z = project.scene.bodies[1].root_pose.translation.vector.z;
                assert!(z.is_finite(), "`{formula}` gave z = {z}");
            }
            Err(e) => {
                assert_eq!(
                    (e.location.file.as_ref(), e.location.line),
                    ("ball.yaml", line_number),
                    "`{formula}`: {e}"
                );
                let width = text.lines().nth(line_number - 1).map_or(0, |l| l.chars().count());
                assert!(
                    e.location.col >= 1 && e.location.col <= width + 1,
                    "`{formula}`: column {} of a {width}-character line: {e}",
                    e.location.col
                );
            }
        }
    }
}

/// Mutated `.cnoid` projects (written to a temporary directory; they refer to models through
/// `${SHARE}`): a project or a located error.
#[test]
fn mutated_cnoid_projects_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x63_6e6f_6964);
    let tokens = tokens();
    let dir = std::env::temp_dir().join(format!("tribo-scene-mutation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cnoid");
    let mut outcomes = [0usize; 2];
    for name in ["ball-drop.cnoid", "same-names.cnoid"] {
        let source = std::fs::read_to_string(fixtures.join(name)).expect("a fixture");
        let path = dir.join(name);
        let file = path.display().to_string();
        for _ in 0..CNOID_ROUNDS {
            let text = mutate(&source, &tokens, &mut rng);
            std::fs::write(&path, &text).expect("write the mutated project");
            match Project::load(&path, &options(BTreeMap::new())) {
                Ok(project) => {
                    for w in &project.warnings {
                        check_located(w, &file, &text, "warning");
                    }
                    outcomes[0] += 1;
                }
                Err(e) => {
                    assert!(e.is_error(), "{e}");
                    check_located(&e, &file, &text, "error");
                    outcomes[1] += 1;
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert!(outcomes[0] > 20 && outcomes[1] > 20, "ok/err = {outcomes:?}");
}

const CNOID_ROUNDS: usize = 150;
