//! The crate's error type. Every variant names the body (index and name) or the degree of freedom
//! it is about, and what was expected.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum Error {
    #[error("body {body} `{name}`: parent index {parent} must refer to an earlier body (bodies are listed parent before child)")]
    ParentNotBefore { body: usize, name: String, parent: usize },

    #[error(
        "body {body} `{name}`: a free joint must attach its body to the world (parent: none), found parent {parent}"
    )]
    FreeJointNotAtRoot { body: usize, name: String, parent: usize },

    #[error("body {body} `{name}`: {field}: expected {expected}, found {found}")]
    InvalidBodyValue {
        body: usize,
        name: String,
        field: &'static str,
        expected: &'static str,
        found: String,
    },

    #[error("body {body}: the name `{name}` is already used by body {first}; body names must be unique")]
    DuplicateName { body: usize, name: String, first: usize },

    #[error("unknown body `{name}`{}", did_you_mean(.closest))]
    UnknownBody { name: String, closest: Option<String> },

    #[error("body index {index} is out of range: the tree has {count} bodies")]
    BodyOutOfRange { index: usize, count: usize },

    #[error("{what}: expected length {expected}, found {found}")]
    DimensionMismatch {
        what: &'static str,
        expected: usize,
        found: usize,
    },

    #[error("{what}[{index}] (body `{body}`): expected a finite number, found {value}")]
    NonFinite {
        what: &'static str,
        index: usize,
        body: String,
        value: f64,
    },

    #[error("body `{body}`: the free-joint quaternion q[{index}..{}] has norm {norm}; expected a non-zero finite quaternion (w, x, y, z)", .index + 4)]
    InvalidQuaternion { body: String, index: usize, norm: f64 },

    #[error("{what}[{dof}] (body `{body}`): expected {expected}, found {value}")]
    InvalidDofValue {
        what: &'static str,
        dof: usize,
        body: String,
        expected: &'static str,
        value: f64,
    },

    #[error("time step: expected a finite dt > 0 s, found {dt}")]
    InvalidTimeStep { dt: f64 },

    #[error("matrix is not positive definite: pivot {pivot} at degree of freedom {dof} (body `{body}`); a subtree without inertia about its joint axis makes the mass matrix singular")]
    NotPositiveDefinite { dof: usize, body: String, pivot: f64 },

    #[error("degree-of-freedom parent list: entry {dof} names parent {parent}; expected an earlier degree of freedom")]
    InvalidDofParent { dof: usize, parent: usize },

    #[error("the step diverged: {what}[{index}] of body `{body}` became {value}")]
    Diverged {
        what: &'static str,
        index: usize,
        body: String,
        value: f64,
    },
}

fn did_you_mean(closest: &Option<String>) -> String {
    match closest {
        Some(name) => format!("; did you mean `{name}`?"),
        None => String::new(),
    }
}
