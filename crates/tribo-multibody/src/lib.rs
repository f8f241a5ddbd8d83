//! Articulated rigid-body dynamics in generalised coordinates: the dynamics core of tribo's `pgs`
//! engine, in the style of Choreonoid's AIST simulator.
//!
//! The crate sees kinematic trees and numbers only (no files, models or engines). Reference:
//! R. Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), Springer 2008 — spatial algebra
//! (ch. 2), joint models (ch. 4), the recursive Newton–Euler algorithm (§5.3), the
//! composite-rigid-body algorithm (§6.2), branch-induced sparsity and the LTDL factorisation
//! (§6.3–6.4), floating bases (ch. 9). Contact-side notation (J, M, A = J M⁻¹ Jᵀ, impulses λ)
//! follows the contact-mechanics chapter the engine uses (`docs/design/contact-mechanics.md` §4.2.2):
//! `M v⁺ = M v⁻ + h f + Jᵀ λ`.
//!
//! # Pipeline
//!
//! ```text
//! Tree::new(bodies)                     validated tree, coordinate layout          tree.rs, body.rs, joint.rs
//! Kinematics::new(&tree, &state)        poses, motion axes S, v̂, ĉ, world inertias  kinematics.rs
//!   new_in / from_data / into_data      the same into kept storage (KinematicsData)
//! point_jacobian / frame_jacobian       J (3 × nv, 6 × nv)                          jacobian.rs
//! inverse_dynamics / bias_forces        RNEA: τ = M q̈ + C + g − Jᵀ f_ext            rnea.rs
//! mass_matrix                           CRBA: M (armature included)                 crba.rs
//! TreeFactorisation                     M = Lᵀ D L without fill-in, solves, J M⁻¹ Jᵀ factor.rs
//! prepare_velocity_step / finish_step   implicit damping and PD, split for contacts integrate.rs, pd.rs
//!   …_into variants                     the same into the last step's storage
//! step_semi_implicit                    the whole step without constraints          integrate.rs
//! active_position_limits / clamp_effort limits as constraint rows and clamps        limits.rs
//! ```
//!
//! # Conventions
//!
//! * SI units, radians, `f64`. World frame as given by the caller (tribo: z up).
//! * Spatial vectors (RBDA ch. 2) are in **world axes about one reference point per tree and
//!   state**, [`Kinematics::origin`] (the root body's frame origin, so precision does not depend on
//!   how far the body is from the world origin), angular part first: motion `[ω; v_r]`, force
//!   `[n_r; f]`. Points given to or returned by functions are world positions; [`ExternalForces`]
//!   and [`Kinematics::momentum`] take moments about the world origin.
//! * Bodies are listed parent before child; body frame = joint frame at zero joint coordinates.
//! * Free joint (only on a body attached to the world): `q = [x, y, z, qw, qx, qy, qz]` (origin
//!   position, unit quaternion), `v = [ṗ; ω]` — **velocity of the body origin and angular velocity,
//!   both in the world frame** (more exactly the joint frame = the placement, usually the identity).
//!   The orientation is integrated as `R ← exp(dt [ω]×) R` and renormalised. The matching
//!   generalised force is `[f; n]`: a force (N, world) and a torque about the body origin (N·m,
//!   world), since its power is `f·ṗ + n·ω`.
//! * Frame Jacobians use the same `[linear; angular]` row order as a free joint's velocity.
//!
//! # Example
//!
//! A pendulum (a point mass 1 m below a hinge about y) released at 0.5 rad, stepped for 1 s:
//!
//! ```
//! use nalgebra::{Isometry3, Vector3};
//! use tribo_multibody::{step_semi_implicit, Body, Joint, LinkInertia, State, StepInputs, Tree};
//!
//! let tree = Tree::new(vec![Body::new(
//!     "bob",
//!     None,
//!     Joint::Revolute { axis: Vector3::y() },
//!     Isometry3::identity(),
//!     LinkInertia::point_mass(1.0, Vector3::new(0.0, 0.0, -1.0)),
//! )])?;
//! let mut state = State::neutral(&tree);
//! state.q[0] = 0.5;
//! let inputs = StepInputs::new(Vector3::new(0.0, 0.0, -9.81));
//! for _ in 0..1000 {
//!     state = step_semi_implicit(&tree, &state, 1e-3, &inputs)?;
//! }
//! assert!(state.q[0].abs() <= 0.5 + 1e-3);
//! # Ok::<(), tribo_multibody::Error>(())
//! ```
//!
//! # Notation
//!
//! | symbol | meaning | where | unit |
//! |---|---|---|---|
//! | q | generalised positions (nq) | [`State::q`] | rad, m, quaternion |
//! | v = q̇ | generalised velocities (nv) | [`State::v`] | rad/s, m/s |
//! | q̈ = v̇ | generalised accelerations | `vdot` arguments | rad/s², m/s² |
//! | τ | joint torques / forces | [`StepInputs::torque`] | N·m, N |
//! | λ(i) | parent of body i / of dof k | [`Body::parent`], [`Tree::dof_parent`] | — |
//! | X_i | world pose of body i | [`Kinematics::poses`] | m, rotation |
//! | S_k | motion axis of dof k (world, origin) | [`Kinematics::dof_motions`] | rad, m per unit q |
//! | v̂_i | spatial velocity of body i | [`Kinematics::velocities`] | rad/s, m/s |
//! | ĉ_i | velocity-product acceleration | [`Kinematics::velocity_products`] | rad/s², m/s² |
//! | Î_i | spatial inertia (m, h = m c, I_O) | [`Kinematics::inertias`], [`SpatialInertia`] | kg, kg·m, kg·m² |
//! | m, c, I_c | link mass, CoM, inertia about CoM (link frame) | [`LinkInertia`] | kg, m, kg·m² |
//! | M(q) | joint-space mass matrix (with armature) | [`mass_matrix`] | kg·m², kg |
//! | C(q, v) + g(q) | bias forces (Coriolis, centrifugal, gravity) | [`bias_forces`] | N·m, N |
//! | g | gravitational acceleration | `gravity` arguments | m/s² |
//! | f_ext | external wrenches on bodies | [`ExternalForces`] | N·m, N |
//! | J | point / frame Jacobian | [`point_jacobian`], [`frame_jacobian`] | m/rad, 1 |
//! | L, D | factors of M = Lᵀ D L | [`TreeFactorisation`] | — |
//! | A | Delassus operator J M̃⁻¹ Jᵀ | [`TreeFactorisation::delassus`], [`TreeFactorisation::delassus_into`] | 1/kg |
//! | D = diag(d) | joint damping (not the factor D above) | [`Body::damping`] | N·m·s/rad, N·s/m |
//! | armature | rotor inertia on M's diagonal | [`Body::armature`] | kg·m², kg |
//! | K_p, K_d | PD gains | [`PdControl`] | N·m/rad, N·m·s/rad |
//! | M̃ | M + dt (D + K_d) + dt² K_p | [`VelocityStep::system`] | kg·m², kg |
//! | dt | time step | arguments | s |

mod body;
mod crba;
mod error;
mod factor;
mod free_body;
mod integrate;
mod jacobian;
mod joint;
mod kinematics;
mod limits;
mod pd;
mod rnea;
pub mod sample_trees;
mod spatial;
mod state;
mod tree;
mod validate;

pub use body::{Body, LinkInertia, PositionLimits};
pub use crba::mass_matrix;
pub use error::Error;
pub use factor::{DelassusWork, TreeFactorisation};
pub use integrate::{
    finish_step, finish_step_into, forward_dynamics, prepare_velocity_step, prepare_velocity_step_into,
    prepare_velocity_step_with, step_semi_implicit, StepInputs, StepWork, VelocityStep,
};
pub use jacobian::{frame_jacobian, point_jacobian, point_jacobian_into, spatial_jacobian};
pub use joint::Joint;
pub use kinematics::{Kinematics, KinematicsData};
pub use limits::{active_position_limits, clamp_effort, LimitConstraint, LimitSide};
pub use pd::PdControl;
pub use rnea::{bias_forces, inverse_dynamics, ExternalForces};
pub use spatial::{skew, SpatialForce, SpatialInertia, SpatialMotion};
pub use state::{difference, integrate_positions, State};
pub use tree::{RootPlacement, Tree};
