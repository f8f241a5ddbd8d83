//! Physical one-step cases with analytic answers: bodies at rest, a block on a slope that sticks or
//! slides, a two-box stack on the block-sparse operator, and warm starting.

mod common;

use common::{frictions, ground_contacts, resting, Body, DT};
use nalgebra::{DMatrix, DVector, Vector3};
use tribo_lcp::{
    solve_contacts_lemke, solve_contacts_pgs, solve_lcp_pgs, BlockSparseDelassus, ContactFrame, ContactFriction,
    ContactProblem, DenseRows, FrictionModel, Lcp, LemkeOptions, Pgs, PgsOptions,
};

const G: f64 = 9.81;

fn tight() -> PgsOptions {
    PgsOptions {
        tolerance: 1e-12,
        max_iterations: 50_000,
        ..PgsOptions::default()
    }
}

#[test]
fn a_point_mass_at_rest_needs_m_g_dt() {
    // λₙ = m g h for every model and both solvers.
    let mass = 2.5;
    let a = DMatrix::identity(3, 3) / mass;
    let b = DVector::from_vec(vec![-G * DT, 0.0, 0.0]);
    for model in [
        FrictionModel::Box,
        FrictionModel::Pyramid { edges: 8 },
        FrictionModel::Cone,
    ] {
        let problem = ContactProblem::new(a.clone(), b.clone(), frictions(1, 0.4, model)).expect("valid");
        let (lambda, report) = solve_contacts_pgs(&problem, &tight()).expect("solves");
        assert!((lambda[0] - mass * G * DT).abs() < 1e-15, "{model:?}: {lambda}");
        assert_eq!((lambda[1], lambda[2]), (0.0, 0.0));
        // One sweep solves it; the second sees a zero residual and stops.
        assert!(report.converged && report.iterations == 2, "{report:?}");
    }
}

#[test]
fn a_tripod_splits_the_weight_by_barycentric_weights() {
    // Three non-collinear contacts: the normal LCP is 3 × 3 and nonsingular, so the split is unique and
    // is the static one: λᵢ = m g h βᵢ, with β the barycentric coordinates of the centre of mass's
    // projection in the contact triangle.
    let points = [
        Vector3::new(0.3, 0.0, 0.0),
        Vector3::new(-0.2, 0.25, 0.0),
        Vector3::new(-0.1, -0.3, 0.0),
    ];
    let com = Vector3::new(0.02, 0.01, 0.15);
    let body = Body::cuboid(7.0, Vector3::new(0.6, 0.6, 0.3), com);
    let setup = resting(
        &body,
        &ground_contacts(&points),
        Vector3::new(0.0, 0.0, -G),
        Vector3::zeros(),
    );
    // Barycentric coordinates of (0.02, 0.01).
    let m = nalgebra::Matrix3::new(
        1.0,
        1.0,
        1.0,
        points[0].x,
        points[1].x,
        points[2].x,
        points[0].y,
        points[1].y,
        points[2].y,
    );
    let beta = m.try_inverse().expect("triangle") * Vector3::new(1.0, com.x, com.y);
    assert!(beta.iter().all(|&b| b > 0.0), "centre of mass inside the tripod");

    // Normal-only LCP from the dense operator (rows 0, 3, 6).
    let normal_rows = [0, 3, 6];
    let a = DMatrix::from_fn(3, 3, |i, j| setup.dense[(normal_rows[i], normal_rows[j])]);
    let b = DVector::from_fn(3, |i, _| setup.free_velocity[normal_rows[i]]);
    let (lambda, report) = solve_lcp_pgs(&Lcp::new(a, b).expect("valid"), &tight()).expect("solves");
    assert!(report.converged, "{report:?}");
    for i in 0..3 {
        let expected = body.mass * G * DT * beta[i];
        assert!(
            (lambda[i] - expected).abs() < 1e-10,
            "contact {i}: {} vs {expected}",
            lambda[i]
        );
    }

    // With friction, on the block-sparse operator: the same normal split (the internal forces of three
    // coplanar contacts are tangential, so friction may carry some, but they cancel), and the body at rest.
    let problem = ContactProblem::new(
        setup.sparse,
        setup.free_velocity,
        frictions(3, 0.5, FrictionModel::Cone),
    )
    .expect("valid");
    let (lambda, report) = solve_contacts_pgs(&problem, &tight()).expect("solves");
    assert!(report.converged, "{report:?}");
    for i in 0..3 {
        assert!((lambda[3 * i] - body.mass * G * DT * beta[i]).abs() < 1e-10);
    }
    let (sum_t1, sum_t2) = (0..3).fold((0.0, 0.0), |(x, y), i| (x + lambda[3 * i + 1], y + lambda[3 * i + 2]));
    assert!(
        sum_t1.abs() < 1e-10 && sum_t2.abs() < 1e-10,
        "net friction ({sum_t1}, {sum_t2})"
    );
    assert!(problem.velocity(&lambda).expect("sizes").amax() < 1e-10, "at rest");
}

#[test]
fn a_box_on_four_corners_carries_its_weight_with_the_pressure_centre_under_its_mass_centre() {
    // Four corners make A singular (rank 6 of 12); the split is not unique, but the totals are:
    // Σλₙ = m g h and Σλₙ·(x, y) = m g h·(x_c, y_c).
    let com = Vector3::new(0.05, -0.03, 0.1);
    let body = Body::cuboid(12.0, Vector3::new(0.4, 0.3, 0.2), com);
    let corners: Vec<Vector3<f64>> = [(0.2, 0.15), (-0.2, 0.15), (-0.2, -0.15), (0.2, -0.15)]
        .iter()
        .map(|&(x, y)| Vector3::new(x, y, 0.0))
        .collect();
    let setup = resting(
        &body,
        &ground_contacts(&corners),
        Vector3::new(0.0, 0.0, -G),
        Vector3::zeros(),
    );
    for model in [
        FrictionModel::Box,
        FrictionModel::Pyramid { edges: 4 },
        FrictionModel::Cone,
    ] {
        let problem = ContactProblem::new(
            DenseRows::from_matrix(&setup.dense),
            setup.free_velocity.clone(),
            frictions(4, 0.6, model),
        )
        .expect("valid");
        let (lambda, report) = solve_contacts_pgs(&problem, &tight()).expect("solves");
        assert!(
            report.converged && report.complementarity < 1e-12,
            "{model:?}: {report:?}"
        );
        let weight = body.mass * G * DT;
        let total: f64 = (0..4).map(|c| lambda[3 * c]).sum();
        let moment_x: f64 = (0..4).map(|c| lambda[3 * c] * corners[c].x).sum();
        let moment_y: f64 = (0..4).map(|c| lambda[3 * c] * corners[c].y).sum();
        assert!(
            (total - weight).abs() < 1e-10 * weight,
            "{model:?}: Σλₙ {total} vs {weight}"
        );
        assert!(
            (moment_x / total - com.x).abs() < 1e-9 && (moment_y / total - com.y).abs() < 1e-9,
            "{model:?}"
        );
        assert!((0..4).all(|c| lambda[3 * c] >= 0.0));
    }
}

#[test]
fn a_box_on_four_corners_by_lemke_despite_the_singular_delassus_matrix() {
    // Exercise 4.1's box (10 kg, μ = 0.5, g = 9.8) on four corners, with the centre of mass off-centre:
    // A is singular and the pyramid LCP degenerate, yet Lemke's method ends with a solution whose totals
    // are the analytic ones: Σfₙ = 98 N; Σfₜ = −40 N for a 40 N push (stick) and −49 N for 60 N (slide,
    // +x is an edge of every model here, so each limits the total at μΣfₙ).
    let body = Body::cuboid(10.0, Vector3::new(0.4, 0.4, 0.2), Vector3::new(0.03, 0.0, 0.1));
    let corners: Vec<Vector3<f64>> = [(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]
        .iter()
        .map(|&(x, y)| Vector3::new(x, y, 0.0))
        .collect();
    for (push, expected_friction) in [(40.0, -40.0), (60.0, -49.0)] {
        let setup = resting(
            &body,
            &ground_contacts(&corners),
            Vector3::new(0.0, 0.0, -9.8),
            Vector3::new(push, 0.0, 0.0),
        );
        for model in [
            FrictionModel::Box,
            FrictionModel::Pyramid { edges: 4 },
            FrictionModel::Pyramid { edges: 16 },
        ] {
            let problem = ContactProblem::new(
                setup.dense.clone(),
                setup.free_velocity.clone(),
                frictions(4, 0.5, model),
            )
            .expect("valid");
            let (lambda, report) = solve_contacts_lemke(&problem, &LemkeOptions::default()).expect("Lemke solves");
            assert!(report.residual < 1e-14, "{push} N {model:?}: {report:?}");
            let normal: f64 = (0..4).map(|c| lambda[3 * c]).sum::<f64>() / DT;
            let friction: f64 = (0..4).map(|c| lambda[3 * c + 1]).sum::<f64>() / DT;
            assert!((normal - 98.0).abs() < 1e-9, "{push} N {model:?}: Σfₙ {normal}");
            assert!(
                (friction - expected_friction).abs() < 1e-9,
                "{push} N {model:?}: Σfₜ {friction}"
            );
        }
    }
}

#[test]
fn from_dynamics_builds_j_minv_jt_and_the_free_velocity() {
    // The same box as above through ContactProblem::from_dynamics, against the fixture's assembly.
    let body = Body::cuboid(10.0, Vector3::new(0.4, 0.4, 0.2), Vector3::new(0.03, 0.0, 0.1));
    let corners: Vec<Vector3<f64>> = [(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]
        .iter()
        .map(|&(x, y)| Vector3::new(x, y, 0.0))
        .collect();
    let push = Vector3::new(40.0, 0.0, 0.0);
    let gravity = Vector3::new(0.0, 0.0, -9.8);
    let setup = resting(&body, &ground_contacts(&corners), gravity, push);
    let mut jacobian = DMatrix::zeros(12, 6);
    for (c, j) in setup.jacobians.iter().enumerate() {
        jacobian.view_mut((3 * c, 0), (3, 6)).copy_from(j);
    }
    let mass = DMatrix::from_fn(6, 6, |r, c| match (r < 3, c < 3) {
        (true, true) if r == c => body.mass,
        (false, false) => body.inertia[(r - 3, c - 3)],
        _ => 0.0,
    });
    let force = DVector::from_vec(vec![push.x, push.y, push.z + body.mass * gravity.z, 0.0, 0.0, 0.0]);
    let problem = ContactProblem::from_dynamics(
        &jacobian,
        &mass,
        &DVector::zeros(6),
        &force,
        DT,
        frictions(4, 0.5, FrictionModel::Cone),
    )
    .expect("valid");
    assert!((&problem.delassus - &setup.dense).amax() < 1e-12);
    assert!((&problem.free_velocity - &setup.free_velocity).amax() < 1e-15);
    let singular = DMatrix::zeros(6, 6);
    let result = ContactProblem::from_dynamics(
        &jacobian,
        &singular,
        &DVector::zeros(6),
        &force,
        DT,
        frictions(4, 0.5, FrictionModel::Cone),
    );
    assert_eq!(
        result.map(|_| ()),
        Err(tribo_lcp::Error::NotPositiveDefinite { what: "M" })
    );
}

/// A point mass on a slope of angle θ after one step from rest: frame n = slope normal, t₁ = down-hill.
/// A = I/m, b = h g (−cos θ, sin θ, 0).
fn slope(theta: f64, mu: f64, model: FrictionModel) -> ContactProblem {
    let mass = 3.0;
    let a = DMatrix::identity(3, 3) / mass;
    let b = DVector::from_vec(vec![-G * DT * theta.cos(), G * DT * theta.sin(), 0.0]);
    ContactProblem::new(a, b, vec![ContactFriction::new(mu, model)]).expect("valid")
}

#[test]
fn a_block_on_a_slope_sticks_when_mu_exceeds_tan_theta_and_slides_otherwise() {
    let mass = 3.0;
    let theta = 25f64.to_radians(); // tan θ = 0.466
    for model in [
        FrictionModel::Box,
        FrictionModel::Pyramid { edges: 4 },
        FrictionModel::Pyramid { edges: 16 },
        FrictionModel::Cone,
    ] {
        for mu in [0.3, 0.6] {
            let problem = slope(theta, mu, model);
            let mut solutions = vec![("PGS", solve_contacts_pgs(&problem, &tight()).expect("solves"))];
            if model.is_polyhedral() {
                solutions.push((
                    "Lemke",
                    solve_contacts_lemke(&problem, &LemkeOptions::default()).expect("solves"),
                ));
            }
            for (solver, (lambda, report)) in solutions {
                assert!(
                    report.residual < 1e-12 && report.complementarity < 1e-12,
                    "{solver} {model:?}: {report:?}"
                );
                let v = problem.velocity(&lambda).expect("sizes");
                let normal = mass * G * DT * theta.cos();
                assert!(
                    (lambda[0] - normal).abs() < 1e-14,
                    "{solver} {model:?} μ {mu}: λₙ {}",
                    lambda[0]
                );
                assert!(lambda[2].abs() < 1e-14 && v[2].abs() < 1e-14);
                if mu > theta.tan() {
                    // Stick: friction holds the whole down-hill weight component, no slip.
                    assert!(
                        (lambda[1] + mass * G * DT * theta.sin()).abs() < 1e-14,
                        "{solver} {model:?}: {lambda}"
                    );
                    assert!(v[1].abs() < 1e-14, "{solver} {model:?}: slips at {}", v[1]);
                } else {
                    // Slide: friction at its limit μλₙ up-hill; slip speed h g (sin θ − μ cos θ).
                    assert!((lambda[1] + mu * normal).abs() < 1e-14, "{solver} {model:?}: {lambda}");
                    let expected = G * DT * (theta.sin() - mu * theta.cos());
                    assert!(
                        (v[1] - expected).abs() < 1e-14,
                        "{solver} {model:?}: slip {} vs {expected}",
                        v[1]
                    );
                }
            }
        }
    }
}

#[test]
fn slope_sliding_across_pyramid_faces_shows_the_pyramid_limit() {
    // Down-hill along t₁ rotated by 45°: for the square pyramid that is mid-face, where the friction
    // limit is μλₙcos(π/4) (the 29 % of §4.1.3); the cone keeps μλₙ.
    let (mass, theta, mu) = (3.0, 40f64.to_radians(), 0.5);
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let a = DMatrix::identity(3, 3) / mass;
    let down = G * DT * theta.sin();
    let b = DVector::from_vec(vec![-G * DT * theta.cos(), down * s, down * s]);
    let normal = mass * G * DT * theta.cos();
    for (model, limit) in [
        (FrictionModel::Cone, mu * normal),
        (FrictionModel::Pyramid { edges: 4 }, mu * normal * s),
    ] {
        let problem = ContactProblem::new(a.clone(), b.clone(), vec![ContactFriction::new(mu, model)]).expect("valid");
        let (lambda, report) = solve_contacts_pgs(&problem, &tight()).expect("solves");
        assert!(report.converged, "{report:?}");
        let friction = lambda[1].hypot(lambda[2]);
        assert!(
            (friction - limit).abs() < 1e-12,
            "{model:?}: |λₜ| {friction} vs {limit}"
        );
    }
}

#[test]
fn a_two_box_stack_on_the_block_sparse_operator() {
    // Box 1 (4 kg) on the ground, box 2 (2 kg) on box 1; each interface has four corner contacts.
    // Ground contacts carry (m₁ + m₂) g h in total, the interface m₂ g h; nothing slips.
    let lower = Body::cuboid(4.0, Vector3::new(0.4, 0.4, 0.2), Vector3::new(0.0, 0.0, 0.1));
    let upper = Body::cuboid(2.0, Vector3::new(0.3, 0.3, 0.2), Vector3::new(0.0, 0.0, 0.3));
    let frame = ContactFrame::with_tangent(&Vector3::z(), &Vector3::x()).expect("unit normal");
    let square = |half: f64, z: f64| -> Vec<Vector3<f64>> {
        [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
            .iter()
            .map(|&(x, y)| Vector3::new(half * x, half * y, z))
            .collect()
    };
    let (ground, interface) = (square(0.2, 0.0), square(0.15, 0.2));
    let mut operator = BlockSparseDelassus::new(8);
    // Lower body: pushed up by ground contacts 0..4 (+J), pushed down by interface contacts 4..8 (−J).
    let lower_rows: Vec<_> = ground
        .iter()
        .enumerate()
        .map(|(c, p)| (c, lower.contact_jacobian(&frame, p)))
        .chain(
            interface
                .iter()
                .enumerate()
                .map(|(c, p)| (4 + c, -lower.contact_jacobian(&frame, p))),
        )
        .collect();
    let upper_rows: Vec<_> = interface
        .iter()
        .enumerate()
        .map(|(c, p)| (4 + c, upper.contact_jacobian(&frame, p)))
        .collect();
    assert!(operator.add_body_coupling(&lower_rows, &lower.inverse_mass()));
    assert!(operator.add_body_coupling(&upper_rows, &upper.inverse_mass()));
    assert_eq!(
        operator.block_count(),
        64,
        "every pair of the 8 contacts shares the lower box"
    );
    // Free velocity: both bodies fall by g h; relative velocity at the interface is zero.
    let mut b = DVector::zeros(24);
    for c in 0..4 {
        b[3 * c] = -G * DT;
    }
    let problem = ContactProblem::new(operator, b, frictions(8, 0.5, FrictionModel::Cone)).expect("valid");
    let (lambda, report) = solve_contacts_pgs(&problem, &tight()).expect("solves");
    assert!(report.converged, "{report:?}");
    let ground_total: f64 = (0..4).map(|c| lambda[3 * c]).sum();
    let interface_total: f64 = (4..8).map(|c| lambda[3 * c]).sum();
    assert!((ground_total - 6.0 * G * DT).abs() < 1e-10, "{ground_total}");
    assert!((interface_total - 2.0 * G * DT).abs() < 1e-10, "{interface_total}");
    let v = problem.velocity(&lambda).expect("sizes");
    assert!(v.amax() < 1e-10, "everything at rest: {v}");
}

#[test]
fn warm_starting_from_last_steps_impulses_saves_sweeps() {
    let com = Vector3::new(0.05, -0.03, 0.1);
    let body = Body::cuboid(12.0, Vector3::new(0.4, 0.3, 0.2), com);
    let corners: Vec<Vector3<f64>> = [(0.2, 0.15), (-0.2, 0.15), (-0.2, -0.15), (0.2, -0.15)]
        .iter()
        .map(|&(x, y)| Vector3::new(x, y, 0.0))
        .collect();
    let setup = resting(
        &body,
        &ground_contacts(&corners),
        Vector3::new(0.0, 0.0, -G),
        Vector3::new(5.0, 2.0, 0.0),
    );
    let problem =
        ContactProblem::new(setup.dense, setup.free_velocity, frictions(4, 0.6, FrictionModel::Cone)).expect("valid");
    let mut pgs = Pgs::new(PgsOptions {
        tolerance: 1e-10,
        max_iterations: 10_000,
        ..PgsOptions::default()
    });
    let mut lambda = DVector::zeros(12);
    let cold = pgs.solve_contacts(&problem, &mut lambda).expect("solves");
    let warm = pgs.solve_contacts(&problem, &mut lambda).expect("solves");
    assert!(cold.converged && warm.converged);
    assert!(
        cold.iterations > 5 && warm.iterations == 1,
        "cold {cold:?}, warm {warm:?}"
    );
}

#[test]
fn over_relaxation_keeps_the_solution() {
    let theta = 25f64.to_radians();
    let problem = slope(theta, 0.6, FrictionModel::Cone);
    for relaxation in [0.5, 1.0, 1.5, 1.9] {
        let options = PgsOptions { relaxation, ..tight() };
        let (lambda, report) = solve_contacts_pgs(&problem, &options).expect("solves");
        assert!(report.converged, "ω {relaxation}: {report:?}");
        // A = I/m, so an impulse error is at most m times the velocity residual (3 × 1e-12).
        assert!(
            (lambda[1] + 3.0 * G * DT * theta.sin()).abs() < 3e-12,
            "ω {relaxation}: {lambda} {report:?}"
        );
    }
}
