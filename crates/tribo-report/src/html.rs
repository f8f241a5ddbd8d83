//! Page assembly: one HTML file with its style, data and script inline, so it works offline.
//!
//! The page reports its own health for tests and users: script errors (uncaught exceptions and
//! `console.error`) are listed in `#report-status` and in the document title.

use tribo_scene::Project;

use crate::format::{escape_html, script_json};
use crate::replay_data::replay_json;
use crate::table::metric_table;
use crate::EngineRun;

const STYLE: &str = include_str!("report.css");
const VIEWER: &str = include_str!("viewer.js");

/// Installed first: records errors so a broken page says so.
const ERROR_HOOK: &str = r#"<script>
(function () {
  var errors = [], info = '';
  function report() {
    var el = document.getElementById('report-status');
    var text = errors.length ? 'errors: ' + errors.join(' | ') : 'ok' + (info ? ' ' + info : '');
    if (el) { el.textContent = text; el.className = errors.length ? 'fail' : 'pass'; }
    if (errors.length) { document.title = 'ERROR ' + document.title; }
  }
  window.__tribo_error = function (m) { errors.push(String(m)); report(); };
  window.addEventListener('error', function (e) { window.__tribo_error(e.message + ' (' + e.lineno + ')'); });
  var original = console.error;
  console.error = function () { window.__tribo_error(Array.prototype.join.call(arguments, ' ')); original.apply(console, arguments); };
  window.__tribo_report = function (i) { if (i !== undefined) { info = i; } report(); };
})();
</script>"#;

/// A plot shown in the page: its SVG inline, and links to its files.
#[derive(Debug, Clone)]
pub struct Figure {
    pub title: String,
    pub svg: String,
    pub files: Vec<String>,
}

/// `<html>` around `body`, with the style, the error hook, the status line and then `scripts`
/// (which run once the whole document is there).
pub fn page(title: &str, body: &str, scripts: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{STYLE}</style>\n{ERROR_HOOK}\n</head>\n<body>\n{body}<p class=\"hint\">page status: <span id=\"report-status\">loading</span></p>\n{scripts}</body>\n</html>\n",
        escape_html(title)
    )
}

/// The figures with their file links.
pub fn figures_html(figures: &[Figure]) -> String {
    let mut out = String::from("<div class=\"figures\">\n");
    for f in figures {
        let links: Vec<String> = f
            .files
            .iter()
            .map(|p| format!("<a href=\"{0}\">{0}</a>", escape_html(p)))
            .collect();
        out.push_str(&format!(
            "<figure>{}<figcaption>{} — {}</figcaption></figure>\n",
            f.svg,
            escape_html(&f.title),
            links.join(" · ")
        ));
    }
    out.push_str("</div>\n");
    out
}

pub fn compare_page(project: &Project, runs: &[EngineRun], figures: &[Figure]) -> String {
    let data = replay_json(&project.scene, runs);
    let mut body = format!("<h1>{}</h1>\n", escape_html(&project.name));
    if !project.description.is_empty() {
        body.push_str(&format!(
            "<p class=\"description\">{}</p>\n",
            escape_html(project.description.trim())
        ));
    }
    body.push_str(
        "<section id=\"replay\">\n<h2>Replay</h2>\n<div class=\"controls\"><button id=\"play\">play</button>\
         <input id=\"time\" type=\"range\" min=\"0\" max=\"1000\" value=\"0\" step=\"1\">\
         <span id=\"clock\">0.000 s</span><span id=\"legend\"></span></div>\n\
         <div id=\"views\"></div>\n<p class=\"hint\">drag to orbit, wheel to zoom; arrows are contact forces on each \
         body; under an engine with compliant pads (CSLC), each pad's pressure map (its spheres at their rest positions \
         in the pad frame, x right, y up) follows the slider; the time slider is shared by all engines (start time: \
         <code>report.html#t=SECONDS</code>)</p>\n</section>\n",
    );
    body.push_str("<section id=\"metrics\">\n<h2>Metrics</h2>\n");
    body.push_str(&metric_table(runs));
    body.push_str(&crate::notes::notes_html(project, runs));
    body.push_str("</section>\n<section id=\"signals\">\n<h2>Recorded signals</h2>\n");
    if figures.is_empty() {
        body.push_str("<p>No recorded signal varies.</p>\n");
    }
    body.push_str(&figures_html(figures));
    body.push_str("</section>\n");
    let scripts = format!(
        "<script type=\"application/json\" id=\"replay-data\">{}</script>\n<script>\n{VIEWER}</script>\n",
        script_json(&data)
    );
    page(&format!("{} — tribo compare", project.name), &body, &scripts)
}
