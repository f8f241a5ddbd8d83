//! Subspace steps between projected Gauss–Seidel sweeps: PGS-SM (Silcowitz, Niebe & Erleben,
//! "Projected Gauss–Seidel subspace minimization method for interactive rigid body dynamics",
//! GRAPP 2010; `docs/design/contact-mechanics.md` §4.2.3, *Subspace steps*).
//!
//! Near a solution PGS converges linearly, at a rate set by how A couples the loaded contacts: on a
//! biped's two feet (eight corners on one articulated body) about 0.55 per sweep, so some ten
//! sweeps to gain three digits. Once the sweeps have found which rows are active — the normal
//! rows with λₙ > 0 and the tangent rows of contacts strictly inside their friction set
//! (sticking) — the rest of the problem is linear on those rows F:
//!
//!   A_FF Δ_F = −w_F,   w = Aλ + b,   λ outside F held,
//!
//! and one solve of it lands on the solution when the active set is right. The step is projected
//! onto the feasible set and the sweeps go on: they confirm the solution (the usual residual test)
//! or, with a wrong active set, carry on from the projected point. The answer is judged by the same
//! residual as without the step; the step only shortens the way to it.
//!
//! A_FF is positive semi-definite, not definite: the four corners of a foot carry a wrench of six
//! components with twelve impulses. The step factors it by Cholesky with diagonal pivoting,
//! stopped at its numerical rank ([`crate::pivoted_cholesky`]), and takes the least-norm solution:
//! it never moves λ along the null space, so the spread of load among a face's corners that the
//! sweeps (and load sharing) chose is kept and a correction is spread as evenly as the mechanics
//! allows; a part of w_F no active set can cancel is dropped, where a regularised solve would
//! amplify it by the inverse of its regularisation.
//!
//! **A kept factor.** The step at a least-norm start (`pgs.rs`) may use the factor of the last
//! step again when its free rows are the same contacts' same rows ([`Reuse::SameRows`]): a robot
//! standing or walking slowly meets nearly the same A_FF step after step, and `A_old⁺` applied to
//! −w_F leaves a residual of the order of `‖A − A_old‖` — which the sweeps then remove, judged
//! by the usual residual. Factoring A_FF afresh is most of a step's cost (assembly, the pivoted
//! factor and G = LᵀL: some 35k of its 52k instructions on SR1's feet). When the sweep after such
//! a step has not gained [`crate::pgs`]'s `SUBSPACE_GAIN` the factor is dropped and the next
//! step factors its own; steps between sweeps always do.

use crate::contact::ContactProblem;
use crate::delassus::DelassusRows;
use crate::pivoted_cholesky::PivotedCholesky;

/// A contact's tangential impulse counts as sticking when it stays inside its friction set shrunk
/// by this factor (a point on the boundary slides and is held by the step).
const STICKING_MARGIN: f64 = 1.0 - 1e-9;

/// Working storage of the subspace step, kept between solves.
#[derive(Debug, Clone, Default)]
pub(crate) struct SubspaceStep {
    /// Per contact of the island with a free row: the contact, its first position among the free
    /// rows, which of its three rows are free, and which tangents may act (nonzero diagonal).
    members: Vec<Member>,
    /// |F|.
    count: usize,
    /// A_FF, column-major |F| × |F|.
    matrix: Vec<f64>,
    /// Each contact's index in `members` ([`NOT_A_MEMBER`] for the others), while assembling.
    member_of: Vec<usize>,
    /// The pivoted Cholesky factor of A_FF.
    factor: PivotedCholesky,
    /// −w_F at the λ of entry, then Δ_F.
    step: Vec<f64>,
    /// The free rows `factor` holds the factor of (contact and free rows per member), while it
    /// may serve again ([`Reuse`]).
    factored: Vec<(usize, [usize; 3], usize)>,
}

/// Whether a step may use the factor of an earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reuse {
    /// Factor this step's A_FF.
    Never,
    /// Use the kept factor when it is of the same free rows (module docs, *A kept factor*).
    SameRows,
}

#[derive(Debug, Clone, Copy)]
struct Member {
    contact: usize,
    start: usize,
    /// The free rows among the contact's three (0 normal, 1 and 2 tangents): the first
    /// `free_count` entries.
    free: [usize; 3],
    free_count: usize,
    acts: [bool; 2],
}

impl Member {
    /// The free rows among the contact's three, ascending.
    fn free_rows(&self) -> &[usize] {
        &self.free[..self.free_count]
    }
}

impl SubspaceStep {
    /// Chooses the free rows F of `island` at λ (module docs); returns |F|. `inverse_diagonal`
    /// is the sweep's (a tangent of zero diagonal cannot act and is never free).
    pub fn select<D: DelassusRows>(
        &mut self,
        problem: &ContactProblem<D>,
        lambda: &[f64],
        island: &[usize],
        inverse_diagonal: &[f64],
    ) -> usize {
        self.members.clear();
        self.count = 0;
        for &contact in island {
            let (Some(friction), Some(l), Some(inv)) = (
                problem.contacts.get(contact),
                lambda.get(3 * contact..3 * contact + 3),
                inverse_diagonal.get(3 * contact..3 * contact + 3),
            ) else {
                continue;
            };
            if l[0] <= 0.0 {
                continue;
            }
            let tangential = [l[1], l[2]];
            let sticking = friction.model.project(tangential, friction.mu * l[0] * STICKING_MARGIN) == tangential;
            let acts = [inv[1] != 0.0, inv[2] != 0.0];
            // The normal row, and the tangents when sticking.
            let (free, free_count) = match (sticking && acts[0], sticking && acts[1]) {
                (true, true) => ([0, 1, 2], 3),
                (true, false) => ([0, 1, 0], 2),
                (false, true) => ([0, 2, 0], 2),
                (false, false) => ([0, 0, 0], 1),
            };
            self.members.push(Member {
                contact,
                start: self.count,
                free,
                free_count,
                acts,
            });
            self.count += free_count;
        }
        self.count
    }

    /// Forgets the kept factor: the next step factors its own A_FF.
    pub fn forget_factor(&mut self) {
        self.factored.clear();
    }

    /// The kept factor is of the free rows [`Self::select`] chose.
    fn factor_fits(&self) -> bool {
        self.factored.len() == self.members.len()
            && self
                .factored
                .iter()
                .zip(&self.members)
                .all(|(&(contact, free, count), m)| contact == m.contact && free == m.free && count == m.free_count)
    }

    /// One subspace step on the rows chosen by [`Self::select`]: λ_F += Δ_F, each touched contact
    /// projected onto its feasible set, and the operator's velocity state `velocity` (see
    /// [`DelassusRows::velocity_len`]) kept consistent with λ. With [`Reuse::SameRows`] the factor
    /// of the last step is used again when it is of the same free rows. Returns false, changing
    /// nothing, when A_FF is not semi-definite in floating point or the step is not finite.
    pub fn apply<D: DelassusRows>(
        &mut self,
        problem: &ContactProblem<D>,
        lambda: &mut [f64],
        velocity: &mut [f64],
        reuse: Reuse,
    ) -> bool {
        let n = self.count;
        if n == 0 {
            return false;
        }
        let reused = reuse == Reuse::SameRows && self.factor_fits();
        if !reused {
            self.factored.clear();
            self.assemble(problem);
            if !(self.factor.factor(&self.matrix, n) && self.factor.prepare_min_norm()) {
                return false;
            }
            self.factored
                .extend(self.members.iter().map(|m| (m.contact, m.free, m.free_count)));
        }
        // −w_F at the current λ.
        self.step.clear();
        let b = problem.free_velocity.as_slice();
        for m in &self.members {
            let w = problem.delassus.block_row_dot_with(m.contact, lambda, velocity);
            for &row in m.free_rows() {
                let bias = b.get(3 * m.contact + row).copied().unwrap_or(0.0);
                self.step.push(-(w[row] + bias));
            }
        }
        // Δ_F: the least-norm solution of A_FF Δ = −w_F by Cholesky with diagonal pivoting.
        if !self.factor.apply_min_norm(&mut self.step) {
            return false;
        }
        if !self.step.iter().all(|x| x.is_finite()) {
            return false;
        }

        for m in &self.members {
            let c = m.contact;
            let (Some(friction), Some(l)) = (problem.contacts.get(c), lambda.get_mut(3 * c..3 * c + 3)) else {
                continue;
            };
            let entry = [l[0], l[1], l[2]];
            for (&row, delta) in m.free_rows().iter().zip(&self.step[m.start..]) {
                l[row] += delta;
            }
            l[0] = l[0].max(0.0);
            let t = friction.model.project([l[1], l[2]], friction.mu * l[0]);
            l[1] = if m.acts[0] { t[0] } else { 0.0 };
            l[2] = if m.acts[1] { t[1] } else { 0.0 };
            let delta = [l[0] - entry[0], l[1] - entry[1], l[2] - entry[2]];
            if delta != [0.0; 3] && !velocity.is_empty() {
                problem.delassus.add_impulse(c, delta, velocity);
            }
        }
        true
    }

    /// A_FF (column-major n × n in `matrix`) from the operator's blocks: one walk over each
    /// member's block row ([`DelassusRows::visit_block_row`]), the parts of the blocks between
    /// members summed in. A part between two members with all three rows free (every sticking
    /// contact) is added as three contiguous columns of three.
    fn assemble<D: DelassusRows>(&mut self, problem: &ContactProblem<D>) {
        let n = self.count;
        let Self {
            members,
            matrix,
            member_of,
            ..
        } = self;
        matrix.clear();
        matrix.resize(n * n, 0.0);
        member_of.clear();
        member_of.resize(problem.contact_count(), NOT_A_MEMBER);
        for (index, m) in members.iter().enumerate() {
            if let Some(slot) = member_of.get_mut(m.contact) {
                *slot = index;
            }
        }
        let matrix = matrix.as_mut_slice();
        for mi in members.iter() {
            let (rows, first_row) = (mi.free_rows(), mi.start);
            problem.delassus.visit_block_row(mi.contact, &mut |j, block| {
                let Some(mj) = member_of.get(j).and_then(|&index| members.get(index)) else {
                    return;
                };
                // Column-major: entry (row, col) of A_FF at col n + row; the part's column b
                // is its entries 3b..3b + 3.
                let start = mj.start * n + first_row;
                if rows.len() == 3 && mj.free_count == 3 {
                    for (s, source) in block.data.0.iter().enumerate() {
                        let at = start + s * n;
                        if let Some(column) = matrix.get_mut(at..at + 3) {
                            column[0] += source[0];
                            column[1] += source[1];
                            column[2] += source[2];
                        }
                    }
                    return;
                }
                let block = block.as_slice();
                for (s, &b) in mj.free_rows().iter().enumerate() {
                    let (Some(column), Some(source)) = (
                        matrix.get_mut(start + s * n..start + s * n + rows.len()),
                        block.get(3 * b..3 * b + 3),
                    ) else {
                        continue;
                    };
                    for (entry, &a) in column.iter_mut().zip(rows) {
                        *entry += source[a];
                    }
                }
            });
        }
    }
}

/// [`SubspaceStep::member_of`] of a contact outside F.
const NOT_A_MEMBER: usize = usize::MAX;
