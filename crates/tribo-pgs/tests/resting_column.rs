//! A column of five cubes resting exactly on each other and on the floor (the benchmark pile's
//! column, unyawed): it neither sinks nor drifts, and the solve stays cheap. Rounding-level gaps
//! between the faces count as touching (`contacts.rs`), so a face's corners are not asked for
//! normal velocities no rigid motion gives; the subspace steps solve the rank-deficient face
//! contacts that plain sweeps chase up to their cap from a cold start.

use tribo_engine::{Engine, Scene};
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

const DT: f64 = 2e-3;
/// The sweep cap of a step: 100 rigid sweeps and 5 load-sharing ones.
const CAP: u32 = 105;

/// Sweeps (load sharing included) of each of `steps` steps.
fn sweeps_per_step(sim: &mut dyn Engine, s: &Scene, steps: usize) -> Vec<u32> {
    let commands = idle(s);
    (0..steps)
        .map(|_| sim.step(DT, &commands).expect("the step succeeds").iterations)
        .collect()
}

/// Mean sweeps per step and steps at the cap over 500 steps (1 s), and the top cube's height.
fn column(options: &str) -> (f64, usize, f64) {
    let s = box_pile(1, 1, 5, 0.1, 0.0);
    let mut sim = engine_with(&PgsFactory, &s, options);
    let sweeps = sweeps_per_step(sim.as_mut(), &s, 500);
    let mean = sweeps.iter().map(|&k| f64::from(k)).sum::<f64>() / sweeps.len() as f64;
    let capped = sweeps.iter().filter(|&&k| k >= CAP).count();
    (mean, capped, root_position(sim.state(), 5).z)
}

#[test]
fn a_resting_column_of_five_cubes_stays_put_and_converges_in_a_few_sweeps() {
    let (mean, capped, top) = column("{}");
    let (plain_mean, plain_capped, plain_top) = column("subspace_rows: 0");
    eprintln!(
        "with subspace steps: {mean:.2} sweeps per step, {capped} steps at the cap, top {top}; \
         plain sweeps: {plain_mean:.2}, {plain_capped} at the cap, top {plain_top}"
    );
    // Measured: 2.3 sweeps per step and 1 capped step of 500; plain sweeps 19.7 and 72.
    assert!(mean < 3.0 && capped <= 5, "{mean} sweeps per step, {capped} capped");
    assert!(plain_mean > 3.0 * mean, "plain sweeps {plain_mean} per step");
    for height in [top, plain_top] {
        assert!((height - 0.45).abs() < 1e-5, "the top cube stays at 0.45 m: {height}");
    }
}
