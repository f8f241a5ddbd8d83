//! A loaded sole settles onto its toe: a 35 kg box whose 0.22 × 0.12 m bottom face is a pad
//! (22 × 12 spheres at 1 cm, the walker's sole skin, restitution 0 with the ground) under a pure
//! pitch torque of 30.9 N·m. The torque pushes its centre of pressure 9 cm forward of the centre
//! of mass; the heel lifts and the patch shrinks to the toe rows.
//!
//! Known answers:
//! - **Statics.** At rest the floor carries the weight, `F = m g`, and the moment balance about
//!   the centre of mass puts the centre of pressure at `x = τ / (m g)` ahead of it (the pad's
//!   friction is the only horizontal force, and nothing pushes sideways).
//! - **Winkler bed.** The skin is anchor springs per area: under a tilt the pressure grows
//!   linearly from where the patch starts to the toe (at `X = 0.11 m`), so the resultant lies a
//!   third of the patch length `a` from the toe: `a = 3 (X − x) = 0.06 m`, an area of
//!   `a × 0.12 m = 0.0072 m²` — to within one row of spheres (`1e-2 × 0.12 m²`).
//! - **Settling.** With restitution 0 the patch's modes are damped: its rocking too, not only its
//!   normal motion, so the box comes to rest, and at the same pose whatever the step size.

mod sole_box;

use nalgebra::Vector3;
use sole_box::{engine, scene, G, MASS, SIZE};
use tribo_engine::LinkWrench;
use tribo_model::PadLayout;
use tribo_testkit::*;

const TORQUE: f64 = 30.9;
const SPACING: f64 = 0.01;

/// What a run of `seconds` at step `dt` ends with.
#[derive(Clone)]
struct Settled {
    /// Pitch of the box, rad.
    pitch: f64,
    /// Largest pitch rate over the last 0.1 s, rad/s.
    late_pitch_rate: f64,
    /// Smallest and largest pitch over the last 0.1 s, rad.
    late_pitch_range: (f64, f64),
    normal_force: f64,
    /// Centre of pressure ahead of the box's centre, m.
    center_of_pressure: f64,
    area: f64,
}

fn settle(engine_name: &str, dt: f64, seconds: f64) -> Settled {
    let scene = scene([22, 12], SPACING, PadLayout::Cells);
    let mut engine = engine(engine_name, &scene);
    let mut commands = idle(&scene);
    commands.bodies[1].link_wrenches.push(LinkWrench {
        link: 0,
        force: Vector3::zeros(),
        torque: Vector3::new(0.0, TORQUE, 0.0),
    });
    let steps = (seconds / dt).round() as usize;
    let late = steps - (0.1 / dt).round() as usize;
    let (mut late_pitch_rate, mut late_pitch_range) = (0.0_f64, (f64::INFINITY, f64::NEG_INFINITY));
    for step in 0..steps {
        engine.step(dt, &commands).expect("step");
        let link = &engine.state().bodies[1].links[0];
        if step >= late {
            let pitch = link.pose.rotation.euler_angles().1;
            late_pitch_rate = late_pitch_rate.max(link.angular_velocity.y.abs());
            late_pitch_range = (late_pitch_range.0.min(pitch), late_pitch_range.1.max(pitch));
        }
    }
    let link = engine.state().bodies[1].links[0];
    let contacts = engine.contacts();
    assert_eq!(contacts.len(), 1, "one patch: {contacts:?}");
    let patch = &contacts[0];
    let detail = patch.patch.as_ref().expect("patch detail");
    Settled {
        pitch: link.pose.rotation.euler_angles().1,
        late_pitch_rate,
        late_pitch_range,
        normal_force: patch.normal_force,
        center_of_pressure: detail.center_of_pressure.x - link.pose.translation.x,
        area: detail.area,
    }
}

#[test]
fn a_sole_under_a_pitch_torque_settles_on_its_toe_as_statics_and_a_winkler_bed_say() {
    for engine in ["cslc", "cslc-rapier"] {
        let fine = settle(engine, 5e-4, 0.6);
        for (dt, run) in [(2e-3, settle(engine, 2e-3, 0.6)), (5e-4, fine.clone())] {
            let at = format!("{engine}, dt {dt}");
            let weight = MASS * G;
            // Statics, to 0.5 % of the weight and 1 mm.
            assert!(
                (run.normal_force - weight).abs() < 5e-3 * weight,
                "{at}: F {}",
                run.normal_force
            );
            let lever = TORQUE / weight;
            assert!(
                (run.center_of_pressure - lever).abs() < 1e-3,
                "{at}: CoP {} m ahead of the centre, statics {lever}",
                run.center_of_pressure
            );
            // Winkler: 0.0072 m², within a row of spheres.
            let row = SPACING * SIZE[1];
            assert!((run.area - 0.0072).abs() <= row + 1e-12, "{at}: area {}", run.area);
            // At rest: over the last 0.1 s the pitch rate stays below 1 mrad/s and the pitch within
            // 0.1 millidegree (rocking undamped, this box swung by 10 millidegrees at 0.02 rad/s).
            assert!(run.late_pitch_rate < 1e-3, "{at}: pitch rate {}", run.late_pitch_rate);
            let swing = (run.late_pitch_range.1 - run.late_pitch_range.0).to_degrees();
            assert!(swing < 1e-4, "{at}: pitch swings by {swing}°");
            // The same pose at both steps, to 2 %.
            assert!(
                (run.pitch - fine.pitch).abs() < 0.02 * fine.pitch.abs(),
                "{at}: pitch {} against {} at 0.5 ms",
                run.pitch,
                fine.pitch
            );
        }
    }
}
