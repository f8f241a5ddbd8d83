//! The metric table as HTML: metric rows against engine columns, the expected value, the error
//! (marked ok or FAIL against the metric's tolerance) and steps per second.

use tribo_runner::metrics::format_number;
use tribo_runner::{MetricResult, RunOutcome};
use tribo_scene::ExpectedValue;

use crate::format::escape_html;
use crate::EngineRun;

pub fn expected_text(m: &MetricResult) -> String {
    match m.expected {
        Some(ExpectedValue::Number(v)) => format_number(v),
        Some(ExpectedValue::Bool(b)) => b.to_string(),
        None => String::new(),
    }
}

/// "0.32%" (or the absolute error when 0 is expected); empty without an expectation.
pub fn error_text(m: &MetricResult) -> String {
    match m.relative_error() {
        Some(e) if m.expected == Some(ExpectedValue::Number(0.0)) => format!("{} abs", format_number(e)),
        Some(e) => format!("{:.2}%", e * 100.0),
        None => String::new(),
    }
}

/// One cell: measured value, error, and a pass/fail class.
pub fn metric_cell(m: Option<&MetricResult>) -> String {
    let Some(m) = m else {
        return "<td></td>".to_string();
    };
    let (class, verdict) = match m.passed() {
        Some(true) => (" class=\"pass\"", " ok"),
        Some(false) => (" class=\"fail\"", " FAIL"),
        None => ("", ""),
    };
    let err = error_text(m);
    let detail = if err.is_empty() && verdict.is_empty() {
        String::new()
    } else {
        format!(" <small>({}{verdict})</small>", escape_html(&err)).replace("( ", "(")
    };
    format!("<td{class}>{}{detail}</td>", escape_html(&m.value.display()))
}

/// `<table>` of every metric of the first run's metric list (all runs share the project's list).
pub fn metric_table(runs: &[EngineRun]) -> String {
    let outcomes: Vec<&RunOutcome> = runs.iter().map(|r| r.outcome).collect();
    let mut out = String::from("<table class=\"metrics\">\n<thead><tr><th>metric</th><th>unit</th><th>expected</th>");
    for o in &outcomes {
        out.push_str(&format!("<th>{}</th>", escape_html(&o.engine)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let names: Vec<&MetricResult> = outcomes.first().map(|o| o.metrics.iter().collect()).unwrap_or_default();
    for (i, first) in names.iter().enumerate() {
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td>",
            escape_html(&first.name),
            escape_html(&first.unit),
            escape_html(&expected_text(first))
        ));
        for o in &outcomes {
            out.push_str(&metric_cell(o.metrics.get(i)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr class=\"speed\"><td>steps/s</td><td></td><td></td>");
    for o in &outcomes {
        out.push_str(&format!("<td>{:.0}</td>", o.steps_per_second()));
    }
    out.push_str("</tr>\n</tbody>\n</table>\n");
    for run in runs {
        let o = run.outcome;
        for w in &o.warnings {
            out.push_str(&format!(
                "<p class=\"warning\">warning ({}): {}</p>\n",
                escape_html(&o.engine),
                escape_html(w)
            ));
        }
        if let Some(f) = run.failure {
            out.push_str(&format!(
                "<p class=\"fail\">FAILED ({}): {}</p>\n",
                escape_html(&run.outcome.engine),
                escape_html(&f.to_string())
            ));
        }
    }
    out
}
