//! Choreonoid's SR1 walk (SR1.body + SR1WalkPattern1.seq + SR1WalkPatternController's PD law,
//! read from ../shared/choreonoid) on every engine: it walks the 13.4 s pattern without falling
//! on the default table, and its stance feet slide with Choreonoid's SlippyMaterialSet.

use tribo_tests::{load, metric, metrics_snapshot, run};

const PROJECT: &str = "tests/fixtures/sr1-walk/sr1-walk.yaml";
const SLIPPY: &str = "../shared/choreonoid/materials/SlippyMaterialSet.yaml";

fn fell(outcome: &tribo_engine::RunOutcome) -> bool {
    let m = outcome.metrics.iter().find(|m| m.name == "fell").expect("fell metric");
    m.value == tribo_engine::MetricValue::Bool(true)
}

fn walk(engine: &str) {
    let normal = run(&load(PROJECT, &[], &[]), engine);
    assert!(!fell(&normal), "{engine}: SR1 fell on the default table");
    let slip = metric(&normal, "foot_slip");
    assert!(
        slip < 0.05,
        "{engine}: SR1's stance feet slid {slip} m on the default table"
    );
    insta::assert_snapshot!(format!("sr1_{engine}"), metrics_snapshot(&normal));

    let slippy = run(&load(PROJECT, &[], &[SLIPPY]), engine);
    let slip = metric(&slippy, "foot_slip");
    assert!(
        slip > 0.05,
        "{engine}: with the slippy set SR1's feet slid only {slip} m"
    );
    insta::assert_snapshot!(format!("sr1_slippy_{engine}"), metrics_snapshot(&slippy));
}

#[test]
fn sr1_walks_on_pgs_and_slips_with_the_slippy_set() {
    walk("pgs");
}

#[test]
fn sr1_walks_on_rapier_and_slips_with_the_slippy_set() {
    walk("rapier");
}
