#![allow(clippy::panic)]
//! tribo's walker plays its ZMP pattern: with the default Ground/Sole friction it walks the planned
//! distance on every engine (the lattice soles on both hosts, `cslc` and `cslc-rapier`); with Choreonoid's slippy friction (0.01) its stance feet slide and it
//! turns about the vertical while staying upright (tilt and yaw reported apart, issue #12).

use tribo_tests::{load, metric, metrics_snapshot, run};

fn fell(outcome: &tribo_runner::RunOutcome) -> bool {
    let m = outcome.metrics.iter().find(|m| m.name == "fell").expect("fell metric");
    m.value == tribo_runner::MetricValue::Bool(true)
}

#[test]
fn walker_walks_the_planned_distance_and_slips_on_ice() {
    for engine in ["rapier", "pgs", "cslc", "cslc-rapier"] {
        let normal = run(&load("samples/slippy-walker/walker.yaml", &[], &[]), engine);
        let progress = metric(&normal, "forward_progress");
        assert!(!fell(&normal), "{engine}: the walker fell");
        assert!(
            (progress - 1.05).abs() / 1.05 < 0.10,
            "{engine}: progress {progress} m, planned 1.05 m ± 10%"
        );
        let slip = metric(&normal, "foot_slip");
        assert!(slip < 0.05, "{engine}: stance feet slid {slip} m with friction 1.0");
        // Measured RMS distance between the floor's CoP under the feet and walk.seq's planned ZMP:
        // rapier 0.0691 m, pgs 0.0802 m (max 0.266 m and 0.268 m, the CoP reaching the soles'
        // edges in single support); 0.33 m on both with the slippy floor. Bound: 1.5 × the larger.
        let zmp = metric(&normal, "zmp_error");
        println!("{engine}: RMS ZMP error {zmp:.4} m");
        assert!(
            zmp < 0.12,
            "{engine}: RMS ZMP error {zmp} m with friction 1.0 (bound 0.12 m)"
        );
        let tilt = metric(&normal, "max_tilt");
        assert!(tilt <= 5.0, "{engine}: max_tilt {tilt}° walking on the grippy floor");
        insta::assert_snapshot!(format!("walker_{engine}"), metrics_snapshot(&normal));

        let slippy = run(
            &load(
                "samples/slippy-walker/walker.yaml",
                &[],
                &["samples/slippy-walker/slippy.yaml"],
            ),
            engine,
        );
        let slip = metric(&slippy, "foot_slip");
        let progress = metric(&slippy, "forward_progress");
        let failed = fell(&slippy) || slip > 0.05 || (progress - 1.05).abs() / 1.05 > 0.30;
        assert!(
            failed,
            "{engine}: with friction 0.01 the walk should fail (slip {slip} m, progress {progress} m)"
        );
        // Sliding feet turn the walker about the vertical (12 – 18° on the sample's soles, up to
        // ~60° on `cslc` with 22 × 12 soles of cells), but it stays upright: tilt is roll/pitch
        // only (measured ≤ 3.3°), the heading is `max_yaw`.
        let (tilt, yaw) = (metric(&slippy, "max_tilt"), metric(&slippy, "max_yaw"));
        println!("{engine} slippy: max_tilt {tilt:.2}°, max_yaw {yaw:.2}°");
        assert!(tilt <= 5.0, "{engine}: slippy max_tilt {tilt}° (upright: ≤ 5°)");
        assert!(yaw.abs() <= 180.0);
        insta::assert_snapshot!(format!("walker_slippy_{engine}"), metrics_snapshot(&slippy));
    }
}

/// The pattern carries its planned ZMP (a `Vector3Seq` component, world frame), frame for frame.
#[test]
fn walk_seq_carries_the_planned_zmp() {
    let path = tribo_tests::root().join("samples/slippy-walker/walk.seq");
    let motion = tribo_model::load_motion(&path).unwrap_or_else(|e| panic!("{e}"));
    let zmp = motion.zmp.as_ref().expect("a ZMP component");
    assert_eq!(zmp.points.len(), motion.num_frames());
    assert!(!zmp.root_relative);
    // It starts between the feet (y = ±0.08) and ends near the planned 1.05 m.
    let first = zmp.points[0];
    let last = zmp.points[zmp.points.len() - 1];
    assert!(first[1].abs() < 1e-9 && first[0].abs() < 0.05, "first ZMP {first:?}");
    assert!(
        (last[0] - 1.05).abs() < 0.1 && last[1].abs() < 1e-6,
        "last ZMP {last:?}"
    );
}

/// The sample's sole pads, as `walker.yaml` declares them.
const SAMPLE_SOLES: &str = "resolution: [12, 7], spacing: 0.02, layout: nodes";

/// The walker sample with `edits` (`(from, to)`, each `from` a text of `walker.yaml`) and its
/// relative paths made absolute, loaded from a temporary copy named after `name`.
fn edited_walker(name: &str, edits: &[(&str, &str)]) -> tribo_scene::Project {
    let sample = tribo_tests::root().join("samples/slippy-walker");
    let text = std::fs::read_to_string(sample.join("walker.yaml")).expect("walker.yaml");
    let at = |file: &str| sample.join(file).display().to_string();
    let mut replacements: Vec<(String, String)> = edits.iter().map(|(f, t)| (f.to_string(), t.to_string())).collect();
    replacements.push((
        "materials: [sole.yaml, \"${floor}.yaml\"]".to_string(),
        format!("materials: [\"{}\", \"{}\"]", at("sole.yaml"), at("${floor}.yaml")),
    ));
    replacements.push((
        "motion: walk.seq".to_string(),
        format!("motion: \"{}\"", at("walk.seq")),
    ));
    let mut edited = text;
    for (from, to) in &replacements {
        assert!(edited.contains(from.as_str()), "walker.yaml no longer says {from}");
        edited = edited.replace(from.as_str(), to);
    }
    let path = std::env::temp_dir().join(format!("tribo-walker-{name}-{}.yaml", std::process::id()));
    std::fs::write(&path, edited).expect("a temporary project");
    let project = load(path.to_str().expect("a UTF-8 path"), &[], &[]);
    std::fs::remove_file(&path).ok();
    project
}

/// `project` walks on both pad hosts: no fall, the planned 1.05 m within 10 %, stance feet that
/// grip (foot slip under 5 cm) and an RMS ZMP error under 0.12 m, as the sample's own test asks.
fn walks_on_both_pad_hosts(project: &tribo_scene::Project, what: &str) {
    for engine in ["cslc", "cslc-rapier"] {
        let outcome = run(project, engine);
        let progress = metric(&outcome, "forward_progress");
        let (slip, zmp) = (metric(&outcome, "foot_slip"), metric(&outcome, "zmp_error"));
        println!("{engine}, {what}: progress {progress:.4} m, foot slip {slip:.4} m, RMS ZMP error {zmp:.4} m");
        assert!(!fell(&outcome), "{engine}: the walker fell ({what})");
        assert!(
            (progress - 1.05).abs() / 1.05 < 0.10,
            "{engine} ({what}): progress {progress} m, planned 1.05 m ± 10%"
        );
        assert!(slip < 0.05, "{engine} ({what}): stance feet slid {slip} m");
        assert!(zmp < 0.12, "{engine} ({what}): RMS ZMP error {zmp} m (bound 0.12 m)");
    }
}

/// The walker with its soles sampled finer — 33 × 18 cells at 6.7 mm instead of the sample's
/// 12 × 7 nodes at 2 cm, over the same 0.22 × 0.12 m — walks as the sample does at its 2 ms step, on
/// both hosts. Measured: 1.055 m on `cslc` and 1.056 m on `cslc-rapier` (foot slip 14 and 15 mm,
/// RMS ZMP error 73 and 72 mm), as at 0.5 ms (1.056 m). It used to fall on `cslc` (0.49 m, 138° of
/// yaw): an anticipated point carried all of a quadrant's approaching spheres' anchors at its
/// nearest sphere, a stiff prop that kept the stance sole on one row
/// (`tribo-cslc-engine` `coupling.rs`, `anticipated`; BENCHMARKS.md, "cslc: a patch's tilt
/// damped; anticipated points that follow the step").
#[test]
fn the_walker_walks_on_finer_soles_too() {
    let project = edited_walker(
        "finer-soles",
        &[(SAMPLE_SOLES, "resolution: [33, 18], spacing: 0.0066666666666666671")],
    );
    walks_on_both_pad_hosts(&project, "33 × 18 soles");
}

/// The walker at half the sample's step — 1 ms, the pattern's frames interpolated — walks on both
/// pad hosts as at 2 ms. Measured: 1.056 m on `cslc` and 1.057 m on `cslc-rapier` (foot slip 12
/// and 10 mm, RMS ZMP error 74 and 72 mm; 2 ms: 1.056 m on both). It used to fall on `cslc-rapier` at every step from 1.5 ms
/// down: rapier's motors are bounded for the whole solve, and each point's friction box was the
/// cone of its load at the start of the step, so a landing sole, whose points carry 0.5 – 48 N at
/// the start of a step and 85 – 185 N at its end, slid on a fraction of its friction and rolled
/// onto one toe corner. A hosted step is now solved twice from the same start, the second time
/// with the friction bound by the normal force of the first (`tribo-rapier` `host.rs`,
/// *Friction*).
#[test]
fn the_walker_walks_at_half_the_step_too() {
    let project = edited_walker("half-step", &[("time_step: 0.002 ", "time_step: 0.001 ")]);
    walks_on_both_pad_hosts(&project, "1 ms step");
}

/// The walker on soles of cells — 22 × 12 spheres at 1 cm, the outermost half a spacing inside
/// the sole's edges (`layout: cells`, the sample's soles before its nodes) — walks as the sample
/// does, on both hosts. Measured: 1.055 m on both (foot slip 14 and 15 mm, RMS ZMP error 73 and
/// 72 mm). Of cells, 11 × 6 spheres at 2 cm over the same sole fall on both hosts at every step:
/// their outermost centres stand 1 cm inside the sole's edges, where the walker's centre of
/// pressure runs to within a few millimetres of the toe, and the sole tips over its toe row
/// (`docs/design/lattice-model.md` §2, "Where a flat pad ends"; `crates/tribo/tests/cslc_tipping.rs`).
#[test]
fn the_walker_walks_on_soles_of_cells_too() {
    let project = edited_walker("cells", &[(SAMPLE_SOLES, "resolution: [22, 12], spacing: 0.01")]);
    walks_on_both_pad_hosts(&project, "22 × 12 soles of cells");
}

/// The sample's soles (12 × 7 nodes at 2 cm) give the walk of a lattice four times as fine: on
/// `cslc` the WAIST's path stays within 2 mm RMS of the one on 45 × 25 nodes at 5 mm, row by row
/// over the 7.6 s run. Measured: 1.00 mm (23 × 13 nodes at 1 cm: 1.00 mm; 22 × 12 cells at 1 cm,
/// whose support stops half a spacing inside the sole's edges, 4.6 mm; the `pgs` and `rapier`
/// rigid soles 10.1 and 11.2 mm) — the lattice is converged for the walk at the sample's spacing.
#[test]
fn the_sample_soles_walk_as_a_four_times_finer_lattice_does() {
    let sample = run(&load("samples/slippy-walker/walker.yaml", &[], &[]), "cslc");
    let fine = run(
        &edited_walker(
            "fine-nodes",
            &[(SAMPLE_SOLES, "resolution: [45, 25], spacing: 0.005, layout: nodes")],
        ),
        "cslc",
    );
    let deviation = waist_rms_deviation(&sample.trajectory, &fine.trajectory);
    println!(
        "WAIST path, sample soles against 45 × 25 nodes: {:.3} mm RMS",
        1e3 * deviation
    );
    assert!(
        deviation <= 2e-3,
        "the sample's soles walk {deviation} m RMS off the 45 × 25 lattice's path (bound 2 mm)"
    );
}

/// The RMS distance between the WAIST positions of two trajectories of the same run length,
/// row by row.
fn waist_rms_deviation(a: &tribo_runner::Trajectory, b: &tribo_runner::Trajectory) -> f64 {
    let columns = |t: &tribo_runner::Trajectory| -> Vec<usize> {
        ["waist.x", "waist.y", "waist.z"]
            .iter()
            .map(|name| t.columns.iter().position(|c| c == name).expect("a WAIST column"))
            .collect()
    };
    let (ca, cb) = (columns(a), columns(b));
    assert_eq!(a.rows.len(), b.rows.len(), "runs of different lengths");
    assert!(!a.rows.is_empty(), "an empty trajectory");
    let squares: f64 = a
        .rows
        .iter()
        .zip(&b.rows)
        .map(|(ra, rb)| ca.iter().zip(&cb).map(|(&i, &j)| (ra[i] - rb[j]).powi(2)).sum::<f64>())
        .sum();
    (squares / a.rows.len() as f64).sqrt()
}
