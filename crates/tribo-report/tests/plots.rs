//! Plots of a real run as the report writes them: every y axis names its unit, tick labels tell
//! ticks apart, and a column whose wiggle is floating-point noise is drawn flat and labelled
//! constant.

use std::path::{Path, PathBuf};

use tribo_report::{write_compare_report, EngineRun};
use tribo_runner::{RunOptions, RunOutcome};
use tribo_scene::{LoadOptions, Project};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ball() -> Project {
    let options = LoadOptions {
        share_dir: root().join("share"),
        ..Default::default()
    };
    Project::load(&root().join("samples/ball/ball.yaml"), &options).expect("ball sample loads")
}

fn run(project: &Project, seconds: f64) -> RunOutcome {
    let registry = tribo::engines();
    let options = RunOptions {
        duration: Some(seconds),
        ..Default::default()
    };
    tribo_runner::run(project, &registry, "rapier", &options, &mut |_, _| {}).expect("run")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tribo-report-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    dir
}

/// The text of every `<text>` element of an SVG, in order.
fn svg_texts(svg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(open) = rest.find("<text") {
        let Some(start) = rest[open..].find('>').map(|i| open + i + 1) else {
            break;
        };
        let Some(end) = rest[start..].find("</text>").map(|i| start + i) else {
            break;
        };
        out.push(rest[start..end].trim().to_string());
        rest = &rest[end..];
    }
    out
}

#[test]
fn axes_carry_units_and_noise_is_drawn_constant() {
    let project = ball();
    let mut outcome = run(&project, 0.5);
    // The ball falls straight down, so x is exactly 0; give it femtometre noise, as a resting
    // body's coordinate gets from the solver.
    let x = outcome
        .trajectory
        .columns
        .iter()
        .position(|c| c == "ball.x")
        .expect("ball.x column");
    for (i, row) in outcome.trajectory.rows.iter_mut().enumerate() {
        row[x] = [1e-15, -3e-15, 2e-15][i % 3];
    }
    let dir = temp_dir("plots");
    let runs = [EngineRun {
        outcome: &outcome,
        failure: None,
        pressure: &[],
    }];
    write_compare_report(&dir, &project, &runs).expect("report");
    let read = |stem: &str| std::fs::read_to_string(dir.join("plots").join(format!("{stem}.svg"))).expect(stem);

    let z = svg_texts(&read("ball_z"));
    assert!(z.iter().any(|t| t == "ball.z (m)"), "{z:?}");
    assert!(z.iter().any(|t| t == "time (s)"), "{z:?}");
    let velocity = svg_texts(&read("ball_velocity_z"));
    assert!(velocity.iter().any(|t| t == "ball_velocity.z (m/s)"), "{velocity:?}");
    let force = svg_texts(&read("floor_force_z"));
    assert!(
        force
            .iter()
            .any(|t| t == "floor_force.z (N)" || t == "floor_force.z (kN)"),
        "{force:?}"
    );

    // The noisy column: flat, labelled with its value, and no tick label repeats.
    let noisy = svg_texts(&read("ball_x"));
    assert!(
        noisy
            .iter()
            .any(|t| t.starts_with("constant: 0 m (rapier; spread 5.000e-15 m)")),
        "{noisy:?}"
    );
    for texts in [&z, &velocity, &force, &noisy] {
        let numbers: Vec<&String> = texts.iter().filter(|t| t.parse::<f64>().is_ok()).collect();
        assert!(numbers.len() >= 6, "{texts:?}");
        let mut unique = numbers.clone();
        unique.sort();
        unique.dedup();
        // x and y ticks may share a label (0.0); none may repeat within an axis, so at most
        // one shared label per pair of axes.
        assert!(numbers.len() - unique.len() <= 2, "repeated tick labels: {numbers:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
