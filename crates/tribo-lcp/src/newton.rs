//! A semismooth Newton step on the natural map, for a small island of cone contacts whose
//! projected Gauss–Seidel sweeps converge slowly (`docs/design/contact-mechanics.md` §4.2.3,
//! *Newton polish*).
//!
//! PGS converges linearly; on a biped's feet while a corner slides on the rim of its friction disc
//! the rate falls to 0.9–0.99 per sweep and the subspace steps (`crate::subspace`), which hold a
//! sliding contact's λₜ, cannot land. The natural map of the module `crate::report` is
//!
//!   F(λ) = λ − Π_K(λ − w),   w = Aλ + b,
//!
//! zero exactly at a solution, and piecewise smooth: per contact, with z = λₜ − wₜ and r = μλₙ,
//!
//! - normal: Fₙ = wₙ where λₙ − wₙ > 0 (∂Fₙ/∂λ = Aₙ), else Fₙ = λₙ (∂Fₙ/∂λ = eₙ);
//! - tangent inside the disc (|z| ≤ r, sticking): Fₜ = wₜ (∂Fₜ/∂λ = Aₜ);
//! - tangent outside (sliding): Fₜ = λₜ − r ẑ with ẑ = z/|z|, and
//!   ∂Fₜ/∂λ = Eₜ − (r/|z|)(I − ẑẑᵀ)(Eₜ − Aₜ) − μ ẑ eₙᵀ
//!   (the derivative of the projection onto the disc, `docs/design/contact-mechanics.md` §4.2.1:
//!   scaled tangentially by r/|z|, radially by the radius' own derivative μ).
//!
//! Its generalised Jacobian J gives the step J Δ = −F (semismooth Newton, Qi & Sun 1993; the
//! natural-map variant of the Alart–Curnier method). A is only positive semi-definite on a face
//! contact (a foot's four corners carry six wrench components with twelve impulses), so J may
//! be singular: the step is taken in the Levenberg–Marquardt form (JᵀJ + εI)Δ = −JᵀF with ε a
//! 1e-12 of JᵀJ's mean diagonal, and backtracked (Armijo on ‖F‖², halving) along λ + tΔ projected
//! onto the feasible set. Rows whose Jacobian row is a unit row (a contact released, λ set to 0)
//! take Δ = −F and leave the system, which is solved on the others by a plain Cholesky factor.
//!
//! Newton converges quadratically once the pieces are right. Measured on 622 solves recorded from
//! the SR1 walk that reached the sweep cap of 100 (`samples/bench/sr1-walk.yaml`, BENCHMARKS.md,
//! "pgs: a Newton polish of sliding islands"): from the λ the sweeps leave at the cap, one step
//! reaches 1e-9 in 240 and two in 90 more; from the warm start, three to seven.
//!
//! A polish is taken like a subspace step: λ moves only when ‖F‖ falls, and the sweeps go on
//! from there and judge the answer by the usual residual (`crate::pgs`, *Newton polish*).
//!
//! **Steps per polish.** A polish takes steps until ‖F‖ meets the tolerance, a line search finds no
//! decrease, a step leaves ‖F‖∞ above [`NEWTON_STALL`] of what it was, or [`NEWTON_STEPS`] steps.
//! From where the sweeps crawl one step often only finds the right pieces (contacts on the rim and
//! inside it), and the sweeps after it would crawl again at 0.9–0.99 per sweep; the next steps
//! converge on those pieces. A landing three-box stack with corners on the rim and inside
//! (`tests/newton_polish.rs`, recorded from `tribo-pgs` `tests/parts.rs`): one step per polish took
//! ‖F‖ from 1.4e-3 to 1.2e-3 three times and the solve stopped at its cap of 100 sweeps with 2.1e-4
//! left; with several it converges in 6. Steps that barely move ‖F‖ are on wrong pieces (on the SR1
//! walk with the count as the only bound, 224 of 1,534 polishes ran all eight steps without
//! converging, most of them standing still): the sweeps go on instead. On the SR1 walk
//! (`samples/bench/sr1-walk.yaml`, steps 1–6700) the sweeps fell from 88.7 k to 70.8 k and the
//! solves at the cap from 913 to 778 (BENCHMARKS.md, "pgs: Newton polishes that converge").

use crate::contact::ContactProblem;
use crate::delassus::DelassusRows;
use crate::friction::{project_onto_disc, FrictionModel};

/// [`NewtonPolish::member_of`] of a contact outside the island.
const NOT_A_MEMBER: usize = usize::MAX;

/// The line search's sufficient decrease: ‖F(λ + tΔ)‖² ≤ (1 − ARMIJO t) ‖F(λ)‖².
const ARMIJO: f64 = 1e-4;

/// Newton steps per polish at most (module docs, *Steps per polish*).
const NEWTON_STEPS: usize = 8;

/// A polish stops once a step leaves ‖F‖∞ above this fraction of what it was: the pieces are
/// not yet right, and the sweeps are cheaper than more steps on them (module docs, *Steps per
/// polish*).
const NEWTON_STALL: f64 = 0.95;

/// Halvings of the step per line search.
const LINE_SEARCH_HALVINGS: usize = 20;

/// The Levenberg–Marquardt damping, relative to JᵀJ's mean diagonal.
const DAMPING: f64 = 1e-12;

/// Working storage of the Newton polish, kept between solves. Matrices are n × n row-major.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewtonPolish {
    /// 3 × the island's contacts.
    n: usize,
    /// A restricted to the island.
    a: Vec<f64>,
    /// w − Aλ on the island: b and whatever λ outside the island adds (constant during a polish).
    offset: Vec<f64>,
    /// μ of each contact of the island.
    mu: Vec<f64>,
    /// Each contact's position in the island ([`NOT_A_MEMBER`] for the others), while assembling.
    member_of: Vec<usize>,
    /// λ on the island: the iterate, the trial point, the start of a line search.
    lam: Vec<f64>,
    trial: Vec<f64>,
    start: Vec<f64>,
    /// w = Aλ + b and F on the island.
    w: Vec<f64>,
    f: Vec<f64>,
    /// The generalised Jacobian of F.
    jacobian: Vec<f64>,
    /// Rows whose Jacobian row is the unit row (λ held at 0 or released): Δ = −F there.
    trivial: Vec<bool>,
    /// The other rows, and the Newton system on them.
    free: Vec<usize>,
    reduced: Vec<f64>,
    normal: Vec<f64>,
    rhs: Vec<f64>,
    step: Vec<f64>,
}

impl NewtonPolish {
    /// Can the island be polished? Cone contacts whose three rows all act.
    pub(crate) fn applies<D: DelassusRows>(
        problem: &ContactProblem<D>,
        island: &[usize],
        inverse_diagonal: &[f64],
    ) -> bool {
        island.iter().all(|&c| {
            problem.contacts.get(c).is_some_and(|f| f.model == FrictionModel::Cone)
                && inverse_diagonal
                    .get(3 * c..3 * c + 3)
                    .is_some_and(|inv| inv.iter().all(|&x| x != 0.0))
        })
    }

    /// Newton steps from the island's λ (module docs, *Steps per polish*): λ (and the operator's
    /// velocity state) take the result when the first lowers ‖F‖, and its residual ‖F‖∞ is
    /// returned; `None` (nothing changed) otherwise.
    pub(crate) fn polish<D: DelassusRows>(
        &mut self,
        problem: &ContactProblem<D>,
        lambda: &mut [f64],
        velocity: &mut [f64],
        island: &[usize],
        tolerance: f64,
    ) -> Option<f64> {
        self.assemble(problem, lambda, velocity, island)?;
        let entry = self.evaluate(true);
        if entry <= tolerance || !entry.is_finite() || !self.newton_direction() {
            return None;
        }
        let mut residual = self.line_search()?;
        // Further steps while they land: once the pieces are right Newton converges
        // quadratically, and the sweeps after a single step would take tens of sweeps at
        // 0.9–0.99 per sweep for what one more step does (module docs, *Steps per polish*).
        for _ in 1..NEWTON_STEPS {
            if residual <= tolerance {
                break;
            }
            self.evaluate(true);
            if !self.newton_direction() {
                break;
            }
            let last = residual;
            match self.line_search() {
                Some(r) => residual = r,
                None => break,
            }
            if residual > NEWTON_STALL * last {
                break;
            }
        }
        for (i, &c) in island.iter().enumerate() {
            let mut delta = [0.0; 3];
            for (r, d) in delta.iter_mut().enumerate() {
                let slot = lambda.get_mut(3 * c + r)?;
                *d = self.lam[3 * i + r] - *slot;
                *slot = self.lam[3 * i + r];
            }
            problem.delassus.add_impulse(c, delta, velocity);
        }
        Some(residual)
    }

    /// A_II, μ, λ_I and the offset w_I − A_II λ_I of the island, sized to it.
    fn assemble<D: DelassusRows>(
        &mut self,
        problem: &ContactProblem<D>,
        lambda: &[f64],
        velocity: &[f64],
        island: &[usize],
    ) -> Option<()> {
        let a = &problem.delassus;
        let b = problem.free_velocity.as_slice();
        let n = 3 * island.len();
        self.n = n;
        for v in [&mut self.a, &mut self.jacobian] {
            v.clear();
            v.resize(n * n, 0.0);
        }
        for v in [
            &mut self.offset,
            &mut self.lam,
            &mut self.w,
            &mut self.f,
            &mut self.step,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.mu.clear();
        self.member_of.clear();
        self.member_of.resize(problem.contacts.len(), NOT_A_MEMBER);
        for (i, &c) in island.iter().enumerate() {
            *self.member_of.get_mut(c)? = i;
        }
        for (i, &ci) in island.iter().enumerate() {
            self.mu.push(problem.contacts.get(ci)?.mu);
            // Block row i of A_II, by one walk over the operator's row (parts of one block sum).
            let (matrix, member_of) = (&mut self.a, &self.member_of);
            a.visit_block_row(ci, &mut |cj, part| {
                if let Some(&j) = member_of.get(cj).filter(|&&j| j != NOT_A_MEMBER) {
                    for r in 0..3 {
                        for q in 0..3 {
                            matrix[(3 * i + r) * n + 3 * j + q] += part[(r, q)];
                        }
                    }
                }
            });
            let w = a.block_row_dot_with(ci, lambda, velocity);
            for (r, w_r) in w.iter().enumerate() {
                self.lam[3 * i + r] = *lambda.get(3 * ci + r)?;
                self.offset[3 * i + r] = w_r + b.get(3 * ci + r)?;
            }
        }
        // offset = w − A_II λ_I.
        for r in 0..n {
            let row = &self.a[r * n..(r + 1) * n];
            self.offset[r] -= dot(row, &self.lam);
        }
        Some(())
    }

    /// Backtracks along the Newton step (Armijo on ‖F‖², halving t from 1) with each trial point
    /// projected onto the feasible set; leaves λ at the accepted point and returns its residual,
    /// or `None` when no t lowers ‖F‖ enough.
    fn line_search(&mut self) -> Option<f64> {
        let merit = dot(&self.f, &self.f);
        self.start.clone_from(&self.lam);
        let mut t = 1.0;
        for _ in 0..LINE_SEARCH_HALVINGS {
            self.trial.clone_from(&self.start);
            for (x, d) in self.trial.iter_mut().zip(&self.step) {
                *x += t * d;
            }
            self.project_trial();
            std::mem::swap(&mut self.lam, &mut self.trial);
            let residual = self.evaluate(false);
            if dot(&self.f, &self.f) <= (1.0 - ARMIJO * t) * merit {
                return Some(residual);
            }
            std::mem::swap(&mut self.lam, &mut self.trial);
            t *= 0.5;
        }
        None
    }

    /// The Newton direction into `step`: Δ = −F on the trivial rows; on the free rows R the
    /// Levenberg–Marquardt system (J_RRᵀJ_RR + εI) Δ_R = J_RRᵀ(−F_R − J_RT Δ_T). False when the
    /// system cannot be factored.
    fn newton_direction(&mut self) -> bool {
        let n = self.n;
        self.free.clear();
        for r in 0..n {
            if self.trivial[r] {
                self.step[r] = -self.f[r];
            } else {
                self.free.push(r);
            }
        }
        let k = self.free.len();
        self.reduced.clear();
        self.reduced.resize(k * k, 0.0);
        self.rhs.clear();
        self.rhs.resize(k, 0.0);
        // g = −F_R − J_RT Δ_T (kept in `step` on the free rows while the system is built).
        for (ri, &r) in self.free.iter().enumerate() {
            let row = &self.jacobian[r * n..(r + 1) * n];
            let mut g = -self.f[r];
            for ((&j_rc, &trivial), &step_c) in row.iter().zip(&self.trivial).zip(&self.step) {
                if trivial {
                    g -= j_rc * step_c;
                }
            }
            for (ci, &c) in self.free.iter().enumerate() {
                self.reduced[ri * k + ci] = row[c];
            }
            self.step[r] = g;
        }
        // rhs = J_RRᵀ g; normal = J_RRᵀ J_RR (lower triangle), by rows of J_RR.
        self.normal.clear();
        self.normal.resize(k * k, 0.0);
        for ri in 0..k {
            let row = &self.reduced[ri * k..(ri + 1) * k];
            let g = self.step[self.free[ri]];
            for (i, &x) in row.iter().enumerate() {
                self.rhs[i] += x * g;
                if x != 0.0 {
                    let target = &mut self.normal[i * k..i * k + i + 1];
                    for (t, &y) in target.iter_mut().zip(&row[..=i]) {
                        *t += x * y;
                    }
                }
            }
        }
        let mean_diagonal = (0..k).map(|i| self.normal[i * k + i]).sum::<f64>() / k.max(1) as f64;
        if mean_diagonal.is_nan() || mean_diagonal <= 0.0 {
            return false;
        }
        for i in 0..k {
            self.normal[i * k + i] += DAMPING * mean_diagonal;
        }
        if !cholesky_in_place(&mut self.normal, k) {
            return false;
        }
        cholesky_solve(&self.normal, k, &mut self.rhs);
        for (ri, &r) in self.free.iter().enumerate() {
            self.step[r] = self.rhs[ri];
        }
        true
    }

    /// The trial point onto the feasible set: λₙ ≥ 0, |λₜ| ≤ μλₙ.
    fn project_trial(&mut self) {
        for (i, &mu) in self.mu.iter().enumerate() {
            let k = 3 * i;
            let ln = self.trial[k].max(0.0);
            let t = project_onto_disc([self.trial[k + 1], self.trial[k + 2]], mu * ln);
            (self.trial[k], self.trial[k + 1], self.trial[k + 2]) = (ln, t[0], t[1]);
        }
    }

    /// F at the current λ (and, with `jacobian`, its generalised Jacobian and trivial rows);
    /// returns ‖F‖∞, the residual of `crate::report` for cone contacts.
    fn evaluate(&mut self, jacobian: bool) -> f64 {
        let n = self.n;
        for r in 0..n {
            self.w[r] = self.offset[r] + dot(&self.a[r * n..(r + 1) * n], &self.lam);
        }
        if jacobian {
            self.trivial.clear();
            self.trivial.resize(n, false);
        }
        let mut residual = 0.0_f64;
        for i in 0..self.mu.len() {
            let (k, mu) = (3 * i, self.mu[i]);
            let (ln, wn) = (self.lam[k], self.w[k]);
            if ln - wn > 0.0 {
                self.f[k] = wn;
                if jacobian {
                    self.copy_a_row(k);
                }
            } else {
                self.f[k] = ln;
                if jacobian {
                    self.unit_row(k);
                }
            }
            let r = mu * ln.max(0.0);
            let (lt, wt) = ([self.lam[k + 1], self.lam[k + 2]], [self.w[k + 1], self.w[k + 2]]);
            let z = [lt[0] - wt[0], lt[1] - wt[1]];
            let length = (z[0] * z[0] + z[1] * z[1]).sqrt();
            if length <= r {
                (self.f[k + 1], self.f[k + 2]) = (wt[0], wt[1]);
                if jacobian {
                    self.copy_a_row(k + 1);
                    self.copy_a_row(k + 2);
                }
            } else {
                let unit = [z[0] / length, z[1] / length];
                (self.f[k + 1], self.f[k + 2]) = (lt[0] - r * unit[0], lt[1] - r * unit[1]);
                if jacobian {
                    if r == 0.0 {
                        self.unit_row(k + 1);
                        self.unit_row(k + 2);
                    } else {
                        self.sliding_rows(k, mu, r / length, unit, ln > 0.0);
                    }
                }
            }
            for q in 0..3 {
                residual = residual.max(self.f[k + q].abs());
            }
            if self.f[k..k + 3].iter().any(|v| v.is_nan()) {
                residual = f64::INFINITY;
            }
        }
        residual
    }

    fn copy_a_row(&mut self, r: usize) {
        let n = self.n;
        self.jacobian[r * n..(r + 1) * n].copy_from_slice(&self.a[r * n..(r + 1) * n]);
    }

    fn unit_row(&mut self, r: usize) {
        let n = self.n;
        let row = &mut self.jacobian[r * n..(r + 1) * n];
        row.fill(0.0);
        row[r] = 1.0;
        self.trivial[r] = true;
    }

    /// Rows k+1, k+2 of a sliding contact: Eₜ − P (Eₜ − Aₜ) − μ ẑ eₙᵀ, P = s (I − ẑẑᵀ).
    fn sliding_rows(&mut self, k: usize, mu: f64, s: f64, unit: [f64; 2], loaded: bool) {
        let n = self.n;
        let p = [
            [s * (1.0 - unit[0] * unit[0]), -s * unit[0] * unit[1]],
            [-s * unit[1] * unit[0], s * (1.0 - unit[1] * unit[1])],
        ];
        for (m, p_row) in p.iter().enumerate() {
            let r = k + 1 + m;
            for c in 0..n {
                // P (Eₜ − Aₜ) = −P Aₜ off the tangent columns.
                self.jacobian[r * n + c] = p_row[0] * self.a[(k + 1) * n + c] + p_row[1] * self.a[(k + 2) * n + c];
            }
            // Eₜ − P Eₜ on the tangent columns.
            self.jacobian[r * n + k + 1 + m] += 1.0;
            self.jacobian[r * n + k + 1] -= p_row[0];
            self.jacobian[r * n + k + 2] -= p_row[1];
            if loaded {
                self.jacobian[r * n + k] -= mu * unit[m];
            }
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The lower Cholesky factor of the k × k row-major matrix in place (lower triangle read and
/// written); false when a pivot is not positive.
fn cholesky_in_place(m: &mut [f64], k: usize) -> bool {
    for j in 0..k {
        let mut d = m[j * k + j];
        for p in 0..j {
            d -= m[j * k + p] * m[j * k + p];
        }
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        let d = d.sqrt();
        m[j * k + j] = d;
        for i in j + 1..k {
            let mut x = m[i * k + j];
            for p in 0..j {
                x -= m[i * k + p] * m[j * k + p];
            }
            m[i * k + j] = x / d;
        }
    }
    true
}

/// x ← (L Lᵀ)⁻¹ x with L from [`cholesky_in_place`].
fn cholesky_solve(l: &[f64], k: usize, x: &mut [f64]) {
    for i in 0..k {
        let mut v = x[i];
        for p in 0..i {
            v -= l[i * k + p] * x[p];
        }
        x[i] = v / l[i * k + i];
    }
    for i in (0..k).rev() {
        let mut v = x[i];
        for p in i + 1..k {
            v -= l[p * k + i] * x[p];
        }
        x[i] = v / l[i * k + i];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-contact island: A = B Bᵀ + 0.1 I (symmetric positive definite, coupled), μ 0.5 and 0.8.
    fn island(lam: [f64; 6]) -> NewtonPolish {
        let b_rows = [
            [1.0, 0.2, -0.3, 0.1, 0.0, 0.4],
            [0.3, 0.9, 0.1, -0.2, 0.5, 0.0],
            [-0.1, 0.2, 1.1, 0.3, 0.1, -0.2],
            [0.2, 0.0, 0.4, 0.8, -0.3, 0.1],
            [0.0, 0.6, -0.2, 0.1, 1.2, 0.3],
            [0.5, -0.1, 0.0, 0.2, 0.3, 0.7],
        ];
        let mut a = vec![0.0; 36];
        for i in 0..6 {
            for j in 0..6 {
                a[i * 6 + j] =
                    (0..6).map(|k| b_rows[i][k] * b_rows[j][k]).sum::<f64>() + if i == j { 0.1 } else { 0.0 };
            }
        }
        NewtonPolish {
            n: 6,
            a,
            offset: vec![-2.0, 0.7, -0.4, -1.5, -0.6551, -1.3146],
            mu: vec![0.5, 0.8],
            lam: lam.to_vec(),
            w: vec![0.0; 6],
            f: vec![0.0; 6],
            jacobian: vec![0.0; 36],
            ..NewtonPolish::default()
        }
    }

    fn natural_map(lam: [f64; 6]) -> Vec<f64> {
        let mut p = island(lam);
        p.evaluate(false);
        p.f
    }

    /// The generalised Jacobian of `evaluate` is the derivative of F where F is smooth: central
    /// differences (h = 1e-6) agree to 1e-7 in every column, with contact 0 loaded and sliding
    /// and contact 1 loaded and sticking (the branches asserted first).
    #[test]
    fn jacobian_matches_central_differences_on_sliding_and_sticking_contacts() {
        let lam = [1.2, 0.45, -0.25, 0.9, 0.05, 0.02];
        let mut p = island(lam);
        p.evaluate(true);
        for (c, sliding) in [(0, true), (1, false)] {
            let k = 3 * c;
            assert!(p.lam[k] - p.w[k] > 0.0, "contact {c} loaded: λₙ − wₙ > 0");
            let z = [p.lam[k + 1] - p.w[k + 1], p.lam[k + 2] - p.w[k + 2]];
            let outside = (z[0] * z[0] + z[1] * z[1]).sqrt() > p.mu[c] * p.lam[k];
            assert_eq!(outside, sliding, "contact {c}: z = {z:?}");
        }
        assert!(p.trivial.iter().all(|&t| !t));
        let h = 1e-6;
        for col in 0..6 {
            let (mut up, mut down) = (lam, lam);
            up[col] += h;
            down[col] -= h;
            let (fu, fd) = (natural_map(up), natural_map(down));
            for row in 0..6 {
                let numeric = (fu[row] - fd[row]) / (2.0 * h);
                let analytic = p.jacobian[row * 6 + col];
                assert!(
                    (numeric - analytic).abs() <= 1e-7,
                    "∂F{row}/∂λ{col}: analytic {analytic}, central difference {numeric}"
                );
            }
        }
    }

    /// A released contact (λₙ − wₙ ≤ 0 at λₙ = 0) has unit rows, marked trivial: its Newton step is −F.
    #[test]
    fn a_released_contact_has_unit_rows() {
        let mut p = island([1.2, 0.45, -0.25, 0.0, 0.0, 0.0]);
        p.offset[3] = 5.0;
        p.evaluate(true);
        assert!(p.lam[3] - p.w[3] <= 0.0);
        for row in 3..6 {
            assert!(p.trivial[row]);
            for col in 0..6 {
                assert_eq!(p.jacobian[row * 6 + col], if row == col { 1.0 } else { 0.0 });
            }
        }
        assert!(!p.trivial[0] && !p.trivial[1] && !p.trivial[2]);
    }

    /// The factor and its solve invert a symmetric positive definite matrix.
    #[test]
    fn cholesky_solves_a_symmetric_positive_definite_system() {
        let m = [4.0, 1.0, 0.5, 1.0, 3.0, -0.2, 0.5, -0.2, 2.0];
        let x_true = [1.0, -2.0, 0.5];
        let mut rhs: Vec<f64> = (0..3).map(|i| (0..3).map(|j| m[i * 3 + j] * x_true[j]).sum()).collect();
        let mut l = m.to_vec();
        assert!(cholesky_in_place(&mut l, 3));
        cholesky_solve(&l, 3, &mut rhs);
        for (x, t) in rhs.iter().zip(x_true) {
            assert!((x - t).abs() <= 1e-14, "{x} vs {t}");
        }
        let mut indefinite = vec![1.0, 2.0, 2.0, 1.0];
        assert!(!cholesky_in_place(&mut indefinite, 2));
    }
}
