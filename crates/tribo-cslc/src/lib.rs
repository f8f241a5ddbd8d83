//! Compliant Sphere Lattice Contact (CSLC), host-agnostic core.
//!
//! A pad (the contact surface of a link) is a lattice of spheres tied to the link by anchor
//! springs and coupled to its neighbours by lateral springs. Each step the lattice is brought to
//! quasi-static equilibrium against signed-distance targets, and the distributed patch (forces,
//! centre of pressure, friction moment, pressures) is reported together with the wrench on the
//! link and the exactly opposite wrench on each target. Design: `docs/design/lattice-model.md`.
//!
//! - [`PadGeometry`] builds a [`Lattice`] (`flat` grid or `dome` cap);
//! - [`CslcParams`] holds stiffnesses per unit area (resolution-independent) and solver settings;
//! - [`Target`] is anything with a signed distance; [`Posed`] places a [`Plane`], [`Sphere`],
//!   [`Cuboid`], [`Cylinder`], [`Capsule`] or [`Cone`];
//! - [`CslcPad::step`] solves and returns a [`PatchResult`].
//!
//! # Notation
//!
//! The symbols of the CSLC paper as `docs/design/lattice-model.md` restates them (the section
//! that defines each is given), with tribo's per-unit-area stiffnesses: a sphere's own spring is
//! the per-area value times its area element `a_i`. Vectors are in the pad (link) frame inside the
//! solver and in the world frame in a [`PatchResult`].
//!
//! | symbol | meaning | where | unit | design |
//! |---|---|---|---|---|
//! | `p_i`, `n_i` | rest centre and outward normal of sphere i | [`LatticeSphere::rest_position`], [`LatticeSphere::normal`] | m, unit vector | §2 |
//! | `r_i` | contact radius | [`LatticeSphere::radius`] | m | §2 |
//! | `a_i` | area element (`h²` on a flat pad; half that on the edges of a pad of nodes, [`FlatLayout`]) | [`LatticeSphere::area`] | m² | §2 |
//! | `N(i)` | grid 4-neighbours | [`Lattice::neighbours`] | — | §2 |
//! | `h` | lattice spacing (grid cell of a dome) | [`Lattice::spacing`] | m | §2 |
//! | `δ_i` | displacement, the state (warm start, extrapolated from the last two steps) | [`CslcPad::displacements`] | m | §2 |
//! | `q_i = p_i + δ_i` | sphere centre | [`TouchingSphere::center`] | m | §2 |
//! | `δ_n,i`, `δ_t,i` | normal compression, tangential shear of `δ_i` | — | m | §2 |
//! | `k_a` | normal anchor stiffness per area; `K_a,i = k_a a_i` | [`CslcParams::anchor_stiffness`] | N/m³ (`K_a,i`: N/m) | §3.1 |
//! | `ρ` | tangential-to-normal anchor ratio | [`CslcParams::tangential_ratio`] | dimensionless, > 0 | §3.1 |
//! | `ℓ` | decay length of the lateral coupling | [`CslcParams::lateral_length`] | m | §3.2 |
//! | `k_ℓ/k_a` | the paper's stiffness ratio, `(ℓ/h)²` | [`CslcParams::lateral_ratio`] | dimensionless | §3.2 |
//! | `K_ℓ = k_a ℓ²` | spring per neighbour link | [`CslcParams::lateral_spring`] | N/m | §3.2 |
//! | `k_c` | Hertz contact stiffness per area, `f_n = k_c a_i φ^{3/2}` | [`CslcParams::contact_stiffness`] | N/m^3.5 | §3.3 |
//! | `φ_i` | penetration `r_i − d(q_i)`, `d` the target's signed distance | [`TouchingSphere::penetration`] | m | §3.3 |
//! | `m` | target's outward normal (`∇d`) | [`TouchingSphere::normal`] | unit vector | §3.3 |
//! | `f_n,i` | normal (Hertz) force | [`TouchingSphere::normal_force`] | N | §3.3 |
//! | `μ_s`, `μ_d` | static and dynamic friction | [`StepInput::friction`], [`StepInput::dynamic_friction`] | dimensionless | §3.4 |
//! | `f_a`, `f_ℓ`, `f_c`, `f_f` | anchor, lateral, contact, friction force on a sphere | — | N | §3–4 |
//! | `ω` | damped-Jacobi relaxation | [`CslcParams::relaxation`] | dimensionless, (0, 1] | §4 |
//! | `r` | relative force residual `Σ_i \|r_i\| / Σ_i f_n,i` | [`PatchResult::residual`], tolerance [`CslcParams::tolerance`] | dimensionless | §4 |
//! | `f_n,i / a_i` | pressure | [`TouchingSphere::pressure`] | Pa | §5 |
//! | CoP | normal-force-weighted mean of the touching centres | [`PatchResult::center_of_pressure`] | m | §5 |
//! | `M_f` | friction moment about the patch normal through the CoP | [`PatchResult::friction_moment`] | N·m | §5 |
//!
//! "§N" is a section of `docs/design/lattice-model.md`.

mod assemble;
mod band;
pub mod bessel;
mod condensed;
mod contact_state;
pub mod decay;
mod frames;
mod geometry;
pub mod kept;
mod local;
mod params;
mod reach;
mod red_black;
mod result;
mod solver;
mod target;

pub use bessel::{bessel_k0, ln_bessel_k0};
pub use decay::fit_decay_length;
pub use geometry::{CslcError, FlatLayout, Lattice, LatticeSphere, PadGeometry};
pub use params::{Acceleration, CslcParams};
pub use reach::CLOSURE_STEPS;
pub use result::{ApproachingSphere, PatchResult, TouchingSphere, Wrench};
pub use solver::{CslcPad, StepInput};
pub use target::{Capsule, Cone, Cuboid, Cylinder, FrameFree, Plane, Posed, Shape, Sphere, Target, Twist};
