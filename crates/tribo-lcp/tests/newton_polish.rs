//! The Newton polish of PGS (`tribo_lcp::PgsOptions::newton_contacts`, `crate::newton`): on an
//! island whose sweeps slow down on a sliding contact it reaches the tolerance the sweeps alone
//! do not reach within their cap, and the answer is a solution by the natural-map residual
//! computed here from A and b.

mod common;
#[path = "fixtures/sr1_walk_sliding_island.rs"]
mod island;

use common::{recorded_problem, recorded_residual};
use nalgebra::DVector;
use tribo_lcp::{BlockSparseDelassus, ContactProblem, Pgs, PgsOptions, SolveReport};

/// The tolerance and cap of the `pgs` engine's defaults (`tribo-pgs` options), N·s / m/s.
const TOLERANCE: f64 = 1e-9;
const CAP: usize = 100;

/// The recorded island as the engine stores it.
fn problem() -> ContactProblem<BlockSparseDelassus> {
    recorded_problem(&island::DELASSUS, &island::FREE_VELOCITY, &island::MU)
}

/// The engine's PGS options, with or without the polish.
fn options(newton_contacts: usize) -> PgsOptions {
    PgsOptions {
        tolerance: TOLERANCE,
        max_iterations: CAP,
        subspace_rows: 96,
        least_norm_start_rows: 36,
        newton_contacts,
        ..PgsOptions::default()
    }
}

fn solve(newton_contacts: usize) -> (DVector<f64>, SolveReport) {
    let mut lambda = DVector::from_column_slice(&island::WARM_START);
    let report = Pgs::new(options(newton_contacts))
        .solve_contacts(&problem(), &mut lambda)
        .expect("solves");
    (lambda, report)
}

/// The natural-map residual of every contact, from w = Aλ + b computed densely here.
fn residual(lambda: &DVector<f64>) -> f64 {
    recorded_residual(&island::DELASSUS, &island::FREE_VELOCITY, &island::MU, lambda)
}

#[test]
fn the_sweeps_alone_stop_at_their_cap_on_the_sliding_island() {
    let (lambda, report) = solve(0);
    assert!(!report.converged, "{report:?}");
    assert_eq!(report.iterations, CAP);
    // Recorded from the engine: 2.4e-7 left at the cap.
    assert!(report.residual > 100.0 * TOLERANCE, "{report:?}");
    assert!(residual(&lambda) > 100.0 * TOLERANCE);
}

#[test]
fn the_newton_polish_reaches_the_tolerance_on_the_sliding_island() {
    let (lambda, report) = solve(16);
    assert!(report.converged, "{report:?}");
    assert!(report.residual <= TOLERANCE, "{report:?}");
    // Measured: 13 sweeps and a residual of 2.5e-10 (the sweeps alone: the cap of 100, 2.4e-7).
    assert!(report.iterations <= 30, "{report:?}");
    // A solution by the residual computed here, not only by the solver's own report.
    assert!(residual(&lambda) <= TOLERANCE, "residual {:e}", residual(&lambda));
    // The solution has a loaded contact on the rim of its friction disc: the case the polish is for.
    let sliding = (0..island::CONTACTS).any(|c| {
        let (ln, t) = (lambda[3 * c], lambda.fixed_rows::<2>(3 * c + 1).norm());
        ln > 1e-6 && (t - island::MU[c] * ln).abs() <= 1e-9 * ln
    });
    assert!(sliding, "no sliding contact in {lambda}");
}

#[test]
fn an_island_larger_than_newton_contacts_only_sweeps() {
    let (lambda_plain, plain) = solve(0);
    let (lambda_small, small) = solve(island::CONTACTS - 1);
    assert_eq!(plain, small);
    assert_eq!(lambda_plain, lambda_small);
}

#[path = "fixtures/landing_stack_island.rs"]
mod landing;

#[test]
fn the_polish_lands_a_stack_whose_corners_stick_and_slide_at_once() {
    let problem = recorded_problem(&landing::DELASSUS, &landing::FREE_VELOCITY, &landing::MU);
    let mut lambda = DVector::from_column_slice(&landing::WARM_START);
    let report = Pgs::new(options(16))
        .solve_contacts(&problem, &mut lambda)
        .expect("solves");
    // Measured: 6 sweeps, residual 9.7e-10. With one Newton step per polish the solve stopped at
    // the cap of 100 sweeps with 2.1e-4 left (1.2e-2 of the largest impulse): each step took ‖F‖
    // from about 1.4e-3 to 1.2e-3, and the sweeps between crawled at 0.98 per sweep.
    assert!(report.converged && report.iterations <= 20, "{report:?}");
    let residual = recorded_residual(&landing::DELASSUS, &landing::FREE_VELOCITY, &landing::MU, &lambda);
    assert!(residual <= TOLERANCE, "residual {residual:e}");
    // Every corner loaded, some on the rim of their friction discs and some inside: the mixed
    // active set a subspace step (which holds the rim contacts' λₜ) cannot land on.
    let ratio = |c: usize| lambda.fixed_rows::<2>(3 * c + 1).norm() / (landing::MU[c] * lambda[3 * c]);
    assert!((0..landing::CONTACTS).all(|c| lambda[3 * c] > 0.0), "{lambda}");
    let on_rim = (0..landing::CONTACTS).filter(|&c| ratio(c) >= 1.0 - 1e-4).count();
    let inside = (0..landing::CONTACTS).filter(|&c| ratio(c) < 0.9).count();
    assert!(
        on_rim >= 2 && inside >= 2,
        "{on_rim} on the rim, {inside} inside: {lambda}"
    );
}
