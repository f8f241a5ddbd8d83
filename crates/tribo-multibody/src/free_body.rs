//! The velocity step of a tree that is one free rigid body (a box of a pile, a ball): the step of
//! [`crate::integrate`] with its tree walks laid out for the six dofs of one free joint.
//!
//! The general step walks the tree for the composite-rigid-body mass matrix (RBDA §6.2), the
//! Newton–Euler bias (RBDA §5.3) and the `LᵀDL` factorisation (RBDA §6.3), through lists sized
//! at run time. For one free body every walk is known in advance: the composite inertia is the
//! body's own, the dof tree is the chain 0 ← 1 ← … ← 5, and the mass matrix is dense 6 × 6. The
//! same formulas in the same order on fixed-size arrays give the general step's numbers bit for bit
//! (`tests` below compare them), at a fraction of the bookkeeping: a scene of many free bodies
//! spends its velocity steps here.
//!
//! It applies when nothing needs the general step's extra passes: no PD servo (its gains change
//! M̃'s diagonal per dof). A free joint has no effort limit (nor damping or armature: the tree's
//! validation holds them at none and zero), so no torque saturates and the step is solved once.

use crate::error::Error;
use crate::integrate::{joint_torques, StepInputs, VelocityStep};
use crate::joint::Joint;
use crate::kinematics::Kinematics;
use crate::rnea::newton_euler_force;
use crate::spatial::SpatialMotion;
use crate::tree::Tree;
use nalgebra::DVector;

/// A free joint's velocity count.
const N: usize = 6;

/// Whether [`prepare_free_body_step`] computes the velocity step of `tree` under `inputs`.
pub(crate) fn takes_free_body_step(tree: &Tree, inputs: &StepInputs) -> bool {
    inputs.pd.is_none()
        && tree.len() == 1
        && tree
            .bodies()
            .first()
            .is_some_and(|b| b.joint == Joint::Free && b.effort_limit.is_none())
}

/// [`crate::prepare_velocity_step_with`] for a tree of one free body without servo
/// ([`takes_free_body_step`]): the same quantities, bit for bit. `tau` is working storage for
/// the joint torques.
pub(crate) fn prepare_free_body_step(
    kin: &Kinematics,
    dt: f64,
    inputs: &StepInputs,
    (step, tau): (&mut VelocityStep, &mut DVector<f64>),
) -> Result<(), Error> {
    let tree = kin.tree();
    let (Some(axes), Some(inertia), Some(velocity), Some(product)) = (
        kin.dof_motions().first_chunk::<N>(),
        kin.inertias().first(),
        kin.velocities().first(),
        kin.velocity_products().first(),
    ) else {
        return Err(Error::DimensionMismatch {
            what: "free body velocities",
            expected: N,
            found: kin.dof_motions().len(),
        });
    };
    step.dt = dt;
    joint_torques(tree, inputs, tau)?;

    // M_jk = M_kj = S_jᵀ (Î S_k) for j = k, k − 1, …, 0 (crba.rs with the body's own inertia as
    // the composite), then the armature on the diagonal.
    let mut mass = [0.0; N * N];
    for (k, s_k) in axes.iter().enumerate() {
        let force = inertia.apply(s_k);
        for j in (0..=k).rev() {
            let value = axes[j].dot(&force);
            mass[k * N + j] = value;
            mass[j * N + k] = value;
        }
    }
    for k in 0..N {
        mass[k * N + k] += tree.dof_armature_of(k);
    }

    // bias_k = S_kᵀ f̂ with f̂ = Î â + v̂ ×* Î v̂ − f̂_ext and â = −a_g + ĉ (rnea.rs, one body).
    let mut acceleration = SpatialMotion::new(nalgebra::Vector3::zeros(), -inputs.gravity);
    acceleration += *product;
    let force = newton_euler_force(kin, 0, &acceleration, velocity, inertia, inputs.external);
    let mut bias = [0.0; N];
    for (b, s) in bias.iter_mut().zip(axes) {
        *b = s.dot(&force);
    }
    fill_vector(&mut step.bias, &bias);

    // M v as nalgebra's matrix–vector product sums it: column by column, ascending.
    let v = kin.v().as_slice();
    let mut momentum = [0.0; N];
    for (j, &v_j) in v.iter().enumerate().take(N) {
        for (i, m_i) in momentum.iter_mut().enumerate() {
            let product = mass[j * N + i] * v_j;
            *m_i = if j == 0 { product } else { product + *m_i };
        }
    }

    // M̃ = M + dt D;  M̃ v_free = M v + dt (τ − bias)  (integrate.rs, no servo, nothing saturated).
    let mut system = mass;
    let mut rhs = momentum;
    for k in 0..N {
        system[k * N + k] += tree.dof_damping_of(k) * dt;
        rhs[k] += dt * (tau[k] - bias[k]);
    }
    step.system.refactorise_free_joint(tree, &system)?;
    fill_vector(&mut step.v_free, &rhs);
    step.system.solve_in_place(&mut step.v_free)?;
    crate::integrate::check_diverged(tree, "v", &step.v_free)?;
    crate::state::assign_vector(&mut step.actuation, tau);
    step.saturated.clear();
    Ok(())
}

/// `vector` ← `values` (storage reused when the length matches).
fn fill_vector(vector: &mut DVector<f64>, values: &[f64; N]) {
    if vector.len() != N {
        *vector = DVector::zeros(N);
    }
    vector.as_mut_slice().copy_from_slice(values);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{Body, LinkInertia};
    use crate::integrate::prepare_velocity_step;
    use crate::rnea::ExternalForces;
    use crate::state::State;
    use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};

    fn free_body(placement: Isometry3<f64>) -> Tree {
        let inertia = LinkInertia::new(
            1.7,
            Vector3::new(0.01, -0.02, 0.03),
            Matrix3::new(0.02, 0.001, -0.002, 0.001, 0.03, 0.0015, -0.002, 0.0015, 0.025),
        );
        let body = Body::new("box", None, Joint::Free, placement, inertia);
        Tree::new(vec![body]).expect("a valid free body")
    }

    fn state(seed: f64) -> State {
        let rotation = UnitQuaternion::from_euler_angles(0.3 * seed, -0.7, 1.1 * seed);
        let q = rotation.into_inner();
        State {
            q: DVector::from_vec(vec![0.4 * seed, -1.2, 3.0 + seed, q.w, q.i, q.j, q.k]),
            v: DVector::from_vec(vec![0.5, -0.25 * seed, 1.5, 2.0 * seed, -3.0, 0.75]),
        }
    }

    /// The general step with the free-body path turned off: a servo of zero gains changes none of
    /// M̃'s entries (`dt·0 + dt²·0` added to each diagonal entry leaves it bit for bit) nor the
    /// torques (`τ + 0`), and sends the step through the general code.
    fn general(kin: &Kinematics, dt: f64, inputs: &StepInputs, zero_gains: &crate::pd::PdControl) -> VelocityStep {
        prepare_velocity_step(kin, dt, &inputs.with_pd(zero_gains)).expect("a general step")
    }

    #[test]
    fn the_free_body_step_is_the_general_step_bit_for_bit() {
        let placements = [
            Isometry3::identity(),
            Isometry3::from_parts(
                Translation3::new(0.2, -0.1, 0.5),
                UnitQuaternion::from_euler_angles(0.1, 0.2, -0.4),
            ),
        ];
        for (p, placement) in placements.into_iter().enumerate() {
            {
                let tree = free_body(placement);
                let zero_gains = crate::pd::PdControl::new(
                    &tree,
                    State::neutral(&tree).q,
                    DVector::zeros(6),
                    DVector::zeros(6),
                    DVector::zeros(6),
                )
                .expect("zero gains");
                let mut external = ExternalForces::new(&tree);
                external
                    .add_force_at(0, &Vector3::new(1.0, -2.0, 0.5), &Vector3::new(0.3, 0.1, 3.2))
                    .expect("body 0");
                let torque = DVector::from_vec(vec![0.1, -0.2, 0.3, 0.01, -0.02, 0.015]);
                for seed in [0.5, 1.0, 2.0] {
                    let kin = Kinematics::new(&tree, &state(seed)).expect("kinematics");
                    let gravity = Vector3::new(0.0, 0.0, -9.81);
                    for inputs in [
                        StepInputs::new(gravity),
                        StepInputs::new(gravity).with_external(&external),
                        StepInputs::new(gravity).with_torque(&torque),
                    ] {
                        assert!(takes_free_body_step(&tree, &inputs));
                        let expected = general(&kin, 0.002, &inputs, &zero_gains);
                        let mut fast = prepare_velocity_step(&kin, 1.0, &StepInputs::new(gravity)).expect("a step");
                        let mut tau = DVector::zeros(0);
                        prepare_free_body_step(&kin, 0.002, &inputs, (&mut fast, &mut tau)).expect("a fast step");
                        let context = format!("placement {p}, seed {seed}");
                        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                        assert_eq!(
                            bits(fast.bias.as_slice()),
                            bits(expected.bias.as_slice()),
                            "bias, {context}"
                        );
                        assert_eq!(
                            bits(fast.v_free.as_slice()),
                            bits(expected.v_free.as_slice()),
                            "v_free, {context}"
                        );
                        assert_eq!(
                            bits(fast.system.packed().as_slice()),
                            bits(expected.system.packed().as_slice()),
                            "factors, {context}"
                        );
                        assert_eq!(
                            bits(fast.actuation.as_slice()),
                            bits(expected.actuation.as_slice()),
                            "τ, {context}"
                        );
                        assert!(fast.saturated.is_empty());
                    }
                }
            }
        }
    }

    #[test]
    fn servos_and_trees_of_more_bodies_take_the_general_step() {
        let gravity = Vector3::new(0.0, 0.0, -9.81);
        let tree = free_body(Isometry3::identity());
        let gains = crate::pd::PdControl::new(
            &tree,
            State::neutral(&tree).q,
            DVector::zeros(6),
            DVector::from_element(6, 10.0),
            DVector::from_element(6, 1.0),
        )
        .expect("gains");
        assert!(!takes_free_body_step(&tree, &StepInputs::new(gravity).with_pd(&gains)));
        let humanoid = crate::sample_trees::humanoid().expect("the sample humanoid");
        assert!(!takes_free_body_step(&humanoid, &StepInputs::new(gravity)));
    }
}
