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
//! The divisions are taken as multiplications by reciprocals computed once: `1 / H_kk` per column
//! of the factorisation (`a = H_ki · (1 / H_kk)`), `1 / D_kk` kept beside the factors for every
//! solve's `D⁻¹ z`, `1 / √D_kk` per dof of a Delassus column. A division costs several
//! multiplications' time and sits on the dependency chains of the elimination; the results differ
//! from true divisions by at most an ulp per multiplier.
//!
//! A chain (no branching) costs as much as a dense Cholesky; a humanoid's branches cost far less.
//! The same factor gives the Delassus operator `A = J M⁻¹ Jᵀ = Yᵀ D⁻¹ Y` with `Y = L⁻ᵀ Jᵀ`,
//! symmetric by construction.
//!
//! **Sparse Delassus operator** (RBDA §6.5, "Efficient calculation of J H⁻¹ Jᵀ";
//! [`TreeFactorisation::delassus_into`]). A contact row on link b is nonzero only on the dofs that
//! move b: b's dofs and their ancestors, its *support* (the path to the root of b's last dof).
//! The back substitution `Lᵀ y = jᵀ` writes only ancestors of the dofs it reads, so
//! `y = L⁻ᵀ jᵀ` keeps the support (no fill-in), and for rows r, s:
//!
//! ```text
//! for i in support(r), descending:   for j = λ(i), …:   y_j −= L_ij y_i
//! z_r = D^{-1/2} y
//! A_rs = Σ_{k ∈ support(r) ∩ support(s)} z_kr z_ks
//! ```
//!
//! For contacts on the two feet of a biped the common support is the floating base's six dofs;
//! rows on one link share their whole support.

use crate::error::Error;
use crate::state::check_len;
use crate::tree::Tree;
use nalgebra::{DMatrix, DVector};
use std::sync::Arc;

/// The path of every dof to the root of the dof tree (the dof, then its strict ancestors nearest
/// first), stored flat. Built once per tree; the factorisation and the solves only ever walk these
/// lists.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DofChains {
    offsets: Vec<usize>,
    paths: Vec<usize>,
}

impl DofChains {
    /// Requires `dof_parent[k] < k` (checked by the callers).
    pub(crate) fn new(dof_parent: &[Option<usize>]) -> Self {
        let mut offsets = Vec::with_capacity(dof_parent.len() + 1);
        let mut paths = Vec::new();
        offsets.push(0);
        for (k, parent) in dof_parent.iter().enumerate() {
            paths.push(k);
            let mut j = *parent;
            while let Some(jj) = j {
                paths.push(jj);
                j = dof_parent.get(jj).copied().flatten().filter(|&p| p < jj);
            }
            offsets.push(paths.len());
        }
        Self { offsets, paths }
    }

    pub(crate) fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// k, λ(k), λ(λ(k)), … (descending; empty for an index out of range).
    pub(crate) fn path(&self, k: usize) -> &[usize] {
        match (self.offsets.get(k), self.offsets.get(k + 1)) {
            (Some(&start), Some(&end)) => self.paths.get(start..end).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// λ(k), λ(λ(k)), … (empty for a root dof or an index out of range).
    pub(crate) fn of(&self, k: usize) -> &[usize] {
        match (self.offsets.get(k), self.offsets.get(k + 1)) {
            (Some(&start), Some(&end)) => self.paths.get(start + 1..end).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Whether the dofs form one chain (dof k's parent is k − 1, e.g. a free joint's six): then
    /// the ancestor pattern is the whole upper triangle.
    pub(crate) fn is_chain(&self) -> bool {
        let n = self.len();
        self.paths.len() == n * (n + 1) / 2
    }
}

/// `M = Lᵀ D L` for a matrix with the sparsity of a dof tree.
#[derive(Clone, Debug)]
pub struct TreeFactorisation {
    /// Column-major n × n. Strict upper triangle: Lᵀ, i.e. entry (j, i) holds L_ij for j an ancestor
    /// of i (so the entries a solve needs for dof i sit in column i); diagonal: D.
    factor: DMatrix<f64>,
    /// 1 / D_kk: the solves multiply by it (a division costs several multiplications).
    inverse_pivots: Vec<f64>,
    chains: Arc<DofChains>,
}

impl TreeFactorisation {
    /// Factorises `matrix` (nv × nv, symmetric; only the upper triangle on the ancestor pattern of
    /// `tree` is read, which holds everything for a tree's mass matrix plus diagonal terms).
    pub fn new(matrix: DMatrix<f64>, tree: &Tree) -> Result<Self, Error> {
        factorise(matrix, Arc::clone(tree.dof_chains()), |dof| tree.dof_body_name(dof))
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

    /// No factors yet, to be filled by [`Self::refactorise_from`].
    pub(crate) fn empty(tree: &Tree) -> Self {
        TreeFactorisation {
            factor: DMatrix::zeros(0, 0),
            inverse_pivots: Vec::new(),
            chains: Arc::clone(tree.dof_chains()),
        }
    }

    /// Factorises, like [`Self::new`], `matrix + diag(extra_diagonal)` (nv × nv, symmetric) in
    /// this factorisation's storage. Only the entries the factorisation reads are copied: column
    /// k's on k's path to the root (the upper triangle on the ancestor pattern, module docs), so
    /// nothing else of the nv × nv storage is touched once its size is right. `diagonal` is working
    /// storage for the matrix's diagonal. On an error the factors are meaningless.
    pub(crate) fn refactorise_from(
        &mut self,
        tree: &Tree,
        diagonal: &mut Vec<f64>,
        matrix: &DMatrix<f64>,
        extra_diagonal: &[f64],
    ) -> Result<(), Error> {
        // Usually the tree's own chains already: kept without touching the shared count.
        if !Arc::ptr_eq(&self.chains, tree.dof_chains()) {
            self.chains = Arc::clone(tree.dof_chains());
        }
        let n = self.chains.len();
        check_len("matrix rows", n, matrix.nrows())?;
        check_len("matrix columns", n, matrix.ncols())?;
        check_len("extra diagonal", n, extra_diagonal.len())?;
        if self.factor.shape() != (n, n) {
            self.factor = DMatrix::zeros(n, n);
        }
        let (source, target) = (matrix.as_slice(), self.factor.as_mut_slice());
        if self.chains.is_chain() {
            // The pattern is the whole upper triangle: one copy is cheapest.
            target.copy_from_slice(source);
        } else {
            for k in 0..n {
                for &j in self.chains.path(k) {
                    target[k * n + j] = source[k * n + j];
                }
            }
        }
        for (k, extra) in extra_diagonal.iter().enumerate() {
            target[k * n + k] += extra;
        }
        diagonal.clear();
        diagonal.extend(self.pivots().copied());
        let original: &[f64] = diagonal;
        eliminate(
            &mut self.factor,
            &mut self.inverse_pivots,
            &self.chains,
            |k| original.get(k).copied().unwrap_or(0.0),
            |dof| tree.dof_body_name(dof),
        )
    }

    /// [`Self::refactorise_from`] for the six-dof chain of a tree that is one free body, from M̃
    /// itself (column-major 6 × 6, symmetric): the same factors, without the copies through
    /// run-time sized storage.
    pub(crate) fn refactorise_free_joint(&mut self, tree: &Tree, matrix: &[f64; 36]) -> Result<(), Error> {
        if !Arc::ptr_eq(&self.chains, tree.dof_chains()) {
            self.chains = Arc::clone(tree.dof_chains());
        }
        check_len("matrix rows", self.chains.len(), FREE_JOINT_DOFS)?;
        if !self.chains.is_chain() {
            return Err(Error::DimensionMismatch {
                what: "free joint dof chain",
                expected: FREE_JOINT_DOFS,
                found: self.chains.of(FREE_JOINT_DOFS - 1).len() + 1,
            });
        }
        if self.factor.shape() != (FREE_JOINT_DOFS, FREE_JOINT_DOFS) {
            self.factor = DMatrix::zeros(FREE_JOINT_DOFS, FREE_JOINT_DOFS);
        }
        self.factor.as_mut_slice().copy_from_slice(matrix);
        eliminate(
            &mut self.factor,
            &mut self.inverse_pivots,
            &self.chains,
            |k| matrix.get(k * (FREE_JOINT_DOFS + 1)).copied().unwrap_or(0.0),
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

    /// `1 / D_kk` in dof order, as the solves multiply by it.
    pub fn inverse_pivots(&self) -> &[f64] {
        &self.inverse_pivots
    }

    /// D's entries in order, read in place (no copy of the diagonal).
    fn pivots(&self) -> impl Iterator<Item = &f64> + '_ {
        let n = self.dim();
        self.factor.as_slice().iter().step_by(n + 1).take(n)
    }

    /// L, unit lower triangular (dense copy, for inspection and tests): `L_ij` for j an ancestor
    /// of i, read from the ancestor pattern (the only entries of the storage the factorisation
    /// writes).
    pub fn l(&self) -> DMatrix<f64> {
        let n = self.dim();
        let mut l = DMatrix::identity(n, n);
        for i in 0..n {
            for &j in self.chains.of(i) {
                l[(i, j)] = self.factor[(j, i)];
            }
        }
        l
    }

    /// The factors as stored, read in place (no copies as [`Self::l`] and [`Self::d`] make):
    /// nv × nv, column-major; the diagonal holds D, and entry (j, i) holds `L_ij` for j a strict
    /// ancestor of i in the dof tree (so the strict upper triangle holds Lᵀ on the ancestor
    /// pattern). Entries off the pattern are unspecified.
    pub fn packed(&self) -> &DMatrix<f64> {
        &self.factor
    }

    /// Solves `M x = y` in place.
    pub fn solve_in_place(&self, y: &mut DVector<f64>) -> Result<(), Error> {
        check_len("right-hand side", self.dim(), y.len())?;
        self.solve_lt(y.as_mut_slice());
        for (value, inverse) in y.as_mut_slice().iter_mut().zip(&self.inverse_pivots) {
            *value *= inverse;
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
            for (value, inverse) in column.iter_mut().zip(&self.inverse_pivots) {
                *value *= inverse;
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

    /// [`Self::delassus`] into `a` (resized to m × m, its storage reused), walking only each row's
    /// support (module docs); `work` is working storage kept by the caller between calls, so a
    /// call whose sizes were seen before allocates nothing.
    ///
    /// Rows are grouped by their deepest nonzero dof d: the group's support is d's path to the root,
    /// and the block of A between two groups sums over the common part of their paths only. A row
    /// that is nonzero off its deepest dof's path (a contact between two branches of one tree)
    /// sends the whole operator to [`Self::delassus`].
    ///
    /// The same operator as [`Self::delassus`] to rounding: the solve performs the same operations
    /// in the same order (the dofs it skips hold exact zeros, which the dense solve skips too), and
    /// the products leave out only zero terms, summing the others in another order
    /// (`DelassusWork::block`).
    pub fn delassus_into(
        &self,
        jacobian: &DMatrix<f64>,
        work: &mut DelassusWork,
        a: &mut DMatrix<f64>,
    ) -> Result<(), Error> {
        check_len("Jacobian columns", self.dim(), jacobian.ncols())?;
        if !work.group_rows(jacobian, &self.chains) {
            *a = self.delassus(jacobian)?;
            return Ok(());
        }
        for g in 0..work.group_count() {
            self.solve_group(jacobian, work, g);
        }
        let m = jacobian.nrows();
        resize_matrix(a, m, m);
        for g in 0..work.group_count() {
            for h in 0..=g {
                work.block(g, h, &self.chains);
                work.store_block(g, h, a);
            }
        }
        Ok(())
    }

    /// Group g's columns of `Z = D^{-1/2} L⁻ᵀ Jᵀ` on its path (module docs): J's rows copied onto
    /// the path, back-substituted along it (the ancestors of the dof at path position t are the
    /// positions after t), scaled. Stored path position by path position, entry (t, c) at
    /// `z[t * width + c]`, so one substitution step updates all the group's columns at once.
    ///
    /// The dense solve skips a zero `y_i`; subtracting `L_ij · 0` instead changes at most the sign
    /// of a zero entry, which no sum of [`DelassusWork::block`] sees.
    fn solve_group(&self, jacobian: &DMatrix<f64>, work: &mut DelassusWork, g: usize) {
        let n = self.dim();
        let data = self.factor.as_slice();
        let path = work.path(g, &self.chains);
        let rows = flat_list(&work.group_rows, &work.group_starts, g);
        let width = rows.len().max(1);
        let Some(z) = work.z.get_mut(work.z_starts[g]..work.z_starts[g + 1]) else {
            return;
        };
        for (z_t, &k) in z.chunks_exact_mut(width).zip(path) {
            for (value, &r) in z_t.iter_mut().zip(rows) {
                *value = jacobian[(r, k)];
            }
        }
        for (t, &i) in path.iter().enumerate() {
            // y_j −= L_ij y_i for the ancestors j of i, all columns at once.
            let (done, below) = z.split_at_mut((t + 1) * width);
            let y_i = &done[t * width..];
            let column = &data[i * n..(i + 1) * n];
            for (y_j, &j) in below.chunks_exact_mut(width).zip(&path[t + 1..]) {
                let l = column[j];
                for (value, &x) in y_j.iter_mut().zip(y_i) {
                    *value -= l * x;
                }
            }
        }
        for (z_t, &k) in z.chunks_exact_mut(width).zip(path) {
            let inverse_scale = 1.0 / data[k * n + k].sqrt();
            for value in z_t {
                *value *= inverse_scale;
            }
        }
    }

    /// The diagonal of `J M⁻¹ Jᵀ` (m entries) for a Jacobian `J` (m × nv): row i gives
    /// `‖D^{-1/2} L⁻ᵀ jᵢᵀ‖²`, what [`Self::delassus`] puts on its diagonal (to rounding: here
    /// `Σ z² / D` as `Σ z² · (1 / D)`), without the m × m products.
    pub fn delassus_diagonal(&self, jacobian: &DMatrix<f64>) -> Result<DVector<f64>, Error> {
        check_len("Jacobian columns", self.dim(), jacobian.ncols())?;
        let n = self.dim();
        let mut y = jacobian.transpose();
        let mut diagonal = DVector::zeros(jacobian.nrows());
        for (column, slot) in y.as_mut_slice().chunks_exact_mut(n.max(1)).zip(diagonal.iter_mut()) {
            self.solve_lt(column);
            *slot = column
                .iter()
                .zip(&self.inverse_pivots)
                .map(|(z, inverse)| z * z * inverse)
                .sum();
        }
        Ok(diagonal)
    }

    /// `Lᵀ z = y` (in place, back substitution along ancestor chains). `y.len() == n` (checked by
    /// the callers); chain entries are < n by construction, so the indexing cannot fail.
    ///
    /// On a chain (dof i's ancestors are i − 1, …, 0: a free joint's six dofs) the ancestors are the
    /// contiguous entries 0..i, walked as slices: the same updates (each `y_j` changes once per i,
    /// so their order within one i does not matter), without the list look-ups.
    fn solve_lt(&self, y: &mut [f64]) {
        let n = self.dim();
        let data = self.factor.as_slice();
        if self.chains.is_chain() {
            match n {
                FREE_JOINT_DOFS => solve_lt_chain(data, FREE_JOINT_DOFS, y),
                _ => solve_lt_chain(data, n, y),
            }
            return;
        }
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

    /// `L x = z` (in place, forward substitution along ancestor chains). On a chain the ancestors
    /// i − 1, …, 0 are read as a slice, backwards: the same sum in the same order.
    fn solve_l(&self, x: &mut [f64]) {
        let n = self.dim();
        let data = self.factor.as_slice();
        if self.chains.is_chain() {
            match n {
                FREE_JOINT_DOFS => solve_l_chain(data, FREE_JOINT_DOFS, x),
                _ => solve_l_chain(data, n, x),
            }
            return;
        }
        for i in 0..n {
            let column = &data[i * n..(i + 1) * n];
            let sum: f64 = self.chains.of(i).iter().map(|&j| column[j] * x[j]).sum();
            x[i] -= sum;
        }
    }
}

/// Working storage of [`TreeFactorisation::delassus_into`]: the rows grouped by support, their
/// solved columns and a block's accumulators. Keep one between calls to reuse its storage.
#[derive(Clone, Debug, Default)]
pub struct DelassusWork {
    /// Each group's deepest dof (`None`: rows that are zero).
    deepest: Vec<Option<usize>>,
    /// Each row's deepest nonzero dof.
    row_deepest: Vec<Option<usize>>,
    /// The group of each row.
    group_of_row: Vec<usize>,
    /// The rows by group, ascending within a group: group g's are
    /// `group_rows[group_starts[g]..group_starts[g + 1]]`.
    group_rows: Vec<usize>,
    group_starts: Vec<usize>,
    /// Group g's solved columns (path length × rows, module docs) are `z[z_starts[g]..z_starts[g + 1]]`.
    z: Vec<f64>,
    z_starts: Vec<usize>,
    /// One block of A (row-major; [`Self::block`]).
    block: Vec<f64>,
}

/// The deepest nonzero dof of every row of `jacobian` (`None`: a zero row; NaN counts as nonzero)
/// into `deepest`, found column by column from the last (the matrix is column-major, so each
/// column is one contiguous read).
fn deepest_nonzeros(jacobian: &DMatrix<f64>, deepest: &mut Vec<Option<usize>>) {
    let m = jacobian.nrows();
    deepest.clear();
    deepest.resize(m, None);
    let mut unresolved = m;
    for (k, column) in jacobian.as_slice().chunks_exact(m.max(1)).enumerate().rev() {
        if unresolved == 0 {
            break;
        }
        for (slot, &x) in deepest.iter_mut().zip(column) {
            if slot.is_none() && x != 0.0 {
                *slot = Some(k);
                unresolved -= 1;
            }
        }
    }
}

/// Whether the rows `rows` of `jacobian`, whose deepest nonzero dof is `deepest`, are zero on every
/// dof below it that is not on its path to the root (then the group's support is that path).
fn off_path_zero(jacobian: &DMatrix<f64>, rows: &[usize], deepest: usize, chains: &DofChains) -> bool {
    let m = jacobian.nrows();
    let data = jacobian.as_slice();
    // Both descending: the dofs below the deepest that are not the path's next entry.
    let path = chains.of(deepest);
    let mut next = 0;
    for k in (0..deepest).rev() {
        if path.get(next) == Some(&k) {
            next += 1;
            continue;
        }
        let Some(column) = data.get(k * m..(k + 1) * m) else {
            return false;
        };
        let nonzero = match (rows.first(), rows.last()) {
            // A group's rows are usually consecutive (one contact's, one link's): one slice.
            (Some(&first), Some(&last)) if last - first + 1 == rows.len() => column
                .get(first..=last)
                .is_none_or(|values| values.iter().any(|&x| x != 0.0)),
            _ => rows.iter().any(|&r| column.get(r).is_none_or(|&x| x != 0.0)),
        };
        if nonzero {
            return false;
        }
    }
    true
}

impl DelassusWork {
    /// The number of groups.
    fn group_count(&self) -> usize {
        self.deepest.len()
    }

    /// Group g's support, descending: its deepest dof's path to the root.
    fn path<'c>(&self, g: usize, chains: &'c DofChains) -> &'c [usize] {
        match self.deepest.get(g) {
            Some(&Some(d)) => chains.path(d),
            _ => &[],
        }
    }

    /// Groups J's rows by deepest dof and sizes the solved columns; false when a row is branched.
    fn group_rows(&mut self, jacobian: &DMatrix<f64>, chains: &DofChains) -> bool {
        deepest_nonzeros(jacobian, &mut self.row_deepest);
        self.deepest.clear();
        self.group_of_row.clear();
        for &deepest in &self.row_deepest {
            // Rows of one contact, or of contacts on one link, share their deepest dof.
            let g = match self.deepest.iter().rposition(|&d| d == deepest) {
                Some(g) => g,
                None => {
                    self.deepest.push(deepest);
                    self.deepest.len() - 1
                }
            };
            self.group_of_row.push(g);
        }
        // The rows by group (a counting sort, stable), and each group's storage.
        let count = self.group_count();
        self.group_starts.clear();
        self.group_starts.resize(count + 1, 0);
        for &g in &self.group_of_row {
            self.group_starts[g + 1] += 1;
        }
        for g in 0..count {
            self.group_starts[g + 1] += self.group_starts[g];
        }
        // Placing row r at its group's cursor `group_starts[g]` leaves each cursor at the next
        // group's start; shifting them up one restores the starts.
        self.group_rows.clear();
        self.group_rows.resize(self.group_of_row.len(), 0);
        for (r, &g) in self.group_of_row.iter().enumerate() {
            self.group_rows[self.group_starts[g]] = r;
            self.group_starts[g] += 1;
        }
        self.group_starts.rotate_right(1);
        self.group_starts[0] = 0;
        for g in 0..count {
            if let Some(&Some(d)) = self.deepest.get(g) {
                if !off_path_zero(jacobian, self.rows(g), d, chains) {
                    return false;
                }
            }
        }
        self.z_starts.clear();
        self.z_starts.push(0);
        for g in 0..count {
            let size = self.path(g, chains).len() * (self.group_starts[g + 1] - self.group_starts[g]);
            self.z_starts.push(self.z_starts[g] + size);
        }
        self.z.resize(self.z_starts[count], 0.0);
        true
    }

    /// The rows of group g, ascending.
    fn rows(&self, g: usize) -> &[usize] {
        flat_list(&self.group_rows, &self.group_starts, g)
    }

    /// The block of A between groups g ≥ h into `self.block` (row-major, g's rows × h's rows):
    /// `A_rs = Σ_k z_kr z_ks` over the dofs common to the two paths, which are their last entries
    /// (both paths end at the root and share exactly the path of their nearest common ancestor),
    /// summed from the root down, one outer product `z_k z_kᵀ` of the two groups' rows per
    /// common dof. The dense [`TreeFactorisation::delassus`] sums the same products over every dof
    /// in another order, so the two agree to rounding.
    fn block(&mut self, g: usize, h: usize, chains: &DofChains) {
        let (path_g, path_h) = (self.path(g, chains), self.path(h, chains));
        let common = path_g
            .iter()
            .rev()
            .zip(path_h.iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let (width_g, width_h) = (self.rows(g).len(), self.rows(h).len());
        let (Some(z_g), Some(z_h)) = (
            self.z.get(self.z_starts[g]..self.z_starts[g + 1]),
            self.z.get(self.z_starts[h]..self.z_starts[h + 1]),
        ) else {
            return;
        };
        self.block.clear();
        self.block.resize(width_g * width_h, 0.0);
        for u in 0..common {
            let (t_g, t_h) = (path_g.len() - 1 - u, path_h.len() - 1 - u);
            let (Some(row_g), Some(row_h)) = (
                z_g.get(t_g * width_g..(t_g + 1) * width_g),
                z_h.get(t_h * width_h..(t_h + 1) * width_h),
            ) else {
                continue;
            };
            add_outer_product(&mut self.block, row_g, row_h);
        }
    }

    /// Writes the block of groups g, h (from [`Self::block`]) into A and its mirror image.
    fn store_block(&self, g: usize, h: usize, a: &mut DMatrix<f64>) {
        let (rows_g, rows_h) = (self.rows(g), self.rows(h));
        for (values, &r) in self.block.chunks_exact(rows_h.len().max(1)).zip(rows_g) {
            for (&value, &s) in values.iter().zip(rows_h) {
                a[(r, s)] = value;
                a[(s, r)] = value;
            }
        }
    }
}

/// `target += x yᵀ` (row-major, x.len() × y.len()).
fn add_outer_product(target: &mut [f64], x: &[f64], y: &[f64]) {
    for (target_row, &xi) in target.chunks_exact_mut(y.len().max(1)).zip(x) {
        for (entry, &yj) in target_row.iter_mut().zip(y) {
            *entry += xi * yj;
        }
    }
}

/// Entry g of a list of lists stored flat (`items[starts[g]..starts[g + 1]]`; empty out of range).
fn flat_list<'a>(items: &'a [usize], starts: &[usize], g: usize) -> &'a [usize] {
    match (starts.get(g), starts.get(g + 1)) {
        (Some(&start), Some(&end)) => items.get(start..end).unwrap_or(&[]),
        _ => &[],
    }
}
/// Makes `matrix` `nrows × ncols` in its own storage (entries unspecified: the caller writes all).
fn resize_matrix(matrix: &mut DMatrix<f64>, nrows: usize, ncols: usize) {
    if matrix.shape() == (nrows, ncols) {
        return;
    }
    let mut data: Vec<f64> = std::mem::replace(matrix, DMatrix::zeros(0, 0)).data.into();
    data.resize(nrows * ncols, 0.0);
    *matrix = DMatrix::from_vec(nrows, ncols, data);
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
    let mut inverse_pivots = Vec::with_capacity(n);
    eliminate(
        &mut h,
        &mut inverse_pivots,
        &chains,
        |k| original.get(k).copied().unwrap_or(0.0),
        name_of,
    )?;
    Ok(TreeFactorisation {
        factor: h,
        inverse_pivots,
        chains,
    })
}

/// The elimination of [`factorise`] in place on `h` (n × n, n = `chains.len()`, checked by the
/// callers); `original(k)` is `H_kk` before elimination. `inverse_pivots` receives `1 / D_kk`: the
/// column's multipliers `H_ki / H_kk` are taken as `H_ki · (1 / H_kk)`, one division per column.
fn eliminate(
    h: &mut DMatrix<f64>,
    inverse_pivots: &mut Vec<f64>,
    chains: &DofChains,
    original: impl Fn(usize) -> f64,
    name_of: impl Fn(usize) -> String,
) -> Result<(), Error> {
    let n = chains.len();
    let relative = n as f64 * f64::EPSILON;
    let serial = chains.is_chain();
    let data = h.as_mut_slice();
    inverse_pivots.clear();
    inverse_pivots.resize(n, 0.0);
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
        let inverse_pivot = 1.0 / pivot;
        inverse_pivots[k] = inverse_pivot;
        if serial {
            match n {
                FREE_JOINT_DOFS => eliminate_chain_column(before, column_k, FREE_JOINT_DOFS, k, inverse_pivot),
                _ => eliminate_chain_column(before, column_k, n, k, inverse_pivot),
            }
            continue;
        }
        for (position, &i) in chain.iter().enumerate() {
            // a = H_ki / H_kk;  H_ij −= a H_kj for j = i, λ(i), …;  H_ki = a.
            let a = column_k[i] * inverse_pivot;
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

/// A free joint's dof count: the chain paths below are also compiled for this constant size, whose
/// loops the compiler then lays out in full (every free rigid body's velocity step factorises and
/// solves a six-dof chain).
const FREE_JOINT_DOFS: usize = 6;

/// Column k's step of the elimination on a chain (the chain of k is k − 1, …, 0 and the rest of it
/// after i is i − 1, …, 0): `a = H_ki / H_kk`, `H_ij −= a H_kj` for j = i, …, 0, `H_ki = a`, each
/// entry once, as slices. `before` holds columns 0..k, `column_k` column k (n entries each).
#[inline(always)]
fn eliminate_chain_column(before: &mut [f64], column_k: &mut [f64], n: usize, k: usize, inverse_pivot: f64) {
    for i in (0..k).rev() {
        let a = column_k[i] * inverse_pivot;
        let column_i = &mut before[i * n..(i + 1) * n];
        column_i[i] -= a * column_k[i];
        for (h_ij, &h_kj) in column_i[..i].iter_mut().zip(&column_k[..i]) {
            *h_ij -= a * h_kj;
        }
        column_k[i] = a;
    }
}

/// `Lᵀ z = y` in place on a chain: dof i's ancestors are the contiguous entries 0..i.
#[inline(always)]
fn solve_lt_chain(data: &[f64], n: usize, y: &mut [f64]) {
    for i in (0..n).rev() {
        let yi = y[i];
        if yi == 0.0 {
            continue;
        }
        let column = &data[i * n..i * n + i];
        for (y_j, &l) in y[..i].iter_mut().zip(column) {
            *y_j -= l * yi;
        }
    }
}

/// `L x = z` in place on a chain.
#[inline(always)]
fn solve_l_chain(data: &[f64], n: usize, x: &mut [f64]) {
    for i in 0..n {
        let column = &data[i * n..i * n + i];
        let sum: f64 = column.iter().zip(&x[..i]).rev().map(|(l, x)| l * x).sum();
        x[i] -= sum;
    }
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
    fn the_packed_factors_hold_l_and_d_on_the_pattern() {
        let (m, parent) = branched();
        let f = TreeFactorisation::with_dof_parent(m, &parent).expect("positive definite");
        let (l, d, packed) = (f.l(), f.d(), f.packed());
        assert_eq!(packed.shape(), (f.dim(), f.dim()));
        for i in 0..f.dim() {
            assert_eq!(packed[(i, i)].to_bits(), d[i].to_bits(), "D[{i}]");
            for &j in f.chains.of(i) {
                assert_eq!(packed[(j, i)].to_bits(), l[(i, j)].to_bits(), "L[{i}, {j}]");
            }
        }
    }

    #[test]
    fn a_chain_factorises_and_solves_as_the_general_tree_walk_does() {
        // A six-dof chain (a free joint's dof tree) takes the slice path; the same chain beside a
        // seventh, separate root dof is no chain and takes the list walk. Same factors and solves
        // to the bit on the chain's dofs.
        let n = 6;
        let mut m = DMatrix::from_fn(n, n, |r, c| ((r * 7 + c * 3) as f64 * 0.37).sin() * 0.2);
        m = &m * m.transpose() + DMatrix::from_diagonal(&DVector::from_fn(n, |k, _| 1.0 + 0.3 * k as f64));
        let chain: Vec<Option<usize>> = (0..n).map(|k: usize| k.checked_sub(1)).collect();
        let mut tree = chain.clone();
        tree.push(None);
        let mut bordered = DMatrix::zeros(n + 1, n + 1);
        bordered.view_mut((0, 0), (n, n)).copy_from(&m);
        bordered[(n, n)] = 2.5;
        let serial = TreeFactorisation::with_dof_parent(m, &chain).expect("positive definite");
        let general = TreeFactorisation::with_dof_parent(bordered, &tree).expect("positive definite");
        assert!(serial.chains.is_chain() && !general.chains.is_chain());
        for i in 0..n {
            for j in 0..n {
                assert_eq!(
                    serial.packed()[(i, j)].to_bits(),
                    general.packed()[(i, j)].to_bits(),
                    "({i}, {j})"
                );
            }
        }
        let y = DVector::from_fn(n, |k, _| (k as f64 * 1.3).cos());
        let mut y_bordered = DVector::zeros(n + 1);
        y_bordered.rows_mut(0, n).copy_from(&y);
        let (x, x_bordered) = (serial.solve(&y).expect("n"), general.solve(&y_bordered).expect("n + 1"));
        for k in 0..n {
            assert_eq!(x[k].to_bits(), x_bordered[k].to_bits(), "x[{k}]");
        }
    }

    /// Rows on the branched tree: two on the leaf of each branch (paths {2, 1, 0} and {5, 3, 0}),
    /// a row on dof 4 with a zero where its path passes (dof 3), a zero row and a root-only row.
    fn branched_rows() -> DMatrix<f64> {
        DMatrix::from_row_slice(
            7,
            6,
            &[
                0.5, -1.0, 2.0, 0.0, 0.0, 0.0, //
                -0.3, 0.0, 0.0, 0.8, 0.0, 1.2, //
                1.5, 0.25, -0.75, 0.0, 0.0, 0.0, //
                0.7, 0.0, 0.0, 0.0, -0.4, 0.0, //
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
                0.1, 0.0, 0.0, 0.2, 0.0, -0.9, //
                2.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            ],
        )
    }

    /// `J M⁻¹ Jᵀ` through the dense inverse.
    fn dense_delassus(m: &DMatrix<f64>, j: &DMatrix<f64>) -> DMatrix<f64> {
        j * m.clone().try_inverse().expect("invertible") * j.transpose()
    }

    #[test]
    fn the_sparse_delassus_operator_is_the_dense_one() {
        let (m, parent) = branched();
        let f = TreeFactorisation::with_dof_parent(m.clone(), &parent).expect("positive definite");
        let j = branched_rows();
        let expected = dense_delassus(&m, &j);
        let mut work = DelassusWork::default();
        let mut a = DMatrix::zeros(0, 0);
        f.delassus_into(&j, &mut work, &mut a).expect("right width");
        let error = (&a - &expected).amax();
        assert!(error < 1e-12 * expected.amax(), "error {error:.3e}");
        // The same operations on the paths, summed in another order: equal to rounding.
        let dense = f.delassus(&j).expect("right width");
        assert!((&a - &dense).amax() < 1e-14 * dense.amax());
        // The groups: rows by deepest dof, in order of appearance.
        assert_eq!(work.deepest, [Some(2), Some(5), Some(4), None, Some(0)]);
        assert_eq!(work.rows(0), [0, 2]);
        assert_eq!(work.rows(1), [1, 5]);
        // Fewer rows, then more, in the same storage: nothing stale is read.
        let fewer = j.rows(2, 3).into_owned();
        f.delassus_into(&fewer, &mut work, &mut a).expect("right width");
        let dense = f.delassus(&fewer).expect("right width");
        assert!((&a - &dense).amax() < 1e-14 * dense.amax());
        let fresh = a.clone();
        f.delassus_into(&j, &mut work, &mut a).expect("right width");
        f.delassus_into(&fewer, &mut work, &mut a).expect("right width");
        assert_eq!(
            a, fresh,
            "the same rows give the same bits after other rows in the storage"
        );
        // A row on two branches (a contact between two links of the tree) takes the dense path.
        let mut branched_row = j.clone();
        branched_row[(4, 2)] = 0.6;
        branched_row[(4, 4)] = 0.9;
        f.delassus_into(&branched_row, &mut work, &mut a).expect("right width");
        let expected = dense_delassus(&m, &branched_row);
        assert!((&a - &expected).amax() < 1e-12 * expected.amax());
        assert!(matches!(
            f.delassus_into(&DMatrix::zeros(1, 5), &mut work, &mut a),
            Err(Error::DimensionMismatch { .. })
        ));
    }

    #[test]
    fn the_sparse_delassus_operator_on_two_branches_of_a_longer_tree() {
        // 19 dofs: a chain 0 … 9 and a branch 10 … 18 off dof 4, so rows on the two leaves share
        // dofs 0 … 4 only and rows on one leaf share their whole path.
        let parent: Vec<Option<usize>> = (0..19)
            .map(|k| match k {
                0 => None,
                10 => Some(4),
                _ => Some(k - 1),
            })
            .collect();
        let n = parent.len();
        let mut l = DMatrix::<f64>::identity(n, n);
        for k in 0..n {
            let mut j = parent[k];
            while let Some(jj) = j {
                l[(k, jj)] = 0.2 * ((k * 7 + jj * 3) as f64).sin();
                j = parent[jj];
            }
        }
        let d = DMatrix::from_diagonal(&DVector::from_fn(n, |k, _| 1.0 + 0.3 * (k as f64).cos()));
        let m = l.transpose() * d * l;
        let f = TreeFactorisation::with_dof_parent(m.clone(), &parent).expect("positive definite");
        let path = |leaf: usize, r: usize| {
            let mut row = DVector::zeros(n);
            let mut j = Some(leaf);
            while let Some(jj) = j {
                row[jj] = ((r * 5 + jj) as f64 * 0.37).cos();
                j = parent[jj];
            }
            row.transpose()
        };
        let rows: Vec<_> = [(9, 0), (18, 1), (9, 2), (18, 3), (12, 4)]
            .iter()
            .map(|&(leaf, r)| path(leaf, r))
            .collect();
        let j = DMatrix::from_rows(&rows);
        let mut work = DelassusWork::default();
        let mut a = DMatrix::zeros(0, 0);
        f.delassus_into(&j, &mut work, &mut a).expect("right width");
        let expected = dense_delassus(&m, &j);
        assert!((&a - &expected).amax() < 1e-12 * expected.amax());
        let dense = f.delassus(&j).expect("right width");
        assert!((&a - &dense).amax() < 1e-14 * dense.amax(), "{a} vs {dense}");
        assert_eq!(a, a.transpose(), "symmetric to the bit");
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
