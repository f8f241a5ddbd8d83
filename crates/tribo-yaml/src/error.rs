//! Located diagnostics: `FILE:LINE:COL: message`.

use std::fmt;
use std::sync::Arc;

/// Where something was written: a file (as given by the user) and a 1-based line and column.
/// `line == 0` means "the file as a whole" (for example when it cannot be read).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Location {
    pub file: Arc<str>,
    pub line: usize,
    pub col: usize,
}

impl Location {
    pub fn new(file: &Arc<str>, line: usize, col: usize) -> Self {
        Location {
            file: Arc::clone(file),
            line,
            col,
        }
    }

    /// The file as a whole, without a position in it.
    pub fn file(file: impl Into<Arc<str>>) -> Self {
        Location {
            file: file.into(),
            line: 0,
            col: 0,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file)
        } else {
            write!(f, "{}:{}:{}", self.file, self.line, self.col)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// A located message. Errors and warnings share this shape so a warning can be promoted to an
/// error (`--strict`) without losing its location.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub severity: Severity,
    pub location: Location,
    pub message: String,
}

/// A located error: the only error type the format crates return.
pub type Error = Diagnostic;

impl Diagnostic {
    pub fn error(location: Location, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            location,
            message: message.into(),
        }
    }

    pub fn warning(location: Location, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            location,
            message: message.into(),
        }
    }

    /// The same message as an error (used by `--strict`).
    pub fn into_error(mut self) -> Self {
        self.severity = Severity::Error;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.severity {
            Severity::Error => write!(f, "{}: {}", self.location, self.message),
            Severity::Warning => write!(f, "{}: warning: {}", self.location, self.message),
        }
    }
}

impl std::error::Error for Diagnostic {}
