//! A velocity step rebuilt in kept storage equals one built afresh, bit for bit, whatever the kept
//! step held before (another state, another tree, saturated efforts, a PD servo or none), and
//! whatever working vectors it is built with (its own, or one set shared by several trees).

mod common;

use common::{mixed_chain, random_state, random_vector, rng};
use nalgebra::{DMatrix, DVector, Vector3};
use tribo_multibody::{
    mass_matrix, prepare_velocity_step, prepare_velocity_step_into, prepare_velocity_step_with, sample_trees,
    Kinematics, PdControl, StepInputs, StepWork, Tree, VelocityStep,
};

const DT: f64 = 0.002;

fn bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn same(a: &VelocityStep, b: &VelocityStep) -> bool {
    a.dt.to_bits() == b.dt.to_bits()
        && bits(a.bias.as_slice(), b.bias.as_slice())
        && bits(a.system.d().as_slice(), b.system.d().as_slice())
        && bits(a.system.l().as_slice(), b.system.l().as_slice())
        && bits(a.v_free.as_slice(), b.v_free.as_slice())
        && bits(a.actuation.as_slice(), b.actuation.as_slice())
        && a.saturated == b.saturated
}

/// `Lᵀ D L` of the kept factors is M̃ = M + a nonnegative diagonal (damping, servo gains): its
/// off-diagonal entries are M's, its diagonal at least M's.
fn assert_factors_rebuild_the_system(step: &VelocityStep, kin: &Kinematics) {
    let (l, m) = (step.system.l(), &mass_matrix(kin));
    let rebuilt = l.transpose() * DMatrix::from_diagonal(&step.system.d()) * &l;
    let scale = m.amax();
    for ((i, j), (&r, &e)) in (0..m.ncols())
        .flat_map(|j| (0..m.nrows()).map(move |i| (i, j)))
        .zip(rebuilt.iter().zip(m.iter()))
    {
        if i == j {
            assert!(r >= e - 1e-12 * scale, "diagonal {i}: {r} < {e}");
        } else {
            assert!((r - e).abs() <= 1e-12 * scale, "({i}, {j}): {r} vs {e}");
        }
    }
}

/// Steps of `tree` at random states, each built into the storage `kept` (replaced by the result).
/// Returns how many of them saturated an effort.
/// With `shared`, the steps are built with those working vectors instead of the step's own.
fn check(tree: &Tree, seed: u64, kept: &mut Option<VelocityStep>, mut shared: Option<&mut StepWork>) -> usize {
    let mut saturating = 0;
    let mut rng = rng(seed);
    let gravity = Vector3::new(0.0, 0.0, -9.81);
    for round in 0..6 {
        let state = random_state(tree, &mut rng);
        let kin = Kinematics::new(tree, &state).expect("valid");
        // Large torques saturate the limited joints; every other round adds a stiff servo.
        let torque: DVector<f64> = random_vector(tree.nv(), &mut rng) * 500.0;
        let pd = PdControl::uniform(tree, state.q.clone(), 8000.0, 100.0).expect("valid gains");
        let mut inputs = StepInputs::new(gravity).with_torque(&torque);
        if round % 2 == 1 {
            inputs = inputs.with_pd(&pd);
        }
        let fresh = prepare_velocity_step(&kin, DT, &inputs).expect("solvable");
        let mut step = kept.take().unwrap_or_else(|| fresh.clone());
        match shared.as_deref_mut() {
            Some(work) => prepare_velocity_step_with(&kin, DT, &inputs, &mut step, work),
            None => prepare_velocity_step_into(&kin, DT, &inputs, &mut step),
        }
        .expect("solvable");
        assert!(same(&fresh, &step), "round {round}");
        assert_factors_rebuild_the_system(&step, &kin);
        saturating += usize::from(!step.saturated.is_empty());
        *kept = Some(step);
    }
    saturating
}

#[test]
fn kept_storage_gives_the_same_velocity_step() {
    let mut kept = None;
    let humanoid = sample_trees::humanoid().expect("valid");
    let saturating = check(&humanoid, 7, &mut kept, None) + check(&mixed_chain(), 8, &mut kept, None);
    assert!(saturating > 0, "no step saturated an effort");
    check(&humanoid, 9, &mut kept, None);
}

#[test]
fn working_vectors_shared_by_two_trees_give_the_same_velocity_steps() {
    let mut work = StepWork::default();
    let humanoid = sample_trees::humanoid().expect("valid");
    let chain = mixed_chain();
    let (mut kept_humanoid, mut kept_chain) = (None, None);
    for seed in 0..3 {
        check(&humanoid, 20 + seed, &mut kept_humanoid, Some(&mut work));
        check(&chain, 30 + seed, &mut kept_chain, Some(&mut work));
    }
}
