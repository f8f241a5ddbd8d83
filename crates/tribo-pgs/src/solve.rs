//! The contact LCP of one step on the Delassus operator `A = J M̃⁻¹ Jᵀ`
//! (`docs/design/contact-mechanics.md` §4.2.2), in
//! block-sparse form: contacts i and j are coupled only through a body they share, so A is the
//! sum over dynamic bodies B of `J_B M̃_B⁻¹ J_Bᵀ` restricted to B's contacts, each computed with
//! B's tree factorisation (tribo-multibody `TreeFactorisation::delassus`) and stored as 3×3 blocks
//! (tribo-lcp `BlockSparseDelassus`). Compliant rows add their `cfm` to the diagonal.
//!
//! **Free rigid bodies stay factored.** For a body with six velocity coordinates the blocks
//! `j_c M̃⁻¹ j_c'ᵀ` are not formed: the operator keeps each contact's rows `j_c` (3 × 6) and
//! `g_c = M̃⁻¹ j_cᵀ` (M̃⁻¹ once per body and step), and the sweep keeps the body's velocity change
//! `Δv = Σ g_c λ_c`, reading `(Aλ)_c` as `j_c Δv` (tribo-lcp `FactoredDelassus`, the velocity-space
//! form of the same Gauss–Seidel sweep, as sequential-impulse solvers do). A box in a pile touches
//! eight contacts (four below, four above), so a contact costs 2 × 36 multiply-adds per visit instead
//! of a walk over the 12 blocks of its row (9 each, the contact updates of its own block aside), and the
//! ~64 blocks per box are never assembled. Articulated bodies keep their assembled blocks.
//!
//! **Islands** (islands.rs): contacts that share no dynamic body are independent problems; PGS
//! sweeps each island until its own residual meets the tolerance.
//!
//! The problem `0 ≤ λₙ ⊥ (Aλ + b)ₙ ≥ 0` with friction in the chosen cone is solved by projected
//! Gauss–Seidel (tribo-lcp `Pgs`) or, for small problems with a polyhedral cone, Lemke's method.
//! **Warm start**: each contact starts from last step's impulse of the same link pair at the
//! nearest previous point (within 1 cm in link a's frame), re-expressed in the new contact frame.
//!
//! **Load sharing.** With rigid contacts the normal impulses of a face contact's points are not
//! unique: the four corners of a box on a face, or of two finger plates squeezing a book, carry
//! the same wrench with their load spread evenly or piled on one corner. Gauss–Seidel from zero
//! piles it on the first point it visits (the others see no approach left), the warm start keeps
//! it there, and that solution is a legitimate one of the rigid LCP (Lemke finds the like) — but
//! the unloaded points have no friction, so a grasp pivots about the loaded corner however hard it
//! squeezes. The physical spread is the one of a slightly elastic interface. So each step, before
//! the rigid solve, a few sweeps ([`LOAD_SHARING_SWEEPS`]) go to the *load-sharing problem*: the
//! same LCP plus, on the normal rows of each link pair whose resting rigid points (no restitution
//! target) number n ≥ 2, the term `ε C (λₙ − λₙ⁰)` with `C = I − 1 1ᵀ / n` (deviation from the
//! pair's mean), λₙ⁰ the warm start and `ε = load_sharing ×` the mean of the pair's normal
//! Delassus diagonals. C leaves a pair's total normal impulse alone; the term makes any change of
//! the pair's distribution cost ε: from no warm start (new contacts) the load starts out spread
//! like equal springs, later changes are spread as evenly as the mechanics allows, and a warm
//! start that already solves the step is left as it is (the term vanishes there). The rigid solve
//! then starts from that λ, so the step's answer is still a solution of the rigid LCP, to the
//! usual tolerance. Lemke, which cannot be warm-started, solves the load-sharing problem itself:
//! its velocities then carry the term's `ε C (λₙ − λₙ⁰)`, zero once the distribution settles.

use std::collections::BTreeMap;

use nalgebra::{DMatrix, DVector, Matrix3, Matrix3x6, Matrix6, Vector3};
use tribo_engine::LinkRef;
use tribo_lcp::{
    solve_contacts_lemke, BlockSparseDelassus, ContactFriction, ContactProblem, DelassusRows, FactoredDelassus,
    FactoredSide, LemkeOptions, Pgs, SolveReport,
};
use tribo_multibody::VelocityStep;

use crate::contacts::ContactRow;
use crate::error::SolveError;
use crate::impacts::{resolve_impacts, Targets};
use crate::islands::islands;
use crate::options::{PgsOptions, SolverKind};

/// A dynamic body's stacked Jacobian over its contacts.
pub(crate) struct BodyRows {
    pub body: usize,
    /// Contact indices, ascending; rows 3r..3r+3 of `jacobian` belong to `contacts[r]`.
    pub contacts: Vec<usize>,
    pub jacobian: DMatrix<f64>,
}

/// Projected Gauss–Seidel sweeps on the load-sharing problem before each rigid solve (module docs).
pub(crate) const LOAD_SHARING_SWEEPS: usize = 5;

/// The assembled problem.
pub(crate) struct Assembled {
    pub problem: ContactProblem<FactoredDelassus>,
    /// The load-sharing problem (module docs), when some link pair has two or more resting rigid
    /// points and `load_sharing` > 0.
    pub sharing: Option<ContactProblem<FactoredDelassus>>,
    pub bodies: Vec<BodyRows>,
    /// Each contact's targets, for the impacts within the step (impacts.rs).
    pub targets: Vec<Targets>,
    /// The contacts in independent groups, solved one after the other (islands.rs).
    pub islands: Vec<Vec<usize>>,
}

/// Stacks every dynamic body's rows and sums the Delassus blocks; with `load_sharing` > 0 also
/// builds the load-sharing problem around the warm start `warm` (module docs).
pub(crate) fn assemble(
    rows: &[ContactRow],
    steps: &[Option<VelocityStep>],
    inverses: &[Option<Matrix6<f64>>],
    load_sharing: f64,
    warm: &DVector<f64>,
) -> Result<Assembled, SolveError> {
    let mut per_body: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (c, row) in rows.iter().enumerate() {
        for side in [&row.side_a, &row.side_b].into_iter().flatten() {
            let list = per_body.entry(side.body).or_default();
            if list.last() != Some(&c) {
                list.push(c);
            }
        }
    }
    // The blocks in the order they are summed (bodies ascending, then the compliance), gathered and
    // stored in one go (BlockSparseDelassus::from_blocks sums equal (i, j) in this order). Bodies
    // with six coordinates (free rigid bodies) stay factored (module docs).
    let mut blocks: Vec<(usize, usize, Matrix3<f64>)> = Vec::new();
    let mut factored: Vec<(usize, FactoredSide)> = Vec::new();
    let mut slots = 0;
    let mut bodies = Vec::with_capacity(per_body.len());
    for (body, contacts) in per_body {
        let Some(Some(step)) = steps.get(body) else { continue };
        let nv = step.v_free.len();
        if let Some(Some(inverse)) = inverses.get(body) {
            let jacobian = stacked_jacobian(rows, body, &contacts, nv);
            for (r, &c) in contacts.iter().enumerate() {
                let side: Matrix3x6<f64> = jacobian.fixed_view::<3, 6>(3 * r, 0).into_owned();
                factored.push((
                    c,
                    FactoredSide {
                        slot: slots,
                        rows: side,
                        response: inverse * side.transpose(),
                    },
                ));
            }
            slots += 1;
            bodies.push(BodyRows {
                body,
                contacts,
                jacobian,
            });
            continue;
        }
        let jacobian = stacked_jacobian(rows, body, &contacts, nv);
        let a = step
            .system
            .delassus(&jacobian)
            .map_err(|source| SolveError::Delassus { body, source })?;
        for (r, &ci) in contacts.iter().enumerate() {
            for (s, &cj) in contacts.iter().enumerate() {
                blocks.push((ci, cj, a.fixed_view::<3, 3>(3 * r, 3 * s).into_owned()));
            }
        }
        bodies.push(BodyRows {
            body,
            contacts,
            jacobian,
        });
    }
    let mut bias = DVector::zeros(3 * rows.len());
    for (c, row) in rows.iter().enumerate() {
        bias.fixed_rows_mut::<3>(3 * c).copy_from(&row.bias);
        if row.cfm.iter().any(|&x| x > 0.0) {
            blocks.push((c, c, Matrix3::from_diagonal(&row.cfm)));
        }
    }
    // Contact indices come from `rows`, so every block is in range.
    let assembled =
        BlockSparseDelassus::from_blocks(rows.len(), blocks).unwrap_or_else(|| BlockSparseDelassus::new(rows.len()));
    let delassus = FactoredDelassus::new(assembled, factored).ok_or(SolveError::ContactIndex)?;
    let frictions: Vec<ContactFriction> = rows.iter().map(|r| r.friction).collect();
    let sharing = if load_sharing > 0.0 && rows.iter().any(|r| r.shares_load) {
        Some(sharing_problem(&delassus, &bias, &frictions, rows, load_sharing, warm)?)
    } else {
        None
    };
    let problem = ContactProblem::new(delassus, bias, frictions).map_err(SolveError::Problem)?;
    let targets = rows
        .iter()
        .map(|row| Targets {
            target: row.target,
            settled: row.settled_target,
            strike: row.strike,
        })
        .collect();
    let islands = islands(rows, steps);
    Ok(Assembled {
        problem,
        sharing,
        bodies,
        targets,
        islands,
    })
}

/// Bodies with this many velocity coordinates (a free rigid body) keep their contact coupling
/// factored (tribo-lcp `FactoredDelassus`): `A = Σ j M⁻¹ jᵀ` is never formed for them.
const FACTORED_DOFS: usize = 6;

/// M̃⁻¹ of every dynamic body with [`FACTORED_DOFS`] coordinates (`None` for the others), from its
/// factorisation, symmetrised (the solves leave it symmetric to rounding). The degenerate-contact
/// screen and the factored operator share it.
pub(crate) fn free_body_inverses(steps: &[Option<VelocityStep>]) -> Result<Vec<Option<Matrix6<f64>>>, SolveError> {
    let identity = DMatrix::identity(FACTORED_DOFS, FACTORED_DOFS);
    steps
        .iter()
        .enumerate()
        .map(|(body, step)| match step {
            Some(step) if step.v_free.len() == FACTORED_DOFS => {
                let inverse = step
                    .system
                    .solve_matrix(&identity)
                    .map_err(|source| SolveError::Delassus { body, source })?;
                Ok(Some(Matrix6::from_fn(|r, c| 0.5 * (inverse[(r, c)] + inverse[(c, r)]))))
            }
            _ => Ok(None),
        })
        .collect()
}

/// `body`'s rows of `contacts` stacked (3 per contact): `R (J_b − J_a)` restricted to the body.
fn stacked_jacobian(rows: &[ContactRow], body: usize, contacts: &[usize], nv: usize) -> DMatrix<f64> {
    let mut jacobian = DMatrix::zeros(3 * contacts.len(), nv);
    for (r, &c) in contacts.iter().enumerate() {
        let Some(row) = rows.get(c) else { continue };
        let mut block = jacobian.view_mut((3 * r, 0), (3, nv));
        if let Some(side) = row.side_b.as_ref().filter(|s| s.body == body) {
            block += &side.rows;
        }
        if let Some(side) = row.side_a.as_ref().filter(|s| s.body == body) {
            block -= &side.rows;
        }
    }
    jacobian
}

/// The step's problem plus `ε C (λₙ − λₙ⁰)` on each link pair's load-sharing normal rows
/// (module docs): `ε C` joins the Delassus blocks, `−ε C λₙ⁰` the free velocity.
fn sharing_problem(
    delassus: &FactoredDelassus,
    bias: &DVector<f64>,
    frictions: &[ContactFriction],
    rows: &[ContactRow],
    kappa: f64,
    warm: &DVector<f64>,
) -> Result<ContactProblem<FactoredDelassus>, SolveError> {
    let mut pairs: BTreeMap<(LinkRef, LinkRef), Vec<usize>> = BTreeMap::new();
    for (c, row) in rows.iter().enumerate().filter(|(_, row)| row.shares_load) {
        pairs.entry((row.a, row.b)).or_default().push(c);
    }
    let mut free = bias.clone();
    let mut added = Vec::new();
    let normal = |c: usize| warm.get(3 * c).copied().unwrap_or(0.0);
    for members in pairs.values() {
        let n = members.len() as f64;
        let epsilon = kappa * members.iter().map(|&c| delassus.diagonal_block(c)[(0, 0)]).sum::<f64>() / n;
        let mean = members.iter().map(|&c| normal(c)).sum::<f64>() / n;
        for &i in members {
            if let Some(b) = free.get_mut(3 * i) {
                *b -= epsilon * (normal(i) - mean);
            }
            for &j in members {
                let mut block = Matrix3::zeros();
                block[(0, 0)] = if i == j {
                    epsilon * (1.0 - 1.0 / n)
                } else {
                    -epsilon / n
                };
                added.push((i, j, block));
            }
        }
    }
    let shared = delassus.with_added_blocks(added).ok_or(SolveError::ContactIndex)?;
    ContactProblem::new(shared, free, frictions.to_vec()).map_err(SolveError::Problem)
}

/// Solves the problem (built and checked by [`assemble`]: not checked again); `lambda` holds the
/// warm start on entry. With a load-sharing problem, PGS
/// first gives it `sharing` (at most [`LOAD_SHARING_SWEEPS`] sweeps) and Lemke solves it instead
/// of the rigid one (module docs); the report's iterations count both PGS runs. Impacts on
/// speculative contacts struck within the step are then resolved in order (impacts.rs).
pub(crate) fn solve(
    assembled: &Assembled,
    lambda: &mut DVector<f64>,
    pgs: &mut Pgs,
    sharing: &mut Pgs,
    options: &PgsOptions,
) -> Result<SolveReport, SolveError> {
    match options.solver {
        SolverKind::Pgs => {
            let mut sweeps = 0;
            if let Some(problem) = &assembled.sharing {
                sweeps = sharing
                    .solve_valid_contacts_in_islands(problem, lambda, &assembled.islands)
                    .map_err(SolveError::Solver)?
                    .iterations;
            }
            let mut report = pgs
                .solve_valid_contacts_in_islands(&assembled.problem, lambda, &assembled.islands)
                .map_err(SolveError::Solver)?;
            report.iterations += sweeps;
            resolve_impacts(assembled, lambda, pgs, options, report)
        }
        SolverKind::Lemke => {
            let count = assembled.problem.contact_count();
            if count > options.lemke_max_contacts {
                return Err(SolveError::TooManyContacts {
                    limit: options.lemke_max_contacts,
                    contacts: count,
                });
            }
            let problem = assembled.sharing.as_ref().unwrap_or(&assembled.problem);
            let (solution, report) =
                solve_contacts_lemke(problem, &LemkeOptions::default()).map_err(SolveError::Solver)?;
            *lambda = solution;
            resolve_impacts(assembled, lambda, pgs, options, report)
        }
    }
}

/// Solves `problem` alone (no load-sharing sweeps) with the configured solver; `lambda` holds the
/// warm start on entry (PGS only). `problem` was checked by `ContactProblem::new` (not checked again).
pub(crate) fn solve_rigid(
    problem: &ContactProblem<FactoredDelassus>,
    lambda: &mut DVector<f64>,
    pgs: &mut Pgs,
    options: &PgsOptions,
) -> Result<SolveReport, SolveError> {
    match options.solver {
        SolverKind::Pgs => pgs.solve_valid_contacts(problem, lambda).map_err(SolveError::Solver),
        SolverKind::Lemke => {
            let (solution, report) =
                solve_contacts_lemke(problem, &LemkeOptions::default()).map_err(SolveError::Solver)?;
            *lambda = solution;
            Ok(report)
        }
    }
}

/// Last step's impulses: (link pair, point in a's carrier frame, impulse on b, world), sorted by
/// link pair (stable: a pair's points in their row order). Kept in one flat buffer reused from step
/// to step; a contact finds its pair's points by binary search.
#[derive(Debug, Clone, Default)]
pub(crate) struct WarmStart {
    points: Vec<StoredImpulse>,
}

/// A contact point of the last step: its link pair, the point in link a's carrier frame and the
/// impulse on b there (world, N·s).
#[derive(Debug, Clone, Copy)]
struct StoredImpulse {
    pair: (LinkRef, LinkRef),
    local_a: Vector3<f64>,
    impulse: Vector3<f64>,
}

/// Previous points farther than this (m) do not warm-start a contact.
const WARM_START_RADIUS: f64 = 0.01;

impl WarmStart {
    /// The initial λ of `rows` (zero where nothing matches): each contact takes the impulse of the
    /// nearest previous point of its link pair within [`WARM_START_RADIUS`] (the first of equals).
    pub fn initial(&self, rows: &[ContactRow]) -> DVector<f64> {
        let mut lambda = DVector::zeros(3 * rows.len());
        for (c, row) in rows.iter().enumerate() {
            let pair = (row.a, row.b);
            let start = self.points.partition_point(|p| p.pair < pair);
            let end = start + self.points[start..].partition_point(|p| p.pair == pair);
            let nearest = self.points[start..end]
                .iter()
                .map(|p| ((p.local_a - row.local_a).norm(), &p.impulse))
                .filter(|(d, _)| *d <= WARM_START_RADIUS)
                .min_by(|x, y| x.0.total_cmp(&y.0));
            if let Some((_, impulse)) = nearest {
                lambda[3 * c] = impulse.dot(&row.normal).max(0.0);
                lambda[3 * c + 1] = impulse.dot(&row.t1);
                lambda[3 * c + 2] = impulse.dot(&row.t2);
            }
        }
        lambda
    }

    /// Remembers this step's impulses.
    pub fn store(&mut self, rows: &[ContactRow], lambda: &DVector<f64>) {
        self.points.clear();
        for (c, row) in rows.iter().enumerate() {
            let impulse = row.normal * lambda[3 * c] + row.t1 * lambda[3 * c + 1] + row.t2 * lambda[3 * c + 2];
            self.points.push(StoredImpulse {
                pair: (row.a, row.b),
                local_a: row.local_a,
                impulse,
            });
        }
        // Rows come pair by pair (compliant points after the collision rows): usually sorted already.
        if !self.points.is_sorted_by_key(|p| p.pair) {
            self.points.sort_by_key(|p| p.pair);
        }
    }
}
