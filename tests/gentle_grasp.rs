#![allow(clippy::panic)]
//! Gentle grasp (issue #5): on both lattice hosts (`cslc` on pgs, `cslc-rapier` on rapier), for
//! every pad × object combination, a squeeze just above
//! the Coulomb limit `F ≥ m g / (2 μ)` holds the object through the 5 cm lift (slip under 1 mm)
//! and one just below lets it slide out (slip over 10 mm). `rapier` and `pgs` run beside it at
//! the sample's default squeeze (1.5 × the limit) for the compare table. A sweep of the squeeze
//! finds each engine's holding threshold at 1 + a/g for the lift's peak acceleration a (issue #12).

use tribo_runner::MetricValue;
use tribo_tests::{load, metric, metrics_snapshot, run};

fn held(outcome: &tribo_runner::RunOutcome) -> bool {
    let m = outcome.metrics.iter().find(|m| m.name == "held").expect("held metric");
    m.value == MetricValue::Bool(true)
}

#[test]
fn cslc_holds_just_above_the_coulomb_limit_and_drops_just_below() {
    for engine in ["cslc", "cslc-rapier"] {
        holds_just_above_the_coulomb_limit(engine);
    }
}

fn holds_just_above_the_coulomb_limit(engine: &str) {
    for pad in ["flat", "dome"] {
        for object in ["sphere", "box"] {
            for (factor, holds) in [("1.05", true), ("0.95", false)] {
                let project = load(
                    "samples/gentle-grasp/gentle-grasp.yaml",
                    &[("pad", pad), ("object", object), ("squeeze_factor", factor)],
                    &[],
                );
                let outcome = run(&project, engine);
                let slip = metric(&outcome, "slip");
                println!(
                    "{engine} {pad} {object} × {factor}: slip {slip:.3e} m, held {}",
                    held(&outcome)
                );
                if holds {
                    assert!(
                        slip.abs() < 1e-3,
                        "{engine} {pad}/{object} at {factor}: slip {slip} m (limit 1 mm)"
                    );
                    assert!(held(&outcome), "{engine} {pad}/{object} at {factor}: dropped");
                    insta::assert_snapshot!(
                        format!("gentle_grasp_{engine}_{pad}_{object}"),
                        metrics_snapshot(&outcome)
                    );
                } else {
                    assert!(
                        slip < -0.01,
                        "{engine} {pad}/{object} at {factor}: slip {slip} m (must drop over 10 mm)"
                    );
                    assert!(!held(&outcome), "{engine} {pad}/{object} at {factor}: still held");
                }
            }
        }
    }
}

#[test]
fn rigid_engines_run_the_default_grasp_beside_it() {
    let project = load("samples/gentle-grasp/gentle-grasp.yaml", &[], &[]);
    for engine in ["rapier", "pgs"] {
        let outcome = run(&project, engine);
        println!(
            "{engine}: slip {:.3e} m, held {}",
            metric(&outcome, "slip"),
            held(&outcome)
        );
        insta::assert_snapshot!(format!("gentle_grasp_{engine}"), metrics_snapshot(&outcome));
    }
}

/// The recorded pad patch (`pad_patch` signal): on both lattice hosts the left pad's normal force
/// during the hold equals the squeeze `1.5 m g / (2 μ)` (the finger joint is driven by that effort
/// and the finger is at rest), its centre of pressure lies on the object's equator plane at the
/// height of the object's centre, and the patch has an area; rigid engines record no patch.
#[test]
fn the_pad_patch_is_recorded_on_cslc_only() {
    let project = load("samples/gentle-grasp/gentle-grasp.yaml", &[], &[]);
    for engine in ["cslc", "cslc-rapier"] {
        the_pad_patch_is_recorded_on(&project, engine);
    }
    let column = |o: &tribo_runner::RunOutcome, c: &str| {
        o.trajectory
            .column(&format!("left_pad.{c}"))
            .unwrap_or_else(|| panic!("no column left_pad.{c}"))
    };
    let rigid = run(&project, "pgs");
    let times = rigid.trajectory.column("time").expect("time column");
    let hold = times.iter().position(|t| *t >= 0.25).expect("a sample at 0.25 s");
    assert_eq!(column(&rigid, "normal_force")[hold], 0.0);
    assert!(column(&rigid, "cop_x")[hold].is_nan());
}

fn the_pad_patch_is_recorded_on(project: &tribo_scene::Project, engine: &str) {
    let squeeze = 1.5 * 0.1 * 9.81 / (2.0 * 0.5);
    let cslc = run(project, engine);
    let column = |o: &tribo_runner::RunOutcome, c: &str| {
        o.trajectory
            .column(&format!("left_pad.{c}"))
            .unwrap_or_else(|| panic!("no column left_pad.{c}"))
    };
    let times = cslc.trajectory.column("time").expect("time column");
    let hold = times.iter().position(|t| *t >= 0.25).expect("a sample at 0.25 s");
    let force = column(&cslc, "normal_force")[hold];
    assert!(
        (force - squeeze).abs() < 0.01 * squeeze,
        "{engine}: pad force {force} N, squeeze {squeeze} N"
    );
    let (cop_z, object_z) = (
        column(&cslc, "cop_z")[hold],
        cslc.trajectory.column("object.z").expect("object")[hold],
    );
    assert!(
        (cop_z - object_z).abs() < 1e-3,
        "{engine}: CoP height {cop_z} m vs object centre {object_z} m"
    );
    assert!(column(&cslc, "area")[hold] > 0.0);
}

/// Peak acceleration of the sample's lift: a rest-to-rest minimum-jerk move of D = 0.05 m in
/// T = 1.2 s peaks at (10/√3) D/T² (Flash & Hogan 1985) = 0.20047 m/s².
const PEAK_ACCELERATION: f64 = 10.0 / 1.732_050_807_568_877_2 * 0.05 / (1.2 * 1.2);

/// The squeeze factors a sweep tries: 1.000, 1.005, …, 1.060.
fn sweep() -> Vec<f64> {
    (0..=12).map(|k| 1.0 + 0.005 * k as f64).collect()
}

/// The smallest swept squeeze factor from which on every larger one holds (slip under 1 mm),
/// with the slip (m) at each factor; `None` if the largest does not hold.
fn threshold(engine: &str, pad: &str, object: &str) -> (Option<f64>, Vec<(f64, f64, bool)>) {
    let mut runs = Vec::new();
    for factor in sweep() {
        let value = format!("{factor:.3}");
        let project = load(
            "samples/gentle-grasp/gentle-grasp.yaml",
            &[("pad", pad), ("object", object), ("squeeze_factor", &value)],
            &[],
        );
        let outcome = run(&project, engine);
        runs.push((factor, metric(&outcome, "slip"), held(&outcome)));
    }
    let first = runs
        .iter()
        .rposition(|(_, _, h)| !h)
        .map_or(Some(runs[0].0), |i| runs.get(i + 1).map(|r| r.0));
    (first, runs)
}

/// Two friction contacts hold m against gravity and the lift's acceleration only if
/// 2 μ F ≥ m (g + a): with F = k m g / (2 μ), k ≥ 1 + a/g = 1.0204 for a = 0.2005 m/s². Every
/// engine's threshold over a 0.005 sweep of k lies within 0.01 of it.
fn assert_threshold(engine: &str, pad: &str, object: &str) {
    let analytic = 1.0 + PEAK_ACCELERATION / 9.81;
    assert!((analytic - 1.020435).abs() < 1e-6, "{analytic}");
    let (found, runs) = threshold(engine, pad, object);
    for (factor, slip, held) in &runs {
        println!("{engine} {pad} {object} × {factor:.3}: slip {slip:.3e} m, held {held}");
    }
    let found = found.unwrap_or_else(|| panic!("{engine} {pad}/{object}: not held even at 1.06"));
    println!("{engine} {pad} {object}: threshold {found:.3} (analytic {analytic:.4})");
    assert!(
        (found - analytic).abs() <= 0.01,
        "{engine} {pad}/{object}: holds from squeeze_factor {found:.3}, analytic {analytic:.4} ± 0.01"
    );
}

#[test]
fn rigid_engines_hold_from_the_analytic_squeeze_threshold() {
    for engine in ["rapier", "pgs"] {
        assert_threshold(engine, "flat", "sphere");
        assert_threshold(engine, "flat", "box");
    }
}

/// The hexagonal prism read from an OBJ mesh (`object=mesh`, convex hull collision): rapier
/// holds from the analytic threshold like the primitives. (pgs holds only from 1.06 on this mesh:
/// the sample's README says why; it is a known defect, not asserted here.)
#[test]
fn a_mesh_object_is_held_from_the_analytic_squeeze_threshold_on_rapier() {
    assert_threshold("rapier", "flat", "mesh");
}

#[test]
fn cslc_holds_from_the_analytic_squeeze_threshold() {
    assert_threshold("cslc", "flat", "sphere");
}

/// The same sweep on the rapier host (measured: the same thresholds as `cslc` for every pad and
/// object, 1.015 / 1.020 / 1.025 / 1.020 for flat sphere / flat box / dome sphere / dome box).
#[test]
fn cslc_rapier_holds_from_the_analytic_squeeze_threshold() {
    assert_threshold("cslc-rapier", "flat", "sphere");
}

/// The other pad/object pairs on both lattice hosts (13 runs each, ≈ 1 min in all on 2 cores):
/// `cargo test -p tribo-tests --test gentle_grasp -- --ignored`.
#[test]
#[ignore]
fn cslc_holds_from_the_analytic_squeeze_threshold_for_every_pad_and_object() {
    for engine in ["cslc", "cslc-rapier"] {
        assert_threshold(engine, "flat", "box");
        assert_threshold(engine, "dome", "sphere");
        assert_threshold(engine, "dome", "box");
    }
}
