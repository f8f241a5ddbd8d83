#![allow(dead_code)]
//! Shared helpers of the integration tests.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_cslc::{CslcPad, CslcParams, PadGeometry, PatchResult, Plane, Posed, StepInput, Target, Twist};

/// A plane whose solid fills `z ≥ −depth` of the pad frame (outward normal −Z): a flat pad at
/// the identity pose penetrates it by `depth`.
pub fn plane_above(depth: f64) -> Posed<Plane> {
    let flip = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI);
    Posed::new(Plane, Isometry3::from_parts(Translation3::new(0.0, 0.0, -depth), flip))
}

pub fn params() -> CslcParams {
    CslcParams {
        tolerance: 1e-11,
        max_iterations: 20_000,
        ..CslcParams::default()
    }
}

pub fn flat_pad(n: usize, size: f64, params: CslcParams) -> CslcPad {
    let lattice = PadGeometry::flat(n, n, size / n as f64).build().expect("lattice");
    CslcPad::new(lattice, params).expect("pad")
}

pub fn step(pad: &mut CslcPad, targets: &[&dyn Target], friction: f64) -> PatchResult {
    let input = StepInput {
        pad_pose: Isometry3::identity(),
        pad_twist: Twist::default(),
        targets,
        friction,
        dynamic_friction: friction,
        dt: 1e-3,
    };
    pad.step(&input).expect("step")
}
