//! What can go wrong, each naming the file or the engine concerned.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The project does not load (the diagnostic is `FILE:LINE:COL: message`).
    #[error("{0}")]
    Project(String),
    #[error("--phases `{text}`: {why}")]
    Phases { text: String, why: String },
    #[error("{project}: {reason}")]
    Engine { project: PathBuf, reason: String },
    #[error("{project}: {engine} failed at step {step}: {reason}")]
    Step {
        project: PathBuf,
        engine: String,
        step: u64,
        reason: String,
    },
    /// The raw rapier world cannot express the scene or its commands.
    #[error("{project}: raw rapier cannot run this scene: {reason}")]
    RawUnsupported { project: PathBuf, reason: String },
}
