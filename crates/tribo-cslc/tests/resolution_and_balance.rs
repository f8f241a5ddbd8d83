//! Resolution independence (stiffness per area, `a_i` weights) and momentum balance.

mod common;

use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use tribo_cslc::{CslcPad, FlatLayout, PadGeometry, Plane, Posed, Sphere, Target};

const SIZE: f64 = 0.02;

/// The pressure `k_a δ` (Pa) of an area element pressed `depth` into a flat target on its own:
/// `k_a δ = k_c φ^{3/2}`, `φ = depth − δ` (bisection to machine precision).
fn bed_pressure(depth: f64) -> f64 {
    let p = common::params();
    let (mut lo, mut hi) = (0.0, depth.max(0.0));
    for _ in 0..200 {
        let delta = 0.5 * (lo + hi);
        if p.anchor_stiffness * delta > p.contact_stiffness * (depth - delta).powf(1.5) {
            hi = delta;
        } else {
            lo = delta;
        }
    }
    p.anchor_stiffness * 0.5 * (lo + hi)
}

/// Uniform compression of the `L × L` pad: total force `L² k_a δ`.
fn analytic_force(depth: f64) -> f64 {
    SIZE * SIZE * bed_pressure(depth)
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

/// A pad of nodes spans its outermost spheres: `n × n` nodes at `h = L / (n − 1)` sample the
/// same `L × L` pad at every `n`, and carry the uniform compression's force over it,
/// `L² k_a δ`. (Of cells, the same spheres would stand for an `n h` wide pad: a force larger by
/// `(n / (n − 1))²`, 56 % at `n = 5`.) The field is uniform, so the lateral springs stay slack
/// and the answer is exact to the solver's tolerance; asserted to 1e-6.
#[test]
fn a_pad_of_nodes_carries_the_force_of_the_pad_its_outermost_spheres_span() {
    let depth = 2e-5;
    let expected = analytic_force(depth);
    for n in [5, 11, 21] {
        let spacing = SIZE / (n - 1) as f64;
        let lattice = PadGeometry::flat_with_layout(n, n, spacing, FlatLayout::Nodes)
            .build()
            .expect("lattice");
        let mut pad = CslcPad::new(lattice, common::params()).expect("pad");
        let plane = common::plane_above(depth);
        let targets: [&dyn Target; 1] = [&plane];
        let result = common::step(&mut pad, &targets, 0.5);
        assert!(result.converged, "{n}×{n}: {:?}", result.warning);
        let error = (-result.total_force.z - expected).abs() / expected;
        assert!(error < 1e-6, "{n}×{n}: {} N vs {expected} N", result.total_force.z);
        assert!(
            (result.contact_area - SIZE * SIZE).abs() < 1e-15,
            "{n}×{n}: area {}",
            result.contact_area
        );
    }
}

/// A bisection on the plane's depth: from step to step the plane jumps by up to half a
/// millimetre at rest, so a step's solve can move spheres by more than a quarter radius, the
/// narrowest reach (`tribo-cslc` `reach.rs`) — such a step is solved again at the full reach, or
/// the spheres it brings into contact would be missed (the 20 × 20 pad would carry 85.7 N).
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

/// A sole pressed onto a floor at a small tilt against the continuum it samples. Every point of
/// the `0.22 × 0.12 m` surface at `x` (pad frame) meets the floor at `φ(x) = d − x sin θ`, and
/// with the lattice's neighbours following a field that varies this slowly (`ℓ ≪` the patch),
/// each area element holds its own Hertz–anchor equilibrium: pressure `k_a δ(φ)` with
/// `k_a δ = k_c (φ − δ)^{3/2}` — a Winkler bed of that law. Force `F = 0.12 ∫ k_a δ dx` and moment
/// `M = 0.12 ∫ x k_a δ dx` over the sole (Simpson's rule, 2,000 panels). The lattices sample it
/// by the midpoint rule (cells) or the trapezoid rule (nodes), both to `O(h²)`: with a pressure
/// nearly linear in `x` the moment's integrand is quadratic, and the rules miss it by `−h²/L²` and
/// `+2h²/L²` — 0.8 % and 1.7 % at a 2 cm spacing, 0.05 % and 0.1 % at 5 mm. Asserted within 2.5 %
/// and 0.3 %, every sphere touching.
#[test]
fn a_tilted_sole_carries_the_force_and_moment_of_the_bed_it_samples() {
    let (depth, tilt): (f64, f64) = (3e-5, 2e-4);
    let (length, width) = (0.22, 0.12);
    let panels = 2000;
    let (mut force, mut moment) = (0.0, 0.0);
    for k in 0..=panels {
        let x = -0.5 * length + length * k as f64 / panels as f64;
        let weight = if k == 0 || k == panels {
            1.0
        } else if k % 2 == 1 {
            4.0
        } else {
            2.0
        } * length
            / (3.0 * panels as f64);
        let q = bed_pressure(depth - x * tilt.sin());
        force += width * q * weight;
        moment += width * x * q * weight;
    }
    let pads = [
        (FlatLayout::Cells, [11, 6], 0.02, 0.025),
        (FlatLayout::Nodes, [12, 7], 0.02, 0.025),
        (FlatLayout::Cells, [44, 24], 0.005, 0.003),
        (FlatLayout::Nodes, [45, 25], 0.005, 0.003),
    ];
    for (layout, [nx, ny], spacing, tolerance) in pads {
        let lattice = PadGeometry::flat_with_layout(nx, ny, spacing, layout)
            .build()
            .expect("lattice");
        let mut pad = CslcPad::new(lattice, common::params()).expect("pad");
        let plane = common::plane_above(depth);
        let targets: [&dyn Target; 1] = [&plane];
        let input = tribo_cslc::StepInput {
            pad_pose: Isometry3::from_parts(
                Translation3::identity(),
                UnitQuaternion::from_axis_angle(&Vector3::y_axis(), tilt),
            ),
            pad_twist: tribo_cslc::Twist::default(),
            targets: &targets,
            friction: 1.0,
            dynamic_friction: 1.0,
            dt: 1e-3,
        };
        let result = pad.step(&input).expect("step");
        let at = format!("{layout:?} {nx} × {ny}");
        assert!(result.converged, "{at}: {:?}", result.warning);
        assert_eq!(result.touching.len(), nx * ny, "{at}: every sphere touches");
        let (f, m) = (result.total_force.z.abs(), result.total_torque.y.abs());
        println!(
            "{at}: F {f:.2} N against {force:.2}, M {m:.4} N·m against {:.4}",
            moment.abs()
        );
        assert!(
            (f - force).abs() < tolerance * force,
            "{at}: F {f} N, the bed's {force} N"
        );
        assert!(
            (m - moment.abs()).abs() < tolerance * moment.abs(),
            "{at}: M {m} N·m, the bed's {moment} N·m"
        );
    }
}
