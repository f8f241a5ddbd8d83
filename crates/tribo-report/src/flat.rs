//! When a recorded signal counts as constant.
//!
//! **Flatness rule.** A signal whose values span `range = max − min` is constant when
//! - `range ≤ 1e-9 × max |value|` ([`RELATIVE_FLATNESS`]): the change is at the level of a few
//!   hundred ulps of the value itself (0.05 m moving by 1e-15 m), or
//! - `range ≤ 1e-11 × scale` ([`ABSOLUTE_FLATNESS`]), where `scale` is the largest |value| any
//!   recorded signal in the same unit reaches in the report (for positions: how far from the
//!   origin the scene reaches, 0.12 m in the gentle grasp, so its floor is 1.2e-12 m). Round-off
//!   moves a quantity of size `scale` by about 2e-16 × scale per operation; accumulated over the
//!   10³–10⁵ steps of a run it stays below 1e-11 × scale, so a signal that moves less than that
//!   (a body resting at x = 0 in a scene 0.12 m across, wandering by 75 fm) shows nothing but
//!   round-off.
//!
//! Such a signal is drawn flat and labelled `constant: VALUE`: its wiggle is floating-point noise
//! (a body at rest at x = 0 drifting by 1e-15 m), which an auto-scaled axis would blow up into a
//! wild oscillation.

/// Relative flatness: range against the signal's own magnitude.
pub const RELATIVE_FLATNESS: f64 = 1e-9;
/// Absolute floor: range against the scale of the signal's unit in the report.
pub const ABSOLUTE_FLATNESS: f64 = 1e-11;

/// Does a signal with values in `[lo, hi]` count as constant, `scale` being the largest |value|
/// recorded in its unit? (Non-finite bounds never do.)
pub fn is_flat(lo: f64, hi: f64, scale: f64) -> bool {
    if !(lo.is_finite() && hi.is_finite()) {
        return false;
    }
    let range = hi - lo;
    let magnitude = lo.abs().max(hi.abs());
    range <= RELATIVE_FLATNESS * magnitude || range <= ABSOLUTE_FLATNESS * scale.abs()
}

/// The value a flat signal in `[lo, hi]` is shown at: 0 when its noise straddles zero, else the
/// middle of its range.
pub fn flat_value(lo: f64, hi: f64) -> f64 {
    if lo <= 0.0 && hi >= 0.0 {
        0.0
    } else {
        0.5 * (lo + hi)
    }
}

/// The smallest and largest finite value, if any.
pub fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.filter(|v| v.is_finite()).fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((v.min(lo), v.max(hi))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn femtometre_noise_at_five_centimetres_is_constant() {
        assert!(is_flat(0.05, 0.05 + 1e-15, 0.05));
        assert!(is_flat(0.05 - 1e-15, 0.05, 0.0));
        assert_eq!(flat_value(0.05, 0.05 + 1e-15), 0.05 + 0.5e-15);
    }

    #[test]
    fn femtometre_noise_at_zero_is_constant_against_the_scene_scale() {
        // Own magnitude 3e-15: the relative rule cannot see it, the floor (1.2e-12 m) does.
        assert!(!is_flat(-3e-15, 2e-15, 0.0));
        assert!(is_flat(-3e-15, 2e-15, 0.12));
        assert!(is_flat(-7.5e-14, 5e-14, 0.12));
        assert!(!is_flat(0.0, 1e-11, 0.12), "10 pm is above the floor");
        assert_eq!(flat_value(-3e-15, 2e-15), 0.0);
    }

    #[test]
    fn real_motion_is_not_constant() {
        assert!(!is_flat(0.0, 1e-7, 0.12), "a 0.1 µm slip");
        assert!(!is_flat(0.025, 0.075, 0.12));
        assert!(!is_flat(0.05, 0.05 + 1e-9, 0.05));
        assert!(!is_flat(f64::NAN, 1.0, 1.0));
    }

    #[test]
    fn exactly_constant_is_constant() {
        assert!(is_flat(0.0, 0.0, 0.0));
        assert!(is_flat(3.0, 3.0, 0.0));
        assert_eq!(bounds([1.0, f64::NAN, -2.0].into_iter()), Some((-2.0, 1.0)));
        assert_eq!(bounds([f64::NAN].into_iter()), None);
    }
}
