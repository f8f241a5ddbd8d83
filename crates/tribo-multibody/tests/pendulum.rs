//! Pendulums against closed forms: small-amplitude periods, RNEA against the Lagrangian of the
//! double pendulum, and bounded energy error of the semi-implicit Euler step.

mod common;

use common::{gravity, rng, simple_pendulum, DoublePendulum, G};
use nalgebra::{DVector, Isometry3, Vector3};
use rand::Rng;
use std::f64::consts::PI;
use tribo_multibody::{
    inverse_dynamics, step_semi_implicit, Body, Joint, Kinematics, LinkInertia, State, StepInputs, Tree,
};

/// Simulates a one-dof tree from rest at `theta0` and returns the mean period measured between
/// the first and last upward zero crossings (linearly interpolated) over `duration` seconds.
fn measured_period(tree: &Tree, theta0: f64, dt: f64, duration: f64) -> (f64, usize) {
    let mut state = State::neutral(tree);
    state.q[0] = theta0;
    let inputs = StepInputs::new(gravity());
    let mut crossings = Vec::new();
    let steps = (duration / dt).round() as usize;
    for n in 0..steps {
        let next = step_semi_implicit(tree, &state, dt, &inputs).expect("step");
        let (a, b) = (state.q[0], next.q[0]);
        if a < 0.0 && b >= 0.0 {
            crossings.push((n as f64 + a / (a - b)) * dt);
        }
        state = next;
    }
    let count = crossings.len();
    assert!(count >= 3, "too few oscillations: {count}");
    ((crossings[count - 1] - crossings[0]) / (count - 1) as f64, count - 1)
}

#[test]
fn simple_pendulum_small_amplitude_period() {
    // T = 2π √(l/g) (1 + θ₀²/16 + …); θ₀ = 0.01 rad makes the amplitude term 6e-6.
    // Semi-implicit Euler shortens the period by (ω dt)²/24 ≈ 4e-7 at dt = 1 ms (observed: 4.1e-7);
    // tolerance 5e-6.
    let (length, theta0) = (1.0, 0.01);
    let tree = simple_pendulum(length, 2.0);
    let (period, periods) = measured_period(&tree, theta0, 1e-3, 12.0);
    let expected = 2.0 * PI * (length / G).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    assert!(periods >= 5, "measured over {periods} periods");
    let relative = (period - expected).abs() / expected;
    assert!(
        relative < 5e-6,
        "period {period} s, expected {expected} s (relative error {relative:.2e})"
    );
}

#[test]
fn physical_pendulum_period_with_tilted_hinge() {
    // Uniform rod of length L hinged at one end: I_pivot = m L²/3, d = L/2,
    // T = 2π √(I_pivot / (m g d)) = 2π √(2L / (3g)). The hinge is placed off the origin and
    // turned so that its axis is the world x axis, to exercise placements.
    let (mass, length) = (3.0, 0.8);
    let rod = LinkInertia::solid_cylinder(mass, Vector3::new(0.0, 0.0, -length / 2.0), 0.02, length);
    let placement = Isometry3::new(Vector3::new(0.3, -0.2, 1.5), Vector3::new(0.0, 0.0, PI / 2.0));
    let tree = Tree::new(vec![Body::new(
        "rod",
        None,
        Joint::Revolute { axis: Vector3::y() },
        placement,
        rod,
    )])
    .expect("valid");
    let theta0 = 0.01;
    let (period, _) = measured_period(&tree, theta0, 1e-3, 10.0);
    // The cylinder of radius r adds m r²/4 to the transverse inertia: I_pivot = m (L²/3 + r²/4).
    let pivot_inertia = mass * (length * length / 3.0 + 0.02 * 0.02 / 4.0);
    let expected = 2.0 * PI * (pivot_inertia / (mass * G * length / 2.0)).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    let relative = (period - expected).abs() / expected;
    assert!(
        relative < 5e-6,
        "period {period} s, expected {expected} s (relative error {relative:.2e})"
    );
}

#[test]
fn rnea_matches_the_lagrangian_double_pendulum() {
    let model = DoublePendulum::standard();
    let tree = model.tree();
    let mut rng = rng(11);
    for _ in 0..20 {
        let mut r = || rng.random_range(-2.0..2.0);
        let (theta, rate, accel) = ([r(), r()], [r(), r()], [r(), r()]);
        let state = State {
            q: DVector::from_row_slice(&theta),
            v: DVector::from_row_slice(&rate),
        };
        let kin = Kinematics::new(&tree, &state).expect("valid");
        let tau = inverse_dynamics(&kin, &DVector::from_row_slice(&accel), &gravity(), None).expect("lengths");
        let expected = model.inverse_dynamics(theta, rate, accel, G);
        for k in 0..2 {
            assert!(
                (tau[k] - expected[k]).abs() < 1e-12 * (1.0 + expected[k].abs()),
                "τ{k} = {} vs {}",
                tau[k],
                expected[k]
            );
        }
    }
}

/// Worst energy error over `duration`, relative to the energy scale (m₁ + m₂) g l₁, and the
/// total angle swept by the lower link.
fn double_pendulum_energy_error(dt: f64, duration: f64) -> (f64, f64) {
    let model = DoublePendulum::standard();
    let tree = model.tree();
    let mut state = State {
        q: DVector::from_row_slice(&[1.2, -0.7]),
        v: DVector::from_row_slice(&[0.5, 1.0]),
    };
    let energy = |state: &State| {
        let kin = Kinematics::new(&tree, state).expect("valid");
        kin.kinetic_energy() + kin.potential_energy(&gravity())
    };
    let scale = (model.m1 + model.m2) * G * model.l1;
    let initial = energy(&state);
    let inputs = StepInputs::new(gravity());
    let (mut worst, mut swept): (f64, f64) = (0.0, 0.0);
    for _ in 0..(duration / dt).round() as usize {
        let next = step_semi_implicit(&tree, &state, dt, &inputs).expect("step");
        swept += (next.q[1] - state.q[1]).abs();
        state = next;
        worst = worst.max((energy(&state) - initial).abs() / scale);
    }
    (worst, swept)
}

#[test]
fn double_pendulum_energy_error_over_10_s_is_small_and_first_order() {
    // Large-amplitude (chaotic) motion for 10 s. With a configuration-dependent M the velocity-form
    // semi-implicit Euler step is first order but not exactly symplectic, so its energy error is
    // O(dt) and may drift slowly over long runs (documented in integrate.rs). Stated bounds: below
    // 2.5e-3 of m g l at dt = 0.1 ms, and halving dt halves the error (ratio 2 ± 0.4).
    let (fine, swept) = double_pendulum_energy_error(1e-4, 10.0);
    let (coarse, _) = double_pendulum_energy_error(2e-4, 10.0);
    assert!(swept > 10.0, "the lower link must actually swing (swept {swept} rad)");
    assert!(fine < 2.5e-3, "energy error {fine:.3e} of m g l");
    let ratio = coarse / fine;
    assert!(
        (1.6..2.4).contains(&ratio),
        "error ratio dt=0.2 ms / dt=0.1 ms = {ratio:.3}, expected ≈ 2"
    );
}

#[test]
fn simple_pendulum_energy_error_oscillates_without_drift() {
    // With a constant mass matrix the step is the symplectic Euler method: the energy error is
    // bounded and periodic. Over 100 s at dt = 1 ms (θ₀ = 1 rad) the worst error in the last 10 s
    // is within 5 % of the worst error in the first 10 s, and both stay below 2e-3 of m g l.
    let tree = simple_pendulum(1.0, 1.0);
    let mut state = State::neutral(&tree);
    state.q[0] = 1.0;
    let energy = |state: &State| {
        let kin = Kinematics::new(&tree, state).expect("valid");
        kin.kinetic_energy() + kin.potential_energy(&gravity())
    };
    let initial = energy(&state);
    let inputs = StepInputs::new(gravity());
    let (mut early, mut late): (f64, f64) = (0.0, 0.0);
    for n in 0..100_000 {
        state = step_semi_implicit(&tree, &state, 1e-3, &inputs).expect("step");
        let error = (energy(&state) - initial).abs() / G;
        if n < 10_000 {
            early = early.max(error);
        } else if n >= 90_000 {
            late = late.max(error);
        }
    }
    assert!(
        early < 2e-3 && late < 2e-3,
        "energy errors {early:.3e}, {late:.3e} of m g l"
    );
    assert!(
        (late - early).abs() < 0.05 * early,
        "early {early:.3e} vs late {late:.3e}"
    );
}
