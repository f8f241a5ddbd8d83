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
//! nalgebra's Cholesky). Applied to b it gives the least-squares solution of least norm: when b is
//! in the range of A it solves every equation, it never moves x along A's null space, and a part of
//! b outside the range is dropped instead of amplified. nalgebra's `Cholesky` needs a definite
//! matrix and has no pivoting, hence this one.

use nalgebra::{DMatrix, DVector};

/// Remainder diagonals at most this fraction of A's largest diagonal count as zero.
pub(crate) const RANK_CUTOFF: f64 = 1e-9;

/// The factor of the last [`PivotedCholesky::factor`], storage kept between calls.
#[derive(Debug, Clone, Default)]
pub(crate) struct PivotedCholesky {
    /// Working copy of A, overwritten by L in its lower triangle (pivoted order).
    work: DMatrix<f64>,
    /// `order[k]`: the row of A in pivot position k.
    order: Vec<usize>,
    /// The numerical rank r.
    rank: usize,
    /// Permuted right-hand side.
    scratch: Vec<f64>,
    /// The remainder's diagonal during the factorisation, by pivot position.
    diagonal: Vec<f64>,
    /// LᵀL, then its Cholesky factor.
    gram: DMatrix<f64>,
    /// Lᵀ Pᵀ b, then (LᵀL)⁻² Lᵀ Pᵀ b.
    projected: DVector<f64>,
}

impl PivotedCholesky {
    /// Factors the symmetric positive semi-definite `a` (pivot q's entries are read from column q).
    /// Returns false when a diagonal is negative beyond rounding or not finite (not semi-definite).
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
    pub fn factor(&mut self, a: &DMatrix<f64>) -> bool {
        let n = a.nrows();
        if a.ncols() != n {
            return false;
        }
        let a = a.as_slice();
        self.order.clear();
        self.order.extend(0..n);
        // The remainder's diagonal, by pivot position.
        let diagonal = &mut self.diagonal;
        diagonal.clear();
        diagonal.extend((0..n).map(|i| a[i * n + i]));
        let largest = diagonal.iter().copied().fold(0.0_f64, f64::max);
        if !largest.is_finite() {
            return false;
        }
        let cutoff = RANK_CUTOFF * largest;
        if self.work.shape() != (n, n) {
            self.work = DMatrix::zeros(n, n);
        }
        // L column-major, rows in pivot order: entry (i, k) at k n + i. Every entry the solves
        // read (i ≥ k, k < r) is written here; the rest is never read.
        let w = self.work.as_mut_slice();
        self.rank = n;
        for k in 0..n {
            // The largest remaining diagonal becomes the pivot (the first of equals).
            let (p, pivot) = (k..n)
                .map(|i| (i, diagonal[i]))
                .fold((k, f64::NEG_INFINITY), |best, x| if x.1 > best.1 { x } else { best });
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
                    w.swap(m * n + k, m * n + p);
                }
            }
            let q = self.order[k];
            let d = pivot.sqrt();
            let inverse = 1.0 / d;
            let (formed, from_k) = w.split_at_mut(k * n);
            let column = &mut from_k[k..n];
            column[0] = d;
            let below = &mut column[1..];
            let column_q = &a[q * n..(q + 1) * n];
            for (l, &i) in below.iter_mut().zip(&self.order[k + 1..]) {
                *l = column_q[i];
            }
            for earlier in formed.chunks_exact(n) {
                let lkm = earlier[k];
                if lkm != 0.0 {
                    for (l, lim) in below.iter_mut().zip(&earlier[k + 1..]) {
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
    /// Returns false (b unchanged) when LᵀL cannot be factored.
    pub fn solve_min_norm(&mut self, b: &mut DVector<f64>) -> bool {
        let (r, n) = (self.rank, self.work.nrows());
        let w = self.work.as_slice();
        // L[i, k] (i ≥ k, pivot order) is w[k n + i].
        let permuted = &mut self.scratch;
        permuted.clear();
        permuted.extend(self.order.iter().map(|&i| b[i]));
        // y = Lᵀ Pᵀ b and G = LᵀL.
        let mut y = std::mem::replace(&mut self.projected, DVector::zeros(0));
        if y.len() != r {
            y = DVector::zeros(r);
        }
        let mut gram = std::mem::replace(&mut self.gram, DMatrix::zeros(0, 0));
        if gram.shape() != (r, r) {
            gram = DMatrix::zeros(r, r);
        }
        // Column k of L is zero above row k, so the products run from the later column's row on.
        let g = gram.as_mut_slice();
        for k in 0..r {
            let lk = &w[k * n..(k + 1) * n];
            y[k] = lk[k..].iter().zip(&permuted[k..]).map(|(l, x)| l * x).sum();
            for l in k..r {
                let ll = &w[l * n..(l + 1) * n];
                let value: f64 = lk[l..].iter().zip(&ll[l..]).map(|(a, c)| a * c).sum();
                g[k * r + l] = value;
                g[l * r + k] = value;
            }
        }
        let Some(cholesky) = nalgebra::Cholesky::new(gram) else {
            self.projected = y;
            return false;
        };
        cholesky.solve_mut(&mut y);
        cholesky.solve_mut(&mut y);
        self.gram = cholesky.unpack();
        // x = P L u.
        b.fill(0.0);
        for (k, &u) in y.iter().enumerate() {
            for (i, l) in w[k * n + k..(k + 1) * n].iter().enumerate() {
                b[self.order[k + i]] += l * u;
            }
        }
        self.projected = y;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definite_matrix_is_solved_exactly() {
        let a = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0]);
        let x = DVector::from_vec(vec![1.0, -2.0, 0.5]);
        let mut b = &a * &x;
        let mut chol = PivotedCholesky::default();
        assert!(chol.factor(&a));
        assert_eq!(chol.rank(), 3);
        assert!(chol.solve_min_norm(&mut b));
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
        assert!(chol.factor(&a));
        assert_eq!(chol.rank(), 7);
        assert!(chol.solve_min_norm(&mut rhs));
        assert!((rhs - x).amax() < 1e-9);
    }

    #[test]
    fn a_rank_deficient_consistent_system_gets_its_least_norm_solution() {
        // A = J Jᵀ with J 4 × 2: rank 2; b in the range of A. The pseudo-inverse (SVD) agrees.
        let j = DMatrix::from_row_slice(4, 2, &[1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 2.0, -1.0]);
        let a = &j * j.transpose();
        let b = &a * DVector::from_vec(vec![0.3, -0.1, 0.7, 0.2]);
        let mut chol = PivotedCholesky::default();
        assert!(chol.factor(&a));
        assert_eq!(chol.rank(), 2);
        let mut x = b.clone();
        assert!(chol.solve_min_norm(&mut x));
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
        assert!(chol.factor(&a));
        assert_eq!(chol.rank(), 1);
        assert!(chol.solve_min_norm(&mut b));
        assert!(b.amax() <= 1.0, "{b}");
        let indefinite = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, -1.0]);
        assert!(!chol.factor(&indefinite));
    }
}
