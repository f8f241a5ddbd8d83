//! The `tribo` binary as a user runs it: outputs, exit statuses, error messages.

mod common;
use common::*;

const DEFAULT_TABLE: &str = "share/choreonoid/materials/default-materials.yaml";

#[test]
fn materials_pair_ground_ball_is_the_explicit_entry() {
    let o = tribo(&["materials", DEFAULT_TABLE, "--pair", "Ground", "Ball"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("Ground · Ball: static friction 0.5, dynamic friction 0.5, restitution 0.8 (explicit entry)"),
        "{text}"
    );
}

/// `--yaml` writes the merged table as a file that `tribo materials` reads back to the same
/// pairs (here the slippy Ground/Sole entry over the default table).
#[test]
fn materials_yaml_writes_a_table_that_reads_back_the_same() {
    let slippy = "share/choreonoid/materials/SlippyMaterialSet.yaml";
    let o = tribo(&["materials", DEFAULT_TABLE, slippy, "--yaml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = temp_dir("materials", "yaml");
    let written = dir.join("merged.yaml");
    std::fs::write(&written, stdout(&o)).expect("write");
    let written = written.to_str().expect("utf8");
    for (a, b) in [
        ("Ground", "Sole"),
        ("Ground", "Ball"),
        ("Ball", "Ball"),
        ("Tire", "Ground"),
    ] {
        let original = tribo(&["materials", DEFAULT_TABLE, slippy, "--pair", a, b, "--json"]);
        let again = tribo(&["materials", written, "--pair", a, b, "--json"]);
        let parse = |o: &std::process::Output| -> serde_json::Value { serde_json::from_str(&stdout(o)).expect("json") };
        let (x, y) = (parse(&original), parse(&again));
        for key in ["static_friction", "dynamic_friction", "restitution", "extras"] {
            assert_eq!(x[key], y[key], "{a}/{b} {key}");
        }
    }
    let o = tribo(&["materials", DEFAULT_TABLE, "--yaml", "--json"]);
    assert_eq!(o.status.code(), Some(2), "--yaml and --json exclude each other");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn materials_pair_ball_ball_is_the_fallback() {
    let o = tribo(&["materials", DEFAULT_TABLE, "--pair", "Ball", "Ball", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["static_friction"], 0.5);
    assert_eq!(v["dynamic_friction"], 0.5);
    assert!((v["restitution"].as_f64().expect("e") - 0.64).abs() < 1e-12);
    assert_eq!(v["source"]["kind"], "fallback");
}

#[test]
fn slippy_set_merged_over_the_default_drops_sole_friction() {
    let slippy = "share/choreonoid/materials/SlippyMaterialSet.yaml";
    let o = tribo(&["materials", DEFAULT_TABLE, slippy, "--pair", "Ground", "Sole", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["static_friction"], 0.01);
    assert_eq!(v["dynamic_friction"], 0.01);
}

#[test]
fn check_sr1_reports_links_joints_and_mass() {
    let o = tribo(&["check", "share/choreonoid/model/SR1.body", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["links"], 30);
    assert_eq!(v["joints"], 29);
    assert_eq!(v["joint_types"]["revolute"], 29);
    assert_eq!(v["total_mass_kg"], 130.8);
    insta::assert_json_snapshot!("sr1_check", v);
}

/// SR1's URDF summarises as its body file does: 30 links, 29 revolute joints, 130.8 kg.
#[test]
fn check_sr1_urdf_reports_the_same_robot_as_its_body_file() {
    let o = tribo(&["check", "share/choreonoid/model/SR1.urdf", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["links"], 30);
    assert_eq!(v["joints"], 29);
    assert_eq!(v["joint_types"]["revolute"], 29);
    let mass = v["total_mass_kg"].as_f64().expect("a mass");
    assert!((mass - 130.8).abs() < 1e-9, "{mass}");

    let dir = temp_dir("check", "urdf");
    let bad = dir.join("bad.urdf");
    std::fs::write(
        &bad,
        "<robot name=\"r\">\n  <link name=\"a\"/>\n  <link name=\"b\"/>\n  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"a\"/><child link=\"c\"/>\n  </joint>\n</robot>\n",
    )
    .expect("write");
    let o = tribo(&["check", bad.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("bad.urdf:4:3: joint names link `c`"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// SR1 as MuJoCo writes it (`SR1.xml`) summarises as its body file does; `check` lists its
/// geoms' friction and the material table that carries it; a project takes an MJCF body; a bad
/// MJCF file fails at its line and column.
#[test]
fn check_mjcf_reports_the_robot_its_friction_and_located_errors() {
    let o = tribo(&["check", "share/choreonoid/model/SR1.xml", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["links"], 30);
    assert_eq!(v["joint_types"]["revolute"], 29);
    assert_eq!(v["root_joint"], "free");
    let mass = v["total_mass_kg"].as_f64().expect("a mass");
    assert!((mass - 130.8).abs() < 1e-9, "{mass}");
    let report = v["notes"][0].as_str().expect("the friction report");
    assert!(
        report.contains("link `WAIST` (material mjcf_mu_1), geom `geom 1`: 1 0.005 0.0001"),
        "{report}"
    );
    assert!(
        report.contains("  - { materials: [mjcf_mu_1, mjcf_mu_1], friction: 1, restitution: 0 }"),
        "{report}"
    );

    let o = tribo(&["check", "crates/tribo-model/tests/mjcf/arm.xml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("arm.xml:18:11: link `slider` (material mjcf_mu_0_7), geom `tip`: 0.4 0.005 0.0001"),
        "{text}"
    );

    let dir = temp_dir("check", "mjcf");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("box.xml"),
        "<mujoco>\n  <worldbody>\n    <body name=\"box\" pos=\"0 0 0.1\">\n      <freejoint/>\n      <geom type=\"box\" size=\"0.1 0.1 0.1\" friction=\"0.5\"/>\n    </body>\n  </worldbody>\n</mujoco>\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("project.yaml"),
        "name: mjcf-box\nsimulation: { time_step: 0.001, duration: 0.1 }\nbodies:\n  - name: floor\n    model: ${SHARE}/model/floor.body\n    fixed: true\n    translation: [0, 0, -0.1]\n  - name: box\n    model: box.xml\n",
    )
    .expect("write");
    let project = dir.join("project.yaml");
    let o = tribo(&["check", project.to_str().expect("utf8")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("mjcf_mu_0_5"), "{}", stdout(&o));

    let bad = dir.join("bad.xml");
    std::fs::write(&bad, "<mujoco>\n  <worldbody>\n    <body>\n      <joint type=\"ball\"/>\n      <geom size=\"0.1\"/>\n    </body>\n  </worldbody>\n</mujoco>\n").expect("write");
    let o = tribo(&["check", bad.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("bad.xml:4:7: ball joint `body1` is not supported"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The documented path to MuJoCo's friction: `tribo check` on a project with MJCF bodies prints a
/// material table for them, the project lists it, and a box with `friction="0.5"` on a plane with
/// `friction="0.3"` slides down a 30° incline at ½ g (sin θ − μ cos θ) t² with μ = 0.5, the larger
/// of the two (within 2 %, the tolerance of the incline built in code on pgs).
#[test]
fn a_project_runs_mjcf_models_with_the_friction_table_check_prints() {
    let dir = temp_dir("run", "mjcf");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("write");
    write(
        "incline.xml",
        "<mujoco>\n  <worldbody>\n    <geom type=\"plane\" size=\"5 5 1\" friction=\"0.3\"/>\n  </worldbody>\n</mujoco>\n",
    );
    write(
        "box.xml",
        "<mujoco>\n  <worldbody>\n    <body name=\"box\">\n      <freejoint/>\n      <geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"1\" friction=\"0.5\"/>\n    </body>\n  </worldbody>\n</mujoco>\n",
    );
    let project = |materials: &str| {
        format!(
            "name: mjcf-incline\nsimulation: {{ time_step: 0.001, duration: 1.0 }}\n{materials}bodies:\n  - name: incline\n    model: incline.xml\n    fixed: true\n    rotation: [0, 1, 0, 30]\n  - name: box\n    model: box.xml\n    rotation: [0, 1, 0, 30]\n    translation: [0.1 * sin(rad(30)), 0, 0.1 * cos(rad(30))]\nmetrics:\n  - name: slide\n    kind: displacement\n    body: box\n    axis: norm\n    expected: 0.5 * g * (sin(rad(30)) - friction(mjcf_mu_0_3, mjcf_mu_0_5) * cos(rad(30)))\n    tolerance: 0.02\n"
        )
    };
    write("incline.yaml", &project(""));
    let path = dir.join("incline.yaml");
    let path = path.to_str().expect("utf8");
    let o = tribo(&["check", path, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let notes = v["notes"].as_array().expect("notes");
    let report = notes
        .iter()
        .filter_map(|n| n.as_str())
        .find(|n| n.starts_with("material table with MuJoCo's friction"))
        .expect("the friction table");
    let table = &report[report.find('\n').expect("a table below the title") + 1..];
    assert!(
        table.contains("materials: [mjcf_mu_0_3, mjcf_mu_0_5], friction: 0.5"),
        "{table}"
    );
    write("mjcf-friction.yaml", table);
    write("incline.yaml", &project("materials: [mjcf-friction.yaml]\n"));
    let o = tribo(&["run", path, "--engine", "pgs", "--json", "--strict"]);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let slide = &v["metrics"]["slide"];
    let expected = 0.5 * 9.81 * (30f64.to_radians().sin() - 0.5 * 30f64.to_radians().cos());
    assert!(
        (slide["expected"].as_f64().expect("expected") - expected).abs() < 1e-12,
        "{slide}"
    );
    let value = slide["value"].as_f64().expect("a value");
    eprintln!("MJCF box on a 30° MJCF incline, pgs: {value:.5} m in 1 s, expected {expected:.5} m");
    assert!((value / expected - 1.0).abs() < 0.02, "{value} vs {expected}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn invalid_input_is_located_with_exit_status_2() {
    let o = tribo(&["check", "tests/malformed-projects/unknown-metric-kind.yaml"]);
    assert_eq!(o.status.code(), Some(2));
    // The full list of known kinds is pinned by the project_errors snapshot; here the location,
    // the suggestion and the start of the list.
    let message = stderr(&o);
    assert!(
        message.trim().starts_with(
            "tests/malformed-projects/unknown-metric-kind.yaml:4:21: unknown metric kind `bounce_ration` \
             (did you mean `bounce_ratio`?); known kinds: bounce_ratio, apex_height, displacement,"
        ),
        "{message}"
    );
    let o = tribo(&["run", "samples/ball/ball.yaml", "--engine", "rapeir"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown engine `rapeir` (did you mean `rapier`?)"),
        "{}",
        stderr(&o)
    );
    let o = tribo(&["materials", "no-such-table.yaml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("no-such-table.yaml: cannot read file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn compare_json_has_the_documented_shape() {
    let o = tribo(&["compare", "samples/ball/ball.yaml", "--engines", "rapier", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["project"], "ball");
    let rapier = &v["engines"]["rapier"];
    let ratio = rapier["metrics"]["bounce_ratio"]["value"].as_f64().expect("value");
    assert!((ratio - 0.64).abs() < 0.03, "bounce ratio {ratio}");
    assert!(
        (rapier["metrics"]["bounce_ratio"]["expected"]
            .as_f64()
            .expect("expected")
            - 0.64)
            .abs()
            < 1e-12
    );
    assert!(rapier["steps_per_s"].as_f64().expect("speed") > 0.0);
    assert!(rapier["warnings"].is_array());
}

#[test]
fn compare_with_a_merged_table_follows_the_new_restitution() {
    let args = [
        "compare",
        "samples/ball/ball.yaml",
        "--engines",
        "rapier",
        "--materials",
        "samples/ball/half-restitution.yaml",
        "--json",
    ];
    let o = tribo(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let m = &v["engines"]["rapier"]["metrics"]["bounce_ratio"];
    assert!((m["expected"].as_f64().expect("expected") - 0.25).abs() < 1e-12);
    assert!((m["value"].as_f64().expect("value") - 0.25).abs() < 0.03, "{m}");
}

#[test]
fn compare_table_text() {
    let o = tribo(&["compare", "samples/slide/slide.yaml", "--engines", "rapier"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Steps per second depend on the machine: blank them out.
    let text: Vec<String> = stdout(&o)
        .lines()
        .map(|l| {
            if l.starts_with("steps/s") {
                "steps/s  <machine-dependent>".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    insta::assert_snapshot!("compare_slide", text.join("\n"));
}

#[test]
fn run_writes_identical_files_for_identical_runs() {
    let dir = std::env::temp_dir().join(format!("tribo-cli-test-{}", std::process::id()));
    let (a, b) = (dir.join("a"), dir.join("b"));
    for out in [&a, &b] {
        let o = tribo(&[
            "run",
            "samples/ball/ball.yaml",
            "--quiet",
            "--out",
            out.to_str().expect("path"),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let ta = std::fs::read(a.join("trajectory.csv")).expect("a");
    let tb = std::fs::read(b.join("trajectory.csv")).expect("b");
    assert!(ta.len() > 1000);
    assert!(ta == tb, "trajectory.csv differs between identical runs");
    let metrics: serde_json::Value =
        serde_json::from_slice(&std::fs::read(a.join("metrics.json")).expect("metrics")).expect("json");
    assert!(metrics["metrics"]["bounce_ratio"]["value"].is_number());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_of_a_body_runs_the_engines_validation_with_its_location() {
    let o = tribo(&["check", "tests/fixtures/hostile/massless-hand.body"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with("tests/fixtures/hostile/massless-hand.body:") && err.contains("mass 0"),
        "{err}"
    );
}

#[test]
fn a_closed_loop_runs_on_rapier_and_pgs_refuses_it_at_the_joint() {
    let body = "crates/tribo-model/tests/fixtures/extra_joints/four_bar.body";
    let o = tribo(&["check", body]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = format!("{}{}", stdout(&o), stderr(&o));
    assert!(said.contains("the `rapier` engine closes them"), "{said}");

    let dir = temp_dir("run", "closed-loop");
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(body);
    let project = dir.join("linkage.yaml");
    std::fs::write(
        &project,
        format!(
            "name: linkage\nsimulation: {{ time_step: 0.001, duration: 0.05, engines: [rapier] }}\n\
             bodies:\n  - {{ name: linkage, model: \"{}\" }}\n",
            model.display()
        ),
    )
    .expect("write the project");
    let project = project.to_str().expect("utf8");
    let out = dir.join("out");
    let out = out.to_str().expect("utf8");
    let o = tribo(&["run", project, "--engine", "rapier", "--out", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = tribo(&["run", project, "--engine", "pgs", "--out", out]);
    assert_ne!(o.status.code(), Some(0), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "four_bar.body:41:5: body `FourBar` closes a kinematic loop: the extra hinge joint between links \
                      `COUPLER` and `ROCKER`; the `pgs` engine has no loop-closure constraints"
        ),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn duplicate_keys_warn_with_both_lines() {
    let o = tribo(&["check", "tests/fixtures/hostile/duplicate-keys.yaml", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["duration_s"], 0.02, "the last `simulation` wins");
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("duplicate-keys.yaml:4:1: warning: duplicate key `simulation` overrides the one at line 3"),
        "{warnings}"
    );
}
