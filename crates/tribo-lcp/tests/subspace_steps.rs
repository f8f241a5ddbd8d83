//! Subspace steps between PGS sweeps (PGS-SM, `tribo_lcp::PgsOptions::subspace_rows`): the same
//! answer, judged by the same residual, in fewer sweeps — on rank-deficient face contacts (four
//! corners per face, a column of boxes as in the benchmark pile), on a box that slides, and on
//! random problems of every friction model.

mod common;

use common::{frictions, ground_contacts, random_contact_problem, resting, Body, DT};
use nalgebra::{DVector, Matrix3, Vector3};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tribo_lcp::{
    BlockSparseDelassus, ContactFrame, ContactProblem, DelassusRows, FactoredDelassus, FactoredSide, FrictionModel,
    Pgs, PgsOptions, SolveReport,
};

const G: f64 = 9.81;

fn options(subspace_rows: usize) -> PgsOptions {
    PgsOptions {
        tolerance: 1e-10,
        max_iterations: 20_000,
        subspace_rows,
        ..PgsOptions::default()
    }
}

fn solve<D: DelassusRows>(problem: &ContactProblem<D>, subspace_rows: usize) -> (DVector<f64>, SolveReport) {
    let mut lambda = DVector::zeros(problem.free_velocity.len());
    let report = Pgs::new(options(subspace_rows))
        .solve_contacts(problem, &mut lambda)
        .expect("solves");
    (lambda, report)
}

/// `count` cubes of 1 kg (0.1 m) stacked on the ground, falling from rest for one step: four corner
/// contacts at the ground and at each interface (contacts 4k..4k+4 below cube k).
fn column(count: usize, mu: f64) -> ContactProblem<BlockSparseDelassus> {
    let side = 0.1;
    let frame = ContactFrame::with_tangent(&Vector3::z(), &Vector3::x()).expect("unit normal");
    let corners = |z: f64| -> Vec<Vector3<f64>> {
        [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
            .iter()
            .map(|&(x, y)| Vector3::new(0.5 * side * x, 0.5 * side * y, z))
            .collect()
    };
    let mut operator = BlockSparseDelassus::new(4 * count);
    for k in 0..count {
        let z = side * k as f64;
        let cube = Body::cuboid(
            1.0,
            Vector3::new(side, side, side),
            Vector3::new(0.0, 0.0, z + 0.5 * side),
        );
        // Pushed up by the contacts below (+J), down by those above (−J).
        let below = corners(z)
            .into_iter()
            .enumerate()
            .map(|(i, p)| (4 * k + i, cube.contact_jacobian(&frame, &p)));
        let above = corners(z + side)
            .into_iter()
            .enumerate()
            .filter(|_| k + 1 < count)
            .map(|(i, p)| (4 * (k + 1) + i, -cube.contact_jacobian(&frame, &p)));
        let rows: Vec<_> = below.chain(above).collect();
        assert!(operator.add_body_coupling(&rows, &cube.inverse_mass()));
    }
    // Every cube falls by g h: only the ground contacts approach.
    let mut b = DVector::zeros(12 * count);
    for c in 0..4 {
        b[3 * c] = -G * DT;
    }
    ContactProblem::new(operator, b, frictions(4 * count, mu, FrictionModel::Cone)).expect("valid")
}

#[test]
fn a_column_of_five_cubes_from_a_cold_start_takes_far_fewer_sweeps() {
    let problem = column(5, 0.5);
    let (plain, plain_report) = solve(&problem, 0);
    let (stepped, report) = solve(&problem, 96);
    assert!(
        plain_report.converged && report.converged,
        "{plain_report:?} {report:?}"
    );
    // Measured: 3750 plain sweeps, 4 with steps.
    assert!(
        report.iterations <= 10 && plain_report.iterations >= 1000,
        "subspace steps {report:?} against plain sweeps {plain_report:?}"
    );
    // Statics: the contacts below cube k carry the weight of the cubes from k up, (5 − k) m g h.
    for (label, lambda) in [("plain", &plain), ("stepped", &stepped)] {
        for k in 0..5 {
            let total: f64 = (0..4).map(|i| lambda[3 * (4 * k + i)]).sum();
            let expected = (5 - k) as f64 * G * DT;
            assert!(
                (total - expected).abs() < 1e-9,
                "{label}: level {k}: {total} vs {expected}"
            );
        }
        let v = problem.velocity(lambda).expect("sizes");
        assert!(v.amax() < 1e-9, "{label}: everything at rest: {v}");
    }
}

#[test]
fn a_box_pushed_past_its_friction_limit_slides_the_same_way() {
    // 12 kg box on four corners, μ = 0.3, pushed with 60 N > μ m g ≈ 35.3 N: it slides; the
    // acceleration is (60 − μ m g)/m along the push whichever way the impulses are spread.
    let body = Body::cuboid(12.0, Vector3::new(0.4, 0.3, 0.2), Vector3::new(0.02, -0.01, 0.1));
    let corners: Vec<Vector3<f64>> = [(0.2, 0.15), (-0.2, 0.15), (-0.2, -0.15), (0.2, -0.15)]
        .iter()
        .map(|&(x, y)| Vector3::new(x, y, 0.0))
        .collect();
    let push = Vector3::new(60.0, 0.0, 0.0);
    let setup = resting(&body, &ground_contacts(&corners), Vector3::new(0.0, 0.0, -G), push);
    let mu = 0.3;
    let problem =
        ContactProblem::new(setup.sparse, setup.free_velocity, frictions(4, mu, FrictionModel::Cone)).expect("valid");
    let (plain, plain_report) = solve(&problem, 0);
    let (stepped, report) = solve(&problem, 96);
    assert!(
        plain_report.converged && report.converged,
        "{plain_report:?} {report:?}"
    );
    for (label, lambda) in [("plain", &plain), ("stepped", &stepped)] {
        let normal: f64 = (0..4).map(|c| lambda[3 * c]).sum();
        let friction: f64 = (0..4).map(|c| lambda[3 * c + 1]).sum();
        assert!((normal - 12.0 * G * DT).abs() < 1e-8, "{label}: {normal}");
        assert!(
            (friction + mu * normal).abs() < 1e-8,
            "{label}: kinetic friction {friction}"
        );
    }
}

#[test]
fn random_problems_reach_the_tolerance_with_and_without_steps() {
    let mut rng = ChaCha8Rng::seed_from_u64(2010);
    for model in [
        FrictionModel::Cone,
        FrictionModel::Box,
        FrictionModel::Pyramid { edges: 8 },
    ] {
        for _ in 0..20 {
            let problem = random_contact_problem(&mut rng, 6, model);
            let (plain, plain_report) = solve(&problem, 0);
            let (stepped, report) = solve(&problem, 96);
            assert!(plain_report.converged, "{model:?}: {plain_report:?}");
            assert!(report.converged, "{model:?}: {report:?}");
            // A is definite: the solution is unique.
            assert!((&plain - &stepped).amax() < 1e-7, "{model:?}: {plain} {stepped}");
        }
    }
}

#[test]
fn islands_larger_than_the_limit_get_plain_sweeps() {
    let problem = column(5, 0.5);
    let (plain, plain_report) = solve(&problem, 0);
    let (limited, report) = solve(&problem, 59);
    assert_eq!(plain_report, report, "60 rows are above the limit of 59");
    assert_eq!(plain, limited);
}

/// The normal compliance of [`factored_column`] (s/kg): it makes the operator definite while the
/// column sinks by only `COMPLIANCE λ` per step, changing the statics by a relative ~ M · COMPLIANCE.
const COMPLIANCE: f64 = 1e-9;

/// The column of [`column`] with each cube's coupling kept factored (`FactoredDelassus`: the
/// velocity-space form the pgs engine uses for free bodies) and a small compliance on every
/// normal row in the assembled part.
fn factored_column(count: usize, mu: f64) -> ContactProblem<FactoredDelassus> {
    let plain = column(count, mu);
    let side = 0.1;
    let frame = ContactFrame::with_tangent(&Vector3::z(), &Vector3::x()).expect("unit normal");
    let mut sides = Vec::new();
    for k in 0..count {
        let z = side * k as f64;
        let cube = Body::cuboid(
            1.0,
            Vector3::new(side, side, side),
            Vector3::new(0.0, 0.0, z + 0.5 * side),
        );
        let corners = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)];
        for (i, &(x, y)) in corners.iter().enumerate() {
            for (contact, height, sign) in [(4 * k + i, z, 1.0), (4 * (k + 1) + i, z + side, -1.0)] {
                if contact >= 4 * count {
                    continue;
                }
                let point = Vector3::new(0.5 * side * x, 0.5 * side * y, height);
                let rows = cube.contact_jacobian(&frame, &point) * sign;
                let response = cube.inverse_mass() * rows.transpose();
                sides.push((
                    contact,
                    FactoredSide {
                        slot: k,
                        rows,
                        response,
                    },
                ));
            }
        }
    }
    let compliance: Vec<_> = (0..4 * count)
        .map(|c| (c, c, Matrix3::from_diagonal(&Vector3::new(COMPLIANCE, 0.0, 0.0))))
        .collect();
    let assembled = BlockSparseDelassus::from_blocks(4 * count, compliance).expect("contacts in range");
    let operator = FactoredDelassus::new(assembled, sides).expect("contacts in range");
    ContactProblem::new(operator, plain.free_velocity.clone(), plain.contacts.clone()).expect("valid")
}

#[test]
fn block_row_visits_sum_to_the_blocks() {
    // The subspace step assembles A_FF from `visit_block_row`: its parts of each (i, j), summed in
    // the order visited, must be `block(i, j)` to the bit, for the factored and the assembled form.
    fn check<D: DelassusRows>(operator: &D) {
        let n = operator.dim() / 3;
        for i in 0..n {
            let mut sums = vec![Matrix3::zeros(); n];
            let mut seen = vec![false; n];
            operator.visit_block_row(i, &mut |j, part| {
                sums[j] += part;
                seen[j] = true;
            });
            for j in 0..n {
                let block = operator.block(i, j);
                assert!(seen[j] || block == Matrix3::zeros(), "({i}, {j}) not visited: {block}");
                assert_eq!(sums[j], block, "({i}, {j})");
            }
        }
    }
    check(&factored_column(3, 0.5).delassus);
    check(&column(3, 0.5).delassus);
}

#[test]
fn a_factored_column_takes_subspace_steps_to_the_statics() {
    // The interface under cube k carries the (count − k) cubes above it: its four corners' normal
    // impulses sum to (count − k) m g h, to a relative 1e-7 (the compliance lets the column sink
    // by a relative ~ 5 kg × COMPLIANCE). How the corners share it is left to the route taken
    // (the operator is only just definite), as in the assembled column above.
    let count = 5;
    let problem = factored_column(count, 0.5);
    let (stepped, report) = solve(&problem, 96);
    assert!(report.converged && report.iterations <= 10, "{report:?}");
    for k in 0..count {
        let expected = (count - k) as f64 * G * DT;
        let total: f64 = (0..4).map(|i| stepped[3 * (4 * k + i)]).sum();
        assert!(
            (total - expected).abs() < 1e-7 * expected,
            "interface {k}: {total} vs {expected}"
        );
    }
}

/// The twist of a cube's four ground corners (corners 0..4 at (±, ±) in `column`'s order: signs
/// +, −, +, −): no net force and no moment, the null space of a face's normal impulses.
fn twist(lambda: &DVector<f64>) -> f64 {
    (lambda[0] - lambda[3] + lambda[6] - lambda[9]) / 4.0
}

#[test]
fn a_least_norm_start_changes_a_face_s_load_without_twisting_it() {
    let options = PgsOptions {
        least_norm_start_rows: 12,
        ..options(96)
    };
    let problem = column(1, 0.5);
    let mut rest = DVector::zeros(12);
    Pgs::new(options).solve_contacts(&problem, &mut rest).expect("solves");

    // A warm start that solves the problem: no sweep.
    let mut lambda = rest.clone();
    let report = Pgs::new(options).solve_contacts(&problem, &mut lambda).expect("solves");
    assert!(report.converged && report.iterations == 0, "{report:?}");
    assert_eq!(lambda, rest, "the warm start is kept as it is");

    // A twisted warm start (the spread the step before left) and twice the approach: the change is
    // the least-norm one, so the twist stays what it was (to the 1e-10 tolerance), and the face
    // carries twice the load.
    let delta = 0.1 * G * DT / 4.0;
    let mut lambda = rest.clone();
    for (corner, sign) in [1.0, -1.0, 1.0, -1.0].into_iter().enumerate() {
        lambda[3 * corner] += sign * delta;
    }
    let before = twist(&lambda);
    let mut harder = problem.clone();
    harder.free_velocity *= 2.0;
    let report = Pgs::new(options).solve_contacts(&harder, &mut lambda).expect("solves");
    assert!(report.converged, "{report:?}");
    let total: f64 = (0..4).map(|c| lambda[3 * c]).sum();
    assert!((total - 2.0 * G * DT).abs() < 1e-9, "the face carries 2 m g h: {total}");
    assert!(
        (twist(&lambda) - before).abs() < 1e-10,
        "the twist stays {before}: {}",
        twist(&lambda)
    );
}

#[test]
fn a_kept_factor_serves_the_next_problem_and_reaches_the_same_answer() {
    // Step after step a standing cube's problem barely changes: the least-norm start's step then
    // uses the last factor again. The answer is judged by the same residual: it is the statics.
    let options = PgsOptions {
        least_norm_start_rows: 12,
        ..options(96)
    };
    let mut pgs = Pgs::new(options);
    let problem = column(1, 0.5);
    let mut lambda = DVector::zeros(12);
    pgs.solve_contacts(&problem, &mut lambda).expect("solves");
    for scale in [1.5, 2.0, 2.5] {
        let mut next = problem.clone();
        next.free_velocity *= scale;
        let report = pgs.solve_contacts(&next, &mut lambda).expect("solves");
        assert!(report.converged, "{report:?}");
        let total: f64 = (0..4).map(|c| lambda[3 * c]).sum();
        assert!(
            (total - scale * G * DT).abs() < 1e-9,
            "the face carries {scale} m g h: {total}"
        );
        let v = next.velocity(&lambda).expect("sizes");
        assert!(v.amax() < 1e-9, "at rest: {v}");
    }
}
