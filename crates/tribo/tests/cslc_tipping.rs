//! Where a flat pad ends: a 35 kg box whose 0.22 × 0.12 m bottom face is a pad (the walker's
//! sole skin, restitution 0 with the ground) under a pitch torque just below and just above the
//! one that tips it over its toe.
//!
//! Known answer — **statics of a block on its support.** A block under a torque `τ` about a
//! horizontal axis stays up while the moment balance can put the floor's centre of pressure
//! `x = τ / (m g)` ahead of the centre of mass inside its support; it tips once `τ` exceeds
//! `m g X`, `X` the support's reach ahead of the centre of mass. A lattice pad's support ends at
//! its outermost spheres' contact points (a sphere on a floor touches it below its centre), so
//! `X` is the outermost centres' reach (`docs/design/lattice-model.md` §2, "Where a flat pad
//! ends"):
//! - a pad of **nodes** puts them on the pad's edges: `X = X₀ = 0.11 m` at every resolution;
//! - a pad of **cells** (11 × 6 spheres at 2 cm, the same 0.22 × 0.12 m) keeps them half a
//!   spacing inside: `X = 0.11 − 0.01 = 0.10 m`, a tenth less torque;
//! - the rigid engines (`pgs`, `rapier`) ignore the pad and stand the box on its whole face:
//!   `X = X₀`, as the pad of nodes does.
//!
//! The torque rises from zero over 3 s and is then held for 1.5 s. Held 3 % below the limit the
//! box stands (its tilt stays under 0.02 rad; measured 0.9 – 4.5 mrad, the skin giving as the load
//! gathers on the toe row, the more the smaller that row's area); held 3 % above it the box tips
//! — the excess torque `0.03 m g X ≥ 1 N·m` turns it about its toe (inertia about that edge
//! `I = m ((L² + H²)/12 + X₀² + (H/2)²) = 0.594 kg·m²`) past 0.1 rad within 0.5 s, and faster as
//! its weight's lever shrinks (measured: it turns over). So each layout's limit is bracketed to
//! ± 3 %, and the two, a tenth apart, are told apart.

mod sole_box;

use nalgebra::Vector3;
use sole_box::{engine, scene, G, MASS};
use tribo_engine::LinkWrench;
use tribo_model::PadLayout;
use tribo_testkit::*;

/// Half the box's length: the reach of its bottom face ahead of its centre of mass, m.
const HALF_LENGTH: f64 = 0.11;
/// The torque's rise and hold, s.
const RISE: f64 = 3.0;
const HOLD: f64 = 1.5;
/// Tilt below which the box stands, and above which it has tipped, rad.
const STANDS: f64 = 0.02;
const TIPPED: f64 = 0.1;
const DT: f64 = 2e-3;

/// The box's largest tilt from upright (rad) on `engine_name` while the torque `torque` (N·m)
/// rises and is held.
fn tilt_under(engine_name: &str, resolution: [usize; 2], spacing: f64, layout: PadLayout, torque: f64) -> f64 {
    let scene = scene(resolution, spacing, layout);
    let mut engine = engine(engine_name, &scene);
    let mut commands = idle(&scene);
    let steps = ((RISE + HOLD) / DT).round() as usize;
    let mut largest = 0.0_f64;
    for step in 1..=steps {
        let share = (step as f64 * DT / RISE).min(1.0);
        commands.bodies[1].link_wrenches = vec![LinkWrench {
            link: 0,
            force: Vector3::zeros(),
            torque: Vector3::new(0.0, torque * share, 0.0),
        }];
        engine.step(DT, &commands).expect("step");
        let up = engine.state().bodies[1].links[0].pose.rotation * Vector3::z();
        largest = largest.max(up.z.clamp(-1.0, 1.0).acos());
    }
    largest
}

#[test]
fn a_box_on_a_pad_tips_where_its_outermost_spheres_stand() {
    let weight = MASS * G;
    // (layout, resolution, spacing, the outermost centres' reach X)
    let pads = [
        (PadLayout::Nodes, [12, 7], 0.02, HALF_LENGTH),
        (PadLayout::Nodes, [23, 13], 0.01, HALF_LENGTH),
        (PadLayout::Cells, [11, 6], 0.02, HALF_LENGTH - 0.01),
    ];
    for engine in ["cslc", "cslc-rapier"] {
        for (layout, resolution, spacing, reach) in pads {
            let at = format!("{engine}, {layout:?} {resolution:?} at {spacing} m");
            let limit = weight * reach;
            let below = tilt_under(engine, resolution, spacing, layout, 0.97 * limit);
            let above = tilt_under(engine, resolution, spacing, layout, 1.03 * limit);
            println!("{at}: m g X = {limit:.2} N·m; tilts {below:.4} rad at 0.97 of it, {above:.4} rad at 1.03");
            assert!(below < STANDS, "{at}: {below} rad at 0.97 m g X");
            assert!(above > TIPPED, "{at}: {above} rad at 1.03 m g X");
        }
    }
    // The rigid engines ignore the pad: the box stands on its whole bottom face, `X = X₀`.
    for engine in ["pgs", "rapier"] {
        let limit = weight * HALF_LENGTH;
        let below = tilt_under(engine, [12, 7], 0.02, PadLayout::Nodes, 0.97 * limit);
        let above = tilt_under(engine, [12, 7], 0.02, PadLayout::Nodes, 1.03 * limit);
        println!("{engine}: m g X₀ = {limit:.2} N·m; tilts {below:.4} rad at 0.97 of it, {above:.4} rad at 1.03");
        assert!(below < STANDS, "{engine}: {below} rad at 0.97 m g X₀");
        assert!(above > TIPPED, "{engine}: {above} rad at 1.03 m g X₀");
    }
}
