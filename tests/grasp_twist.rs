#![allow(clippy::panic)]
//! A ball held at one point per finger and twisted about the grasp axis rings down
//! (`tests/fixtures/grasp-twist`): the gentle-grasp sample's 100 g ball, lifted and held between
//! its flat pads, gets a torque pulse of 0.2 mN·m for 10 ms about the grasp axis at 1.6 s.
//!
//! Each finger's patch (12 spheres) is handed to the host as one point on the grasp axis, so the
//! host's springs give no stiffness against the twist: the lattice's stick springs resist it
//! through the residual torque, explicitly (`docs/design/lattice-model.md` §5, "tribo's host
//! coupling"). Known answers:
//! - **Statics.** After the pulse nothing twists the ball: the pads' friction moments about the
//!   grasp axis must return to zero (by symmetry each pad's own), and the ball come to rest. It
//!   need not come back to its pose before the pulse: the weight already loads the patches in
//!   shear, and the edge spheres that slip during the pulse leave the ball turned by a little.
//! - **Damping.** The pads' skin is damped as the host damps each point's tangential motion (its
//!   implicit stiffness times the step, the restitution's dashpot); spread over the spheres in
//!   proportion to their tangential stiffness, it damps the twist too. So 0.5 s after the pulse
//!   the ball's swing and the pad's friction moment are below 1 % of their first values.
//!   Undamped, the explicit twist rang on at some 80 % of its first swing (0.95 of 1.18 mrad,
//!   friction moments of ±7.7e-5 N·m, on both hosts) at about 16 Hz.

use tribo_runner::RunOutcome;
use tribo_tests::{load, run};

/// The pulse's start, s (`tests/fixtures/grasp-twist`; it lasts 10 ms).
const PULSE: f64 = 1.6;

fn column(outcome: &RunOutcome, name: &str) -> Vec<f64> {
    outcome
        .trajectory
        .column(name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

/// The smallest and largest value of `values` over the rows whose time lies in `[from, to)`.
fn range(times: &[f64], values: &[f64], from: f64, to: f64) -> (f64, f64) {
    times
        .iter()
        .zip(values)
        .filter(|(t, _)| **t >= from && **t < to)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, v)| {
            (lo.min(*v), hi.max(*v))
        })
}

#[test]
fn a_ball_twisted_between_one_point_pads_rings_down() {
    let project = load("tests/fixtures/grasp-twist/grasp-twist.yaml", &[], &[]);
    for engine in ["cslc", "cslc-rapier"] {
        let outcome = run(&project, engine);
        let (times, pitch, moment) = (
            column(&outcome, "time"),
            column(&outcome, "object.pitch"),
            column(&outcome, "left_pad.friction_moment"),
        );
        let (times, pitch, moment) = (&times[..], &pitch[..], &moment[..]);
        let swing = |(lo, hi): (f64, f64)| hi - lo;
        let largest = |(lo, hi): (f64, f64)| f64::max(lo.abs(), hi.abs());
        let before = range(times, pitch, PULSE - 0.05, PULSE);
        let (first, late) = (range(times, pitch, PULSE, PULSE + 0.1), range(times, pitch, 2.1, 2.2));
        let (first_moment, late_moment) = (range(times, moment, PULSE, PULSE + 0.1), range(times, moment, 2.1, 2.2));
        println!(
            "{engine}: pitch swing {:.3e} rad before the pulse, {:.3e} over its first 0.1 s, {:.3e} over the \
             last 0.1 s; friction moment up to {:.3e} N·m, then {:.3e}",
            swing(before),
            swing(first),
            swing(late),
            largest(first_moment),
            largest(late_moment)
        );
        // The ball was at rest before the pulse, and the pulse turned it.
        assert!(
            swing(before) < 1e-6,
            "{engine}: the ball turned before the pulse: {before:?}"
        );
        assert!(
            swing(first) > 1e-4,
            "{engine}: the pulse did not turn the ball: {first:?}"
        );
        assert!(
            largest(first_moment) > 1e-5,
            "{engine}: no friction moment: {first_moment:?}"
        );
        // Damped to rest, the moments back to zero.
        assert!(
            swing(late) < 0.01 * swing(first),
            "{engine}: the twist rings on: swing {:.3e} rad over the last 0.1 s against {:.3e} after the pulse",
            swing(late),
            swing(first)
        );
        assert!(
            largest(late_moment) < 0.01 * largest(first_moment),
            "{engine}: friction moment {late_moment:?} N·m over the last 0.1 s against {first_moment:?}"
        );
    }
}
