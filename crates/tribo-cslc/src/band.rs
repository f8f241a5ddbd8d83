//! Cholesky factorisation `A = L Lᵀ` of a symmetric positive definite band matrix, and the
//! solves with it (Golub & Van Loan, *Matrix Computations*, 4th ed., §4.3.5, "band Cholesky").
//!
//! A flat pad's lattice stiffness, one axis at a time (`condensed.rs`), couples a sphere only to
//! its four neighbours: on a grid numbered row by row its entries lie within `b` (the row's
//! length) of the diagonal, and `L` keeps that band. Factoring costs `n b²` and a solve `2 n b`
//! multiply-adds, against `n³/3` and `n²` for a dense factor: the pad's whole compliance
//! `G = K⁻¹` (`n` solves) costs `2 n² b` instead of the dense inverse's `n³`.

/// `L` of a band matrix of half-bandwidth `b`, stored row by row: row `i` holds
/// `L[i, i−b] … L[i, i]` (entries before column 0 are zeros).
#[derive(Debug, Clone)]
pub(crate) struct BandCholesky {
    n: usize,
    b: usize,
    rows: Vec<f64>,
    /// `L` column by column below the diagonal: column `i` holds `L[i+1, i] … L[i+b, i]`
    /// (entries past row `n − 1` are zeros), so that the backward solve reads it in order.
    columns: Vec<f64>,
    /// `1 / L[i, i]`: the solves multiply by it instead of dividing, a shorter chain per row.
    reciprocal_pivots: Vec<f64>,
}

impl BandCholesky {
    /// Factors the `n × n` matrix whose entry `(i, j)`, `j ≤ i`, is `entry(i, j)` and which is
    /// zero beyond `b` of the diagonal; `None` unless it is positive definite (every pivot
    /// positive and finite).
    pub(crate) fn new(n: usize, b: usize, entry: impl Fn(usize, usize) -> f64) -> Option<BandCholesky> {
        let width = b + 1;
        let mut rows = vec![0.0; n * width];
        for i in 0..n {
            for j in i.saturating_sub(b)..=i {
                // (i, j) = Σ_k L[i,k] L[j,k] over the columns both rows hold, k < j.
                let mut sum = entry(i, j);
                for k in i.saturating_sub(b)..j {
                    sum -= rows[i * width + k + b - i] * rows[j * width + k + b - j];
                }
                let value = if i == j {
                    if !(sum > 0.0 && sum.is_finite()) {
                        return None;
                    }
                    sum.sqrt()
                } else {
                    sum / rows[j * width + b]
                };
                rows[i * width + j + b - i] = value;
            }
        }
        let reciprocal_pivots = (0..n).map(|i| 1.0 / rows[i * width + b]).collect();
        let mut columns = vec![0.0; n * b];
        for i in 0..n {
            for k in i + 1..n.min(i + b + 1) {
                columns[i * b + k - i - 1] = rows[k * width + i + b - k];
            }
        }
        Some(BandCholesky {
            n,
            b,
            rows,
            columns,
            reciprocal_pivots,
        })
    }

    /// Column `c` of `A⁻¹` into `out` (length `n`): `L y = e_c` forward (zero above row `c`),
    /// then `Lᵀ x = y` backward. Each row's sum runs over contiguous numbers in four partial
    /// sums, so that the row waits on four chains of a quarter the length instead of one.
    pub(crate) fn inverse_column(&self, c: usize, out: &mut [f64]) {
        let (n, b, width) = (self.n, self.b, self.b + 1);
        out.iter_mut().for_each(|x| *x = 0.0);
        for i in c..n {
            let lo = i.saturating_sub(b).max(c);
            let row = &self.rows[i * width + lo + b - i..i * width + b];
            let sum = if i == c { 1.0 } else { 0.0 } - dot(row, &out[lo..i]);
            out[i] = sum * self.reciprocal_pivots[i];
        }
        for i in (0..n).rev() {
            let hi = n.min(i + b + 1);
            let column = &self.columns[i * b..i * b + (hi - i - 1)];
            let sum = out[i] - dot(column, &out[i + 1..hi]);
            out[i] = sum * self.reciprocal_pivots[i];
        }
    }
}

/// `Σ_k a_k x_k` in four partial sums (`k mod 4`), added pairwise at the end.
fn dot(a: &[f64], x: &[f64]) -> f64 {
    let mut partial = [0.0; 4];
    let mut a_chunks = a.chunks_exact(4);
    let mut x_chunks = x.chunks_exact(4);
    for (a4, x4) in a_chunks.by_ref().zip(x_chunks.by_ref()) {
        for ((p, av), xv) in partial.iter_mut().zip(a4).zip(x4) {
            *p += av * xv;
        }
    }
    for ((p, av), xv) in partial.iter_mut().zip(a_chunks.remainder()).zip(x_chunks.remainder()) {
        *p += av * xv;
    }
    (partial[0] + partial[1]) + (partial[2] + partial[3])
}

#[cfg(test)]
mod tests {
    use nalgebra::DMatrix;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::BandCholesky;

    /// Random diagonally dominant band matrices of every half-bandwidth from 0 to full: each
    /// column of the inverse the factor gives against nalgebra's dense inverse, to 1e-12 of the
    /// inverse's largest entry; an indefinite matrix is refused.
    #[test]
    fn inverse_columns_match_the_dense_inverse() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for (n, b) in [(1, 0), (5, 0), (7, 1), (12, 3), (30, 6), (25, 24)] {
            let mut a = DMatrix::<f64>::zeros(n, n);
            for i in 0..n {
                for j in i.saturating_sub(b)..i {
                    let v = rng.random_range(-1.0..1.0);
                    a[(i, j)] = v;
                    a[(j, i)] = v;
                }
            }
            for i in 0..n {
                a[(i, i)] = 2.0 * b as f64 + rng.random_range(1.0..2.0);
            }
            let factor = BandCholesky::new(n, b, |i, j| a[(i, j)]).expect("positive definite");
            let dense = a.clone().try_inverse().expect("invertible");
            let scale = dense.amax();
            let mut column = vec![0.0; n];
            for c in 0..n {
                factor.inverse_column(c, &mut column);
                for (i, x) in column.iter().enumerate() {
                    assert!(
                        (x - dense[(i, c)]).abs() <= 1e-12 * scale,
                        "n {n}, b {b}: ({i}, {c}) {x:e} against {:e}",
                        dense[(i, c)]
                    );
                }
            }
        }
        assert!(BandCholesky::new(2, 1, |i, j| if i == j { 1.0 } else { 2.0 }).is_none());
    }
}
