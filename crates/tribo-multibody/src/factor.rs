//! Sparse `LᵀDL` factorisation of a mass matrix with branch-induced sparsity, RBDA §6.3–6.4 (the
//! LTDL algorithm).
//!
//! For a tree, `M_ij ≠ 0` only when i and j lie on one path to the root of the dof tree λ
//! ([`crate::Tree::dof_parent`]). Factorising from the leaves upwards as `M = Lᵀ D L` (L unit lower
//! triangular, D diagonal) creates **no fill-in**: L has the sparsity of M's lower triangle, and
//! both the factorisation and the solves only walk ancestor chains:
//!
//! ```text
//! for k = n−1 … 0:                       (factorise, in place on the lower triangle)
//!     for i = λ(k), λ(λ(k)), …:
//!         a = H_ki / H_kk
//!         for j = i, λ(i), …:   H_ij −= a H_kj
//!         H_ki = a
//! solve Lᵀ z = y:  for i = n−1 … 0:  for j = λ(i), …:  y_j −= L_ij y_i
//! z ← D⁻¹ z
//! solve L x = z:   for i = 0 … n−1:  for j = λ(i), …:  x_i −= L_ij x_j
//! ```
//!
//! A chain (no branching) costs as much as a dense Cholesky; a humanoid's branches cost far less.
//! The same factor gives the Delassus operator `A = J M⁻¹ Jᵀ = Yᵀ D⁻¹ Y` with `Y = L⁻ᵀ Jᵀ`,
//! symmetric by construction.

use crate::error::Error;
use crate::state::check_len;
use crate::tree::Tree;
use nalgebra::{DMatrix, DVector};
use std::sync::Arc;

/// The strict ancestors of every dof in the dof tree, nearest first, stored flat. Built once per
/// tree; the factorisation and the solves only ever walk these lists.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DofChains {
    offsets: Vec<usize>,
    ancestors: Vec<usize>,
}

impl DofChains {
    /// Requires `dof_parent[k] < k` (checked by the callers).
    pub(crate) fn new(dof_parent: &[Option<usize>]) -> Self {
        let mut offsets = Vec::with_capacity(dof_parent.len() + 1);
        let mut ancestors = Vec::new();
        offsets.push(0);
        for parent in dof_parent {
            let mut j = *parent;
            while let Some(jj) = j {
                ancestors.push(jj);
                j = dof_parent.get(jj).copied().flatten().filter(|&p| p < jj);
            }
            offsets.push(ancestors.len());
        }
        Self { offsets, ancestors }
    }

    pub(crate) fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// λ(k), λ(λ(k)), … (empty for a root dof or an index out of range).
    pub(crate) fn of(&self, k: usize) -> &[usize] {
        match (self.offsets.get(k), self.offsets.get(k + 1)) {
            (Some(&start), Some(&end)) => self.ancestors.get(start..end).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// `M = Lᵀ D L` for a matrix with the sparsity of a dof tree.
#[derive(Clone, Debug)]
pub struct TreeFactorisation {
    /// Column-major n × n. Strict upper triangle: Lᵀ, i.e. entry (j, i) holds L_ij for j an ancestor
    /// of i (so the entries a solve needs for dof i sit in column i); diagonal: D.
    factor: DMatrix<f64>,
    chains: Arc<DofChains>,
}

impl TreeFactorisation {
    /// Factorises `matrix` (nv × nv, symmetric; only the upper triangle on the ancestor pattern of
    /// `tree` is read, which holds everything for a tree's mass matrix plus diagonal terms).
    pub fn new(matrix: DMatrix<f64>, tree: &Tree) -> Result<Self, Error> {
        factorise(matrix, tree.dof_chains(), |dof| tree.dof_body_name(dof))
    }

    /// Factorises `matrix` for an explicit dof-parent list (`dof_parent[k] < k`).
    pub fn with_dof_parent(matrix: DMatrix<f64>, dof_parent: &[Option<usize>]) -> Result<Self, Error> {
        for (dof, parent) in dof_parent.iter().enumerate() {
            if let Some(parent) = *parent {
                if parent >= dof {
                    return Err(Error::InvalidDofParent { dof, parent });
                }
            }
        }
        factorise(matrix, Arc::new(DofChains::new(dof_parent)), |_| String::from("?"))
    }

    /// No factors yet, to be filled by [`Self::refactorise`].
    pub(crate) fn empty(tree: &Tree) -> Self {
        TreeFactorisation {
            factor: DMatrix::zeros(0, 0),
            chains: tree.dof_chains(),
        }
    }

    /// Factorises, like [`Self::new`], the matrix that `fill` writes into this factorisation's
    /// storage (its previous factors; `fill` must leave it nv × nv). `diagonal` is working storage
    /// for the matrix's diagonal. On an error the factors are meaningless.
    pub(crate) fn refactorise_with(
        &mut self,
        tree: &Tree,
        diagonal: &mut Vec<f64>,
        fill: impl FnOnce(&mut DMatrix<f64>),
    ) -> Result<(), Error> {
        self.chains = tree.dof_chains();
        fill(&mut self.factor);
        let n = self.chains.len();
        check_len("matrix rows", n, self.factor.nrows())?;
        check_len("matrix columns", n, self.factor.ncols())?;
        diagonal.clear();
        diagonal.extend(self.pivots().copied());
        let original: &[f64] = diagonal;
        eliminate(
            &mut self.factor,
            &self.chains,
            |k| original.get(k).copied().unwrap_or(0.0),
            |dof| tree.dof_body_name(dof),
        )
    }

    /// The dimension nv.
    pub fn dim(&self) -> usize {
        self.chains.len()
    }

    /// D, the diagonal of the factorisation.
    pub fn d(&self) -> DVector<f64> {
        self.factor.diagonal()
    }

    /// D's entries in order, read in place (no copy of the diagonal).
    fn pivots(&self) -> impl Iterator<Item = &f64> + '_ {
        let n = self.dim();
        self.factor.as_slice().iter().step_by(n + 1).take(n)
    }

    /// L, unit lower triangular (dense copy, for inspection and tests).
    pub fn l(&self) -> DMatrix<f64> {
        let mut l = self.factor.upper_triangle().transpose();
        l.fill_diagonal(1.0);
        l
    }

    /// Solves `M x = y` in place.
    pub fn solve_in_place(&self, y: &mut DVector<f64>) -> Result<(), Error> {
        check_len("right-hand side", self.dim(), y.len())?;
        self.solve_lt(y.as_mut_slice());
        for (value, d) in y.iter_mut().zip(self.pivots()) {
            *value /= d;
        }
        self.solve_l(y.as_mut_slice());
        Ok(())
    }

    /// `M⁻¹ y`.
    pub fn solve(&self, y: &DVector<f64>) -> Result<DVector<f64>, Error> {
        let mut x = y.clone();
        self.solve_in_place(&mut x)?;
        Ok(x)
    }

    /// `M⁻¹ Y`, column by column (e.g. `M⁻¹ Jᵀ`).
    pub fn solve_matrix(&self, y: &DMatrix<f64>) -> Result<DMatrix<f64>, Error> {
        check_len("right-hand side rows", self.dim(), y.nrows())?;
        let mut x = y.clone();
        let n = self.dim();
        for column in x.as_mut_slice().chunks_exact_mut(n.max(1)) {
            self.solve_lt(column);
            for (value, d) in column.iter_mut().zip(self.pivots()) {
                *value /= d;
            }
            self.solve_l(column);
        }
        Ok(x)
    }

    /// The Delassus operator `A = J M⁻¹ Jᵀ` (m × m) for a constraint Jacobian `J` (m × nv).
    pub fn delassus(&self, jacobian: &DMatrix<f64>) -> Result<DMatrix<f64>, Error> {
        check_len("Jacobian columns", self.dim(), jacobian.ncols())?;
        let n = self.dim();
        let mut y = jacobian.transpose();
        for column in y.as_mut_slice().chunks_exact_mut(n.max(1)) {
            self.solve_lt(column);
        }
        // Z = D^{-1/2} Y (D > 0 was checked), A_ij = z_i · z_j, filled symmetrically.
        for (mut row, d) in y.row_iter_mut().zip(self.pivots()) {
            row /= d.sqrt();
        }
        let m = y.ncols();
        let mut a = DMatrix::zeros(m, m);
        for i in 0..m {
            for j in 0..=i {
                let value = y.column(i).dot(&y.column(j));
                a[(i, j)] = value;
                a[(j, i)] = value;
            }
        }
        Ok(a)
    }

    /// The diagonal of `J M⁻¹ Jᵀ` (m entries) for a Jacobian `J` (m × nv): row i gives
    /// `‖D^{-1/2} L⁻ᵀ jᵢᵀ‖²`, the same numbers [`Self::delassus`] puts on its diagonal, without
    /// the m × m products.
    pub fn delassus_diagonal(&self, jacobian: &DMatrix<f64>) -> Result<DVector<f64>, Error> {
        check_len("Jacobian columns", self.dim(), jacobian.ncols())?;
        let n = self.dim();
        let mut y = jacobian.transpose();
        let d = self.factor.diagonal();
        let mut diagonal = DVector::zeros(jacobian.nrows());
        for (column, slot) in y.as_mut_slice().chunks_exact_mut(n.max(1)).zip(diagonal.iter_mut()) {
            self.solve_lt(column);
            *slot = column.iter().zip(d.iter()).map(|(z, d)| z * z / d).sum();
        }
        Ok(diagonal)
    }

    /// `Lᵀ z = y` (in place, back substitution along ancestor chains). `y.len() == n` (checked by
    /// the callers); chain entries are < n by construction, so the indexing cannot fail.
    fn solve_lt(&self, y: &mut [f64]) {
        let n = self.dim();
        let data = self.factor.as_slice();
        for i in (0..n).rev() {
            let yi = y[i];
            // A zero changes nothing below: a contact's Jacobian row is zero outside the dofs that
            // move its link, so most of a Delassus column skips its chain walk.
            if yi == 0.0 {
                continue;
            }
            let column = &data[i * n..(i + 1) * n];
            for &j in self.chains.of(i) {
                y[j] -= column[j] * yi;
            }
        }
    }

    /// `L x = z` (in place, forward substitution along ancestor chains).
    fn solve_l(&self, x: &mut [f64]) {
        let n = self.dim();
        let data = self.factor.as_slice();
        for i in 0..n {
            let column = &data[i * n..(i + 1) * n];
            let sum: f64 = self.chains.of(i).iter().map(|&j| column[j] * x[j]).sum();
            x[i] -= sum;
        }
    }
}

/// RBDA §6.4 (LTDL), in place on the upper triangle (`H_ij` for i > j is stored at (j, i), i.e. in
/// column i). The matrix size is checked first; every index below is then a dof or a chain entry,
/// all < n.
///
/// **Pivot rule.** Pivot k must exceed `n ε H_kk`, its own diagonal entry before elimination
/// (n = nv, ε = f64 machine epsilon). This is Golub & Van Loan's breakdown test for Cholesky
/// (*Matrix Computations*, 4th ed., §4.2.8: a pivot below `n ε max|a_ii|` cannot be told from 0)
/// applied to the diagonally scaled matrix `D^{-1/2} H D^{-1/2}`, D = diag(H), whose pivots are
/// `d_k / H_kk`: LDLᵀ commutes with diagonal scaling, and its accuracy depends on the scaled matrix's
/// condition, not the unscaled one (van der Sluis; Higham, *Accuracy and Stability of Numerical
/// Algorithms*, 2nd ed., §10.1, Theorem 10.7). So the test asks "did elimination cancel this row's
/// own inertia?", which is what a massless subtree does (pivot 0), and is blind to the units and
/// the spread of the masses: a 1e12 kg base with a 1 kg arm factorises as well as a 1 kg one. A
/// threshold relative to the largest diagonal would call the arm massless (its pivot ~1e-2 is below
/// 1e-14 × 1e12).
fn factorise(
    mut h: DMatrix<f64>,
    chains: Arc<DofChains>,
    name_of: impl Fn(usize) -> String,
) -> Result<TreeFactorisation, Error> {
    let n = chains.len();
    check_len("matrix rows", n, h.nrows())?;
    check_len("matrix columns", n, h.ncols())?;
    let original: Vec<f64> = h.diagonal().iter().copied().collect();
    eliminate(&mut h, &chains, |k| original.get(k).copied().unwrap_or(0.0), name_of)?;
    Ok(TreeFactorisation { factor: h, chains })
}

/// The elimination of [`factorise`] in place on `h` (n × n, n = `chains.len()`, checked by the
/// callers); `original(k)` is `H_kk` before elimination.
fn eliminate(
    h: &mut DMatrix<f64>,
    chains: &DofChains,
    original: impl Fn(usize) -> f64,
    name_of: impl Fn(usize) -> String,
) -> Result<(), Error> {
    let n = chains.len();
    let relative = n as f64 * f64::EPSILON;
    let data = h.as_mut_slice();
    for k in (0..n).rev() {
        let (before, from_k) = data.split_at_mut(k * n);
        let column_k = &mut from_k[..n];
        let pivot = column_k[k];
        let tolerance = relative * original(k).abs();
        if !(pivot.is_finite() && pivot > tolerance) {
            return Err(Error::NotPositiveDefinite {
                dof: k,
                body: name_of(k),
                pivot,
            });
        }
        let chain = chains.of(k);
        for (position, &i) in chain.iter().enumerate() {
            // a = H_ki / H_kk;  H_ij −= a H_kj for j = i, λ(i), …;  H_ki = a.
            let a = column_k[i] / pivot;
            let column_i = &mut before[i * n..(i + 1) * n];
            column_i[i] -= a * column_k[i];
            for &j in &chain[position + 1..] {
                column_i[j] -= a * column_k[j];
            }
            column_k[i] = a;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A branched dof tree:  0 ← 1 ← 2,  0 ← 3 ← 4,  3 ← 5.
    fn branched() -> (DMatrix<f64>, Vec<Option<usize>>) {
        let parent = vec![None, Some(0), Some(1), Some(0), Some(3), Some(3)];
        let n = parent.len();
        // Build M = Lᵀ D L from a random-looking L with the tree's pattern: it then has exactly the
        // tree's sparsity.
        let mut l = DMatrix::<f64>::identity(n, n);
        for k in 0..n {
            let mut j = parent[k];
            while let Some(jj) = j {
                l[(k, jj)] = 0.3 + 0.1 * (k as f64) - 0.05 * (jj as f64);
                j = parent[jj];
            }
        }
        let d = DMatrix::from_diagonal(&DVector::from_vec(vec![2.0, 1.5, 0.7, 3.0, 0.2, 1.1]));
        (l.transpose() * d * l, parent)
    }

    #[test]
    fn recovers_the_factors_and_solves() {
        let (m, parent) = branched();
        let f = TreeFactorisation::with_dof_parent(m.clone(), &parent).expect("positive definite");
        let rebuilt = f.l().transpose() * DMatrix::from_diagonal(&f.d()) * f.l();
        assert!((rebuilt - &m).abs().max() < 1e-12);
        let y = DVector::from_vec(vec![1.0, -2.0, 0.5, 3.0, -1.0, 0.25]);
        let x = f.solve(&y).expect("right length");
        assert!((&m * x - &y).norm() < 1e-12);
        let j = DMatrix::from_row_slice(2, 6, &[1.0, 0.0, 2.0, 0.0, -1.0, 0.5, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]);
        let a = f.delassus(&j).expect("right width");
        let expected = &j * m.clone().try_inverse().expect("invertible") * j.transpose();
        assert!((&a - expected).abs().max() < 1e-12);
        let diagonal = f.delassus_diagonal(&j).expect("right width");
        assert!((diagonal - a.diagonal()).abs().max() < 1e-12);
    }

    #[test]
    fn the_pivot_rule_is_blind_to_the_spread_of_scales() {
        // A 1e12 kg-scale dof coupled to a 1e-2 kg·m² one (a heavy base carrying a light arm):
        // H = [[1e12, c], [c, 1e-2]] with c = 1e-3; both pivots are healthy in scaled terms.
        let h = DMatrix::from_row_slice(2, 2, &[1e12, 1e-3, 1e-3, 1e-2]);
        let f = TreeFactorisation::with_dof_parent(h.clone(), &[None, Some(0)]).expect("positive definite");
        let x = f.solve(&DVector::from_vec(vec![1e12, 1e-2])).expect("right length");
        assert!(
            (&h * &x - DVector::from_vec(vec![1e12, 1e-2])).amax() < 1e-12 * 1e12,
            "{x}"
        );
        // A row whose own inertia elimination cancels to rounding is singular, at any scale.
        let s = DMatrix::from_row_slice(2, 2, &[1e12, 1e12, 1e12, 1e12]);
        assert!(TreeFactorisation::with_dof_parent(s, &[None, Some(0)]).is_err());
    }

    #[test]
    fn reports_singular_matrices_and_bad_inputs() {
        let (mut m, parent) = branched();
        m[(4, 4)] = 0.0;
        let error = TreeFactorisation::with_dof_parent(m, &parent).expect_err("singular");
        assert!(matches!(error, Error::NotPositiveDefinite { dof: 4, .. }), "{error}");
        let error = TreeFactorisation::with_dof_parent(DMatrix::identity(2, 2), &[None, Some(1)]).expect_err("cycle");
        assert_eq!(error, Error::InvalidDofParent { dof: 1, parent: 1 });
        let f = TreeFactorisation::with_dof_parent(DMatrix::identity(2, 2), &[None, None]).expect("identity");
        assert!(matches!(
            f.solve(&DVector::zeros(3)),
            Err(Error::DimensionMismatch { .. })
        ));
    }
}
