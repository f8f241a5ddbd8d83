//! Chapter 4 exercises 4.1–4.4 and the pyramid approximation figures of §4.1.3, solved with the crate.

mod common;

use common::{frictions, ground_contacts, resting, Body, DT};
use nalgebra::{DMatrix, DVector, Vector3};
use tribo_lcp::{
    point_contact_wrench, pyramid_edges, pyramid_relative_error, pyramid_relative_error_3d,
    pyramid_relative_error_closed_form, solve_contacts_lemke, solve_contacts_pgs, ContactFriction, ContactProblem,
    FrictionModel, LemkeOptions, PgsOptions, PyramidFit,
};
use tribo_lcp::{solve_lemke, Lcp};

/// Exercise 4.1 as a one-step contact problem: a 10 kg box (a point mass on one contact, frame
/// n = +z, t₁ = +x along the push) from rest, g = 9.8 m/s², pushed horizontally with `push` N.
/// A = I/m, b = h(F/m, 0, −g) ordered (n, t₁, t₂). Returns (normal force, friction force along x,
/// sliding speed after the step) for each solver and model.
fn exercise_4_1(push: f64) -> Vec<(String, f64, f64, f64)> {
    let (mass, mu, g) = (10.0, 0.5, 9.8);
    let a = DMatrix::identity(3, 3) / mass;
    let b = DVector::from_vec(vec![-g * DT, push / mass * DT, 0.0]);
    let options = PgsOptions {
        tolerance: 1e-12,
        ..PgsOptions::default()
    };
    let mut results = Vec::new();
    for model in [
        FrictionModel::Cone,
        FrictionModel::Box,
        FrictionModel::Pyramid { edges: 4 },
        FrictionModel::Pyramid { edges: 8 },
    ] {
        let problem = ContactProblem::new(a.clone(), b.clone(), vec![ContactFriction::new(mu, model)]).expect("valid");
        let (lambda, report) = solve_contacts_pgs(&problem, &options).expect("PGS solves");
        assert!(report.converged, "{model:?}: {report:?}");
        let v = problem.velocity(&lambda).expect("sizes");
        results.push((format!("PGS {model:?}"), lambda[0] / DT, lambda[1] / DT, v[1]));
        if model.is_polyhedral() {
            let (lambda, report) = solve_contacts_lemke(&problem, &LemkeOptions::default()).expect("Lemke solves");
            assert!(report.residual < 1e-12, "{model:?}: {report:?}");
            let v = problem.velocity(&lambda).expect("sizes");
            results.push((format!("Lemke {model:?}"), lambda[0] / DT, lambda[1] / DT, v[1]));
        }
    }
    results
}

#[test]
fn exercise_4_1_box_pushed_with_40_newtons_does_not_slide() {
    // Answer: f_max = μmg = 49 N > 40 N, so no sliding; fₙ = mg = 98 N, fₜ = 40 N against the push.
    for (solver, normal, friction, slip) in exercise_4_1(40.0) {
        assert!((normal - 98.0).abs() < 1e-8, "{solver}: fₙ = {normal}");
        assert!((friction + 40.0).abs() < 1e-8, "{solver}: fₜ = {friction}");
        assert!(slip.abs() < 1e-12, "{solver}: slip {slip} m/s");
        assert!(0.5 * normal > friction.abs(), "{solver}: inside the static limit 49 N");
    }
}

#[test]
fn exercise_4_1_beyond_the_limit_the_box_slides_at_49_newtons() {
    // F = 60 N > 49 N: kinetic friction μfₙ = 49 N, slip speed after one step h(F − 49)/m.
    for (solver, normal, friction, slip) in exercise_4_1(60.0) {
        assert!((normal - 98.0).abs() < 1e-8, "{solver}: fₙ = {normal}");
        assert!((friction + 49.0).abs() < 1e-8, "{solver}: fₜ = {friction}");
        assert!(
            (slip - DT * (60.0 - 49.0) / 10.0).abs() < 1e-12,
            "{solver}: slip {slip}"
        );
    }
}

#[test]
fn exercise_4_1_with_a_real_box_on_four_corners() {
    // The same box as a 0.4 × 0.4 × 0.2 m cuboid on its four bottom corners, pushed at its centre of mass.
    // The split between corners is not unique (A is singular), but the totals are: 98 N up, 40 N back,
    // no slip at any corner.
    let body = Body::cuboid(10.0, Vector3::new(0.4, 0.4, 0.2), Vector3::new(0.0, 0.0, 0.1));
    let corners: Vec<Vector3<f64>> = [(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]
        .iter()
        .map(|&(x, y)| Vector3::new(x, y, 0.0))
        .collect();
    let setup = resting(
        &body,
        &ground_contacts(&corners),
        Vector3::new(0.0, 0.0, -9.8),
        Vector3::new(40.0, 0.0, 0.0),
    );
    let problem =
        ContactProblem::new(setup.dense, setup.free_velocity, frictions(4, 0.5, FrictionModel::Cone)).expect("valid");
    let options = PgsOptions {
        tolerance: 1e-11,
        max_iterations: 20_000,
        ..PgsOptions::default()
    };
    let (lambda, report) = solve_contacts_pgs(&problem, &options).expect("solves");
    assert!(report.converged, "{report:?}");
    let total_normal: f64 = (0..4).map(|c| lambda[3 * c]).sum::<f64>() / DT;
    let total_friction: f64 = (0..4).map(|c| lambda[3 * c + 1]).sum::<f64>() / DT;
    assert!((total_normal - 98.0).abs() < 1e-5, "Σfₙ = {total_normal}");
    assert!((total_friction + 40.0).abs() < 1e-5, "Σfₜ = {total_friction}");
    let v = problem.velocity(&lambda).expect("sizes");
    for c in 0..4 {
        assert!(
            v[3 * c + 1].abs() < 1e-9 && v[3 * c + 2].abs() < 1e-9,
            "corner {c} slips: {v}"
        );
        assert!(lambda[3 * c] >= 0.0);
    }
}

#[test]
fn exercise_4_2_square_pyramid_edges_for_mu_0_7() {
    // k = 1/√(1 + μ²) = 1/√1.49 ≈ 0.819; d₁ = k[0.7, 0, 1] (+x), d₂ = k[0, 0.7, 1] (+y), d₃ = k[−0.7, 0, 1],
    // d₄ = k[0, −0.7, 1].
    let mu = 0.7;
    let edges = pyramid_edges(mu, 4);
    let k = 1.0 / 1.49f64.sqrt();
    assert!((k - 0.819).abs() < 5e-4, "the chapter rounds k to 0.819");
    let expected = [[0.7, 0.0, 1.0], [0.0, 0.7, 1.0], [-0.7, 0.0, 1.0], [0.0, -0.7, 1.0]];
    assert_eq!(edges.len(), 4);
    for (d, e) in edges.iter().zip(expected) {
        let e = Vector3::from(e) * k;
        assert!((d - e).norm() < 1e-15, "{d} vs {e}");
        assert!((d.norm() - 1.0).abs() < 1e-15, "edges are unit vectors");
        assert!((d.xy().norm() - mu * d.z).abs() < 1e-15, "edges lie on the cone");
    }
    // The chapter's rounded numbers: d₁ ≈ [0.573, 0, 0.819].
    assert!((edges[0].x - 0.573).abs() < 5e-4 && (edges[0].z - 0.819).abs() < 5e-4);
}

#[test]
fn exercise_4_3_wrench_of_a_finger_force() {
    // p = [1, 0, 0] m, f = [0, 0, 10] N: τ = p × f = [0, −10, 0] N·m, w = [0, 0, 10, 0, −10, 0].
    let w = point_contact_wrench(&Vector3::new(1.0, 0.0, 0.0), &Vector3::new(0.0, 0.0, 10.0));
    assert_eq!(w.to_vector().as_slice(), &[0.0, 0.0, 10.0, 0.0, -10.0, 0.0]);
}

#[test]
fn pyramid_error_figures_of_section_4_1_3() {
    // "m = 4: about 29 %, m = 8: about 8 %, m = 16: about 2 %" — whole percent, so within 0.5 point.
    for (m, percent) in [(4, 29.0), (8, 8.0), (16, 2.0)] {
        for fit in [PyramidFit::Inscribed, PyramidFit::Circumscribed] {
            let error = pyramid_relative_error(m, fit);
            assert!(
                (100.0 * error - percent).abs() < 0.5,
                "m = {m} {fit:?}: {:.2} %",
                100.0 * error
            );
            assert!(
                (error - pyramid_relative_error_closed_form(m)).abs() < 1e-12,
                "m = {m} {fit:?}"
            );
        }
    }
    // Unrounded: 29.29 %, 7.61 %, 1.92 %.
    assert!((pyramid_relative_error_closed_form(4) - 0.292_893).abs() < 1e-6);
    assert!((pyramid_relative_error_closed_form(8) - 0.076_120).abs() < 1e-6);
    assert!((pyramid_relative_error_closed_form(16) - 0.019_215).abs() < 1e-6);
}

#[test]
fn the_euclidean_3d_reading_of_the_definition_depends_on_mu() {
    // Not the chapter's figures: for the inscribed square pyramid 17 % at μ = 1 and 12 % at μ = 0.5.
    let at_1 = pyramid_relative_error_3d(4, 1.0, PyramidFit::Inscribed);
    let at_half = pyramid_relative_error_3d(4, 0.5, PyramidFit::Inscribed);
    assert!((100.0 * at_1 - 17.0).abs() < 0.5, "{at_1}");
    assert!((100.0 * at_half - 12.0).abs() < 0.5, "{at_half}");
    // Both below the planar figure.
    assert!(at_1 < pyramid_relative_error_closed_form(4) && at_half < at_1);
}

/// Planar wrench of a frictionless contact at `p` pushing along the inward normal `n`:
/// (n_x, n_y, p × n) (`docs/design/contact-mechanics.md` §4.4.1 restricted to the plane).
fn planar_wrench(p: (f64, f64), n: (f64, f64)) -> [f64; 3] {
    [n.0, n.1, p.0 * n.1 - p.1 * n.0]
}

/// Whether planar wrenches positively span ℝ³ (force closure, `docs/design/contact-mechanics.md`
/// §4.3.1): rank 3 and a strictly positive combination equal to zero, found as in `force_closure` by
/// the non-negative least-squares LCP 0 ≤ y ⊥ WᵀW y + WᵀW 1 ≥ 0 with c = 1 + y.
fn planar_force_closure(wrenches: &[[f64; 3]]) -> bool {
    let w = DMatrix::from_fn(3, wrenches.len(), |r, c| wrenches[c][r]);
    let sigma = w.clone().svd(false, false).singular_values;
    let largest = sigma.iter().copied().fold(0.0_f64, f64::max);
    if sigma.iter().filter(|&&s| s > 1e-9 * largest).count() < 3 {
        return false;
    }
    let gram = w.transpose() * &w;
    let ones = DVector::from_element(wrenches.len(), 1.0);
    let q = &gram * &ones;
    let solution = solve_lemke(&Lcp::new(gram, q).expect("LCP"), &LemkeOptions::default()).expect("Lemke");
    let c = solution.z + ones;
    (&w * &c).norm() <= 1e-9 * largest * c.norm()
}

/// Exercise 4.4: how many frictionless point contacts does planar force closure need? Wrench
/// space in the plane is ℝ³, and a set positively spanning ℝ^d has at least d + 1 vectors
/// (Steinitz), so **four** — the chapter's answer of three is wrong. Every triple of twelve
/// candidate contacts on the square [−1, 1]² (three points on each side, inward normals) fails;
/// four well-placed ones close.
#[test]
fn exercise_4_4_planar_force_closure_needs_four_frictionless_contacts() {
    let mut candidates = Vec::new();
    for t in [-0.5, 0.0, 0.5] {
        candidates.push(planar_wrench((-1.0, t), (1.0, 0.0)));
        candidates.push(planar_wrench((1.0, t), (-1.0, 0.0)));
        candidates.push(planar_wrench((t, -1.0), (0.0, 1.0)));
        candidates.push(planar_wrench((t, 1.0), (0.0, -1.0)));
    }
    let mut triples = 0;
    for i in 0..candidates.len() {
        for j in i + 1..candidates.len() {
            for k in j + 1..candidates.len() {
                triples += 1;
                assert!(
                    !planar_force_closure(&[candidates[i], candidates[j], candidates[k]]),
                    "three contacts {i}, {j}, {k} closed"
                );
            }
        }
    }
    assert_eq!(triples, 220);
    // Left at (−1, 0), right at (1, 0.5), bottom at (0, −1), top at (0.5, 1): the pushes balance
    // with equal magnitudes and the wrenches span ℝ³.
    let four = [
        planar_wrench((-1.0, 0.0), (1.0, 0.0)),
        planar_wrench((1.0, 0.5), (-1.0, 0.0)),
        planar_wrench((0.0, -1.0), (0.0, 1.0)),
        planar_wrench((0.5, 1.0), (0.0, -1.0)),
    ];
    assert!(planar_force_closure(&four));
    // With the top contact at (−0.5, 1) the x and y pushes still balance pairwise, but both
    // torques left over are positive: nothing resists a negative moment.
    let mut open = four;
    open[3] = planar_wrench((-0.5, 1.0), (0.0, -1.0));
    assert!(!planar_force_closure(&open));
}
