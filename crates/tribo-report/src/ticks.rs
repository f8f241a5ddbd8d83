//! Axis ticks: "nice" positions (1, 2 or 5 × 10ᵉ apart) and labels with just the digits needed to
//! tell neighbouring ticks apart.
//!
//! **Label rule.** Let `M` be the largest |end| of the axis and `s = m × 10ᵉ` the tick step
//! (`m` ∈ {1, 2, 5}).
//! - `1e-3 ≤ M < 1e5`: plain decimals with `max(0, −e)` digits after the point (step 2e-5 → 5
//!   digits, `0.02582`; step 2e-8 on [0.1, 0.1000001] → `0.10000002`).
//! - otherwise the axis counts in units of `10³ᵏ`, `k = ⌊log₁₀ M / 3⌋`, with `max(0, 3k − e)`
//!   digits, and says so next to the unit: an SI prefix when the unit takes one (`fm`, `µm/s`,
//!   `kN`, `MPa`), else a factor (`×1e-6 m²`, `×1e6` without a unit). [−3e-15, 2e-15] m reads
//!   `-3 … 2` in fm; [1e5, 1e6] reads `0.2 … 1.0` × 1e6 (MPa).
//!
//! Since every tick is an integer multiple of the step, these digits show each tick exactly and
//! two ticks never share a label.

/// Ticks wanted at most on an axis of a plot.
pub const X_TICKS: usize = 10;
pub const Y_TICKS: usize = 8;

/// SI prefixes from 10⁻²⁴ to 10²⁴, in steps of 10³.
const PREFIXES: [&str; 17] = [
    "y", "z", "a", "f", "p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E", "Z", "Y",
];

/// The ticks of one axis and how their labels are written.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Labelled tick positions, ascending.
    pub ticks: Vec<f64>,
    /// Unlabelled grid positions between the ticks.
    pub minor: Vec<f64>,
    /// Distance between ticks.
    pub step: f64,
    /// Labels count in units of 10^`scale` (a multiple of 3; 0 for plain numbers).
    scale: i32,
    /// Digits after the decimal point.
    decimals: usize,
}

impl Axis {
    /// Ticks for the range `[lo, hi]` (at most about `target` of them).
    pub fn new(lo: f64, hi: f64, target: usize) -> Axis {
        let (lo, hi) = if lo.is_finite() && hi.is_finite() && hi > lo {
            (lo, hi)
        } else if lo.is_finite() {
            (lo - 1.0, lo + 1.0)
        } else {
            (0.0, 1.0)
        };
        let (mantissa, exponent) = nice_step((hi - lo) / target.max(1) as f64);
        let step = mantissa * 10f64.powi(exponent);
        // Ends that are a multiple of the step up to rounding count as ticks.
        let first = (lo / step - 1e-9).ceil();
        let last = (hi / step + 1e-9).floor();
        let ticks: Vec<f64> = if last >= first && last - first <= 1000.0 {
            (0..=(last - first) as u32)
                .map(|i| zero_if_tiny((first + f64::from(i)) * step, step))
                .collect()
        } else {
            vec![lo, hi]
        };
        let minor_step = step / if mantissa == 2.0 { 4.0 } else { 5.0 };
        let minor_first = (lo / minor_step).ceil();
        let minor_last = (hi / minor_step).floor();
        let minor = if minor_last >= minor_first && minor_last - minor_first <= 5000.0 {
            (0..=(minor_last - minor_first) as u32)
                .map(|i| (minor_first + f64::from(i)) * minor_step)
                .collect()
        } else {
            Vec::new()
        };
        let largest = lo.abs().max(hi.abs());
        let scale = if largest == 0.0 || (1e-3..1e5).contains(&largest) {
            0
        } else {
            3 * (largest.log10().floor() as i32).div_euclid(3)
        };
        let decimals = (scale - exponent).clamp(0, 17) as usize;
        Axis {
            ticks,
            minor,
            step,
            scale,
            decimals,
        }
    }

    /// The label of the tick at `v`.
    pub fn label(&self, v: f64) -> String {
        let scaled = v / 10f64.powi(self.scale);
        let text = format!("{scaled:.prec$}", prec = self.decimals);
        match text.strip_prefix('-') {
            Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
            _ => text,
        }
    }

    /// The unit as the axis description shows it: `"m"`, `"µm"`, `"×1e-6 m²"`, `"×1e6"` or `""`.
    pub fn unit(&self, unit: &str) -> String {
        if self.scale == 0 {
            return unit.to_string();
        }
        let prefix = usize::try_from(self.scale / 3 + 8).ok().and_then(|i| PREFIXES.get(i));
        match prefix {
            Some(p) if takes_prefix(unit) => format!("{p}{unit}"),
            _ if unit.is_empty() => format!("×1e{}", self.scale),
            _ => format!("×1e{} {unit}", self.scale),
        }
    }
}

/// `label (unit)`, or just `label` without a unit.
pub fn describe(label: &str, unit: &str) -> String {
    if unit.is_empty() {
        label.to_string()
    } else {
        format!("{label} ({unit})")
    }
}

/// A unit an SI prefix can go in front of: not empty, no powers (`m²`: a prefix would be squared
/// too), not `%` or degrees.
fn takes_prefix(unit: &str) -> bool {
    !unit.is_empty()
        && !unit.contains(['²', '³', '^', '%', '°'])
        && unit.chars().next().is_some_and(char::is_alphabetic)
}

/// The smallest step `m × 10ᵉ` (m ∈ {1, 2, 5}) at least `raw`.
fn nice_step(raw: f64) -> (f64, i32) {
    if !(raw.is_finite() && raw > 0.0) {
        return (1.0, 0);
    }
    let mut exponent = raw.log10().floor() as i32;
    // log10 may land one decade off near powers of ten.
    if 10f64.powi(exponent) > raw {
        exponent -= 1;
    }
    for m in [1.0, 2.0, 5.0] {
        if m * 10f64.powi(exponent) >= raw * (1.0 - 1e-12) {
            return (m, exponent);
        }
    }
    (1.0, exponent + 1)
}

/// A tick that should be zero but carries rounding noise (−1e-17 from 3 × −0.1 + 0.3).
fn zero_if_tiny(v: f64, step: f64) -> f64 {
    if v.abs() < step * 1e-9 {
        0.0
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(lo: f64, hi: f64) -> Vec<String> {
        let axis = Axis::new(lo, hi, Y_TICKS);
        axis.ticks.iter().map(|&t| axis.label(t)).collect()
    }

    fn assert_distinct(lo: f64, hi: f64) -> Vec<String> {
        let l = labels(lo, hi);
        assert!(l.len() >= 2, "[{lo}, {hi}]: {l:?}");
        let mut unique = l.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), l.len(), "[{lo}, {hi}] repeats a label: {l:?}");
        l
    }

    #[test]
    fn unit_interval_reads_plainly() {
        assert_eq!(
            assert_distinct(0.0, 1.0),
            vec!["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(Axis::new(0.0, 1.0, Y_TICKS).unit("m"), "m");
    }

    #[test]
    fn a_tiny_span_far_from_zero_gets_its_digits() {
        let l = assert_distinct(0.1, 0.100_000_1);
        assert_eq!(l[0], "0.10000000");
        assert_eq!(l[1], "0.10000002");
    }

    #[test]
    fn femtometres_read_in_femtometres() {
        let axis = Axis::new(-3e-15, 2e-15, Y_TICKS);
        assert_eq!(assert_distinct(-3e-15, 2e-15), vec!["-3", "-2", "-1", "0", "1", "2"]);
        assert_eq!(axis.unit("m"), "fm");
        assert_eq!(axis.unit("m²"), "×1e-15 m²");
        assert_eq!(axis.unit(""), "×1e-15");
    }

    #[test]
    fn large_values_count_in_millions() {
        let axis = Axis::new(1e5, 1e6, Y_TICKS);
        let l = assert_distinct(1e5, 1e6);
        assert_eq!(l.first().map(String::as_str), Some("0.2"));
        assert_eq!(l.last().map(String::as_str), Some("1.0"));
        assert_eq!(axis.unit("Pa"), "MPa");
    }

    #[test]
    fn step_digits_follow_the_step() {
        // A 1.4e-4 m span at 2.5e-2 m: steps of 2e-5, five decimals.
        let l = assert_distinct(0.025_802, 0.025_946);
        assert!(l.iter().all(|t| t.len() == "0.02582".len()), "{l:?}");
        assert_distinct(-1.0, 1.0);
        assert_distinct(0.0, 3.218);
        assert_distinct(0.0, 102_912.0);
        assert_distinct(-2.0e-11, 2.3e-12);
        assert_distinct(0.0, 4.8e-5);
    }

    #[test]
    fn no_negative_zero() {
        let axis = Axis::new(-0.3, 0.3, Y_TICKS);
        assert!(axis
            .ticks
            .iter()
            .all(|&t| !axis.label(t).starts_with("-0.0") || t < 0.0));
        assert_eq!(axis.label(-1e-18), "0.0");
    }

    #[test]
    fn degenerate_ranges_still_have_ticks() {
        assert!(Axis::new(f64::NAN, 1.0, Y_TICKS).ticks.len() >= 2);
        assert!(Axis::new(2.0, 2.0, Y_TICKS).ticks.len() >= 2);
        assert!(Axis::new(0.0, 0.0, Y_TICKS).ticks.len() >= 2);
    }
}
