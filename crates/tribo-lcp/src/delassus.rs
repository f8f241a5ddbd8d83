//! How a solver reads the Delassus operator A = J M⁻¹ Jᵀ (`docs/design/contact-mechanics.md` §4.2.2):
//! one row at a time.
//!
//! Projected Gauss–Seidel visits the unknowns in order and needs, for row i, the product (Aλ)ᵢ with the
//! current λ, and once per solve the diagonal (and, for contacts, the 3×3 diagonal blocks). That is all
//! [`DelassusRows`] asks for, so the solvers are generic over where A comes from:
//!
//! | form | type | use |
//! |---|---|---|
//! | dense, column-major | `nalgebra::DMatrix<f64>` | small problems, tests; a row is a strided walk |
//! | dense, row-major | [`DenseRows`] | dense problems of a few hundred contacts; a row is contiguous |
//! | block-sparse | [`BlockSparseDelassus`] | piles of bodies: contact i couples to contact j only through a shared body |
//!
//! An operator known only as the map λ ↦ Aλ does not fit Gauss–Seidel: each row would cost a full
//! product. Such an engine can build the block-sparse form from its per-body Jacobian blocks
//! ([`BlockSparseDelassus::add_body_coupling`]) or implement this trait on its own structure.

use nalgebra::{DMatrix, Matrix3, Matrix3x6, Matrix6};

/// Row access to a square matrix A (n × n). Implementations must be cheap for [`row_dot`](Self::row_dot):
/// the solvers call it once per row per sweep.
pub trait DelassusRows {
    /// n, the number of rows (and columns).
    fn dim(&self) -> usize;

    /// A[row, col]; 0 outside the matrix. The solvers read it only while setting up (diagonal and
    /// the 3×3 contact diagonal blocks), never in the sweep.
    fn entry(&self, row: usize, col: usize) -> f64;

    /// (A x)_row = Σⱼ A[row, j] xⱼ. `x` has `dim()` entries; a row outside the matrix gives 0.
    fn row_dot(&self, row: usize, x: &[f64]) -> f64;

    /// [(A x)₃꜀, (A x)₃꜀₊₁, (A x)₃꜀₊₂], the three rows of contact c. Override when one walk over
    /// the contact's rows is cheaper than three (block-sparse storage).
    fn block_row_dot(&self, contact: usize, x: &[f64]) -> [f64; 3] {
        let base = 3 * contact;
        [
            self.row_dot(base, x),
            self.row_dot(base + 1, x),
            self.row_dot(base + 2, x),
        ]
    }

    /// The 3×3 diagonal block of contact c (rows and columns 3c..3c+3). The solvers read it while
    /// setting up, never in the sweep.
    fn diagonal_block(&self, contact: usize) -> Matrix3<f64> {
        let base = 3 * contact;
        Matrix3::from_fn(|r, c| self.entry(base + r, base + c))
    }

    /// The 3×3 block Aᵢⱼ (rows 3i..3i+3, columns 3j..3j+3). The solvers read it only for the
    /// subspace steps of PGS (`crate::subspace`), never in the sweep. Override when a block is
    /// cheaper to read whole.
    fn block(&self, i: usize, j: usize) -> Matrix3<f64> {
        let (bi, bj) = (3 * i, 3 * j);
        Matrix3::from_fn(|r, c| self.entry(bi + r, bj + c))
    }

    /// Visits the parts of block row i: `visit(j, part)` for each stored part of Aᵢⱼ, the parts of
    /// one j summing (in the order visited) to [`Self::block`]`(i, j)`; blocks known to be zero may
    /// be skipped. The subspace steps of PGS assemble A_FF this way (`crate::subspace`): one walk
    /// per row instead of a lookup per pair. The default visits every block through
    /// [`Self::block`]; override when the operator can walk its rows.
    fn visit_block_row(&self, i: usize, visit: &mut dyn FnMut(usize, &Matrix3<f64>)) {
        for j in 0..self.dim() / 3 {
            visit(j, &self.block(i, j));
        }
    }

    /// out = A x, row by row. Override when a faster product exists.
    fn multiply(&self, x: &[f64], out: &mut [f64]) {
        for (row, value) in out.iter_mut().enumerate() {
            *value = self.row_dot(row, x);
        }
    }

    /// Length of the velocity state a sweep may keep beside λ (0: none). An operator kept in
    /// factored form, A = J M⁻¹ Jᵀ with body velocities Δv = M⁻¹ Jᵀ λ (`crate::factored`), reads
    /// its rows from that state instead of from λ.
    fn velocity_len(&self) -> usize {
        0
    }

    /// Sets the state `dv` (of [`Self::velocity_len`] entries) for the impulses x.
    fn body_velocities(&self, _x: &[f64], _dv: &mut [f64]) {}

    /// [`Self::block_row_dot`] with the state `dv` kept consistent with x (by
    /// [`Self::body_velocities`] and [`Self::add_impulse`]); the same three sums.
    fn block_row_dot_with(&self, contact: usize, x: &[f64], _dv: &[f64]) -> [f64; 3] {
        self.block_row_dot(contact, x)
    }

    /// Contact c's impulse changed by `delta`: update the state `dv`.
    fn add_impulse(&self, _contact: usize, _delta: [f64; 3], _dv: &mut [f64]) {}
}

impl DelassusRows for DMatrix<f64> {
    fn dim(&self) -> usize {
        self.nrows()
    }

    fn entry(&self, row: usize, col: usize) -> f64 {
        self.get((row, col)).copied().unwrap_or(0.0)
    }

    fn row_dot(&self, row: usize, x: &[f64]) -> f64 {
        if row >= self.nrows() {
            return 0.0;
        }
        // Column-major storage: row `row` is every nrows-th entry starting at `row`.
        self.as_slice()
            .iter()
            .skip(row)
            .step_by(self.nrows())
            .zip(x)
            .map(|(a, x)| a * x)
            .sum()
    }
}

/// A dense square matrix stored row by row, so that a Gauss–Seidel row is one contiguous slice.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseRows {
    n: usize,
    data: Vec<f64>,
}

impl DenseRows {
    /// Copy a square matrix (a non-square one keeps its leading square part, padded with zeros).
    pub fn from_matrix(a: &DMatrix<f64>) -> Self {
        let n = a.nrows();
        let mut data = Vec::with_capacity(n * n);
        for row in 0..n {
            data.extend((0..n).map(|col| a.get((row, col)).copied().unwrap_or(0.0)));
        }
        Self { n, data }
    }

    /// The row as a slice (empty outside the matrix).
    pub fn row(&self, row: usize) -> &[f64] {
        self.data.get(row * self.n..(row + 1) * self.n).unwrap_or(&[])
    }
}

impl DelassusRows for DenseRows {
    fn dim(&self) -> usize {
        self.n
    }

    fn entry(&self, row: usize, col: usize) -> f64 {
        if col >= self.n {
            return 0.0;
        }
        self.row(row).get(col).copied().unwrap_or(0.0)
    }

    fn row_dot(&self, row: usize, x: &[f64]) -> f64 {
        dot(self.row(row), x)
    }
}

/// Σ aᵢxᵢ over the common length, with four interleaved partial sums (a fixed order, so the result is
/// deterministic; the independent sums let the compiler vectorise).
fn dot(a: &[f64], x: &[f64]) -> f64 {
    let n = a.len().min(x.len());
    let (a, x) = (&a[..n], &x[..n]);
    let mut sums = [0.0; 4];
    let (a_chunks, x_chunks) = (a.chunks_exact(4), x.chunks_exact(4));
    let tail: f64 = a_chunks
        .remainder()
        .iter()
        .zip(x_chunks.remainder())
        .map(|(a, x)| a * x)
        .sum();
    for (ac, xc) in a_chunks.zip(x_chunks) {
        for k in 0..4 {
            sums[k] += ac[k] * xc[k];
        }
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3]) + tail
}

/// A Delassus operator stored as 3×3 blocks Aᵢⱼ, one per pair of contacts (i, j) that share a body.
///
/// Rows 3i, 3i+1, 3i+2 belong to contact i (normal, first tangent, second tangent, as everywhere in the
/// crate). The blocks are stored contiguously, block row after block row (compressed sparse rows of
/// 3×3 blocks), each block row sorted by column contact, so a row product visits them in a fixed order
/// (deterministic sums) and one walk over a block row gives all three rows of a contact
/// ([`DelassusRows::block_row_dot`]). The position of every diagonal block is kept, so the solvers'
/// set-up reads Aᵢᵢ without a search.
///
/// Build it in one go with [`from_blocks`](Self::from_blocks) (or [`add_body_coupling`](Self::add_body_coupling)
/// on an empty operator); [`add_block`](Self::add_block) adds to a stored block in place but has to
/// shift the later blocks to insert a new one.
#[derive(Debug, PartialEq, Default)]
pub struct BlockSparseDelassus {
    /// Block row i holds `columns[row_start[i]..row_start[i + 1]]` (contacts + 1 entries).
    row_start: Vec<usize>,
    /// Column contact of every stored block, ascending within a block row.
    columns: Vec<usize>,
    blocks: Vec<Matrix3<f64>>,
    /// Index into `blocks` of Aᵢᵢ, when stored.
    diagonal: Vec<Option<usize>>,
    /// Working storage of the in-place builds, kept so that rebuilding every step allocates
    /// nothing once the sizes have been seen.
    scratch: BuildScratch,
}

/// The sort keys and pending blocks of [`BlockSparseDelassus::assign_blocks`] and
/// [`BlockSparseDelassus::assign_with_added_blocks`]. Not part of the operator's value: every
/// scratch equals every other, and a clone starts empty.
#[derive(Default)]
struct BuildScratch {
    order: Vec<(usize, usize, usize)>,
    pending: Vec<(usize, usize, Matrix3<f64>)>,
}

impl PartialEq for BuildScratch {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Clone for BuildScratch {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for BuildScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BuildScratch")
    }
}

impl Clone for BlockSparseDelassus {
    fn clone(&self) -> Self {
        Self {
            row_start: self.row_start.clone(),
            columns: self.columns.clone(),
            blocks: self.blocks.clone(),
            diagonal: self.diagonal.clone(),
            scratch: BuildScratch::default(),
        }
    }

    /// Reuses this operator's storage.
    fn clone_from(&mut self, source: &Self) {
        self.row_start.clone_from(&source.row_start);
        self.columns.clone_from(&source.columns);
        self.blocks.clone_from(&source.blocks);
        self.diagonal.clone_from(&source.diagonal);
    }
}

impl BlockSparseDelassus {
    /// An all-zero operator for `contacts` contacts (dimension 3·contacts).
    pub fn new(contacts: usize) -> Self {
        Self {
            row_start: vec![0; contacts + 1],
            columns: Vec::new(),
            blocks: Vec::new(),
            diagonal: vec![None; contacts],
            scratch: BuildScratch::default(),
        }
    }

    /// The operator Σ of `blocks` (i, j, Aᵢⱼ) for `contacts` contacts: blocks of the same (i, j) are
    /// summed in the order given (so the result equals [`add_block`](Self::add_block) called on each in
    /// turn, to the bit). `None` (and nothing built) when an index is not a contact.
    pub fn from_blocks(contacts: usize, blocks: Vec<(usize, usize, Matrix3<f64>)>) -> Option<Self> {
        let mut out = Self::default();
        out.assign_blocks(contacts, &blocks).then_some(out)
    }

    /// Makes this operator the one [`from_blocks`](Self::from_blocks) builds, in its own storage
    /// (no allocation once it has held as many blocks). Returns false, leaving it as it was, when an
    /// index is not a contact.
    pub fn assign_blocks(&mut self, contacts: usize, blocks: &[(usize, usize, Matrix3<f64>)]) -> bool {
        if blocks.iter().any(|&(i, j, _)| i >= contacts || j >= contacts) {
            return false;
        }
        // Sorted by (i, j, position given): equal (i, j) keep their order, so each sum runs in
        // the order given. The keys are sorted, not the 88-byte triplets.
        let mut order = std::mem::take(&mut self.scratch.order);
        order.clear();
        order.extend(blocks.iter().enumerate().map(|(k, &(i, j, _))| (i, j, k)));
        order.sort_unstable();
        self.row_start.clear();
        self.columns.clear();
        self.blocks.clear();
        self.diagonal.clear();
        self.diagonal.resize(contacts, None);
        self.row_start.push(0);
        let mut row = 0;
        let mut last: Option<(usize, usize)> = None;
        for &(i, j, k) in &order {
            let Some(&(_, _, block)) = blocks.get(k) else { continue };
            if last == Some((i, j)) {
                if let Some(existing) = self.blocks.last_mut() {
                    *existing += block;
                }
                continue;
            }
            while row < i {
                self.row_start.push(self.columns.len());
                row += 1;
            }
            if i == j {
                if let Some(slot) = self.diagonal.get_mut(i) {
                    *slot = Some(self.blocks.len());
                }
            }
            self.columns.push(j);
            self.blocks.push(block);
            last = Some((i, j));
        }
        while self.row_start.len() < contacts + 1 {
            self.row_start.push(self.columns.len());
        }
        self.scratch.order = order;
        true
    }

    /// Number of contacts.
    pub fn contact_count(&self) -> usize {
        self.diagonal.len()
    }

    /// The same operator with `blocks` (i, j, Aᵢⱼ) added after its own (summed as
    /// [`add_block`](Self::add_block) on each in turn would, to the bit), built in one go. `None`
    /// when an index is not a contact.
    pub fn with_added_blocks(&self, blocks: Vec<(usize, usize, Matrix3<f64>)>) -> Option<Self> {
        let mut out = Self::default();
        out.assign_with_added_blocks(self, &blocks).then_some(out)
    }

    /// Makes this operator `base.with_added_blocks(blocks)` in its own storage (no allocation once
    /// it has held as many blocks). Returns false, leaving it unspecified but valid, when an index
    /// is not a contact.
    pub fn assign_with_added_blocks(&mut self, base: &Self, blocks: &[(usize, usize, Matrix3<f64>)]) -> bool {
        let contacts = base.contact_count();
        if blocks.iter().any(|&(i, j, _)| i >= contacts || j >= contacts) {
            return false;
        }
        if base.blocks.is_empty() {
            return self.assign_blocks(contacts, blocks);
        }
        // Blocks already stored are summed in place (in the order given); the others need a rebuild.
        self.clone_from(base);
        let mut pending = std::mem::take(&mut self.scratch.pending);
        pending.clear();
        for &(i, j, block) in blocks {
            match self.position(i, j).and_then(|k| self.blocks.get_mut(k)) {
                Some(existing) => *existing += block,
                None => pending.push((i, j, block)),
            }
        }
        let built = if pending.is_empty() {
            true
        } else {
            // Stored blocks first, block row by block row, then the missing ones in the order given.
            let missing = pending.len();
            pending.reserve(self.blocks.len());
            for i in 0..contacts {
                let (columns, row) = self.block_row(i);
                pending.extend(columns.iter().zip(row).map(|(&j, block)| (i, j, *block)));
            }
            pending.rotate_left(missing);
            self.assign_blocks(contacts, &pending)
        };
        self.scratch.pending = pending;
        built
    }

    /// Number of stored (non-zero-pattern) blocks.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// The stored blocks of block row i: (column contact, Aᵢⱼ), ascending j (empty out of range).
    fn block_row(&self, i: usize) -> (&[usize], &[Matrix3<f64>]) {
        match (self.row_start.get(i), self.row_start.get(i + 1)) {
            (Some(&start), Some(&end)) => (
                self.columns.get(start..end).unwrap_or(&[]),
                self.blocks.get(start..end).unwrap_or(&[]),
            ),
            _ => (&[], &[]),
        }
    }

    /// Index into `blocks` of Aᵢⱼ, when stored.
    fn position(&self, i: usize, j: usize) -> Option<usize> {
        if i == j {
            return self.diagonal.get(i).copied().flatten();
        }
        let start = *self.row_start.get(i)?;
        let (columns, _) = self.block_row(i);
        columns.binary_search(&j).ok().map(|k| start + k)
    }

    /// The block Aᵢⱼ (zero when not stored or out of range).
    pub fn block(&self, i: usize, j: usize) -> Matrix3<f64> {
        self.position(i, j)
            .and_then(|k| self.blocks.get(k))
            .copied()
            .unwrap_or_else(Matrix3::zeros)
    }

    /// Aᵢⱼ += `block`. Returns false (and changes nothing) when i or j is not a contact index.
    pub fn add_block(&mut self, i: usize, j: usize, block: &Matrix3<f64>) -> bool {
        let contacts = self.contact_count();
        if i >= contacts || j >= contacts {
            return false;
        }
        if let Some(existing) = self.position(i, j).and_then(|k| self.blocks.get_mut(k)) {
            *existing += block;
            return true;
        }
        let (start, columns) = (self.row_start[i], self.block_row(i).0);
        let k = start + columns.partition_point(|&c| c < j);
        self.columns.insert(k, j);
        self.blocks.insert(k, *block);
        for s in &mut self.row_start[i + 1..] {
            *s += 1;
        }
        for d in self.diagonal.iter_mut().flatten() {
            if *d >= k {
                *d += 1;
            }
        }
        if i == j {
            self.diagonal[i] = Some(k);
        }
        true
    }

    /// The operator of the contacts `keep` only (the principal submatrix of their rows and
    /// columns), renumbered in the order given: contact k of the result is contact `keep[k]`.
    /// `keep` holds distinct contact indices; an index out of range gives an all-zero row.
    pub fn restricted(&self, keep: &[usize]) -> BlockSparseDelassus {
        let mut position = vec![None; self.contact_count()];
        for (k, &c) in keep.iter().enumerate() {
            if let Some(slot) = position.get_mut(c) {
                *slot = Some(k);
            }
        }
        let mut blocks = Vec::new();
        for (k, &c) in keep.iter().enumerate() {
            let (columns, row) = self.block_row(c);
            for (col, block) in columns.iter().zip(row) {
                if let Some(Some(l)) = position.get(*col) {
                    blocks.push((k, *l, *block));
                }
            }
        }
        // Every index is below keep.len() by construction.
        BlockSparseDelassus::from_blocks(keep.len(), blocks).unwrap_or_else(|| BlockSparseDelassus::new(keep.len()))
    }

    /// Add the coupling through one body with six velocity coordinates (a free rigid body, or one
    /// 6-dof block of a larger system): for every pair of its contacts (a, b),
    /// A_ab += J_a M⁻¹ J_bᵀ, where J_a (3×6) maps the body's velocity to contact a's (normal, t₁, t₂)
    /// velocity and `inverse_mass` is M⁻¹ (6×6). `docs/design/contact-mechanics.md` §4.2.2:
    /// A = J M⁻¹ Jᵀ, summed over bodies. Returns false when a contact index is out of range (nothing is
    /// added then).
    pub fn add_body_coupling(&mut self, contacts: &[(usize, Matrix3x6<f64>)], inverse_mass: &Matrix6<f64>) -> bool {
        if contacts.iter().any(|(c, _)| *c >= self.contact_count()) {
            return false;
        }
        let weighted: Vec<Matrix3x6<f64>> = contacts.iter().map(|(_, j)| j * inverse_mass).collect();
        for ((a, _), jm) in contacts.iter().zip(&weighted) {
            for (b, jb) in contacts {
                self.add_block(*a, *b, &(jm * jb.transpose()));
            }
        }
        true
    }
}

impl DelassusRows for BlockSparseDelassus {
    fn dim(&self) -> usize {
        3 * self.contact_count()
    }

    fn entry(&self, row: usize, col: usize) -> f64 {
        self.position(row / 3, col / 3)
            .and_then(|k| self.blocks.get(k))
            .map_or(0.0, |block| block[(row % 3, col % 3)])
    }

    fn row_dot(&self, row: usize, x: &[f64]) -> f64 {
        let (contact, k) = (row / 3, row % 3);
        let (columns, blocks) = self.block_row(contact);
        let mut sum = 0.0;
        for (col, block) in columns.iter().zip(blocks) {
            if let Some(xs) = x.get(3 * col..3 * col + 3) {
                sum += block[(k, 0)] * xs[0] + block[(k, 1)] * xs[1] + block[(k, 2)] * xs[2];
            }
        }
        sum
    }

    /// One walk over the block row; each of the three sums is the one [`Self::row_dot`] forms.
    fn block_row_dot(&self, contact: usize, x: &[f64]) -> [f64; 3] {
        let (columns, blocks) = self.block_row(contact);
        let mut sum = [0.0; 3];
        for (&col, block) in columns.iter().zip(blocks) {
            let Some(&[x0, x1, x2]) = x.get(3 * col..3 * col + 3) else {
                continue;
            };
            // The columns of the block (nalgebra stores it column-major), read without index checks.
            let [c0, c1, c2] = block.data.0;
            for (s, ((a0, a1), a2)) in sum.iter_mut().zip(c0.iter().zip(&c1).zip(&c2)) {
                *s += a0 * x0 + a1 * x1 + a2 * x2;
            }
        }
        sum
    }

    fn block(&self, i: usize, j: usize) -> Matrix3<f64> {
        BlockSparseDelassus::block(self, i, j)
    }

    fn visit_block_row(&self, i: usize, visit: &mut dyn FnMut(usize, &Matrix3<f64>)) {
        let (columns, blocks) = self.block_row(i);
        for (&j, block) in columns.iter().zip(blocks) {
            visit(j, block);
        }
    }

    fn diagonal_block(&self, contact: usize) -> Matrix3<f64> {
        self.block(contact, contact)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> DMatrix<f64> {
        DMatrix::from_fn(6, 6, |i, j| {
            1.0 / (1.0 + i as f64 + 2.0 * j as f64) + if i == j { 2.0 } else { 0.0 }
        })
    }

    #[test]
    fn every_form_gives_the_same_rows() {
        let a = sample();
        let x: Vec<f64> = (0..6).map(|i| (i as f64 * 0.7).sin()).collect();
        let expected = &a * nalgebra::DVector::from_column_slice(&x);
        let dense = DenseRows::from_matrix(&a);
        let mut sparse = BlockSparseDelassus::new(2);
        for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            let block = a.fixed_view::<3, 3>(3 * i, 3 * j).into_owned();
            assert!(sparse.add_block(i, j, &block));
        }
        for row in 0..6 {
            for (name, value) in [
                ("DMatrix", a.row_dot(row, &x)),
                ("DenseRows", dense.row_dot(row, &x)),
                ("BlockSparse", sparse.row_dot(row, &x)),
            ] {
                assert!(
                    (value - expected[row]).abs() < 1e-14,
                    "{name} row {row}: {value} vs {}",
                    expected[row]
                );
            }
            for col in 0..6 {
                assert_eq!(dense.entry(row, col), a[(row, col)]);
                assert_eq!(sparse.entry(row, col), a[(row, col)]);
            }
        }
        assert_eq!(a.row_dot(6, &x), 0.0);
        assert_eq!(dense.entry(9, 0), 0.0);
        assert!(!sparse.add_block(2, 0, &Matrix3::identity()));
    }

    #[test]
    fn blocks_built_in_one_go_equal_blocks_added_one_by_one() {
        let block = |k: usize| Matrix3::from_fn(|r, c| (1 + k + 3 * r + 7 * c) as f64 * 0.1);
        // Out of order, with repeats (summed in the order given) and an empty block row (contact 2).
        let triplets = vec![
            (3, 1, block(0)),
            (0, 0, block(1)),
            (1, 3, block(2)),
            (0, 0, block(3)),
            (3, 3, block(4)),
            (1, 1, block(5)),
            (0, 3, block(6)),
            (3, 1, block(7)),
        ];
        let mut added = BlockSparseDelassus::new(4);
        for (i, j, b) in &triplets {
            assert!(added.add_block(*i, *j, b));
        }
        let built = BlockSparseDelassus::from_blocks(4, triplets).expect("indices in range");
        assert_eq!(built, added);
        assert_eq!(built.block_count(), 6);
        assert_eq!(built.block(0, 0), block(1) + block(3));
        assert_eq!(built.block(2, 2), Matrix3::zeros());
        let x: Vec<f64> = (0..12).map(|i| (i as f64 * 0.3).cos()).collect();
        for contact in 0..5 {
            let rows = built.block_row_dot(contact, &x);
            for (k, value) in rows.iter().enumerate() {
                assert_eq!(*value, built.row_dot(3 * contact + k, &x), "contact {contact} row {k}");
            }
        }
        assert!(BlockSparseDelassus::from_blocks(4, vec![(0, 4, block(0))]).is_none());

        // Added blocks, stored (0, 0) and new (2, 1), (2, 1) again: as add_block on each in turn.
        let extra = vec![(0, 0, block(8)), (2, 1, block(9)), (2, 1, block(10))];
        let mut one_by_one = built.clone();
        for (i, j, b) in &extra {
            assert!(one_by_one.add_block(*i, *j, b));
        }
        assert_eq!(built.with_added_blocks(extra), Some(one_by_one.clone()));
        assert_eq!(built.with_added_blocks(vec![(0, 0, block(8))]), {
            let mut x = built.clone();
            x.add_block(0, 0, &block(8));
            Some(x)
        });
        assert!(built.with_added_blocks(vec![(4, 0, block(0))]).is_none());
    }

    #[test]
    fn restriction_is_the_principal_submatrix() {
        let a = DMatrix::from_fn(9, 9, |i, j| (1 + i + 9 * j) as f64);
        let mut sparse = BlockSparseDelassus::new(3);
        for i in 0..3 {
            for j in 0..3 {
                if (i, j) != (0, 2) {
                    sparse.add_block(i, j, &a.fixed_view::<3, 3>(3 * i, 3 * j).into_owned());
                }
            }
        }
        let keep = [2, 0];
        let sub = sparse.restricted(&keep);
        assert_eq!(sub.contact_count(), 2);
        for (k, &i) in keep.iter().enumerate() {
            for (l, &j) in keep.iter().enumerate() {
                assert_eq!(sub.block(k, l), sparse.block(i, j), "block ({k}, {l})");
            }
        }
        assert_eq!(sub.block_count(), 3);
    }

    #[test]
    fn body_coupling_is_j_minv_jt() {
        // One body, two contacts: the assembled operator equals J M⁻¹ Jᵀ computed densely.
        let j0 = Matrix3x6::from_fn(|r, c| (r as f64 + 1.0) * 0.1 + c as f64 * 0.05);
        let j1 = Matrix3x6::from_fn(|r, c| ((r * 6 + c) as f64).cos());
        let minv = Matrix6::from_diagonal(&nalgebra::Vector6::new(0.5, 0.5, 0.5, 2.0, 3.0, 4.0));
        let mut sparse = BlockSparseDelassus::new(2);
        assert!(sparse.add_body_coupling(&[(0, j0), (1, j1)], &minv));
        let mut j = DMatrix::zeros(6, 6);
        j.view_mut((0, 0), (3, 6)).copy_from(&j0);
        j.view_mut((3, 0), (3, 6)).copy_from(&j1);
        let minv_dense = DMatrix::from_fn(6, 6, |r, c| minv[(r, c)]);
        let a = &j * minv_dense * j.transpose();
        for row in 0..6 {
            for col in 0..6 {
                assert!((sparse.entry(row, col) - a[(row, col)]).abs() < 1e-13);
            }
        }
        assert_eq!(sparse.block_count(), 4);
        assert!(!sparse.add_body_coupling(&[(5, j0)], &minv));
    }
}
