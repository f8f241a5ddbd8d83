//! Resolution independence (stiffness per area, `a_i` weights) and momentum balance.

mod common;

use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use tribo_cslc::{Plane, Posed, Sphere, Target};

const SIZE: f64 = 0.02;

/// Uniform compression: `k_a δ = k_c φ^{3/2}`, `φ = d − δ`, total force `L² k_a δ`.
fn analytic_force(depth: f64) -> f64 {
    let p = common::params();
    let (mut lo, mut hi) = (0.0, depth);
    for _ in 0..200 {
        let delta = 0.5 * (lo + hi);
        if p.anchor_stiffness * delta > p.contact_stiffness * (depth - delta).powf(1.5) {
            hi = delta;
        } else {
            lo = delta;
        }
    }
    SIZE * SIZE * p.anchor_stiffness * 0.5 * (lo + hi)
}

#[test]
fn total_force_does_not_depend_on_resolution() {
    let depth = 2e-5;
    let expected = analytic_force(depth);
    for n in [5, 10, 20] {
        let mut pad = common::flat_pad(n, SIZE, common::params());
        let plane = common::plane_above(depth);
        let targets: [&dyn Target; 1] = [&plane];
        let result = common::step(&mut pad, &targets, 0.5);
        assert!(result.converged, "{n}×{n}: {:?}", result.warning);
        // The plane pushes the pad link along −Z.
        let error = (-result.total_force.z - expected).abs() / expected;
        assert!(error < 0.02, "{n}×{n}: {} N vs {expected} N", result.total_force.z);
        assert!((result.contact_area - SIZE * SIZE).abs() < 1e-12);
    }
}

#[test]
fn load_control_carries_the_load() {
    let load = 50.0;
    for n in [5, 10, 20] {
        let mut pad = common::flat_pad(n, SIZE, common::params());
        let (mut lo, mut hi) = (0.0, 1e-3);
        let mut carried = 0.0;
        for _ in 0..60 {
            let depth = 0.5 * (lo + hi);
            let plane = common::plane_above(depth);
            let targets: [&dyn Target; 1] = [&plane];
            carried = -common::step(&mut pad, &targets, 0.5).total_force.z;
            if carried > load {
                hi = depth;
            } else {
                lo = depth;
            }
        }
        assert!(
            (carried - load).abs() / load < 0.005,
            "{n}×{n} carries {carried} N of {load} N"
        );
        // Analytic penetration balancing the load: δ = W/(L² k_a), φ = (W/(L² k_c))^{2/3}.
        let p = common::params();
        let depth =
            load / (SIZE * SIZE * p.anchor_stiffness) + (load / (SIZE * SIZE * p.contact_stiffness)).powf(2.0 / 3.0);
        assert!(
            (0.5 * (lo + hi) - depth).abs() / depth < 0.005,
            "{n}×{n}: depth {} vs {depth}",
            0.5 * (lo + hi)
        );
    }
}

#[test]
fn wrenches_balance_and_torque_follows_the_centre_of_pressure() {
    // Tilted plane (frictionless): uneven pressure, torque = (CoP − o) × F.
    let tilt = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::PI + 0.01);
    let plane = Posed::new(Plane, Isometry3::from_parts(Translation3::new(0.0, 0.0, -3e-5), tilt));
    let targets: [&dyn Target; 1] = [&plane];
    let mut pad = common::flat_pad(10, SIZE, common::params());
    let result = common::step(&mut pad, &targets, 0.0);
    assert!(result.converged);
    let cop = result.center_of_pressure.expect("contact");
    let torque = cop.coords.cross(&result.total_force);
    assert!((torque - result.total_torque).norm() <= 1e-9 * result.total_torque.norm().max(1e-12));
    assert!(
        cop.x.abs() > 1e-4,
        "the tilt must shift the centre of pressure, got {cop}"
    );

    // Sphere target plus a plane, with friction and a sliding, twisting pad.
    let ball = Posed::new(
        Sphere { radius: 0.05 },
        Isometry3::from(Translation3::new(0.003, 0.0, 0.05 - 4e-5)),
    );
    let targets: [&dyn Target; 2] = [&ball, &plane];
    let mut pad = common::flat_pad(12, SIZE, common::params());
    common::step(&mut pad, &targets, 0.6);
    let input = tribo_cslc::StepInput {
        pad_pose: Isometry3::identity(),
        pad_twist: tribo_cslc::Twist {
            linear: Vector3::new(0.01, 0.0, 0.0),
            angular: Vector3::new(0.0, 0.0, 0.5),
        },
        targets: &targets,
        friction: 0.6,
        dynamic_friction: 0.6,
        dt: 1e-3,
    };
    let result = pad.step(&input).expect("step");
    let sum: Vector3<f64> = result.touching.iter().map(|s| s.force).sum();
    let sum_torque: Vector3<f64> = result.touching.iter().map(|s| s.center.coords.cross(&s.force)).sum();
    let on_targets: Vector3<f64> = result.target_wrenches.iter().map(|w| w.force).sum();
    let targets_torque: Vector3<f64> = result.target_wrenches.iter().map(|w| w.torque).sum();
    let scale = sum.norm();
    assert!(scale > 0.0);
    assert!((sum - result.pad_wrench.force).norm() <= 1e-9 * scale);
    assert!((on_targets + result.pad_wrench.force).norm() <= 1e-9 * scale);
    assert!((sum_torque - result.pad_wrench.torque).norm() <= 1e-9 * sum_torque.norm());
    assert!((targets_torque + result.pad_wrench.torque).norm() <= 1e-9 * sum_torque.norm());
    let moved = result.pad_wrench.moved(&Point3::origin(), &Point3::new(1.0, 0.0, 0.0));
    assert!((moved.torque - (result.pad_wrench.torque + Vector3::new(-1.0, 0.0, 0.0).cross(&sum))).norm() < 1e-12);
}
