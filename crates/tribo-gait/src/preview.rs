//! ZMP preview control on the cart-table model (S. Kajita et al., "Biped walking pattern
//! generation by using preview control of zero-moment point", ICRA 2003, §§II–III; the servo
//! form with integral action is Katayama et al. 1985, which that paper uses).
//!
//! Cart-table model, one horizontal axis: the ZMP of a point mass at constant height z_c is
//!
//! ```text
//! p = x − (z_c / g) ẍ
//! ```
//!
//! With the jerk u = d³x/dt³ as input and period T, the state x(k) = [x, ẋ, ẍ]ᵀ evolves as
//!
//! ```text
//! x(k+1) = A x(k) + B u(k),   p(k) = C x(k)
//! A = [1 T T²/2; 0 1 T; 0 0 1],   B = [T³/6; T²/2; T],   C = [1 0 −z_c/g]
//! ```
//!
//! The controller minimises J = Σ Qe e(i)² + Δxᵀ Qx Δx + R Δu(i)², e = p − p_ref, Δ the
//! increment between periods, over the augmented system X̃ = [e; Δx]:
//!
//! ```text
//! Ã = [1 CA; 0 A],  B̃ = [CB; B],  Ĩ = [1; 0; 0; 0],  Q̃ = diag(Qe, Qx)
//! P = Q̃ + ÃᵀPÃ − ÃᵀPB̃ (R + B̃ᵀPB̃)⁻¹ B̃ᵀPÃ                       (the DARE)
//! [Gi Gx] = (R + B̃ᵀPB̃)⁻¹ B̃ᵀPÃ
//! Gp(1) = −Gi,  Gp(j) = (R + B̃ᵀPB̃)⁻¹ B̃ᵀ X(j−1),  X(1) = −Acᵀ P Ĩ,  X(j) = Acᵀ X(j−1),
//! Ac = Ã − B̃ [Gi Gx]
//! Δu(k) = −Gi e(k) − Gx Δx(k) − Σ_{j=1..N} Gp(j) Δp_ref(k+j),   u(k) = u(k−1) + Δu(k)
//! ```
//!
//! Summed over k this is Kajita's u(k) = −Gi Σ e(i) − Gx x(k) − Σ Gp(j) p_ref(k+j) up to a
//! constant that vanishes only for an infinite horizon; the incremental form keeps a walker
//! that starts at rest (x(−1) = x(0), u(−1) = 0) exactly at rest under a constant reference.

use nalgebra::{Matrix3, Matrix4, RowVector3, Vector3, Vector4};

use crate::error::{check_positive, GaitError};

/// The discretised cart-table model of one horizontal axis.
#[derive(Debug, Clone, PartialEq)]
pub struct CartTable {
    /// Control period T, s.
    pub period: f64,
    /// Height of the centre of mass z_c, m.
    pub com_height: f64,
    /// Gravity g, m/s².
    pub gravity: f64,
}

impl CartTable {
    pub fn new(period: f64, com_height: f64, gravity: f64) -> Result<Self, GaitError> {
        Ok(CartTable {
            period: check_positive("period", period)?,
            com_height: check_positive("com_height", com_height)?,
            gravity: check_positive("gravity", gravity)?,
        })
    }

    pub fn a(&self) -> Matrix3<f64> {
        let t = self.period;
        Matrix3::new(1.0, t, t * t / 2.0, 0.0, 1.0, t, 0.0, 0.0, 1.0)
    }

    pub fn b(&self) -> Vector3<f64> {
        let t = self.period;
        Vector3::new(t * t * t / 6.0, t * t / 2.0, t)
    }

    pub fn c(&self) -> RowVector3<f64> {
        RowVector3::new(1.0, 0.0, -self.com_height / self.gravity)
    }

    /// The ZMP of state [x, ẋ, ẍ]: p = x − (z_c/g) ẍ.
    pub fn zmp(&self, state: &Vector3<f64>) -> f64 {
        (self.c() * state)[0]
    }
}

/// Weights of the preview controller's cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreviewWeights {
    /// Weight Qe of the ZMP error.
    pub error: f64,
    /// Weight R of the jerk increment.
    pub input: f64,
}

impl Default for PreviewWeights {
    /// Kajita 2003's choice: Qe = 1, Qx = 0, R = 1e-6.
    fn default() -> Self {
        PreviewWeights {
            error: 1.0,
            input: 1.0e-6,
        }
    }
}

/// The augmented system (Ã, B̃) of the servo problem.
pub fn augmented(model: &CartTable) -> (Matrix4<f64>, Vector4<f64>) {
    let (a, b, c) = (model.a(), model.b(), model.c());
    let ca = c * a;
    let mut at = Matrix4::zeros();
    at[(0, 0)] = 1.0;
    at.fixed_view_mut::<1, 3>(0, 1).copy_from(&ca);
    at.fixed_view_mut::<3, 3>(1, 1).copy_from(&a);
    let mut bt = Vector4::zeros();
    bt[0] = (c * b)[0];
    bt.fixed_rows_mut::<3>(1).copy_from(&b);
    (at, bt)
}

/// Solves the discrete algebraic Riccati equation P = Q + AᵀPA − AᵀPB (R + BᵀPB)⁻¹ BᵀPA by
/// fixed-point iteration from P = Q, stopping when ‖P₊ − P‖ ≤ 1e-13 ‖P₊‖ (Frobenius norms).
pub fn solve_dare(a: &Matrix4<f64>, b: &Vector4<f64>, q: &Matrix4<f64>, r: f64) -> Result<Matrix4<f64>, GaitError> {
    const MAX_ITERATIONS: usize = 2_000_000;
    let mut p = *q;
    for _ in 0..MAX_ITERATIONS {
        let pb = p * b;
        let s = r + (b.transpose() * pb)[0];
        let pa = p * a;
        let bt_pa = b.transpose() * pa;
        let next = q + a.transpose() * pa - (a.transpose() * pb) * bt_pa / s;
        let next = (next + next.transpose()) / 2.0;
        let change = (next - p).norm();
        p = next;
        if !p.iter().all(|v| v.is_finite()) {
            break;
        }
        if change <= 1e-13 * p.norm() {
            return Ok(p);
        }
    }
    Err(GaitError::RiccatiDiverged {
        iterations: MAX_ITERATIONS,
    })
}

/// The gains of the ZMP preview servo.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewController {
    pub model: CartTable,
    /// The DARE solution P.
    pub riccati: Matrix4<f64>,
    /// Integral gain Gi.
    pub gi: f64,
    /// State gain Gx.
    pub gx: RowVector3<f64>,
    /// Preview gains Gp(1..=N).
    pub gp: Vec<f64>,
}

impl PreviewController {
    /// Gains for a preview horizon of `preview_time` seconds (N = round(preview_time / T)).
    pub fn new(model: CartTable, weights: PreviewWeights, preview_time: f64) -> Result<Self, GaitError> {
        check_positive("preview_time", preview_time)?;
        check_positive("error weight", weights.error)?;
        check_positive("input weight", weights.input)?;
        let (at, bt) = augmented(&model);
        let mut q = Matrix4::zeros();
        q[(0, 0)] = weights.error;
        let p = solve_dare(&at, &bt, &q, weights.input)?;
        let s = weights.input + (bt.transpose() * p * bt)[0];
        let k = bt.transpose() * p * at / s;
        let gi = k[0];
        let gx = RowVector3::new(k[1], k[2], k[3]);
        let ac = at - bt * k;
        let steps = (preview_time / model.period).round().max(1.0) as usize;
        let mut gp = Vec::with_capacity(steps);
        gp.push(-gi);
        let mut x = -ac.transpose() * p * Vector4::new(1.0, 0.0, 0.0, 0.0);
        for _ in 1..steps {
            gp.push((bt.transpose() * x)[0] / s);
            x = ac.transpose() * x;
        }
        Ok(PreviewController {
            model,
            riccati: p,
            gi,
            gx,
            gp,
        })
    }

    /// Runs the servo from `initial` ([x, ẋ, ẍ], at rest before k = 0) along `reference` (p_ref at
    /// every period; held at its last value beyond the end) and returns the state at each of the
    /// reference's periods.
    pub fn track(&self, initial: Vector3<f64>, reference: &[f64]) -> Vec<Vector3<f64>> {
        let (a, b) = (self.model.a(), self.model.b());
        let last = reference.last().copied().unwrap_or(0.0);
        let p_ref = |i: usize| reference.get(i).copied().unwrap_or(last);
        let mut state = initial;
        let mut previous = initial;
        let mut u = 0.0;
        let mut states = Vec::with_capacity(reference.len());
        for k in 0..reference.len() {
            states.push(state);
            let error = self.model.zmp(&state) - p_ref(k);
            let preview: f64 = (1..=self.gp.len())
                .zip(&self.gp)
                .map(|(j, g)| g * (p_ref(k + j) - p_ref(k + j - 1)))
                .sum();
            u += -self.gi * error - (self.gx * (state - previous))[0] - preview;
            previous = state;
            state = a * state + b * u;
        }
        states
    }
}
