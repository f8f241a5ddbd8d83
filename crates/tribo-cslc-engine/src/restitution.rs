//! Normal damping of a pad patch from the pair's coefficient of restitution `e`.
//!
//! **Law.** The patch is a linear spring–dashpot along its normal: stiffness `k`, dashpot `c`,
//! acting on the reduced mass `m*` of the two links at the patch (`inertia.rs`). A linear
//! spring–dashpot that meets the surface at speed `v₀` leaves it after half a damped period at
//! `e v₀`, `e = exp(−ζ π / √(1 − ζ²))`, `ζ = c / (2 √(k m*))`, hence
//!
//! `ζ(e) = −ln e / √(π² + ln² e)`,   `c = 2 ζ √(k m*)`
//!
//! (the damped harmonic oscillator, e.g. Schäfer, Dippel & Wolf, "Force schemes in simulations
//! of granular materials", J. Phys. I France 6 (1996), §3.1; Tsuji, Tanaka & Ishida, Powder
//! Technol. 71 (1992), eq. 8). `e = 0` gives critical damping `ζ = 1` (no rebound), `e = 1` none.
//! The patch's regions share `c` in proportion to their series stiffness `k_R`.
//!
//! **The patch stiffness** `k` is the energy-equivalent one, `k = F² / (2 E)`: the stiffness of
//! the linear spring that stores the patch's elastic energy `E` under its total normal force `F`.
//! The lattice is linear (anchors and lateral springs) and loaded only at the touching spheres,
//! so by Clapeyron's theorem it stores `½ Σ f_i w_i` (`w_i` the inward deflection); each Hertz
//! contact stores `∫ f dφ = (2/5) f_i φ_i`. So `E = Σ (½ f_i w_i + (2/5) f_i φ_i)`. This counts
//! the lateral membrane, which can stiffen a point load tenfold over its anchor alone (the
//! regions' series stiffness `Σ (K_a⁻¹ + H⁻¹)⁻¹` leaves it out); for a pure Hertz contact it is
//! 1.25 × the secant `F/φ` (between secant and tangent).
//!
//! **Why linear, not Hunt–Crossley.** The lattice is Hertz (`k_c φ^{3/2}`) in series with linear
//! anchors and the lateral membrane; at the skin's deflections the anchors dominate the series
//! stiffness, so the patch is close to linear, and the linear law gives a restitution that does
//! not depend on the impact speed (Hunt & Crossley's `c = (3/2) α k δ^{3/2}` gives
//! `e ≈ 1 − α v₀`, a speed-dependent `e` that needs the impact speed of every contact).
//!
//! **The host's step is a dashpot too.** The host integrates each compliant point as
//! `f⁺ = f − (k̃ h + c) v⁺` (`tribo-pgs` `compliant.rs`) with positions advanced by `v⁺`:
//! symplectic Euler with the spring `f(x)` plus a dashpot `k̃ h + c`, `k̃` the implicit
//! stiffness. Its area contraction per step is `1 / (1 + (k̃ h + c) h / m*)`, exactly the
//! damped-oscillator one, so the dashpot the restitution asks for is the *sum* `k̃ h + c`:
//! With the regions' series stiffnesses `k_R` (what the coupling hands the host, `K = Σ k_R`),
//! the wanted patch dashpot `C = 2 ζ √(k m*)` and `ω = √(k / m*)`:
//! - `C ≥ K h`: `k̃_R = k_R` and the extra dashpot `c_R = (C − K h) k_R / K`;
//! - `C < K h` and the contact resolved, `ω h ≤ 1`: `k̃_R = k_R C / (K h)`, `c_R = 0`. Symplectic
//!   Euler is stable for any dashpot ≥ 0 while `ω h ≤ 2` (with `a = ω² h²`, `b = (k̃ h + c) h / m*`
//!   the step matrix has `det = 1/(1+b)`, `tr = (2 + b − a)/(1 + b)`: stable iff `a ≤ 4 + 2b`);
//!   the bound 1 leaves room for a tangent stiffness above `k`;
//! - otherwise (a stiff skin unresolved at the host's step) `k̃_R = k_R`, `c_R = 0`: the implicit
//!   step keeps it stable and its own dissipation `K h > C` exceeds the restitution's, so such a
//!   bounce is more damped than `e` asks.

/// Damping ratio `ζ(e) = −ln e / √(π² + ln² e)` of a linear spring–dashpot with coefficient of
/// restitution `e` (module docs); `e ≤ 0` is critical damping (1), `e ≥ 1` none (0).
pub fn damping_ratio(e: f64) -> f64 {
    if e.is_nan() || e <= 0.0 {
        return 1.0;
    }
    if e >= 1.0 {
        return 0.0;
    }
    let l = e.ln();
    -l / (std::f64::consts::PI * std::f64::consts::PI + l * l).sqrt()
}

/// Lowest implicit stiffness handed to a host, as a fraction of the contact stiffness (a host
/// needs `k̃ h + c > 0`).
const MIN_IMPLICIT_FRACTION: f64 = 1e-6;

/// `ω h` up to which the contact counts as resolved by the host's step. Symplectic Euler is
/// stable for any dashpot while `ω h ≤ 2`; the margin covers a tangent stiffness above the
/// energy-equivalent one (up to 1.5 × for Hertz, 2 × for a sphere on a Winkler bed: `√2 ω h`).
const RESOLVED_OMEGA_DT: f64 = 1.0;

/// Whether the host's explicit spring (symplectic Euler) is stable for a contact whose tangent
/// stiffness is at most `stiffness_bound` on the reduced mass `reduced_mass` at the step `dt`:
/// `ω h ≤ 2` (module docs). An immovable pair (infinite mass) is.
pub fn explicitly_stable(stiffness_bound: f64, reduced_mass: f64, dt: f64) -> bool {
    if reduced_mass == f64::INFINITY {
        return true;
    }
    reduced_mass > 0.0 && (stiffness_bound / reduced_mass).sqrt() * dt <= 2.0
}

/// The energy-equivalent stiffness of a patch carrying the total normal force `force` with
/// elastic energy `energy`: `k = F² / (2 E)` (module docs), N/m; 0 without load.
pub fn equivalent_stiffness(force: f64, energy: f64) -> f64 {
    if force > 0.0 && energy > 0.0 {
        force * force / (2.0 * energy)
    } else {
        0.0
    }
}

/// One region of a patch as the host receives it (module docs).
#[derive(Debug, Clone, Copy)]
pub struct Split {
    /// Implicit normal stiffness `k̃_R`, N/m.
    pub implicit: f64,
    /// Extra normal dashpot `c_R`, N·s/m.
    pub dashpot: f64,
}

/// How a region of series stiffness `region` in a patch of summed region stiffness `regions` and
/// energy-equivalent stiffness `patch` meets the host (module docs).
///
/// `zeta` is the damping ratio, `reduced_mass` the reduced mass `m*` of the two links at the
/// region (kg; infinite when neither link can move), `dt` the host's step.
pub fn normal_split(region: f64, regions: f64, patch: f64, zeta: f64, reduced_mass: f64, dt: f64) -> Split {
    let unchanged = Split {
        implicit: region,
        dashpot: 0.0,
    };
    let valid = |x: f64| x > 0.0 && x.is_finite();
    if !(valid(region) && valid(regions) && valid(patch) && valid(reduced_mass) && valid(dt)) {
        return unchanged;
    }
    let share = region / regions;
    let omega = (patch / reduced_mass).sqrt();
    // The patch's dashpot 2 ζ √(k m*), this region's share.
    let wanted = 2.0 * zeta.clamp(0.0, 1.0) * (patch * reduced_mass).sqrt() * share;
    let host = region * dt;
    if wanted >= host {
        Split {
            implicit: region,
            dashpot: wanted - host,
        }
    } else if omega * dt <= RESOLVED_OMEGA_DT {
        Split {
            implicit: (wanted / dt).max(MIN_IMPLICIT_FRACTION * region),
            dashpot: 0.0,
        }
    } else {
        unchanged
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ζ(e) inverts e(ζ) = exp(−ζπ/√(1−ζ²)).
    #[test]
    fn damping_ratio_inverts_the_oscillator_restitution() {
        for e in [0.01, 0.1, 0.5, 0.8, 0.99] {
            let z = damping_ratio(e);
            let back = (-z * std::f64::consts::PI / (1.0 - z * z).sqrt()).exp();
            assert!((back - e).abs() < 1e-12, "e {e}: ζ {z} gives {back}");
        }
        assert_eq!(damping_ratio(0.0), 1.0);
        assert_eq!(damping_ratio(1.0), 0.0);
        assert_eq!(damping_ratio(f64::NAN), 1.0);
    }

    /// The host's dashpot plus the extra one is 2 ζ √(k m*) while the contact is resolved.
    #[test]
    fn split_sums_to_the_wanted_dashpot() {
        let (k, m, h): (f64, f64, f64) = (1.0e3, 0.05, 1e-3);
        for zeta in [0.0, 0.07, 0.2, 1.0] {
            let wanted = 2.0 * zeta * (k * m).sqrt();
            let mut total = 0.0;
            for (region, regions) in [(0.25 * k, k), (0.75 * k, k)] {
                let s = normal_split(region, regions, k, zeta, m, h);
                assert!(s.implicit > 0.0 && s.implicit <= region && s.dashpot >= 0.0);
                total += s.implicit * h + s.dashpot;
            }
            assert!((total - wanted).abs() <= 1e-6 * k * h, "ζ {zeta}: {total} vs {wanted}");
        }
        // Unresolved (ω h = 44.7): full implicit stiffness, no negative dashpot.
        let s = normal_split(1.0e8, 1.0e8, 1.0e8, 0.1, 0.05, 1e-3);
        assert_eq!((s.implicit, s.dashpot), (1.0e8, 0.0));
        // Immovable links: the spring as it was.
        let s = normal_split(5.0, 5.0, 5.0, 1.0, f64::INFINITY, 1e-3);
        assert_eq!((s.implicit, s.dashpot), (5.0, 0.0));
    }

    /// Clapeyron: a linear spring loaded to F stores F²/2k, so k comes back.
    #[test]
    fn equivalent_stiffness_of_a_linear_spring() {
        let (k, f) = (2500.0, 3.0);
        assert!((equivalent_stiffness(f, f * f / (2.0 * k)) - k).abs() < 1e-9);
        assert_eq!(equivalent_stiffness(0.0, 1.0), 0.0);
    }
}
