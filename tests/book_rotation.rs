#![allow(clippy::panic)]
//! Book rotation (issue #5): the book is lifted 5 cm off the table, then a torque pulse of 30 % of
//! the two patches' friction moment is applied about the grasp axis. The CSLC patches resist it with their tangential springs: the tilt stays within
//! the paper's ±0.7° and the book stays held. The rigid engines run the same disturbance with a
//! single ball per pad (`point_pad=sphere`, no rotational stiffness: measured ≈ 31° on all three)
//! and with the pads' rigid boxes; their metrics are snapshotted whatever they do.

use tribo_runner::MetricValue;
use tribo_tests::{load, metric, metrics_snapshot, run};

const PROJECT: &str = "samples/book-rotation/book-rotation.yaml";

fn held(outcome: &tribo_runner::RunOutcome) -> bool {
    let m = outcome.metrics.iter().find(|m| m.name == "held").expect("held metric");
    m.value == MetricValue::Bool(true)
}

/// On both lattice hosts: `cslc` (pgs) and `cslc-rapier` (rapier).
#[test]
fn cslc_patches_hold_the_book_within_the_papers_tilt() {
    for engine in ["cslc", "cslc-rapier"] {
        let outcome = run(&load(PROJECT, &[], &[]), engine);
        let tilt = metric(&outcome, "max_tilt_deg");
        println!(
            "{engine}: max tilt {tilt:.4}°, final {:.4}°",
            metric(&outcome, "final_tilt_deg")
        );
        assert!(tilt < 0.7, "{engine}: max tilt {tilt}° (paper: within 0.7°)");
        assert!(held(&outcome), "{engine}: the book was dropped");
        let lift = metric(&outcome, "lift");
        assert!(
            (lift - 0.05).abs() < 0.005,
            "{engine}: lifted {lift} m, expected 0.05 m ± 5 mm"
        );
        insta::assert_snapshot!(format!("book_rotation_{engine}"), metrics_snapshot(&outcome));
    }
}

#[test]
fn rigid_engines_with_point_and_box_pads_are_reported_beside_it() {
    for point_pad in ["sphere", "box"] {
        let project = load(PROJECT, &[("point_pad", point_pad)], &[]);
        for engine in ["rapier", "pgs"] {
            let outcome = run(&project, engine);
            println!(
                "{engine} {point_pad}: max tilt {:.4}°, held {}",
                metric(&outcome, "max_tilt_deg"),
                held(&outcome)
            );
            insta::assert_snapshot!(
                format!("book_rotation_{engine}_{point_pad}"),
                metrics_snapshot(&outcome)
            );
        }
    }
    // A single contact point per pad has no rotational stiffness: the pulse turns the book by
    // tens of degrees (measured 31.4° on rapier and pgs), far beyond the compliant patch.
    let point = run(&load(PROJECT, &[("point_pad", "sphere")], &[]), "pgs");
    assert!(metric(&point, "max_tilt_deg") > 5.0);
}
