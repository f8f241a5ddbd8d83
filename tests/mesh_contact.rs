#![allow(clippy::panic)]
//! Meshes as collision geometry, against closed forms on the engines that collide with parry:
//! a regular octahedron read from a binary STL rests with a face down at r/√3; a cube read from an
//! OBJ file stays on an incline below the friction angle atan μ and slides ½ g (sin θ − μ cos θ) t²
//! above it; a body whose only shape is a mesh format tribo does not read says so in every run.

use tribo_tests::{expected, load, metric, run};

const ENGINES: [&str; 2] = ["rapier", "pgs"];

#[test]
fn an_octahedron_mesh_rests_on_a_face_at_r_over_root_3() {
    let project = load("tests/fixtures/mesh/mesh-drop.yaml", &[], &[]);
    let rest = 0.06 / 3f64.sqrt();
    for engine in ENGINES {
        let outcome = run(&project, engine);
        let z = outcome.trajectory.column("octahedron.z").expect("recorded z");
        let last = *z.last().expect("rows");
        // Within 1 mm: the engines' contact margins and penetration allowances are below that.
        assert!(
            (last - rest).abs() < 1e-3,
            "{engine}: rests at {last:.6} m, expected {rest:.6} m (error {:.2e} m)",
            last - rest
        );
        eprintln!("{engine}: rest height {last:.6} m, error {:+.2e} m", last - rest);
        assert!(
            outcome.warnings.iter().all(|w| !w.contains("no collision shape")),
            "{:?}",
            outcome.warnings
        );
    }
}

#[test]
fn a_cube_mesh_holds_below_the_friction_angle_and_slides_above_it() {
    let friction_angle = 0.5f64.atan().to_degrees(); // 26.57°
    for (angle, slides) in [(friction_angle - 4.0, false), (friction_angle + 4.0, true)] {
        let project = load(
            "tests/fixtures/mesh/mesh-incline.yaml",
            &[("angle_deg", &angle.to_string())],
            &[],
        );
        for engine in ENGINES {
            let outcome = run(&project, engine);
            let travel = metric(&outcome, "displacement");
            let closed_form = expected(&outcome, "displacement");
            eprintln!("{engine} at {angle:.2}°: travel {travel:.5} m, expected {closed_form:.5} m");
            if slides {
                assert!(closed_form > 0.1, "the case slides: {closed_form}");
                assert!(
                    (travel - closed_form).abs() < 0.05 * closed_form,
                    "{engine} at {angle:.2}°: slid {travel} m, expected {closed_form} m"
                );
            } else {
                assert!(
                    travel < 2e-3,
                    "{engine} at {angle:.2}°: slid {travel} m below the friction angle"
                );
            }
        }
    }
}

#[test]
fn a_body_without_collision_geometry_says_so_in_every_run() {
    let project = load("tests/fixtures/mesh/mesh-unsupported.yaml", &[], &[]);
    for engine in ENGINES {
        let outcome = run(&project, engine);
        let warning = outcome
            .warnings
            .iter()
            .find(|w| w.contains("Collada (.dae)"))
            .unwrap_or_else(|| panic!("{engine}: no warning in {:?}", outcome.warnings));
        assert!(
            warning.starts_with("body `ghost` link `Ghost`: ") && warning.contains("ghost.body:13:19"),
            "{warning}"
        );
        assert!(
            warning.ends_with("(it has no collision shape at all and passes through everything)"),
            "{warning}"
        );
        // And it does fall through the floor.
        let z = outcome.trajectory.column("ghost.z").expect("recorded z");
        assert!(*z.last().expect("rows") < -0.1, "{engine}: {z:?}");
    }
}
