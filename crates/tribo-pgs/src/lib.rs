//! tribo's `pgs` contact engine: articulated-body dynamics in generalised coordinates
//! (tribo-multibody) with a velocity-level LCP contact solver (tribo-lcp) and parry3d-f64
//! collision detection, in the style of Choreonoid's AIST simulator. The only public item is
//! [`PgsFactory`], registered under the name `pgs`.
//!
//! # The step (`step.rs`, each stage timed into `StepReport::stages`)
//! 1. `kinematics`: poses, motion axes and velocities of every tree (build.rs: one tree per scene
//!    body, Fixed-joint links merged into their moving ancestor, a free root as floating base).
//! 2. `dynamics`: M, bias forces and the implicit velocity update without contact (commands.rs):
//!    `M̃ v_free = M v + h (τ − C − g + K_p (q_ref − q) + K_d v_ref)`, `M̃ = M + h K_d + h² K_p`.
//!    PD gains are implicit (stable at Choreonoid's SR1 gains P 8000, D 100 at 2 ms), efforts are
//!    explicit, both clamped to `max_effort`.
//! 3. `collision` (collision.rs): sort-and-sweep over world AABBs, then parry's contact manifolds;
//!    adjacent links never collide, links of one body only with self-collision. A pair whose
//!    relative pose drifted less than `contact_recycling_distance` since its last manifold query
//!    reuses that query's points, moved with the bodies and their depths recomputed (recycle.rs).
//! 4. `contact_build` (culling.rs, contacts.rs, degenerate.rs): AIST culling per link pair,
//!    material lookup, contact frames, Jacobian rows, normal targets (stabilisation, restitution,
//!    compliance); contacts whose normal no joint can move (zero Delassus diagonal, e.g. a
//!    ragdoll's thighs on coaxial hips touching along the axis) are dropped with a warning naming
//!    the link pair, and tangents no joint can move lose their friction row (when every contact
//!    joins two bodies without compliance, this screen reads the diagonals of the operator that
//!    `solve` assembles instead of computing its own, and a changed row set is assembled again).
//! 5. `solve` (solve.rs): the Delassus operator `A = J M̃⁻¹ Jᵀ` in block-sparse form (bodies couple
//!    contacts only through shared bodies), free rigid bodies kept factored (the sweep updates
//!    their velocities `Δv = M̃⁻¹ Jᵀ λ` instead of reading assembled blocks, and hands them on to
//!    the next solve and to `integrate` rather than summing them again), warm-started projected
//!    Gauss–Seidel with the exact circular cone (or a pyramid/box) island by island (islands.rs:
//!    contacts that share no dynamic body), or Lemke for small polyhedral problems; a few
//!    load-sharing sweeps come first (see *Load sharing* below). Speculative contacts struck within the step
//!    are then resolved after the impacts that strike them (impacts.rs, *Impacts within a step* below).
//! 6. `integrate` (integrate.rs): `v⁺ = v_free + M̃⁻¹ Jᵀ λ`, `q⁺ = q ⊕ h v⁺` (semi-implicit
//!    Euler); non-finite or absurd velocities (> 1e4) are a divergence naming the body, and the
//!    last good state is kept.
//! 7. `readout` (readout.rs): link poses and velocities, joint coordinates and efforts, contacts.
//!
//! # Contact model (`docs/design/contact-mechanics.md` §4.2; AIST semantics)
//! - **Signorini at velocity level**: `0 ≤ λₙ ⊥ v_n⁺ − target ≥ 0`, friction in the Coulomb cone
//!   `‖λₜ‖ ≤ μ λₙ` with maximum dissipation. A sticking contact keeps zero tangential velocity up
//!   to the solver tolerance: a box on a 25° slope with μ 0.5 creeps ~1e-12 m in 2 s.
//! - **Stabilisation**: Baumgarte on the normal only, `target = β max(d − slop, 0) / h`
//!   (β = `erp` 0.2, slop 0.1 mm); a gap g within the margin allows `v_n⁺ ≥ −g / h`
//!   (speculative contact, no bounce before touching).
//! - **Restitution**: Newton's law `v_n⁺ ≥ e v_a` when the approach speed v_a exceeds
//!   `max(2 |g| h, restitution_threshold)` (AIST; |g| the gravity's magnitude). v_a is the
//!   approach at the instant of contact: for a contact touching, or closing its gap within the step
//!   on its own, the approach before the step.
//! - **Impacts within a step** (impacts.rs): a speculative contact that the step's other impulses
//!   drive shut (ball a strikes ball b, which stands less than `v h` from ball c) is struck after
//!   them. It is set aside, the others are solved, and if the velocities they leave shut its gap it
//!   joins a further LCP on the impulse increments with Newton's law on the approach speed it now
//!   has, the contacts already resolved keeping their impulses and their targets without
//!   restitution (sequential collision processing, Guendelman, Bridson & Fedkiw 2003, with the
//!   velocity-level impact LCP inside each pass). Three frictionless equal balls with e = 1 and
//!   a gap of 0.3–0.7 mm at h = 1 ms end at (0, 0, 1) m/s, kinetic energy kept (before: 0.83–0.86
//!   of it, the struck contact acting inelastically).
//! - **Simultaneous impacts (a model property)**: contacts touching at the start of the step are
//!   one LCP, a simultaneous impact with Newton's law on each contact's own approach. Three equal
//!   balls touching in a row (a Newton's cradle), a at 1 m/s, e = 1: `v_b − v_a ≥ 1` and
//!   `v_c − v_b ≥ 0`, both active, with the impulses λ₁ on a–b and λ₂ on b–c (N·s; 1/m = 2/kg)
//!   read `4λ₁ − 2λ₂ = 2 m/s` and `4λ₂ − 2λ₁ = 0`, so λ₁ = 2/3, λ₂ = 1/3 N·s and the balls leave
//!   at (−1/3, 2/3, 2/3) m/s, not the cradle's (0, 0, 1) m/s. Kinetic energy is kept for these
//!   equal masses, but the answer is the simultaneous-impact LCP's, which spreads the impact over
//!   the chain instead of passing it along (cf. the discussion of simultaneous impacts and
//!   Newton's cradle in Stewart, "Rigid-body dynamics with friction and impact", SIAM Review
//!   42(1), 2000). It is kept as it is: with any gap, however small, the impacts are sequential
//!   (above) and c leaves alone. Test: `tests/impacts.rs`.
//! - **Friction**: μ = dynamic friction when the slip speed before the step exceeds
//!   `slip_threshold` (1e-4 m/s, AIST), else static friction.
//! - **Load sharing**: a rigid face contact's points can carry the same wrench with any spread of
//!   normal load, and projected Gauss–Seidel from zero piles it on the first point it visits,
//!   leaving the others without friction (a grasped book then pivots about one corner of the
//!   finger plates whatever the squeeze). Before each rigid solve, at most 5 sweeps go to the LCP
//!   plus `ε C (λₙ − λₙ⁰)` on each link pair's resting rigid points (two or more, no restitution
//!   target): `C = I − 1 1ᵀ / n` (deviation from the pair's mean), λₙ⁰ the warm start,
//!   `ε = load_sharing ×` the pair's mean normal Delassus diagonal. New contacts start spread like
//!   equal springs and later changes are spread as evenly as the mechanics allows; the rigid solve
//!   that follows keeps the answer a solution of the rigid LCP. Lemke solves the load-sharing
//!   problem instead (velocities then off by `ε C (λₙ − λₙ⁰)`, zero once settled). A box held
//!   between two plates at 1.5 × its Coulomb limit turns < 1e-8° in 1 s (without: 82°). With PGS,
//!   a pair whose every point takes a loaded warm start is *settled*: in islands of at most 36
//!   rows it gets no load-sharing sweeps, and the rigid solve starts from the warm start's
//!   residual — no sweep when that meets the tolerance, else one least-norm subspace step first,
//!   which changes the spread as equal springs would (solve.rs, *Settled pairs*).
//! - **Subspace steps**: once an island's sweeps slow down, its active rows (loaded normals,
//!   sticking tangents) are solved together as one linear system by pivoted Cholesky and the sweeps
//!   go on from there (PGS-SM, `docs/design/contact-mechanics.md` §4.2.3, *Subspace steps*); the
//!   stopping test is unchanged. Islands with more than `subspace_rows` free rows only sweep.
//!   A column of five cubes from rest, tolerance 1e-10: 4 sweeps instead of 3750 (`tribo-lcp`
//!   `tests/subspace_steps.rs`).
//! - **Newton polish**: an island of at most 16 contacts whose sweeps slow on a contact sliding on
//!   the rim of its friction disc (where a subspace step cannot land) takes a semismooth Newton
//!   step on the natural map instead (`docs/design/contact-mechanics.md` §4.2.3, *Newton
//!   polish*); the sweeps judge the result. The SR1 walk needs 29 % fewer sweeps, the walker 40 %.
//! - **Culling** (AIST, per link pair): `cullingDepth`, `cullingDistance`,
//!   `max_num_contact_points` from the contact material's extras, else the engine options.
//! - **Compliance**: a material with `stiffness`/`damping` > 0 turns the normal row into an
//!   implicit spring-damper shared by the pair's points, `cfm = 1 / (h (k h + c))`,
//!   `target = k d / (k h + c)`: a box on such a floor sinks m g / k.
//!
//! # Read-out and report
//! Link velocities are those of the link frame origin (world). Contact records: every point with
//! λₙ > 0, normal from a to b, depth ≥ 0 when overlapping, normal force λₙ / h and friction force
//! on b, built from the committed step's rows and impulses when first read (readout.rs,
//! `CommittedContacts`), as the `rapier` engine reads its contacts out. `StepReport`: `contacts` =
//! contact points (LCP size 3 × contacts), `iterations` = PGS sweeps (the most any island took,
//! load-sharing ones included; Lemke pivots), `residual` = natural-map residual ‖λ − Π(λ − w)‖∞
//! (the worst contact of any island), `complementarity` = tribo-lcp's complementarity error
//! (max |λᵢ wᵢ| plus the friction dissipation gap); a solve stopped at the iteration cap, or
//! stalled before it (tribo-lcp `SolveReport::stalled`: its residual no longer changing), adds a
//! warning.
//!
//! # Hosting an extension
//! [`PgsFactory`] is also a [`HostFactory`]: the engine it builds is a `tribo_engine::ContactHost`
//! (the `cslc` engine runs on it). Link pairs an extension takes over leave rigid collision, and
//! each `CompliantPoint` handed to a step is solved implicitly in that step's LCP as a spring from
//! the force the extension computed (`compliant.rs`); the applied forces come back with the step
//! and do not appear in the contact records.
//!
//! # Not simulated
//! Joint position and velocity limits are not enforced; the CSLC block is ignored (reported as
//! an ignored parameter). A kinematic root (a fixed root receiving `root_target`) moves to the
//! target pose at the end of the step and enters contacts as a moving boundary with the target's
//! velocity.
//!
//! # Options (`engine_options: {pgs: {...}}`; an unknown key is a located error)
//!
//! | key | meaning | unit | default | valid |
//! |---|---|---|---|---|
//! | `solver` | `pgs` or `lemke` (small problems, polyhedral cone only) | – | `pgs` | |
//! | `friction_cone` | `circular`, `pyramid4`, `pyramid8`, `pyramid16`, `box` | – | `circular` | |
//! | `iterations` | PGS sweep cap | – | 100 | ≥ 1 |
//! | `tolerance` | PGS natural-map residual to stop at | N·s, m/s | 1e-9 | ≥ 0 |
//! | `over_relaxation` | PGS ω | – | 1.0 | (0, 2) |
//! | `erp` | Baumgarte factor β | – | 0.2 | [0, 1] |
//! | `contact_slop` | penetration left uncorrected | m | 1e-4 | ≥ 0 |
//! | `contact_margin` | gap below which a contact enters the LCP | m | 1e-3 | ≥ 0 |
//! | `contact_recycling_distance` | relative drift of a shape pair below which its last narrow-phase points are reused (`recycle.rs`); 0 queries every pair every step | m | 1e-5 | ≥ 0 |
//! | `restitution_threshold` | lower bound of the restitution speed threshold | m/s | 1e-4 | ≥ 0 |
//! | `slip_threshold` | slip speed above which dynamic friction applies | m/s | 1e-4 | ≥ 0 |
//! | `self_collision` | override every body's self-collision flag | – | from the scene | bool |
//! | `culling_distance` | default `cullingDistance` | m | 0.005 | ≥ 0 |
//! | `culling_depth` | default `cullingDepth` | m | 0.05 | > 0 |
//! | `max_num_contact_points` | default `max_num_contact_points` per link pair and normal cluster | – | 4 | ≥ 0 |
//! | `lemke_max_contacts` | contacts above which `lemke` refuses a step | – | 64 | ≥ 1 |
//! | `load_sharing` | load-sharing weight ε / (mean normal Delassus diagonal); 0 turns it off | – | 1 | ≥ 0 |
//! | `subspace_rows` | largest island (free rows) that gets PGS subspace steps; 0 turns them and the Newton polish off | – | 96 | ≥ 0 |
//!
//! # Determinism
//! Single-threaded; contact points grouped in link-pair order and stable sorts keyed by
//! indices in every stage, so two runs of the same scene and commands are bit-identical.

mod build;
mod collision;
mod commands;
mod compliant;
mod contacts;
mod culling;
mod degenerate;
mod dynamics;
mod error;
mod impacts;
mod integrate;
mod islands;
mod options;
mod readout;
mod recycle;
mod sharing;
mod solve;
mod step;

use std::sync::Arc;

use step::PgsEngine;

pub use dynamics::{body_dynamics, BodyDynamics};

use tribo_engine::Scene;
use tribo_engine::{BuildError, ContactHost, Engine, EngineFactory, EngineOptions, HostFactory, MaterialParameter};

/// Builds `pgs` engines.
#[derive(Debug, Clone, Copy, Default)]
pub struct PgsFactory;

const HONOURED: [MaterialParameter; 5] = [
    MaterialParameter::StaticFriction,
    MaterialParameter::DynamicFriction,
    MaterialParameter::Restitution,
    MaterialParameter::Compliance,
    MaterialParameter::ContactCulling,
];

impl EngineFactory for PgsFactory {
    fn name(&self) -> &'static str {
        "pgs"
    }

    fn description(&self) -> &'static str {
        "articulated bodies + LCP contact (projected Gauss–Seidel), AIST-style friction, culling and restitution"
    }

    fn honoured_parameters(&self) -> &'static [MaterialParameter] {
        &HONOURED
    }

    fn build(&self, scene: &Arc<Scene>, options: &EngineOptions) -> Result<Box<dyn Engine>, BuildError> {
        Ok(Box::new(PgsEngine::build(scene, options)?))
    }
}

impl HostFactory for PgsFactory {
    fn host_name(&self) -> &'static str {
        "pgs"
    }

    fn coupling(&self) -> &'static str {
        "implicit: compliant points are springs solved in the step's LCP"
    }

    fn build_host(&self, scene: &Arc<Scene>, options: &EngineOptions) -> Result<Box<dyn ContactHost>, BuildError> {
        Ok(Box::new(PgsEngine::build(scene, options)?))
    }
}
