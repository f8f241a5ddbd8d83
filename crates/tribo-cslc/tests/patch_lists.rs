//! What a patch lists sphere by sphere (`PatchResult::touching`, `PatchResult::approaching`): a
//! flat pad pressed into a tilted plane, whose signed distance the tangent plane of the step gives
//! exactly, so every sphere's class follows from its solved centre: `φ = r − d > 0` touching,
//! `−ρ r < φ ≤ 0` approaching (`ρ` the step's reach: the closure of `CLOSURE_STEPS` steps at the
//! plane's speed, at least a quarter radius and at most one), farther neither
//! (`docs/design/lattice-model.md` §4 "Reach", §5).

mod common;

use common::{flat_pad, params, step};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_cslc::{Plane, Posed, Target, Twist, CLOSURE_STEPS};

/// The plane's solid above the pad (outward normal −Z), tilted 3° about y through a point 5 µm
/// into the skin at the pad's +x edge: the spheres of that edge press it, and the gap grows by
/// 5.2e-5 m per millimetre to 1.15 mm at the −x edge, beyond one radius (1 mm).
fn tilted_plane() -> Posed<Plane> {
    let flip = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI);
    let tilt = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 3f64.to_radians());
    Posed::new(
        Plane,
        Isometry3::from_parts(Translation3::new(0.011, 0.0, -5.0e-6), tilt * flip),
    )
}

/// A plane at rest reaches a quarter radius: the spheres within it are listed approaching.
#[test]
fn a_patch_lists_its_touching_and_approaching_spheres_in_lattice_order() {
    lists_by_class(&tilted_plane(), 0.25);
}

/// A plane closing on the pad at `v` reaches the closure of `CLOSURE_STEPS` steps at that speed:
/// at 0.15 m/s over steps of 1 ms, 0.6 mm (0.6 radii), so the spheres up to 0.6 mm off it are
/// listed approaching — a host anticipating contacts from them sees the ones it may close.
#[test]
fn a_closing_target_reaches_as_far_as_the_coming_steps_close() {
    let speed = 0.15;
    let plane = tilted_plane().moving(Twist {
        linear: Vector3::new(0.0, 0.0, -speed),
        angular: Vector3::zeros(),
    });
    let reach = CLOSURE_STEPS * speed * 1e-3 / 1e-3;
    assert!((reach - 0.6).abs() < 1e-12);
    lists_by_class(&plane, reach);
}

/// Steps a fresh 12 × 12 pad against `plane` and checks every sphere's class against its solved
/// centre, with the reach `reach` in radii.
fn lists_by_class(plane: &Posed<Plane>, reach: f64) {
    let mut pad = flat_pad(12, 0.024, params());
    let result = step(&mut pad, &[plane as &dyn Target], 0.5);
    assert!(result.converged, "{:?}", result.warning);

    let spheres = pad.lattice().spheres();
    let n = spheres.len();
    let deflections = pad.deflections();
    let (mut touching, mut approaching, mut neither) = (0, 0, 0);
    for (i, (sphere, delta)) in spheres.iter().zip(pad.displacements()).enumerate() {
        let center = sphere.rest_position + delta;
        let phi = sphere.radius - plane.distance(&center);
        let touched = result.touching.iter().find(|s| s.index == i);
        let approached = result.approaching.iter().find(|s| s.index == i);
        // Rounding of the solved field is far below these margins (1e-9 of a millimetre radius).
        let margin = 1e-12;
        if phi > margin {
            let s = touched.expect("a penetrating sphere is listed touching");
            assert!(
                (s.penetration - phi).abs() <= 1e-12,
                "sphere {i}: {} against {phi}",
                s.penetration
            );
            assert!(s.normal_force > 0.0 && s.pressure == s.normal_force / sphere.area);
            assert_eq!(s.deflection, deflections[i]);
            assert!((s.center - pad.lattice().spheres()[i].rest_position - delta).norm() <= 1e-15);
            touching += 1;
        } else if phi < -margin && phi > -reach * sphere.radius + margin {
            assert!(
                touched.is_none(),
                "sphere {i} is {phi:.3e} m off the plane and listed touching"
            );
            let s = approached.expect("a sphere within reach of the plane is listed approaching");
            assert!((s.gap - phi).abs() <= 1e-12, "sphere {i}: gap {} against {phi}", s.gap);
            assert!((s.normal - Vector3::new(0.0, 0.0, -1.0)).norm() < 0.06, "{}", s.normal);
            approaching += 1;
        } else if phi < -reach * sphere.radius - margin {
            assert!(
                touched.is_none() && approached.is_none(),
                "sphere {i} is {phi:.3e} m off and listed"
            );
            neither += 1;
        }
    }
    assert!(
        touching > 0 && approaching > 0 && neither > 0,
        "{touching} / {approaching} / {neither}"
    );
    for list in [
        result.touching.iter().map(|s| s.index).collect::<Vec<_>>(),
        result.approaching.iter().map(|s| s.index).collect(),
    ] {
        assert!(list.windows(2).all(|w| w[0] < w[1]), "not in lattice order: {list:?}");
    }

    // The whole lattice's lists hold the touching spheres' values and zeros elsewhere.
    let forces = result.normal_forces(n);
    let pressures = result.pressures(n);
    assert_eq!(forces.len(), n);
    assert_eq!(forces.iter().filter(|f| **f > 0.0).count(), result.touching.len());
    for s in &result.touching {
        assert_eq!((forces[s.index], pressures[s.index]), (s.normal_force, s.pressure));
    }
    let listed: f64 = result.touching.iter().map(|s| s.normal_force).sum();
    assert!((forces.iter().sum::<f64>() - listed).abs() <= 1e-12 * listed);
    // Friction is tangential to the plane: the pad's total force along its normal is the listed load.
    let normal = result.touching[0].normal;
    assert!(
        (result.total_force.dot(&normal) - listed).abs() <= 1e-9 * listed,
        "{}",
        result.total_force
    );
}
