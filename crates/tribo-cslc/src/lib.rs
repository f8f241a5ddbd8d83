//! Compliant Sphere Lattice Contact (CSLC), host-agnostic core.
//!
//! A pad (the contact surface of a link) is a lattice of spheres tied to the link by anchor
//! springs and coupled to its neighbours by lateral springs. Each step the lattice is brought to
//! quasi-static equilibrium against signed-distance targets, and the distributed patch (forces,
//! centre of pressure, friction moment, pressures) is reported together with the wrench on the
//! link and the exactly opposite wrench on each target. Design: `shared/design/cslc.md`.
//!
//! - [`PadGeometry`] builds a [`Lattice`] (`flat` grid or `dome` cap);
//! - [`CslcParams`] holds stiffnesses per unit area (resolution-independent) and solver settings;
//! - [`Target`] is anything with a signed distance; [`Posed`] places a [`Plane`], [`Sphere`],
//!   [`Cuboid`], [`Cylinder`], [`Capsule`] or [`Cone`];
//! - [`CslcPad::step`] solves and returns a [`PatchResult`].

mod assemble;
pub mod bessel;
mod geometry;
mod local;
mod params;
mod red_black;
mod result;
mod solver;
mod target;

pub use bessel::bessel_k0;
pub use geometry::{CslcError, Lattice, LatticeSphere, PadGeometry};
pub use params::{Acceleration, CslcParams};
pub use result::{PatchResult, Wrench};
pub use solver::{CslcPad, StepInput};
pub use target::{Capsule, Cone, Cuboid, Cylinder, Plane, Posed, Shape, Sphere, Target, Twist};
