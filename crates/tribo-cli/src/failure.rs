//! How a command fails: a message and an exit status (2 for invalid input, 1 for a failed run).

use tribo_yaml::Diagnostic;

pub struct Failure {
    pub message: String,
    pub exit_code: i32,
}

impl Failure {
    /// The user's input is wrong (a file, a name, an option): exit status 2.
    pub fn input(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            exit_code: 2,
        }
    }

    /// The input was fine but the simulation failed: exit status 1.
    pub fn run(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            exit_code: 1,
        }
    }
}

impl From<Diagnostic> for Failure {
    fn from(d: Diagnostic) -> Self {
        Failure::input(d.to_string())
    }
}

pub type CliResult = Result<(), Failure>;

/// Ok when no run failed; else one failure listing each failed run (`what: why`) under the project.
pub fn runs_failed(project: &std::path::Path, failed: &[String]) -> CliResult {
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::run(format!(
            "{}: some runs failed:\n  {}",
            project.display(),
            failed.join("\n  ")
        )))
    }
}
