//! Cholesky factorisation with diagonal pivoting of a symmetric positive semi-definite matrix,
//! stopped at its numerical rank (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd
//! ed., §10.3, Algorithm 10.2, with the stopping rule of §10.3.2), and the minimum-norm solution
//! of A x = b it gives.
//!
//! With a symmetric permutation P chosen step by step (the largest remaining diagonal first),
//!
//!   Pᵀ A P = L Lᵀ + [0 0; 0 S],   L = [L₁₁; L₂₁] n × r, L₁₁ lower triangular,
//!
//! where the step stops once the largest diagonal of the remainder S is at most [`RANK_CUTOFF`]
//! times the largest diagonal of A: r is then the numerical rank. L has full column rank, so the
//! pseudo-inverse of the rank-r part is P L (LᵀL)⁻² Lᵀ Pᵀ (LᵀL is r × r and definite, factored by
//! an unpivoted Cholesky). Applied to b it gives the least-squares solution of least norm: when b
//! is in the range of A it solves every equation, it never moves x along A's null space, and a part
//! of b outside the range is dropped instead of amplified.
//! At full rank (r = n) it is A⁻¹ b, taken from L by a forward and a back substitution without
//! forming LᵀL ([`PivotedCholesky::prepare_min_norm`]).
//!
//! The matrices are small (a biped's two feet: n = 24, r = 12, some 2 300 multiply-adds in all), so
//! everything is kept in flat column-major arrays reused from call to call, every inner loop runs
//! over one contiguous column, and nothing is allocated once the sizes have been seen.

/// Remainder diagonals at most this fraction of A's largest diagonal count as zero.
pub(crate) const RANK_CUTOFF: f64 = 1e-9;

/// The factor of the last [`PivotedCholesky::factor`], storage kept between calls.
#[derive(Debug, Clone, Default)]
pub(crate) struct PivotedCholesky {
    /// n, the order of the last factored matrix.
    n: usize,
    /// The column stride of `work`: n rounded up to a multiple of [`LANES`].
    stride: usize,
    /// L, column-major n × r with its rows in pivot order: entry (i, k) at k·stride + i, set for
    /// i ≥ k. Column k also holds zeros in its rows from k rounded down to a multiple of
    /// [`LANES`] up to k, and in its padding rows n..stride: the products of L's columns
    /// ([`aligned_dot`]) run over whole aligned groups of [`LANES`] rows.
    work: Vec<f64>,
    /// `order[k]`: the row of A in pivot position k.
    order: Vec<usize>,
    /// The numerical rank r.
    rank: usize,
    /// The remainder's diagonal during the factorisation, by pivot position.
    diagonal: Vec<f64>,
    /// G = LᵀL (lower triangle, column-major r × r: G[j, k] at k r + j, j ≥ k).
    gram: Vec<f64>,
    /// The Cholesky factor R of G (G = R Rᵀ), row-major: R[i, j] at i r + j, j < i, and
    /// `1 / R[i, i]` at i r + i.
    gram_factor: Vec<f64>,
    /// Pᵀ b (padded with zeros to the stride), then x in pivot order.
    permuted: Vec<f64>,
    /// Lᵀ Pᵀ b, then G⁻² Lᵀ Pᵀ b.
    projected: Vec<f64>,
}

/// The products of L's columns run over groups of this many rows (module docs of the fields).
const LANES: usize = 4;

impl PivotedCholesky {
    /// Factors the symmetric positive semi-definite n × n matrix `a` (column-major; pivot q's
    /// entries are read from column q). Returns false when `a` does not have n² entries or a
    /// diagonal is negative beyond rounding or not finite (not semi-definite).
    ///
    /// Left-looking form of Algorithm 10.2: column k of L is formed only when row q = P(k) becomes
    /// the pivot, `l_ik = (a_iq − Σ_{m<k} l_im l_km) / l_kk` over the rows i not yet pivoted (one
    /// contiguous update per earlier column m), and the remainder's diagonal
    /// `d_i = a_ii − Σ_{m<k} l_im²` is kept up to date for the pivot choice. Each entry gets the same
    /// operations in the same order as in the outer-product form (the subtractions of `l_im l_km`
    /// for m = 0, 1, …, then the scaling by `1 / l_kk`), but only the r columns up to the numerical
    /// rank are formed: Σ_{k<r} k (n − k − 1) multiply-adds, where the outer-product form spends
    /// about (n³ − (n − r)³) / 6 on a remainder it mostly never uses (1012 against 2200 on a biped's
    /// two feet, n = 24, r = 12). An interchange swaps two rows of the columns formed so far
    /// (LAPACK `dpstrf`'s interchange restricted to L).
    pub fn factor(&mut self, a: &[f64], n: usize) -> bool {
        if a.len() != n * n {
            return false;
        }
        self.n = n;
        let stride = n.next_multiple_of(LANES);
        self.stride = stride;
        self.order.clear();
        self.order.extend(0..n);
        // The remainder's diagonal, by pivot position.
        let diagonal = &mut self.diagonal;
        diagonal.clear();
        diagonal.extend(a.iter().step_by(n + 1));
        let largest = diagonal.iter().copied().fold(0.0_f64, f64::max);
        if !largest.is_finite() {
            return false;
        }
        let cutoff = RANK_CUTOFF * largest;
        if self.work.len() < n * stride {
            self.work.resize(n * stride, 0.0);
        }
        let w = &mut self.work[..n * stride];
        self.rank = n;
        for k in 0..n {
            // The largest remaining diagonal becomes the pivot (the first of equals).
            let (mut p, mut pivot) = (k, f64::NEG_INFINITY);
            for (i, &d) in diagonal.iter().enumerate().skip(k) {
                if d > pivot {
                    (p, pivot) = (i, d);
                }
            }
            if !pivot.is_finite() || pivot < -cutoff {
                return false;
            }
            if pivot <= cutoff {
                self.rank = k;
                break;
            }
            if p != k {
                self.order.swap(k, p);
                diagonal.swap(k, p);
                for m in 0..k {
                    w.swap(m * stride + k, m * stride + p);
                }
            }
            let q = self.order[k];
            let d = pivot.sqrt();
            let inverse = 1.0 / d;
            let (formed, from_k) = w.split_at_mut(k * stride);
            let column = &mut from_k[..stride];
            // The zeros the aligned products read (field docs).
            column[k - k % LANES..k].fill(0.0);
            column[n..].fill(0.0);
            column[k] = d;
            let below = &mut column[k + 1..n];
            let column_q = &a[q * n..(q + 1) * n];
            for (l, &i) in below.iter_mut().zip(&self.order[k + 1..]) {
                *l = column_q[i];
            }
            for earlier in formed.chunks_exact(stride) {
                let lkm = earlier[k];
                if lkm != 0.0 {
                    for (l, lim) in below.iter_mut().zip(&earlier[k + 1..n]) {
                        *l -= lim * lkm;
                    }
                }
            }
            for (l, di) in below.iter_mut().zip(&mut diagonal[k + 1..]) {
                *l *= inverse;
                *di -= *l * *l;
            }
        }
        true
    }

    /// The numerical rank of the last factored matrix.
    #[cfg(test)]
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Overwrites b with the minimum-norm solution of L Lᵀ x = b in A's order (module docs):
    /// x = P L (LᵀL)⁻² Lᵀ Pᵀ b, the pseudo-inverse of the rank-r part of A applied to b.
    /// Returns false (b unchanged) when b does not have n entries or LᵀL cannot be factored.
    /// [`Self::prepare_min_norm`] then [`Self::apply_min_norm`].
    #[cfg(test)]
    pub fn solve_min_norm(&mut self, b: &mut [f64]) -> bool {
        self.prepare_min_norm() && self.apply_min_norm(b)
    }

    /// Factors G = LᵀL = R Rᵀ (unpivoted Cholesky, G definite since L has full column rank) for
    /// [`Self::apply_min_norm`], which may then be applied to any number of right-hand sides.
    /// False when G cannot be factored. Columns of L are zero above their diagonal, so every
    /// product runs from the later column's diagonal on (from the aligned group of rows that holds
    /// it).
    ///
    /// At full rank (r = n) the least-norm solution is A⁻¹ b, which [`Self::apply_min_norm`]
    /// takes from L by one forward and one back substitution: G is not formed (its products, its
    /// factor and the four solves with it cost some n³/3 multiply-adds, and G has A's condition
    /// number, G⁻² its square).
    pub fn prepare_min_norm(&mut self) -> bool {
        let (r, stride) = (self.rank, self.stride);
        if self.work.len() < r * stride {
            return false;
        }
        if r == self.n {
            self.gram_factor.clear();
            return true;
        }
        let l = &self.work[..r * stride];
        self.gram.clear();
        self.gram.resize(r * r, 0.0);
        let g = &mut self.gram;
        for (k, lk) in l.chunks_exact(stride).enumerate() {
            for (j, lj) in l.chunks_exact(stride).enumerate().skip(k) {
                let from = j - j % LANES;
                g[k * r + j] = aligned_dot(&lk[from..], &lj[from..]);
            }
        }
        let rf = &mut self.gram_factor;
        rf.clear();
        rf.resize(r * r, 0.0);
        cholesky_rows(g, r, rf)
    }

    /// Overwrites b with x = P L (LᵀL)⁻² Lᵀ Pᵀ b (module docs), with the G = R Rᵀ of the last
    /// [`Self::prepare_min_norm`]: y = Lᵀ Pᵀ b, u = G⁻¹ G⁻¹ y by four triangular solves, x = P L u.
    /// Returns false (b unchanged) when b does not have n entries or G was not factored.
    pub fn apply_min_norm(&mut self, b: &mut [f64]) -> bool {
        let (r, n, stride) = (self.rank, self.n, self.stride);
        if b.len() != n || self.work.len() < r * stride || self.order.len() != n {
            return false;
        }
        if r == n && n > 0 {
            return self.apply_full_rank(b);
        }
        if self.gram_factor.len() != r * r {
            return false;
        }
        let l = &self.work[..r * stride];
        let permuted = &mut self.permuted;
        permuted.clear();
        permuted.extend(self.order.iter().map(|&i| b[i]));
        permuted.resize(stride, 0.0);
        let y = &mut self.projected;
        y.clear();
        for (k, lk) in l.chunks_exact(stride).enumerate() {
            let from = k - k % LANES;
            y.push(aligned_dot(&lk[from..], &permuted[from..]));
        }
        let rf = &self.gram_factor;
        for _ in 0..2 {
            forward_substitute(rf, r, y);
            back_substitute(rf, r, y);
        }
        // x = P L u, summed in pivot order, then put back in A's order.
        permuted.iter_mut().for_each(|x| *x = 0.0);
        for (k, (lk, &u)) in l.chunks_exact(stride).zip(y.iter()).enumerate() {
            for (x, &lik) in permuted[k..n].iter_mut().zip(&lk[k..n]) {
                *x += lik * u;
            }
        }
        for (&x, &i) in permuted.iter().zip(&self.order) {
            b[i] = x;
        }
        true
    }

    /// [`Self::apply_min_norm`] at full rank: x = P L⁻ᵀ L⁻¹ Pᵀ b, L's columns read contiguously
    /// (Golub & Van Loan, *Matrix Computations*, 4th ed., §3.1.2, the column-oriented forward
    /// substitution, and §3.1.3 for Lᵀ: each entry a dot product with a column of L).
    fn apply_full_rank(&mut self, b: &mut [f64]) -> bool {
        let (n, stride) = (self.n, self.stride);
        let l = &self.work[..n * stride];
        let x = &mut self.permuted;
        x.clear();
        x.extend(self.order.iter().map(|&i| b[i]));
        // L y = Pᵀ b: y_k = x_k / l_kk, then x_i −= l_ik y_k below it.
        for (k, column) in l.chunks_exact(stride).enumerate() {
            let yk = x[k] / column[k];
            x[k] = yk;
            for (xi, &lik) in x[k + 1..].iter_mut().zip(&column[k + 1..n]) {
                *xi -= lik * yk;
            }
        }
        // Lᵀ z = y: z_k = (y_k − Σ_{i>k} l_ik z_i) / l_kk, from the last row up.
        for (k, column) in l.chunks_exact(stride).enumerate().rev() {
            let (head, solved) = x.split_at_mut(k + 1);
            head[k] = (head[k] - dot(&column[k + 1..n], solved)) / column[k];
        }
        if !x.iter().all(|v| v.is_finite()) {
            return false;
        }
        for (&xk, &i) in x.iter().zip(&self.order) {
            b[i] = xk;
        }
        true
    }
}

/// Σ aᵢxᵢ over the common length (a multiple of [`LANES`]), with [`LANES`] interleaved partial
/// sums (a fixed order, so the result is deterministic; the independent sums let the compiler
/// vectorise).
fn aligned_dot(a: &[f64], x: &[f64]) -> f64 {
    let mut sums = [0.0; LANES];
    for (ac, xc) in a.chunks_exact(LANES).zip(x.chunks_exact(LANES)) {
        for k in 0..LANES {
            sums[k] += ac[k] * xc[k];
        }
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3])
}

/// Σ aᵢxᵢ over the common length, in order.
fn dot(a: &[f64], x: &[f64]) -> f64 {
    a.iter().zip(x).map(|(a, x)| a * x).sum()
}

/// G = R Rᵀ (Golub & Van Loan, *Matrix Computations*, 4th ed., §4.2.5, the Cholesky–Banachiewicz
/// order: row by row, `r_ij = (g_ij − Σ_{m<j} r_im r_jm) / r_jj`, `r_ii = √(g_ii − Σ_{m<i} r_im²)`)
/// from the lower triangle of the column-major r × r `g` into the row-major `rf`, so that each
/// sum runs over two contiguous rows. The diagonal of `rf` holds `1 / r_ii`: every use of `r_ii`
/// divides by it, and a multiplication costs a fraction of a division. False when a pivot is not
/// positive and finite.
fn cholesky_rows(g: &[f64], r: usize, rf: &mut [f64]) -> bool {
    for i in 0..r {
        let (done, row) = rf.split_at_mut(i * r);
        let row = &mut row[..r];
        for j in 0..i {
            let rj = &done[j * r..j * r + r];
            row[j] = (g[j * r + i] - dot(&row[..j], &rj[..j])) * rj[j];
        }
        let pivot = g[i * r + i] - dot(&row[..i], &row[..i]);
        if !(pivot.is_finite() && pivot > 0.0) {
            return false;
        }
        row[i] = 1.0 / pivot.sqrt();
    }
    true
}

/// y ← R⁻¹ y, R lower triangular (row-major r × r, `1 / r_ii` on the diagonal), row by row.
fn forward_substitute(rf: &[f64], r: usize, y: &mut [f64]) {
    for (i, row) in rf.chunks_exact(r).enumerate() {
        let (before, rest) = y.split_at_mut(i);
        rest[0] = (rest[0] - dot(&row[..i], before)) * row[i];
    }
}

/// y ← R⁻ᵀ y, R lower triangular (row-major r × r, `1 / r_ii` on the diagonal): row i of R is
/// column i of Rᵀ, so each solved entry is subtracted from the earlier ones at once.
fn back_substitute(rf: &[f64], r: usize, y: &mut [f64]) {
    for (i, row) in rf.chunks_exact(r).enumerate().rev() {
        let (before, rest) = y.split_at_mut(i);
        let yi = rest[0] * row[i];
        rest[0] = yi;
        for (yj, &rij) in before.iter_mut().zip(&row[..i]) {
            *yj -= rij * yi;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    #[test]
    fn a_definite_matrix_is_solved_exactly() {
        let a = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0]);
        let x = DVector::from_vec(vec![1.0, -2.0, 0.5]);
        let mut b = &a * &x;
        let mut chol = PivotedCholesky::default();
        assert!(chol.factor(a.as_slice(), a.nrows()));
        assert_eq!(chol.rank(), 3);
        assert!(chol.solve_min_norm(b.as_mut_slice()));
        assert!((b - x).amax() < 1e-14);
    }

    #[test]
    fn pivoting_on_a_larger_matrix_reproduces_it() {
        // A = B Bᵀ + diag, B 7 × 5 with entries that make the pivots move around.
        let b = DMatrix::from_fn(7, 5, |i, j| ((i * 5 + j) as f64 * 0.731).sin() * (1.0 + i as f64));
        let a = &b * b.transpose() + DMatrix::from_diagonal(&DVector::from_fn(7, |i, _| 0.01 * i as f64));
        let x = DVector::from_fn(7, |i, _| (i as f64 * 1.3).cos());
        let mut rhs = &a * &x;
        let mut chol = PivotedCholesky::default();
        assert!(chol.factor(a.as_slice(), a.nrows()));
        assert_eq!(chol.rank(), 7);
        assert!(chol.solve_min_norm(rhs.as_mut_slice()));
        // At full rank the solve is L's two substitutions, backward stable: the error is within a
        // small multiple of cond(A) ε |x| (Higham §10.1), where the route through LᵀL squared it.
        let sv = a.singular_values();
        let condition = sv.max() / sv.min();
        let error = (rhs - &x).amax();
        assert!(
            error < 10.0 * condition * f64::EPSILON * x.amax(),
            "{error} at cond {condition}"
        );
    }

    #[test]
    fn a_rank_deficient_consistent_system_gets_its_least_norm_solution() {
        // A = J Jᵀ with J 4 × 2: rank 2; b in the range of A. The pseudo-inverse (SVD) agrees.
        let j = DMatrix::from_row_slice(4, 2, &[1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 2.0, -1.0]);
        let a = &j * j.transpose();
        let b = &a * DVector::from_vec(vec![0.3, -0.1, 0.7, 0.2]);
        let mut chol = PivotedCholesky::default();
        assert!(chol.factor(a.as_slice(), a.nrows()));
        assert_eq!(chol.rank(), 2);
        let mut x = b.clone();
        assert!(chol.solve_min_norm(x.as_mut_slice()));
        assert!((&a * &x - &b).amax() < 1e-12, "A x = b");
        let least_norm = a.clone().svd(true, true).solve(&b, 1e-10).expect("svd solve");
        assert!((&x - &least_norm).amax() < 1e-12, "{x} vs {least_norm}");
    }

    #[test]
    fn an_inconsistent_part_stays_bounded_and_an_indefinite_matrix_is_refused() {
        let j = DMatrix::from_row_slice(3, 1, &[1.0, 1.0, 1.0]);
        let a = &j * j.transpose();
        let mut b = DVector::from_vec(vec![1.0, 0.0, -1.0]);
        let mut chol = PivotedCholesky::default();
        assert!(chol.factor(a.as_slice(), a.nrows()));
        assert_eq!(chol.rank(), 1);
        assert!(chol.solve_min_norm(b.as_mut_slice()));
        assert!(b.amax() <= 1.0, "{b}");
        let indefinite = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, -1.0]);
        assert!(!chol.factor(indefinite.as_slice(), 2));
        assert!(
            !chol.factor(indefinite.as_slice(), 3),
            "4 entries are not a 3 × 3 matrix"
        );
    }

    #[test]
    fn one_prepared_factor_serves_several_right_hand_sides_bit_for_bit() {
        let j = DMatrix::from_fn(8, 5, |i, k| (((i * 5 + k) * (i + 2)) as f64 * 0.29).cos());
        let a = &j * j.transpose();
        let mut chol = PivotedCholesky::default();
        assert!(chol.factor(a.as_slice(), 8));
        assert!(chol.prepare_min_norm());
        for seed in 0..3 {
            let b = DVector::from_fn(8, |i, _| ((i + seed) as f64 * 0.77).sin());
            let mut applied = b.clone();
            assert!(chol.apply_min_norm(applied.as_mut_slice()));
            let mut fresh = PivotedCholesky::default();
            assert!(fresh.factor(a.as_slice(), 8));
            let mut solved = b.clone();
            assert!(fresh.solve_min_norm(solved.as_mut_slice()));
            assert_eq!(applied, solved, "right-hand side {seed}");
        }
    }

    #[test]
    fn an_inconsistent_system_gets_the_pseudo_inverse_solution() {
        // A = J Jᵀ with J 9 × 4 (rank 4, pivots that move around) and b with a part outside the
        // range: x = A⁺ b, the least-squares solution of least norm, as the SVD gives it.
        let j = DMatrix::from_fn(9, 4, |i, k| (((i * 4 + k) * (i + k + 1)) as f64 * 0.37).sin());
        let a = &j * j.transpose();
        let b = DVector::from_fn(9, |i, _| (i as f64 * 0.61).cos());
        let mut chol = PivotedCholesky::default();
        assert!(chol.factor(a.as_slice(), 9));
        assert_eq!(chol.rank(), 4);
        let mut x = b.clone();
        assert!(chol.solve_min_norm(x.as_mut_slice()));
        let pseudo = a.clone().svd(true, true).solve(&b, 1e-9).expect("svd solve");
        assert!((&x - &pseudo).amax() < 1e-10 * pseudo.amax(), "{x} vs {pseudo}");
        let mut short = DVector::zeros(8);
        assert!(
            !chol.solve_min_norm(short.as_mut_slice()),
            "8 entries for a 9 × 9 factor"
        );
    }
}
