//! Facts about a comparison that are expected rather than warnings, said once in the report:
//! which engine reads the engine-specific material blocks the scene uses.

use tribo_scene::Project;

use crate::format::escape_html;
use crate::EngineRun;

/// `<p class="note">` lines (empty when there is nothing to say).
pub fn notes_html(project: &Project, runs: &[EngineRun]) -> String {
    let engines: Vec<&str> = runs.iter().map(|r| r.outcome.engine.as_str()).collect();
    tribo_runner::engine_specific_notes(&project.scene, &engines)
        .iter()
        .map(|n| format!("<p class=\"note\">note: {}</p>\n", escape_html(n)))
        .collect()
}
