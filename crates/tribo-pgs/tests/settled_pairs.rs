//! Settled link pairs (solve.rs, *Settled pairs*; tribo-lcp `PgsOptions::least_norm_start`):
//! once every corner of a cube resting on the floor takes a warm start that carries load, a step
//! at rest makes no sweep at all (no load-sharing sweep, and the warm start already solves the
//! rigid problem), and when the load changes the spread among the corners changes as an elastic
//! interface's does.
//!
//! A cube of mass m and edge 2a rests on its four bottom corners. A horizontal push F at its
//! centre (height a above the floor), below the static limit μ m g, tilts no corner off; the
//! moment F a about the face's centre shifts load from the back corners to the front ones. The
//! rigid contact problem leaves the spread open (four impulses, three equations for a face's
//! normal force and two moments); an elastic interface — equal springs at the corners — gives
//! the linear one: each corner `m g / 4 ± F a / (2 · 2a)`, front +, back −. That is also the
//! least-norm change from the even spread at rest, which the rigid solve keeps without the
//! load-sharing term.

use nalgebra::Vector3;
use tribo_engine::{Engine, LinkWrench};
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

const DT: f64 = 2e-3;
const EDGE: f64 = 0.1;
const MASS: f64 = 1.0;
/// Below the static limit μ m g = 4.9 N (μ 0.5).
const PUSH: f64 = 2.0;

/// Each corner's normal force (N) by the sign of its x (back, front), sorted within each.
fn corner_forces(sim: &dyn Engine) -> (Vec<f64>, Vec<f64>) {
    let (mut back, mut front) = (Vec::new(), Vec::new());
    for c in sim.contacts() {
        if c.point.x < 0.0 {
            back.push(c.normal_force);
        } else {
            front.push(c.normal_force);
        }
    }
    back.sort_by(f64::total_cmp);
    front.sort_by(f64::total_cmp);
    (back, front)
}

#[test]
fn a_resting_cube_sweeps_once_and_keeps_an_elastic_spread_under_a_push() {
    let s = box_pile(1, 1, 1, EDGE, 0.0);
    let mut sim = engine(&PgsFactory, &s);
    let mut commands = idle(&s);
    let weight = MASS * s.gravity.norm();

    // At rest: after the first steps (new corners, spread by the load-sharing sweeps) no step
    // sweeps: the warm start solves it, and no load-sharing sweep runs.
    let sweeps: Vec<u32> = (0..250)
        .map(|_| sim.step(DT, &commands).expect("the step succeeds").iterations)
        .collect();
    let late = &sweeps[10..];
    assert!(late.iter().all(|&k| k == 0), "sweeps per step at rest: {late:?}");
    let (back, front) = corner_forces(sim.as_ref());
    assert_eq!((back.len(), front.len()), (2, 2), "four corners touch");
    let at_rest = [back[0], back[1], front[0], front[1]];
    for f in at_rest {
        // The first step's load-sharing sweeps (at most five) leave the spread even to 0.04 %.
        assert!(
            (f - weight / 4.0).abs() < 1e-3 * weight,
            "a corner carries about m g / 4 at rest: {f}"
        );
    }

    // Pushed: F a moves to the front corners, evenly (module docs).
    commands.bodies[1].link_wrenches = vec![LinkWrench {
        link: 0,
        force: Vector3::new(PUSH, 0.0, 0.0),
        torque: Vector3::zeros(),
    }];
    for _ in 0..250 {
        sim.step(DT, &commands).expect("the step succeeds");
    }
    let half = EDGE / 2.0;
    let shift = PUSH * half / (2.0 * EDGE);
    let (back, front) = corner_forces(sim.as_ref());
    assert_eq!((back.len(), front.len()), (2, 2), "four corners touch under the push");
    // Each corner changes by exactly the springs' ±F a / 4a; whatever unevenness the spread had
    // at rest is kept, not grown. Tolerance: the solve's 1e-9 N·s residual over a 2 ms step is
    // 5e-7 N.
    for (now, rest) in back.iter().zip(&at_rest[..2]) {
        assert!(
            (now - (rest - shift)).abs() < 1e-6,
            "a back corner: {now} from {rest} at rest"
        );
    }
    for (now, rest) in front.iter().zip(&at_rest[2..]) {
        assert!(
            (now - (rest + shift)).abs() < 1e-6,
            "a front corner: {now} from {rest} at rest"
        );
    }
    let travel = (root_position(sim.state(), 1).x).abs();
    assert!(travel < 1e-6, "static friction holds the cube: it moved {travel} m");
}
