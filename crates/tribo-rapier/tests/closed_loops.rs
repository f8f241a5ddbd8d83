//! Closed kinematic loops (`extra_joints`) as rapier impulse joints: a parallelogram four-bar
//! linkage keeps its shape and swings with the period of its one degree of freedom.

use nalgebra::{Isometry3, Vector3};
use tribo_engine::{EngineFactory, EngineOptions, Scene};
use tribo_model::{ExtraJoint, ExtraJointKind, Geometry, JointKind};
use tribo_rapier::RapierFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;
/// Crank and rocker length (hinge to bob), and the coupler's length, which equals the distance
/// between the ground hinges: a parallelogram.
const L: f64 = 0.5;
const BAR: f64 = 0.6;
const BOB_MASS: f64 = 1.0;
const BOB_RADIUS: f64 = 0.02;
const COUPLER_MASS: f64 = 0.5;

/// Ground hinges at x = ∓BAR/2 (z = 2), crank and rocker hanging from them about y with their mass
/// at the far end, the coupler hinged at the crank's end and, with `closed`, pinned at its other
/// end to the rocker's end by a hinge extra joint. Starts at angle `q0` (a consistent pose).
fn four_bar(q0: f64, closed: bool) -> std::sync::Arc<Scene> {
    four_bar_at(q0, -q0, closed)
}

/// [`four_bar`] with the coupler's joint at `coupler_q` (−q0 closes the parallelogram).
fn four_bar_at(q0: f64, coupler_q: f64, closed: bool) -> std::sync::Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let base = fixed_base();
    let hanging = |name: &str, parent: usize, x: f64| {
        let mut l = link(
            name,
            Some(parent),
            joint(JointKind::Revolute, name, Vector3::y()),
            Isometry3::translation(x, 0.0, 0.0),
            BOB_MASS,
            "Thing",
        );
        l.center_of_mass = Vector3::new(0.0, 0.0, -L);
        l.inertia = Geometry::Sphere { radius: BOB_RADIUS }.solid_inertia(BOB_MASS);
        l
    };
    let crank = hanging("crank", 0, -BAR / 2.0);
    let rocker = hanging("rocker", 0, BAR / 2.0);
    let mut coupler = link(
        "coupler",
        Some(1),
        joint(JointKind::Revolute, "coupler", Vector3::y()),
        Isometry3::translation(0.0, 0.0, -L),
        COUPLER_MASS,
        "Thing",
    );
    coupler.center_of_mass = Vector3::new(BAR / 2.0, 0.0, 0.0);
    coupler.inertia = Geometry::Box {
        size: Vector3::new(BAR, 0.02, 0.02),
    }
    .solid_inertia(COUPLER_MASS);
    // Link order: base, crank, coupler (below the crank), rocker.
    let mut model = body("four_bar", vec![base, crank, coupler, rocker]);
    if closed {
        model.extra_joints.push(ExtraJoint {
            kind: ExtraJointKind::Hinge,
            links: ["coupler".to_string(), "rocker".to_string()],
            frames: [
                Isometry3::translation(BAR, 0.0, 0.0),
                Isometry3::translation(0.0, 0.0, -L),
            ],
            axis: Vector3::y(),
            location: tribo_yaml::Location::file("four_bar"),
        });
    }
    let mut placed = place("four_bar", model, Isometry3::translation(0.0, 0.0, 2.0), true, &table);
    placed.initial_positions = vec![0.0, q0, coupler_q, q0];
    scene(vec![placed], table)
}

/// The period of the parallelogram swinging with amplitude `q0`: crank and rocker turn together
/// by θ and the coupler translates with their ends, so the linkage is a physical pendulum of
/// kinetic energy (2 I_p + m_c L²) θ̇²/2 and potential energy −(2 m + m_c) g L cos θ (Lagrange),
/// I_p = I_bob + m L² each: T₀ = 2π √((2 I_p + m_c L²) / ((2 m + m_c) g L)), and at amplitude q0
/// T = T₀ (1 + q0²/16 + …) (Landau & Lifshitz, *Mechanics*, §11, problem 1).
fn period(q0: f64) -> f64 {
    let i_pivot = 0.4 * BOB_MASS * BOB_RADIUS * BOB_RADIUS + BOB_MASS * L * L;
    let inertia = 2.0 * i_pivot + COUPLER_MASS * L * L;
    let t0 = 2.0 * std::f64::consts::PI * (inertia / ((2.0 * BOB_MASS + COUPLER_MASS) * G * L)).sqrt();
    t0 * (1.0 + q0 * q0 / 16.0)
}

/// Largest |rocker − crank| angle and largest coupler tilt (rad) over `steps`, and the times
/// the crank crossed 0 going down.
fn swing(closed: bool, q0: f64, steps: usize) -> (f64, f64, Vec<f64>) {
    let scene = four_bar(q0, closed);
    let mut engine = engine(&RapierFactory, &scene);
    let (mut gap, mut tilt, mut crossings, mut previous, mut t) = (0.0f64, 0.0f64, Vec::new(), q0, 0.0);
    run(engine.as_mut(), &scene, DT, steps, |state| {
        t += DT;
        let b = &state.bodies[0];
        let (crank, rocker) = (b.joint_positions[1], b.joint_positions[3]);
        gap = gap.max((rocker - crank).abs());
        tilt = tilt.max(b.links[2].pose.rotation.angle());
        if previous > 0.0 && crank <= 0.0 {
            crossings.push(t - DT * crank / (crank - previous));
        }
        previous = crank;
    });
    (gap, tilt, crossings)
}

/// Tolerances: the closure holds to 1e-8 rad in practice (rapier corrects the drift every step);
/// 1e-6 rad leaves room. The period's next series term (11 q0⁴/3072 ≈ 2e-8 at q0 = 0.05) and the
/// time step's error (semi-implicit Euler, O(h²ω²) ≈ 2e-5 relative) are far below 1e-4.
const SHAPE_TOLERANCE: f64 = 1e-6;
const PERIOD_TOLERANCE: f64 = 1e-4;

#[test]
fn a_parallelogram_closed_by_an_extra_joint_keeps_its_shape_and_period() {
    let q0 = 0.05;
    let expected = period(q0);
    let steps = (4.0 * expected / DT) as usize;
    let (gap, tilt, crossings) = swing(true, q0, steps);
    eprintln!("closed: |rocker − crank| ≤ {gap:.2e} rad, coupler tilt ≤ {tilt:.2e} rad");
    assert!(gap < SHAPE_TOLERANCE, "the rocker follows the crank: {gap}");
    assert!(tilt < SHAPE_TOLERANCE, "the coupler stays level: {tilt}");
    assert!(crossings.len() >= 3, "{crossings:?}");
    let measured = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    eprintln!("period {measured:.5} s, expected {expected:.5} s");
    assert!(
        ((measured - expected) / expected).abs() < PERIOD_TOLERANCE,
        "period {measured} vs {expected}"
    );
}

#[test]
fn without_the_extra_joint_the_same_tree_falls_apart() {
    // The open tree is a double pendulum (crank and coupler) beside a simple one (rocker): its
    // coupler swings away from level at once, since its centre of mass hangs off its hinge.
    let q0 = 0.05;
    let (gap, tilt, _) = swing(false, q0, (2.0 * period(q0) / DT) as usize);
    eprintln!("open: |rocker − crank| ≤ {gap:.2e} rad, coupler tilt ≤ {tilt:.2e} rad");
    assert!(tilt > 0.5, "the free coupler falls: {tilt}");
    assert!(gap > 0.1, "the rocker swings on its own: {gap}");
}

#[test]
fn a_loop_that_starts_open_is_refused_with_its_opening() {
    // The coupler left level while crank and rocker turn by q0: its far end misses the rocker's
    // by BAR · 2 sin(q0/2) = 30.0 mm.
    let q0: f64 = 0.05;
    let opening_mm = BAR * 2.0 * (q0 / 2.0).sin() * 1e3;
    let scene = four_bar_at(q0, 0.0, true);
    let error = RapierFactory
        .build(&scene, &EngineOptions::none())
        .err()
        .expect("an open loop is refused");
    let text = error.to_string();
    assert!(
        text.contains(&format!(
            "the extra joint between links `coupler` and `rocker` (four_bar) is open by {opening_mm:.1} mm in the \
             initial pose (at most 1 mm)"
        )),
        "{text}"
    );
    assert!((opening_mm - 30.0).abs() < 0.05, "{opening_mm}");
}
