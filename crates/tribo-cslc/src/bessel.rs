//! Modified Bessel function of the second kind, order 0, `K0(x)` — the far field of a point load
//! on a 2-D screened-Poisson membrane (`docs/design/lattice-model.md` §6.1).
//!
//! Polynomial approximations of Abramowitz & Stegun, *Handbook of Mathematical Functions* (1964):
//! 9.8.1 for `I0` (|error| < 1.6e-7 relative), 9.8.5 for `K0` on `0 < x ≤ 2` (|error| < 1e-8),
//! 9.8.6 for `K0` on `x ≥ 2` (relative error of `√x eˣ K0` < 1.9e-7). [`ln_bessel_k0`] gives
//! `ln K0` without underflow far out (`K0(1000)` is below the smallest `f64`), as a fit of a
//! decay profile in logarithms needs (`tribo_cslc::decay`).

/// `I0(x)` for `|x| ≤ 3.75` (A&S 9.8.1).
fn bessel_i0_small(x: f64) -> f64 {
    let t2 = (x / 3.75).powi(2);
    1.0 + t2 * (3.5156229 + t2 * (3.0899424 + t2 * (1.2067492 + t2 * (0.2659732 + t2 * (0.0360768 + t2 * 0.0045813)))))
}

/// `K0(x)` for `0 < x ≤ 2` (A&S 9.8.5, t = x/2).
fn bessel_k0_small(x: f64) -> f64 {
    let t2 = (0.5 * x).powi(2);
    -(0.5 * x).ln() * bessel_i0_small(x) - 0.57721566
        + t2 * (0.42278420
            + t2 * (0.23069756 + t2 * (0.03488590 + t2 * (0.00262698 + t2 * (0.00010750 + t2 * 0.00000740)))))
}

/// `√x eˣ K0(x)` for `x ≥ 2` (A&S 9.8.6, u = 2/x).
fn scaled_bessel_k0_large(x: f64) -> f64 {
    let u = 2.0 / x;
    1.25331414
        + u * (-0.07832358
            + u * (0.02189568 + u * (-0.01062446 + u * (0.00587872 + u * (-0.00251540 + u * 0.00053208)))))
}

/// `K0(x)` for `x > 0`; `+∞` at 0 and NaN for negative or NaN input.
pub fn bessel_k0(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY;
    }
    if x <= 2.0 {
        bessel_k0_small(x)
    } else {
        scaled_bessel_k0_large(x) * (-x).exp() / x.sqrt()
    }
}

/// `ln K0(x)` for `x > 0`, in logarithms above 2 so that large `x` does not underflow; `+∞` at 0
/// and NaN for negative or NaN input.
pub fn ln_bessel_k0(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY;
    }
    if x <= 2.0 {
        bessel_k0_small(x).ln()
    } else {
        scaled_bessel_k0_large(x).ln() - x - 0.5 * x.ln()
    }
}

#[cfg(test)]
mod tests {
    use super::{bessel_k0, ln_bessel_k0};

    /// Values from A&S Table 9.8 / DLMF 10.25 (K0 to 7–8 significant digits).
    #[test]
    fn matches_tabulated_values() {
        let table = [
            (0.1, 2.427_069_0),
            (0.5, 0.924_419_1),
            (1.0, 0.421_024_4),
            (2.0, 0.113_893_9),
            (3.0, 0.034_739_50),
            (5.0, 0.003_691_098),
            (10.0, 1.778_006_2e-5),
        ];
        for (x, expected) in table {
            let got = bessel_k0(x);
            assert!(
                ((got - expected) / expected).abs() < 2e-6,
                "K0({x}) = {got}, table {expected}"
            );
        }
        assert!(bessel_k0(-1.0).is_nan());
        assert!(bessel_k0(0.0).is_infinite());
    }

    #[test]
    fn ln_k0_agrees_with_k0_and_does_not_underflow() {
        for x in [0.01, 0.1, 1.0, 1.999, 2.0, 2.001, 5.0, 50.0, 500.0] {
            let (k0, ln) = (bessel_k0(x), ln_bessel_k0(x));
            assert!((ln - k0.ln()).abs() < 1e-12, "ln K0({x}) = {ln}, ln of K0 {}", k0.ln());
        }
        // K0(1000) underflows; ln K0(1000) ≈ −1000 − ½ ln 1000 + ln √(π/2) (DLMF 10.40.2).
        assert_eq!(bessel_k0(1000.0), 0.0);
        let far = ln_bessel_k0(1000.0);
        let asymptotic = -1000.0 - 0.5 * 1000f64.ln() + (0.5 * std::f64::consts::PI).sqrt().ln();
        assert!((far - asymptotic).abs() < 1e-3, "{far} vs {asymptotic}");
        assert!(ln_bessel_k0(-1.0).is_nan());
        assert!(ln_bessel_k0(0.0).is_infinite());
    }
}
