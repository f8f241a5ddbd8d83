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

    /// out = A x, row by row. Override when a faster product exists.
    fn multiply(&self, x: &[f64], out: &mut [f64]) {
        for (row, value) in out.iter_mut().enumerate() {
            *value = self.row_dot(row, x);
        }
    }
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
/// crate). Each block row keeps its blocks sorted by column contact, so a row product visits them in a
/// fixed order (deterministic sums).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BlockSparseDelassus {
    block_rows: Vec<Vec<(usize, Matrix3<f64>)>>,
}

impl BlockSparseDelassus {
    /// An all-zero operator for `contacts` contacts (dimension 3·contacts).
    pub fn new(contacts: usize) -> Self {
        Self {
            block_rows: vec![Vec::new(); contacts],
        }
    }

    /// Number of contacts.
    pub fn contact_count(&self) -> usize {
        self.block_rows.len()
    }

    /// Number of stored (non-zero-pattern) blocks.
    pub fn block_count(&self) -> usize {
        self.block_rows.iter().map(Vec::len).sum()
    }

    /// The block Aᵢⱼ (zero when not stored or out of range).
    pub fn block(&self, i: usize, j: usize) -> Matrix3<f64> {
        self.block_rows
            .get(i)
            .and_then(|row| {
                row.binary_search_by_key(&j, |(col, _)| *col)
                    .ok()
                    .and_then(|k| row.get(k))
            })
            .map(|(_, block)| *block)
            .unwrap_or_else(Matrix3::zeros)
    }

    /// Aᵢⱼ += `block`. Returns false (and changes nothing) when i or j is not a contact index.
    pub fn add_block(&mut self, i: usize, j: usize, block: &Matrix3<f64>) -> bool {
        if j >= self.block_rows.len() {
            return false;
        }
        let Some(row) = self.block_rows.get_mut(i) else {
            return false;
        };
        match row.binary_search_by_key(&j, |(col, _)| *col) {
            Ok(k) => {
                if let Some((_, existing)) = row.get_mut(k) {
                    *existing += block;
                }
            }
            Err(k) => row.insert(k, (j, *block)),
        }
        true
    }

    /// The operator of the contacts `keep` only (the principal submatrix of their rows and
    /// columns), renumbered in the order given: contact k of the result is contact `keep[k]`.
    /// `keep` holds distinct contact indices; an index out of range gives an all-zero row.
    pub fn restricted(&self, keep: &[usize]) -> BlockSparseDelassus {
        let mut position = vec![None; self.block_rows.len()];
        for (k, &c) in keep.iter().enumerate() {
            if let Some(slot) = position.get_mut(c) {
                *slot = Some(k);
            }
        }
        let mut out = BlockSparseDelassus::new(keep.len());
        for (k, &c) in keep.iter().enumerate() {
            let Some(row) = self.block_rows.get(c) else { continue };
            for (col, block) in row {
                if let Some(Some(l)) = position.get(*col) {
                    out.add_block(k, *l, block);
                }
            }
        }
        out
    }

    /// Add the coupling through one body with six velocity coordinates (a free rigid body, or one
    /// 6-dof block of a larger system): for every pair of its contacts (a, b),
    /// A_ab += J_a M⁻¹ J_bᵀ, where J_a (3×6) maps the body's velocity to contact a's (normal, t₁, t₂)
    /// velocity and `inverse_mass` is M⁻¹ (6×6). `docs/design/contact-mechanics.md` §4.2.2:
    /// A = J M⁻¹ Jᵀ, summed over bodies. Returns false when a contact index is out of range (nothing is
    /// added then).
    pub fn add_body_coupling(&mut self, contacts: &[(usize, Matrix3x6<f64>)], inverse_mass: &Matrix6<f64>) -> bool {
        if contacts.iter().any(|(c, _)| *c >= self.block_rows.len()) {
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
        3 * self.block_rows.len()
    }

    fn entry(&self, row: usize, col: usize) -> f64 {
        self.block(row / 3, col / 3)
            .get((row % 3, col % 3))
            .copied()
            .unwrap_or(0.0)
    }

    fn row_dot(&self, row: usize, x: &[f64]) -> f64 {
        let (contact, k) = (row / 3, row % 3);
        let Some(blocks) = self.block_rows.get(contact) else {
            return 0.0;
        };
        let mut sum = 0.0;
        for (col, block) in blocks {
            if let Some(xs) = x.get(3 * col..3 * col + 3) {
                sum += block[(k, 0)] * xs[0] + block[(k, 1)] * xs[1] + block[(k, 2)] * xs[2];
            }
        }
        sum
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
