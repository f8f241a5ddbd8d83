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

use nalgebra::Vector3;

use crate::geometry::Lattice;
use crate::solver::{CslcPad, Prepared, StepInput, SweepEnd};

/// Largest over-relaxation used, whatever the radius bound says.
const MAX_OMEGA: f64 = 1.9;

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
    /// Sweeps to the tolerance; returns how they ended and leaves the
    /// solved field in the pad.
    ///
    /// Kept out of line: inlined into `CslcPad::step` it ran 0.8 % more instructions.
    #[inline(never)]
    pub(crate) fn red_black_sweeps(&mut self, input: &StepInput, prepared: &mut [Prepared], floor: f64) -> SweepEnd {
        let rho = self.chebyshev_radius().min(0.999_999);
        let mut omega = (2.0 / (1.0 + (1.0 - rho * rho).sqrt())).min(MAX_OMEGA);
        let mut field = self.take_spare_field();
        self.initial_iterate_into(&mut field);
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
        let mut squares: Vec<f64> = Vec::with_capacity(self.lattice().len());
        while iterations < max_iterations {
            squares.clear();
            let mut load = 0.0;
            for class in &colours {
                // Spheres of one colour are not neighbours: updating them in place, one after
                // the other, equals updating them all from the same field.
                for &i in class {
                    let Some(step) = self.ordered_visit(input, prepared, &field, i) else {
                        continue;
                    };
                    squares.push(step.residual_squared);
                    load += step.normal_force;
                    let w = if step.normal_force > 0.0 { 1.0 } else { omega };
                    if let Some(d) = field.get_mut(i) {
                        *d += (step.delta - *d) * w;
                    }
                }
            }
            // The roots first, in a loop of their own (independent of each other: two to an
            // instruction), then their sum in visit order.
            for square in squares.iter_mut() {
                *square = square.sqrt();
            }
            let mut unbalanced = 0.0;
            for root in &squares {
                unbalanced += root;
            }
            residual = unbalanced / f64::max(load, floor);
            if residual <= tolerance {
                converged = true;
                break;
            }
            if residual > 1.5 * best {
                omega = 1.0;
            }
            best = best.min(residual);
            iterations += 1;
        }
        *self.colors_mut() = colours;
        field.truncate(spheres);
        self.commit_field(field);
        SweepEnd {
            iterations,
            residual,
            converged,
        }
    }
}
