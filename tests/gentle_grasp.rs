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
                println!("cslc {pad} {object} × {factor}: slip {slip:.3e} m, held {}", held(&outcome));
                if holds {
                    assert!(slip < 1e-3, "{pad}/{object} at {factor}: slip {slip} m (limit 1 mm)");
                    assert!(held(&outcome), "{pad}/{object} at {factor}: dropped");
                    insta::assert_snapshot!(format!("gentle_grasp_cslc_{pad}_{object}"), metrics_snapshot(&outcome));
                } else {
                    assert!(slip > 0.01, "{pad}/{object} at {factor}: slip {slip} m (must exceed 10 mm)");
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
        println!("{engine}: slip {:.3e} m, held {}", metric(&outcome, "slip"), held(&outcome));
        insta::assert_snapshot!(format!("gentle_grasp_{engine}"), metrics_snapshot(&outcome));
    }
}
