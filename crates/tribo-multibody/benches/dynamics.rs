//! CRBA + sparse factorisation + RNEA on the 35-dof humanoid-like sample tree.

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{DVector, Vector3};
use std::hint::black_box;
use tribo_multibody::{bias_forces, inverse_dynamics, mass_matrix, sample_trees, Kinematics, State, TreeFactorisation};

fn configuration(tree: &tribo_multibody::Tree) -> State {
    let mut state = State::neutral(tree);
    // A fixed, non-trivial pose and velocity (deterministic).
    for (k, q) in state.q.iter_mut().enumerate().skip(7) {
        *q = 0.3 * ((k as f64) * 0.7).sin();
    }
    for (k, v) in state.v.iter_mut().enumerate() {
        *v = 0.5 * ((k as f64) * 1.3).cos();
    }
    state
}

fn bench(c: &mut Criterion) {
    let tree = sample_trees::humanoid().expect("sample tree is valid");
    let state = configuration(&tree);
    let gravity = Vector3::new(0.0, 0.0, -9.81);
    let vdot = DVector::from_fn(tree.nv(), |k, _| ((k as f64) * 0.9).sin());
    let kin = Kinematics::new(&tree, &state).expect("valid state");

    c.bench_function("humanoid35/kinematics", |b| {
        b.iter(|| Kinematics::new(black_box(&tree), black_box(&state)).expect("valid state"))
    });
    c.bench_function("humanoid35/crba", |b| b.iter(|| mass_matrix(black_box(&kin))));
    let mass = mass_matrix(&kin);
    c.bench_function("humanoid35/ltdl_factorise", |b| {
        b.iter(|| TreeFactorisation::new(black_box(mass.clone()), &tree).expect("positive definite"))
    });
    c.bench_function("humanoid35/dense_cholesky", |b| {
        b.iter(|| black_box(mass.clone()).cholesky().expect("positive definite"))
    });
    c.bench_function("humanoid35/rnea", |b| {
        b.iter(|| inverse_dynamics(black_box(&kin), black_box(&vdot), &gravity, None).expect("lengths match"))
    });
    c.bench_function("humanoid35/crba+factorise+rnea", |b| {
        b.iter(|| {
            let kin = Kinematics::new(&tree, black_box(&state)).expect("valid state");
            let factor = TreeFactorisation::new(mass_matrix(&kin), &tree).expect("positive definite");
            let bias = bias_forces(&kin, &gravity, None).expect("lengths match");
            factor.solve(&(-bias)).expect("lengths match")
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
