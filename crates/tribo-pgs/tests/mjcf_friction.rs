//! MuJoCo's geom friction reaches a pgs run through the MJCF import's material table: a 0.2 m box
//! with `friction="0.5"` on a plane with `friction="0.3"` (MuJoCo's rule: the pair's friction is
//! the larger, 0.5) holds on a plane tilted below atan 0.5 = 26.57° and slides above it at the
//! Coulomb rate ½ g (sin θ − μ cos θ) t².
//!
//! Tolerances, as for the same incline built in code (`contact.rs`): below the friction angle the
//! box may creep less than 50 µm in 2 s (the contact's velocity-level solve with `erp` leaves a
//! drift of that order, far below the 0.1–1 m a slide covers); above it the slide distance after
//! 1 s is within 2 % of the closed form (the box's first contact step and the LCP tolerance).

use nalgebra::{Isometry3, UnitQuaternion, Vector3};
use tribo_model::{friction_table, parse_mjcf_model, MjcfModel};
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;

const PLANE: &str = r#"<mujoco model="incline">
  <worldbody>
    <geom name="incline" type="plane" size="0 0 1" friction="0.3"/>
  </worldbody>
</mujoco>"#;

const BOX: &str = r#"<mujoco model="box">
  <worldbody>
    <body name="box">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" friction="0.5"/>
    </body>
  </worldbody>
</mujoco>"#;

fn models() -> (MjcfModel, MjcfModel) {
    (
        parse_mjcf_model(PLANE, "incline.xml").expect("the plane loads"),
        parse_mjcf_model(BOX, "box.xml").expect("the box loads"),
    )
}

/// Displacement down the slope after `time` seconds from rest, on a plane tilted `tilt_degrees`.
fn slope_displacement(tilt_degrees: f64, time: f64) -> f64 {
    let (plane, cube) = models();
    let frictions: Vec<_> = plane.frictions.iter().chain(&cube.frictions).cloned().collect();
    let table = table(&friction_table(&frictions), &["mjcf_mu_0_3", "mjcf_mu_0_5"]);
    let tilt = tilt_degrees.to_radians();
    let rotation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), tilt);
    let (down, normal) = slope_axes(tilt);
    let s = scene(
        vec![
            place(
                "incline",
                plane.body,
                Isometry3::from_parts(Default::default(), rotation),
                true,
                &table,
            ),
            place(
                "box",
                cube.body,
                Isometry3::from_parts((normal * 0.1).into(), rotation),
                false,
                &table,
            ),
        ],
        table,
    );
    let mut sim = engine(&PgsFactory, &s);
    let start = root_position(sim.state(), 1);
    run(sim.as_mut(), &s, DT, (time / DT).round() as usize, |_| {});
    (root_position(sim.state(), 1) - start).dot(&down)
}

#[test]
fn the_pair_takes_the_larger_friction() {
    let (plane, cube) = models();
    assert_eq!(plane.body.root().material, "mjcf_mu_0_3");
    assert_eq!(cube.body.root().material, "mjcf_mu_0_5");
    let frictions: Vec<_> = plane.frictions.iter().chain(&cube.frictions).cloned().collect();
    let contacts = table(&friction_table(&frictions), &["mjcf_mu_0_3", "mjcf_mu_0_5"]);
    let (a, b) = (
        contacts.id("mjcf_mu_0_3").expect("in the table"),
        contacts.id("mjcf_mu_0_5").expect("in the table"),
    );
    assert_eq!(contacts.pair(a, b).static_friction, 0.5);
    assert_eq!(contacts.pair(a, a).static_friction, 0.3);
}

#[test]
fn the_box_holds_below_the_friction_angle() {
    for tilt in [20.0, 25.0] {
        let d = slope_displacement(tilt, 2.0);
        eprintln!("{tilt}°: creep {d:.3e} m");
        assert!(d.abs() < 5e-5, "{tilt}°: the box crept {d} m");
    }
}

#[test]
fn the_box_slides_above_the_friction_angle_at_the_coulomb_rate() {
    let (mu, time) = (0.5, 1.0);
    for tilt in [28.0_f64, 30.0] {
        let d = slope_displacement(tilt, time);
        let t = tilt.to_radians();
        let expected = 0.5 * G * (t.sin() - mu * t.cos()) * time * time;
        eprintln!("{tilt}°: {d:.5} m, expected {expected:.5} m");
        assert!((d / expected - 1.0).abs() < 0.02, "{tilt}°: {d} vs {expected}");
    }
}
