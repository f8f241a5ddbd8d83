//! The contact LCP of one step on the Delassus operator `A = J M̃⁻¹ Jᵀ`
//! (`docs/design/contact-mechanics.md` §4.2.2), in
//! block-sparse form: contacts i and j are coupled only through a body they share, so A is the
//! sum over dynamic bodies B of `J_B M̃_B⁻¹ J_Bᵀ` restricted to B's contacts, each computed with
//! B's tree factorisation (tribo-multibody `TreeFactorisation::delassus_into`, walking only each
//! contact row's support) and stored as 3×3 blocks
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
//! Delassus diagonals (the operator applies `ε C` as each point's deviation from its pair's mean,
//! sharing.rs). C leaves a pair's total normal impulse alone; the term makes any change of the
//! pair's distribution cost ε: from no warm start (new contacts) the load starts out spread
//! like equal springs, later changes are spread as evenly as the mechanics allows, and a warm
//! start that already solves the step is left as it is (the term vanishes there). The rigid solve
//! then starts from that λ, so the step's answer is still a solution of the rigid LCP, to the
//! usual tolerance. Lemke, which cannot be warm-started, solves the load-sharing problem itself:
//! its velocities then carry the term's `ε C (λₙ − λₙ⁰)`, zero once the distribution settles.
//!
//! **Settled pairs** (PGS only). A link pair whose every load-sharing point takes a warm start that
//! carries load (λₙ⁰ > 0) already has its spread: the term would only ask that this step's change
//! of it be even. PGS leaves such pairs out of the load-sharing problem and sweeps that problem
//! only on the islands that hold a pair still to be spread (a new point, or one that carried
//! nothing), in islands small enough for the rigid solve's least-norm start
//! ([`LEAST_NORM_START_ROWS`]), which keeps a settled spread (tribo-lcp
//! `PgsOptions::least_norm_start_rows`): the change from the warm start is the least-norm one, which
//! never moves load along the null space of a face's points — an elastic interface's even
//! spread of the change (`tests/settled_pairs.rs` checks it against the springs' answer). On SR1
//! standing the load-sharing sweeps were five of the nine sweeps of a step (BENCHMARKS.md, "pgs:
//! ninth round").

use nalgebra::{DMatrix, DVector, Matrix3, Matrix3x6, Matrix6, Vector3};
use tribo_engine::LinkRef;
use tribo_lcp::{
    solve_contacts_lemke, ContactProblem, DelassusRows, FactoredDelassus, FactoredSide, LemkeOptions, Pgs, SolveReport,
};
use tribo_multibody::{DelassusWork, TreeFactorisation, VelocityStep};

use crate::contacts::ContactRow;
use crate::error::SolveError;
use crate::impacts::resolve_impacts;
use crate::islands::Islands;
use crate::options::{PgsOptions, SolverKind};
use crate::sharing::LoadSharing;

/// A dynamic body's contacts: an articulated body's stacked Jacobian, or a free rigid body's slot
/// in the factored operator.
pub(crate) struct BodyRows {
    pub body: usize,
    /// Contact indices, ascending; rows 3r..3r+3 of `jacobian` belong to `contacts[r]`.
    pub contacts: Vec<usize>,
    /// Empty (0 × 0) for a factored body.
    pub jacobian: DMatrix<f64>,
    /// A free rigid body's slot in the factored operator (tribo-lcp `FactoredSide::slot`): its
    /// velocity change is entries 6·slot..6·slot + 6 of the operator's body velocities.
    pub slot: Option<usize>,
}

/// Projected Gauss–Seidel sweeps on the load-sharing problem before each rigid solve (module docs).
pub(crate) const LOAD_SHARING_SWEEPS: usize = 5;

/// Islands of at most this many rows get the rigid solve's least-norm start, and their settled
/// pairs no load-sharing sweeps (module docs, *Settled pairs*). A subspace step costs some ten
/// sweeps on SR1's two feet (24 rows, tribo-lcp `pgs.rs`, `SUBSPACE_COST`) and some forty on a
/// column of five cubes (60 rows, whose sweeps converge in one or two): measured (callgrind,
/// `samples/bench`), the least-norm start took SR1 standing from 441.8 M to 403.2 M instructions
/// (steps 1–1000) and pile-50 from 1.106 G to 1.453 G (steps 1–400) with every island; this bound
/// keeps it to the first kind.
pub(crate) const LEAST_NORM_START_ROWS: usize = 36;

/// Islands of at most this many contacts get PGS's Newton polish when their sweeps slow on a
/// sliding contact (tribo-lcp `newton.rs`): a biped's two feet (8 contacts, 24 rows) and a
/// grasp's fingers. A polish factors a dense system of up to three rows per contact, so the bound
/// keeps it to islands where that costs some ten sweeps, not hundreds.
pub(crate) const NEWTON_CONTACTS: usize = 16;

/// The largest island (contacts) that gets the Newton polish under `options` (0: none): PGS with
/// its accelerations on (`subspace_rows` > 0; 0 asks for plain sweeps).
pub(crate) fn newton_contacts(options: &PgsOptions) -> usize {
    match options.solver {
        SolverKind::Pgs if options.subspace_rows > 0 => NEWTON_CONTACTS,
        _ => 0,
    }
}

/// The largest island (rows) that gets the least-norm start under `options` (0: none): within
/// [`LEAST_NORM_START_ROWS`] and the subspace steps' own bound, and only for PGS (Lemke is not
/// warm-started, and spreads every pair's load itself).
pub(crate) fn least_norm_rows(options: &PgsOptions) -> usize {
    match options.solver {
        SolverKind::Pgs => LEAST_NORM_START_ROWS.min(options.subspace_rows),
        SolverKind::Lemke => 0,
    }
}

/// The assembled problem. The engine keeps one between steps and [`Assembled::assemble`] rebuilds
/// it in place: every buffer (operator blocks and factors, free velocities, per-body rows, islands
/// and the working lists of the assembly) keeps its storage, so a step allocates nothing here
/// once the sizes have been seen.
#[derive(Default)]
pub(crate) struct Assembled {
    pub problem: ContactProblem<FactoredDelassus>,
    /// The load-sharing problem (module docs), valid when `has_sharing`.
    sharing: ContactProblem<LoadSharing>,
    has_sharing: bool,
    /// The islands the load-sharing sweeps visit (module docs, *Settled pairs*): the first
    /// `sharing_island_count` lists.
    sharing_islands: Vec<Vec<usize>>,
    sharing_island_count: usize,
    /// The first `body_count` entries are this step's dynamic bodies with contacts, ascending.
    bodies: Vec<BodyRows>,
    body_count: usize,
    /// The contacts in independent groups, solved one after the other (islands.rs).
    pub islands: Islands,
    scratch: AssemblyScratch,
}

/// Working lists of [`Assembled::assemble`], kept for their storage.
#[derive(Default)]
struct AssemblyScratch {
    /// Each body's contacts (indexed by body; emptied each step).
    per_body: Vec<Vec<usize>>,
    /// The assembled blocks in the order they are summed.
    blocks: Vec<(usize, usize, Matrix3<f64>)>,
    /// The factored sides, grouped by contact: contact c's are
    /// `factored[factored_start[c]..factored_start[c + 1]]`, bodies ascending.
    factored: Vec<FactoredSide>,
    factored_start: Vec<usize>,
    /// Each contact's diagonal block of the factored terms, `Σ j g` over its sides.
    factored_diagonal: Vec<Matrix3<f64>>,
    /// Each body's slot in the factored operator (free rigid bodies with contacts).
    slot_of: Vec<Option<usize>>,
    /// The load-sharing rows: (link pair, contact), sorted.
    sharing_rows: Vec<((LinkRef, LinkRef), usize)>,
    /// Per contact: its link pair is in the load-sharing problem.
    spreading: Vec<bool>,
    /// Per contact: its island gets the rigid solve's least-norm start.
    least_norm: Vec<bool>,
    /// One articulated body's Delassus operator, and the working storage that forms it.
    operator: DMatrix<f64>,
    delassus: DelassusWork,
}

impl Assembled {
    /// The load-sharing problem (module docs), when some link pair has two or more resting rigid
    /// points and `load_sharing` > 0.
    pub fn sharing(&self) -> Option<&ContactProblem<LoadSharing>> {
        self.has_sharing.then_some(&self.sharing)
    }

    /// The islands the load-sharing sweeps visit: those with a pair in the load-sharing problem.
    pub fn sharing_islands(&self) -> &[Vec<usize>] {
        self.sharing_islands.get(..self.sharing_island_count).unwrap_or(&[])
    }

    /// This step's dynamic bodies with contacts, ascending.
    pub fn bodies(&self) -> &[BodyRows] {
        self.bodies.get(..self.body_count).unwrap_or(&[])
    }

    /// Stacks every dynamic body's rows and sums the Delassus blocks; with `load_sharing` > 0 also
    /// builds the load-sharing problem around the warm start `warm` (module docs), leaving out the
    /// settled pairs of islands of at most `least_norm_rows` rows (0 for Lemke: every pair joins).
    pub fn assemble(
        &mut self,
        rows: &[ContactRow],
        steps: &[Option<VelocityStep>],
        inverses: &[Option<Matrix6<f64>>],
        load_sharing: f64,
        warm: &DVector<f64>,
        least_norm_rows: usize,
    ) -> Result<(), SolveError> {
        let scratch = &mut self.scratch;
        let per_body = &mut scratch.per_body;
        per_body.iter_mut().for_each(Vec::clear);
        for (c, row) in rows.iter().enumerate() {
            for side in [&row.side_a, &row.side_b].into_iter().flatten() {
                if per_body.len() <= side.body {
                    per_body.resize_with(side.body + 1, Vec::new);
                }
                let list = &mut per_body[side.body];
                if list.last() != Some(&c) {
                    list.push(c);
                }
            }
        }
        // The blocks in the order they are summed (bodies ascending, then the compliance), gathered and
        // stored in one go (BlockSparseDelassus::assign_blocks sums equal (i, j) in this order). Bodies
        // with six coordinates (free rigid bodies) stay factored (module docs).
        let (blocks, a) = (&mut scratch.blocks, &mut scratch.operator);
        blocks.clear();
        let slot_of = &mut scratch.slot_of;
        slot_of.clear();
        slot_of.resize(per_body.len(), None);
        let mut slots = 0;
        self.body_count = 0;
        for (body, contacts) in per_body.iter().enumerate() {
            if contacts.is_empty() {
                continue;
            }
            let Some(Some(step)) = steps.get(body) else { continue };
            let nv = step.v_free.len();
            if self.bodies.len() == self.body_count {
                self.bodies.push(BodyRows {
                    body,
                    contacts: Vec::new(),
                    jacobian: DMatrix::zeros(0, 0),
                    slot: None,
                });
            }
            let entry = &mut self.bodies[self.body_count];
            self.body_count += 1;
            entry.body = body;
            entry.contacts.clone_from(contacts);
            if let (Some(Some(_)), FACTORED_DOFS) = (inverses.get(body), nv) {
                // A free rigid body: its rows go to the factored operator (below), and its velocity
                // change is read from there at the end of the step (integrate.rs); nothing is stacked.
                zeroed_matrix(&mut entry.jacobian, 0, 0);
                entry.slot = Some(slots);
                slot_of[body] = Some(slots);
                slots += 1;
                continue;
            }
            entry.slot = None;
            stack_jacobian(rows, body, contacts, nv, &mut entry.jacobian);
            let jacobian = &entry.jacobian;
            step.system
                .delassus_into(jacobian, &mut scratch.delassus, a)
                .map_err(|source| SolveError::Delassus { body, source })?;
            for (r, &ci) in contacts.iter().enumerate() {
                for (s, &cj) in contacts.iter().enumerate() {
                    let block = a.fixed_view::<3, 3>(3 * r, 3 * s);
                    // Contacts whose rows move disjoint sets of joints (a gripper's two fingers)
                    // couple through an exactly zero block: left out, as the body adds nothing there.
                    if r != s && block.iter().all(|&x| x == 0.0) {
                        continue;
                    }
                    blocks.push((ci, cj, block.into_owned()));
                }
            }
        }
        // Everything else the problem takes from each row, in one pass over the rows: at a
        // thousand bodies the rows (some 400 bytes each) no longer stay in the cache from one
        // pass to the next.
        let problem = &mut self.problem;
        zeroed_vector(&mut problem.free_velocity, 3 * rows.len());
        problem.contacts.clear();
        let mut shares_load = false;
        for (c, row) in rows.iter().enumerate() {
            problem.free_velocity.fixed_rows_mut::<3>(3 * c).copy_from(&row.bias);
            if row.cfm.iter().any(|&x| x > 0.0) {
                blocks.push((c, c, Matrix3::from_diagonal(&row.cfm)));
            }
            problem.contacts.push(row.friction);
            shares_load |= row.shares_load;
        }
        factored_sides(
            rows,
            slot_of,
            inverses,
            &mut scratch.factored,
            &mut scratch.factored_start,
            &mut scratch.factored_diagonal,
        );
        // The load-sharing operator shares the factors: let go of them so they are rebuilt in place.
        self.sharing.delassus.release();
        // Contact indices come from `rows`, so every block is in range and the sides are grouped
        // by contact.
        let (factored, starts, diagonal) = (
            &mut scratch.factored,
            &scratch.factored_start,
            &mut scratch.factored_diagonal,
        );
        if !problem
            .delassus
            .assign_grouped(rows.len(), blocks, starts, factored, diagonal)
        {
            return Err(SolveError::ContactIndex);
        }
        problem.validate().map_err(SolveError::Problem)?;
        self.islands.group(rows, steps);
        let least_norm = &mut scratch.least_norm;
        least_norm.clear();
        least_norm.resize(rows.len(), false);
        for island in self.islands.groups().iter().filter(|i| 3 * i.len() <= least_norm_rows) {
            for &c in island {
                if let Some(l) = least_norm.get_mut(c) {
                    *l = true;
                }
            }
        }
        let spreading = &mut scratch.spreading;
        spreading.clear();
        spreading.resize(rows.len(), false);
        self.has_sharing = load_sharing > 0.0
            && shares_load
            && sharing_problem(
                problem,
                &mut self.sharing,
                &mut scratch.sharing_rows,
                SharingInput {
                    rows,
                    kappa: load_sharing,
                    warm,
                    least_norm,
                },
                spreading,
            )?;
        self.sharing_island_count = 0;
        if self.has_sharing {
            for island in self.islands.groups() {
                if !island.iter().any(|&c| spreading.get(c).copied().unwrap_or(false)) {
                    continue;
                }
                if self.sharing_islands.len() == self.sharing_island_count {
                    self.sharing_islands.push(Vec::new());
                }
                self.sharing_islands[self.sharing_island_count].clone_from(island);
                self.sharing_island_count += 1;
            }
        }
        Ok(())
    }
}

/// Bodies with this many velocity coordinates (a free rigid body) keep their contact coupling
/// factored (tribo-lcp `FactoredDelassus`): `A = Σ j M⁻¹ jᵀ` is never formed for them.
const FACTORED_DOFS: usize = 6;

/// M̃⁻¹ of every dynamic body with [`FACTORED_DOFS`] coordinates (`None` for the others), from its
/// factorisation, symmetrised (the solves leave it symmetric to rounding), into `inverses`. The
/// degenerate-contact screen and the factored operator share it. `dof_parent(body)` is the body's
/// dof tree (tribo-multibody `Tree::dof_parent`): a serial one (a free joint's six dofs) takes the
/// fixed-size solves of [`serial_inverse`], any other the factorisation's own column solves.
pub(crate) fn free_body_inverses<'t>(
    steps: &[Option<VelocityStep>],
    dof_parent: impl Fn(usize) -> Option<&'t [Option<usize>]>,
    inverses: &mut Vec<Option<Matrix6<f64>>>,
) -> Result<(), SolveError> {
    inverses.clear();
    let mut column = DVector::zeros(FACTORED_DOFS);
    for (body, step) in steps.iter().enumerate() {
        let inverse = match step {
            Some(step) if step.v_free.len() == FACTORED_DOFS => {
                let serial = dof_parent(body).is_some_and(is_serial);
                let inverse = if serial {
                    serial_inverse(&step.system)
                } else {
                    column_inverse(&step.system, &mut column)
                }
                .map_err(|source| SolveError::Delassus { body, source })?;
                Some(Matrix6::from_fn(|r, c| 0.5 * (inverse[(r, c)] + inverse[(c, r)])))
            }
            _ => None,
        };
        inverses.push(inverse);
    }
    Ok(())
}

/// Whether every dof's parent is the dof before it: the dof tree of one multi-dof joint on a fixed
/// base, whose ancestor chains are complete (dof i has i − 1, i − 2, …, 0).
fn is_serial(dof_parent: &[Option<usize>]) -> bool {
    dof_parent
        .iter()
        .enumerate()
        .all(|(k, parent)| *parent == k.checked_sub(1))
}

/// M̃⁻¹ column by column (the solve of `solve_matrix` on the identity), `column` working storage.
fn column_inverse(
    system: &TreeFactorisation,
    column: &mut DVector<f64>,
) -> Result<Matrix6<f64>, tribo_multibody::Error> {
    let mut inverse = Matrix6::zeros();
    for k in 0..FACTORED_DOFS {
        column.fill(0.0);
        column[k] = 1.0;
        system.solve_in_place(column)?;
        inverse.set_column(k, column);
    }
    Ok(inverse)
}

/// M̃⁻¹ of a six-dof serial chain from its factors `M̃ = Lᵀ D L` (tribo-multibody
/// `TreeFactorisation`, RBDA §6.4), with the factorisation's own solves on the identity's columns
/// written out on 6 × 6 arrays: the same operations in the same order (ancestors of dof i are
/// i − 1, …, 0, nearest first), so the same numbers as [`column_inverse`] without its
/// per-column length checks and chain look-ups:
///
/// ```text
/// Lᵀ z = e_k:  for i = 5 … 0 with z_i ≠ 0:  for j = i−1 … 0:  z_j −= L_ij z_i
/// z ← D⁻¹ z        (times the factorisation's 1 / D_kk, as its solves)
/// L x = z:     for i = 0 … 5:  x_i −= Σ_{j = i−1 … 0} L_ij x_j
/// ```
fn serial_inverse(system: &TreeFactorisation) -> Result<Matrix6<f64>, tribo_multibody::Error> {
    const N: usize = FACTORED_DOFS;
    let packed = system.packed();
    if system.dim() != N || packed.shape() != (N, N) {
        return Err(tribo_multibody::Error::DimensionMismatch {
            what: "mass matrix factors",
            expected: N,
            found: system.dim(),
        });
    }
    // The factors read in place (no dense copies of L and D): on a serial chain every j < i is an
    // ancestor of i, so the packed storage holds L_ij at (j, i) for all of them.
    let l = Matrix6::from_fn(|r, c| if c < r { packed[(c, r)] } else { 0.0 });
    let inverse_d: [f64; N] = std::array::from_fn(|k| system.inverse_pivots().get(k).copied().unwrap_or(0.0));
    let mut inverse = Matrix6::zeros();
    for k in 0..N {
        let mut y = [0.0; N];
        y[k] = 1.0;
        for i in (0..N).rev() {
            let yi = y[i];
            if yi == 0.0 {
                continue;
            }
            for j in (0..i).rev() {
                y[j] -= l[(i, j)] * yi;
            }
        }
        for (value, inverse) in y.iter_mut().zip(inverse_d.iter()) {
            *value *= inverse;
        }
        for i in 0..N {
            let sum: f64 = (0..i).rev().map(|j| l[(i, j)] * y[j]).sum();
            y[i] -= sum;
        }
        inverse.set_column(k, &nalgebra::Vector6::from(y));
    }
    Ok(inverse)
}

/// Makes `vector` the zero vector of length `n`, in its own storage when it has the room.
pub(crate) fn zeroed_vector(vector: &mut DVector<f64>, n: usize) {
    if vector.len() == n {
        vector.as_mut_slice().fill(0.0);
        return;
    }
    let mut data: Vec<f64> = std::mem::replace(vector, DVector::zeros(0)).data.into();
    data.clear();
    data.resize(n, 0.0);
    *vector = DVector::from_vec(data);
}

/// Makes `matrix` the zero matrix of `nrows × ncols`, in its own storage when it has the room.
fn zeroed_matrix(matrix: &mut DMatrix<f64>, nrows: usize, ncols: usize) {
    if matrix.shape() == (nrows, ncols) {
        matrix.as_mut_slice().fill(0.0);
        return;
    }
    let mut data: Vec<f64> = std::mem::replace(matrix, DMatrix::zeros(0, 0)).data.into();
    data.clear();
    data.resize(nrows * ncols, 0.0);
    *matrix = DMatrix::from_vec(nrows, ncols, data);
}

/// `body`'s rows of `contacts` stacked (3 per contact) into `jacobian`: `R (J_b − J_a)` restricted
/// to the body.
fn stack_jacobian(rows: &[ContactRow], body: usize, contacts: &[usize], nv: usize, jacobian: &mut DMatrix<f64>) {
    zeroed_matrix(jacobian, 3 * contacts.len(), nv);
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
}

/// Every contact's sides on free rigid bodies (those with a slot in `slot_of`) into `sides`,
/// grouped by contact (contact c's from `starts[c]`), each contact's bodies ascending:
/// `j = R (J_b − J_a)` restricted to the body and `g = M̃⁻¹ jᵀ`; and each contact's diagonal
/// block `Σ j g` over its sides into `diagonal`, summed as the sides are made (at a thousand
/// bodies the sides, some 300 bytes each, leave the cache before a later pass could read them).
fn factored_sides(
    rows: &[ContactRow],
    slot_of: &[Option<usize>],
    inverses: &[Option<Matrix6<f64>>],
    sides: &mut Vec<FactoredSide>,
    starts: &mut Vec<usize>,
    diagonal: &mut Vec<Matrix3<f64>>,
) {
    sides.clear();
    starts.clear();
    diagonal.clear();
    for row in rows {
        starts.push(sides.len());
        let bodies = [&row.side_a, &row.side_b].map(|side| side.as_ref().map(|s| s.body));
        let (first, second) = match bodies {
            [Some(a), Some(b)] if b < a => (Some(b), Some(a)),
            [Some(a), Some(b)] if a == b => (Some(a), None),
            [a, b] => (a, b),
        };
        let mut block = Matrix3::zeros();
        for body in [first, second].into_iter().flatten() {
            let (Some(&Some(slot)), Some(Some(inverse))) = (slot_of.get(body), inverses.get(body)) else {
                continue;
            };
            let side = body_side_rows(row, body);
            let response = inverse * side.transpose();
            block += side * response;
            sides.push(FactoredSide {
                slot,
                rows: side,
                response,
            });
        }
        diagonal.push(block);
    }
    starts.push(sides.len());
}

/// A free rigid body's rows of one contact, `R (J_b − J_a)` restricted to the body (3 × 6), as
/// [`stack_jacobian`] stacks them: from zero, b's rows added, then a's subtracted.
fn body_side_rows(row: &ContactRow, body: usize) -> Matrix3x6<f64> {
    let mut side = Matrix3x6::zeros();
    if let Some(b) = row
        .side_b
        .as_ref()
        .filter(|s| s.body == body && s.rows.ncols() == FACTORED_DOFS)
    {
        side += b.rows.fixed_columns::<FACTORED_DOFS>(0);
    }
    if let Some(a) = row
        .side_a
        .as_ref()
        .filter(|s| s.body == body && s.rows.ncols() == FACTORED_DOFS)
    {
        side -= a.rows.fixed_columns::<FACTORED_DOFS>(0);
    }
    side
}

/// What the load-sharing problem is built from.
struct SharingInput<'a> {
    rows: &'a [ContactRow],
    /// `load_sharing` (module docs).
    kappa: f64,
    /// The warm start λ⁰.
    warm: &'a DVector<f64>,
    /// Per contact: its island gets the least-norm start, so its pair may be left out when
    /// settled (module docs, *Settled pairs*).
    least_norm: &'a [bool],
}

/// Makes `shared` the step's `problem` (validated) plus `ε C (λₙ − λₙ⁰)` on each link pair's
/// load-sharing normal rows (module docs): `ε C` joins the operator (sharing.rs), `−ε C λₙ⁰` the
/// free velocity. Settled pairs (module docs) of islands with the least-norm start are left out;
/// the contacts of the pairs taken are marked in `spreading`. Returns whether any pair was taken.
/// `pairs` is a working list.
fn sharing_problem(
    problem: &ContactProblem<FactoredDelassus>,
    shared: &mut ContactProblem<LoadSharing>,
    pairs: &mut Vec<((LinkRef, LinkRef), usize)>,
    input: SharingInput,
    spreading: &mut [bool],
) -> Result<bool, SolveError> {
    let SharingInput {
        rows,
        kappa,
        warm,
        least_norm,
    } = input;
    // The load-sharing rows by link pair, each pair's in row order (the keys are distinct).
    pairs.clear();
    pairs.extend(
        rows.iter()
            .enumerate()
            .filter(|(_, row)| row.shares_load)
            .map(|(c, row)| ((row.a, row.b), c)),
    );
    pairs.sort_unstable();
    let normal = |c: usize| warm.get(3 * c).copied().unwrap_or(0.0);
    let settled = |group: &[((LinkRef, LinkRef), usize)]| {
        group
            .iter()
            .all(|&(_, c)| normal(c) > 0.0 && least_norm.get(c).copied().unwrap_or(false))
    };
    if pairs.chunk_by(|x, y| x.0 == y.0).all(settled) {
        return Ok(false);
    }
    let delassus = &problem.delassus;
    if !shared.delassus.reset(delassus) {
        return Err(SolveError::ContactIndex);
    }
    let free = &mut shared.free_velocity;
    zeroed_vector(free, problem.free_velocity.len());
    free.copy_from(&problem.free_velocity);
    for group in pairs.chunk_by(|x, y| x.0 == y.0) {
        if settled(group) {
            continue;
        }
        let members = || group.iter().map(|&(_, c)| c);
        for c in members() {
            if let Some(s) = spreading.get_mut(c) {
                *s = true;
            }
        }
        let n = group.len() as f64;
        let epsilon = kappa * members().map(|c| delassus.diagonal_block(c)[(0, 0)]).sum::<f64>() / n;
        let mean = members().map(normal).sum::<f64>() / n;
        for i in members() {
            if let Some(b) = free.get_mut(3 * i) {
                *b -= epsilon * (normal(i) - mean);
            }
        }
        if !shared.delassus.add_group(members(), epsilon) {
            return Err(SolveError::ContactIndex);
        }
    }
    shared.contacts.clone_from(&problem.contacts);
    // `problem` was validated: the sizes, friction and A's diagonal blocks (A's plus the groups'
    // finite ε (1 − 1/n)) are valid here too, so only the changed free velocity is checked (what
    // `ContactProblem::validate` would find first).
    match shared.free_velocity.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(SolveError::Problem(tribo_lcp::Error::NonFinite {
            what: "b",
            index,
            value: shared.free_velocity[index],
        })),
        None => Ok(true),
    }
}

/// Solves the problem (built and checked by [`Assembled::assemble`] from `rows`: not checked
/// again); `lambda` holds the warm start on entry. With a load-sharing problem, PGS
/// first gives it `sharing` (at most [`LOAD_SHARING_SWEEPS`] sweeps) and Lemke solves it instead
/// of the rigid one (module docs); the report's iterations count both PGS runs. Impacts on
/// speculative contacts struck within the step are then resolved in order (impacts.rs).
///
/// Returns the report and whether `pgs` holds the factored bodies' velocity changes of the
/// returned λ (`Pgs::body_velocities`: PGS solved it and no impact pass changed it), which the
/// integration then takes instead of summing them again from λ. The rigid solve starts from the
/// load-sharing solve's velocity changes the same way (the two operators share their factored
/// part, `FactoredDelassus::with_added_blocks`).
pub(crate) fn solve(
    assembled: &Assembled,
    rows: &[ContactRow],
    lambda: &mut DVector<f64>,
    pgs: &mut Pgs,
    sharing: &mut Pgs,
    options: &PgsOptions,
) -> Result<(SolveReport, bool), SolveError> {
    match options.solver {
        SolverKind::Pgs => {
            let mut sweeps = 0;
            let mut known = None;
            if let Some(problem) = assembled.sharing() {
                sweeps = sharing
                    .solve_valid_contacts_in_islands(problem, lambda, assembled.sharing_islands())
                    .map_err(SolveError::Solver)?
                    .iterations;
                known = Some(sharing.body_velocities());
            }
            let mut report = pgs
                .solve_valid_contacts_in_islands_from(&assembled.problem, lambda, assembled.islands.groups(), known)
                .map_err(SolveError::Solver)?;
            report.iterations += sweeps;
            resolve_impacts(assembled, rows, lambda, pgs, options, report)
        }
        SolverKind::Lemke => {
            let count = assembled.problem.contact_count();
            if count > options.lemke_max_contacts {
                return Err(SolveError::TooManyContacts {
                    limit: options.lemke_max_contacts,
                    contacts: count,
                });
            }
            let (solution, report) = match assembled.sharing() {
                Some(problem) => solve_contacts_lemke(problem, &LemkeOptions::default()),
                None => solve_contacts_lemke(&assembled.problem, &LemkeOptions::default()),
            }
            .map_err(SolveError::Solver)?;
            *lambda = solution;
            let (report, _) = resolve_impacts(assembled, rows, lambda, pgs, options, report)?;
            Ok((report, false))
        }
    }
}

/// Solves `problem` alone (no load-sharing sweeps) with the configured solver; `lambda` holds the
/// warm start on entry (PGS only), `islands` partitions the contacts into groups the problem does
/// not couple (islands.rs), which PGS sweeps one by one. `problem` was checked by
/// `ContactProblem::new` (not checked again).
pub(crate) fn solve_rigid(
    problem: &ContactProblem<FactoredDelassus>,
    lambda: &mut DVector<f64>,
    islands: &[Vec<usize>],
    pgs: &mut Pgs,
    options: &PgsOptions,
) -> Result<SolveReport, SolveError> {
    match options.solver {
        SolverKind::Pgs => pgs
            .solve_valid_contacts_in_islands(problem, lambda, islands)
            .map_err(SolveError::Solver),
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
/// to step; the contacts find their pairs' points with a [`PairCursor`].
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

/// Finds link pairs' runs in the sorted stored points for a sequence of lookups. Rows come pair
/// by pair in pair order (the compliant points' after them), so each lookup usually starts where
/// the last one did and walks forward (a merge of the two sorted lists); a pair before the last
/// one is found by binary search. Either way the run is the one of the binary search
/// (`partition_point` on `< pair` and `== pair`).
#[derive(Default)]
struct PairCursor {
    /// Where the last pair's run starts, and that pair.
    start: usize,
    last: Option<(LinkRef, LinkRef)>,
}

impl PairCursor {
    /// The run of `points` (sorted by pair) with link pair `pair`.
    fn points_of<'p>(&mut self, points: &'p [StoredImpulse], pair: (LinkRef, LinkRef)) -> &'p [StoredImpulse] {
        let mut start = match self.last {
            // Every point before `start` is below the last pair, so below this one.
            Some(last) if last <= pair => self.start.min(points.len()),
            _ => points.partition_point(|p| p.pair < pair),
        };
        while points.get(start).is_some_and(|p| p.pair < pair) {
            start += 1;
        }
        let end = start
            + points
                .get(start..)
                .map_or(0, |rest| rest.iter().take_while(|p| p.pair == pair).count());
        self.start = start;
        self.last = Some(pair);
        points.get(start..end).unwrap_or(&[])
    }
}

/// Previous points farther than this (m) do not warm-start a contact.
const WARM_START_RADIUS: f64 = 0.01;

impl WarmStart {
    /// Makes `lambda` the initial λ of `rows` (zero where nothing matches): each contact takes the
    /// impulse of the nearest previous point of its link pair within [`WARM_START_RADIUS`] (the
    /// first of equals).
    pub fn initial(&self, rows: &[ContactRow], lambda: &mut DVector<f64>) {
        zeroed_vector(lambda, 3 * rows.len());
        let mut cursor = PairCursor::default();
        for (c, row) in rows.iter().enumerate() {
            let points = cursor.points_of(&self.points, (row.a, row.b));
            let nearest = points
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_inverse_is_the_column_solves_inverse() {
        // A spatial inertia about a point off the centre of mass (full 6 × 6 coupling) plus
        // diagonal damping terms, factorised on a serial dof chain.
        let serial: Vec<Option<usize>> = (0..6).map(|k: usize| k.checked_sub(1)).collect();
        assert!(is_serial(&serial));
        assert!(!is_serial(&[None, Some(0), Some(1), None, Some(3), Some(4)]));
        let c = Vector3::new(0.1, -0.05, 0.02);
        let mass = 2.5;
        let inertia = Matrix3::new(0.3, 0.01, -0.02, 0.01, 0.2, 0.015, -0.02, 0.015, 0.25);
        let cross = c.cross_matrix();
        let mut m = Matrix6::zeros();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&(Matrix3::identity() * mass));
        m.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-mass * cross));
        m.fixed_view_mut::<3, 3>(3, 0).copy_from(&(mass * cross));
        m.fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&(inertia - mass * cross * cross));
        for k in 0..6 {
            m[(k, k)] += 0.01 * (k + 1) as f64;
        }
        let system = TreeFactorisation::with_dof_parent(DMatrix::from_column_slice(6, 6, m.as_slice()), &serial)
            .expect("positive definite");
        let fast = serial_inverse(&system).expect("6 × 6");
        let reference = column_inverse(&system, &mut DVector::zeros(6)).expect("6 × 6");
        let scale = reference.amax();
        // The same operations in the same order: equal to rounding (bit-equal with the solves of
        // this version of tribo-multibody).
        assert!((fast - reference).amax() <= 1e-14 * scale, "{fast} vs {reference}");
        let identity = m * fast;
        assert!((identity - Matrix6::identity()).amax() < 1e-12, "{identity}");
        // Sizes other than six are refused, not indexed out of range.
        let small = TreeFactorisation::with_dof_parent(DMatrix::identity(3, 3), &serial[..3]).expect("identity");
        assert!(serial_inverse(&small).is_err());
    }

    fn link(body: usize) -> LinkRef {
        LinkRef { body, link: 0 }
    }

    #[test]
    fn the_pair_cursor_finds_the_runs_of_the_binary_search() {
        // Stored pairs (b, b + 1 + k % 3) for bodies b with 0 to 3 points each, sorted; looked up in
        // order with absent pairs among them, then again out of order (compliant points after the
        // collision rows).
        let mut points = Vec::new();
        for b in 0..20 {
            for k in 0..(b * 7) % 4 {
                points.push(StoredImpulse {
                    pair: (link(b), link(b + 1 + k % 3)),
                    local_a: Vector3::new(k as f64, 0.0, 0.0),
                    impulse: Vector3::zeros(),
                });
            }
        }
        points.sort_by_key(|p| p.pair);
        let mut lookups: Vec<(LinkRef, LinkRef)> = (0..22)
            .flat_map(|b| (1..4).map(move |d| (link(b), link(b + d))))
            .collect();
        lookups.extend([
            (link(5), link(7)),
            (link(2), link(3)),
            (link(5), link(7)),
            (link(30), link(31)),
        ]);
        let mut cursor = PairCursor::default();
        for pair in lookups {
            let start = points.partition_point(|p| p.pair < pair);
            let end = start + points[start..].partition_point(|p| p.pair == pair);
            let run = cursor.points_of(&points, pair);
            assert_eq!(run.len(), end - start, "{pair:?}");
            assert!(
                run.iter().zip(&points[start..end]).all(|(x, y)| std::ptr::eq(x, y)),
                "{pair:?}"
            );
        }
    }
}
