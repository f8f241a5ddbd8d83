//! A metric's result next to its expectation.

use tribo_scene::{ExpectedValue, MetricSpec};

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum MetricValue {
    Number(f64),
    Bool(bool),
    /// No value could be measured (e.g. no bounce happened); the reason says why.
    Missing(String),
}

impl MetricValue {
    pub fn as_number(&self) -> Option<f64> {
        match self {
            MetricValue::Number(v) => Some(*v),
            _ => None,
        }
    }

    /// As shown in tables.
    pub fn display(&self) -> String {
        match self {
            MetricValue::Number(v) => format_number(*v),
            MetricValue::Bool(b) => b.to_string(),
            MetricValue::Missing(why) => format!("— ({why})"),
        }
    }
}

/// Four significant digits, without scientific notation for everyday magnitudes.
pub fn format_number(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let magnitude = v.abs().log10().floor() as i32;
    if (-4..6).contains(&magnitude) {
        let decimals = (3 - magnitude).max(0) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.3e}")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct MetricResult {
    pub name: String,
    pub unit: String,
    pub value: MetricValue,
    pub expected: Option<ExpectedValue>,
    /// The expectation's formula as written.
    pub formula: Option<String>,
    pub tolerance: Option<f64>,
}

impl MetricResult {
    pub fn new(spec: &MetricSpec, value: MetricValue) -> Self {
        MetricResult {
            name: spec.name.clone(),
            unit: spec.unit.clone(),
            value,
            expected: spec.expected.as_ref().map(|e| e.value),
            formula: spec.expected.as_ref().map(|e| e.formula.clone()),
            tolerance: spec.tolerance,
        }
    }

    /// |measured − expected| / |expected| (absolute error when expected is 0).
    pub fn relative_error(&self) -> Option<f64> {
        match (&self.value, self.expected) {
            (MetricValue::Number(m), Some(ExpectedValue::Number(e))) => Some(if e == 0.0 {
                (m - e).abs()
            } else {
                (m - e).abs() / e.abs()
            }),
            _ => None,
        }
    }

    /// Within tolerance (numbers) or equal (booleans); `None` without an expectation.
    pub fn passed(&self) -> Option<bool> {
        match (&self.value, self.expected) {
            (MetricValue::Number(m), Some(ExpectedValue::Number(e))) => self.tolerance.map(|tol| (m - e).abs() <= tol),
            (MetricValue::Bool(m), Some(ExpectedValue::Bool(e))) => Some(*m == e),
            (MetricValue::Missing(_), Some(_)) => Some(false),
            _ => None,
        }
    }
}
