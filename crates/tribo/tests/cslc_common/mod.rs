//! Scenes shared by the pad tests: the lattice-point-load bed (a fixed block whose top face is a
//! 15 × 15 flat pad at 2 mm spacing, the `Lattice` material of `samples/lattice-point-load` with
//! k_ℓ/k_a = 4) with a free solid above it, built in code.

#![allow(dead_code)]

use std::sync::Arc;

use nalgebra::{Isometry3, Vector3};
use tribo_engine::Scene;
use tribo_model::{Geometry, PadLayout, PadShape, PadSpec};
use tribo_testkit::*;

/// Pad spacing h, m.
pub const SPACING: f64 = 0.002;
/// Spheres per pad side.
pub const RESOLUTION: usize = 15;
/// Anchor stiffness k_a of `Lattice`, N/m³.
pub const K_A: f64 = 2.0e8;
/// Hertz coefficient k_c of `Lattice`, N/m^3.5.
pub const K_C: f64 = 1.0e11;

/// The material table: `Lattice` (the bed's pad) and `Thing` (the free solid), touching with
/// static friction `mu_s`, dynamic friction `mu_d` and restitution `e`.
pub fn materials(mu_s: f64, mu_d: f64, e: f64) -> tribo_material::ContactTable {
    table(
        &format!(
            "materials:\n  - name: Lattice\n    cslc: {{anchor_stiffness: {K_A:e}, tangential_ratio: 0.5, stiffness_ratio: 4, \
             contact_stiffness: {K_C:e}, tolerance: 1.0e-10, max_iterations: 2000}}\n  - name: Thing\n\
             contact_materials:\n  - materials: [Lattice, Thing]\n    static_friction: {mu_s}\n    \
             dynamic_friction: {mu_d}\n    restitution: {e}\n"
        ),
        &["Lattice", "Thing"],
    )
}

/// The bed (body 0, fixed, pad surface the plane z = 0) and `thing` (body 1, free, at `start`).
pub fn bed_with(thing: tribo_model::Body, start: Isometry3<f64>, table: tribo_material::ContactTable) -> Arc<Scene> {
    let mut bed = solid(
        "bed",
        Geometry::Box {
            size: Vector3::new(0.04, 0.04, 0.01),
        },
        1.0,
        "Lattice",
    );
    bed.links[0].shapes[0].pose = Isometry3::translation(0.0, 0.0, -0.005);
    bed.links[0].pads.push(PadSpec {
        shape: PadShape::Flat {
            resolution: [RESOLUTION, RESOLUTION],
            spacing: SPACING,
            layout: PadLayout::Cells,
        },
        pose: Isometry3::identity(),
        location: tribo_yaml::Location::file("test"),
    });
    scene_with_declared_pads(
        vec![
            place("bed", bed, Isometry3::identity(), true, &table),
            place("thing", thing, start, false, &table),
        ],
        table,
    )
}
