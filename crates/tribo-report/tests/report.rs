//! Reports of real runs of the ball sample: the page's table, embedded replay data, plots on disk,
//! no network references, and the pressure-map path with a synthetic CSLC patch (a real `cslc`
//! run's maps are in `pressure.rs`).

use std::path::{Path, PathBuf};

use nalgebra::Vector3;
use tribo_material::MaterialId;
use tribo_report::{
    write_compare_report, write_sweep_report, EngineRun, PressureRecorder, SweepPoint, SweepReport, SweepRun,
};
use tribo_runner::{ContactRecord, PatchDetail, RunOptions, RunOutcome, RunRecord};
use tribo_scene::{LinkRef, LoadOptions, Project};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ball(overrides: &[(&str, &str)]) -> Project {
    let options = LoadOptions {
        overrides: overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        share_dir: root().join("share"),
        ..Default::default()
    };
    Project::load(&root().join("samples/ball/ball.yaml"), &options).expect("ball sample loads")
}

fn run(project: &Project, seconds: f64, replay_interval: f64) -> RunOutcome {
    let registry = tribo::engines();
    let options = RunOptions {
        duration: Some(seconds),
        replay_interval: Some(replay_interval),
        ..Default::default()
    };
    tribo_runner::run(project, &registry, "rapier", &options, &mut |_, _| {}).expect("run")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tribo-report-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    dir
}

/// The JSON inside `<script type="application/json" id="replay-data">`.
fn embedded_replay(html: &str) -> serde_json::Value {
    let open = "<script type=\"application/json\" id=\"replay-data\">";
    let start = html.find(open).expect("replay data element") + open.len();
    let end = start + html[start..].find("</script>").expect("end of replay data");
    serde_json::from_str(&html[start..end]).expect("valid JSON")
}

fn assert_offline(html: &str) {
    for needle in [
        "src=\"http",
        "src='http",
        "href=\"http",
        "href='http",
        "url(http",
        "@import",
        "src=\"//",
    ] {
        assert!(!html.contains(needle), "external reference `{needle}` in the page");
    }
}

fn synthetic_patch_contact(project: &Project, pressures: Vec<f64>) -> ContactRecord {
    let floor = LinkRef { body: 0, link: 0 };
    let ball = LinkRef { body: 1, link: 0 };
    assert_eq!(project.scene.bodies[1].name, "ball");
    ContactRecord {
        a: floor,
        b: ball,
        materials: (MaterialId::DEFAULT, MaterialId::DEFAULT),
        point: Vector3::new(0.0, 0.0, 0.0),
        normal: Vector3::z(),
        depth: 1e-4,
        normal_force: 4.9,
        friction_force: Vector3::zeros(),
        patch: Some(PatchDetail {
            pad: 0,
            cell: 0.01,
            sphere_positions: vec![[-0.005, -0.005], [0.005, -0.005], [-0.005, 0.005], [0.005, 0.005]],
            sphere_deflections: vec![0.0; pressures.len()],
            center_of_pressure: Vector3::zeros(),
            friction_moment: 0.0,
            area: 1e-4,
            sphere_normal_forces: pressures.iter().map(|p| p * 1e-6).collect(),
            sphere_pressures: pressures,
        }),
    }
}

#[test]
fn compare_report_has_table_replay_plots_and_pressure_maps() {
    let project = ball(&[]);
    let outcome = run(&project, 0.6, 0.001);
    let mut recorder = PressureRecorder::new();
    recorder.capture(&project.scene, 0.0, &[]);
    recorder.capture(
        &project.scene,
        0.1,
        &[synthetic_patch_contact(&project, vec![0.0, 1e5, 2e5, 4e5])],
    );
    recorder.capture(&project.scene, 0.2, &[]);
    let pads = recorder.finish();
    assert_eq!(pads.len(), 1);
    // The pad's link is the records' `b`, the link it touched their `a`; captures before the
    // first patch are skipped, and a frame out of contact has no pressures.
    assert_eq!(pads[0].label, "ball.Ball");
    assert_eq!(pads[0].touched, "floor.Floor");
    assert_eq!(pads[0].times, vec![0.1, 0.2]);
    assert_eq!(pads[0].frames, vec![vec![0.0, 1e5, 2e5, 4e5], vec![]]);

    let dir = temp_dir("compare");
    let runs = [EngineRun {
        outcome: &outcome,
        failure: None,
        pressure: &pads,
    }];
    let files = write_compare_report(&dir, &project, &runs).expect("report");
    let html = std::fs::read_to_string(&files.html).expect("report.html");

    // The table: every metric row, the expected value of the bounce ratio (e² = 0.8² = 0.64).
    for row in [
        "<td>bounce_ratio</td><td></td><td>0.6400</td>",
        "<td>first_apex</td><td>m</td>",
        "<td>max_penetration</td>",
        "<td>steps/s</td>",
    ] {
        assert!(html.contains(row), "missing `{row}`");
    }
    assert!(html.contains("<th>rapier</th>"));
    assert_offline(&html);

    // The replay: both bodies, 601 captured frames (every step and t = 0) kept one in two
    // (301 ≤ 600), 7 numbers
    // per link, and the ball's first frame at its release height (0.1 m radius + 1 m drop).
    let data = embedded_replay(&html);
    assert_eq!(data["bodies"][0]["links"][0]["shapes"][0]["kind"], "box");
    assert_eq!(data["bodies"][1]["links"][0]["shapes"][0]["kind"], "sphere");
    assert_eq!(data["bodies"][1]["links"][0]["shapes"][0]["radius"], 0.1);
    let run0 = &data["runs"][0];
    assert_eq!(run0["engine"], "rapier");
    let times = run0["times"].as_array().expect("times");
    assert_eq!(times.len(), 301);
    let first = run0["poses"][0].as_array().expect("poses");
    assert_eq!(first.len(), 14);
    assert!((first[9].as_f64().expect("z") - 1.1).abs() < 1e-9);
    // Before landing (t < √(2·1/9.81) ≈ 0.4515 s) the ball falls freely: z = 1.1 − ½ g t²
    // (semi-implicit Euler at 1 ms is within g·t·dt/2 ≈ 2.2 mm of it).
    for (i, t) in times.iter().enumerate() {
        let t = t.as_f64().expect("time");
        if t < 0.44 {
            let z = run0["poses"][i][9].as_f64().expect("z");
            assert!((z - (1.1 - 0.5 * 9.81 * t * t)).abs() < 2.5e-3, "z = {z} at t = {t}");
        }
    }
    // The ball lands at t = √(2·1 m / 9.81 m/s²) ≈ 0.4515 s: the first frame with a contact force,
    // pointing up (the floor pushes the ball).
    let contacts = run0["contacts"].as_array().expect("contacts");
    let landing = contacts
        .iter()
        .position(|c| c.as_array().is_some_and(|c| !c.is_empty()))
        .expect("a frame with a contact");
    let landing_time = times[landing].as_f64().expect("time");
    assert!(
        (0.445..0.46).contains(&landing_time),
        "first contact at {landing_time} s"
    );
    assert!(contacts[landing][5].as_f64().expect("fz") > 0.0);
    assert_eq!(run0["pads"][0]["values"][0][3], 400000);
    assert_eq!(run0["pads"][0]["values"][1], serde_json::json!([]));
    assert_eq!(run0["pads"][0]["peak"], 4e5);
    assert_eq!(run0["pads"][0]["x"], serde_json::json!([-0.005, 0.005, -0.005, 0.005]));

    // Plots: the varying columns (the ball's z and its vertical speed, the floor force), SVG and PNG.
    for stem in ["ball_z", "ball_velocity_z", "floor_force_z"] {
        for ext in ["svg", "png"] {
            let path = dir.join("plots").join(format!("{stem}.{ext}"));
            assert!(files.plots.contains(&path), "{path:?} not listed");
            assert!(std::fs::metadata(&path).expect("plot file").len() > 1000);
        }
    }
    assert!(!dir.join("plots/ball_x.svg").exists(), "constant column plotted");
    assert!(html.contains("<svg"), "plots inline");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweep_report_plots_each_metric_against_the_parameter() {
    let heights = ["0.2", "0.4"];
    let points: Vec<SweepPoint> = heights
        .iter()
        .map(|h| {
            let project = ball(&[("drop_height", h)]);
            SweepPoint {
                values: vec![h.to_string()],
                runs: vec![SweepRun::from(RunRecord::finished(run(&project, 0.8, 1.0 / 60.0)))],
            }
        })
        .collect();
    let report = SweepReport {
        project: "ball".into(),
        parameters: vec!["drop_height".into()],
        engines: vec!["rapier".into()],
        points,
    };
    let plots = report.plots();
    let first_apex = plots
        .iter()
        .find(|p| p.title == "first_apex vs drop_height")
        .expect("first_apex plot");
    let line = &first_apex.series[0];
    assert_eq!(line.label, "rapier");
    // Apex after the first bounce: e² h = 0.64 h (rapier within 3%).
    for (x, y) in &line.points {
        assert!((y - 0.64 * x).abs() < 0.03 * 0.64 * x, "apex {y} for drop {x}");
    }
    let dir = temp_dir("sweep");
    let files = write_sweep_report(&dir, &report).expect("sweep report");
    let html = std::fs::read_to_string(&files.html).expect("sweep.html");
    assert!(html.contains("<td>0.4</td><td>rapier</td>"));
    assert_offline(&html);
    assert!(dir.join("plots/first_apex_vs_drop_height.png").exists());
    std::fs::remove_dir_all(&dir).ok();
}
