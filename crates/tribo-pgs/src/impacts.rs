//! Impacts within a step: speculative contacts struck by the step's other impulses.
//!
//! **The defect this answers.** A speculative contact (gap g > 0 at the start of the step) asks
//! `v_n⁺ ≥ −g / h`: the surfaces may close the gap within the step but not cross (Catto,
//! *Continuous Collision*, GDC 2013, "speculative contacts"). Newton's restitution needs the
//! approach speed at the instant of contact, and contacts.rs can only read it from the velocities
//! before the step. When another contact's impulse of the same step drives the gap shut — ball a
//! strikes ball b, which stands less than `v h` from ball c — the b–c contact had no approach
//! before the step, gets no restitution target, and the one LCP treats both contacts as one
//! simultaneous impact with b–c perfectly inelastic at `−g / h`. For three equal balls with e = 1
//! that keeps 0.83–0.86 of the kinetic energy.
//!
//! **The rule: impacts in the order they happen, each with Newton's law at its instant.** The
//! struck contact's impact comes after the one that strikes it, so it is resolved after it, in
//! the manner of sequential collision processing (Guendelman, Bridson & Fedkiw, "Nonconvex rigid
//! bodies with stacking", SIGGRAPH 2003, §6: collisions resolved one after another with
//! restitution, each from the velocities the previous ones left), with the impact laws of the
//! velocity-level LCP (Stewart & Trinkle, IJNME 39, 1996; Anitescu & Potra, Nonlinear Dynamics
//! 14, 1997) inside each pass:
//!
//! 1. The step's LCP is solved as built (solve.rs). A contact that carries a [`Strike`] (speculative,
//!    rigid, e > 0, no restitution target from its own approach, and a free normal velocity that
//!    does not shut the gap) takes an impulse only when it is driven to its bound `−g / h`, i.e.
//!    shut within the step by the others. If none does, that answer stands (so steps without such
//!    impacts are unchanged).
//! 2. Otherwise the struck contacts are set aside and the LCP of the others is solved (pass 0,
//!    warm-started from step 1): the impacts that come first.
//! 3. With the velocities v this leaves, a set-aside contact whose normal velocity `u = v_n`
//!    shuts its gap within the step (`u h < −g`) is struck now, approaching at `v_a = −u`: Newton's
//!    law at its instant, `v_n⁺ ≥ max(−g / h, e v_a)` when `v_a` exceeds the restitution threshold
//!    (else `−g / h`, as in contacts.rs). It joins a further LCP on the impulse *increments* from v,
//!    where every contact already resolved keeps its impulse and its target without restitution
//!    (its own impact is over; it may push harder, never pull): 0 ≤ Δλ ⊥ A Δλ + (v − target) ≥ 0.
//!    Increments in the cone sum to a total in the cone, and each pass's velocities satisfy every
//!    target of the contacts in it, so the step keeps non-penetration.
//! 4. Repeat 3 until no set-aside contact is struck; the contacts never struck keep no impulse
//!    (they do not shut). After [`IMPACT_PASSES`] passes the last one takes every set-aside contact
//!    (struck ones with restitution, the others at `−g / h`), so no gap is crossed.
//!
//! The passes take only the contact islands (islands.rs) that hold a set-aside contact, each swept
//! on its own: an impulse moves only its island's bodies, so no other island's contact can be
//! struck, and the other islands keep the impulses of step 1 as they are. A scene's islands then
//! move as each would alone, whatever impacts happen elsewhere (`tests/parts.rs`).
//!
//! Three balls with e = 1, b 0.5 mm from c at h = 1 ms: pass 0 is a–b alone, a stops and b takes
//! 1 m/s; b–c then shuts (1 m/s × 1 ms > 0.5 mm) at v_a = 1 m/s, so pass 1 asks `v_c − v_b ≥ 1`
//! with a–b at `v_b − v_a ≥ 0`: b stops, c leaves at 1 m/s, kinetic energy kept exactly.
//!
//! A contact that its free motion shuts (a body landing under gravity) gets no [`Strike`]: its
//! approach this step is its own, and it keeps the speculative bound and the restitution rule of
//! contacts.rs, whose threshold `2 a h` (a the gravity's magnitude) on the approach before the
//! step keeps resting bodies from hopping. Read on the approach after this step's gravity
//! instead, a body landing from a gap would bounce at `e (v + a h)` every time and hop forever at
//! about `e a h / (1 − e)` (test `resting_bodies_with_restitution_do_not_bounce_on_gravity`).
//!
//! Touching contacts (no gap) are not speculative: a–b–c touching is one simultaneous impact, the
//! LCP's (−1/3, 2/3, 2/3) m/s (lib.rs docs, *Contact model*).
//!
//! The report adds every sweep (pivot) of step 1 and the passes; residual and complementarity are
//! the worst of the passes that made the answer, and it converged if all of them did.

use nalgebra::{DVector, Vector3};
use tribo_lcp::{ContactProblem, DelassusRows, FactoredDelassus, Pgs, SolveReport};

use crate::contacts::ContactRow;
use crate::error::SolveError;
use crate::options::PgsOptions;
use crate::solve::{solve_rigid, Assembled};

/// Passes after which every set-aside contact joins (module docs, step 4).
pub(crate) const IMPACT_PASSES: usize = 8;

/// A speculative rigid contact with restitution but no restitution target of its own: what
/// [`resolve_impacts`] needs to resolve its impact if the step's other impulses shut it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Strike {
    /// Coefficient of restitution e (> 0).
    pub restitution: f64,
    /// Approach speed below which no restitution applies, m/s.
    pub threshold: f64,
}

/// Resolves the impacts on struck speculative contacts (module docs). `rows` are the contact rows
/// the problem was assembled from, read for their targets (`target`, `settled_target`: a struck
/// contact's settled normal target is its speculative bound `−g / h`) and [`Strike`]s; `lambda`
/// holds the solution of the step's rigid problem on entry and the step's impulses on return,
/// `first` the report of that solve. Returns the report and whether `lambda` is still that
/// solution (no contact was struck).
pub(crate) fn resolve_impacts(
    assembled: &Assembled,
    rows: &[ContactRow],
    lambda: &mut DVector<f64>,
    pgs: &mut Pgs,
    options: &PgsOptions,
    first: SolveReport,
) -> Result<(SolveReport, bool), SolveError> {
    let problem = &assembled.problem;
    let mut pending: Vec<bool> = rows
        .iter()
        .enumerate()
        .map(|(c, row)| row.strike.is_some() && lambda.get(3 * c).is_some_and(|&l| l > 0.0))
        .collect();
    if !pending.contains(&true) {
        return Ok((first, true));
    }
    let mut report = SolveReport {
        iterations: first.iterations,
        residual: 0.0,
        complementarity: 0.0,
        converged: true,
        stalled: false,
    };
    // The islands with a set-aside contact (module docs): only their contacts take part (`taken`),
    // each until a pass strikes none of its contacts (`live`, `in_pass`), as if it were alone.
    let islands = assembled.islands.groups();
    let mut live: Vec<&[usize]> = Vec::new();
    let mut taken = vec![false; rows.len()];
    for island in islands
        .iter()
        .filter(|i| i.iter().any(|&c| pending.get(c) == Some(&true)))
    {
        live.push(island);
        for &c in island {
            if let Some(slot) = taken.get_mut(c) {
                *slot = true;
            }
        }
    }
    let mut in_pass = taken.clone();
    let mut targets: Vec<Vector3<f64>> = rows.iter().map(|row| row.target).collect();
    let mut base = DVector::zeros(lambda.len());
    let mut start = lambda.clone();
    for (c, _) in pending.iter().enumerate().filter(|(_, p)| **p) {
        start.fixed_rows_mut::<3>(3 * c).fill(0.0);
    }
    let mut position = vec![usize::MAX; rows.len()];
    let mut pass_islands: Vec<Vec<usize>> = Vec::new();
    for pass in 0.. {
        let active: Vec<usize> = (0..rows.len()).filter(|&c| in_pass[c] && !pending[c]).collect();
        // Each struck island's active contacts, by their positions in `active` (ascending).
        for (k, &c) in active.iter().enumerate() {
            position[c] = k;
        }
        pass_islands.clear();
        pass_islands.extend(
            live.iter()
                .map(|island| {
                    island
                        .iter()
                        .filter(|&&c| !pending[c])
                        .map(|&c| position[c])
                        .collect::<Vec<usize>>()
                })
                .filter(|island| !island.is_empty()),
        );
        let pass_problem = PassProblem {
            active: &active,
            islands: &pass_islands,
        };
        let (total, pass_report) = solve_pass(problem, rows, &base, &targets, pass_problem, &start, pgs, options)?;
        report.iterations += pass_report.iterations;
        report.residual = report.residual.max(pass_report.residual);
        report.complementarity = report.complementarity.max(pass_report.complementarity);
        report.converged &= pass_report.converged;
        report.stalled |= pass_report.stalled;
        base = total;

        // Set-aside contacts that the velocities now shut are struck (module docs, step 3).
        let velocity = contact_velocities(problem, rows, &base);
        let last = pass + 1 >= IMPACT_PASSES;
        let mut struck = vec![false; rows.len()];
        for (c, row) in rows.iter().enumerate().filter(|(c, _)| pending[*c] && in_pass[*c]) {
            let Some(strike) = row.strike else { continue };
            let u = velocity.get(3 * c).copied().unwrap_or(0.0);
            let settled = row.settled_target.x;
            let shuts = u < settled;
            if shuts || last {
                struck[c] = true;
                let approach = -u;
                let target = if shuts && approach > strike.threshold {
                    settled.max(strike.restitution * approach)
                } else {
                    settled
                };
                targets[c] = Vector3::new(target, 0.0, 0.0);
            }
        }
        if !struck.contains(&true) {
            break;
        }
        for (c, row) in rows.iter().enumerate() {
            if struck[c] {
                pending[c] = false;
            } else {
                targets[c] = row.settled_target;
            }
        }
        // An island none of whose contacts was struck is done: its impulses stand.
        live.retain(|island| {
            let struck_here = island.iter().any(|&c| struck[c]);
            if !struck_here {
                island.iter().for_each(|&c| in_pass[c] = false);
            }
            struck_here
        });
        start = DVector::zeros(lambda.len());
    }
    // The islands the passes did not take keep step 1's impulses.
    for (c, taken) in taken.iter().enumerate() {
        if !taken {
            base.fixed_rows_mut::<3>(3 * c)
                .copy_from(&lambda.fixed_rows::<3>(3 * c));
        }
    }
    *lambda = base;
    Ok((report, false))
}

/// The contacts of one pass: `active` (ascending) and their islands, by positions in `active`.
struct PassProblem<'a> {
    active: &'a [usize],
    islands: &'a [Vec<usize>],
}

/// `A λ + b + target`: the contact velocities (normal, t₁, t₂) after the impulses λ, with each
/// compliant row's `cfm λ` included.
fn contact_velocities(
    problem: &ContactProblem<FactoredDelassus>,
    rows: &[ContactRow],
    lambda: &DVector<f64>,
) -> DVector<f64> {
    let mut velocity = DVector::zeros(lambda.len());
    problem.delassus.multiply(lambda.as_slice(), velocity.as_mut_slice());
    velocity += &problem.free_velocity;
    for (c, row) in rows.iter().enumerate() {
        let mut v = velocity.fixed_rows_mut::<3>(3 * c);
        v += row.target;
    }
    velocity
}

/// One pass: the LCP of the pass's `active` contacts on the increments from the impulses `base`,
/// the rows' targets `targets`, island by island; `start` warm-starts the increments (full size,
/// read on `active`). Returns `base` plus the increments, and the solve's report.
#[allow(clippy::too_many_arguments)]
fn solve_pass(
    problem: &ContactProblem<FactoredDelassus>,
    rows: &[ContactRow],
    base: &DVector<f64>,
    targets: &[Vector3<f64>],
    pass: PassProblem,
    start: &DVector<f64>,
    pgs: &mut Pgs,
    options: &PgsOptions,
) -> Result<(DVector<f64>, SolveReport), SolveError> {
    let PassProblem { active, islands } = pass;
    // b_pass = A base + b − (target_pass − target): exactly the step's b for the first pass.
    let mut pushed = DVector::zeros(base.len());
    problem.delassus.multiply(base.as_slice(), pushed.as_mut_slice());
    let mut bias = DVector::zeros(3 * active.len());
    let mut delta = DVector::zeros(3 * active.len());
    for (k, &c) in active.iter().enumerate() {
        let (Some(row), Some(target)) = (rows.get(c), targets.get(c)) else {
            return Err(SolveError::ImpactContact { contact: c });
        };
        let b = problem.free_velocity.fixed_rows::<3>(3 * c) + pushed.fixed_rows::<3>(3 * c) - (target - row.target);
        bias.fixed_rows_mut::<3>(3 * k).copy_from(&b);
        delta
            .fixed_rows_mut::<3>(3 * k)
            .copy_from(&start.fixed_rows::<3>(3 * c));
    }
    if active.is_empty() {
        return Ok((base.clone(), SolveReport::NOTHING_TO_SOLVE));
    }
    let frictions = active
        .iter()
        .filter_map(|&c| problem.contacts.get(c).copied())
        .collect();
    let sub = ContactProblem::new(problem.delassus.restricted(active), bias, frictions).map_err(SolveError::Problem)?;
    let report = solve_rigid(&sub, &mut delta, islands, pgs, options)?;
    let mut total = base.clone();
    for (k, &c) in active.iter().enumerate() {
        let mut slot = total.fixed_rows_mut::<3>(3 * c);
        slot += delta.fixed_rows::<3>(3 * k);
    }
    Ok((total, report))
}
