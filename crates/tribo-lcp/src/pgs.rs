//! Projected Gauss–Seidel (`docs/design/contact-mechanics.md` §4.2.3), for the plain LCP and, block by
//! block, for contacts.
//!
//! **LCP.** One sweep visits i = 0..n in order and sets, with the latest values of every λⱼ,
//!
//! λᵢ ← max(0, λᵢ − ω (Σⱼ Aᵢⱼλⱼ + bᵢ) / Aᵢᵢ),  ω ∈ (0, 2)
//!
//! (the chapter's iteration formula; exercise 4.5: it converges for symmetric positive definite A).
//!
//! **Contacts** (block Gauss–Seidel, in the manner of the AIST solver). For contact c = 0..n in order:
//!
//! 1. normal: λₙ ← max(0, λₙ − ω wₙ / Aₙₙ), with wₙ = (Aλ + b)ₙ;
//! 2. friction, with the tangential velocity recomputed from the new λₙ and the radius r = μλₙ:
//!    - box: for k = 1, 2 in turn, λₜₖ ← clamp(λₜₖ − ω wₜₖ / Aₜₖₜₖ, −r, r);
//!    - pyramid and cone: λₜ ← Π_F(r)(λₜ − ω s wₜ), with one step s = 1/λ_max(Aₜₜ) for both tangents
//!      (Aₜₜ the contact's 2×2 tangential block). A scalar step keeps the fixed point the maximum
//!      dissipation condition wₜᵀ(λₜ' − λₜ) ≥ 0 for all λₜ' ∈ F(r); a per-axis step would tilt it by
//!      the block's anisotropy. The cone projection is the "scale back onto the circle" of the AIST
//!      solver; the pyramid projection is the Euclidean one onto the inscribed polygon
//!      ([`crate::friction::project_onto_polygon`]).
//!
//! The three velocities of contact c come from one walk over its rows
//! ([`DelassusRows::block_row_dot`], with λ as the contact is reached); steps 1 and 2 then add the
//! diagonal block's share of the contact's own updates (wₜ += Aₜₙ Δλₙ, and for the box
//! w₂ += A₂₁ Δλₜ₁), which is the same Gauss–Seidel sweep with the sums in another order.
//!
//! The pyramid fixed point is the solution of the Stewart–Trinkle LCP that [`crate::lemke`] solves
//! (same normal complementarity, same maximum dissipation over the same polygon), which the tests use.
//!
//! **Termination.** During a sweep the solver records the natural-map residual of each row just before
//! updating it (free, since wᵢ is computed anyway). When that sweep residual is at most the tolerance,
//! the exact residual of the final λ is computed with one product Aλ (see [`crate::report`]); the solve
//! stops when that is at most the tolerance too, or after `max_iterations` sweeps. Reaching the cap is
//! not an error (fixed-iteration PGS is the usual real-time choice): the report says `converged: false`.
//! The sweeps also stop when they have *stalled*: three sweeps in a row whose residual differs from
//! the one before by at most a relative 1e-6. That is the sweep of a problem with no solution on the
//! current active set (λ moving along the null space of A from sweep to sweep, the velocities, and so
//! the residual, not changing); the cap would leave the same residual. Before that, the sweeps'
//! motion is carried on to the first bound it reaches (`crate::drift`, at most [`DRIFT_STEPS`]
//! times an island, and not again after a step that did not lower the residual), where the active
//! set changes and the sweeps converge; only a motion that meets no bound, or whose step does not
//! lower the residual, ends the island stalled. The report then says `converged: false` with that
//! residual and `stalled: true`.
//!
//! **Warm start.** λ is read on entry (for example last step's impulses) and projected onto the
//! feasible set before the first sweep. The sweep allocates nothing; [`Pgs`] keeps its two scratch
//! vectors between calls.
//!
//! **Least-norm start** (islands within `least_norm_start_rows` and `subspace_rows`). A warm start from a
//! step whose contacts persist is close to the solution, but the first sweeps would move it in
//! the order they visit the contacts: the change of a rank-deficient face contact's load (a
//! box's four corners, a biped's sole) then lands on the first corners visited and shifts load
//! along the null space, where an elastic interface would spread it evenly. So the island's
//! residual is first taken at the warm start (one pass over its block rows, the cost of a sweep):
//! at most the tolerance, the warm start is the answer and no sweep runs (the report says 0
//! iterations); else, unless sweeps converging as fast as any the subspace steps leave alone
//! would reach the tolerance in fewer sweeps than a step costs (a residual within some 40 times
//! the tolerance: a change too small to matter where it lands), one subspace step from the warm
//! start (`crate::subspace`: the least-norm change on the warm start's active set, which never
//! moves λ along the null space) comes before the sweeps, which confirm it or go on from it.
//!
//! **Newton polish** (islands of at most `newton_contacts` cone contacts). While a contact slides
//! on the rim of its friction disc the sweeps slow to 0.9–0.99 per sweep, and the subspace steps,
//! which hold a sliding contact's λₜ, do not land. When such an island's sweeps would still need
//! more than some fifteen sweeps at their current rate, semismooth Newton steps on the natural map
//! (`crate::newton`, up to eight while each lowers the residual by 5 %) are taken instead, at most
//! three such polishes per solve and three sweeps apart; the sweeps go on from it and judge the
//! answer by the usual residual, and a polish that reaches the tolerance is confirmed by the exact
//! residual at once.

use nalgebra::DVector;

use crate::contact::ContactProblem;
use crate::delassus::DelassusRows;
use crate::drift::DriftStep;
use crate::error::{check_finite, check_len, Error, Result};
use crate::friction::FrictionModel;
use crate::lcp::Lcp;
use crate::newton::NewtonPolish;
use crate::report::{lcp_report, worst, worst_contact_errors, SolveReport};
use crate::snapshot::IslandSnapshot;
use crate::subspace::{Reuse, SubspaceStep};

/// Options of projected Gauss–Seidel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PgsOptions {
    /// ω, the over-relaxation factor, in (0, 2). Default 1 (plain Gauss–Seidel).
    pub relaxation: f64,
    /// Stop when the natural-map residual is at most this (≥ 0; mixed N·s / m/s). Default 1e-9.
    pub tolerance: f64,
    /// Sweep cap. Default 1000.
    pub max_iterations: usize,
    /// Subspace steps (`crate::subspace`, PGS-SM) for islands with at most this many free rows;
    /// 0 (the default): plain sweeps.
    pub subspace_rows: usize,
    /// Start each island of at most this many rows (three per contact) that gets subspace steps
    /// from the warm start's residual (module docs, *Least-norm start*): no sweep when the warm
    /// start solves it, else one subspace step before the sweeps. 0 (the default): off.
    pub least_norm_start_rows: usize,
    /// Newton polish (`crate::newton`) of islands of at most this many cone contacts whose sweeps
    /// slow down on a sliding contact (module docs, *Newton polish*); 0 (the default): off.
    pub newton_contacts: usize,
}

impl Default for PgsOptions {
    fn default() -> Self {
        Self {
            relaxation: 1.0,
            tolerance: 1e-9,
            max_iterations: 1000,
            subspace_rows: 0,
            least_norm_start_rows: 0,
            newton_contacts: 0,
        }
    }
}

impl PgsOptions {
    /// Check the ranges.
    pub fn validate(&self) -> Result<()> {
        if !(self.relaxation > 0.0 && self.relaxation < 2.0) {
            return Err(Error::InvalidOption {
                name: "relaxation",
                value: self.relaxation,
                expected: "0 < ω < 2",
            });
        }
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(Error::InvalidOption {
                name: "tolerance",
                value: self.tolerance,
                expected: "a finite number ≥ 0",
            });
        }
        Ok(())
    }
}

/// A projected Gauss–Seidel solver with reusable scratch space (one per engine, called every step).
#[derive(Debug, Clone, Default)]
pub struct Pgs {
    /// The options used by every solve.
    pub options: PgsOptions,
    inverse_diagonal: Vec<f64>,
    tangent_step: Vec<f64>,
    /// Each contact's couplings within its diagonal block A_cc that the sweep's within-contact
    /// updates read, `[A₁ₙ, A₂ₙ, A₂₁]` (rows t₁, t₂ against the rows updated before them): three
    /// numbers where the whole block is nine: 48 bytes less written per contact and step.
    couplings: Vec<[f64; 3]>,
    /// The operator's velocity state (`DelassusRows::velocity_len`; body velocity changes of a
    /// factored operator), kept consistent with λ through the sweep.
    velocity: Vec<f64>,
    /// Working storage of the subspace steps.
    subspace: SubspaceStep,
    /// Working storage of the Newton polish.
    newton: NewtonPolish,
    /// Working storage of the drift steps.
    drift: DriftStep,
    /// An island's λ before a subspace step, to put back if the step is not kept.
    guard: IslandSnapshot,
}

impl Pgs {
    /// A solver with these options.
    pub fn new(options: PgsOptions) -> Self {
        Self {
            options,
            inverse_diagonal: Vec::new(),
            tangent_step: Vec::new(),
            couplings: Vec::new(),
            velocity: Vec::new(),
            subspace: SubspaceStep::default(),
            newton: NewtonPolish::default(),
            drift: DriftStep::default(),
            guard: IslandSnapshot::default(),
        }
    }

    /// The operator's velocity state `Δv(λ)` (`DelassusRows::velocity_len` entries; empty when
    /// the operator keeps none) of the λ the last contact solve returned, kept consistent with λ
    /// through its sweeps: the body velocity changes of a factored operator's bodies, summed as
    /// the impulses changed rather than afresh (equal to `DelassusRows::body_velocities` of that λ
    /// up to rounding). Meaningless after a solve that returned an error.
    pub fn body_velocities(&self) -> &[f64] {
        &self.velocity
    }

    /// Solve 0 ≤ λ ⊥ Aλ + b ≥ 0. `lambda` is the warm start on entry and the solution on return.
    pub fn solve_lcp<D: DelassusRows + ?Sized>(
        &mut self,
        a: &D,
        b: &DVector<f64>,
        lambda: &mut DVector<f64>,
    ) -> Result<SolveReport> {
        self.options.validate()?;
        let n = a.dim();
        check_len("b", n, b.len())?;
        check_len("initial λ", n, lambda.len())?;
        check_finite("b", b.as_slice())?;
        check_finite("initial λ", lambda.as_slice())?;
        self.inverse_diagonal.clear();
        for row in 0..n {
            let value = a.entry(row, row);
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::NonPositiveDiagonal { row, value });
            }
            self.inverse_diagonal.push(1.0 / value);
        }
        lambda.iter_mut().for_each(|l| *l = l.max(0.0));

        let PgsOptions {
            relaxation: omega,
            tolerance,
            max_iterations,
            ..
        } = self.options;
        let lam = lambda.as_mut_slice();
        for iteration in 1..=max_iterations {
            let mut sweep_residual = 0.0_f64;
            for ((row, bi), inv) in b.iter().enumerate().zip(&self.inverse_diagonal) {
                let w = a.row_dot(row, lam) + bi;
                if !w.is_finite() {
                    return Err(Error::Diverged { iteration });
                }
                let Some(li) = lam.get_mut(row) else { break };
                sweep_residual = sweep_residual.max(li.min(w).abs());
                *li = (*li - omega * w * inv).max(0.0);
            }
            if sweep_residual <= tolerance {
                let report = lcp_report(a, b, &DVector::from_column_slice(lam), iteration, tolerance);
                if report.converged {
                    return Ok(report);
                }
            }
        }
        Ok(lcp_report(a, b, lambda, max_iterations, tolerance))
    }

    /// Solve the frictional contact problem by block projected Gauss–Seidel (module docs).
    /// `lambda` (3 per contact: normal, t₁, t₂) is the warm start on entry and the solution on return.
    pub fn solve_contacts<D: DelassusRows>(
        &mut self,
        problem: &ContactProblem<D>,
        lambda: &mut DVector<f64>,
    ) -> Result<SolveReport> {
        problem.validate()?;
        self.solve_valid_contacts(problem, lambda)
    }

    /// [`Self::solve_contacts`] on a problem already checked by [`ContactProblem::validate`] (as
    /// [`ContactProblem::new`] does) and not changed since: the check is not repeated. An engine that
    /// builds its problem with `new` and solves it several times a step validates it once.
    pub fn solve_valid_contacts<D: DelassusRows>(
        &mut self,
        problem: &ContactProblem<D>,
        lambda: &mut DVector<f64>,
    ) -> Result<SolveReport> {
        let all: Vec<usize> = (0..problem.contacts.len()).collect();
        self.solve_valid_contacts_in_islands(problem, lambda, &[all])
    }

    /// [`Self::solve_valid_contacts`] island by island: `islands` partitions the contacts into
    /// groups that A does not couple (Aᵢⱼ = 0 for i and j in different islands; each island's
    /// contacts ascending). Each island is swept, in the problem's contact order, until its own
    /// residual meets the tolerance or the cap is reached, so a settled island stops while another
    /// goes on; decoupled islands do not see each other's sweeps, so the result is the one each
    /// island's own solve gives, whatever the order of the islands. (Should two islands be coupled
    /// after all, each still stops only on a residual computed with every current λ.) Contacts
    /// in no island keep their warm start. The report: iterations = the largest island's sweeps,
    /// residual and complementarity = the worst over the contacts, converged = every island did.
    pub fn solve_valid_contacts_in_islands<D: DelassusRows>(
        &mut self,
        problem: &ContactProblem<D>,
        lambda: &mut DVector<f64>,
        islands: &[Vec<usize>],
    ) -> Result<SolveReport> {
        self.solve_valid_contacts_in_islands_from(problem, lambda, islands, None)
    }

    /// [`Self::solve_valid_contacts_in_islands`] with the operator's velocity state of the
    /// warm start `lambda` known: `known` (of [`DelassusRows::velocity_len`] entries) is taken
    /// as `Δv(λ)` instead of being summed from every contact's impulse — another solve's
    /// [`Self::body_velocities`] on an operator with the same factored part and the same contacts
    /// and friction, whose final λ this solve starts from. That λ is feasible already, so it is
    /// taken as it is, not projected again: a projection onto the friction disc is not
    /// idempotent to the last bit (a point on the rim is scaled again by `r/|t|` within rounding),
    /// and contacts the other solve projected but did not sweep must leave it as they would a solve
    /// of their own. `None`, or a state of another length: the warm start is projected and the
    /// state summed afresh.
    pub fn solve_valid_contacts_in_islands_from<D: DelassusRows>(
        &mut self,
        problem: &ContactProblem<D>,
        lambda: &mut DVector<f64>,
        islands: &[Vec<usize>],
        known: Option<&[f64]>,
    ) -> Result<SolveReport> {
        self.options.validate()?;
        check_len("initial λ", problem.free_velocity.len(), lambda.len())?;
        check_finite("initial λ", lambda.as_slice())?;
        self.prepare_contact_steps(problem)?;

        let a = &problem.delassus;
        let mut velocity = std::mem::take(&mut self.velocity);
        velocity.clear();
        let known = known.filter(|k| k.len() == a.velocity_len());
        if let Some(known) = known {
            velocity.extend_from_slice(known);
        }
        // Warm start: project onto the feasible set (a tangent row of zero diagonal carries nothing),
        // unless it is another solve's final λ (`known`, doc above).
        if known.is_none() {
            for ((friction, l), inv) in problem
                .contacts
                .iter()
                .zip(lambda.as_mut_slice().chunks_exact_mut(3))
                .zip(self.inverse_diagonal.chunks_exact(3))
            {
                l[0] = l[0].max(0.0);
                let t = friction.model.project([l[1], l[2]], friction.mu * l[0]);
                (l[1], l[2]) = (t[0] * active(inv[1]), t[1] * active(inv[2]));
            }
        }

        let tolerance = self.options.tolerance;
        let lam = lambda.as_mut_slice();
        if known.is_none() {
            velocity.resize(a.velocity_len(), 0.0);
            a.body_velocities(lam, &mut velocity);
        }
        let mut report = SolveReport {
            iterations: 0,
            residual: 0.0,
            complementarity: 0.0,
            converged: true,
            stalled: false,
        };
        let mut outcome = Ok(());
        for island in islands {
            let mut island_report = None;
            let mut schedule = SubspaceSchedule::default();
            let mut stall = Stall::default();
            // The residual before a least-norm start's step made with a kept factor.
            let mut kept_step_from = None;
            if 3 * island.len() <= self.options.least_norm_start_rows && self.options.subspace_rows > 0 {
                let entry = island_errors(problem, lam, &velocity, island, 0, tolerance);
                if entry.converged {
                    report.residual = worst(report.residual, entry.residual);
                    report.complementarity = worst(report.complementarity, entry.complementarity);
                    continue;
                }
                if sweeps_at_fast_rate(entry.residual, tolerance) > SUBSPACE_COST {
                    let rows = self.subspace.select(problem, lam, island, &self.inverse_diagonal);
                    if rows > 0 && rows <= self.options.subspace_rows {
                        self.guard.take(lam, island);
                        if self.subspace.apply(problem, lam, &mut velocity, Reuse::SameRows) {
                            kept_step_from = Some(entry.residual);
                        }
                    }
                }
            }
            let mut drift_steps = 0;
            // The residual an in-sweep subspace step started from, until the sweep after it.
            let mut step_from: Option<f64> = None;
            let mut polish = PolishSchedule::new(
                island.len() <= self.options.newton_contacts
                    && NewtonPolish::applies(problem, island, &self.inverse_diagonal),
            );
            for iteration in 1..=self.options.max_iterations {
                if drift_steps < DRIFT_STEPS && stall.about_to_stall() {
                    self.drift.remember(lam, island);
                }
                let mut sweep_residual = 0.0_f64;
                for &contact in island {
                    match self.update_contact(problem, lam, &mut velocity, contact, iteration) {
                        Ok(r) => sweep_residual = sweep_residual.max(r),
                        Err(e) => {
                            outcome = Err(e);
                            break;
                        }
                    }
                }
                if outcome.is_err() {
                    break;
                }
                if let Some(before) = kept_step_from.take() {
                    // The start's step did not land (a changed operator, or active set): the next
                    // one factors afresh; one that made the residual far worse is undone.
                    if sweep_residual.is_nan() || sweep_residual > SUBSPACE_GAIN * before {
                        self.subspace.forget_factor();
                    }
                    if far_worse(sweep_residual, before) && iteration < self.options.max_iterations {
                        self.guard.restore(problem, lam, &mut velocity, island);
                        continue;
                    }
                }
                if let Some(before) = step_from.take() {
                    if far_worse(sweep_residual, before) && iteration < self.options.max_iterations {
                        // The step's active set was wrong enough that the sweeps would first have
                        // to repair it: undone, with the sweep after it.
                        self.guard.restore(problem, lam, &mut velocity, island);
                        schedule.undone();
                        continue;
                    }
                }
                let stalled = stall.stalled(sweep_residual);
                if sweep_residual <= tolerance || iteration == self.options.max_iterations || stalled {
                    let mut checked = island_errors(problem, lam, &velocity, island, iteration, tolerance);
                    if stalled
                        && !checked.converged
                        && drift_steps < DRIFT_STEPS
                        && iteration < self.options.max_iterations
                    {
                        // The sweeps drift along the null space of A: carried on to the first
                        // bound (`crate::drift`); a step that does not lower the residual ends
                        // the drift steps of this solve.
                        let measure =
                            |l: &[f64], v: &[f64]| island_errors(problem, l, v, island, iteration, tolerance).residual;
                        let moved = self
                            .drift
                            .step(problem, lam, &mut velocity, island, checked.residual, measure);
                        drift_steps = if moved { drift_steps + 1 } else { DRIFT_STEPS };
                        if moved {
                            stall = Stall::default();
                            continue;
                        }
                    }
                    let done = checked.converged || iteration == self.options.max_iterations || stalled;
                    checked.stalled = stalled && !checked.converged && iteration < self.options.max_iterations;
                    island_report = Some(checked);
                    if done {
                        break;
                    }
                }
                let worth_a_step = schedule.sweeps_left(sweep_residual, tolerance) > SUBSPACE_COST;
                if worth_a_step && self.options.subspace_rows > 0 {
                    let rows = self.subspace.select(problem, lam, island, &self.inverse_diagonal);
                    if rows > 0 && rows <= self.options.subspace_rows {
                        schedule.stepped(sweep_residual);
                        self.guard.take(lam, island);
                        if self.subspace.apply(problem, lam, &mut velocity, Reuse::Never) {
                            step_from = Some(sweep_residual);
                        }
                        polish.restart();
                        continue;
                    }
                }
                if polish.due(sweep_residual, tolerance, || any_sliding(problem, lam, island)) {
                    let polished = self.newton.polish(problem, lam, &mut velocity, island, tolerance);
                    if polished.is_some_and(|r| r <= tolerance) {
                        let checked = island_errors(problem, lam, &velocity, island, iteration, tolerance);
                        let converged = checked.converged;
                        island_report = Some(checked);
                        if converged {
                            break;
                        }
                    }
                }
            }
            if outcome.is_err() {
                break;
            }
            if let Some(r) = island_report {
                report.iterations = report.iterations.max(r.iterations);
                report.residual = worst(report.residual, r.residual);
                report.complementarity = worst(report.complementarity, r.complementarity);
                report.converged &= r.converged;
                report.stalled |= r.stalled;
            }
        }
        self.velocity = velocity;
        outcome.map(|()| report)
    }

    /// One Gauss–Seidel update of `contact` (module docs); returns its part of the sweep residual.
    #[inline(always)]
    fn update_contact<D: DelassusRows>(
        &self,
        problem: &ContactProblem<D>,
        lam: &mut [f64],
        velocity: &mut [f64],
        contact: usize,
        iteration: usize,
    ) -> Result<f64> {
        let omega = self.options.relaxation;
        let a = &problem.delassus;
        let b = problem.free_velocity.as_slice();
        let Some(friction) = problem.contacts.get(contact) else {
            return Ok(0.0);
        };
        let mut sweep_residual = 0.0_f64;
        let base = 3 * contact;
        let (Some(bc), Some(inv), Some(&step), Some(&[a1n, a2n, a21])) = (
            b.get(base..base + 3),
            self.inverse_diagonal.get(base..base + 3),
            self.tangent_step.get(contact),
            self.couplings.get(contact),
        ) else {
            return Ok(0.0);
        };

        // One walk over the contact's block row gives its three rows with the λ of entry;
        // the updates below correct them by the diagonal block (Gauss–Seidel within the
        // contact: each row sees the rows updated before it).
        let [wn, w1_entry, w2_entry] = a.block_row_dot_with(contact, lam, velocity);
        let entry = match lam.get(base..base + 3) {
            Some(&[l0, l1, l2]) if !velocity.is_empty() => [l0, l1, l2],
            _ => [0.0; 3],
        };
        let wn = wn + bc[0];

        // 1. Normal row.
        let Some(ln) = lam.get_mut(base) else { return Ok(0.0) };
        let old_ln = *ln;
        *ln = (old_ln - omega * wn * inv[0]).max(0.0);
        let ln = *ln;
        let radius = friction.mu * ln;
        let d_ln = ln - old_ln;

        // 2. Tangential pair, with velocities from the updated normal impulse.
        let w1 = w1_entry + bc[1] + a1n * d_ln;
        if friction.model == FrictionModel::Box {
            let Some(t1) = lam.get_mut(base + 1) else {
                return Ok(0.0);
            };
            let res1 = (*t1 - (*t1 - w1).clamp(-radius, radius)).abs() * active(inv[1]);
            let old_t1 = *t1;
            *t1 = (*t1 - omega * w1 * inv[1]).clamp(-radius, radius);
            let d_t1 = *t1 - old_t1;
            let w2 = w2_entry + bc[2] + a2n * d_ln + a21 * d_t1;
            let Some(t2) = lam.get_mut(base + 2) else {
                return Ok(0.0);
            };
            let res2 = (*t2 - (*t2 - w2).clamp(-radius, radius)).abs() * active(inv[2]);
            *t2 = (*t2 - omega * w2 * inv[2]).clamp(-radius, radius);
            if !(wn.is_finite() && w1.is_finite() && w2.is_finite()) {
                return Err(Error::Diverged { iteration });
            }
            sweep_residual = sweep_residual.max(old_ln.min(wn).abs()).max(res1).max(res2);
        } else {
            let w2 = w2_entry + bc[2] + a2n * d_ln;
            if !(wn.is_finite() && w1.is_finite() && w2.is_finite()) {
                return Err(Error::Diverged { iteration });
            }
            let Some(t) = lam.get_mut(base + 1..base + 3) else {
                return Ok(0.0);
            };
            // A tangent of zero diagonal (prepare_contact_steps) is held at 0.
            let (on1, on2) = (active(inv[1]), active(inv[2]));
            let (w1, w2) = (w1 * on1, w2 * on2);
            let natural = friction.model.project([t[0] - w1, t[1] - w2], radius);
            let res_t = (t[0] - natural[0] * on1).abs().max((t[1] - natural[1] * on2).abs());
            let next = friction
                .model
                .project([t[0] - omega * step * w1, t[1] - omega * step * w2], radius);
            (t[0], t[1]) = (next[0] * on1, next[1] * on2);
            sweep_residual = sweep_residual.max(old_ln.min(wn).abs()).max(res_t);
        }
        // The operator's velocity state follows the contact's change (a no-op for an
        // assembled operator).
        if let (false, Some(now)) = (velocity.is_empty(), lam.get(base..base + 3)) {
            let delta = [now[0] - entry[0], now[1] - entry[1], now[2] - entry[2]];
            if delta != [0.0; 3] {
                a.add_impulse(contact, delta, velocity);
            }
        }
        Ok(sweep_residual)
    }

    /// Per-row 1/Aᵢᵢ and per-contact tangential step 1/λ_max(Aₜₜ) (symmetric part of the 2×2 block).
    ///
    /// A normal diagonal must be positive. A tangential diagonal of exactly 0 marks a direction the
    /// contact cannot act in (A is positive semi-definite, so its whole row is 0): its inverse is
    /// stored as 0 and its impulse is held at 0 ([`Self::solve_contacts`]); both tangents at 0 give a
    /// step of 0.
    fn prepare_contact_steps<D: DelassusRows>(&mut self, problem: &ContactProblem<D>) -> Result<()> {
        let a = &problem.delassus;
        self.inverse_diagonal.clear();
        self.tangent_step.clear();
        self.couplings.clear();
        for contact in 0..problem.contacts.len() {
            let base = 3 * contact;
            let block = a.diagonal_block(contact);
            self.couplings.push([block[(1, 0)], block[(2, 0)], block[(2, 1)]]);
            for row in base..base + 3 {
                let value = block[(row - base, row - base)];
                if row > base && value == 0.0 {
                    self.inverse_diagonal.push(0.0);
                    continue;
                }
                if !(value.is_finite() && value > 0.0) {
                    return Err(Error::NonPositiveDiagonal { row, value });
                }
                self.inverse_diagonal.push(1.0 / value);
            }
            let (p, q) = (block[(1, 1)], block[(2, 2)]);
            let off = 0.5 * (block[(1, 2)] + block[(2, 1)]);
            let largest = 0.5 * (p + q) + (0.25 * (p - q) * (p - q) + off * off).sqrt();
            self.tangent_step.push(if largest > 0.0 { 1.0 / largest } else { 0.0 });
        }
        Ok(())
    }
}

/// Whether an island's sweeps have stalled (module docs, *Termination*): [`STALL_SWEEPS`] sweeps in
/// a row whose residual differs from the one before by at most [`STALL_CHANGE`] of it.
#[derive(Debug, Default)]
struct Stall {
    /// The last sweep residual (none before the first sweep).
    last: Option<f64>,
    /// Sweeps in a row that have not moved the residual.
    still: usize,
}

/// A sweep whose residual differs from the one before by at most this fraction of it has not moved.
const STALL_CHANGE: f64 = 1e-6;

/// An island whose residual has not moved for this many sweeps in a row has stalled.
const STALL_SWEEPS: usize = 3;

/// Drift steps (`crate::drift`) per island and solve at most.
const DRIFT_STEPS: usize = 4;

impl Stall {
    /// The next sweep stalls the island if it does not move the residual either.
    fn about_to_stall(&self) -> bool {
        self.still + 1 >= STALL_SWEEPS
    }

    /// Records a sweep's residual; true once the sweeps have stalled.
    fn stalled(&mut self, residual: f64) -> bool {
        let still = self
            .last
            .is_some_and(|last| (residual - last).abs() <= STALL_CHANGE * last);
        self.still = if still { self.still + 1 } else { 0 };
        self.last = Some(residual);
        self.still >= STALL_SWEEPS
    }
}

/// When an island's sweeps take a Newton polish (`crate::newton`). The island must be one the
/// polish applies to, hold a contact on the rim of its friction disc (sliding: the subspace steps
/// hold such a contact and cannot land there), and sweep at least [`NEWTON_SPACING`] sweeps since
/// the last step; and its sweeps, at the slower of their last two rates, must still need more than
/// [`NEWTON_COST`] sweeps to reach the tolerance. At most [`NEWTON_TRIES`] polishes per solve.
#[derive(Debug)]
struct PolishSchedule {
    /// The island can be polished at all.
    applies: bool,
    /// The last two sweep residuals.
    previous: [f64; 2],
    /// Sweeps since the last step (subspace or Newton) or the start.
    sweeps: usize,
    /// Polishes taken in this solve.
    tries: usize,
}

/// The sweeps still needed above which a polish is taken. A polish (the island's Jacobian, the
/// normal equations and their factor: some 8–12 sweeps of an eight-contact island) pays when the
/// sweeps would take longer. Measured on the SR1 walk and the walker (`tribo-bench time`, BENCHMARKS.md,
/// "pgs: a Newton polish of sliding islands"): 8, 15 and 30 left the walk's time within 2 % of each
/// other; 15 gave the walker's fastest.
const NEWTON_COST: f64 = 15.0;

/// Polishes per solve at most.
const NEWTON_TRIES: usize = 3;

/// Sweeps between a step and the next polish, so that the rate measured is the one after it.
const NEWTON_SPACING: usize = 3;

impl PolishSchedule {
    fn new(applies: bool) -> Self {
        Self {
            applies,
            previous: [f64::NAN; 2],
            sweeps: 0,
            tries: 0,
        }
    }

    /// A subspace step was taken.
    fn restart(&mut self) {
        self.sweeps = 0;
    }

    /// Records a sweep's residual; true when a polish is due now (and counts it).
    fn due(&mut self, residual: f64, tolerance: f64, sliding: impl FnOnce() -> bool) -> bool {
        let [older, last] = self.previous;
        self.previous = [last, residual];
        self.sweeps += 1;
        if !self.applies
            || self.tries >= NEWTON_TRIES
            || self.sweeps < NEWTON_SPACING
            || residual.is_nan()
            || residual <= tolerance
        {
            return false;
        }
        let rate = (residual / last).max(last / older);
        let left = if rate < 1.0 {
            (tolerance / residual).ln() / rate.ln()
        } else {
            f64::INFINITY
        };
        if left.is_nan() || left <= NEWTON_COST || !sliding() {
            return false;
        }
        self.tries += 1;
        self.sweeps = 0;
        true
    }
}

/// Does a contact of the island sit on the rim of its friction disc with a load (|λₜ| = μλₙ > 0,
/// to a relative 1e-9 of the squares)?
fn any_sliding<D>(problem: &ContactProblem<D>, lambda: &[f64], island: &[usize]) -> bool {
    island
        .iter()
        .any(|&c| match (problem.contacts.get(c), lambda.get(3 * c..3 * c + 3)) {
            (Some(friction), Some(&[ln, t1, t2])) => {
                let r = friction.mu * ln;
                ln > 0.0 && t1 * t1 + t2 * t2 >= r * r * (1.0 - 1e-9)
            }
            _ => false,
        })
}

/// When an island's sweeps take a subspace step (`crate::subspace`). The sweeps must have
/// settled into linear convergence — two sweeps in a row, after at least three, each gaining less
/// than [`SUBSPACE_RATE`] — and, at the slower of those two rates, still need more sweeps to reach
/// the tolerance than the step costs ([`SUBSPACE_COST`]): an island hovering just above the
/// tolerance sweeps on. After a step the sweeps run at least two sweeps before the next, so that
/// the rate measured is the one after the step; a step after which the next sweep's residual is
/// not [`SUBSPACE_GAIN`] times smaller than before it (the active set is still moving) ends the
/// steps for this solve, and one after which that residual is more than [`SUBSPACE_GUARD`] times
/// the one it started from is undone as well, with the sweep after it.
#[derive(Debug, Default)]
struct SubspaceSchedule {
    /// The last two sweep residuals.
    previous: [f64; 2],
    /// Sweeps since the last step (or the start).
    sweeps: usize,
    /// The sweep residual before the last step, until the sweep after it has been seen.
    before_step: Option<f64>,
    /// No more steps in this solve.
    done: bool,
}

/// A subspace step after which the next sweep's residual exceeds this many times the residual the
/// step started from is undone, with that sweep: its active set was wrong enough that the sweeps
/// would first have to repair it.
const SUBSPACE_GUARD: f64 = 10.0;

/// A sweep residual that is NaN or above [`SUBSPACE_GUARD`] times `before`, the residual a subspace
/// step started from.
fn far_worse(residual: f64, before: f64) -> bool {
    residual.is_nan() || residual > SUBSPACE_GUARD * before
}

/// Sweeps converging faster than this factor per sweep are left alone.
const SUBSPACE_RATE: f64 = 0.3;

/// A subspace step must make the next sweep's residual this much smaller than the one before it.
const SUBSPACE_GAIN: f64 = 0.01;

/// The sweeps still needed (at the current rate) above which a subspace step is taken. Measured
/// (callgrind, `pgs_steps sr1 1000` and `tribo-bench time` on `samples/bench`; BENCHMARKS.md, seventh
/// round): on SR1's two feet (24 rows, 8 contacts on one articulated body, rank 12) a step costs
/// about 52k instructions (58k before the flat factor and gram of `crate::pivoted_cholesky`; a
/// 4.6 kB zeroing counted per byte among them), a sweep of the island about 5.1k: a step costs
/// some 10 sweeps. But the estimate of the sweeps left undercounts what a step saves: the steps
/// taken at a threshold of 3 and not at 10 (261 in 1000 SR1 steps) saved 10.7 sweeps each. The
/// threshold of 3 gave the fewest instructions: SR1 standing 476.4 M (6: 476.2 M, 10: 477.0 M,
/// 16: 488.1 M), SR1 walk 1–6700 4.263 G (4.275, 4.270, 4.286 G); pile-50 1–400 1.199 G against
/// 1.195 G before the round.
const SUBSPACE_COST: f64 = 3.0;

/// The sweeps from `residual` to `tolerance` at [`SUBSPACE_RATE`], the slowest rate the sweeps
/// are left alone at: fewer than [`SUBSPACE_COST`] and a step does not pay even if the sweeps
/// turn out slow (module docs, *Least-norm start*).
fn sweeps_at_fast_rate(residual: f64, tolerance: f64) -> f64 {
    (tolerance / residual).ln() / SUBSPACE_RATE.ln()
}

impl SubspaceSchedule {
    /// Records a sweep's residual; when a step may come next, the sweeps still needed to reach
    /// `tolerance` at the current rate (infinite when the sweeps do not converge), else 0.
    fn sweeps_left(&mut self, residual: f64, tolerance: f64) -> f64 {
        if let Some(before) = self.before_step.take() {
            self.done |= residual.is_nan() || residual > SUBSPACE_GAIN * before;
        }
        let [older, last] = self.previous;
        self.previous = [last, residual];
        self.sweeps += 1;
        if self.done || self.sweeps < 3 || residual.is_nan() || residual <= tolerance {
            return 0.0;
        }
        let rate = (residual / last).max(last / older);
        if rate.is_nan() || rate < SUBSPACE_RATE {
            return 0.0;
        }
        if rate < 1.0 {
            (tolerance / residual).ln() / rate.ln()
        } else {
            f64::INFINITY
        }
    }

    /// The last step was undone (with the sweep after it): no more steps in this solve.
    fn undone(&mut self) {
        self.before_step = None;
        self.done = true;
    }

    /// A step is taken now, at this sweep residual.
    fn stepped(&mut self, residual: f64) {
        self.sweeps = 0;
        self.before_step = Some(residual);
    }
}

/// The report of one island's contacts (velocities from their block rows, with every current λ
/// and the operator's velocity state `velocity` kept consistent with it).
fn island_errors<D: DelassusRows>(
    problem: &ContactProblem<D>,
    lambda: &[f64],
    velocity: &[f64],
    island: &[usize],
    iterations: usize,
    tolerance: f64,
) -> SolveReport {
    let contacts = island.iter().filter_map(|&c| {
        let (Some(friction), Some(l), Some(b)) = (
            problem.contacts.get(c),
            lambda.get(3 * c..3 * c + 3),
            problem.free_velocity.as_slice().get(3 * c..3 * c + 3),
        ) else {
            return None;
        };
        let w = problem.delassus.block_row_dot_with(c, lambda, velocity);
        Some((friction, [l[0], l[1], l[2]], [w[0] + b[0], w[1] + b[1], w[2] + b[2]]))
    });
    let (residual, complementarity) = worst_contact_errors(contacts);
    SolveReport::ended(iterations, residual, complementarity, tolerance)
}

/// 1 for a row that takes part in the solve, 0 for a tangent row of zero diagonal (inverse 0).
fn active(inverse_diagonal: f64) -> f64 {
    if inverse_diagonal == 0.0 {
        0.0
    } else {
        1.0
    }
}

/// Solve an LCP by projected Gauss–Seidel from λ = 0.
pub fn solve_lcp_pgs(lcp: &Lcp, options: &PgsOptions) -> Result<(DVector<f64>, SolveReport)> {
    lcp.validate()?;
    let mut lambda = DVector::zeros(lcp.dim());
    let report = Pgs::new(*options).solve_lcp(&lcp.a, &lcp.b, &mut lambda)?;
    Ok((lambda, report))
}

/// Solve a contact problem by block projected Gauss–Seidel from λ = 0.
pub fn solve_contacts_pgs<D: DelassusRows>(
    problem: &ContactProblem<D>,
    options: &PgsOptions,
) -> Result<(DVector<f64>, SolveReport)> {
    let mut lambda = DVector::zeros(problem.free_velocity.len());
    let report = Pgs::new(*options).solve_contacts(problem, &mut lambda)?;
    Ok((lambda, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    #[test]
    fn two_by_two_lcp_with_one_active_row() {
        // A = [[2, 1], [1, 2]], b = [−2, 1]: λ = (1, 0), w = (0, 2).
        let lcp = Lcp::new(
            DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]),
            DVector::from_vec(vec![-2.0, 1.0]),
        )
        .expect("valid");
        let (lambda, report) = solve_lcp_pgs(&lcp, &PgsOptions::default()).expect("solves");
        assert!((lambda[0] - 1.0).abs() < 1e-12 && lambda[1] == 0.0, "{lambda}");
        assert!(report.converged && report.iterations <= 3, "{report:?}");
    }

    #[test]
    fn options_and_inputs_are_checked() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 0.0]);
        let b = DVector::from_vec(vec![-1.0, -1.0]);
        let mut lambda = DVector::zeros(2);
        let mut pgs = Pgs::new(PgsOptions::default());
        assert_eq!(
            pgs.solve_lcp(&a, &b, &mut lambda),
            Err(Error::NonPositiveDiagonal { row: 1, value: 0.0 })
        );
        let mut short = DVector::zeros(1);
        assert!(matches!(
            pgs.solve_lcp(&a, &b, &mut short),
            Err(Error::DimensionMismatch { .. })
        ));
        pgs.options.relaxation = 2.0;
        assert!(matches!(
            pgs.solve_lcp(&a, &b, &mut lambda),
            Err(Error::InvalidOption { name: "relaxation", .. })
        ));
    }

    #[test]
    fn a_zero_tangent_row_carries_no_impulse_but_a_zero_normal_is_an_error() {
        use crate::contact::ContactFriction;
        // One contact pushed into its surface (b_n = −1) with A = diag(1, 0, 2): t₁ cannot act.
        for model in [FrictionModel::Box, FrictionModel::Cone] {
            let a = DMatrix::from_diagonal(&DVector::from_vec(vec![1.0, 0.0, 2.0]));
            let b = DVector::from_vec(vec![-1.0, 0.0, -0.1]);
            let friction = ContactFriction { mu: 0.5, model };
            let problem = ContactProblem::new(a, b.clone(), vec![friction]).expect("valid");
            let mut lambda = DVector::from_vec(vec![0.0, 0.3, 0.0]);
            let report = Pgs::new(PgsOptions::default())
                .solve_contacts(&problem, &mut lambda)
                .expect("solves");
            assert!(report.converged, "{model:?}: {report:?}");
            assert!(
                (lambda[0] - 1.0).abs() < 1e-12 && lambda[1] == 0.0,
                "{model:?}: {lambda}"
            );
            assert!((lambda[2] - 0.05).abs() < 1e-12, "{model:?}: {lambda}");
            let zero_normal = DMatrix::from_diagonal(&DVector::from_vec(vec![0.0, 1.0, 1.0]));
            let problem = ContactProblem::new(zero_normal, b, vec![friction]).expect("valid");
            assert_eq!(
                Pgs::new(PgsOptions::default()).solve_contacts(&problem, &mut lambda),
                Err(Error::NonPositiveDiagonal { row: 0, value: 0.0 })
            );
        }
    }

    #[test]
    fn divergence_is_an_error_not_nan() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, f64::INFINITY, 0.0, 1.0]);
        let b = DVector::from_vec(vec![-1.0, -1.0]);
        let mut lambda = DVector::zeros(2);
        let result = Pgs::new(PgsOptions::default()).solve_lcp(&a, &b, &mut lambda);
        assert!(matches!(result, Err(Error::Diverged { .. })), "{result:?}");
    }

    #[test]
    fn islands_are_solved_on_their_own() {
        use crate::contact::ContactFriction;
        // Two uncoupled contacts (block-diagonal A): island by island each stops on its own
        // residual, with the impulses of its solve alone; the joint solve agrees to tolerance.
        let a = DMatrix::from_fn(6, 6, |i, j| match (i / 3 == j / 3, i == j) {
            (_, true) => 2.0 + i as f64 * 0.1,
            (true, false) => 0.3,
            (false, false) => 0.0,
        });
        let b = DVector::from_vec(vec![-1.0, 0.4, -0.2, -3.0, 0.1, 0.05]);
        let friction = ContactFriction::new(0.3, FrictionModel::Cone);
        let options = PgsOptions {
            tolerance: 1e-12,
            ..PgsOptions::default()
        };
        let problem = ContactProblem::new(a.clone(), b.clone(), vec![friction; 2]).expect("valid");
        let mut apart = DVector::zeros(6);
        let islands = [vec![1], vec![0]];
        let report = Pgs::new(options)
            .solve_valid_contacts_in_islands(&problem, &mut apart, &islands)
            .expect("solves");
        assert!(report.converged, "{report:?}");
        for (k, c) in [0_usize, 1].into_iter().enumerate() {
            let sub = a.view((3 * c, 3 * c), (3, 3)).into_owned();
            let alone = ContactProblem::new(sub, b.rows(3 * c, 3).into_owned(), vec![friction]).expect("valid");
            let mut lambda = DVector::zeros(3);
            let own = Pgs::new(options).solve_contacts(&alone, &mut lambda).expect("solves");
            assert_eq!(lambda.as_slice(), &apart.as_slice()[3 * c..3 * c + 3], "island {k}");
            assert!(own.iterations <= report.iterations);
        }
        let mut together = DVector::zeros(6);
        let joint = Pgs::new(options)
            .solve_contacts(&problem, &mut together)
            .expect("solves");
        assert!(joint.converged && (&together - &apart).amax() < 1e-10);
    }

    /// Two contacts pressed down hard (λₙ = 1000) whose first tangents are the same direction of
    /// one body (A_tt = [[1, 1], [1, 1]]) and are asked for opposite velocities (b = +1, −1): no λ
    /// inside the friction boxes gives both, and Gauss–Seidel moves λ along the null space (λ_t of
    /// one up and the other's down by the same amount each sweep, nothing else changing) with the
    /// residual the same from sweep to sweep, until a box bound is reached.
    fn opposed_tangents(mu: f64) -> ContactProblem<DMatrix<f64>> {
        use crate::contact::ContactFriction;
        let mut a = DMatrix::identity(6, 6);
        a[(1, 4)] = 1.0;
        a[(4, 1)] = 1.0;
        let b = DVector::from_vec(vec![-1000.0, 1.0, 0.0, -1000.0, -1.0, 0.0]);
        let friction = ContactFriction::new(mu, FrictionModel::Box);
        ContactProblem::new(a, b, vec![friction; 2]).expect("valid")
    }

    /// `problem` solved from zero with the default options.
    fn solved_from_zero(problem: &ContactProblem<DMatrix<f64>>) -> (DVector<f64>, SolveReport) {
        let mut lambda = DVector::zeros(problem.free_velocity.len());
        let report = Pgs::new(PgsOptions::default())
            .solve_contacts(problem, &mut lambda)
            .expect("solves");
        (lambda, report)
    }

    #[test]
    fn sweeps_that_drift_to_a_bound_are_carried_there() {
        use crate::report::contact_report;
        // Friction boxes of ±1000: the sweeps would reach the bound some 500 sweeps on; the drift
        // step (`crate::drift`) takes λ there at once. There both contacts slide at their limits:
        // λ_t = ∓1000, the shared velocity w_t = b ± (λ_t1 + λ_t2) = ±1 against each, the exact
        // solution (residual 0).
        let problem = opposed_tangents(1.0);
        let (lambda, report) = solved_from_zero(&problem);
        assert!(report.converged && !report.stalled, "{report:?}");
        assert!(report.iterations < 20, "{report:?}");
        assert_eq!((lambda[0], lambda[3]), (1000.0, 1000.0));
        assert!(
            (lambda[1] + 1000.0).abs() < 1e-9 && (lambda[4] - 1000.0).abs() < 1e-9,
            "{lambda}"
        );
        let exact = contact_report(&problem, &lambda, report.iterations, 1e-9);
        assert!(exact.converged, "{exact:?}");
    }

    #[test]
    fn sweeps_that_stall_stop_early_and_say_so() {
        use crate::contact::ContactFriction;
        use crate::report::contact_report;
        // The same with friction boxes of ±1e15: the bound is some 5e14 sweeps away, beyond what a
        // drift step reaches, and the island is reported stalled.
        let problem = opposed_tangents(1e12);
        let (mut lambda, report) = solved_from_zero(&problem);
        assert!(report.stalled && !report.converged, "{report:?}");
        assert!(report.iterations < 10, "{report:?}");
        // Honest: the residual reported is the one of the λ returned, far above the tolerance.
        let exact = contact_report(&problem, &lambda, report.iterations, 1e-9);
        assert!(
            (report.residual - exact.residual).abs() <= 1e-12 * exact.residual,
            "{report:?} {exact:?}"
        );
        assert!(report.residual > 0.5, "{report:?}");
        // A problem with a solution is solved, not stopped as stalled.
        let solvable = ContactProblem::new(
            DMatrix::identity(6, 6),
            DVector::from_vec(vec![-1.0, 0.1, 0.0, -1.0, -0.1, 0.0]),
            vec![ContactFriction::new(1.0, FrictionModel::Box); 2],
        )
        .expect("valid");
        let report = Pgs::new(PgsOptions::default())
            .solve_contacts(&solvable, &mut lambda)
            .expect("solves");
        assert!(report.converged && !report.stalled, "{report:?}");
    }

    #[test]
    fn warm_start_from_the_solution_stops_at_once() {
        let lcp = Lcp::new(
            DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]),
            DVector::from_vec(vec![-2.0, 1.0]),
        )
        .expect("valid");
        let mut lambda = DVector::from_vec(vec![1.0, 0.0]);
        let report = Pgs::new(PgsOptions::default())
            .solve_lcp(&lcp.a, &lcp.b, &mut lambda)
            .expect("solves");
        assert_eq!(report.iterations, 1);
        assert!(report.converged);
    }
}
