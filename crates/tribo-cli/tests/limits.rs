//! Input checks before any simulation: the step limit (`--allow-long-run`), `--out`, gait
//! parameter bounds.

mod common;
use common::*;

use std::path::PathBuf;

/// The ball sample with a nanosecond time step over one second: 10⁹ steps.
fn nanosecond_project(dir: &std::path::Path) -> PathBuf {
    let path = dir.join("tiny-step.yaml");
    std::fs::write(
        &path,
        "name: tiny-step\n\
         simulation: { time_step: 1e-9, duration: 1.0 }\n\
         bodies:\n  \
           - { name: floor, model: \"${SHARE}/model/floor.body\", fixed: true, translation: [0, 0, -0.1] }\n  \
           - { name: ball, model: \"${SHARE}/model/ball.body\", translation: [0, 0, 1.1] }\n",
    )
    .expect("write project");
    path
}

#[test]
fn a_billion_step_run_is_refused_before_it_starts() {
    let dir = temp_dir("limits", "refused");
    let project = nanosecond_project(&dir);
    let project = project.to_str().expect("utf8 path");
    for command in ["run", "compare"] {
        let o = tribo(&[command, project, "--quiet"]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("1000000000 steps"), "{command}: {err}");
        assert!(err.contains("time step 0.000000001 s"), "{command}: {err}");
        assert!(err.contains("limit of 10000000 steps"), "{command}: {err}");
        assert!(err.contains("--allow-long-run"), "{command}: {err}");
        assert!(stdout(&o).is_empty(), "{command}: nothing ran: {}", stdout(&o));
    }
    // --time 1e9 at the sample's 1 ms: 10¹² steps.
    let o = tribo(&["run", "samples/ball/ball.yaml", "--time", "1e9", "--quiet"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("1000000000000 steps"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_reports_the_step_count_and_the_limit() {
    let o = tribo(&["check", "samples/ball/ball.yaml", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["steps"], 3000);

    let dir = temp_dir("limits", "check");
    let project = nanosecond_project(&dir);
    let project = project.to_str().expect("utf8 path");
    let o = tribo(&["check", project]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("1000000000 steps"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--allow-long-run"), "{}", stderr(&o));
    // Accepted with the flag (and still said).
    let o = tribo(&["check", project, "--allow-long-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("steps: 1000000000\n"), "{text}");
    assert!(
        text.contains("warning: the run takes 1000000000 steps, more than the limit of 10000000"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_help_documents_the_limit() {
    let o = tribo(&["run", "--help"]);
    let text = stdout(&o);
    assert!(text.contains("--allow-long-run"), "{text}");
    assert!(text.contains("10 000 000 steps"), "{text}");
    assert_eq!(tribo_runner::MAX_STEPS, 10_000_000, "the help text states this limit");
}

#[test]
fn a_bad_out_is_refused_before_the_run() {
    for command in ["run", "compare"] {
        let o = tribo(&[command, "samples/ball/ball.yaml", "--out", "/dev/null", "--quiet"]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--out /dev/null: exists and is not a directory"),
            "{command}: {}",
            stderr(&o)
        );
        assert!(stdout(&o).is_empty(), "{command}: no run, no table: {}", stdout(&o));
    }
    let dir = temp_dir("limits", "out-file");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").expect("file");
    let under = file.join("sub");
    let o = tribo(&[
        "run",
        "samples/ball/ball.yaml",
        "--out",
        under.to_str().expect("utf8"),
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot create the directory"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// With --out the trajectory streams to disk: every step is in trajectory.csv.
#[test]
fn out_streams_every_step_of_the_trajectory() {
    let dir = temp_dir("limits", "stream");
    let out = dir.join("run");
    let o = tribo(&[
        "run",
        "samples/ball/ball.yaml",
        "--time",
        "0.5",
        "--out",
        out.to_str().expect("utf8"),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(out.join("trajectory.csv")).expect("trajectory.csv");
    assert_eq!(csv.lines().count(), 1 + 501, "header and 501 rows");
    assert!(csv.starts_with("time,"), "{}", &csv[..40.min(csv.len())]);
    assert!(out.join("metrics.json").is_file());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn gait_parameters_out_of_bounds_are_errors() {
    let cases: [(&[&str], &str); 4] = [
        (&["--steps", "1000000"], "`steps` = 1000000: at most 1000 steps"),
        (&["--step-length", "3"], "`step_length` = 3: must be at most 1 m"),
        (
            &["--step-time", "0.001"],
            "`step_time` = 0.001: must lie between 0.1 s and 10 s",
        ),
        (&["--step-time", "1e9"], "`step_time` = 1000000000"),
    ];
    for (args, expected) in cases {
        let mut all = vec!["gait"];
        all.extend_from_slice(args);
        let o = tribo(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{args:?}: {}", stderr(&o));
    }
}
