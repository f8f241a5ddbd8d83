//! The cart-table preview controller against its defining equations.

use nalgebra::{Matrix4, Vector3};
use tribo_gait::{augmented, smoothstep, solve_dare, CartTable, PreviewController, PreviewWeights};

fn model() -> CartTable {
    CartTable::new(0.005, 0.8, 9.81).expect("valid model")
}

#[test]
fn dare_solution_satisfies_the_riccati_equation() {
    let (a, b) = augmented(&model());
    let mut q = Matrix4::zeros();
    q[(0, 0)] = 1.0;
    let r = 1e-6;
    let p = solve_dare(&a, &b, &q, r).expect("converges");
    // P = Q + AᵀPA − AᵀPB (R + BᵀPB)⁻¹ BᵀPA
    let s = r + (b.transpose() * p * b)[0];
    let rhs = q + a.transpose() * p * a - (a.transpose() * p * b) * (b.transpose() * p * a) / s;
    let residual = (rhs - p).norm() / p.norm();
    assert!(residual < 1e-10, "relative Riccati residual {residual:e}");
    // P is symmetric positive semi-definite.
    assert!((p - p.transpose()).norm() < 1e-12 * p.norm());
    let eigen = p.symmetric_eigen();
    assert!(
        eigen.eigenvalues.iter().all(|&l| l > -1e-9 * p.norm()),
        "{:?}",
        eigen.eigenvalues
    );
}

#[test]
fn closed_loop_is_stable() {
    let controller = PreviewController::new(model(), PreviewWeights::default(), 1.6).expect("gains");
    let (a, b) = augmented(&model());
    let k = nalgebra::RowVector4::new(controller.gi, controller.gx[0], controller.gx[1], controller.gx[2]);
    let ac = a - b * k;
    let radius = ac.complex_eigenvalues().iter().map(|l| l.norm()).fold(0.0, f64::max);
    assert!(radius < 1.0, "spectral radius {radius}");
    // Gp(1) = −Gi, and the preview gains fade over the horizon (Kajita 2003, Fig. 5).
    assert_eq!(controller.gp.len(), 320);
    assert!((controller.gp[0] + controller.gi).abs() < 1e-12);
    let peak = controller.gp.iter().map(|g| g.abs()).fold(0.0, f64::max);
    let last = controller.gp.last().copied().unwrap_or(f64::NAN).abs();
    assert!(last < 0.01 * peak, "last preview gain {last} vs peak {peak}");
    // Over a long horizon the preview gains sum to −Gx[0]: a constant reference shifted by d asks
    // for the same feedback as the state shifted by d.
    let long = PreviewController::new(model(), PreviewWeights::default(), 6.0).expect("gains");
    let sum: f64 = long.gp.iter().sum();
    assert!(
        (sum + long.gx[0]).abs() < 1e-6 * long.gx[0].abs(),
        "Σ Gp = {sum}, Gx[0] = {}",
        long.gx[0]
    );
}

#[test]
fn cart_table_zmp_tracks_a_step_reference_within_millimetres() {
    // Kajita 2003 §III: with a 1.6 s preview the ZMP follows a stepping reference closely. Here the
    // reference holds 0, moves 0.1 m over 0.2 s (smoothstep), holds, and moves back.
    let model = model();
    let controller = PreviewController::new(model.clone(), PreviewWeights::default(), 1.6).expect("gains");
    let n = (6.0 / model.period) as usize;
    let reference: Vec<f64> = (0..n)
        .map(|k| {
            let t = k as f64 * model.period;
            0.1 * (smoothstep((t - 1.0) / 0.2) - smoothstep((t - 3.5) / 0.2))
        })
        .collect();
    let states = controller.track(Vector3::zeros(), &reference);
    let worst = states
        .iter()
        .zip(&reference)
        .map(|(s, r)| (model.zmp(s) - r).abs())
        .fold(0.0, f64::max);
    assert!(worst < 0.005, "max ZMP error {worst} m");
    // At rest at the end the CoM is back over the ZMP: x → 0 with zero velocity.
    let end = states.last().expect("states");
    assert!(end[0].abs() < 1e-3 && end[1].abs() < 1e-3, "{end:?}");
}

#[test]
fn constant_reference_is_an_equilibrium() {
    // x = p_ref, ẋ = ẍ = 0 is the steady state: the servo must not move.
    let model = model();
    let controller = PreviewController::new(model, PreviewWeights::default(), 1.6).expect("gains");
    let states = controller.track(Vector3::new(0.25, 0.0, 0.0), &[0.25; 400]);
    for s in states {
        assert!((s - Vector3::new(0.25, 0.0, 0.0)).norm() < 1e-12, "{s:?}");
    }
}
