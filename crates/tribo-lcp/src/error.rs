//! The one error type of the crate. Every variant names the row, contact or option it is about.

/// What went wrong in a solver or an analysis. The crate never panics on its input; it returns one of these.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// Two pieces of a problem disagree in size.
    #[error("dimension mismatch: {what} has {found} entries, expected {expected}")]
    DimensionMismatch {
        /// Which piece (for example `"b"` or `"initial λ"`).
        what: &'static str,
        /// The size the rest of the problem implies.
        expected: usize,
        /// The size found.
        found: usize,
    },
    /// An input number is NaN or infinite.
    #[error("{what}[{index}] is not finite ({value})")]
    NonFinite {
        /// Which input (`"A"`, `"b"`, `"contact position"`, ...).
        what: &'static str,
        /// Flat index of the entry (row-major for matrices).
        index: usize,
        /// The value found.
        value: f64,
    },
    /// A diagonal entry of A is zero or negative; Gauss–Seidel divides by it.
    #[error("A[{row},{row}] = {value} is not positive; projected Gauss–Seidel needs a positive diagonal")]
    NonPositiveDiagonal {
        /// The row.
        row: usize,
        /// The diagonal entry found.
        value: f64,
    },
    /// A friction coefficient is negative or not finite.
    #[error("contact {contact}: friction coefficient μ = {mu} must be finite and ≥ 0")]
    InvalidFriction {
        /// Contact index.
        contact: usize,
        /// The coefficient found.
        mu: f64,
    },
    /// A pyramid with fewer than three edges does not bound the tangential force.
    #[error("contact {contact}: a polyhedral friction cone needs at least 3 edges, got {edges}")]
    TooFewEdges {
        /// Contact index (0 when the request was not about a particular contact).
        contact: usize,
        /// The edge count found.
        edges: usize,
    },
    /// A solver option is out of its range.
    #[error("option {name} = {value} is invalid: expected {expected}")]
    InvalidOption {
        /// Option name.
        name: &'static str,
        /// Value given.
        value: f64,
        /// The valid range, in words.
        expected: &'static str,
    },
    /// Projected Gauss–Seidel produced a non-finite impulse.
    #[error("projected Gauss–Seidel diverged at iteration {iteration}: an impulse became non-finite")]
    Diverged {
        /// The sweep at which it happened (1-based).
        iteration: usize,
    },
    /// Lemke's method found no blocking variable (secondary ray).
    #[error(
        "Lemke's method ended on a secondary ray after {pivots} pivots: no solution it can reach \
         (the LCP is infeasible, or M is not copositive-plus)"
    )]
    RayTermination {
        /// Pivots done before the ray.
        pivots: usize,
    },
    /// Lemke's method reached its pivot cap.
    #[error("Lemke's method reached its cap of {limit} pivots (cycling or a very degenerate problem)")]
    PivotLimit {
        /// The cap.
        limit: usize,
    },
    /// An exact-cone contact was given to a solver that needs a polyhedral friction set.
    #[error(
        "contact {contact} uses the circular friction cone, which is not an LCP; Lemke needs a box or a \
         pyramid (see ContactProblem::with_cones_as_pyramids)"
    )]
    NonPolyhedralFriction {
        /// Contact index.
        contact: usize,
    },
    /// A contact normal or plane normal has zero length.
    #[error("{what} {index}: the normal has zero length")]
    ZeroNormal {
        /// `"contact"` or `"plane"`.
        what: &'static str,
        /// Index of the contact (0 for a plane).
        index: usize,
    },
    /// CoP or ZMP asked of forces that do not push along the plane normal.
    #[error("the total force along the plane normal is {normal_force} N; CoP and ZMP need a positive one")]
    NoNormalForce {
        /// n·F, N.
        normal_force: f64,
    },
    /// A desired wrench lies outside the set the friction cones can produce (or was not reached).
    #[error(
        "the wrench is not reached inside the friction cones after {iterations} iterations \
         (residual ‖Gf − w‖ = {residual}); it is probably outside the contact wrench cone"
    )]
    WrenchNotReached {
        /// Dual Newton iterations done.
        iterations: usize,
        /// Final ‖Gf − w‖ (N and N·m mixed, Euclidean).
        residual: f64,
    },
    /// A matrix that must be symmetric positive definite is not (its Cholesky factorisation failed).
    #[error("{what} is not symmetric positive definite")]
    NotPositiveDefinite {
        /// Which matrix.
        what: &'static str,
    },
    /// A list that must not be empty was empty.
    #[error("{what} is empty")]
    Empty {
        /// What was empty.
        what: &'static str,
    },
    /// A linear-algebra step failed (singular value decomposition did not converge).
    #[error("linear algebra failed: {what}")]
    LinearAlgebra {
        /// What failed.
        what: &'static str,
    },
}

/// Result with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Check that every entry is finite; report the first one that is not.
pub(crate) fn check_finite(what: &'static str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NonFinite {
            what,
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// Check a length.
pub(crate) fn check_len(what: &'static str, expected: usize, found: usize) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::DimensionMismatch { what, expected, found })
    }
}
