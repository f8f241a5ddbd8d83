//! The contact records are read out of rapier only when asked (`readout.rs`, `LazyReadout`):
//! asking late, rarely or twice gives exactly the records of asking after every step, and the step
//! report counts the records a read would give.

use nalgebra::{Isometry3, UnitQuaternion, Vector3};
use tribo_engine::{Engine, Scene};
use tribo_model::Geometry;
use tribo_rapier::RapierFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;
const STEPS: usize = 900;

/// Three tilted cubes dropped from different heights, one thrown sideways, on a floor with
/// restitution: contacts appear, bounce off, slide and settle over the run.
fn tumbling_cubes() -> std::sync::Arc<Scene> {
    let table = pair_table(0.6, 0.4, 0.3);
    let mut bodies = vec![ground(0.0, &table)];
    for i in 0..3 {
        let cube = solid(
            "cube",
            Geometry::Box {
                size: Vector3::repeat(0.1),
            },
            1.0,
            "Thing",
        );
        let x = 0.3 * i as f64;
        let tilt = UnitQuaternion::from_euler_angles(0.2 * i as f64, 0.1, 0.3);
        let pose = Isometry3::from_parts(Vector3::new(x, 0.0, 0.08 + 0.05 * i as f64).into(), tilt);
        let mut placed = place(&format!("cube{i}"), cube, pose, false, &table);
        placed.root_linear_velocity = Vector3::new(if i == 1 { 1.5 } else { 0.0 }, 0.0, 0.0);
        bodies.push(placed);
    }
    scene(bodies, table)
}

/// The records of the engine's last step, to the bit (`Debug` prints every f64 exactly).
fn exact(engine: &dyn Engine) -> String {
    format!("{:?}", engine.contacts())
}

#[test]
fn records_read_late_or_rarely_equal_records_read_every_step() {
    let scene = tumbling_cubes();
    let commands = idle(&scene);
    let mut every = engine(&RapierFactory, &scene);
    let mut rarely = engine(&RapierFactory, &scene);
    let (mut touching_steps, mut changes, mut last) = (0, 0, 0);
    for step in 1..=STEPS {
        let report = every.step(DT, &commands).expect("the step succeeds");
        let records = exact(every.as_ref());
        assert_eq!(
            report.contacts,
            every.contacts().len(),
            "step {step}: the report counts what a read gives"
        );
        // Asked twice: the same records (the first read does not change what the second sees).
        assert_eq!(exact(every.as_ref()), records, "step {step}: read twice");
        let counted = rarely.step(DT, &commands).expect("the step succeeds").contacts;
        assert_eq!(counted, report.contacts, "step {step}: same count whether or not read");
        if step % 7 == 0 {
            assert_eq!(exact(rarely.as_ref()), records, "step {step}: read only every 7th step");
        }
        touching_steps += usize::from(report.contacts > 0);
        changes += usize::from(report.contacts != last);
        last = report.contacts;
    }
    // The scene exercises what it is meant to: contacts on most steps, their number changing.
    assert!(touching_steps > STEPS / 2, "{touching_steps} steps with contacts");
    assert!(changes >= 6, "the contact count changed {changes} times");
    // The state never depended on reading: both engines end bit for bit in the same place.
    assert_eq!(format!("{:?}", every.state()), format!("{:?}", rarely.state()));
}

#[test]
fn no_contacts_before_the_first_step() {
    let scene = tumbling_cubes();
    let engine = engine(&RapierFactory, &scene);
    assert!(engine.contacts().is_empty());
}
