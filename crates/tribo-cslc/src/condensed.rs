//! The pad's equilibrium condensed onto its touching spheres (`Acceleration::Condensed` and
//! `Acceleration::Adaptive`, `docs/design/lattice-model.md` §4, "Condensed solve").
//!
//! Off its touching set `A` the lattice is linear: `K δ = f`, with `K` the lattice stiffness
//! (each sphere's anchor and lateral diagonal `K_i`, `−K_ℓ I` per neighbour link, §3.1–3.2) and
//! `f` the contact and friction forces, zero off `A`. So `δ = G f` with the pad's compliance
//! `G = K⁻¹`, a constant of the pad, and only the forces of `A` are unknown — static
//! condensation (Bathe, *Finite Element Procedures*, 1996, §8.2.4). Sphere `i ∈ A` moves as
//! `δ_i = G_ii f_i + u_i`, `u_i = Σ_{j∈A, j≠i} G_ij f_j`: its local problem is the one of
//! `local.rs` with the stiffness `G_ii⁻¹` (the lattice's stiffness as sphere `i` sees it, every
//! free sphere in equilibrium) and the pull `G_ii⁻¹ u_i`, and its force is
//! `f_i = G_ii⁻¹ (δ_i − u_i)`. The sweeps visit the spheres of `A` in turn, each against the
//! others' latest forces: the nonlinear block Gauss–Seidel of frictional contact
//! (Jourdan, Alart & Jean, *A Gauss–Seidel like algorithm to solve frictional contact problems*,
//! CMAME 155, 1998), on `|A|` spheres instead of the whole lattice.
//!
//! The residual is the red-black sweeps' (`Σ_i |r_i| / load`): a free sphere's `r_i` is zero by
//! construction, a touching one's is its local step's (the stored force against the contact law
//! at its displacement; `G_ii⁻¹` and `K_i` measure it alike to first order, both being the
//! unbalanced force). When it meets the tolerance, the field `G f` of the whole pad is formed and
//! every sphere that it brings into contact joins `A`; the sweeps end when none does. The start
//! is the red-black sweeps' extrapolated field, formed only for the spheres with a surface.
//!
//! Same equations as the sweeps, same equilibrium — but for a sliding sphere under a target
//! normal tilted off the pad's axis, whose friction follows its trial force: the local step forms
//! it with `G_ii⁻¹` here and with `K_i` in the sweeps (`tests/condensed.rs`).
//!
//! `G` is dense, `3n × 3n`, and never formed whole: only for pads whose every `K_i` is diagonal
//! in the pad frame (a flat pad: then `K` falls apart into one `n × n` band system per axis, two
//! of them the same) and of at most [`MAX_SPHERES`] spheres, each axis' `K` is factored in its
//! band and a sphere's column of `G` is formed when the sphere first touches ([`Compliance`]).
//! With `Acceleration::Adaptive` a step condenses only where that is expected to be faster than
//! red-black sweeps over the lattice ([`condensing_pays`]); other steps and pads sweep red-black,
//! and condensed sweeps that stall ([`STALL_SWEEPS`]) hand their field to the red-black sweeps.

use nalgebra::{Matrix3, Vector3};

use crate::band::BandCholesky;
use crate::geometry::Lattice;
use crate::local::{local_step, LocalProblem, StickTerms};
use crate::red_black::sum_of_roots;
use crate::solver::{CslcPad, Prepared, StepInput, SweepEnd};

/// Largest lattice whose compliance is formed: a band factor per distinct axis (`n (b + 1)`
/// numbers, 2.1 MB for a 64 × 64 grid) and `8 n` bytes per formed column and axis.
pub(crate) const MAX_SPHERES: usize = 4096;

/// The compliance `G = K⁻¹` of a pad whose sphere stiffnesses are all diagonal, one `n × n`
/// matrix per axis; axes with the same stiffnesses (the two tangential axes of a flat pad) share
/// one matrix. Only the columns of spheres that have touched are formed, each when the sphere
/// first joins a condensed system (two band solves per distinct axis, `band.rs`), and kept: a
/// column's numbers do not depend on when it is formed. `G` is symmetric, so column `i` also
/// serves as row `i` (to rounding).
#[derive(Debug, Clone)]
pub(crate) struct Compliance {
    spheres: usize,
    /// The band factor of each distinct axis' `K`.
    factors: Vec<BandCholesky>,
    /// The formed columns of each distinct matrix, `matrix · n + sphere`.
    columns: Vec<Option<Box<[f64]>>>,
    /// The matrix of each axis.
    axis_matrix: [usize; 3],
}

impl Compliance {
    /// The compliance of `lattice` with the diagonal sphere stiffnesses `diagonals` (the `K_i`,
    /// lateral diagonal included) and the spring `lateral` per neighbour link, factored and with
    /// no column formed; `None` for a lattice larger than [`MAX_SPHERES`], an empty one, or a
    /// `K` that is not positive definite (which `local_stiffness` rules out). Each distinct axis
    /// costs a band factor, `n b²` multiply-adds for a grid `b` spheres wide.
    pub(crate) fn new(lattice: &Lattice, diagonals: &[Vector3<f64>], lateral: f64) -> Option<Compliance> {
        let n = lattice.len();
        if n == 0 || n > MAX_SPHERES || diagonals.len() != n {
            return None;
        }
        // The half-bandwidth of `K`: the farthest neighbour's index distance.
        let band = (0..n)
            .flat_map(|i| {
                lattice
                    .neighbours(i)
                    .iter()
                    .filter(|&&j| j < n)
                    .map(move |&j| i.abs_diff(j))
            })
            .max()
            .unwrap_or(0);
        let mut factors = Vec::new();
        let mut axis_matrix = [0; 3];
        for c in 0..3 {
            // An earlier axis with the same stiffnesses has the same compliance.
            if let Some(earlier) = (0..c).find(|&e| diagonals.iter().all(|d| d[e] == d[c])) {
                axis_matrix[c] = axis_matrix[earlier];
                continue;
            }
            // K of this axis: the sphere's own stiffness on the diagonal, `−K_ℓ` per neighbour
            // link (a link listed twice counts twice).
            let entry = |i: usize, j: usize| {
                let links = lattice.neighbours(i).iter().filter(|&&k| k == j).count() as f64;
                let own = if i == j {
                    diagonals.get(i).map_or(0.0, |d| d[c])
                } else {
                    0.0
                };
                own - lateral * links
            };
            axis_matrix[c] = factors.len();
            factors.push(BandCholesky::new(n, band, entry)?);
        }
        Some(Compliance {
            spheres: n,
            columns: vec![None; n * factors.len()],
            factors,
            axis_matrix,
        })
    }

    /// Forms sphere `i`'s column in every matrix, if not formed yet.
    fn form_column(&mut self, i: usize) {
        let n = self.spheres;
        if i >= n {
            return;
        }
        for (m, factor) in self.factors.iter().enumerate() {
            if let Some(slot @ None) = self.columns.get_mut(m * n + i) {
                let mut column = vec![0.0; n].into_boxed_slice();
                factor.inverse_column(i, &mut column);
                *slot = Some(column);
            }
        }
    }

    /// Column `i` of matrix `m`, if formed.
    fn column(&self, m: usize, i: usize) -> Option<&[f64]> {
        self.columns.get(m * self.spheres + i)?.as_deref()
    }

    /// Column (and row) `i` of each axis' matrix, if formed.
    fn columns(&self, i: usize) -> Option<[&[f64]; 3]> {
        let [x, y, z] = self.axis_matrix;
        Some([self.column(x, i)?, self.column(y, i)?, self.column(z, i)?])
    }

    /// `δ = Σ_{b} G_{:, active_b} forces_b` for every sphere, into `field` (the columns of
    /// `active` formed): one distinct matrix at a time in `scratch` (each column's update over
    /// contiguous numbers), then written to the axes that share it.
    fn field_of(&self, active: &[usize], forces: &[Vector3<f64>], scratch: &mut Vec<f64>, field: &mut [Vector3<f64>]) {
        let n = self.spheres;
        for index in 0..self.factors.len() {
            let axes = self.axis_matrix.map(|m| m == index);
            for (c, _) in axes.iter().enumerate().filter(|(_, shares)| **shares) {
                scratch.clear();
                scratch.resize(n, 0.0);
                let sum = &mut scratch[..n];
                let column = |j: usize| self.column(index, j);
                // Two columns a pass: half the loads and stores of the sum.
                let mut pairs = active.chunks_exact(2).zip(forces.chunks_exact(2));
                for (pair, f) in pairs.by_ref() {
                    let (Some(&[j0, j1]), Some(&[f0, f1])) = (
                        pair.get(..2).map(|p| [p[0], p[1]]).as_ref(),
                        f.get(..2).map(|f| [f[0][c], f[1][c]]).as_ref(),
                    ) else {
                        continue;
                    };
                    let (Some(g0), Some(g1)) = (column(j0), column(j1)) else {
                        continue;
                    };
                    let (g0, g1) = (&g0[..n], &g1[..n]);
                    for k in 0..n {
                        sum[k] += g0[k] * f0 + g1[k] * f1;
                    }
                }
                let odd = active.len() - active.len() % 2;
                for (&j, f) in active.iter().zip(forces).skip(odd) {
                    let Some(g) = column(j) else {
                        continue;
                    };
                    let (g, f) = (&g[..n], f[c]);
                    for k in 0..n {
                        sum[k] += g[k] * f;
                    }
                }
                for (d, v) in field.iter_mut().zip(scratch.iter()) {
                    d[c] = *v;
                }
            }
        }
    }
}

/// How many sweeps the pad's last red-black step and its last condensed step made: what
/// [`condensing_pays`] expects of the next (before either has run, one red-black sweep and two
/// condensed ones: a pad condenses its larger patches only once red-black sweeps have shown
/// they need many); and, after the
/// condensed sweeps stalled, how many steps are left before they are tried again and how long
/// the pause after the next stall will be (doubling with each stall in a row, from one step to
/// [`STALL_PAUSE_STEPS`]; back to one after a condensed step that did not stall).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SweepHistory {
    red_black: f64,
    condensed: f64,
    stall_pause: u32,
    next_pause: u32,
}

impl Default for SweepHistory {
    fn default() -> Self {
        SweepHistory {
            red_black: 1.0,
            condensed: 2.0,
            stall_pause: 0,
            next_pause: 1,
        }
    }
}

/// How much of an estimate's excess over one sweep is kept per step that does not measure it:
/// the expected sweeps of the solve not taken drift towards one, so that a pad whose first
/// red-black steps were a touch-down's (many sweeps) tries them again once its patch settles,
/// and the other way round ([`condensing_pays`]).
const FORGET: f64 = 0.95;

impl SweepHistory {
    /// Records a red-black step's sweeps; the condensed estimate drifts towards one.
    pub(crate) fn made_red_black(&mut self, sweeps: usize) {
        self.red_black = sweeps as f64;
        self.condensed = 1.0 + (self.condensed - 1.0) * FORGET;
    }

    /// Records a condensed step's sweeps; the red-black estimate drifts towards one.
    fn made_condensed(&mut self, sweeps: usize) {
        self.condensed = sweeps as f64;
        self.red_black = 1.0 + (self.red_black - 1.0) * FORGET;
    }
}

/// The longest pause, in steps, of a pad's condensed sweeps after they stalled
/// (`Acceleration::Adaptive`).
const STALL_PAUSE_STEPS: u32 = 16;

/// Condensing a step onto `touching` of `spheres` spheres is expected to take clearly less time
/// (four fifths at most) than red-black sweeps over the lattice, each making as many sweeps as it
/// made the last time it ran (`history`). The costs, in nanoseconds as timed on a 2-core Xeon
/// (`BENCHMARKS.md`, "cslc: the condensed solve, and when it pays"): a red-black sweep about 11 a
/// sphere and 30 more a touching one; a condensed step about `0.4 n m` to form the field and 1.5
/// a sphere for its passes over the lattice, and per sweep `2.5 m²` for the pulls and 90 a
/// touching sphere. So a coarse pad whose sweeps settle in one or two (gentle-grasp's 10 × 10,
/// 12 touching, where both take the same time) and a loaded 22 × 12 sole (138 of 264 touching)
/// sweep red-black, and a fine pad under a small patch — whose red-black sweeps need tens (a 30 × 30
/// pad under a ball: 45–63), the condensed ones about a dozen — condenses.
pub(crate) fn condensing_pays(touching: usize, spheres: usize, history: SweepHistory) -> bool {
    let (m, n) = (touching as f64, spheres as f64);
    let red_black = history.red_black * (11.0 * n + 30.0 * m);
    let condensed = 0.4 * n * m + 1.5 * n + history.condensed * (2.5 * m * m + 90.0 * m);
    condensed < 0.8 * red_black
}

/// The condensed sweeps give up on a step, handing their field to the red-black sweeps, when
/// the residual has not halved over this many sweeps: the touching spheres' couplings through
/// `G` are then too strong for block Gauss–Seidel (sticking spheres of a fine pad, each pinned
/// tangentially, solve a smooth dense system `G_AA f = …` sphere by sphere).
const STALL_SWEEPS: usize = 8;

/// How a step's condensed sweeps ended.
pub(crate) enum CondensedEnd {
    /// Not taken: the pad has no compliance, or condensing would not pay.
    NotTaken,
    /// Solved to the tolerance (or the iteration cap).
    Solved(SweepEnd),
    /// Stalled after `sweeps` sweeps: the field they reached, for the red-black sweeps to go on
    /// from.
    Stalled { field: Vec<Vector3<f64>>, sweeps: usize },
}

/// A step's condensed system: the touching spheres and their forces, kept in the pad between
/// steps for their storage.
#[derive(Debug, Clone, Default)]
pub(crate) struct Condensed {
    /// The spheres of `A`, in the order the sweeps visit them.
    active: Vec<usize>,
    /// Per sphere of the pad: in `A`.
    in_active: Vec<bool>,
    /// `f_a` of each sphere of `A`.
    forces: Vec<Vector3<f64>>,
    /// `G_ii⁻¹` and `G_ii` of each sphere of `A` (diagonal).
    stiffness: Vec<Matrix3<f64>>,
    compliance: Vec<Matrix3<f64>>,
    /// Storage of one axis of the field (`Compliance::field_of`).
    scratch: Vec<f64>,
}

impl Condensed {
    /// Empties `A` for a pad of `spheres` spheres.
    fn clear(&mut self, spheres: usize) {
        self.active.clear();
        self.forces.clear();
        self.stiffness.clear();
        self.compliance.clear();
        self.in_active.clear();
        self.in_active.resize(spheres, false);
    }

    /// Adds sphere `i` to `A` with the force `force`; its own blocks `G_ii` from `g`.
    fn join(&mut self, g: &mut Compliance, i: usize, force: Vector3<f64>) {
        g.form_column(i);
        let Some([x, y, z]) = g.columns(i) else {
            return;
        };
        let own = Vector3::new(
            x.get(i).copied().unwrap_or(1.0),
            y.get(i).copied().unwrap_or(1.0),
            z.get(i).copied().unwrap_or(1.0),
        );
        self.active.push(i);
        self.forces.push(force);
        self.compliance.push(Matrix3::from_diagonal(&own));
        self.stiffness.push(Matrix3::from_diagonal(&own.map(|v| 1.0 / v)));
        if let Some(flag) = self.in_active.get_mut(i) {
            *flag = true;
        }
    }
}

impl CslcPad {
    /// [`condensing_pays`] for the spheres touching at the extrapolated start
    /// `δ⁰ = δ_n + (δ_n − δ_{n−1})` (§4, "Warm start"), formed only where a sphere has a surface.
    /// The count stops at the first touching sphere for which condensing no longer pays: the
    /// rule's excess cost `condensed − 0.8 red_black` is a convex quadratic in the count `m`
    /// (`2.5 h_c ≥ 0` its leading term) and negative at `m = 0` (`1.5 n − 8.8 h_r n` with the
    /// red-black history `h_r ≥ 1`), so condensing pays for every count below a bound and for
    /// none above it. A loaded 22 × 12 sole (138 of 264 spheres touching) then stops after a few
    /// of its spheres instead of testing every one.
    fn condensing_pays_at_start(&self, prepared: &[Prepared], history: SweepHistory) -> bool {
        let n = self.lattice().len();
        let mut touching = 0;
        if !condensing_pays(touching, n, history) {
            return false;
        }
        for &i in self.reached() {
            let touches = prepared
                .get(i)
                .and_then(|here| here.surface)
                .is_some_and(|s| s.contact_at(&self.extrapolated(i)).is_some());
            if touches {
                touching += 1;
                if !condensing_pays(touching, n, history) {
                    return false;
                }
            }
        }
        true
    }

    /// A loaded step's solve under `Acceleration::Condensed` (`only_where_it_pays` false) or
    /// `Acceleration::Adaptive` (true): the condensed sweeps where the pad has a compliance (and
    /// they pay), else the red-black sweeps; each records the sweeps it made.
    pub(crate) fn condensed_or_red_black(
        &mut self,
        input: &StepInput,
        prepared: &mut [Prepared],
        floor: f64,
        only_where_it_pays: bool,
    ) -> SweepEnd {
        let (start, condensed_sweeps) = match self.condensed_sweeps(input, prepared, floor, only_where_it_pays) {
            CondensedEnd::Solved(end) => return end,
            CondensedEnd::NotTaken => (None, 0),
            CondensedEnd::Stalled { field, sweeps } => (Some(field), sweeps),
        };
        let mut end = self.red_black_sweeps(input, prepared, floor, start);
        self.sweep_history_mut().made_red_black(end.iterations + 1);
        end.iterations += condensed_sweeps;
        end
    }

    /// The condensed sweeps of a step, if the pad has a compliance and — with
    /// `only_where_it_pays` — condensing its touching spheres pays ([`condensing_pays`]). Leaves
    /// the solved field in the pad, or, if they stall, hands their field on.
    #[inline(always)]
    fn condensed_sweeps(
        &mut self,
        input: &StepInput,
        prepared: &mut [Prepared],
        floor: f64,
        only_where_it_pays: bool,
    ) -> CondensedEnd {
        if !self.can_condense() {
            return CondensedEnd::NotTaken;
        }
        let n = self.lattice().len();
        if only_where_it_pays {
            let history = self.sweep_history_mut();
            if history.stall_pause > 0 {
                history.stall_pause -= 1;
                return CondensedEnd::NotTaken;
            }
            let history = *history;
            if !self.condensing_pays_at_start(prepared, history) {
                return CondensedEnd::NotTaken;
            }
        }
        let Some(mut g) = self.take_compliance() else {
            return CondensedEnd::NotTaken;
        };
        let mut system = self.take_condensed();
        system.clear(n);
        // The start: the forces `f = K δ⁰ − b(δ⁰)` of the extrapolated field on the touching
        // spheres.
        for &i in self.reached() {
            let start = self.extrapolated(i);
            if prepared
                .get(i)
                .and_then(|here| here.surface)
                .is_some_and(|s| s.contact_at(&start).is_some())
            {
                let force = self.stiffness_times(i, &start) - self.extrapolated_pull(i);
                system.join(&mut g, i, force);
            }
        }
        let mut field = self.take_spare_field();
        field.resize(n, Vector3::zeros());
        let tolerance = self.params().tolerance;
        let max_iterations = self.params().max_iterations;
        let mut squares = self.take_squares();
        let (mut iterations, mut residual, mut converged) = (0, f64::INFINITY, false);
        // Each sweep's residual, to tell a stall (`STALL_SWEEPS`).
        let mut residuals = Vec::new();
        while iterations < max_iterations {
            squares.clear();
            let mut load = 0.0;
            for a in 0..system.active.len() {
                let (Some(&i), Some(k), Some(c)) =
                    (system.active.get(a), system.stiffness.get(a), system.compliance.get(a))
                else {
                    continue;
                };
                let Some([x, y, z]) = g.columns(i) else {
                    continue;
                };
                // u_i = Σ_{b≠a} G_ib f_b, the displacement the others' forces give sphere i.
                let mut u = Vector3::zeros();
                for (b, (&j, f)) in system.active.iter().zip(&system.forces).enumerate() {
                    if let (true, Some(gx), Some(gy), Some(gz)) = (b != a, x.get(j), y.get(j), z.get(j)) {
                        u += Vector3::new(gx * f.x, gy * f.y, gz * f.z);
                    }
                }
                let force = system.forces.get(a).copied().unwrap_or_default();
                let delta = c.diagonal().component_mul(&force) + u;
                let Some(here) = prepared.get_mut(i) else {
                    continue;
                };
                let touching = here.surface.and_then(|s| s.contact_at(&delta));
                if let (Some(contact), None) = (touching, here.stick) {
                    here.stick = Some(StickTerms::new(k, c, &contact.normal, &here.anchor));
                }
                let step = local_step(&LocalProblem {
                    stiffness: k,
                    compliance: c,
                    neighbour_pull: k.diagonal().component_mul(&u),
                    delta,
                    contact: touching.zip(here.stick.as_ref()),
                    contact_coefficient: self.contact_coefficient(i),
                    stick_limit: here.stick_limit,
                    slide_friction: input.dynamic_friction,
                });
                squares.push(step.residual_squared);
                load += step.normal_force;
                if let Some(f) = system.forces.get_mut(a) {
                    *f = k.diagonal().component_mul(&(step.delta - u));
                }
            }
            residual = sum_of_roots(&mut squares) / f64::max(load, floor);
            if residual <= tolerance {
                // The whole field, and the spheres it brings into contact.
                g.field_of(&system.active, &system.forces, &mut system.scratch, &mut field);
                let before = system.active.len();
                for &i in self.reached() {
                    let (Some(here), Some(delta)) = (prepared.get(i), field.get(i)) else {
                        continue;
                    };
                    let joins = !system.in_active.get(i).copied().unwrap_or(true)
                        && here.surface.is_some_and(|s| s.contact_at(delta).is_some());
                    if joins {
                        system.join(&mut g, i, Vector3::zeros());
                    }
                }
                if system.active.len() == before {
                    converged = true;
                    break;
                }
            }
            residuals.push(residual);
            iterations += 1;
            let stalled = iterations >= STALL_SWEEPS
                && residuals
                    .get(iterations - STALL_SWEEPS)
                    .is_some_and(|&earlier| residual > 0.5 * earlier);
            if stalled && iterations < max_iterations {
                g.field_of(&system.active, &system.forces, &mut system.scratch, &mut field);
                // The stick terms were formed with `G_ii⁻¹`; the sweeps form their own with `K_i`.
                prepared.iter_mut().for_each(|p| p.stick = None);
                self.keep_squares(squares);
                self.keep_condensed(system);
                self.keep_compliance(g);
                let history = self.sweep_history_mut();
                history.made_condensed(iterations);
                history.stall_pause = history.next_pause;
                history.next_pause = (2 * history.next_pause).min(STALL_PAUSE_STEPS);
                return CondensedEnd::Stalled {
                    field,
                    sweeps: iterations,
                };
            }
        }
        if !converged {
            g.field_of(&system.active, &system.forces, &mut system.scratch, &mut field);
        }
        self.keep_squares(squares);
        self.keep_condensed(system);
        self.keep_compliance(g);
        self.commit_field(field);
        let history = self.sweep_history_mut();
        history.made_condensed(iterations + 1);
        history.next_pause = 1;
        CondensedEnd::Solved(SweepEnd {
            iterations,
            residual,
            converged,
        })
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::Vector3;

    use super::{condensing_pays, Compliance, SweepHistory};
    use crate::PadGeometry;

    /// The cases `condensing_pays`'s documentation names, with the sweeps they were measured to
    /// make.
    #[test]
    fn condensing_pays_where_its_costs_say() {
        let history = |red_black, condensed| SweepHistory {
            red_black,
            condensed,
            ..SweepHistory::default()
        };
        // A walker sole of 22 × 12 cells, loaded: 138 of 264 spheres touching, three sweeps either way.
        assert!(!condensing_pays(138, 264, history(3.0, 3.0)));
        // A 30 × 30 pad under a sliding ball: 52 touching, red-black 64 sweeps, condensed 11.
        assert!(condensing_pays(52, 900, history(64.0, 11.0)));
        // The same pad creeping: red-black 17; the condensed sweeps stall after 8 and hand on.
        assert!(!condensing_pays(52, 900, history(17.0, 24.0)));
    }

    /// Once condensing stops paying for a touching count, it pays for no larger count: what lets
    /// `condensing_pays_at_start` stop counting at the first count that does not pay. Checked
    /// in f64 over pads of 4 to 1024 spheres and the histories a pad can hold (each at least
    /// one sweep, the red-black one up to the cap, the condensed one drifting towards one).
    #[test]
    fn condensing_stops_paying_for_good_as_the_patch_grows() {
        let sweeps = [1.0, 1.05, 1.5, 2.0, 3.0, 4.7, 8.0, 11.0, 17.0, 24.0, 64.0, 100.0, 200.0];
        for n in [4usize, 10, 36, 100, 264, 900, 1024] {
            for &red_black in &sweeps {
                for &condensed in &sweeps {
                    let history = SweepHistory {
                        red_black,
                        condensed,
                        ..SweepHistory::default()
                    };
                    let first_not = (0..=n).find(|&m| !condensing_pays(m, n, history));
                    if let Some(first) = first_not {
                        assert!(
                            (first..=n).all(|m| !condensing_pays(m, n, history)),
                            "n {n}, history {red_black}/{condensed}: pays again above {first}"
                        );
                    }
                    assert!(condensing_pays(0, n, history), "n {n}: an empty patch always pays");
                }
            }
        }
    }

    /// `G` inverts the lattice stiffness `K` axis by axis: `K G = I` to rounding (a 7 × 5 pad,
    /// whose border spheres have fewer neighbours; the tangential axes share one matrix), and is
    /// symmetric to rounding, so that a column serves as the row.
    #[test]
    fn the_compliance_inverts_the_lattice_stiffness() {
        let lattice = PadGeometry::flat(7, 5, 1e-3).build().expect("lattice");
        let n = lattice.len();
        let lateral = 3.0e3;
        let diagonals: Vec<Vector3<f64>> = (0..n)
            .map(|i| {
                let links = lattice.neighbours(i).iter().filter(|&&j| j < n).count() as f64;
                Vector3::new(500.0, 500.0, 1000.0) + Vector3::repeat(lateral * links)
            })
            .collect();
        let mut g = Compliance::new(&lattice, &diagonals, lateral).expect("compliance");
        assert_eq!(g.factors.len(), 2, "x and y share their matrix");
        // Formed in a scrambled order: a column does not depend on when it is formed.
        for i in (0..n).map(|k| (11 * k + 3) % n) {
            g.form_column(i);
        }
        for (axis, &matrix) in g.axis_matrix.iter().enumerate() {
            let entry = |row: usize, col: usize| g.column(matrix, col).expect("formed")[row];
            for (i, diagonal) in diagonals.iter().enumerate() {
                for col in 0..n {
                    // (K G)_{i,col} = K_ii G_{i,col} − K_ℓ Σ_{j ~ i} G_{j,col}
                    let mut sum = diagonal[axis] * entry(i, col);
                    for &j in lattice.neighbours(i).iter().filter(|&&j| j < n) {
                        sum -= lateral * entry(j, col);
                    }
                    let expected = if i == col { 1.0 } else { 0.0 };
                    let (a, b) = (entry(i, col), entry(col, i));
                    assert!(
                        (a - b).abs() <= 1e-14 * a.abs().max(b.abs()),
                        "axis {axis}: G not symmetric at ({i}, {col})"
                    );
                    assert!(
                        (sum - expected).abs() < 1e-12,
                        "axis {axis}: (K G)[{i}, {col}] = {sum:e}"
                    );
                }
            }
        }
    }
}
