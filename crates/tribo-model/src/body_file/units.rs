//! Angle units of a `.body` file (docs/design/choreonoid-formats.md §2.2).

/// `angle_unit`/`angleUnit`: degree (the default in every version) or radian (format < 2.0 only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AngleUnit {
    Degree,
    Radian,
}

impl AngleUnit {
    /// An angle written in this unit, in radians.
    pub fn to_radians(self, value: f64) -> f64 {
        match self {
            AngleUnit::Degree => value.to_radians(),
            AngleUnit::Radian => value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degrees_convert_and_radians_pass_through() {
        assert!((AngleUnit::Degree.to_radians(180.0) - std::f64::consts::PI).abs() < 1e-15);
        assert!((AngleUnit::Degree.to_radians(-90.0) + std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        assert_eq!(AngleUnit::Radian.to_radians(1.25), 1.25);
    }
}
