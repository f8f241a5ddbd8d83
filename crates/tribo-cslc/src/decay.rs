//! Decay length of a lattice's deflection under a point load, fitted to the 2-D screened-Poisson
//! far field (`docs/design/lattice-model.md` §6.1). Host-agnostic: it reads rest positions,
//! deflections and normal forces, whatever computed them (the lattice tests, the runner's
//! `decay_length` metric).
//!
//! # The math
//!
//! The normal deflection `w_i` of sphere `i` of a CSLC lattice (spacing `h`, per-area anchor
//! stiffness `k_a`, lateral coupling `k_ℓ` to its four neighbours `j`) balances the load `f_i`:
//!
//! ```text
//! k_a w_i + k_ℓ Σ_j (w_i − w_j) = f_i        (per unit area)
//! ```
//!
//! With `Σ_j (w_i − w_j) ≈ −h² ∇²w` this is the screened Poisson equation
//! `(1 − ℓ² ∇²) w = f / k_a` with `ℓ = h √(k_ℓ / k_a)`, whose 2-D Green's function (a point load
//! `F` at the origin) is `w(r) = F / (2π k_a ℓ²) · K0(r/ℓ)`, far field `∝ e^{−r/ℓ} / √r`.
//! Sources: `docs/design/lattice-model.md` §3.2 and §6.1 (after the CSLC paper: the lattice is a
//! discrete screened-Poisson system whose deflection decays over ℓ = h √(k_ℓ/k_a), and a point
//! load's far field in 2-D goes like K0(r/ℓ)); the Green's function of `∇² − 1/ℓ²` in the plane is
//! `−K0(r/ℓ)/(2π)` (DLMF 10.25, Abramowitz & Stegun 9.6).
//!
//! # The fit
//!
//! The load's centre `c` is the normal-force-weighted centre of the loaded spheres (the
//! deflection peak if no sphere carries force) and the contact radius `r_c` the farthest loaded
//! sphere from it. Every sphere at least two cells outside the contact (`r ≥ r_c + 2h`, beyond the
//! lattice's discrete near field) whose deflection exceeds [`MIN_FRACTION`] of the peak is a
//! sample. A free edge of a flat lattice is a Neumann boundary half a cell beyond its last sphere,
//! so the model is `K0` of the source plus its mirror images across the four edges (and the four
//! corner images): `G(x; ℓ) = Σ_images K0(|x − s|/ℓ)`. `ln δ = ln A + ln G(x; ℓ)` is fitted by
//! least squares: `ln A` in closed form for each `ℓ`, `ℓ` by a logarithmic scan then
//! golden-section search. A best `ℓ` at either end of the scanned range (a twentieth of a cell to
//! twice the pad) is reported as not available rather than as a number.

use nalgebra::Vector2;

use crate::bessel::ln_bessel_k0;

/// Spheres deflected by less than this fraction of the peak are left out of the fit (solver
/// tolerance and round-off dominate there).
pub const MIN_FRACTION: f64 = 1e-3;

/// Samples needed for a fit.
const MIN_SAMPLES: usize = 6;

/// One sample of the fit: distances to the source and its images, and `ln δ`.
struct Sample {
    distances: [f64; 9],
    ln_deflection: f64,
}

/// `ln Σ_images K0(d/ℓ)` (log-sum-exp).
fn ln_green(distances: &[f64; 9], ell: f64) -> f64 {
    let terms = distances.map(|d| ln_bessel_k0(d / ell));
    let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    max + terms.iter().map(|t| (t - max).exp()).sum::<f64>().ln()
}

/// Sum of squared residuals of `ln δ = ln A + ln G` with the best `ln A`.
fn misfit(samples: &[Sample], ell: f64) -> f64 {
    let residuals: Vec<f64> = samples
        .iter()
        .map(|s| s.ln_deflection - ln_green(&s.distances, ell))
        .collect();
    let mean = residuals.iter().sum::<f64>() / residuals.len() as f64;
    residuals.iter().map(|r| (r - mean).powi(2)).sum()
}

/// The decay length of a flat lattice's deflection profile, m, or why there is none. `positions`
/// are the spheres' rest positions in the pad frame, `deflections` their inward deflections,
/// `forces` the normal force each carries (lattice order), `cell` the spacing.
pub fn fit_decay_length(cell: f64, positions: &[[f64; 2]], deflections: &[f64], forces: &[f64]) -> Result<f64, String> {
    let n = positions.len();
    if n == 0 || deflections.len() != n || forces.len() != n || !cell.is_finite() || cell <= 0.0 {
        return Err("the patch has no per-sphere deflections".to_string());
    }
    let at = |i: usize| Vector2::new(positions[i][0], positions[i][1]);
    let peak = (0..n)
        .filter(|&i| deflections[i].is_finite())
        .max_by(|&a, &b| deflections[a].total_cmp(&deflections[b]))
        .filter(|&i| deflections[i] > 0.0)
        .ok_or("the pad is not deflected")?;
    let loaded: Vec<usize> = (0..n).filter(|&i| forces[i] > 0.0 && forces[i].is_finite()).collect();
    let total: f64 = loaded.iter().map(|&i| forces[i]).sum();
    let centre = if total > 0.0 {
        loaded.iter().map(|&i| at(i) * forces[i]).sum::<Vector2<f64>>() / total
    } else {
        at(peak)
    };
    let contact_radius = loaded.iter().map(|&i| (at(i) - centre).norm()).fold(0.0, f64::max);
    // Free edges half a cell beyond the outermost spheres; images of the source across them.
    let (mut lo, mut hi) = (at(0), at(0));
    for i in 0..n {
        lo = lo.inf(&at(i));
        hi = hi.sup(&at(i));
    }
    lo -= Vector2::repeat(0.5 * cell);
    hi += Vector2::repeat(0.5 * cell);
    let xs = [centre.x, 2.0 * lo.x - centre.x, 2.0 * hi.x - centre.x];
    let ys = [centre.y, 2.0 * lo.y - centre.y, 2.0 * hi.y - centre.y];
    let inner = contact_radius + 2.0 * cell - 1e-9 * cell;
    let floor = MIN_FRACTION * deflections[peak];
    let samples: Vec<Sample> = (0..n)
        .filter(|&i| (at(i) - centre).norm() >= inner && deflections[i] > floor && deflections[i].is_finite())
        .map(|i| {
            let mut distances = [0.0; 9];
            for (k, d) in distances.iter_mut().enumerate() {
                *d = (at(i) - Vector2::new(xs[k % 3], ys[k / 3])).norm();
            }
            Sample {
                distances,
                ln_deflection: deflections[i].ln(),
            }
        })
        .collect();
    if samples.len() < MIN_SAMPLES {
        return Err(format!(
            "only {} spheres two cells outside the contact are deflected by more than {} of the peak \
             (at least {MIN_SAMPLES} needed)",
            samples.len(),
            MIN_FRACTION
        ));
    }
    // Logarithmic scan of ℓ from a twentieth of a cell to twice the pad, then golden section
    // between the neighbours of the best grid point.
    let (lower, upper) = (0.05 * cell, 2.0 * (hi - lo).max());
    const STEPS: usize = 200;
    let grid: Vec<f64> = (0..=STEPS)
        .map(|k| lower * (upper / lower).powf(k as f64 / STEPS as f64))
        .collect();
    let values: Vec<f64> = grid.iter().map(|&ell| misfit(&samples, ell)).collect();
    let best = (0..values.len())
        .filter(|&k| values[k].is_finite())
        .min_by(|&a, &b| values[a].total_cmp(&values[b]))
        .ok_or("the fit is undefined")?;
    if best == 0 || best == STEPS {
        return Err(format!(
            "the best decay length is at the end of the range {lower:.3e}..{upper:.3e} m searched"
        ));
    }
    let (mut a, mut b) = (grid[best - 1], grid[best + 1]);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..100 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if misfit(&samples, c) < misfit(&samples, d) {
            b = d;
        } else {
            a = c;
        }
    }
    Ok(0.5 * (a + b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 15 × 15 grid at 2 mm whose deflection is exactly the image model of decay length `ell`
    /// about `centre`: `1e-5 Σ_images K0(d/ℓ)` (distances floored at 0.3 h at the source).
    fn synthetic(ell: f64, centre: [f64; 2]) -> (Vec<[f64; 2]>, Vec<f64>, Vec<f64>) {
        let h = 0.002;
        let mut positions = Vec::new();
        for j in 0..15 {
            for i in 0..15 {
                positions.push([(i as f64 - 7.0) * h, (j as f64 - 7.0) * h]);
            }
        }
        let (lo, hi) = (-7.5 * h, 7.5 * h);
        let xs = [centre[0], 2.0 * lo - centre[0], 2.0 * hi - centre[0]];
        let ys = [centre[1], 2.0 * lo - centre[1], 2.0 * hi - centre[1]];
        let deflections = positions
            .iter()
            .map(|p| {
                let mut sum = 0.0;
                for x in xs {
                    for y in ys {
                        let d = ((p[0] - x).powi(2) + (p[1] - y).powi(2)).sqrt().max(0.3 * h);
                        sum += crate::bessel_k0(d / ell);
                    }
                }
                1e-5 * sum
            })
            .collect();
        let forces = positions
            .iter()
            .map(|p| {
                if (p[0] - centre[0]).abs() < 1e-9 && (p[1] - centre[1]).abs() < 1e-9 {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        (positions, deflections, forces)
    }

    #[test]
    fn fits_an_exact_screened_poisson_profile() {
        for (ell, centre) in [(0.002, [0.0, 0.0]), (0.004, [0.0, 0.0]), (0.006, [0.004, -0.002])] {
            let (positions, deflections, forces) = synthetic(ell, centre);
            let fitted = fit_decay_length(0.002, &positions, &deflections, &forces).expect("a fit");
            assert!((fitted - ell).abs() / ell < 1e-4, "ℓ = {ell}: fitted {fitted}");
        }
    }

    #[test]
    fn undeflected_or_empty_patches_are_reported_not_fitted() {
        let (positions, _, forces) = synthetic(0.002, [0.0, 0.0]);
        let flat = vec![0.0; positions.len()];
        assert!(fit_decay_length(0.002, &positions, &flat, &forces).is_err());
        assert!(fit_decay_length(0.002, &[], &[], &[]).is_err());
        // Only the loaded sphere deflects: nothing to fit outside the contact.
        let mut spike = vec![0.0; positions.len()];
        spike[112] = 1e-4;
        assert!(fit_decay_length(0.002, &positions, &spike, &forces).is_err());
    }
}
