#![allow(clippy::panic)]
//! Gentle grasp (issue #5): on `cslc`, for every pad × object combination, a squeeze just above
//! the Coulomb limit `F ≥ m g / (2 μ)` holds the object through the 5 cm lift (slip under 1 mm)
//! and one just below lets it slide out (slip over 10 mm). `rapier` and `pgs` run beside it at
//! the sample's default squeeze (1.5 × the limit) for the compare table.

use tribo_engine::MetricValue;
use tribo_tests::{load, metric, metrics_snapshot, run};

fn held(outcome: &tribo_engine::RunOutcome) -> bool {
    let m = outcome.metrics.iter().find(|m| m.name == "held").expect("held metric");
    m.value == MetricValue::Bool(true)
}

#[test]
fn cslc_holds_just_above_the_coulomb_limit_and_drops_just_below() {
    for pad in ["flat", "dome"] {
        for object in ["sphere", "box"] {
            for (factor, holds) in [("1.05", true), ("0.95", false)] {
                let project = load(
                    "samples/gentle-grasp/gentle-grasp.yaml",
                    &[("pad", pad), ("object", object), ("squeeze_factor", factor)],
                    &[],
                );
                let outcome = run(&project, "cslc");
                let slip = metric(&outcome, "slip");
                println!(
                    "cslc {pad} {object} × {factor}: slip {slip:.3e} m, held {}",
                    held(&outcome)
                );
                if holds {
                    assert!(slip < 1e-3, "{pad}/{object} at {factor}: slip {slip} m (limit 1 mm)");
                    assert!(held(&outcome), "{pad}/{object} at {factor}: dropped");
                    insta::assert_snapshot!(format!("gentle_grasp_cslc_{pad}_{object}"), metrics_snapshot(&outcome));
                } else {
                    assert!(
                        slip > 0.01,
                        "{pad}/{object} at {factor}: slip {slip} m (must exceed 10 mm)"
                    );
                    assert!(!held(&outcome), "{pad}/{object} at {factor}: still held");
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

/// The recorded pad patch (`pad_patch` signal): on `cslc` the left pad's normal force during the
/// hold equals the squeeze `1.5 m g / (2 μ)` (the finger joint is driven by that effort and the
/// finger is at rest), its centre of pressure lies on the object's equator plane at the height of
/// the object's centre, and the patch has an area; rigid engines record no patch.
#[test]
fn the_pad_patch_is_recorded_on_cslc_only() {
    let project = load("samples/gentle-grasp/gentle-grasp.yaml", &[], &[]);
    let squeeze = 1.5 * 0.1 * 9.81 / (2.0 * 0.5);
    let cslc = run(&project, "cslc");
    let column = |o: &tribo_engine::RunOutcome, c: &str| {
        o.trajectory
            .column(&format!("left_pad.{c}"))
            .unwrap_or_else(|| panic!("no column left_pad.{c}"))
    };
    let times = cslc.trajectory.column("time").expect("time column");
    let hold = times.iter().position(|t| *t >= 0.25).expect("a sample at 0.25 s");
    let force = column(&cslc, "normal_force")[hold];
    assert!(
        (force - squeeze).abs() < 0.01 * squeeze,
        "pad force {force} N, squeeze {squeeze} N"
    );
    let (cop_z, object_z) = (
        column(&cslc, "cop_z")[hold],
        cslc.trajectory.column("object.z").expect("object")[hold],
    );
    assert!(
        (cop_z - object_z).abs() < 1e-3,
        "CoP height {cop_z} m vs object centre {object_z} m"
    );
    assert!(column(&cslc, "area")[hold] > 0.0);
    let rigid = run(&project, "pgs");
    assert_eq!(column(&rigid, "normal_force")[hold], 0.0);
    assert!(column(&rigid, "cop_x")[hold].is_nan());
}
