//! Compliant contact points supplied by an extension, on every contact host (`tribo::hosts`): the
//! step solves them implicitly, so a stiff spring whose force the extension recomputes each step
//! (explicit in the extension, implicit in the host) is stable where a purely explicit force
//! would diverge, settles at the analytic static deflection and its force goes equal and
//! opposite to both links.

use nalgebra::{Isometry3, Translation3, Vector3};
use tribo_engine::{CompliantPoint, EngineOptions, HostFactory, HostedContacts, LinkRef};
use tribo_model::Geometry;
use tribo_testkit::*;

const DT: f64 = 1e-3;
const MASS: f64 = 0.2;
/// ω = √(k/m) = 3162 rad/s: ω h = 3.2 > 2, beyond symplectic Euler's stability limit.
const STIFFNESS: f64 = 2.0e6;

#[test]
fn a_stiff_spring_point_settles_at_m_g_over_k_and_is_balanced() {
    for host in tribo::hosts() {
        settles_at_m_g_over_k(host.as_ref());
    }
}

fn settles_at_m_g_over_k(host: &dyn HostFactory) {
    let name = host.host_name();
    let table = pair_table(0.5, 0.5, 0.0);
    let cube = solid(
        "cube",
        Geometry::Box {
            size: Vector3::new(0.05, 0.05, 0.05),
        },
        MASS,
        "Thing",
    );
    // The cube's bottom face starts 1 mm above the floor (rest length of the spring: contact at 0).
    let start = Isometry3::from_parts(Translation3::new(0.0, 0.0, 0.026), Default::default());
    let scene = scene(
        vec![ground(0.0, &table), place("cube", cube, start, false, &table)],
        table,
    );
    let mut engine = host
        .build_host(&scene, &EngineOptions::none())
        .expect("the host builds");
    let (floor, cube) = (LinkRef { body: 0, link: 0 }, LinkRef { body: 1, link: 0 });
    engine.exclude_pairs(&[(floor, cube)]);
    let mut applied = Vector3::zeros();
    let commands = idle(&scene);
    let mut max_speed: f64 = 0.0;
    for _ in 0..3000 {
        let z = root_position(engine.state(), 1).z;
        let depth = (0.025 - z).max(0.0);
        let force = Vector3::z() * STIFFNESS * depth;
        let point = CompliantPoint {
            a: floor,
            b: cube,
            point: Vector3::new(0.0, 0.0, z - 0.025),
            normal: Vector3::z(),
            force,
            normal_stiffness: STIFFNESS,
            tangential_stiffness: STIFFNESS,
            damping: 0.0,
            friction: 0.5,
        };
        let hosted = HostedContacts {
            points: vec![point],
            wrenches: Vec::new(),
        };
        let stepped = engine.step_with(DT, &commands, &hosted).expect("the step succeeds");
        max_speed = max_speed.max(engine.state().bodies[1].links[0].linear_velocity.norm());
        assert_eq!(stepped.point_forces.len(), 1, "{name}");
        applied = stepped.point_forces[0];
    }
    let z = root_position(engine.state(), 1).z;
    let deflection = 0.025 - z;
    let expected = MASS * G / STIFFNESS;
    // Static equilibrium: k δ = m g (to 0.1 %).
    assert!(
        (deflection - expected).abs() < 1e-3 * expected,
        "{name}: deflection {deflection:e} m, expected {expected:e} m"
    );
    // The applied force is the spring's (the implicit increment vanishes at rest): m g to 0.1 %.
    assert!(
        (applied.z - MASS * G).abs() < 1e-3 * MASS * G,
        "{name}: force {applied}"
    );
    assert!(
        max_speed < 0.5,
        "{name}: the fall of 1 mm stays gentle (max speed {max_speed} m/s)"
    );
    // No rigid contact was detected between the excluded pair.
    assert!(engine.contacts().is_empty(), "{name}: {:?}", engine.contacts());
}

/// The extension's wrenches merged into the commands, into storage kept from an earlier step
/// (more bodies listed, other wrenches and joint commands), equal the merge into fresh commands:
/// bodies the commands do not list are idle, every listed body is copied, and each wrench lands
/// on its link's body.
#[test]
fn commands_merged_into_kept_storage_equal_a_fresh_merge() {
    use tribo_engine::{Commands, HostWrench, JointCommand};
    let scene = box_above_ground(0.0, 0.5);
    let wrench = |body: usize, x: f64| HostWrench {
        link: LinkRef { body, link: 0 },
        force: Vector3::new(x, 0.0, 0.0),
        torque: Vector3::new(0.0, 0.0, -x),
    };
    let extension = HostedContacts {
        points: Vec::new(),
        wrenches: vec![wrench(1, 2.0), wrench(0, -1.0), wrench(1, 0.5)],
    };
    let earlier = HostedContacts {
        points: Vec::new(),
        wrenches: vec![wrench(0, 7.0), wrench(2, 3.0)],
    };
    let mut busy = idle(&scene);
    busy.bodies.push(busy.bodies[1].clone());
    for body in &mut busy.bodies {
        body.joints.iter_mut().for_each(|j| *j = JointCommand::Effort(4.0));
    }
    let mut kept = Commands::default();
    earlier.merge_commands_into(&busy, &scene, &mut kept);
    // Only the box listed: the ground (body 0) is idle in the merge.
    let given = Commands {
        bodies: vec![idle(&scene).bodies[0].clone()],
    };
    let mut only_first = given.clone();
    only_first.bodies[0]
        .joints
        .iter_mut()
        .for_each(|j| *j = JointCommand::Effort(1.0));
    for commands in [idle(&scene), busy.clone(), only_first] {
        extension.merge_commands_into(&commands, &scene, &mut kept);
        assert_eq!(kept, extension.merged_commands(&commands, &scene));
        assert_eq!(kept.bodies.len(), commands.bodies.len().max(scene.bodies.len()));
    }
    // A body the commands do not list is idle, with one joint command per link.
    let partial = extension.merged_commands(&given, &scene);
    assert_eq!(partial.bodies[1].joints.len(), scene.bodies[1].model.links.len());
    assert!(partial.bodies[1].joints.iter().all(|j| *j == JointCommand::None));
    let fresh = extension.merged_commands(&idle(&scene), &scene);
    assert_eq!(fresh.bodies[1].link_wrenches.len(), 2);
    assert_eq!(fresh.bodies[0].link_wrenches.len(), 1);
}
