//! Drift steps: a stalled island's sweeps carried on, in one step, to the first bound they reach
//! (`docs/design/contact-mechanics.md` §4.2.3, *Drift steps*).
//!
//! When A is singular (a box held between two fingers and resting on the floor: its weight can be
//! carried by the floor or by the fingers' friction, and A has a null direction that trades one
//! for the other), the sweeps can move λ along the null space at a constant rate: each sweep
//! takes the same step `Δ` (`w = Aλ + b` does not change along it, so neither does the step, nor
//! the residual). The solution lies where that motion meets a bound — the floor's normal impulse
//! reaching zero, a tangential impulse reaching its friction limit — which the sweeps would reach
//! after `T` more sweeps: measured on the gentle-grasp sample at the start of its lift, 2,000
//! sweeps (the object leaves the floor, the fingers' friction takes its weight), where the
//! termination test (`crate::pgs`, *Termination*) stopped at 63 with 3.5 % of the impulses wrong.
//!
//! The step: `Δ` is the last sweep's change of λ on the island; `T`, the largest `t` for which
//! `λ + tΔ` stays feasible — every normal impulse `λₙ + tΔₙ ≥ 0` and every tangential impulse of a
//! contact strictly inside its friction set staying inside it (a convex set meets a line in an
//! interval); a contact already on the rim of its set follows it
//! and is projected back onto it; in closed form for normal rows and cones, by bisection for a box
//! or pyramid. λ takes `λ + TΔ`, projected onto the feasible set. It is kept only if the island's
//! residual falls, and the sweeps go on from it and judge the answer by the usual test; a step
//! that does not lower the residual ends the drift steps of the solve (`crate::pgs`). A motion
//! that meets no bound within [`MAX_SWEEPS`] sweeps is no drift towards a solution, and the island
//! is reported stalled as before.

use crate::contact::ContactProblem;
use crate::delassus::DelassusRows;
use crate::friction::FrictionModel;
use crate::snapshot::{set_contact, IslandSnapshot};

/// The farthest a drift step reaches, in sweeps of the drift.
const MAX_SWEEPS: f64 = 1e7;

/// Shorter drifts are left to the sweeps.
const MIN_SWEEPS: f64 = 2.0;

/// Bisection steps on `T` (relative precision `2⁻⁶⁰` of the bracket).
const BISECTIONS: usize = 60;

/// A tangential impulse this close to its friction limit (relative) is on the rim.
const RIM: f64 = 1e-9;

/// Working storage of the drift steps, kept between solves.
#[derive(Debug, Clone, Default)]
pub(crate) struct DriftStep {
    /// λ of the island before the last sweep.
    before: IslandSnapshot,
    /// λ of the island before the step, to restore.
    saved: IslandSnapshot,
    /// The last sweep's change of λ, three per contact in island order.
    delta: Vec<f64>,
}

impl DriftStep {
    /// Remembers the island's λ before a sweep.
    pub fn remember(&mut self, lambda: &[f64], island: &[usize]) {
        self.before.take(lambda, island);
    }

    /// The step from the λ remembered before the last sweep to `lambda` carried on to the first
    /// bound (module docs), with the operator's velocity state `velocity` kept consistent. True
    /// when λ moved and the island's residual fell from `residual`, measured by `measure`; else λ
    /// and `velocity` are as they were.
    pub fn step<D: DelassusRows>(
        &mut self,
        problem: &ContactProblem<D>,
        lambda: &mut [f64],
        velocity: &mut [f64],
        island: &[usize],
        residual: f64,
        measure: impl Fn(&[f64], &[f64]) -> f64,
    ) -> bool {
        if !self.before.holds(island.len()) {
            return false;
        }
        self.saved.take(lambda, island);
        self.delta.clear();
        for k in 0..island.len() {
            for row in 0..3 {
                self.delta.push(self.saved.value(k, row) - self.before.value(k, row));
            }
        }
        let reach = self.reach(problem, island);
        if !(MIN_SWEEPS..MAX_SWEEPS).contains(&reach) {
            return false;
        }
        for (k, &c) in island.iter().enumerate() {
            let Some(friction) = problem.contacts.get(c) else {
                continue;
            };
            let at = |row: usize| self.saved.value(k, row) + reach * self.delta[3 * k + row];
            let normal = at(0).max(0.0);
            let tangential = friction.model.project([at(1), at(2)], friction.mu * normal);
            set_contact(problem, lambda, velocity, c, [normal, tangential[0], tangential[1]]);
        }
        if measure(lambda, velocity) < residual {
            return true;
        }
        self.saved.restore(problem, lambda, velocity, island);
        false
    }

    /// The largest `t ≤ MAX_SWEEPS` with `saved + t delta` feasible on every normal row and on the
    /// tangential rows of the contacts strictly inside their friction sets: in closed form for
    /// normal rows and cones, by bisection when a box or pyramid takes part.
    fn reach<D: DelassusRows>(&self, problem: &ContactProblem<D>, island: &[usize]) -> f64 {
        let mut reach = MAX_SWEEPS;
        for (k, &c) in island.iter().enumerate() {
            let Some(friction) = problem.contacts.get(c) else {
                continue;
            };
            if friction.model != FrictionModel::Cone {
                return self.reach_by_bisection(problem, island);
            }
            let l = [self.saved.value(k, 0), self.saved.value(k, 1), self.saved.value(k, 2)];
            let d = &self.delta[3 * k..3 * k + 3];
            if d[0] < 0.0 {
                reach = reach.min(l[0] / -d[0]);
            }
            reach = reach.min(cone_exit(&l, d, friction.mu));
        }
        reach
    }

    /// [`Self::reach`] for any friction set.
    fn reach_by_bisection<D: DelassusRows>(&self, problem: &ContactProblem<D>, island: &[usize]) -> f64 {
        let feasible = |t: f64| {
            island.iter().enumerate().all(|(k, &c)| {
                let Some(friction) = problem.contacts.get(c) else {
                    return true;
                };
                let l = [self.saved.value(k, 0), self.saved.value(k, 1), self.saved.value(k, 2)];
                let d = &self.delta[3 * k..3 * k + 3];
                let normal = l[0] + t * d[0];
                if normal < 0.0 {
                    return false;
                }
                let now = [l[1], l[2]];
                let radius = friction.mu * l[0];
                let on_rim = friction.model.project(now, radius * (1.0 - RIM)) != now;
                if on_rim {
                    return true;
                }
                let moved = [l[1] + t * d[1], l[2] + t * d[2]];
                friction.model.project(moved, friction.mu * normal) == moved
            })
        };
        if !feasible(MIN_SWEEPS) {
            return 0.0;
        }
        if feasible(MAX_SWEEPS) {
            return MAX_SWEEPS;
        }
        let (mut low, mut high) = (MIN_SWEEPS, MAX_SWEEPS);
        for _ in 0..BISECTIONS {
            let mid = 0.5 * (low + high);
            if feasible(mid) {
                low = mid;
            } else {
                high = mid;
            }
        }
        // Where the first bound is met: the projection that follows puts λ on it exactly.
        high
    }
}

/// The first `t > 0` at which the tangential impulse `a + t b` (`a = (l₁, l₂)`, `b = (d₁, d₂)`)
/// leaves the disc of radius `μ (n + t m)` (`n = l₀`, `m = d₀`): the smallest positive root of
/// `q(t) = |a + t b|² − μ² (n + t m)² = α t² + 2 β t + γ`, `γ < 0` inside. `f64::INFINITY` if it
/// never leaves, or if it starts on the rim (it follows the rim and is projected back onto it).
fn cone_exit(l: &[f64], d: &[f64], mu: f64) -> f64 {
    let (n, m) = (l[0], d[0]);
    let (a, b) = ([l[1], l[2]], [d[1], d[2]]);
    let radius = mu * n;
    let inside = a[0] * a[0] + a[1] * a[1];
    if inside >= (radius * (1.0 - RIM)).powi(2) {
        // On the rim: it follows it.
        return f64::INFINITY;
    }
    let alpha = b[0] * b[0] + b[1] * b[1] - mu * mu * m * m;
    let beta = a[0] * b[0] + a[1] * b[1] - mu * mu * n * m;
    let gamma = inside - radius * radius;
    // q(0) = γ < 0; the exit is the smallest positive root of q.
    if alpha == 0.0 {
        return if beta > 0.0 {
            -gamma / (2.0 * beta)
        } else {
            f64::INFINITY
        };
    }
    let discriminant = beta * beta - alpha * gamma;
    if discriminant < 0.0 {
        return f64::INFINITY;
    }
    let root = discriminant.sqrt();
    // The roots (−β ± √D)/α; with γ < 0 one root is positive when α > 0, and for α < 0 both
    // have the sign of −β (none positive when β ≤ 0).
    let candidates = [(-beta + root) / alpha, (-beta - root) / alpha];
    candidates
        .into_iter()
        .filter(|t| *t > 0.0)
        .fold(f64::INFINITY, f64::min)
}
