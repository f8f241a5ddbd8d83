//! Lemke's complementary pivoting method (`docs/design/contact-mechanics.md` §4.2.3; Cottle, Pang & Stone,
//! *The Linear Complementarity Problem*, §4.4).
//!
//! Solve 0 ≤ z ⊥ w = Mz + q ≥ 0 by adding an artificial variable z₀ with covering vector d = 1:
//!
//! w − Mz − d z₀ = q,  w, z, z₀ ≥ 0,  wᵢzᵢ = 0.
//!
//! 1. If q ≥ 0, z = 0 is the solution.
//! 2. Otherwise z₀ enters at the value max(−qᵢ/dᵢ), and the row attaining it leaves: every w is then ≥ 0.
//! 3. Repeat: the complement of the variable that just left enters; the minimum-ratio test picks the
//!    leaving row; stop when z₀ leaves (a solution) or no row blocks the entering column (a secondary
//!    ray: [`Error::RayTermination`]).
//!
//! Anti-cycling: ties in the ratio test are broken lexicographically on the rows of [B⁻¹q, B⁻¹]
//! divided by the pivot column (B the current basis), which keeps every row lexicographically positive
//! and so visits no basis twice; when z₀'s row is among the tied rows it leaves at once. Entries of the
//! pivot column below the pivot tolerance (relative to the largest |Mᵢⱼ|) are not pivots. A pivot cap
//! turns a numerical loop into [`Error::PivotLimit`].
//!
//! The method processes every LCP whose M is copositive-plus (e.g. positive semidefinite): it ends with
//! a solution, or with a ray only when the LCP is infeasible.

use nalgebra::DVector;

use crate::error::{Error, Result};
use crate::lcp::Lcp;
use crate::report::{lcp_errors, SolveReport};

/// Options of Lemke's method.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LemkeOptions {
    /// Smallest pivot accepted, relative to max(1, maxᵢⱼ |Mᵢⱼ|). Default 1e-12.
    pub pivot_tolerance: f64,
    /// Pivot cap; `None` means 50·(n + 1).
    pub max_pivots: Option<usize>,
}

impl Default for LemkeOptions {
    fn default() -> Self {
        Self {
            pivot_tolerance: 1e-12,
            max_pivots: None,
        }
    }
}

/// A solution found by Lemke's method.
#[derive(Debug, Clone, PartialEq)]
pub struct LemkeSolution {
    /// z (the λ of the LCP), with round-off below zero clamped to zero.
    pub z: DVector<f64>,
    /// w = Mz + q, recomputed from the original data.
    pub w: DVector<f64>,
    /// Pivots done (the report's `iterations`), residual and complementarity error of z.
    pub report: SolveReport,
}

/// Dense tableau T = B⁻¹[I, −M, −d, q], row-major. Column j < n is wⱼ, n ≤ j < 2n is z_{j−n},
/// 2n is z₀, 2n+1 the right-hand side.
struct Tableau {
    n: usize,
    width: usize,
    data: Vec<f64>,
    basis: Vec<usize>,
}

impl Tableau {
    fn new(lcp: &Lcp) -> Self {
        let n = lcp.dim();
        let width = 2 * n + 2;
        let mut data = vec![0.0; n * width];
        for (i, row) in data.chunks_exact_mut(width).enumerate() {
            row[i] = 1.0;
            for j in 0..n {
                row[n + j] = -lcp.a[(i, j)];
            }
            row[2 * n] = -1.0;
            row[2 * n + 1] = lcp.b[i];
        }
        Self {
            n,
            width,
            data,
            basis: (0..n).collect(),
        }
    }

    fn at(&self, row: usize, col: usize) -> f64 {
        self.data.get(row * self.width + col).copied().unwrap_or(0.0)
    }

    fn rhs(&self, row: usize) -> f64 {
        self.at(row, self.width - 1)
    }

    /// Is row a's ratio vector [rhs, B⁻¹ row] / pivot lexicographically smaller than row b's?
    fn lex_smaller(&self, a: usize, b: usize, col: usize, tol: f64) -> bool {
        let (pa, pb) = (self.at(a, col), self.at(b, col));
        let key = |row: usize, pivot: f64, k: usize| {
            if k == 0 {
                self.rhs(row) / pivot
            } else {
                self.at(row, k - 1) / pivot
            }
        };
        for k in 0..=self.n {
            let (x, y) = (key(a, pa, k), key(b, pb, k));
            if x < y - tol {
                return true;
            }
            if x > y + tol {
                return false;
            }
        }
        false
    }

    fn pivot(&mut self, row: usize, col: usize) {
        let width = self.width;
        let p = self.at(row, col);
        let start = row * width;
        let Some(pivot_row) = self.data.get_mut(start..start + width) else {
            return;
        };
        pivot_row.iter_mut().for_each(|v| *v /= p);
        let pivot_row: Vec<f64> = pivot_row.to_vec();
        for (i, r) in self.data.chunks_exact_mut(width).enumerate() {
            if i == row {
                continue;
            }
            let factor = r.get(col).copied().unwrap_or(0.0);
            if factor != 0.0 {
                r.iter_mut().zip(&pivot_row).for_each(|(v, pv)| *v -= factor * pv);
            }
        }
        if let Some(b) = self.basis.get_mut(row) {
            *b = col;
        }
    }
}

/// Solve an LCP by Lemke's method (module docs).
pub fn solve_lemke(lcp: &Lcp, options: &LemkeOptions) -> Result<LemkeSolution> {
    lcp.validate()?;
    if !(options.pivot_tolerance.is_finite() && options.pivot_tolerance > 0.0) {
        return Err(Error::InvalidOption {
            name: "pivot_tolerance",
            value: options.pivot_tolerance,
            expected: "a finite number > 0",
        });
    }
    let n = lcp.dim();
    let limit = options.max_pivots.unwrap_or(50 * (n + 1));
    let scale = lcp.a.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    let tol = options.pivot_tolerance * scale;
    // Ratio ties are judged on the scale of the right-hand side.
    let tie_tol = 1e-12 * lcp.b.iter().fold(1.0_f64, |m, v| m.max(v.abs()));

    if lcp.b.iter().all(|&q| q >= 0.0) {
        return Ok(finish(lcp, DVector::zeros(n), 0));
    }

    let mut tableau = Tableau::new(lcp);
    let z0 = 2 * n;
    // Initial pivot: the lexicographic minimum of [qᵢ, eᵢ]/dᵢ (d = 1), i.e. the most negative qᵢ.
    let mut leaving_row = 0;
    for i in 1..n {
        // Pivot-column entries are −1 here; compare [qᵢ, eᵢ] directly.
        if lex_less_initial(&tableau, i, leaving_row, tie_tol) {
            leaving_row = i;
        }
    }
    let mut leaving = tableau.basis.get(leaving_row).copied().unwrap_or(0);
    tableau.pivot(leaving_row, z0);
    let mut pivots = 1;

    loop {
        // The complement of the variable that left enters.
        let entering = if leaving < n { leaving + n } else { leaving - n };
        let mut best: Option<(usize, f64)> = None;
        let mut z0_row: Option<(usize, f64)> = None;
        for i in 0..n {
            let p = tableau.at(i, entering);
            if p <= tol {
                continue;
            }
            let ratio = tableau.rhs(i) / p;
            if tableau.basis.get(i) == Some(&z0) {
                z0_row = Some((i, ratio));
            }
            best = match best {
                None => Some((i, ratio)),
                Some((_, r)) if ratio < r - tie_tol => Some((i, ratio)),
                Some((j, r)) if ratio <= r + tie_tol && tableau.lex_smaller(i, j, entering, tie_tol) => {
                    Some((i, ratio.min(r)))
                }
                keep => keep,
            };
        }
        let Some((mut row, min_ratio)) = best else {
            return Err(Error::RayTermination { pivots });
        };
        if let Some((i, ratio)) = z0_row {
            if ratio <= min_ratio + tie_tol {
                row = i;
            }
        }
        if pivots >= limit {
            return Err(Error::PivotLimit { limit });
        }
        leaving = tableau.basis.get(row).copied().unwrap_or(0);
        tableau.pivot(row, entering);
        pivots += 1;
        if leaving == z0 {
            break;
        }
    }

    let mut z = DVector::zeros(n);
    for (row, &var) in tableau.basis.iter().enumerate() {
        if (n..2 * n).contains(&var) {
            z[var - n] = tableau.rhs(row).max(0.0);
        }
    }
    Ok(finish(lcp, z, pivots))
}

/// Initial lexicographic comparison of rows a and b of [q, I] (pivot entries −1 for both).
fn lex_less_initial(t: &Tableau, a: usize, b: usize, tol: f64) -> bool {
    let (qa, qb) = (t.rhs(a), t.rhs(b));
    if qa < qb - tol {
        return true;
    }
    if qa > qb + tol {
        return false;
    }
    // Equal q: compare the identity rows eₐ and e_b; the later index is lexicographically smaller.
    a > b
}

fn finish(lcp: &Lcp, z: DVector<f64>, pivots: usize) -> LemkeSolution {
    let w = &lcp.a * &z + &lcp.b;
    let (residual, complementarity) = lcp_errors(z.as_slice(), w.as_slice());
    LemkeSolution {
        z,
        w,
        report: SolveReport {
            iterations: pivots,
            residual,
            complementarity,
            converged: true,
            stalled: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    #[test]
    fn textbook_three_by_three() {
        // M = [[1,2,0],[0,1,2],[2,0,1]] (strictly copositive: zᵀMz = Σzᵢ² + 2Σzᵢzⱼ > 0), q = −1:
        // z = (1/3, 1/3, 1/3) gives Mz = 1, so w = 0; with M nonsingular this is the only solution with w = 0.
        let lcp = Lcp::new(
            DMatrix::from_row_slice(3, 3, &[1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0]),
            DVector::from_vec(vec![-1.0, -1.0, -1.0]),
        )
        .expect("valid");
        let s = solve_lemke(&lcp, &LemkeOptions::default()).expect("solves");
        for i in 0..3 {
            assert!((s.z[i] - 1.0 / 3.0).abs() < 1e-12, "{}", s.z);
            assert!(s.w[i].abs() < 1e-12);
        }
    }

    #[test]
    fn nonnegative_q_needs_no_pivot() {
        let lcp = Lcp::new(DMatrix::identity(2, 2), DVector::from_vec(vec![0.0, 3.0])).expect("valid");
        let s = solve_lemke(&lcp, &LemkeOptions::default()).expect("solves");
        assert_eq!(s.report.iterations, 0);
        assert_eq!(s.z, DVector::zeros(2));
    }

    #[test]
    fn infeasible_problem_ends_on_a_ray() {
        // w = −z − 1 ≥ 0 has no solution with z ≥ 0 (M = −I is not copositive).
        let lcp = Lcp::new(-DMatrix::identity(1, 1), DVector::from_vec(vec![-1.0])).expect("valid");
        assert!(matches!(
            solve_lemke(&lcp, &LemkeOptions::default()),
            Err(Error::RayTermination { .. })
        ));
    }

    #[test]
    fn pivot_cap_is_an_error() {
        let lcp = Lcp::new(
            DMatrix::from_row_slice(3, 3, &[1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0]),
            DVector::from_vec(vec![-1.0, -1.0, -1.0]),
        )
        .expect("valid");
        let options = LemkeOptions {
            max_pivots: Some(1),
            ..LemkeOptions::default()
        };
        assert_eq!(
            solve_lemke(&lcp, &options).map(|s| s.z),
            Err(Error::PivotLimit { limit: 1 })
        );
    }
}
