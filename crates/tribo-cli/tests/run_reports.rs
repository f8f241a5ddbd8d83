//! What `run` and `compare` print around a run: failed runs without a metrics table, warnings
//! collapsed, patterns at another rate than the time step.

mod common;
use common::*;

/// A ball pushed with 1e308 N from t = 0: every engine diverges in its first step.
fn boom(dir: &std::path::Path) -> String {
    let path = dir.join("boom.yaml");
    std::fs::write(
        &path,
        "name: boom\n\
         simulation: { time_step: 0.001, duration: 1.0, engines: [rapier, pgs] }\n\
         bodies:\n  \
           - { name: floor, model: \"${SHARE}/model/floor.body\", fixed: true, translation: [0, 0, -0.1] }\n  \
           - { name: ball, model: \"${SHARE}/model/ball.body\", translation: [0, 0, 0.5] }\n\
         controllers:\n  \
           - { type: wrench, body: ball, force: [0, 0, 1e308], torque: [0, 0, 0], start: 0, duration: 1 }\n\
         metrics:\n  \
           - { name: fell, kind: fell, body: ball, height: 0.1 }\n",
    )
    .expect("write project");
    path.to_str().expect("utf8").to_string()
}

#[test]
fn a_run_failing_at_its_first_step_prints_the_failure_not_a_table() {
    let dir = temp_dir("reports", "boom");
    let project = boom(&dir);
    let o = tribo(&["run", &project, "--engine", "rapier", "--quiet"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "no metrics table: {}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("run failed on `rapier` after 0 completed steps"), "{err}");
    assert!(err.contains("diverged at step"), "{err}");
    assert!(err.contains("body `ball`"), "{err}");

    let o = tribo(&["compare", &project, "--quiet"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    let fell = text.lines().find(|l| l.starts_with("fell")).expect("the fell row");
    assert_eq!(
        fell.split_whitespace().collect::<Vec<_>>(),
        ["fell", "failed", "failed"],
        "{text}"
    );
    let speed = text.lines().find(|l| l.starts_with("steps/s")).expect("steps/s row");
    assert_eq!(
        speed.split_whitespace().collect::<Vec<_>>(),
        ["steps/s", "failed", "failed"]
    );
    assert!(text.contains("FAILED (rapier, after 0 completed steps)"), "{text}");
    assert!(text.contains("FAILED (pgs, after 0 completed steps)"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// 150 bodies with the same misspelt key: one warning line with the count and lines.
#[test]
fn identical_warnings_are_collapsed_with_a_count() {
    let dir = temp_dir("reports", "warnings");
    let mut text = String::from(
        "name: many\nsimulation: { time_step: 0.001, duration: 0.002 }\nbodies:\n  \
         - { name: floor, model: \"${SHARE}/model/floor.body\", fixed: true, translation: [0, 0, -0.1] }\n",
    );
    for i in 0..150 {
        text.push_str(&format!(
            "  - {{ name: ball{i}, model: \"${{SHARE}}/model/ball.body\", translation: [{}, 0, 0.2], fixd: false }}\n",
            i as f64 * 0.3
        ));
    }
    let path = dir.join("many.yaml");
    std::fs::write(&path, text).expect("write project");
    let path = path.to_str().expect("utf8");

    let o = tribo(&["check", path]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o)
        .lines()
        .filter(|l| l.contains("fixd"))
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(lines[0].starts_with(&format!("{path}:5:")), "{}", lines[0]);
    assert!(
        lines[0].contains("(and 149 more like it at lines 6, 7, 8, 9, 10, 11, 12, 13, …)"),
        "{}",
        lines[0]
    );

    let o = tribo(&["run", path, "--engine", "rapier", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let warned: Vec<&str> = err.lines().filter(|l| l.contains("fixd")).collect();
    assert_eq!(warned.len(), 1, "{warned:#?}");
    assert!(warned[0].contains("(and 149 more like it"), "{}", warned[0]);
    std::fs::remove_dir_all(&dir).ok();
}

/// The walker's 500 Hz pattern at a 1 ms time step: a note says it is resampled, and the run
/// lasts the pattern's length (not half of it).
#[test]
fn a_pattern_at_another_rate_is_resampled_with_a_note() {
    let o = tribo(&["check", "samples/slippy-walker/walker.yaml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("resampled"), "500 Hz at 2 ms needs no note");

    let dir = temp_dir("reports", "walker");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../samples/slippy-walker/walker.yaml"
    ))
    .expect("walker sample");
    let text = text.replace("time_step: 0.002", "time_step: 0.001");
    let sample_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/slippy-walker");
    for f in ["walk.seq", "sole.yaml", "grippy.yaml", "slippy.yaml"] {
        std::fs::copy(format!("{sample_dir}/{f}"), dir.join(f)).expect("copy sample file");
    }
    let path = dir.join("walker.yaml");
    std::fs::write(&path, text).expect("write project");
    let o = tribo(&["check", path.to_str().expect("utf8")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("steps: 7600\n"), "{out}");
    assert!(
        out.contains("walk.seq is 500 Hz and the time step 0.001 s (1000 Hz): the pattern is resampled in time"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
