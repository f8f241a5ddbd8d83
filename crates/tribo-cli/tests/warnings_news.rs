//! Warnings only when they are news: an engine-specific material block (`cslc`) is said once by
//! `tribo engines` and the report, never per run; PGS stopping at its sweep cap is warned about
//! only when the residual it leaves matters (relative residual above 1e-3 on some step).

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Output;

use tribo_runner::{RunOptions, RunOutcome};
use tribo_scene::{LoadOptions, Project};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// stdout and stderr together.
fn all_text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn load(path: &str) -> Project {
    let options = LoadOptions {
        share_dir: root().join("share"),
        ..Default::default()
    };
    Project::load(&root().join(path), &options).expect("project loads")
}

/// `project` on pgs for `seconds`, with `engine_options: {pgs: OPTIONS}` when given.
fn run_pgs(mut project: Project, options: Option<&str>, seconds: Option<f64>) -> RunOutcome {
    if let Some(text) = options {
        let node = tribo_yaml::parse_str(text, "options.yaml").expect("options parse");
        project.engine_options.insert("pgs".into(), node);
    }
    let registry = tribo::engines();
    let run_options = RunOptions {
        duration: seconds,
        ..Default::default()
    };
    tribo_runner::run(&project, &registry, "pgs", &run_options, &mut |_, _| {}).expect("run")
}

const GRASP: &str = "samples/gentle-grasp/gentle-grasp.yaml";
const CSLC_LINE: &str = "`cslc` block of a material: read by cslc, cslc-rapier; ignored by rapier, pgs";

#[test]
fn rigid_runs_of_a_project_with_cslc_blocks_do_not_warn_about_them() {
    for engine in ["rapier", "pgs"] {
        let o = tribo(&["run", GRASP, "--engine", engine, "--time", "0.05", "--quiet"]);
        assert!(o.status.success(), "{}", all_text(&o));
        let text = all_text(&o);
        assert!(!text.contains("ignores it"), "{engine}: {text}");
        assert!(!text.contains("cslc"), "{engine}: {text}");
    }
    // The blocks are there: the cslc engine reads them, and `tribo engines` says who does.
    let engines = tribo(&["engines"]);
    assert!(engines.status.success());
    let text = all_text(&engines);
    assert!(text.contains(CSLC_LINE), "{text}");
}

#[test]
fn engines_json_names_the_engine_specific_blocks_each_engine_reads() {
    let o = tribo(&["engines", "--json"]);
    assert!(o.status.success(), "{}", all_text(&o));
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let blocks = |name: &str| {
        list.as_array()
            .and_then(|a| a.iter().find(|e| e["name"] == name))
            .map(|e| e["engine_specific_blocks"].clone())
    };
    assert_eq!(blocks("cslc"), Some(serde_json::json!(["cslc"])));
    assert_eq!(blocks("cslc-rapier"), Some(serde_json::json!(["cslc"])));
    assert_eq!(blocks("rapier"), Some(serde_json::json!([])));
    assert_eq!(blocks("pgs"), Some(serde_json::json!([])));
}

#[test]
fn the_compare_report_says_once_which_engine_reads_the_cslc_blocks() {
    let dir = std::env::temp_dir().join(format!("tribo-warnings-news-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let out = dir.to_string_lossy().into_owned();
    let o = tribo(&["compare", GRASP, "--time", "0.02", "--quiet", "--out", &out]);
    assert!(o.status.success(), "{}", all_text(&o));
    assert!(!all_text(&o).contains("ignores it"), "{}", all_text(&o));
    let html = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
    let note =
        "materials have `cslc` blocks: only the `cslc`, `cslc-rapier` engines read them; rapier, pgs run without them";
    assert_eq!(html.matches(note).count(), 1, "the note once in the report");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_walker_whose_capped_residual_is_small_gets_no_cap_warning() {
    let o = tribo(&["run", "samples/slippy-walker/walker.yaml", "--engine", "pgs", "--quiet"]);
    assert!(o.status.success(), "{}", all_text(&o));
    assert!(!all_text(&o).contains("stopped at its cap"), "{}", all_text(&o));

    // Not vacuous: some steps do stop at the 100-sweep cap (a residual above the 1e-9 tolerance
    // means the solve ran out of sweeps), but what they leave is below 1e-3 of the impulses.
    let outcome = run_pgs(load("samples/slippy-walker/walker.yaml"), None, None);
    assert!(outcome.solver.max_residual > 1e-9, "{:?}", outcome.solver);
    assert!(
        !outcome.warnings.iter().any(|w| w.contains("stopped at its cap")),
        "{:?}",
        outcome.warnings
    );
}

#[test]
fn a_stack_solved_with_two_sweeps_gets_one_cap_warning_with_its_numbers() {
    let outcome = run_pgs(load("tests/conformance/stack.yaml"), Some("iterations: 2\n"), Some(0.2));
    let caps: Vec<&String> = outcome
        .warnings
        .iter()
        .filter(|w| w.contains("stopped at its cap"))
        .collect();
    assert_eq!(caps.len(), 1, "{:?}", outcome.warnings);
    assert!(
        caps[0].starts_with("PGS stopped at its cap of 2 sweeps with relative residual up to "),
        "{}",
        caps[0]
    );
    assert!(caps[0].contains(" > 1e-3 on 200 of 200 steps"), "{}", caps[0]);
}
