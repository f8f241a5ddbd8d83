//! A Delassus operator that keeps the coupling through six-coordinate bodies factored: the
//! velocity-space form of projected Gauss–Seidel (`docs/design/contact-mechanics.md` §4.2.2–4.2.3).
//!
//! A = J M⁻¹ Jᵀ is a sum over bodies, `A = A₀ + Σ_B J_B M_B⁻¹ J_Bᵀ`. For a body B with six
//! velocity coordinates (a free rigid body) each contact c touching it has rows `j_cB` (3 × 6, the
//! contact-frame rows of `J_b − J_a` restricted to B) and `g_cB = M_B⁻¹ j_cBᵀ` (6 × 3). Instead of
//! forming the blocks `j_cB g_c'B` for every pair of B's contacts, the sweep keeps B's velocity
//! change `Δv_B = Σ_c g_cB λ_c` (m/s, rad/s; the impulses' effect on B) and reads
//!
//! (Aλ)_c = (A₀λ)_c + Σ_{B ∋ c} j_cB Δv_B,
//!
//! updating `Δv_B += g_cB Δλ_c` once contact c's impulse has changed — the per-body velocity
//! bookkeeping of sequential-impulse solvers (Catto's and Bullet's, rapier's), which is the same
//! Gauss–Seidel sweep as on the assembled A with the sums taken in another order. A row costs
//! 2 × 18 multiply-adds per side whatever the number of contacts on the body, where the assembled
//! block row costs 9 per neighbouring contact and its assembly 27 per pair of contacts. A₀ (an
//! ordinary [`BlockSparseDelassus`]) holds the coupling through the other bodies (articulated
//! trees, whose blocks stay assembled), compliance on the diagonal and any extra terms.
//!
//! The solvers see the velocities through [`DelassusRows::block_row_dot_with`] and
//! [`DelassusRows::add_impulse`]; the plain row products ([`DelassusRows::row_dot`],
//! [`DelassusRows::multiply`]) work without that state, so every solver and report reads this
//! operator like any other.

use std::sync::Arc;

use nalgebra::{Matrix3, Matrix3x6, Matrix6x3, Vector6};

use crate::delassus::{BlockSparseDelassus, DelassusRows};

/// One contact's rows on one six-coordinate body.
#[derive(Debug, Clone, PartialEq)]
pub struct FactoredSide {
    /// The body's slot (0-based; its Δv is entries 6·slot..6·slot + 6 of the state).
    pub slot: usize,
    /// j: the contact's rows (normal, t₁, t₂) on the body's coordinates, with the sign of the
    /// relative velocity (b minus a).
    pub rows: Matrix3x6<f64>,
    /// g = M⁻¹ jᵀ.
    pub response: Matrix6x3<f64>,
}

/// A = A₀ + Σ_B j M⁻¹ jᵀ with the six-coordinate bodies' terms factored (module docs). The
/// default is the operator of no contacts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FactoredDelassus {
    assembled: BlockSparseDelassus,
    /// Shared by the copies that differ only in A₀ ([`FactoredDelassus::with_added_blocks`]).
    factors: Arc<Factors>,
}

/// The factored terms, by contact and by slot.
#[derive(Debug, Clone, PartialEq, Default)]
struct Factors {
    /// Every contact's sides, contact by contact: contact c has `sides[side_start[c]..side_start[c + 1]]`.
    side_start: Vec<usize>,
    sides: Vec<FactoredSide>,
    /// Each slot's (contact, index into `sides`), contacts ascending: slot s has
    /// `slot_sides[slot_start[s]..slot_start[s + 1]]`.
    slot_start: Vec<usize>,
    slot_sides: Vec<(usize, usize)>,
    /// Each contact's diagonal block of the factored terms, Σ_sides j g (the solvers read it once
    /// per solve and the engine once more per problem).
    diagonal: Vec<Matrix3<f64>>,
}

impl Factors {
    /// The terms of `sides` (contact, side) for `contacts` contacts, in this storage. Every contact
    /// index is below `contacts` (checked by the caller).
    fn assign(&mut self, contacts: usize, sides: &[(usize, FactoredSide)]) {
        let slots = sides.iter().map(|(_, s)| s.slot + 1).max().unwrap_or(0);
        // Counting sort by contact (stable: a contact's sides keep their order), then by slot.
        // `slot_start` is the fill cursor of the first sort before it holds the slots' starts.
        self.side_start.clear();
        self.side_start.resize(contacts + 1, 0);
        for (c, _) in sides {
            self.side_start[c + 1] += 1;
        }
        for c in 0..contacts {
            self.side_start[c + 1] += self.side_start[c];
        }
        // Each side's place by contact, held in `slot_sides` as (contact, index into `sides`)
        // before that holds the slots' lists, so that every side is copied once, into place.
        let fill = &mut self.slot_start;
        fill.clear();
        fill.extend_from_slice(&self.side_start);
        self.slot_sides.clear();
        self.slot_sides.resize(sides.len(), (0, 0));
        for (k, (c, _)) in sides.iter().enumerate() {
            self.slot_sides[fill[*c]] = (*c, k);
            fill[*c] += 1;
        }
        // Copied contact by contact (read once, from where the caller put it).
        self.sides.clear();
        self.sides.reserve(sides.len());
        for c in 0..contacts {
            let range = self.side_start[c]..self.side_start[c + 1];
            self.sides
                .extend(self.slot_sides[range].iter().map(|&(_, k)| sides[k].1.clone()));
        }
        self.index_by_slot(contacts, slots);
    }

    /// [`Self::assign`] for sides already grouped by contact: contact c's are
    /// `sides[side_start[c]..side_start[c + 1]]`, in slot order, and `diagonal[c]` their sum
    /// `Σ j g`. The sides and diagonal blocks are taken without a copy: `sides` and `diagonal` get
    /// this storage's previous lists in exchange (contents unspecified). False, changing nothing,
    /// when `side_start` does not delimit `sides` into `contacts` runs or `diagonal` has not
    /// `contacts` blocks.
    fn assign_grouped(
        &mut self,
        contacts: usize,
        side_start: &[usize],
        sides: &mut Vec<FactoredSide>,
        diagonal: &mut Vec<Matrix3<f64>>,
    ) -> bool {
        let delimits = diagonal.len() == contacts
            && side_start.len() == contacts + 1
            && side_start.first() == Some(&0)
            && side_start.last() == Some(&sides.len())
            && side_start.windows(2).all(|w| w[0] <= w[1]);
        if !delimits {
            return false;
        }
        self.side_start.clear();
        self.side_start.extend_from_slice(side_start);
        std::mem::swap(&mut self.sides, sides);
        std::mem::swap(&mut self.diagonal, diagonal);
        let slots = self.sides.iter().map(|s| s.slot + 1).max().unwrap_or(0);
        self.slot_sides.clear();
        self.slot_sides.resize(self.sides.len(), (0, 0));
        self.index_slots(contacts, slots);
        true
    }

    /// From `side_start` and `sides` (by contact): each contact's diagonal block and each slot's
    /// list of (contact, side) in `slot_start` / `slot_sides` (sized to the sides).
    fn index_by_slot(&mut self, contacts: usize, slots: usize) {
        self.diagonal.clear();
        for c in 0..contacts {
            let mut block = Matrix3::zeros();
            for side in self
                .sides
                .get(self.side_start[c]..self.side_start[c + 1])
                .unwrap_or(&[])
            {
                block += side.rows * side.response;
            }
            self.diagonal.push(block);
        }
        self.index_slots(contacts, slots);
    }

    /// From `side_start` and `sides` (by contact): each slot's list of (contact, side) in
    /// `slot_start` / `slot_sides` (sized to the sides).
    fn index_slots(&mut self, contacts: usize, slots: usize) {
        let fill = &mut self.slot_start;
        fill.clear();
        fill.resize(slots + 1, 0);
        for side in &self.sides {
            fill[side.slot + 1] += 1;
        }
        for s in 0..slots {
            fill[s + 1] += fill[s];
        }
        // Each slot's sides in order of their position in `sides` (so contacts ascending), placed
        // with a second cursor that ends at the next slot's start.
        for c in 0..contacts {
            for k in self.side_start[c]..self.side_start[c + 1] {
                let slot = self.sides[k].slot;
                self.slot_sides[fill[slot]] = (c, k);
                fill[slot] += 1;
            }
        }
        // The cursors now hold each slot's end, the next one's start: shift them back.
        for s in (1..=slots).rev() {
            fill[s] = fill[s - 1];
        }
        if let Some(first) = fill.first_mut() {
            *first = 0;
        }
    }
}

impl FactoredDelassus {
    /// The operator A₀ + the factored terms of `sides` (contact, side), for `assembled.contact_count()`
    /// contacts. `None` when a contact index is out of range.
    pub fn new(assembled: BlockSparseDelassus, sides: Vec<(usize, FactoredSide)>) -> Option<Self> {
        let contacts = assembled.contact_count();
        if sides.iter().any(|(c, _)| *c >= contacts) {
            return None;
        }
        let mut factors = Factors::default();
        factors.assign(contacts, &sides);
        Some(Self {
            assembled,
            factors: Arc::new(factors),
        })
    }

    /// Makes this operator the one [`new`](Self::new) builds from `BlockSparseDelassus::from_blocks(contacts,
    /// blocks)` and `sides`, in its own storage: no allocation once it has held as many blocks and
    /// sides, unless its factors are still shared with a copy from
    /// [`with_added_blocks`](Self::with_added_blocks) (then they are built afresh). Returns false,
    /// leaving it unspecified but valid, when a contact index is out of range.
    pub fn assign(
        &mut self,
        contacts: usize,
        blocks: &[(usize, usize, Matrix3<f64>)],
        sides: &[(usize, FactoredSide)],
    ) -> bool {
        if sides.iter().any(|(c, _)| *c >= contacts) || !self.assembled.assign_blocks(contacts, blocks) {
            return false;
        }
        match Arc::get_mut(&mut self.factors) {
            Some(factors) => factors.assign(contacts, sides),
            None => {
                let mut factors = Factors::default();
                factors.assign(contacts, sides);
                self.factors = Arc::new(factors);
            }
        }
        true
    }

    /// [`Self::assign`] with the factored sides already grouped by contact: contact c's sides are
    /// `sides[side_start[c]..side_start[c + 1]]`, in slot order (as [`Self::assign`] would order
    /// them), and `diagonal[c]` is their sum `Σ j g` in that order (summed by the caller as it
    /// makes the sides, so that they are not read again for it). The sides and diagonal blocks are
    /// taken without a copy: `sides` and `diagonal` get the operator's previous lists in exchange
    /// (contents unspecified), to fill again next time. Returns false, with the operator left
    /// meaningless, when a block's index is out of range, `side_start` does not delimit `sides`
    /// into `contacts` runs (a side's slot is any number) or `diagonal` has not `contacts` blocks.
    pub fn assign_grouped(
        &mut self,
        contacts: usize,
        blocks: &[(usize, usize, Matrix3<f64>)],
        side_start: &[usize],
        sides: &mut Vec<FactoredSide>,
        diagonal: &mut Vec<Matrix3<f64>>,
    ) -> bool {
        if !self.assembled.assign_blocks(contacts, blocks) {
            return false;
        }
        match Arc::get_mut(&mut self.factors) {
            Some(factors) => factors.assign_grouped(contacts, side_start, sides, diagonal),
            None => {
                let mut factors = Factors::default();
                let done = factors.assign_grouped(contacts, side_start, sides, diagonal);
                self.factors = Arc::new(factors);
                done
            }
        }
    }

    /// Makes this operator `base.with_added_blocks(blocks)` in its own storage: A₀ is rebuilt in
    /// place and the factors are shared with `base`. Returns false when an index is out of range.
    pub fn assign_with_added_blocks(
        &mut self,
        base: &FactoredDelassus,
        blocks: &[(usize, usize, Matrix3<f64>)],
    ) -> bool {
        if !self.assembled.assign_with_added_blocks(&base.assembled, blocks) {
            return false;
        }
        self.factors = Arc::clone(&base.factors);
        true
    }

    /// Lets go of factors shared with another operator (an empty operator is left), so that the
    /// other can rebuild them in place ([`assign`](Self::assign)).
    pub fn release(&mut self) {
        match Arc::get_mut(&mut self.factors) {
            Some(factors) => factors.assign(0, &[]),
            None => self.factors = Arc::new(Factors::default()),
        }
        self.assembled.assign_blocks(0, &[]);
    }

    /// Number of contacts.
    pub fn contact_count(&self) -> usize {
        self.assembled.contact_count()
    }

    /// A₀, the assembled part.
    pub fn assembled(&self) -> &BlockSparseDelassus {
        &self.assembled
    }

    /// The same operator with `blocks` (i, j, block) added to A₀ (after its own blocks, in the order
    /// given). `None` when an index is out of range.
    pub fn with_added_blocks(&self, blocks: Vec<(usize, usize, Matrix3<f64>)>) -> Option<Self> {
        Some(Self {
            assembled: self.assembled.with_added_blocks(blocks)?,
            factors: Arc::clone(&self.factors),
        })
    }

    /// The operator of the contacts `keep` only (the principal submatrix), renumbered in the order
    /// given, as [`BlockSparseDelassus::restricted`].
    pub fn restricted(&self, keep: &[usize]) -> FactoredDelassus {
        let mut sides = Vec::new();
        for (k, &c) in keep.iter().enumerate() {
            sides.extend(self.contact_sides(c).iter().map(|s| (k, s.clone())));
        }
        // Every index is below keep.len() by construction.
        let assembled = self.assembled.restricted(keep);
        let contacts = assembled.contact_count();
        FactoredDelassus::new(assembled, sides).unwrap_or_else(|| FactoredDelassus {
            assembled: BlockSparseDelassus::new(contacts),
            factors: Arc::new(Factors {
                side_start: vec![0; contacts + 1],
                sides: Vec::new(),
                slot_start: vec![0],
                slot_sides: Vec::new(),
                diagonal: vec![Matrix3::zeros(); contacts],
            }),
        })
    }

    /// Contact c's sides (empty out of range).
    fn contact_sides(&self, c: usize) -> &[FactoredSide] {
        let f = &*self.factors;
        match (f.side_start.get(c), f.side_start.get(c + 1)) {
            (Some(&start), Some(&end)) => f.sides.get(start..end).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Δv of `slot` for the impulses x: Σ over the slot's contacts of g x_c.
    fn slot_velocity(&self, slot: usize, x: &[f64]) -> Vector6<f64> {
        let mut dv = Vector6::zeros();
        let f = &*self.factors;
        let (Some(&start), Some(&end)) = (f.slot_start.get(slot), f.slot_start.get(slot + 1)) else {
            return dv;
        };
        for &(c, k) in f.slot_sides.get(start..end).unwrap_or(&[]) {
            if let (Some(side), Some(xs)) = (f.sides.get(k), x.get(3 * c..3 * c + 3)) {
                dv += side.response * nalgebra::Vector3::new(xs[0], xs[1], xs[2]);
            }
        }
        dv
    }
}

/// j Δv for one side, the three rows (fixed-size 3 × 6 product).
#[inline]
fn rows_times(side: &FactoredSide, dv: &[f64]) -> [f64; 3] {
    let base = 6 * side.slot;
    let Some(v) = dv.get(base..base + 6) else {
        return [0.0; 3];
    };
    let w = side.rows * Vector6::from_column_slice(v);
    [w.x, w.y, w.z]
}

impl DelassusRows for FactoredDelassus {
    fn dim(&self) -> usize {
        3 * self.contact_count()
    }

    fn entry(&self, row: usize, col: usize) -> f64 {
        let (i, j) = (row / 3, col / 3);
        if i >= self.contact_count() || j >= self.contact_count() {
            return 0.0;
        }
        let mut value = self.assembled.entry(row, col);
        for si in self.contact_sides(i) {
            for sj in self.contact_sides(j).iter().filter(|s| s.slot == si.slot) {
                value += si.rows.row(row % 3).dot(&sj.response.column(col % 3).transpose());
            }
        }
        value
    }

    fn row_dot(&self, row: usize, x: &[f64]) -> f64 {
        let (c, k) = (row / 3, row % 3);
        let mut sum = self.assembled.row_dot(row, x);
        for side in self.contact_sides(c) {
            let dv = self.slot_velocity(side.slot, x);
            sum += side.rows.row(k).dot(&dv.transpose());
        }
        sum
    }

    fn block_row_dot(&self, contact: usize, x: &[f64]) -> [f64; 3] {
        let mut sum = self.assembled.block_row_dot(contact, x);
        for side in self.contact_sides(contact) {
            let dv = self.slot_velocity(side.slot, x);
            let w = side.rows * dv;
            for (s, w) in sum.iter_mut().zip(w.iter()) {
                *s += w;
            }
        }
        sum
    }

    fn block(&self, i: usize, j: usize) -> Matrix3<f64> {
        let mut block = self.assembled.block(i, j);
        for si in self.contact_sides(i) {
            for sj in self.contact_sides(j).iter().filter(|s| s.slot == si.slot) {
                block += si.rows * sj.response;
            }
        }
        block
    }

    /// A₀'s row, then for each of contact i's sides the products `j_i g_j` with every contact j
    /// on the side's body (the terms of [`Self::block`], in its order for each j).
    fn visit_block_row(&self, i: usize, visit: &mut dyn FnMut(usize, &Matrix3<f64>)) {
        self.assembled.visit_block_row(i, visit);
        let f = &*self.factors;
        for si in self.contact_sides(i) {
            let (Some(&start), Some(&end)) = (f.slot_start.get(si.slot), f.slot_start.get(si.slot + 1)) else {
                continue;
            };
            for &(j, k) in f.slot_sides.get(start..end).unwrap_or(&[]) {
                if let Some(sj) = f.sides.get(k) {
                    visit(j, &(si.rows * sj.response));
                }
            }
        }
    }

    fn diagonal_block(&self, contact: usize) -> Matrix3<f64> {
        let factored = self
            .factors
            .diagonal
            .get(contact)
            .copied()
            .unwrap_or_else(Matrix3::zeros);
        self.assembled.diagonal_block(contact) + factored
    }

    fn multiply(&self, x: &[f64], out: &mut [f64]) {
        let mut dv = vec![0.0; self.velocity_len()];
        self.body_velocities(x, &mut dv);
        for (c, o) in out.chunks_exact_mut(3).enumerate() {
            let w = self.block_row_dot_with(c, x, &dv);
            o.copy_from_slice(&w);
        }
    }

    fn velocity_len(&self) -> usize {
        6 * self.factors.slot_start.len().saturating_sub(1)
    }

    fn body_velocities(&self, x: &[f64], dv: &mut [f64]) {
        dv.iter_mut().for_each(|v| *v = 0.0);
        for (c, xs) in x.chunks_exact(3).enumerate() {
            self.add_impulse(c, [xs[0], xs[1], xs[2]], dv);
        }
    }

    fn block_row_dot_with(&self, contact: usize, x: &[f64], dv: &[f64]) -> [f64; 3] {
        let mut sum = self.assembled.block_row_dot(contact, x);
        for side in self.contact_sides(contact) {
            let w = rows_times(side, dv);
            for (s, w) in sum.iter_mut().zip(w) {
                *s += w;
            }
        }
        sum
    }

    fn add_impulse(&self, contact: usize, delta: [f64; 3], dv: &mut [f64]) {
        let delta = nalgebra::Vector3::from(delta);
        for side in self.contact_sides(contact) {
            let base = 6 * side.slot;
            if let Some(v) = dv.get_mut(base..base + 6) {
                let change = side.response * delta;
                for (vd, c) in v.iter_mut().zip(change.iter()) {
                    *vd += c;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, Matrix6};

    /// Three contacts on two free bodies (slots 0, 1) plus an assembled part: contact 0 on body 0,
    /// contact 1 between both, contact 2 on body 1 with compliance in A₀.
    fn sample() -> (FactoredDelassus, DMatrix<f64>) {
        let minv = [
            Matrix6::from_fn(|r, c| {
                if r == c {
                    0.5 + 0.1 * r as f64
                } else {
                    0.01 * (r + c) as f64
                }
            }),
            Matrix6::from_fn(|r, c| if r == c { 1.0 + 0.2 * r as f64 } else { -0.02 }),
        ];
        let rows = |k: usize| Matrix3x6::from_fn(|r, c| ((k * 18 + r * 6 + c) as f64 * 0.37).sin());
        let layout = [(0, 0, rows(0)), (1, 0, -rows(1)), (1, 1, rows(2)), (2, 1, rows(3))];
        let mut j = DMatrix::zeros(9, 12);
        let mut sides = Vec::new();
        for (c, slot, r) in layout {
            let mut view = j.view_mut((3 * c, 6 * slot), (3, 6));
            view += r;
            sides.push((
                c,
                FactoredSide {
                    slot,
                    rows: r,
                    response: minv[slot] * r.transpose(),
                },
            ));
        }
        let mut m = DMatrix::zeros(12, 12);
        for (s, block) in minv.iter().enumerate() {
            m.view_mut((6 * s, 6 * s), (6, 6)).copy_from(block);
        }
        let mut a = &j * m * j.transpose();
        let compliance = Matrix3::from_diagonal(&nalgebra::Vector3::new(0.3, 0.0, 0.0));
        let assembled = BlockSparseDelassus::from_blocks(3, vec![(2, 2, compliance)]).expect("in range");
        a[(6, 6)] += 0.3;
        (FactoredDelassus::new(assembled, sides).expect("in range"), a)
    }

    #[test]
    fn every_read_equals_the_assembled_matrix() {
        let (op, a) = sample();
        let x: Vec<f64> = (0..9).map(|i| (i as f64 * 0.9).cos()).collect();
        let ax = &a * nalgebra::DVector::from_column_slice(&x);
        let mut dv = vec![0.0; op.velocity_len()];
        op.body_velocities(&x, &mut dv);
        let mut out = vec![0.0; 9];
        op.multiply(&x, &mut out);
        for c in 0..3 {
            let with = op.block_row_dot_with(c, &x, &dv);
            let without = op.block_row_dot(c, &x);
            for k in 0..3 {
                let expected = ax[3 * c + k];
                for value in [with[k], without[k], op.row_dot(3 * c + k, &x), out[3 * c + k]] {
                    assert!(
                        (value - expected).abs() < 1e-13,
                        "contact {c} row {k}: {value} vs {expected}"
                    );
                }
            }
            let block = op.diagonal_block(c);
            for r in 0..3 {
                for s in 0..3 {
                    assert!((block[(r, s)] - a[(3 * c + r, 3 * c + s)]).abs() < 1e-13);
                }
            }
        }
        for row in 0..9 {
            for col in 0..9 {
                assert!((op.entry(row, col) - a[(row, col)]).abs() < 1e-13, "({row}, {col})");
            }
        }
    }

    /// The free velocity, friction and tight solver options of the contacts of [`sample`].
    fn sample_contacts() -> (nalgebra::DVector<f64>, Vec<crate::ContactFriction>, crate::PgsOptions) {
        let b = nalgebra::DVector::from_fn(9, |i, _| if i % 3 == 0 { -0.5 - 0.1 * i as f64 } else { 0.2 });
        let contacts = vec![crate::ContactFriction::new(0.4, crate::FrictionModel::Cone); 3];
        let options = crate::PgsOptions {
            tolerance: 1e-12,
            max_iterations: 5000,
            ..crate::PgsOptions::default()
        };
        (b, contacts, options)
    }

    #[test]
    fn projected_gauss_seidel_solves_the_same_problem_on_either_form() {
        use crate::{ContactProblem, Pgs};
        let (op, a) = sample();
        let (b, contacts, options) = sample_contacts();
        let factored = ContactProblem::new(op, b.clone(), contacts.clone()).expect("valid");
        let dense = ContactProblem::new(a, b, contacts).expect("valid");
        let mut x = nalgebra::DVector::zeros(9);
        let mut y = nalgebra::DVector::zeros(9);
        let rf = Pgs::new(options).solve_contacts(&factored, &mut x).expect("solves");
        let rd = Pgs::new(options).solve_contacts(&dense, &mut y).expect("solves");
        assert!(rf.converged && rd.converged, "{rf:?} {rd:?}");
        assert_eq!(rf.iterations, rd.iterations);
        assert!((&x - &y).amax() < 1e-10, "{x} vs {y}");
    }

    #[test]
    fn a_solve_started_from_known_body_velocities_keeps_them_for_its_answer() {
        use crate::{ContactProblem, Pgs};
        let (op, _) = sample();
        let (b, contacts, options) = sample_contacts();
        let problem = ContactProblem::new(op, b, contacts).expect("valid");
        let fresh_velocities = |x: &nalgebra::DVector<f64>| {
            let mut dv = vec![0.0; problem.delassus.velocity_len()];
            problem.delassus.body_velocities(x.as_slice(), &mut dv);
            dv
        };
        // A warm start outside the cone and with a negative normal: the projection changes it.
        let start = nalgebra::DVector::from_column_slice(&[0.3, 0.9, -0.4, -0.2, 0.1, 0.0, 0.5, 0.0, 0.05]);
        let known = fresh_velocities(&start);
        let islands = [vec![0, 1, 2]];
        let mut afresh = start.clone();
        let mut from_known = start.clone();
        let mut first = Pgs::new(options);
        let mut second = Pgs::new(options);
        let r1 = first
            .solve_valid_contacts_in_islands(&problem, &mut afresh, &islands)
            .expect("solves");
        let r2 = second
            .solve_valid_contacts_in_islands_from(&problem, &mut from_known, &islands, Some(&known))
            .expect("solves");
        assert!(r1.converged && r2.converged, "{r1:?} {r2:?}");
        assert!((&afresh - &from_known).amax() < 1e-12, "{afresh} vs {from_known}");
        // Each solver's kept state is Δv of the λ it returned, to rounding.
        for (solver, x) in [(&first, &afresh), (&second, &from_known)] {
            let expected = fresh_velocities(x);
            assert_eq!(solver.body_velocities().len(), expected.len());
            for (u, v) in solver.body_velocities().iter().zip(&expected) {
                assert!((u - v).abs() < 1e-12, "{u} vs {v}");
            }
        }
        // A state of the wrong length is ignored: summed afresh, bit for bit the plain solve.
        let mut ignored = start.clone();
        Pgs::new(options)
            .solve_valid_contacts_in_islands_from(&problem, &mut ignored, &islands, Some(&[0.0; 5]))
            .expect("solves");
        assert_eq!(ignored, afresh);
    }

    #[test]
    fn operators_rebuilt_in_place_equal_the_ones_built_afresh() {
        let (op, _) = sample();
        let sides: Vec<(usize, FactoredSide)> = (0..3)
            .flat_map(|c| op.contact_sides(c).iter().map(move |s| (c, s.clone())))
            .collect();
        let blocks = [(2, 2, op.assembled().block(2, 2))];
        let extra = [(0, 1, Matrix3::identity())];
        // Storage that held another operator first.
        let mut reused = FactoredDelassus::default();
        assert!(reused.assign(2, &extra, &sides[..1]));
        assert!(reused.assign(3, &blocks, &sides));
        assert_eq!(reused, op);
        let mut sharing = FactoredDelassus::default();
        assert!(sharing.assign_with_added_blocks(&reused, &extra));
        assert_eq!(Some(sharing.clone()), op.with_added_blocks(extra.to_vec()));
        // While shared the factors are built afresh; once released, in place again.
        assert!(reused.assign(3, &blocks, &sides));
        sharing.release();
        assert_eq!(sharing.contact_count(), 0);
        assert!(reused.assign(3, &blocks, &sides));
        assert_eq!(reused, op);
        assert!(!reused.assign(2, &blocks, &sides), "contact 2 is out of range");
    }

    #[test]
    fn sides_grouped_by_contact_with_their_diagonals_make_the_same_operator() {
        let (op, _) = sample();
        let blocks = [(2, 2, op.assembled().block(2, 2))];
        let grouped = || {
            let mut starts = vec![0];
            let mut sides = Vec::new();
            let mut diagonal = Vec::new();
            for c in 0..3 {
                let mut block = Matrix3::zeros();
                for side in op.contact_sides(c) {
                    block += side.rows * side.response;
                    sides.push(side.clone());
                }
                starts.push(sides.len());
                diagonal.push(block);
            }
            (starts, sides, diagonal)
        };
        let (starts, mut sides, mut diagonal) = grouped();
        let mut reused = FactoredDelassus::default();
        assert!(reused.assign_grouped(3, &blocks, &starts, &mut sides, &mut diagonal));
        assert_eq!(reused, op);
        for c in 0..3 {
            assert_eq!(reused.diagonal_block(c), op.diagonal_block(c), "contact {c}");
        }
        // One diagonal block short, or runs that do not delimit the sides: refused.
        let (starts, mut sides, mut diagonal) = grouped();
        diagonal.pop();
        assert!(!reused.assign_grouped(3, &blocks, &starts, &mut sides, &mut diagonal));
        let (mut starts, mut sides, mut diagonal) = grouped();
        starts[3] += 1;
        assert!(!reused.assign_grouped(3, &blocks, &starts, &mut sides, &mut diagonal));
    }

    #[test]
    fn impulses_update_the_body_velocities_and_restriction_keeps_the_submatrix() {
        let (op, a) = sample();
        let mut x = vec![0.0; 9];
        let mut dv = vec![0.0; op.velocity_len()];
        op.body_velocities(&x, &mut dv);
        x[3] = 0.7;
        x[5] = -0.2;
        op.add_impulse(1, [0.7, 0.0, -0.2], &mut dv);
        let mut fresh = vec![0.0; op.velocity_len()];
        op.body_velocities(&x, &mut fresh);
        for (u, v) in dv.iter().zip(&fresh) {
            assert!((u - v).abs() < 1e-15);
        }
        let keep = [2, 1];
        let sub = op.restricted(&keep);
        for (k, &i) in keep.iter().enumerate() {
            for (l, &j) in keep.iter().enumerate() {
                for r in 0..3 {
                    for s in 0..3 {
                        let value = sub.entry(3 * k + r, 3 * l + s);
                        assert!((value - a[(3 * i + r, 3 * j + s)]).abs() < 1e-13);
                    }
                }
            }
        }
        let extra = op
            .with_added_blocks(vec![(0, 1, Matrix3::identity())])
            .expect("in range");
        assert!((extra.entry(0, 3) - a[(0, 3)] - 1.0).abs() < 1e-13);
        assert!(op.with_added_blocks(vec![(0, 3, Matrix3::identity())]).is_none());
        assert!(FactoredDelassus::new(BlockSparseDelassus::new(1), vec![(1, op.factors.sides[0].clone())]).is_none());
    }
}
