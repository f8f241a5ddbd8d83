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
    /// The pivot column of L during the factorisation.
    column: Vec<f64>,
    /// LᵀL, then its Cholesky factor.
    gram: DMatrix<f64>,
    /// Lᵀ Pᵀ b, then (LᵀL)⁻² Lᵀ Pᵀ b.
    projected: DVector<f64>,
}

impl PivotedCholesky {
    /// Factors the symmetric positive semi-definite `a` (its lower triangle is read). Returns
    /// false when a diagonal is negative beyond rounding or not finite (not semi-definite).
    pub fn factor(&mut self, a: &DMatrix<f64>) -> bool {
        let n = a.nrows();
        if self.work.shape() != (n, n) {
            self.work = DMatrix::zeros(n, n);
        }
        self.work.copy_from(a);
        self.order.clear();
        self.order.extend(0..n);
        let largest = (0..n).map(|i| a[(i, i)]).fold(0.0_f64, f64::max);
        if !largest.is_finite() {
            return false;
        }
        let cutoff = RANK_CUTOFF * largest;
        self.rank = n;
        // Column-major: entry (i, j) at j n + i; only the lower triangle is read and written.
        let w = self.work.as_mut_slice();
        for k in 0..n {
            // The largest remaining diagonal becomes the pivot.
            let (p, pivot) = (k..n)
                .map(|i| (i, w[i * n + i]))
                .fold((k, f64::NEG_INFINITY), |best, x| if x.1 > best.1 { x } else { best });
            if !pivot.is_finite() || pivot < -cutoff {
                return false;
            }
            if pivot <= cutoff {
                self.rank = k;
                break;
            }
            if p != k {
                swap_symmetric(w, n, k, p);
                self.order.swap(k, p);
            }
            // Column k of L.
            let d = pivot.sqrt();
            let inverse = 1.0 / d;
            w[k * n + k] = d;
            w[k * n + k + 1..(k + 1) * n].iter_mut().for_each(|x| *x *= inverse);
            // Remainder S −= l lᵀ, lower triangle, column by column (l copied out of w first).
            let l = &mut self.column;
            l.clear();
            l.extend_from_slice(&w[k * n..(k + 1) * n]);
            for (j, column) in w.chunks_exact_mut(n).enumerate().skip(k + 1) {
                let ljk = l[j];
                if ljk != 0.0 {
                    for (x, li) in column[j..].iter_mut().zip(&l[j..]) {
                        *x -= li * ljk;
                    }
                }
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
        for k in 0..r {
            let lk = &w[k * n..(k + 1) * n];
            y[k] = lk[k..].iter().zip(&permuted[k..]).map(|(l, x)| l * x).sum();
            for l in k..r {
                let ll = &w[l * n..(l + 1) * n];
                let g: f64 = lk[l..].iter().zip(&ll[l..]).map(|(a, c)| a * c).sum();
                gram[(k, l)] = g;
                gram[(l, k)] = g;
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

/// Swaps rows and columns k and p (k < p) of the symmetric n × n matrix whose lower triangle is
/// stored column-major in `w`, rows 0..k of L (columns < k) included (LAPACK `dpstrf`'s
/// interchange).
fn swap_symmetric(w: &mut [f64], n: usize, k: usize, p: usize) {
    let at = |i: usize, j: usize| j * n + i;
    w.swap(at(k, k), at(p, p));
    for j in 0..k {
        w.swap(at(k, j), at(p, j));
    }
    for i in k + 1..p {
        w.swap(at(i, k), at(p, i));
    }
    for i in p + 1..n {
        w.swap(at(i, k), at(i, p));
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
