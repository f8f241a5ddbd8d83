//! Joint-space PD control evaluated implicitly in the velocity update.
//!
//! The law `τ_pd = K_p (q_ref ⊖ q) + K_d (v_ref − v)` with stiff gains (Choreonoid's SR1 sample:
//! P = 8000 N·m/rad, D = 100 N·m·s/rad at dt = 2 ms) is unstable when evaluated at the start of the
//! step on light links. Evaluating it at the end of the step, with the position predicted by the
//! semi-implicit Euler update `q⁺ = q + dt v⁺`,
//!
//! ```text
//! M (v⁺ − v) = dt (τ − bias + K_p (q_ref ⊖ q − dt v⁺) + K_d (v_ref − v⁺) − D v⁺)
//! ⇔ (M + dt (D + K_d) + dt² K_p) v⁺ = M v + dt (τ − bias + K_p (q_ref ⊖ q) + K_d v_ref)
//! ```
//!
//! is the backward-Euler treatment of a spring-damper (Baraff & Witkin, "Large steps in cloth
//! simulation", SIGGRAPH 1998) and, for PD servos, the "stable PD" of Tan, Liu & Turk,
//! "Stable Proportional-Derivative Controllers", IEEE CG&A 31(4), 2011. For gains K ≥ 0 the left
//! matrix stays symmetric positive definite, so the update is stable for any gains and time step
//! (it dissipates where the explicit law would inject energy).
//!
//! For a single joint of inertia I the explicit law under semi-implicit Euler has the update matrix
//! with characteristic polynomial `λ² − (2 − a − b) λ + (1 − a)`, `a = dt K_d / I`,
//! `b = dt² K_p / I`, which is stable only when `a < 2` and `b < 4 − 2a` (Jury's criterion): at the
//! SR1 gains and dt = 2 ms that means I > 0.108 kg·m². The implicit form has no such bound.
//!
//! Effort limits bound the total actuator torque `τ + τ_pd`: a dof whose implicit PD torque would
//! exceed its limit is switched to the saturated torque `± limit` (gains dropped for that dof) and
//! the update is solved again (integrate.rs).

use crate::error::Error;
use crate::joint::Joint;
use crate::state::{check_len, difference, State};
use crate::tree::Tree;
use nalgebra::DVector;

/// PD targets and diagonal joint-space gains.
#[derive(Clone, Debug, PartialEq)]
pub struct PdControl {
    q_ref: DVector<f64>,
    v_ref: DVector<f64>,
    kp: DVector<f64>,
    kd: DVector<f64>,
}

impl PdControl {
    /// `q_ref` (nq; free joints: pose with a non-zero quaternion), `v_ref`, `kp` (N·m/rad or N/m),
    /// `kd` (N·m·s/rad or N·s/m), the last three of length nv; gains finite and ≥ 0 (0 switches a
    /// dof's term off).
    pub fn new(
        tree: &Tree,
        q_ref: DVector<f64>,
        v_ref: DVector<f64>,
        kp: DVector<f64>,
        kd: DVector<f64>,
    ) -> Result<Self, Error> {
        check_len("q_ref", tree.nq(), q_ref.len())?;
        check_len("v_ref", tree.nv(), v_ref.len())?;
        check_len("kp", tree.nv(), kp.len())?;
        check_len("kd", tree.nv(), kd.len())?;
        // One pass over each vector's slice when every value is valid (a servo sends new targets
        // every step); only a bad vector is walked again, to name its first bad value.
        let all = |v: &DVector<f64>, valid: fn(f64) -> bool| v.as_slice().iter().all(|&x| valid(x));
        let valid = all(&q_ref, f64::is_finite)
            && free_quaternions_valid(tree, &q_ref)
            && all(&v_ref, f64::is_finite)
            && all(&kp, is_gain)
            && all(&kd, is_gain);
        if !valid {
            check_q_ref(tree, &q_ref)?;
            check_dof_values(tree, "v_ref", &v_ref, "a finite velocity", f64::is_finite)?;
            check_dof_values(tree, "kp", &kp, "a finite gain ≥ 0", is_gain)?;
            check_dof_values(tree, "kd", &kd, "a finite gain ≥ 0", is_gain)?;
        }
        Ok(Self { q_ref, v_ref, kp, kd })
    }

    /// The same gain on every revolute and prismatic dof, zero on free joints; `v_ref = 0`.
    pub fn uniform(tree: &Tree, q_ref: DVector<f64>, kp: f64, kd: f64) -> Result<Self, Error> {
        let actuated = DVector::from_iterator(
            tree.nv(),
            tree.dof_body()
                .iter()
                .map(|&b| match tree.bodies().get(b).map(|body| body.joint) {
                    Some(Joint::Revolute { .. } | Joint::Prismatic { .. }) => 1.0,
                    _ => 0.0,
                }),
        );
        Self::new(tree, q_ref, DVector::zeros(tree.nv()), &actuated * kp, &actuated * kd)
    }

    pub fn q_ref(&self) -> &DVector<f64> {
        &self.q_ref
    }

    pub fn v_ref(&self) -> &DVector<f64> {
        &self.v_ref
    }

    pub fn kp(&self) -> &DVector<f64> {
        &self.kp
    }

    pub fn kd(&self) -> &DVector<f64> {
        &self.kd
    }

    /// The position error `q_ref ⊖ q` (nv).
    pub fn position_error(&self, tree: &Tree, q: &DVector<f64>) -> Result<DVector<f64>, Error> {
        difference(tree, &self.q_ref, q)
    }

    /// The explicit law `K_p (q_ref ⊖ q) + K_d (v_ref − v)` evaluated at `state` (what a controller
    /// computing torques itself would send).
    pub fn explicit_torque(&self, tree: &Tree, state: &State) -> Result<DVector<f64>, Error> {
        state.check(tree)?;
        let error = self.position_error(tree, &state.q)?;
        Ok(self.kp.component_mul(&error) + self.kd.component_mul(&(&self.v_ref - &state.v)))
    }
}

/// A PD gain: finite and ≥ 0.
fn is_gain(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

/// Smallest norm of a free joint's quaternion in `q_ref`.
const MIN_QUATERNION_NORM: f64 = 1e-9;

/// The norm of the quaternion of free body `index` in `q` (0 if out of range).
fn quaternion_norm(tree: &Tree, index: usize, q: &DVector<f64>) -> f64 {
    q.as_slice()
        .get(tree.q_range(index))
        .and_then(|values| values.get(3..7))
        .map(|c| c.iter().map(|x| x * x).sum::<f64>().sqrt())
        .unwrap_or(0.0)
}

/// Every free joint's quaternion in `q_ref` has a norm above [`MIN_QUATERNION_NORM`].
fn free_quaternions_valid(tree: &Tree, q_ref: &DVector<f64>) -> bool {
    tree.bodies()
        .iter()
        .enumerate()
        .all(|(index, body)| body.joint != Joint::Free || quaternion_norm(tree, index, q_ref) > MIN_QUATERNION_NORM)
}

/// `q_ref` finite, with a non-zero quaternion for every free joint; the first bad value named.
fn check_q_ref(tree: &Tree, q_ref: &DVector<f64>) -> Result<(), Error> {
    for (index, body) in tree.bodies().iter().enumerate() {
        let range = tree.q_range(index);
        let values = q_ref.as_slice().get(range.clone()).unwrap_or(&[]);
        if let Some(offset) = values.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFinite {
                what: "q_ref",
                index: range.start + offset,
                body: body.name.clone(),
                value: values.get(offset).copied().unwrap_or(f64::NAN),
            });
        }
        if body.joint == Joint::Free {
            let norm = quaternion_norm(tree, index, q_ref);
            if norm <= MIN_QUATERNION_NORM {
                return Err(Error::InvalidQuaternion {
                    body: body.name.clone(),
                    index: range.start + 3,
                    norm,
                });
            }
        }
    }
    Ok(())
}

pub(crate) fn check_dof_values(
    tree: &Tree,
    what: &'static str,
    values: &DVector<f64>,
    expected: &'static str,
    valid: impl Fn(f64) -> bool,
) -> Result<(), Error> {
    match values.as_slice().iter().position(|&x| !valid(x)) {
        None => Ok(()),
        Some(dof) => Err(Error::InvalidDofValue {
            what,
            dof,
            body: tree.dof_body_name(dof),
            expected,
            value: values.get(dof).copied().unwrap_or(f64::NAN),
        }),
    }
}
