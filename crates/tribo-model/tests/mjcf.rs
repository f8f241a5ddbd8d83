//! MJCF import against analytic values: `tests/mjcf/arm.xml` (default classes from an included
//! file, Euler angles in degrees, a `fromto` capsule, a mesh geom, a slide joint) loads with the
//! masses density × volume gives, the positions and axes the file gives, and the friction its
//! geoms give; bad files fail at their line and column.

use std::f64::consts::PI;
use std::path::{Path, PathBuf};

use nalgebra::{Matrix3, Vector3};
use tribo_model::{load_mjcf_model, parse_mjcf, Geometry, JointKind};

/// Sums and products of a few decimals: rounding at most a few ulps of the largest term.
const TOLERANCE: f64 = 1e-14;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mjcf").join(name)
}

fn close(a: Vector3<f64>, b: Vector3<f64>) -> bool {
    (a - b).amax() < TOLERANCE
}

/// Inertia about the centre of a point mass's parallel-axis shift by `d`.
fn shifted(mass: f64, d: Vector3<f64>) -> Matrix3<f64> {
    (Matrix3::identity() * d.dot(&d) - d * d.transpose()) * mass
}

#[test]
fn the_arm_has_the_analytic_masses_positions_and_axes() {
    let model = load_mjcf_model(&fixture("arm.xml")).expect("arm.xml loads");
    let body = &model.body;
    assert_eq!(body.name, "arm");
    let names: Vec<&str> = body.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["base", "upper", "slider"]);
    let (base, upper, slider) = (&body.links[0], &body.links[1], &body.links[2]);

    // The one body of the world, without a joint: welded to the world where the file puts it.
    assert_eq!(base.joint.kind, JointKind::Fixed);
    assert!(close(base.offset.translation.vector, Vector3::new(0.0, 0.0, 0.5)));
    // Box 0.2 × 0.2 × 0.1 m at the class `heavy`'s 2000 kg/m³.
    assert!((base.mass - 0.004 * 2000.0).abs() < TOLERANCE);
    let base_inertia = Vector3::new(0.04 + 0.01, 0.04 + 0.01, 0.04 + 0.04) * (8.0 / 12.0);
    assert!((base.inertia - Matrix3::from_diagonal(&base_inertia)).amax() < TOLERANCE);
    assert_eq!(base.material, "mjcf_mu_0_9", "the main class's friction");

    // Hinge about the body's y, through pos (0, 0, 0.02): the link frame sits there, so the link
    // is 0.05 + 0.02 above the base, turned 90° about z (euler in degrees).
    assert_eq!(upper.joint.kind, JointKind::Revolute);
    assert_eq!((upper.joint.name.as_str(), upper.joint.id), ("shoulder", Some(0)));
    assert_eq!(upper.joint.axis, Vector3::y());
    assert!((upper.joint.range[0] + PI / 4.0).abs() < TOLERANCE && (upper.joint.range[1] - PI / 2.0).abs() < TOLERANCE);
    assert_eq!(upper.joint.armature, 0.01, "from the childclass `limb`");
    assert!(close(upper.offset.translation.vector, Vector3::new(0.0, 0.0, 0.07)));
    assert!(close(upper.offset.rotation * Vector3::x(), Vector3::y()));
    // The fromto capsule: radius 0.05, from z = 0 to 0.4 (cylinder 0.4 long, two hemispheres),
    // 500 kg/m³ from `limb`; centre at z = 0.2 in the body frame, 0.18 in the link frame.
    let (r, length, density) = (0.05_f64, 0.4_f64, 500.0);
    let (m_cylinder, m_spheres) = (density * PI * r * r * length, density * 4.0 / 3.0 * PI * r.powi(3));
    assert!((upper.mass - (m_cylinder + m_spheres)).abs() < TOLERANCE);
    assert!(
        close(upper.center_of_mass, Vector3::new(0.0, 0.0, 0.18)),
        "{}",
        upper.center_of_mass
    );
    let axial = m_cylinder * r * r / 2.0 + m_spheres * 2.0 / 5.0 * r * r;
    let transverse = m_cylinder * (r * r / 4.0 + length * length / 12.0)
        + m_spheres * (2.0 / 5.0 * r * r + length * length / 4.0 + 3.0 * length * r / 8.0);
    let capsule = Matrix3::from_diagonal(&Vector3::new(transverse, transverse, axial));
    assert!((upper.inertia - capsule).amax() < TOLERANCE, "{}", upper.inertia);
    let shape = &upper.shapes[0];
    assert!(
        matches!(shape.geometry, Geometry::Capsule { radius, height } if radius == r && (height - length).abs() < TOLERANCE)
    );
    assert!(
        close(shape.pose.rotation * Vector3::y(), Vector3::z()),
        "tribo's capsule axis y along MuJoCo's z"
    );
    assert!(close(shape.pose.translation.vector, Vector3::new(0.0, 0.0, 0.18)));
    assert_eq!(upper.material, "mjcf_mu_0_4");

    // Slide along the default axis z; the range is metres (no degree conversion).
    assert_eq!(slider.joint.kind, JointKind::Prismatic);
    assert_eq!((slider.joint.name.as_str(), slider.joint.id), ("extend", Some(1)));
    assert_eq!(slider.joint.axis, Vector3::z());
    assert_eq!(slider.joint.range, [0.0, 0.2]);
    assert!(close(slider.offset.translation.vector, Vector3::new(0.0, 0.0, 0.38)));
    // The mesh: a 0.1 m cube centred at (0.05, 0, 0) scaled 2 × 1 × 1 → 0.2 × 0.1 × 0.1 m centred
    // at (0.1, 0, 0), 500 kg/m³ → 1 kg; the tip sphere has mass 0.2 given.
    let (m_block, m_tip) = (0.002 * 500.0, 0.2);
    let (c_block, c_tip) = (Vector3::new(0.1, 0.0, 0.0), Vector3::new(0.0, 0.0, 0.1));
    let centre = (c_block * m_block + c_tip * m_tip) / (m_block + m_tip);
    assert!((slider.mass - 1.2).abs() < TOLERANCE);
    assert!(close(slider.center_of_mass, centre));
    let block = Matrix3::from_diagonal(&Vector3::new(0.01 + 0.01, 0.04 + 0.01, 0.04 + 0.01)) * (m_block / 12.0);
    let tip = Matrix3::identity() * (2.0 / 5.0 * m_tip * 0.03 * 0.03);
    let expected = block + shifted(m_block, c_block - centre) + tip + shifted(m_tip, c_tip - centre);
    assert!(
        (slider.inertia - expected).amax() < TOLERANCE,
        "{}\n{expected}",
        slider.inertia
    );
    assert!(matches!(slider.shapes[0].geometry, Geometry::Mesh(_)));
    assert!(matches!(slider.shapes[1].geometry, Geometry::Sphere { radius } if radius == 0.03));
    assert_eq!(slider.material, "mjcf_mu_0_7", "the first colliding geom's friction");
    assert!(
        body.notes
            .iter()
            .any(|n| n.message.contains("geom `tip` has friction 0.4")),
        "{:?}",
        body.notes
    );

    // Every geom's friction, MuJoCo's defaults filling the torsional and rolling values.
    let listed: Vec<(&str, &str, [f64; 3])> = model
        .frictions
        .iter()
        .map(|f| (f.link.as_str(), f.geom.as_str(), f.friction))
        .collect();
    assert_eq!(
        listed,
        [
            ("base", "geom 1", [0.9, 0.005, 0.0001]),
            ("upper", "bone", [0.4, 0.005, 0.0001]),
            ("slider", "block", [0.7, 0.005, 0.0001]),
            ("slider", "tip", [0.4, 0.005, 0.0001]),
        ]
    );
    assert_eq!(model.frictions[3].location.line, 18);
}

#[test]
fn the_friction_table_combines_pairs_by_the_larger_value() {
    let model = load_mjcf_model(&fixture("arm.xml")).expect("arm.xml loads");
    let table = model.friction_table();
    for line in [
        "  - { name: mjcf_mu_0_4, roughness: 0.4 }",
        "  - { materials: [mjcf_mu_0_4, mjcf_mu_0_4], friction: 0.4, restitution: 0 }",
        "  - { materials: [mjcf_mu_0_4, mjcf_mu_0_9], friction: 0.9, restitution: 0 }",
        "  - { materials: [mjcf_mu_0_7, mjcf_mu_0_9], friction: 0.9, restitution: 0 }",
    ] {
        assert!(table.lines().any(|l| l == line), "{line} not in\n{table}");
    }
    assert_eq!(table.matches("materials: [").count(), 6, "three materials, six pairs");
}

const ONE_BOX: &str = r#"<mujoco>
  <worldbody>
    <body name="box" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
</mujoco>"#;

#[test]
fn orientations_follow_the_compiler_settings() {
    let rotated = |attributes: &str, compiler: &str| {
        let text = ONE_BOX
            .replace("<mujoco>", &format!("<mujoco><compiler {compiler}/>"))
            .replace("pos=\"0 0 1\"", &format!("pos=\"0 0 1\" {attributes}"));
        let body = parse_mjcf(&text, "box.xml").expect(attributes);
        body.root().offset.rotation
    };
    let quarter_z = nalgebra::UnitQuaternion::from_axis_angle(&Vector3::z_axis(), PI / 2.0);
    for (attributes, compiler) in [
        ("euler=\"0 0 90\"", "angle=\"degree\""),
        ("euler=\"0 0 1.5707963267948966\"", "angle=\"radian\""),
        ("axisangle=\"0 0 2 90\"", ""),
        ("quat=\"1 0 0 1\"", ""),
        ("xyaxes=\"0 1 0 -1 0.5 0\"", ""),
    ] {
        let q = rotated(attributes, compiler);
        assert!(q.angle_to(&quarter_z) < 1e-15, "{attributes} {compiler}: {q:?}");
    }
    // zaxis: the smallest rotation taking z onto x is a quarter turn about y.
    let q = rotated("zaxis=\"1 0 0\"", "");
    assert!((q * Vector3::z() - Vector3::x()).norm() < 1e-15);
    assert!((q * Vector3::y() - Vector3::y()).norm() < 1e-15);
    // eulerseq: `XYZ` turns about the fixed axes, `xyz` about the moving ones (the same
    // rotations composed in the opposite order).
    let fixed_axes = rotated("euler=\"90 90 0\"", "eulerseq=\"XYZ\"");
    let moving_axes = rotated("euler=\"90 90 0\"", "eulerseq=\"xyz\"");
    let (x, y) = (
        nalgebra::UnitQuaternion::from_axis_angle(&Vector3::x_axis(), PI / 2.0),
        nalgebra::UnitQuaternion::from_axis_angle(&Vector3::y_axis(), PI / 2.0),
    );
    assert!(fixed_axes.angle_to(&(y * x)) < 1e-15);
    assert!(moving_axes.angle_to(&(x * y)) < 1e-15);
}

#[test]
fn inertia_from_geoms_follows_inertiafromgeom() {
    let with_inertial = ONE_BOX.replace(
        "<freejoint/>",
        "<freejoint/><inertial pos=\"0 0 0\" mass=\"3\" diaginertia=\"0.1 0.2 0.3\"/>",
    );
    let body = parse_mjcf(&with_inertial, "box.xml").expect("loads");
    assert_eq!(body.root().mass, 3.0, "auto: the inertial wins");
    let always = with_inertial.replace("<mujoco>", "<mujoco><compiler inertiafromgeom=\"true\"/>");
    let body = parse_mjcf(&always, "box.xml").expect("loads");
    assert!((body.root().mass - 8.0).abs() < TOLERANCE, "true: 0.2³ m³ × 1000 kg/m³");
    let body = parse_mjcf(ONE_BOX, "box.xml").expect("loads");
    assert_eq!(body.root().joint.kind, JointKind::Free);
    assert!(
        (body.root().mass - 8.0).abs() < TOLERANCE,
        "auto without inertial: from the geom"
    );
}

/// `(line, column, message)` of the error `text` gives.
fn error(text: &str) -> (usize, usize, String) {
    let e = parse_mjcf(text, "bad.xml").expect_err("an error");
    assert_eq!(&*e.location.file, "bad.xml");
    (e.location.line, e.location.col, e.message)
}

#[test]
fn errors_name_the_line_and_column_and_the_closest_name() {
    let (line, col, message) = error(&ONE_BOX.replace("<geom type=\"box\"", "<geom class=\"hevy\" type=\"box\""));
    assert_eq!((line, col), (5, 20), "{message}");
    assert!(message.contains("no default class `hevy`"), "{message}");
    let (line, _, message) = error(
        &ONE_BOX
            .replace("<mujoco>", "<mujoco><default><default class=\"heavy\"/></default>")
            .replace("<geom type=\"box\"", "<geom class=\"hevy\" type=\"box\""),
    );
    assert_eq!(line, 5);
    assert!(message.contains("did you mean `heavy`"), "{message}");

    let (line, col, message) = error(
        &ONE_BOX
            .replace("<mujoco>", "<mujoco><asset><mesh file=\"block.obj\"/></asset>")
            .replace("type=\"box\" size=\"0.1 0.1 0.1\"", "type=\"mesh\" mesh=\"blok\""),
    );
    assert_eq!((line, col), (5, 31), "{message}");
    assert!(
        message.contains("no mesh asset `blok` (did you mean `block`?)"),
        "{message}"
    );

    let (line, col, message) = error(&ONE_BOX.replace("<freejoint/>", "<joint name=\"neck\" type=\"ball\"/>"));
    assert_eq!((line, col), (4, 7), "{message}");
    assert!(message.contains("ball joint `neck` is not supported"), "{message}");

    let (line, _, message) = error(&ONE_BOX.replace(
        "<geom type=\"box\" size=\"0.1 0.1 0.1\"/>",
        "<geom type=\"box\" size=\"0.1 0.1 0.1\"/><body><freejoint/><geom size=\"0.1\"/></body>",
    ));
    assert_eq!(line, 5);
    assert!(message.contains("only tribo's root link floats"), "{message}");

    let (line, col, message) = error(&ONE_BOX.replace("size=\"0.1 0.1 0.1\"", "size=\"0.1 0.1x 0.1\""));
    assert_eq!((line, col), (5, 30), "{message}");
    assert!(message.contains("`0.1x` is not a finite number"), "{message}");

    let (line, col, message) = error(&ONE_BOX.replace("type=\"box\"", "type=\"boxx\""));
    assert_eq!((line, col), (5, 19), "{message}");
    assert!(message.contains("did you mean `box`"), "{message}");

    let (line, col, message) = error(&ONE_BOX.replace("<freejoint/>", "<freejoint/><frame/>"));
    assert_eq!((line, col), (4, 19), "{message}");
    assert!(message.contains("<frame> in <body> is not supported"), "{message}");

    let (line, col, message) = error(&ONE_BOX.replace("size=\"0.1 0.1 0.1\"", "size=\"0.1 0.1 0.1\" frictoin=\"0.5\""));
    assert_eq!((line, col), (5, 43), "{message}");
    assert!(
        message.contains("<geom> has no attribute `frictoin` (did you mean `friction`?)"),
        "{message}"
    );

    let (line, col, message) = error(&ONE_BOX.replace("<freejoint/>", "<freejoint/><joint type=\"hinge\"/>"));
    assert_eq!((line, col), (4, 19), "{message}");
    assert!(message.contains("body `box` has 2 joints"), "{message}");

    let (line, col, message) = error(&ONE_BOX.replace("worldbody>", "worldbdy>"));
    assert_eq!((line, col), (2, 3), "{message}");
    assert!(
        message.contains("<worldbdy> is not an MJCF section (did you mean `worldbody`?)"),
        "{message}"
    );

    let (line, _, message) = error("<mujoco><worldbody><body></worldbody></mujoco>");
    assert_eq!(line, 1);
    assert!(message.contains("not well-formed XML"), "{message}");

    let (line, col, message) = error("<robot name=\"r\"/>");
    assert_eq!((line, col), (1, 1));
    assert!(message.contains("not an MJCF model"), "{message}");

    let (line, col, message) = error(&ONE_BOX.replace("<mujoco>", "<mujoco><include file=\"missing.xml\"/>"));
    assert_eq!((line, col), (1, 24), "{message}");
    assert!(message.contains("cannot read included file"), "{message}");
}

#[test]
fn what_tribo_does_not_simulate_is_noted() {
    let text = ONE_BOX
        .replace("<mujoco>", "<mujoco><option timestep=\"0.002\"/>")
        .replace(
            "size=\"0.1 0.1 0.1\"",
            "size=\"0.1 0.1 0.1\" solref=\"0.02 1\" condim=\"4\" contype=\"2\"",
        )
        .replace(
            "</worldbody>",
            "<geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/></worldbody>",
        );
    let body = parse_mjcf(&text, "box.xml").expect("loads");
    let notes: Vec<String> = body.notes.iter().map(ToString::to_string).collect();
    for expected in [
        "box.xml:1:9: warning: <option> is not used",
        "warning: geom `floor` of the world is not part of the model",
        "warning: geom condim, solref are not used",
        "warning: geom `geom 1`: contype=\"2\" conaffinity=\"1\" is not honoured",
    ] {
        assert!(
            notes.iter().any(|n| n.contains(expected)),
            "{expected} not in {notes:#?}"
        );
    }
}

#[test]
fn the_world_is_a_root_link_when_its_bodies_do_not_float() {
    // A body of the world on a hinge, beside a world geom: the root is `world`, welded, with the
    // plane (a 1 m slab under z = 0) and the hinged body below it.
    let text = r#"<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 3 0.1"/>
    <body name="door" pos="1 0 0">
      <joint name="hinge" axis="0 0 1" range="-90 90"/>
      <geom type="ellipsoid" size="0.1 0.2 0.3" mass="2"/>
    </body>
  </worldbody>
</mujoco>"#;
    let body = parse_mjcf(text, "door.xml").expect("loads");
    let names: Vec<&str> = body.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["world", "door"]);
    let (world, door) = (&body.links[0], &body.links[1]);
    assert_eq!(world.joint.kind, JointKind::Fixed);
    assert!(matches!(world.shapes[0].geometry, Geometry::Box { size } if size == Vector3::new(4.0, 6.0, 1.0)));
    assert!(close(
        world.shapes[0].pose.translation.vector,
        Vector3::new(0.0, 0.0, -0.5)
    ));
    assert_eq!((door.joint.kind, door.joint.id), (JointKind::Revolute, Some(0)));
    // The ellipsoid: m/5 (b² + c², a² + c², a² + b²), and no collision shape, with a note.
    let expected = Vector3::new(0.04 + 0.09, 0.01 + 0.09, 0.01 + 0.04) * (2.0 / 5.0);
    assert!((door.inertia - Matrix3::from_diagonal(&expected)).amax() < TOLERANCE);
    assert!(door.shapes.is_empty());
    assert!(door.uncollided[0].message.contains("tribo has no ellipsoid shape"));

    // A plane on the moving body is refused, as MuJoCo refuses it.
    let moving_plane = text.replace("mass=\"2\"/>", "mass=\"2\"/><geom type=\"plane\" size=\"1 1 1\"/>");
    let e = parse_mjcf(&moving_plane, "door.xml").expect_err("a plane that moves");
    assert_eq!(e.location.line, 6, "{e}");
    assert!(e.message.contains("MuJoCo allows planes only on the world"), "{e}");
}

#[test]
fn a_deeply_nested_file_is_refused_not_a_stack_overflow() {
    let depth = 10_000;
    let text = format!(
        "<mujoco><worldbody>{}{}</worldbody></mujoco>",
        "<body><joint/><geom size=\"0.1\"/>".repeat(depth),
        "</body>".repeat(depth)
    );
    let e = parse_mjcf(&text, "deep.xml").expect_err("too deep");
    // Up to the limit, a chain loads (in a test thread's stack).
    let chain = |n: usize| {
        format!(
            "<mujoco><worldbody>{}{}</worldbody></mujoco>",
            "<body><joint/><geom size=\"0.1\"/>".repeat(n),
            "</body>".repeat(n)
        )
    };
    let body = parse_mjcf(&chain(252), "chain.xml").expect("252 bodies deep");
    assert_eq!((body.links.len(), body.num_actuated_joints()), (253, 252));
    assert!(e.message.contains("elements nest deeper than 256 levels"), "{e}");
    assert_eq!(e.location.line, 1);
}

#[test]
fn a_joint_ref_is_the_position_at_which_the_body_has_its_file_pose() {
    // Hinge about z with ref 90°: at q = ref the body has the file's pose, so at q = 0 it is turned
    // back by 90°; the joint starts at ref. A slide along x with ref 0.3 likewise moves back 0.3 m.
    let hinge = parse_mjcf(
        &ONE_BOX.replace("<freejoint/>", "<joint axis=\"0 0 1\" ref=\"90\"/>"),
        "box.xml",
    )
    .expect("loads");
    let door = &hinge.links[1];
    assert!((door.joint.initial_position - PI / 2.0).abs() < TOLERANCE);
    assert!(close(door.offset.rotation * Vector3::x(), -Vector3::y()));
    let slide = parse_mjcf(
        &ONE_BOX.replace("<freejoint/>", "<joint type=\"slide\" axis=\"1 0 0\" ref=\"0.3\"/>"),
        "box.xml",
    )
    .expect("loads");
    let drawer = &slide.links[1];
    assert_eq!(drawer.joint.initial_position, 0.3);
    assert!(close(drawer.offset.translation.vector, Vector3::new(-0.3, 0.0, 1.0)));
}
