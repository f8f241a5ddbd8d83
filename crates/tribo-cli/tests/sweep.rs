//! `tribo sweep` and `tribo compare --out` as a user runs them: JSON of every grid point, the
//! files of `--out`, located errors, and results that do not depend on the thread count.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tribo(args: &[&str], threads: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tribo"));
    command.args(args).current_dir(workspace());
    if let Some(n) = threads {
        command.env("RAYON_NUM_THREADS", n);
    }
    command.output().expect("run tribo")
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

/// The metric values of every point and engine (steps/s left out: it is a timing).
fn metric_values(v: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    for point in v["points"].as_array().expect("points") {
        for (engine, run) in point["engines"].as_object().expect("engines") {
            for (name, m) in run["metrics"].as_object().expect("metrics") {
                out.push((format!("{}/{engine}/{name}", point["parameters"]), m["value"].clone()));
            }
        }
    }
    out
}

const SWEEP: [&str; 8] = [
    "sweep",
    "samples/ball/ball.yaml",
    "--param",
    "drop_height=0.25,0.5,1",
    "--time",
    "1.2",
    "--json",
    "--quiet",
];

#[test]
fn sweep_json_has_every_point_and_follows_e_squared() {
    let v = json(&tribo(&SWEEP, None));
    assert_eq!(v["project"], "ball");
    assert_eq!(v["parameters"], serde_json::json!(["drop_height"]));
    let points = v["points"].as_array().expect("points");
    assert_eq!(points.len(), 3);
    for (point, height) in points.iter().zip([0.25, 0.5, 1.0]) {
        assert_eq!(point["parameters"]["drop_height"], height);
        // First apex after the bounce: e² h with e = 0.8 (Ground/Ball), within the sample's 3%.
        let apex = point["engines"]["rapier"]["metrics"]["first_apex"]["value"]
            .as_f64()
            .expect("first_apex");
        assert!(
            (apex - 0.64 * height).abs() < 0.03 * 0.64 * height,
            "apex {apex} for {height}"
        );
    }
}

#[test]
fn sweep_results_do_not_depend_on_the_thread_count() {
    let one = json(&tribo(&SWEEP, Some("1")));
    let two = json(&tribo(&SWEEP, Some("2")));
    assert_eq!(metric_values(&one), metric_values(&two));
    // 3 points × the project's engines × 3 metrics (bounce_ratio, first_apex, max_penetration).
    let engines = one["engines"].as_array().map_or(0, Vec::len);
    assert!(engines >= 1);
    assert_eq!(metric_values(&one).len(), 3 * engines * 3);
}

#[test]
fn sweep_out_writes_report_json_and_plots() {
    let dir = std::env::temp_dir().join(format!("tribo-sweep-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let dir_text = dir.display().to_string();
    let o = tribo(
        &[
            "sweep",
            "samples/slide/slide.yaml",
            "--param",
            "speed=1,2",
            "--time",
            "1",
            "--quiet",
            "--out",
            &dir_text,
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("speed") && table.contains("rapier"), "{table}");
    assert!(dir.join("sweep.html").exists());
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).expect("sweep.json")).expect("JSON");
    assert_eq!(saved["points"].as_array().map(Vec::len), Some(2));
    let plots: Vec<String> = std::fs::read_dir(dir.join("plots"))
        .expect("plots")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    assert!(plots.iter().any(|p| p.ends_with("_vs_speed.svg")), "{plots:?}");
    assert!(plots.iter().any(|p| p.ends_with("_vs_speed.png")), "{plots:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweep_of_an_unknown_parameter_names_the_closest() {
    let o = tribo(
        &[
            "sweep",
            "samples/ball/ball.yaml",
            "--param",
            "drop_hieght=1,2",
            "--quiet",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("did you mean `drop_height`?"), "{err}");
}

#[test]
fn sweep_rejects_empty_values_and_double_sweeps() {
    let o = tribo(
        &["sweep", "samples/ball/ball.yaml", "--param", "drop_height=1,,2"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let o = tribo(
        &[
            "sweep",
            "samples/ball/ball.yaml",
            "--param",
            "drop_height=1",
            "--set",
            "drop_height=2",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("both swept"));
}
