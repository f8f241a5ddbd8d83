//! The sole box shared by the pad tests: a 35 kg box whose 0.22 × 0.12 m bottom face is a flat
//! pad with the walker's sole skin (`Sole`, k_a = 1e11 N/m³), resting on the ground (`Ground`,
//! friction 1, restitution 0), built in code.

#![allow(dead_code)]

use std::sync::Arc;

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_engine::{Engine, EngineOptions, Scene};
use tribo_model::{Geometry, PadLayout, PadShape, PadSpec};
use tribo_testkit::*;

pub const G: f64 = 9.81;
/// The box's mass, kg.
pub const MASS: f64 = 35.0;
/// The box's size, m: its bottom face 0.22 × 0.12 m.
pub const SIZE: [f64; 3] = [0.22, 0.12, 0.05];

/// The ground (body 0) and the box (body 1, free, its pad `resolution` spheres at `spacing` in
/// `layout` on its bottom face), the box 10 µm above the ground.
pub fn scene(resolution: [usize; 2], spacing: f64, layout: PadLayout) -> Arc<Scene> {
    let table = table(
        "materials:\n  - name: Ground\n  - name: Sole\n    cslc: { anchor_stiffness: 1.0e11 }\n\
         contact_materials:\n  - { materials: [Ground, Sole], friction: 1.0, restitution: 0.0 }\n",
        &["Ground", "Sole"],
    );
    let mut model = solid(
        "sole",
        Geometry::Box {
            size: Vector3::from(SIZE),
        },
        MASS,
        "Sole",
    );
    model.links[0].pads.push(PadSpec {
        shape: PadShape::Flat {
            resolution,
            spacing,
            layout,
        },
        pose: Isometry3::from_parts(
            Translation3::new(0.0, 0.0, -0.5 * SIZE[2]),
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI),
        ),
        location: tribo_yaml::Location::file("test"),
    });
    let start = Isometry3::translation(0.0, 0.0, 0.5 * SIZE[2] + 1e-5);
    scene_with_declared_pads(
        vec![ground(0.0, &table), place("sole", model, start, false, &table)],
        table,
    )
}

/// Engine `name` of tribo's registry built on `scene` with its default options.
pub fn engine(name: &str, scene: &Arc<Scene>) -> Box<dyn Engine> {
    tribo::engines()
        .get(name)
        .expect("the engine is registered")
        .build(scene, &EngineOptions::none())
        .expect("the engine builds")
}
