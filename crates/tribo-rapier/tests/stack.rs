//! A stack of ten 0.1 m, 1 kg cubes resting on the floor holds still with the engine's default
//! options: rapier's contacts are springs, so the stack sinks by the sum of its contacts'
//! deflections and, when they are soft, tips over (with the former 30/60 Hz defaults it sank
//! 25 mm in 1 s and toppled within 3 s).

use nalgebra::{Isometry3, Vector3};
use tribo_model::Geometry;
use tribo_rapier::RapierFactory;
use tribo_testkit::*;

const SIDE: f64 = 0.1;
const G_: f64 = 9.81;

fn stack(count: usize) -> std::sync::Arc<tribo_engine::Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let mut bodies = vec![ground(0.0, &table)];
    for i in 0..count {
        let cube = solid(
            "box",
            Geometry::Box {
                size: Vector3::repeat(SIDE),
            },
            1.0,
            "Thing",
        );
        let z = SIDE * (i as f64 + 0.5);
        bodies.push(place(
            &format!("box{i}"),
            cube,
            Isometry3::translation(0.0, 0.0, z),
            false,
            &table,
        ));
    }
    scene(bodies, table)
}

/// The top box's largest displacement from its start over `seconds`, its final sink, and its
/// final tilt (rad).
fn top_box(count: usize, dt: f64, seconds: f64) -> (f64, f64, f64) {
    let scene = stack(count);
    let mut engine = engine(&RapierFactory, &scene);
    let start = root_position(engine.state(), count);
    let mut worst: f64 = 0.0;
    run(engine.as_mut(), &scene, dt, (seconds / dt).round() as usize, |state| {
        worst = worst.max((root_position(state, count) - start).norm());
    });
    let state = engine.state();
    let up = state.bodies[count].links[0].pose.rotation * Vector3::z();
    (worst, start.z - root_position(state, count).z, up.angle(&Vector3::z()))
}

#[test]
fn ten_box_stack_holds_for_ten_seconds() {
    for dt in [1e-3, 2e-3] {
        let (drift, sink, tilt) = top_box(10, dt, 10.0);
        eprintln!(
            "dt {dt}: top box moved at most {:.3} mm, sank {:.3} mm, tilt {:.4}°",
            drift * 1e3,
            sink * 1e3,
            tilt.to_degrees()
        );
        assert!(drift < 1e-3, "dt {dt}: the top box moved {drift} m (limit 1 mm)");
        // Each contact is a spring of natural frequency f for a unit projected mass: contact k
        // from the top carries k boxes, so the column sinks about Σ k g/ω² = 55 g/(2π f)² for
        // ten contacts — 0.21 mm at the 400 Hz default (a rough bound: projected masses differ).
        let omega = 2.0 * std::f64::consts::PI * 400.0;
        let elastic = 55.0 * G_ / (omega * omega);
        assert!(
            sink > 0.0 && sink < 2.0 * elastic,
            "dt {dt}: sank {sink} m, spring estimate {elastic} m"
        );
        assert!(
            tilt.to_degrees() < 0.01,
            "dt {dt}: the top box tilted {}°",
            tilt.to_degrees()
        );
    }
}
