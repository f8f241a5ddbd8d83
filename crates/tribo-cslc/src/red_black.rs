//! Red-black nonlinear Gauss–Seidel with over-relaxation (`Acceleration::RedBlackSor`).
//!
//! The lattice's neighbour graph is coloured so that no two neighbours share a colour (two
//! colours on the flat and dome grids, greedy colouring otherwise). A sweep visits the colours in
//! turn; every sphere of a colour takes its local Newton step (`local.rs`) against the field as
//! updated by the previous colours, so the colours' updates are independent of each other's order
//! (and of the thread count). Spheres out of contact are over-relaxed,
//! `δ ← δ + ω (δ̂ − δ)` with Young's `ω = 2 / (1 + √(1 − ρ_J²))` (Saad, *Iterative Methods for
//! Sparse Linear Systems*, §4.2.3; ρ_J the block-Jacobi radius bound of `CslcPad::new`); spheres
//! in contact take their exact local step (ω = 1), where the active set and the friction cone make
//! the problem nonlinear. If the residual grows by half over its best, ω drops to 1 for the rest
//! of the step (plain Gauss–Seidel, which contracts).
//!
//! A sweep measures the residual at its start (each sphere's before its update). Once the last
//! sweep's contraction says the field at the end of this one may meet the tolerance, that field's
//! residual is estimated instead of measured by another sweep
//! ([`CslcPad::residual_after_sweep`], `docs/design/lattice-model.md` §4, "Stopping").

use nalgebra::Vector3;

use crate::geometry::Lattice;
use crate::solver::{CslcPad, Prepared, StepInput, SweepEnd, Visit};

/// Largest over-relaxation used, whatever the radius bound says.
const MAX_OMEGA: f64 = 1.9;

/// An estimated end-of-sweep residual ([`CslcPad::residual_after_sweep`]) ends the sweeps only
/// within the tolerance and within this fraction of the step's first residual: the field a step
/// leaves is the next step's warm start, and must stay well below the residual that the
/// extrapolation of the warm start itself leaves (which the first sweep measures), or the next
/// step would start no better than this one ended.
const ESTIMATE_MARGIN: f64 = 0.1;

/// `Σ_k √s_k` over `squares`, in order: the roots first, in a loop of their own (independent of
/// each other: two to an instruction), then their sum in order — bit for bit the sum of the
/// `norm`s whose squares they are, without a sum that waits on each root. The squares are left
/// as their roots.
pub(crate) fn sum_of_roots(squares: &mut [f64]) -> f64 {
    for square in squares.iter_mut() {
        *square = square.sqrt();
    }
    let mut sum = 0.0;
    for root in squares.iter() {
        sum += root;
    }
    sum
}

/// Sphere indices grouped by colour, colours in ascending order, indices ascending.
pub(crate) fn colour_classes(lattice: &Lattice) -> Vec<Vec<usize>> {
    let n = lattice.len();
    let mut colour: Vec<usize> = vec![usize::MAX; n];
    for i in 0..n {
        let used: Vec<usize> = lattice
            .neighbours(i)
            .iter()
            .filter_map(|&j| colour.get(j).copied())
            .filter(|&c| c != usize::MAX)
            .collect();
        let mut c = 0;
        while used.contains(&c) {
            c += 1;
        }
        if let Some(slot) = colour.get_mut(i) {
            *slot = c;
        }
    }
    let count = colour
        .iter()
        .copied()
        .filter(|&c| c != usize::MAX)
        .max()
        .map_or(0, |c| c + 1);
    let mut classes = vec![Vec::new(); count];
    for (i, &c) in colour.iter().enumerate() {
        if let Some(class) = classes.get_mut(c) {
            class.push(i);
        }
    }
    classes
}

impl CslcPad {
    /// Sweeps to the tolerance from `start` (the extrapolated field if `None`); returns how they
    /// ended and leaves the solved field in the pad.
    ///
    /// Kept out of line: inlined into `CslcPad::step` it ran 0.8 % more instructions.
    #[inline(never)]
    pub(crate) fn red_black_sweeps(
        &mut self,
        input: &StepInput,
        prepared: &mut [Prepared],
        floor: f64,
        start: Option<Vec<Vector3<f64>>>,
    ) -> SweepEnd {
        let rho = self.chebyshev_radius().min(0.999_999);
        let mut omega = (2.0 / (1.0 + (1.0 - rho * rho).sqrt())).min(MAX_OMEGA);
        let mut field = match start {
            Some(field) => field,
            None => {
                let mut field = self.take_spare_field();
                self.initial_iterate_into(&mut field);
                field
            }
        };
        // The rest slot after the spheres, which the unused neighbour slots point at
        // (`Lattice::neighbour_slots`); taken off again before the field is committed.
        let spheres = field.len();
        field.push(Vector3::zeros());
        let mut best = f64::INFINITY;
        let mut residual = f64::INFINITY;
        let mut iterations = 0;
        let colours = std::mem::take(self.colors_mut());
        let max_iterations = self.params().max_iterations;
        let tolerance = self.params().tolerance;
        let mut converged = false;
        // Each visit's squared residual, in visit order: their roots are taken and summed after
        // the sweep, in the same order (bit for bit the sum of the visits' `|r|`), so that no visit
        // waits on a square root.
        let mut squares = self.take_squares();
        let mut previous: Option<f64> = None;
        let mut first_residual: Option<f64> = None;
        while iterations < max_iterations {
            squares.clear();
            let sweep = self.begin_sweep();
            let mut load = 0.0;
            for class in &colours {
                // Spheres of one colour are not neighbours: updating them in place, one after
                // the other, equals updating them all from the same field.
                for &i in class {
                    let Some(Visit { step, contact_pull }) = self.ordered_visit(input, prepared, &field, i) else {
                        continue;
                    };
                    if let Some(pull) = contact_pull {
                        self.record_contact_visit(i, sweep, pull);
                    }
                    squares.push(step.residual_squared);
                    load += step.normal_force;
                    let w = if step.normal_force > 0.0 { 1.0 } else { omega };
                    if let Some(d) = field.get_mut(i) {
                        *d += (step.delta - *d) * w;
                    }
                }
            }
            residual = sum_of_roots(&mut squares) / f64::max(load, floor);
            if residual <= tolerance {
                converged = true;
                break;
            }
            // The residual at the sweep's end, estimated once the contraction of the last sweep
            // says it may be within the tolerance and well below the step's first residual:
            // then the sweep that would only measure it is not made.
            let first = *first_residual.get_or_insert(residual);
            let estimate_within = tolerance.min(ESTIMATE_MARGIN * first);
            if previous.is_some_and(|p| residual * (residual / p).min(1.0) <= estimate_within) {
                let after = self.residual_after_sweep(prepared, &field, sweep, &mut squares);
                if let Some(after) = after
                    .map(|a| a / f64::max(load, floor))
                    .filter(|a| *a <= estimate_within)
                {
                    residual = after;
                    converged = true;
                    break;
                }
            }
            previous = Some(residual);
            if residual > 1.5 * best {
                omega = 1.0;
            }
            best = best.min(residual);
            iterations += 1;
        }
        *self.colors_mut() = colours;
        self.keep_squares(squares);
        field.truncate(spheres);
        self.commit_field(field);
        SweepEnd {
            iterations,
            residual,
            converged,
        }
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

    use crate::{Acceleration, CslcPad, CslcParams, PadGeometry, Plane, Posed, StepInput, Target, Twist};

    /// A stiff flat pad (the walker's skin, `k_a` 1e11 N/m³, 10 × 10 spheres at 1 cm) rolling and
    /// sliding on a floor, step after step. The field each step returns must meet the tolerance
    /// as a Jacobi sweep measures it (every sphere's local step against that field). Where the
    /// sweeps ended on the end-of-sweep estimate — the residual at the start of the last sweep,
    /// measured by a copy of the pad capped at that sweep with no tolerance, was above the
    /// tolerance — the estimate must be that residual of the returned field, to 2 % (exact for
    /// the spheres out of contact, first order for those in contact); and some steps must end so,
    /// each a sweep saved.
    #[test]
    fn the_estimated_end_of_sweep_residual_is_the_residual_of_the_returned_field() {
        let params = CslcParams {
            anchor_stiffness: 1e11,
            acceleration: Acceleration::RedBlackSor,
            ..CslcParams::default()
        };
        let lattice = PadGeometry::flat(10, 10, 0.01).build().expect("lattice");
        let mut pad = CslcPad::new(lattice, params.clone()).expect("pad");
        let down = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI);
        let floor = Posed::new(Plane, Isometry3::from_parts(Translation3::new(0.0, 0.0, -2e-6), down));
        let targets: [&dyn Target; 1] = [&floor];
        let mut estimated = 0;
        for s in 0..60 {
            let t = f64::from(s);
            let roll = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 2e-5 * (0.3 * t).sin());
            let input = StepInput {
                pad_pose: Isometry3::from_parts(Translation3::new(1e-4 * t, 0.0, 0.0), roll),
                pad_twist: Twist {
                    linear: Vector3::new(0.1, 0.0, 0.0),
                    angular: Vector3::zeros(),
                },
                targets: &targets,
                friction: 0.5,
                dynamic_friction: 0.4,
                dt: 1e-3,
            };
            let mut capped = pad.clone();
            let patch = pad.step(&input).expect("step");
            assert!(patch.converged, "step {s}: {:?}", patch.warning);
            let returned = pad.jacobi_residual(&input);
            assert!(
                returned <= params.tolerance,
                "step {s}: the returned field's residual {returned:.3e}"
            );
            capped.params_mut().tolerance = 1e-300;
            capped.params_mut().max_iterations = patch.iterations + 1;
            let last_start = capped.step(&input).expect("step").residual;
            if last_start > params.tolerance {
                assert!(
                    (patch.residual - returned).abs() <= 0.02 * returned,
                    "step {s}: estimated {:.3e}, the returned field's {returned:.3e}",
                    patch.residual
                );
                estimated += 1;
            }
        }
        assert!(estimated > 0, "no step ended on the estimate");
        println!("{estimated} of 60 steps ended on the estimated end-of-sweep residual");
    }
}
