//! `tribo run` and `tribo check` on a Choreonoid `.cnoid` project (Choreonoid's SR1WalkSlippy
//! sample, kept with its model, motion and tables in `share/choreonoid`).

mod common;
use common::*;

use std::process::Output;

const SHARE: &str = "share/choreonoid";
const PROJECT: &str = "share/choreonoid/SR1WalkSlippy.cnoid";

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("json")
}

#[test]
fn run_sr1_walk_slippy_on_pgs() {
    let o = tribo(&[
        "run", PROJECT, "--share", SHARE, "--time", "0.1", "--engine", "pgs", "--json", "--quiet",
    ]);
    let v = json(&o);
    assert_eq!(v["engine"], "pgs");
    assert_eq!(v["steps"], 50);
    assert!(v.get("failure").is_none(), "{v}");
    for metric in [
        "forward_progress",
        "lateral_drift",
        "fell",
        "max_tilt",
        "max_yaw",
        "foot_slip",
    ] {
        assert!(v["metrics"].get(metric).is_some(), "no {metric} in {v}");
    }
    assert_eq!(v["metrics"]["fell"]["value"], false);
    // What the .cnoid holds and tribo does not simulate is listed on stderr.
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("SR1WalkSlippy.cnoid:105:21: warning: ignored: PhysXSimulatorItem `PhysXSimulator`"),
        "{stderr}"
    );
}

#[test]
fn check_sr1_walk_slippy() {
    let v = json(&tribo(&["check", PROJECT, "--share", SHARE, "--json"]));
    assert_eq!(v["kind"], "project");
    assert_eq!(v["name"], "SR1WalkSlippy");
    assert_eq!(v["bodies"][0]["name"], "SR1");
    assert_eq!(v["bodies"][1]["fixed"], true);
    assert_eq!(v["time_step_s"], 0.002);
    assert_eq!(v["controllers"], 1);
    assert_eq!(v["parameters"][0]["name"], "simulator");
}

#[test]
fn a_share_that_is_not_a_directory_is_an_input_error() {
    let o = tribo(&[
        "run",
        "samples/ball/ball.yaml",
        "--share",
        "no/such/dir",
        "--time",
        "0.01",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim(),
        "--share no/such/dir: not a directory"
    );
}
