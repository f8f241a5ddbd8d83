#![allow(clippy::panic)]
//! The metric probes on hand-built state sequences with analytic answers: the apexes of a ball
//! bouncing on parabolas, the displacement of a constant-velocity slide, the energy a falling and
//! bouncing mass loses, the slip of standing feet. Each probe is built from its `MetricSpec`
//! through [`metrics::probe`], as a run builds it, and fed states as an engine would report them.

use std::sync::Arc;

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_material::MaterialId;
use tribo_model::Geometry;
use tribo_runner::metrics::{self, MetricProbe};
use tribo_runner::{BodyState, ContactRecord, LazyContacts, LinkState, MetricValue, Scene, SceneState};
use tribo_scene::{Axis, LinkRef, MetricKind, MetricSpec, Window};
use tribo_testkit::{ground, pair_table, place, scene, solid, G};

const DT: f64 = 1e-3;
const GROUND: usize = 0;
const BALL: LinkRef = LinkRef { body: 1, link: 0 };
const RADIUS: f64 = 0.1;
const MASS: f64 = 2.0;

/// Ground (body 0) and `n` free balls of radius 0.1 m and 2 kg (bodies 1..=n).
fn balls(n: usize) -> Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.5);
    let mut bodies = vec![ground(0.0, &table)];
    for i in 0..n {
        let name = format!("ball{i}");
        let model = solid(&name, Geometry::Sphere { radius: RADIUS }, MASS, "Thing");
        bodies.push(place(&name, model, Isometry3::identity(), false, &table));
    }
    scene(bodies, table)
}

fn link(position: Vector3<f64>, velocity: Vector3<f64>) -> LinkState {
    LinkState {
        pose: Isometry3::from(Translation3::from(position)),
        linear_velocity: velocity,
        angular_velocity: Vector3::zeros(),
    }
}

/// A state with the ground at rest and one link state per ball.
fn state(balls: &[LinkState]) -> SceneState {
    let body = |l: LinkState| BodyState {
        links: vec![l],
        joint_positions: vec![0.0],
        joint_velocities: vec![0.0],
        joint_efforts: vec![0.0],
    };
    SceneState {
        bodies: std::iter::once(LinkState::default())
            .chain(balls.iter().copied())
            .map(body)
            .collect(),
    }
}

fn spec(kind: MetricKind) -> MetricSpec {
    MetricSpec {
        name: "probe".into(),
        kind,
        expected: None,
        tolerance: None,
        unit: String::new(),
    }
}

fn whole_run() -> Window {
    Window {
        start: 0.0,
        end: f64::INFINITY,
    }
}

fn number(value: MetricValue) -> f64 {
    match value {
        MetricValue::Number(x) => x,
        other => panic!("not a number: {other:?}"),
    }
}

/// A ball dropped from `drop` m above its rest height (origin at `RADIUS` when resting), bouncing
/// with restitution `e`: after each impact it leaves the floor at `e` times the impact speed.
/// Sampled every `DT` from rest at the top for `bounces` impacts and one flight after the last.
/// Returns `(t, height of the origin, vertical velocity)`.
fn bouncing(drop: f64, e: f64, bounces: usize) -> Vec<(f64, f64, f64)> {
    let mut samples = Vec::new();
    let (mut t0, mut speed) = (0.0, 0.0); // launch time and upward speed of the current flight
    let mut height = drop; // launch height above rest
    let mut t = 0.0;
    for flight in 0..=bounces {
        // z(τ) = height + speed τ − ½ g τ², until it is back at 0.
        let duration = (speed + (speed * speed + 2.0 * G * height).sqrt()) / G;
        while t - t0 < duration {
            let tau = t - t0;
            samples.push((t, RADIUS + height + speed * tau - 0.5 * G * tau * tau, speed - G * tau));
            t = ((t / DT).round() + 1.0) * DT;
        }
        let impact = G * duration - speed;
        if flight < bounces {
            t0 += duration;
            speed = e * impact;
            height = 0.0;
        }
    }
    samples
}

fn feed(probe: &mut dyn MetricProbe, scene: &Scene, samples: &[(f64, f64, f64)]) {
    for &(t, z, vz) in samples {
        let s = state(&[link(Vector3::new(0.0, 0.0, z), Vector3::new(0.0, 0.0, vz))]);
        probe.observe(t, scene, &s, LazyContacts::NONE);
    }
}

/// The highest sample of a parabola sampled every `DT` lies within `g DT² / 8` of its apex.
const SAMPLED_APEX: f64 = G * DT * DT / 8.0 + 1e-12;

#[test]
fn apex_heights_are_the_parabolas_tops() {
    let scene = balls(1);
    let (drop, e) = (1.0, 0.8);
    let samples = bouncing(drop, e, 3);
    for (index, expected) in [(1, e * e * drop), (2, e.powi(4) * drop), (3, e.powi(6) * drop)] {
        let mut probe = metrics::probe(&spec(MetricKind::ApexHeight {
            link: BALL,
            rest_height: RADIUS,
            index,
        }));
        feed(probe.as_mut(), &scene, &samples);
        let apex = number(probe.finish());
        assert!(
            apex <= expected + 1e-12 && expected - apex <= SAMPLED_APEX,
            "apex {index}: {apex} m, analytic {expected} m"
        );
    }
    // Three impacts, three apexes: there is no fourth.
    let mut probe = metrics::probe(&spec(MetricKind::ApexHeight {
        link: BALL,
        rest_height: RADIUS,
        index: 4,
    }));
    feed(probe.as_mut(), &scene, &samples);
    assert!(
        matches!(probe.finish(), MetricValue::Missing(why) if why.contains("only 3 apexes")),
        "a fourth apex"
    );
}

#[test]
fn bounce_ratio_is_restitution_squared_above_the_minimum_height() {
    let scene = balls(1);
    let (drop, e) = (0.5, 0.7);
    let samples = bouncing(drop, e, 4);
    let ratio = |min_height: f64, bounces: usize| {
        let mut probe = metrics::probe(&spec(MetricKind::BounceRatio {
            link: BALL,
            rest_height: RADIUS,
            min_height,
            bounces,
        }));
        feed(probe.as_mut(), &scene, &samples);
        probe.finish()
    };
    // Each apex is e² of the one before (up to the sampling of the apexes, relative ≤ 1e-4 here).
    let measured = number(ratio(0.01, 3));
    assert!((measured - e * e).abs() < 1e-4, "ratio {measured}, analytic {}", e * e);
    // Apexes below the minimum height end the series: h1 = 0.245 m stays, h2 = 0.12 m does not.
    let first = number(ratio(0.2, 3));
    assert!((first - e * e).abs() < 1e-4, "{first}");
    // Nothing rebounds above 0.3 m: no ratio.
    assert!(matches!(ratio(0.3, 3), MetricValue::Missing(_)));
}

/// A box origin moving at constant velocity `v` from `p0`: samples every `DT` for `duration`.
fn slide(p0: Vector3<f64>, v: Vector3<f64>, duration: f64) -> Vec<(f64, Vector3<f64>)> {
    let steps = (duration / DT).round() as usize;
    (0..=steps)
        .map(|k| {
            let t = k as f64 * DT;
            (t, p0 + v * t)
        })
        .collect()
}

#[test]
fn a_constant_velocity_slide_moves_speed_times_window() {
    let scene = balls(1);
    let v = Vector3::new(-0.8, 0.3, 0.0);
    let samples = slide(Vector3::new(2.0, -1.0, RADIUS), v, 2.0);
    let window = Window { start: 0.5, end: 1.5 };
    for (axis, expected) in [
        (Axis::X, -0.8),
        (Axis::AbsX, 0.8),
        (Axis::Y, 0.3),
        (Axis::Z, 0.0),
        (Axis::Horizontal, v.norm()),
        (Axis::Norm, v.norm()),
    ] {
        let mut probe = metrics::probe(&spec(MetricKind::Displacement {
            link: BALL,
            window,
            axis,
        }));
        for &(t, p) in &samples {
            probe.observe(t, &scene, &state(&[link(p, v)]), LazyContacts::NONE);
        }
        let d = number(probe.finish());
        assert!((d - expected).abs() < 1e-12, "{axis:?}: {d} m, analytic {expected} m");
    }
}

#[test]
fn slip_is_motion_seen_from_the_reference() {
    // Ball 1 is carried by ball 2 (the reference), which turns 90° about z at t = 0 and then
    // moves at constant velocity; ball 1 moves with it and creeps 1 cm along the reference's
    // own x axis (world y) over the run.
    let scene = balls(2);
    let reference = LinkRef { body: 2, link: 0 };
    let carrier = Vector3::new(0.5, 0.2, 0.0);
    let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2);
    let mut slip = metrics::probe(&spec(MetricKind::Slip {
        link: BALL,
        reference,
        window: whole_run(),
        axis: Axis::X,
    }));
    let held = |distance: f64| {
        metrics::probe(&spec(MetricKind::Held {
            link: BALL,
            reference,
            window: whole_run(),
            distance,
        }))
    };
    let (mut loose, mut tight) = (held(0.02), held(0.005));
    for (t, p) in slide(Vector3::new(0.0, 0.0, 1.0), carrier, 1.0) {
        let gripper = LinkState {
            pose: Isometry3::from_parts(Translation3::from(p), turn),
            linear_velocity: carrier,
            angular_velocity: Vector3::zeros(),
        };
        let object = link(p + Vector3::new(0.0, 0.05 + 0.01 * t, 0.0), carrier);
        let s = state(&[object, gripper]);
        for probe in [&mut slip, &mut loose, &mut tight] {
            probe.observe(t, &scene, &s, LazyContacts::NONE);
        }
    }
    let s = number(slip.finish());
    assert!(
        (s - 0.01).abs() < 1e-12,
        "slip {s} m along the reference's x, analytic 0.01 m"
    );
    assert_eq!(loose.finish(), MetricValue::Bool(true));
    assert_eq!(tight.finish(), MetricValue::Bool(false));
}

#[test]
fn a_falling_mass_keeps_its_energy_and_a_bounce_loses_one_minus_e_squared() {
    let scene = balls(1);
    let energy_drift = |samples: &[(f64, f64, f64)]| {
        let mut probe = metrics::probe(&spec(MetricKind::EnergyDrift));
        feed(probe.as_mut(), &scene, samples);
        number(probe.finish())
    };
    let (drop, e) = (1.0, 0.6);
    // Free fall only: ½ m v² + m g z is constant, up to round-off.
    let fall: Vec<_> = bouncing(drop, e, 0);
    assert!(energy_drift(&fall) < 1e-9, "free fall drift {}", energy_drift(&fall));
    // Two impacts: the ball keeps e⁴ of its energy above rest, m g h0 (1 − e⁴) is lost.
    let drift = energy_drift(&bouncing(drop, e, 2));
    let lost = MASS * G * drop * (1.0 - e.powi(4));
    assert!(
        (drift - lost).abs() < 1e-9 * lost.max(1.0),
        "drift {drift} J, analytic {lost} J"
    );
    // A spinning ball that stops spinning loses ½ I ω², I = 2/5 m r².
    let mut probe = metrics::probe(&spec(MetricKind::EnergyDrift));
    let omega = 10.0;
    for (t, w) in [(0.0, omega), (DT, 0.5 * omega), (2.0 * DT, 0.0)] {
        let mut ball = link(Vector3::new(0.0, 0.0, RADIUS), Vector3::zeros());
        ball.angular_velocity = Vector3::new(0.0, w, 0.0);
        ball.pose.rotation = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), t);
        probe.observe(t, &scene, &state(&[ball]), LazyContacts::NONE);
    }
    let spin = 0.5 * 0.4 * MASS * RADIUS * RADIUS * omega * omega;
    let drift = number(probe.finish());
    assert!(
        (drift - spin).abs() < 1e-12,
        "drift {drift} J, analytic ½ I ω² = {spin} J"
    );
}

/// A contact from the ground onto `foot` carrying `force` N.
fn ground_contact(foot: LinkRef, force: f64) -> ContactRecord {
    ContactRecord {
        a: LinkRef { body: GROUND, link: 0 },
        b: foot,
        materials: (MaterialId::DEFAULT, MaterialId::DEFAULT),
        point: Vector3::zeros(),
        normal: Vector3::z(),
        depth: 0.0,
        normal_force: force,
        friction_force: Vector3::zeros(),
        patch: None,
    }
}

#[test]
fn feet_slip_only_while_standing() {
    // Two feet (balls 1 and 2). Right: stands and slides 3 cm along x, lifts and swings 30 cm,
    // lands and slides 4 cm along y. Left: stands still, then is dragged 2 cm diagonally
    // (1.2, 1.6 cm) with a contact of 5 N, below the 10 N threshold: not standing, no slip.
    let scene = balls(2);
    let (right, left) = (BALL, LinkRef { body: 2, link: 0 });
    let mut probe = metrics::probe(&spec(MetricKind::FootSlip {
        feet: vec![right, left],
        ground: GROUND,
        force_threshold: 10.0,
    }));
    let phases: [(Vector3<f64>, f64, Vector3<f64>, f64); 3] = [
        (Vector3::new(0.03, 0.0, 0.0), 300.0, Vector3::zeros(), 300.0),
        (Vector3::new(0.30, 0.0, 0.0), 0.0, Vector3::new(0.012, 0.016, 0.0), 5.0),
        (Vector3::new(0.0, 0.04, 0.0), 300.0, Vector3::zeros(), 300.0),
    ];
    let (mut p_right, mut p_left) = (Vector3::zeros(), Vector3::new(0.0, 0.2, 0.0));
    let mut t = 0.0;
    for (move_right, f_right, move_left, f_left) in phases {
        let contacts = [ground_contact(right, f_right), ground_contact(left, f_left)];
        for _ in 0..100 {
            p_right += move_right / 100.0;
            p_left += move_left / 100.0;
            let s = state(&[link(p_right, Vector3::zeros()), link(p_left, Vector3::zeros())]);
            probe.observe(t, &scene, &s, LazyContacts::from(&contacts[..]));
            t += DT;
        }
    }
    // The first sample of each standing phase follows a sample in the air (the landing step does
    // not count): the right foot's 3 cm and 4 cm slides lose one step each, 0.3 mm and 0.4 mm.
    let slip = number(probe.finish());
    let expected = 0.03 * 0.99 + 0.04 * 0.99;
    assert!(
        (slip - expected).abs() < 1e-12,
        "foot slip {slip} m, analytic {expected} m"
    );
}
