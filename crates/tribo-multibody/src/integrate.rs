//! Forward dynamics and the semi-implicit Euler step.
//!
//! Continuous forward dynamics (RBDA ch. 6, inertia-matrix method):
//! `M q̈ = τ − bias − D v`, with `bias = C(q, v) + g(q) − Jᵀ f_ext` from the RNEA.
//!
//! The step (semi-implicit, or symplectic, Euler: velocities first, then positions with the new
//! velocities) treats joint damping D and the PD gains implicitly:
//!
//! ```text
//! M̃ = M + dt (D + K_d) + dt² K_p                               (diagonal additions keep the sparsity)
//! M̃ v_free = M v + dt (τ − bias + K_p (q_ref ⊖ q) + K_d v_ref)
//! v⁺ = v_free + M̃⁻¹ Jᵀ λ                                        (λ: constraint impulses, N·s, if any)
//! q⁺ = q ⊕ dt v⁺                                                (exponential map for free joints)
//! ```
//!
//! Damping `−D v⁺` is evaluated at the end of the step (backward Euler), so the velocity decays as
//! `v⁺ = M v / (M + dt D)` for a single joint and stays stable for any damping.
//!
//! Accuracy: the method is first order. With a constant mass matrix (one hinge, a free body's
//! translation) it is exactly the symplectic Euler method and the energy error stays bounded and
//! periodic. With a configuration-dependent M (any chain), M(q), C and g are all evaluated at the
//! start of the step, which is not exactly symplectic: the energy error is O(dt) and can drift
//! slowly over long runs (a chaotic double pendulum at dt = 0.1 ms: 2e-3 of m g l after 10 s; the
//! tests state the bounds). The gyroscopic term of a free body is explicit too, so its angular
//! momentum drifts by O(dt) per unit time. Contacts and damping dominate these errors in practice.
//!
//! The engine splits the step: [`prepare_velocity_step`] gives M, the bias, the factorised M̃ and
//! v_free; the engine builds its constraint Jacobian J, the Delassus operator
//! `A = J M̃⁻¹ Jᵀ` ([`crate::TreeFactorisation::delassus`]) and free constraint velocities `J v_free`,
//! solves for λ, then calls [`VelocityStep::velocity_after_impulse`] and [`finish_step`].
//! [`step_semi_implicit`] is the same without constraints.

use crate::crba::{mass_matrix, mass_matrix_into};
use crate::error::Error;
use crate::factor::TreeFactorisation;
use crate::free_body::{prepare_free_body_step, takes_free_body_step};
use crate::kinematics::Kinematics;
use crate::limits::clamp_effort_into;
use crate::pd::{check_dof_values, PdControl};
use crate::rnea::{bias_forces, bias_forces_into, ExternalForces, RneaWork};
use crate::spatial::SpatialInertia;
use crate::state::{assign_vector, integrate_positions_into};
use crate::state::{check_len, State};
use crate::tree::Tree;
use nalgebra::{DMatrix, DVector, Vector3};

/// What acts on the tree during one step besides its own dynamics.
#[derive(Clone, Copy, Debug)]
pub struct StepInputs<'a> {
    /// Gravitational acceleration (m/s², world), e.g. `(0, 0, −9.81)`.
    pub gravity: Vector3<f64>,
    /// Joint torques/forces τ (nv; N·m or N), clamped to the effort limits. `None`: zero.
    pub torque: Option<&'a DVector<f64>>,
    /// External wrenches on bodies. `None`: none.
    pub external: Option<&'a ExternalForces>,
    /// Implicit PD servo. `None`: none.
    pub pd: Option<&'a PdControl>,
}

impl<'a> StepInputs<'a> {
    pub fn new(gravity: Vector3<f64>) -> Self {
        Self {
            gravity,
            torque: None,
            external: None,
            pd: None,
        }
    }

    pub fn with_torque(mut self, torque: &'a DVector<f64>) -> Self {
        self.torque = Some(torque);
        self
    }

    pub fn with_external(mut self, external: &'a ExternalForces) -> Self {
        self.external = Some(external);
        self
    }

    pub fn with_pd(mut self, pd: &'a PdControl) -> Self {
        self.pd = Some(pd);
        self
    }
}

/// The velocity-level problem of one step, before constraint impulses.
#[derive(Clone, Debug)]
pub struct VelocityStep {
    /// dt (s).
    pub dt: f64,
    /// `C(q, v) + g(q) − Jᵀ f_ext`.
    pub bias: DVector<f64>,
    /// M̃ = M + dt (D + K_d) + dt² K_p, factorised (saturated dofs carry no gains).
    pub system: TreeFactorisation,
    /// The end-of-step velocity without constraint impulses.
    pub v_free: DVector<f64>,
    /// The actuator torque over the step: clamped τ plus the PD torque evaluated at v_free.
    pub actuation: DVector<f64>,
    /// Dofs whose actuator torque was saturated at its effort limit.
    pub saturated: Vec<usize>,
    /// Working storage, kept for [`prepare_velocity_step_into`].
    work: StepWork,
}

/// The working vectors of [`prepare_velocity_step_with`]: nothing in them outlives the call, so
/// one serves every body of a scene stepped in turn (their storage is reused; the bodies' own
/// [`VelocityStep`]s then hold only what the step hands on).
#[derive(Clone, Debug, Default)]
pub struct StepWork {
    /// M(q), armature included (crba.rs): factorised into the step's M̃, not kept with it (a
    /// scene of many bodies writes one matrix fewer per body and step).
    mass: DMatrix<f64>,
    tau: DVector<f64>,
    momentum: DVector<f64>,
    rhs: DVector<f64>,
    /// The diagonal of M̃ before factorisation.
    diagonal: Vec<f64>,
    /// M̃ − M (diagonal).
    extra_diagonal: Vec<f64>,
    saturation: Vec<Option<f64>>,
    composite: Vec<SpatialInertia>,
    rnea: RneaWork,
}

impl VelocityStep {
    /// `v⁺ = v_free + M̃⁻¹ p` for a generalised impulse `p = Jᵀ λ` (N·s or N·m·s per dof).
    pub fn velocity_after_impulse(&self, impulse: &DVector<f64>) -> Result<DVector<f64>, Error> {
        Ok(&self.v_free + self.system.solve(impulse)?)
    }
}

/// Continuous forward dynamics `q̈ = M⁻¹ (τ − bias − D v)` (no clamping; damping explicit).
pub fn forward_dynamics(
    kin: &Kinematics,
    tau: &DVector<f64>,
    gravity: &Vector3<f64>,
    external: Option<&ExternalForces>,
) -> Result<DVector<f64>, Error> {
    let tree = kin.tree();
    check_len("tau", tree.nv(), tau.len())?;
    let rhs = tau - bias_forces(kin, gravity, external)? - tree.dof_damping().component_mul(kin.v());
    TreeFactorisation::new(mass_matrix(kin), tree)?.solve(&rhs)
}

/// Builds and solves the unconstrained velocity update of one step of length `dt` at the state
/// `kin` was computed for.
pub fn prepare_velocity_step(kin: &Kinematics, dt: f64, inputs: &StepInputs) -> Result<VelocityStep, Error> {
    let tree = kin.tree();
    let mut step = VelocityStep {
        dt,
        bias: DVector::zeros(0),
        system: TreeFactorisation::empty(tree),
        v_free: DVector::zeros(0),
        actuation: DVector::zeros(0),
        saturated: Vec::new(),
        work: StepWork::default(),
    };
    prepare_velocity_step_into(kin, dt, inputs, &mut step)?;
    Ok(step)
}

/// [`prepare_velocity_step`] into `step`, reusing its storage (a step whose sizes match the last
/// allocates nothing unless a PD servo is given). Same results; on an error `step` holds no
/// meaningful values.
pub fn prepare_velocity_step_into(
    kin: &Kinematics,
    dt: f64,
    inputs: &StepInputs,
    step: &mut VelocityStep,
) -> Result<(), Error> {
    let mut work = std::mem::take(&mut step.work);
    let result = prepare_velocity_step_with(kin, dt, inputs, step, &mut work);
    step.work = work;
    result
}

/// [`prepare_velocity_step_into`] with the working vectors in `work` instead of `step`'s own:
/// bit for bit the same results.
pub fn prepare_velocity_step_with(
    kin: &Kinematics,
    dt: f64,
    inputs: &StepInputs,
    step: &mut VelocityStep,
    work: &mut StepWork,
) -> Result<(), Error> {
    if !(dt.is_finite() && dt > 0.0) {
        return Err(Error::InvalidTimeStep { dt });
    }
    let tree = kin.tree();
    if takes_free_body_step(tree, inputs) {
        return prepare_free_body_step(kin, dt, inputs, (step, &mut work.tau));
    }
    let nv = tree.nv();
    let VelocityStep {
        dt: step_dt,
        bias,
        system: factorisation,
        v_free,
        actuation,
        saturated: saturated_dofs,
        work: _,
    } = step;
    *step_dt = dt;
    let StepWork {
        mass,
        tau,
        momentum,
        rhs,
        diagonal,
        extra_diagonal,
        saturation: saturated,
        composite,
        rnea,
    } = work;
    joint_torques(tree, inputs, tau)?;
    mass_matrix_into(kin, composite, mass);
    bias_forces_into(kin, &inputs.gravity, inputs.external, rnea, bias)?;
    let servo = match inputs.pd {
        Some(pd) => Some(Servo::new(tree, pd, kin.q())?),
        None => None,
    };
    zero_vector(momentum, nv);
    mass.mul_to(kin.v(), momentum);
    saturated.clear();
    saturated.resize(nv, None);
    // Each pass saturates at least one more dof or stops, so at most nv + 1 passes.
    for _ in 0..=nv {
        assign_vector(rhs, momentum);
        // M̃_kk = M_kk + dt d_k (+ dt k_d + dt² k_p for a dof under PD), rhs_k += dt (τ_k − bias_k).
        extra_diagonal.clear();
        // Over the slices (nalgebra's indexing checks a row and a column per access).
        let (tau_k, bias_k) = (tau.as_slice(), bias.as_slice());
        for (k, rhs_k) in rhs.as_mut_slice().iter_mut().enumerate().take(nv) {
            let damping = tree.dof_damping_of(k) * dt;
            let (extra, torque) = match (saturated[k], &servo) {
                (Some(value), _) => (damping, value),
                (None, Some(servo)) => (
                    damping + dt * servo.kd[k] + dt * dt * servo.kp[k],
                    tau_k[k] + servo.constant[k],
                ),
                (None, None) => (damping, tau_k[k]),
            };
            extra_diagonal.push(extra);
            *rhs_k += dt * (torque - bias_k[k]);
        }
        factorisation.refactorise_from(tree, diagonal, mass, extra_diagonal)?;
        assign_vector(v_free, rhs);
        factorisation.solve_in_place(v_free)?;
        check_diverged(tree, "v", v_free)?;
        zero_vector(actuation, nv);
        let v_free_k = v_free.as_slice();
        for (k, actuation_k) in actuation.as_mut_slice().iter_mut().enumerate() {
            *actuation_k = match (saturated[k], &servo) {
                (Some(value), _) => value,
                (None, Some(servo)) => tau_k[k] + servo.torque(k, v_free_k[k], dt),
                (None, None) => tau_k[k],
            };
        }
        let mut changed = false;
        for (k, &actuation_k) in actuation.as_slice().iter().enumerate() {
            if let (None, Some(limit)) = (saturated[k], tree.dof_effort_limit(k)) {
                if actuation_k.abs() > limit * (1.0 + 1e-12) {
                    saturated[k] = Some(limit.copysign(actuation_k));
                    changed = true;
                }
            }
        }
        if !changed {
            saturated_dofs.clear();
            saturated_dofs.extend(saturated.iter().enumerate().filter_map(|(k, s)| s.map(|_| k)));
            return Ok(());
        }
    }
    // Unreachable in exact arithmetic (each pass saturates one more dof); reported, not panicked.
    Err(Error::Diverged {
        what: "effort saturation",
        index: 0,
        body: String::new(),
        value: f64::NAN,
    })
}

/// `tau` ← the joint torques of `inputs`, clamped to the effort limits (zeros without torques).
pub(crate) fn joint_torques(tree: &Tree, inputs: &StepInputs, tau: &mut DVector<f64>) -> Result<(), Error> {
    match inputs.torque {
        Some(torque) => {
            check_len("tau", tree.nv(), torque.len())?;
            check_dof_values(tree, "tau", torque, "a finite torque", f64::is_finite)?;
            clamp_effort_into(tree, torque, tau)
        }
        None => {
            zero_vector(tau, tree.nv());
            Ok(())
        }
    }
}

/// `vector` ← zeros of length `n` (storage reused when the length matches).
fn zero_vector(vector: &mut DVector<f64>, n: usize) {
    if vector.len() == n {
        vector.as_mut_slice().fill(0.0);
    } else {
        *vector = DVector::zeros(n);
    }
}

/// `q⁺ = q ⊕ dt v⁺`: the position half of the step, checked for divergence.
pub fn finish_step(tree: &Tree, q: &DVector<f64>, v_next: &DVector<f64>, dt: f64) -> Result<State, Error> {
    let mut next = State {
        q: DVector::zeros(0),
        v: DVector::zeros(0),
    };
    finish_step_into(tree, q, v_next, dt, &mut next)?;
    Ok(next)
}

/// [`finish_step`] into `next`, reusing its storage when its sizes match (a step that reuses last
/// step's state allocates nothing). On an error `next` holds no meaningful state.
pub fn finish_step_into(
    tree: &Tree,
    q: &DVector<f64>,
    v_next: &DVector<f64>,
    dt: f64,
    next: &mut State,
) -> Result<(), Error> {
    if !(dt.is_finite() && dt > 0.0) {
        return Err(Error::InvalidTimeStep { dt });
    }
    check_diverged(tree, "v", v_next)?;
    integrate_positions_into(tree, q, v_next, dt, &mut next.q)?;
    let q_next = &next.q;
    if let Some(index) = q_next.as_slice().iter().position(|x| !x.is_finite()) {
        let body = (0..tree.len())
            .find(|&b| tree.q_range(b).contains(&index))
            .map(|b| tree.body_name(b));
        return Err(Error::Diverged {
            what: "q",
            index,
            body: body.unwrap_or_default(),
            value: q_next.get(index).copied().unwrap_or(f64::NAN),
        });
    }
    assign_vector(&mut next.v, v_next);
    Ok(())
}

/// One unconstrained semi-implicit Euler step of length `dt` (s).
pub fn step_semi_implicit(tree: &Tree, state: &State, dt: f64, inputs: &StepInputs) -> Result<State, Error> {
    let kin = Kinematics::new(tree, state)?;
    let velocity = prepare_velocity_step(&kin, dt, inputs)?;
    finish_step(tree, &state.q, &velocity.v_free, dt)
}

/// The PD terms of one step: gains and the velocity-independent torque `K_p (q_ref ⊖ q) + K_d v_ref`.
struct Servo<'a> {
    kp: &'a [f64],
    kd: &'a [f64],
    error: Vec<f64>,
    constant: Vec<f64>,
    v_ref: &'a [f64],
}

impl<'a> Servo<'a> {
    fn new(tree: &Tree, pd: &'a PdControl, q: &DVector<f64>) -> Result<Self, Error> {
        let error = pd.position_error(tree, q)?.as_slice().to_vec();
        let (kp, kd, v_ref) = (pd.kp().as_slice(), pd.kd().as_slice(), pd.v_ref().as_slice());
        // K_p (q_ref ⊖ q) + K_d v_ref, dof by dof.
        let constant = error
            .iter()
            .zip(kp.iter().zip(kd))
            .zip(v_ref)
            .map(|((e, (kp, kd)), v_ref)| kp * e + kd * v_ref)
            .collect();
        Ok(Self {
            kp,
            kd,
            error,
            constant,
            v_ref,
        })
    }

    /// `K_p (q_ref ⊖ q − dt v⁺) + K_d (v_ref − v⁺)` for dof k.
    fn torque(&self, k: usize, v_next: f64, dt: f64) -> f64 {
        self.kp[k] * (self.error[k] - dt * v_next) + self.kd[k] * (self.v_ref[k] - v_next)
    }
}

pub(crate) fn check_diverged(tree: &Tree, what: &'static str, values: &DVector<f64>) -> Result<(), Error> {
    match values.as_slice().iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(index) => Err(Error::Diverged {
            what,
            index,
            body: tree.dof_body_name(index),
            value: values.get(index).copied().unwrap_or(f64::NAN),
        }),
    }
}
