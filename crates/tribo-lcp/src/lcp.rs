//! The linear complementarity problem (`docs/design/contact-mechanics.md` §4.2.2):
//! find λ ≥ 0 with w = Aλ + b ≥ 0 and λᵀw = 0, written 0 ≤ λ ⊥ Aλ + b ≥ 0.

use nalgebra::{DMatrix, DVector};

use crate::error::{check_finite, check_len, Error, Result};

/// An LCP 0 ≤ λ ⊥ Aλ + b ≥ 0 with a dense square A.
///
/// For contact, A is the Delassus matrix J M⁻¹ Jᵀ (1/kg, m/(N·s) per unit impulse) and b the free
/// velocity J(v⁻ + h M⁻¹ f_ext) (m/s); λ is then an impulse (N·s). The solvers accept any A, but
/// projected Gauss–Seidel is only guaranteed to converge for symmetric positive (semi)definite A, and
/// Lemke's method for copositive-plus A (which includes positive semidefinite A).
#[derive(Debug, Clone, PartialEq)]
pub struct Lcp {
    /// A, n × n.
    pub a: DMatrix<f64>,
    /// b, n.
    pub b: DVector<f64>,
}

impl Lcp {
    /// A checked problem: A square, b of matching length, everything finite.
    pub fn new(a: DMatrix<f64>, b: DVector<f64>) -> Result<Self> {
        let lcp = Self { a, b };
        lcp.validate()?;
        Ok(lcp)
    }

    /// n, the number of unknowns.
    pub fn dim(&self) -> usize {
        self.b.len()
    }

    /// Check shapes and finiteness (the solvers call this first).
    pub fn validate(&self) -> Result<()> {
        check_len("A (rows)", self.a.ncols(), self.a.nrows())?;
        check_len("b", self.a.nrows(), self.b.len())?;
        check_finite("b", self.b.as_slice())?;
        // Report A's bad entry with a row-major flat index.
        let n = self.a.nrows();
        for row in 0..n {
            for col in 0..n {
                let value = self.a[(row, col)];
                if !value.is_finite() {
                    return Err(Error::NonFinite {
                        what: "A",
                        index: row * n + col,
                        value,
                    });
                }
            }
        }
        Ok(())
    }

    /// w = Aλ + b.
    pub fn slack(&self, lambda: &DVector<f64>) -> Result<DVector<f64>> {
        check_len("λ", self.dim(), lambda.len())?;
        Ok(&self.a * lambda + &self.b)
    }
}
