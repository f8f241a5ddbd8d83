//! Contact analysis of `docs/design/contact-mechanics.md` §4.3–4.4 against analytic answers: force
//! closure, CoP, ZMP, support polygon, and contact force distribution.

use nalgebra::{DVector, Vector3};
use std::f64::consts::PI;
use tribo_lcp::{
    centre_of_pressure, force_closure, grasp_matrix, internal_force_projector, min_norm_distribution,
    min_norm_distribution_in_cones, zmp, zmp_from_wrench, ConeDistributionOptions, ContactPoint, Error,
    ForceClosureOptions, Plane, PointForce, SupportPolygon, Wrench,
};

/// Contacts on a sphere of radius r at the given (azimuth, elevation), normals pointing to the centre.
fn on_sphere(r: f64, angles: &[(f64, f64)], mu: f64) -> Vec<ContactPoint> {
    angles
        .iter()
        .enumerate()
        .map(|(i, &(az, el))| {
            let p = Vector3::new(el.cos() * az.cos(), el.cos() * az.sin(), el.sin()) * r;
            ContactPoint::new(i, p, -p, mu).expect("valid contact")
        })
        .collect()
}

#[test]
fn three_fingers_at_120_degrees_with_friction_close_a_sphere() {
    // Equal weights on every edge cancel: each cone's edges sum along its normal (through the centre,
    // no torque), and three equal normals at 120° sum to zero. So c = 1 is a positive null combination,
    // and the wrenches span ℝ⁶ (friction gives the vertical force and all torques).
    let contacts = on_sphere(0.05, &[(0.0, 0.0), (2.0 * PI / 3.0, 0.0), (4.0 * PI / 3.0, 0.0)], 0.5);
    let report = force_closure(&contacts, &ForceClosureOptions::default()).expect("analysis runs");
    assert_eq!(report.rank, 6);
    assert!(report.force_closure, "{report:?}");
    assert!(report.combination_residual < 1e-12);
    assert!(report.combination.expect("rank 6").iter().all(|&c| c >= 1.0));
}

#[test]
fn four_side_contacts_with_friction_close_a_box() {
    // Centres of the ±x and ±y faces of a cube, inward normals, μ = 0.4: the same cancellation.
    let contacts: Vec<ContactPoint> = [Vector3::x(), -Vector3::x(), Vector3::y(), -Vector3::y()]
        .iter()
        .enumerate()
        .map(|(i, d)| ContactPoint::new(i, d * 0.1, -d, 0.4).expect("valid"))
        .collect();
    let report = force_closure(&contacts, &ForceClosureOptions::default()).expect("analysis runs");
    assert!(report.force_closure && report.rank == 6, "{report:?}");
}

#[test]
fn grasps_that_are_not_force_closed() {
    let options = ForceClosureOptions::default();
    // Frictionless: three normals span only the plane forces (rank 2, no torque about the centre).
    let frictionless = on_sphere(0.05, &[(0.0, 0.0), (2.0 * PI / 3.0, 0.0), (4.0 * PI / 3.0, 0.0)], 0.0);
    let report = force_closure(&frictionless, &options).expect("runs");
    assert!(!report.force_closure && report.rank == 2, "{report:?}");
    // Two antipodal fingers with friction cannot resist torque about the line joining them (rank 5).
    let pinch = on_sphere(0.05, &[(0.0, 0.0), (PI, 0.0)], 0.8);
    let report = force_closure(&pinch, &options).expect("runs");
    assert!(!report.force_closure && report.rank == 5, "{report:?}");
    // A box standing on a table: rank 6 (friction and lever arms), but every primitive wrench pushes
    // up, so nothing cancels them and the box can be lifted: the least-squares residual stays large.
    let table: Vec<ContactPoint> = [(0.2, 0.1), (-0.2, 0.1), (-0.2, -0.1), (0.2, -0.1)]
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| ContactPoint::new(i, Vector3::new(x, y, 0.0), Vector3::z(), 0.6).expect("valid"))
        .collect();
    let report = force_closure(&table, &options).expect("runs");
    assert_eq!(report.rank, 6);
    assert!(!report.force_closure && report.combination_residual > 0.1, "{report:?}");
    // Six frictionless contacts can never positively span ℝ⁶ (that needs seven, §4.3.1).
    let six: Vec<ContactPoint> = (0..6)
        .map(|i| {
            let a = i as f64;
            let p = Vector3::new((a * 1.3).cos(), (a * 2.1).sin(), (a * 0.7).cos()) * 0.1;
            ContactPoint::new(
                i,
                p,
                Vector3::new((a * 0.9).sin(), (a * 1.7).cos(), -(a * 0.4).sin() - 0.3),
                0.0,
            )
            .expect("valid")
        })
        .collect();
    assert!(!force_closure(&six, &options).expect("runs").force_closure);
    assert_eq!(force_closure(&[], &options), Err(Error::Empty { what: "contact list" }));
}

fn foot(a: f64, b: f64) -> Vec<Vector3<f64>> {
    vec![
        Vector3::new(a, b, 0.0),
        Vector3::new(-a, b, 0.0),
        Vector3::new(a, -b, 0.0),
        Vector3::new(-a, -b, 0.0),
    ]
}

#[test]
fn centre_of_pressure_of_a_four_corner_foot() {
    // p_CoP = Σ f_zᵢpᵢ / Σ f_zᵢ: forces 10, 20, 30, 40 N at (±0.1, ±0.05) give
    // x = 0.1(10 − 20 + 30 − 40)/100 = −0.02, y = 0.05(10 + 20 − 30 − 40)/100 = −0.02.
    let corners = foot(0.1, 0.05);
    let forces: Vec<PointForce> = corners
        .iter()
        .zip([10.0, 20.0, 30.0, 40.0])
        .map(|(p, fz)| PointForce::new(*p, Vector3::new(1.0, -2.0, fz)))
        .collect();
    let cop = centre_of_pressure(&forces, &Plane::ground()).expect("pressing");
    assert!((cop - Vector3::new(-0.02, -0.02, 0.0)).norm() < 1e-15, "{cop}");
    // For forces applied on the floor the ZMP is the CoP, tangential components included.
    let z = zmp(&forces, &Plane::ground()).expect("pressing");
    assert!((z - cop).norm() < 1e-15, "{z} vs {cop}");
    let polygon = SupportPolygon::new(&corners, &Plane::ground()).expect("valid");
    assert!(polygon.contains(&cop));
    assert!((polygon.margin(&cop) - 0.03).abs() < 1e-15, "nearest edge y = −0.05");
    // Nothing pressing: an error, not a NaN.
    let lifted = [PointForce::new(Vector3::zeros(), Vector3::new(0.0, 0.0, -1.0))];
    assert!(matches!(
        centre_of_pressure(&lifted, &Plane::ground()),
        Err(Error::NoNormalForce { .. })
    ));
}

#[test]
fn zmp_of_the_cart_table_model() {
    // A point mass m at height z_c accelerating ẍ: the ground reaction is F = m(ẍ, 0, g) through the
    // mass, so its wrench about the origin is (F, c × F); Kajita's cart-table ZMP is x − z_c ẍ / g.
    let (m, g, zc) = (50.0, 9.81, 0.8);
    for (x, accel) in [(0.0, 1.0), (0.1, -2.0), (-0.05, 0.5)] {
        let c = Vector3::new(x, 0.02, zc);
        let force = Vector3::new(m * accel, 0.0, m * g);
        let wrench = Wrench::new(force, c.cross(&force));
        let p = zmp_from_wrench(&wrench, &Plane::ground()).expect("pressing");
        assert!((p.x - (x - zc * accel / g)).abs() < 1e-14, "{p}");
        assert!((p.y - 0.02).abs() < 1e-14 && p.z == 0.0);
    }
    // On a raised, tilted plane the ZMP lies on that plane.
    let plane = Plane::new(Vector3::new(0.0, 0.0, 0.1), Vector3::new(0.0, 0.1, 1.0)).expect("valid");
    let force = Vector3::new(3.0, 1.0, 100.0);
    let p = zmp_from_wrench(&Wrench::new(force, Vector3::new(0.2, 0.3, 0.0).cross(&force)), &plane).expect("pressing");
    assert!(plane.height(&p).abs() < 1e-15);
    let about_p = Wrench::new(force, Vector3::new(0.2, 0.3, 0.0).cross(&force)).about(&Vector3::zeros(), &p);
    assert!(
        plane.normal.cross(&about_p.torque).norm() < 1e-12,
        "no tangential moment about the ZMP"
    );
}

/// A 0.2 × 0.1 m foot (corners at (±a, ±b)) carrying F = 600 N with its centre of pressure at
/// (x_c, y_c): desired wrench about the foot centre (0, 0, F; F y_c, −F x_c, 0).
fn foot_wrench(force: f64, cop: (f64, f64)) -> Wrench {
    Wrench::new(
        Vector3::new(0.0, 0.0, force),
        Vector3::new(force * cop.1, -force * cop.0, 0.0),
    )
}

fn foot_contacts(a: f64, b: f64, mu: f64) -> Vec<ContactPoint> {
    foot(a, b)
        .iter()
        .enumerate()
        .map(|(i, p)| ContactPoint::new(i, *p, Vector3::z(), mu).expect("valid"))
        .collect()
}

#[test]
fn centred_load_is_shared_equally_and_needs_no_cone_iteration() {
    let contacts = foot_contacts(0.1, 0.05, 0.6);
    let desired = foot_wrench(600.0, (0.0, 0.0));
    let plain = min_norm_distribution(&contacts, &desired, &Vector3::zeros()).expect("solves");
    for f in &plain.forces {
        assert!((f - Vector3::new(0.0, 0.0, 150.0)).norm() < 1e-10, "{f}");
    }
    assert!(plain.all_inside() && plain.wrench_residual < 1e-10);
    let coned = min_norm_distribution_in_cones(
        &contacts,
        &desired,
        &Vector3::zeros(),
        &ConeDistributionOptions::default(),
    )
    .expect("solves");
    assert_eq!(coned.iterations, 0);
    assert!((coned.norm() - plain.norm()).abs() < 1e-9);
}

#[test]
fn off_centre_load_pseudo_inverse_pulls_but_the_cone_solution_lifts_a_corner() {
    // CoP at (0.8a, 0.8b). Pseudo-inverse: fᵢ = F/4 (1 + x_c xᵢ/a² + y_c yᵢ/b²), so the (−a, −b) corner
    // gets F/4 (1 − 1.6) = −0.15F: a pull, outside its cone. With the cones, that corner carries nothing
    // and the other three solve Σf = F, Σf x = F x_c, Σf y = F y_c: f(a,b) = 0.8F, f(−a,b) = f(a,−b) = 0.1F
    // (the multiplier of the active bound is 0.6F ≥ 0, so this is the optimum).
    let (a, b, force) = (0.1, 0.05, 600.0);
    let contacts = foot_contacts(a, b, 0.6);
    let desired = foot_wrench(force, (0.8 * a, 0.8 * b));
    let plain = min_norm_distribution(&contacts, &desired, &Vector3::zeros()).expect("solves");
    assert!((plain.forces[3].z + 0.15 * force).abs() < 1e-9, "{:?}", plain.forces);
    assert!(!plain.cone_checks[3].inside && !plain.all_inside());

    let coned = min_norm_distribution_in_cones(
        &contacts,
        &desired,
        &Vector3::zeros(),
        &ConeDistributionOptions::default(),
    )
    .expect("solves");
    let expected = [0.8 * force, 0.1 * force, 0.1 * force, 0.0];
    for (f, e) in coned.forces.iter().zip(expected) {
        assert!((f.z - e).abs() < 1e-6 && f.xy().norm() < 1e-6, "{f} vs {e}");
    }
    assert!(coned.all_inside() && coned.wrench_residual < 1e-7, "{coned:?}");
    // The pseudo-inverse is the smaller norm only because it ignores the cones.
    assert!(plain.norm() < coned.norm());
}

#[test]
fn sideways_push_within_and_beyond_friction() {
    let contacts = foot_contacts(0.1, 0.05, 0.5);
    let options = ConeDistributionOptions::default();
    // 200 N sideways on 600 N: each corner 50 N sideways, 150 N down: utilisation 2/3.
    let within = Wrench::new(Vector3::new(200.0, 0.0, 600.0), Vector3::zeros());
    let d = min_norm_distribution_in_cones(&contacts, &within, &Vector3::zeros(), &options).expect("solves");
    for (f, check) in d.forces.iter().zip(&d.cone_checks) {
        assert!((f - Vector3::new(50.0, 0.0, 150.0)).norm() < 1e-8, "{f}");
        assert!((check.utilisation - 2.0 / 3.0).abs() < 1e-10);
    }
    // 400 N sideways exceeds μF = 300 N: no distribution exists.
    let beyond = Wrench::new(Vector3::new(400.0, 0.0, 600.0), Vector3::zeros());
    let result = min_norm_distribution_in_cones(&contacts, &beyond, &Vector3::zeros(), &options);
    assert!(matches!(result, Err(Error::WrenchNotReached { .. })), "{result:?}");
    // The pseudo-inverse still answers, and its cone check says so.
    let plain = min_norm_distribution(&contacts, &beyond, &Vector3::zeros()).expect("solves");
    assert!(!plain.all_inside() && (plain.cone_checks[0].utilisation - 4.0 / 3.0).abs() < 1e-10);
}

#[test]
fn internal_forces_produce_no_wrench() {
    let contacts = foot_contacts(0.1, 0.05, 0.5);
    let projector = internal_force_projector(&contacts, &Vector3::zeros()).expect("solves");
    let f0 = DVector::from_fn(12, |i, _| (i as f64 * 1.7).sin() * 10.0);
    let internal = &projector * f0;
    let g = grasp_matrix(&contacts, &Vector3::zeros());
    assert!((g * &internal).norm() < 1e-10);
    assert!(internal.norm() > 1.0, "a non-trivial internal force");
}
