//! Drift steps of PGS (`crate::drift`): on an island whose sweeps move λ along the null space of A
//! by the same amount each sweep, the motion is carried on to the bound it reaches, and the solve
//! converges where the sweeps would have needed thousands of sweeps (and were stopped as stalled).
//! The answer is checked by the natural-map residual computed here from A and b, and against the
//! mechanics: the rising fingers lift the sphere off the floor.

mod common;
#[path = "fixtures/gentle_grasp_lift_island.rs"]
mod island;

use common::{recorded_problem, recorded_residual};
use nalgebra::DVector;
use tribo_lcp::{Pgs, PgsOptions};

/// The tolerance and cap of the `pgs` engine's defaults (`tribo-pgs` options), N·s / m/s.
const TOLERANCE: f64 = 1e-9;
const CAP: usize = 100;

fn options() -> PgsOptions {
    PgsOptions {
        tolerance: TOLERANCE,
        max_iterations: CAP,
        subspace_rows: 96,
        least_norm_start_rows: 36,
        newton_contacts: 16,
        ..PgsOptions::default()
    }
}

#[test]
fn the_sphere_leaves_the_floor_within_the_cap() {
    let problem = recorded_problem(&island::DELASSUS, &island::FREE_VELOCITY, &island::MU);
    let mut lambda = DVector::from_column_slice(&island::WARM_START);
    let report = Pgs::new(options())
        .solve_contacts(&problem, &mut lambda)
        .expect("solves");
    assert!(report.converged && !report.stalled, "{report:?}");
    // Measured: 64 sweeps — 63 until the residual stops moving, a drift step, one sweep to
    // confirm (the sweeps alone: some 2,000, stopped as stalled at 63).
    assert!(report.iterations < CAP, "{report:?}");
    // A solution by the residual computed here, not only by the solver's own report.
    let residual = recorded_residual(&island::DELASSUS, &island::FREE_VELOCITY, &island::MU, &lambda);
    assert!(residual <= TOLERANCE, "residual {residual:e}");
    // The floor lets go (contact 0's normal impulse at zero, where the warm start had 9.4e-4 N·s)
    // and the fingers' friction holds the sphere: their vertical impulses (first tangents, of
    // opposite sense in the two frames) carry what the floor carried and more.
    assert_eq!(lambda[0], 0.0, "{lambda}");
    let (left, right) = (lambda[4], -lambda[7]);
    assert!(left > 4e-4 && right > 4e-4, "{lambda}");
    assert!(
        (left - right).abs() <= 1e-3 * left,
        "the fingers share the load evenly: {lambda}"
    );
    // Both grips stick: inside their friction discs.
    for c in 1..island::CONTACTS {
        let (normal, tangential) = (lambda[3 * c], lambda.fixed_rows::<2>(3 * c + 1).norm());
        assert!(tangential < island::MU[c] * normal, "contact {c}: {lambda}");
    }
}
