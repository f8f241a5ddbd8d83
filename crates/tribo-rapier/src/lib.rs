//! tribo's `rapier` contact engine, backed by [rapier3d-f64](https://rapier.rs) 0.36 (parry3d-f64
//! 0.31 for collision detection).
//!
//! The only public item is [`RapierFactory`], registered under the name `rapier`; rapier's own
//! types never leave this crate.
//!
//! # What it simulates
//! - **Bodies.** A single-link body is one rapier rigid body: dynamic, or fixed when the scene fixes
//!   its root (or its root joint is Fixed). A body with revolute or prismatic joints is one rapier
//!   *multibody* (reduced coordinates, `MultibodyJointSet`): a free root is a floating base, a fixed
//!   root is welded to the world. Links welded by Fixed joints are merged into one rigid body (exact
//!   composed mass properties, colliders at their composed poses). A fixed root that receives
//!   `root_target` commands is driven: it reaches each target at the end of the step, moving at
//!   the constant velocity that takes it there, which contacts see (a kinematic rapier body; for an
//!   articulated body, a floating multibody root whose six degrees of freedom are kinematic, the
//!   links following through their joints within the step).
//! - **Shapes.** Box, Sphere, Cylinder, Capsule and Cone, in Choreonoid's convention (axis along
//!   local +Y), which is also parry's.
//! - **Materials.** Per link pair, the scene's contact table gives static and dynamic friction
//!   and restitution; a contact-modification hook writes them into every contact manifold (a
//!   material whose pairs have one friction coefficient and fit rapier's `Min` rule carries its
//!   coefficients on its colliders instead, `combined_coefficients.rs`). Each manifold keeps a stick/slip state: static friction while it sticks, dynamic friction once
//!   even the full static cone cannot stop its slip (slip speed above 1e-4 m/s, Choreonoid's AIST
//!   threshold), static again when the slip falls below it — so the creep of rapier's soft
//!   contacts never counts as sliding (see the hook's docs).
//! - **Joints.** `Effort` commands are internal force pairs on the two links; `Pd` commands drive
//!   rapier's implicit joint motor (force-based gains); `link_wrenches` last one step.
//! - **Contacts.** Every contact point that carried force is reported with its world point,
//!   normal (from `a` to `b`), depth, normal force (total impulse / dt) and friction force.
//!
//! # Read-out
//! - Link velocities are those of the link frame origin; for links of an articulated body they
//!   come from the generalised velocities through the link Jacobians (`J q̇`), which are exact at
//!   the end of the step (rapier's own body velocities lag one substep there).
//! - `joint_efforts`: the commanded effort for `Effort`; for `Pd`, the PD law evaluated on the
//!   state after the step, `kp (q_ref − q) + kd (v_ref − v) + feedforward`, which is the force of
//!   rapier's implicit motor up to its O(dt) discretisation (rapier does not report motor impulses
//!   for multibodies).
//! - `StepReport::iterations` is substeps × PGS iterations; `residual` is 0 (rapier reports none).
//!
//! # Known limits (rapier 0.36)
//! - Contacts of articulated links always use rapier's per-point Coulomb friction, measured 6 %
//!   weaker than μ on a sliding box (effective 0.468 for 0.5); plain rigid bodies use the
//!   `simplified` model by default, exact to 0.1 % on the same box.
//! - Friction coefficients are per contact manifold (rapier 0.36 has no per-point friction), so
//!   the static/dynamic choice is made per manifold: dynamic when any of its points slips.
//! - In an articulated body whose root is driven by `root_target`, `Pd` joint commands use the
//!   joint's implicit spring and damping instead of rapier's joint motor (rapier cannot combine
//!   motors with kinematic degrees of freedom); both are implicit PD laws, equal up to their
//!   O(dt) discretisation.
//!
//! # Hosting an extension
//! [`RapierFactory`] is also a `tribo_engine::HostFactory`: the `cslc` lattice runs on it as
//! `cslc-rapier` (`host.rs`). Link pairs the extension takes over leave rigid collision through
//! rapier's contact-pair filter hook. Each `CompliantPoint` becomes an impulse joint (pooled per
//! pair of rigid bodies) whose three linear motors are the point's implicit dashpots
//! `f⁺ = f − (k h + c) v⁺`, solved in rapier's constraint solver with the joints and contacts;
//! an explicit normal push that the motor cancels when the point would pull makes the normal force
//! unilateral; friction is a box of half-width `μ f_n` on the two tangent axes. rapier offers no
//! per-contact stiffness and no user constraint rows, and its motor bounds are symmetric and fixed
//! for a solve: that is what the push and the box work around. A step that carries points runs
//! one substep with at least 16 Gauss–Seidel sweeps, whatever the `substeps` option, and is solved
//! twice from the same start: the second time with each point's box bounded by the normal force
//! `f_n` the first solve gave it, the cone of the step's own normal force as on `pgs` to one
//! fixed-point iteration (measurements in `host.rs`). On
//! the gentle grasp the lattice on rapier gives the right held/dropped verdict up to a 10 ms step
//! (on `pgs`, 16 ms and more).
//!
//! # What it does not honour
//! Material stiffness/damping (rapier's contacts have one global softness, set by the engine
//! options), contact culling parameters, the CSLC block; joint position, velocity and effort
//! limits are not enforced. The factory declares static friction, dynamic friction and
//! restitution as its honoured parameters, so the others are reported as ignored.
//!
//! # Options
//! `engine_options: {rapier: {...}}` in a project file; an unknown key is a located error.
//!
//! | key | meaning | unit | default | valid |
//! |---|---|---|---|---|
//! | `substeps` | solver substeps per step (rapier's `num_solver_iterations`) | – | 4 | ≥ 1 |
//! | `pgs_iterations` | PGS iterations inside each substep | – | 1 | ≥ 1 |
//! | `stabilization_iterations` | position-correction (relax) iterations per substep | – | 1 | ≥ 0 |
//! | `friction_model` | `simplified` (one friction cone + twist per manifold) or `coulomb` (one cone per point) | – | `simplified` | |
//! | `contact_softness_hz` | natural frequency of contacts between two moving bodies | Hz | 400 | > 0 |
//! | `static_contact_softness_hz` | natural frequency of contacts with a fixed body | Hz | 400 | > 0 |
//! | `contact_damping_ratio` | damping ratio of both contact springs | – | 10 | > 0 |
//! | `prediction_distance` | gap below which a contact is handed to the solver (speculative contact) | m | 0.02 | ≥ 0 |
//! | `ccd` | continuous collision detection on moving bodies | – | true | |
//! | `slip_threshold` | tangential speed above which dynamic friction applies (Choreonoid's AIST uses 1e-4) | m/s | 1e-4 | ≥ 0 |
//! | `joint_damping` | viscous damping on every 1-dof joint of an articulated body | N·m·s/rad or N·s/m | 0 | ≥ 0 |
//!
//! rapier's contacts are soft: a contact behaves like a spring-damper of the given natural
//! frequency and damping ratio whose error-reduction parameter is `erp = hω / (hω + 2ζ)` per
//! substep of length `h` (ω = 2πf; rapier 0.36 `SpringCoefficients::erp`).
//!
//! **Contact stiffness.** A resting contact deflects by its load over its stiffness, about
//! g/ω² per body weight it carries (ω = 2πf for a unit projected mass), so a column of n bodies
//! sinks by about n(n+1)/2 · g/ω² and, when that is large, tips over: with rapier's own 30 Hz
//! (60 Hz against fixed bodies) a stack of ten 0.1 m boxes sank 25 mm in 1 s and toppled within
//! 3 s. At 400 Hz for both it sinks 0.155 mm and its top box moves at most 0.40 mm over 10 s
//! (dt 1 ms; 0.18 mm at 2 ms), while the cases below keep their accuracy (at dt 1 ms bounce, slide and
//! incline are unchanged to the digits shown and incline creep falls from 0.008 to 0.001 mm; the
//! coarser rows of the table were measured with the former 30/60 Hz).
//! 200 Hz needs 8 substeps for the same stack (0.68 mm; with 4 substeps the stack sways 3 mm
//! while settling), so 400 Hz costs nothing.
//!
//! **How the defaults were chosen** (4 substeps and 0.02 m are rapier's own defaults; measured on
//! the analytic cases of the crate's tests: 1 kg, 0.2 m box at 2 m/s on μ = 0.5 and 0.2; 30° incline with μ = 0.5; 25°
//! incline sticking; ball dropped from 1 m with e = 0.8 and 0.5):
//!
//! | substeps, dt | stop distance μ = 0.5 | 30° slide | 25° creep in 2 s | apex ratio e = 0.8 / 0.5 |
//! |---|---|---|---|---|
//! | 4, 1 ms | −0.06 % | +0.10 % | 0.001 mm | 0.638 / 0.249 |
//! | 4, 10 ms | −0.62 % | +0.98 % | 0.13 mm | 0.631 / 0.246 |
//! | 4, 1/60 s | −1.05 % | +1.64 % | 0.38 mm | 0.626 / 0.241 |
//! | 2, 1/60 s | −2.17 % | +3.29 % | 1.5 mm | 0.617 / 0.235 |
//! | 8, 1/60 s | −0.52 % | +0.82 % | 0.09 mm | 0.632 / 0.246 |
//!
//! Four substeps meet the tests' tolerances (3 %, 5 %, 0.5 mm, ±0.03) up to dt = 1/60 s; eight
//! halve the errors at twice the cost (a multibody costs about 0.2 ms per substep for a 35-dof
//! humanoid). A prediction distance of 0.02 m (rapier's default) does not suppress bouncing here
//! (dimforge/rapier#919); 0.002 m made coarse steps worse (apex 0.24 instead of 0.25 for e = 0.5 at
//! dt = 5 ms, 0.676 instead of 0.64 for e = 0.8 at 1/60 s), the contact then appearing only
//! within a step of the impact.
//! The `simplified` friction model is the default: on the sliding box it gives μ to 0.1 %, while
//! rapier's per-point `coulomb` model gives an effective μ of 0.468 for 0.5 (6 % weak).
//!
//! # Determinism
//! rapier is built without its `parallel` feature; the world is built in scene order and contacts
//! are read in a fixed order, so two runs of the same scene and commands are bit-identical.

mod combined_coefficients;
mod commands;
mod convert;
mod error;
mod host;
mod layout;
mod loops;
mod mass;
mod materials_hook;
mod options;
mod readout;
mod step;
mod world_build;
mod world_snapshot;

use std::sync::Arc;

use tribo_engine::Scene;
use tribo_engine::{BuildError, Engine, EngineFactory, EngineOptions, MaterialParameter};

/// Builds `rapier` engines.
/// The integration parameters the `rapier` engine steps with under `options` (a project's
/// `engine_options: {rapier: …}` block, section *Options*; the defaults without one) for a step of
/// `dt` s — what raw rapier is given to run "with the same settings" (`tribo-bench`'s raw worlds,
/// `benches/raw_vs_tribo.rs`). A bad block is the located error the engine's build reports.
pub fn integration_parameters(
    options: &EngineOptions,
    dt: f64,
) -> Result<rapier3d_f64::prelude::IntegrationParameters, tribo_engine::Diagnostic> {
    Ok(options::RapierOptions::from_engine_options(options)?.integration_parameters(dt))
}

#[derive(Debug, Clone, Copy, Default)]
pub struct RapierFactory;

const HONOURED: [MaterialParameter; 3] = [
    MaterialParameter::StaticFriction,
    MaterialParameter::DynamicFriction,
    MaterialParameter::Restitution,
];

impl EngineFactory for RapierFactory {
    fn name(&self) -> &'static str {
        "rapier"
    }

    fn description(&self) -> &'static str {
        "rapier3d-f64 0.36: rigid point contact, reduced-coordinate multibodies, per-pair friction and restitution"
    }

    fn honoured_parameters(&self) -> &'static [MaterialParameter] {
        &HONOURED
    }

    fn build(&self, scene: &Arc<Scene>, options: &EngineOptions) -> Result<Box<dyn Engine>, BuildError> {
        Ok(Box::new(build_engine(scene, options)?))
    }
}

fn build_engine(scene: &Arc<Scene>, options: &EngineOptions) -> Result<step::RapierEngine, BuildError> {
    let options = options::RapierOptions::from_engine_options(options).map_err(BuildError::Option)?;
    step::RapierEngine::new(Arc::clone(scene), options)
}
