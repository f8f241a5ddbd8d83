#![allow(clippy::panic)]
//! `tribo import`: a Choreonoid project and a URDF robot written as tribo project directories that
//! run the same as their sources, and the command's input errors.

mod common;
use common::*;

use std::path::Path;
use std::process::Output;

const SHARE: &str = "share/choreonoid";
const CNOID: &str = "share/choreonoid/SR1WalkSlippy.cnoid";
const URDF: &str = "share/choreonoid/model/SR1.urdf";

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("json")
}

/// `tribo run PROJECT --engine pgs [--time SECONDS] --json`: the metrics and the step count.
fn run_pgs(project: &str, seconds: Option<&str>) -> (serde_json::Value, serde_json::Value) {
    let mut args = vec!["run", project, "--share", SHARE, "--engine", "pgs", "--json", "--quiet"];
    if let Some(seconds) = seconds {
        args.extend(["--time", seconds]);
    }
    let v = json(&tribo(&args));
    assert!(v.get("failure").is_none(), "{project}: {v}");
    (v["metrics"].clone(), v["steps"].clone())
}

/// A file's text; a relative path is taken from the workspace root, as `tribo` runs there.
fn text(path: &Path) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The imported SR1WalkSlippy walks exactly as the `.cnoid` does: the project holds the same
/// bodies, poses, tables, controller, time step and duration, and the same model, motion and table
/// files, so the metrics of the whole walk on pgs (13.4 s, 6700 steps of 2 ms; under a second)
/// are bit-identical.
#[test]
fn an_imported_cnoid_project_runs_as_the_cnoid() {
    let out = temp_dir("import", "cnoid");
    let o = tribo(&["import", CNOID, "--share", SHARE, "--out", out.to_str().expect("utf-8")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = stdout(&o);
    assert!(
        printed.contains(&format!(
            "run it with: tribo run {}",
            out.join("project.yaml").display()
        )),
        "{printed}"
    );
    // The notes: the simulator chosen among the project's eight, the run's length.
    let notes = stderr(&o);
    assert!(
        notes.contains(
            "note: SR1WalkSlippy.cnoid has 8 simulator items; the project holds the settings of `AISTSimulator`"
        ),
        "{notes}"
    );
    for rel in [
        "model/SR1.body",
        "model/floor.body",
        "motion/SR1WalkPattern1.seq",
        "materials/SlippyMaterialSet.yaml",
        "LICENSE",
    ] {
        assert_eq!(
            text(&out.join(rel)),
            text(&Path::new(SHARE).join(rel)),
            "{rel} is a copy"
        );
    }
    assert_eq!(
        text(&out.join("default/materials.yaml")),
        text(Path::new("share/default/materials.yaml"))
    );
    assert!(out.join("default/LICENSE-choreonoid.txt").is_file());
    let project_yaml = text(&out.join("project.yaml"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("root");
    assert!(
        !project_yaml.contains(root.to_str().expect("utf-8")) && !project_yaml.contains(": /"),
        "absolute paths:\n{project_yaml}"
    );
    assert!(
        project_yaml.contains("joint_positions: [rad(0), rad(-2.1), rad(0), rad(4.50001)"),
        "{project_yaml}"
    );

    let project = out.join("project.yaml");
    let (imported, imported_steps) = run_pgs(project.to_str().expect("utf-8"), None);
    let (original, original_steps) = run_pgs(CNOID, None);
    assert_eq!(imported_steps, 6700);
    assert_eq!(imported_steps, original_steps);
    assert_eq!(imported, original);
    // The same default metrics, with their values.
    let names: Vec<&String> = imported.as_object().expect("metrics").keys().collect();
    assert_eq!(
        names,
        [
            "forward_progress",
            "lateral_drift",
            "fell",
            "max_tilt",
            "max_yaw",
            "foot_slip"
        ]
    );
    // `check` sees the same project: name, bodies, time step and the duration of the pattern.
    let a = json(&tribo(&["check", project.to_str().expect("utf-8"), "--json"]));
    let b = json(&tribo(&["check", CNOID, "--share", SHARE, "--json"]));
    for key in [
        "name",
        "time_step_s",
        "duration_s",
        "controllers",
        "bodies",
        "materials",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    std::fs::remove_dir_all(&out).ok();
}

/// SR1 from its URDF imported as `SR1.body` beside a project that stands it on the floor: the
/// project runs as the same project naming the URDF itself. The written model is the URDF's to
/// the last bit but for the cylinders' roll-pitch-yaw rotations and some centres of mass, an ulp
/// away (crates/tribo-model/tests/write_body.rs); in the first 0.5 s (the limp robot drops onto
/// the floor and starts to fold) that leaves the metrics bit-identical. (Over the whole 2 s
/// collapse, a chaotic pile-up of contacts, the ulps grow to 1e-5 m.)
#[test]
fn an_imported_urdf_robot_runs_as_the_urdf() {
    let out = temp_dir("import", "urdf");
    let o = tribo(&["import", URDF, "--out", out.to_str().expect("utf-8")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let notes = stderr(&o);
    assert!(notes.contains("get `Sole`"), "{notes}");
    assert!(notes.contains("no controller drives `SR1`"), "{notes}");
    let project_yaml = text(&out.join("project.yaml"));
    assert!(project_yaml.contains("  model: SR1.body\n"), "{project_yaml}");
    assert!(
        project_yaml.contains("  model: ${SHARE}/model/floor.body\n"),
        "{project_yaml}"
    );
    assert!(project_yaml.contains("- default/materials.yaml\n"), "{project_yaml}");
    assert!(
        out.join("LICENSE").is_file(),
        "Choreonoid's licence comes with its robot"
    );
    // The same project with the URDF in place of the written body file.
    let urdf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(URDF)
        .canonicalize()
        .expect("SR1.urdf");
    let direct = out.join("direct.yaml");
    let replaced = project_yaml.replace("  model: SR1.body\n", &format!("  model: {}\n", urdf.display()));
    assert_ne!(replaced, project_yaml);
    std::fs::write(&direct, replaced).expect("write");

    let (imported, steps) = run_pgs(out.join("project.yaml").to_str().expect("utf-8"), Some("0.5"));
    let (original, _) = run_pgs(direct.to_str().expect("utf-8"), Some("0.5"));
    assert_eq!(steps, 500);
    assert_eq!(imported, original);
    assert!(
        imported["height_change"]["value"].as_f64().is_some_and(|h| h < 0.0),
        "{imported}"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn a_missing_source_is_named() {
    let out = temp_dir("import", "missing");
    let o = tribo(&["import", "no/such/project.cnoid", "--out", out.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).trim(), "no/such/project.cnoid: no such file");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn an_unsupported_source_names_the_supported_kinds() {
    let out = temp_dir("import", "kind");
    let o = tribo(&[
        "import",
        "samples/ball/ball.yaml",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        "samples/ball/ball.yaml: tribo import reads a Choreonoid project (.cnoid) or a URDF robot (.urdf), \
         not a `.yaml` file"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn a_directory_with_files_is_refused_without_force() {
    let out = temp_dir("import", "full");
    std::fs::write(out.join("notes.txt"), "mine").expect("write");
    let dir = out.to_str().expect("utf-8");
    let o = tribo(&["import", URDF, "--out", dir]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        format!("--out {dir}: the directory is not empty; pass --force to write into it (files of the same names are replaced)")
    );
    assert!(!out.join("project.yaml").exists());
    let o = tribo(&["import", URDF, "--out", dir, "--force", "--json"]);
    let v = json(&o);
    assert_eq!(v["written"], serde_json::json!(["SR1.body", "project.yaml"]));
    assert!(out.join("project.yaml").is_file());
    assert_eq!(text(&out.join("notes.txt")), "mine");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn the_help_shows_how_to_import() {
    let o = tribo(&["--help"]);
    assert!(
        stdout(&o)
            .contains("tribo import share/choreonoid/SR1WalkSlippy.cnoid --share share/choreonoid --out sr1-walk"),
        "{}",
        stdout(&o)
    );
    let o = tribo(&["import", "--help"]);
    let help = stdout(&o);
    for wanted in [
        "--out <DIR>",
        "--force",
        "tribo import share/choreonoid/model/SR1.urdf --out sr1",
    ] {
        assert!(help.contains(wanted), "{wanted}\n{help}");
    }
}
