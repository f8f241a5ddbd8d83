//! Contact solvers and contact analysis for tribo, after chapter 4 (contact mechanics fundamentals) of
//! a robotics textbook, summarised with the chapter's section numbers in
//! `docs/design/contact-mechanics.md` ("the chapter" below). The crate sees matrices and problems
//! only: no scenes, bodies or files.
//!
//! # Solvers (`docs/design/contact-mechanics.md` §4.2)
//!
//! - [`Lcp`]: 0 ≤ λ ⊥ Aλ + b ≥ 0 with dense A.
//! - [`ContactProblem`]: per-contact blocks (normal, t₁, t₂) on the Delassus operator A = J M⁻¹ Jᵀ with
//!   a per-contact μ and [`FrictionModel`] (box, inscribed pyramid of m edges, exact circular cone).
//! - [`Pgs`]: projected Gauss–Seidel with over-relaxation, warm start, residual tolerance and sweep cap;
//!   block Gauss–Seidel for contacts in the manner of the AIST solver. It reads A through the
//!   [`DelassusRows`] trait: dense ([`nalgebra::DMatrix`], [`DenseRows`]) or block-sparse
//!   ([`BlockSparseDelassus`]); an engine may implement the trait on its own structure.
//! - [`solve_lemke`]: Lemke's complementary pivoting (covering vector 1, lexicographic anti-cycling,
//!   pivot tolerance, pivot cap; rays and the cap are errors), for small problems and to validate PGS.
//!   [`solve_contacts_lemke`] solves box and pyramid friction exactly through the Stewart–Trinkle LCP
//!   ([`PolyhedralLcp`]).
//! - [`SolveReport`]: iterations, natural-map residual, complementarity error, converged
//!   (definitions in [`report`]).
//!
//! # Analysis (`docs/design/contact-mechanics.md` §4.1, §4.3, §4.4)
//!
//! - [`point_contact_wrench`], [`Wrench`]; [`ContactPoint`], [`grasp_matrix`], [`primitive_wrenches`].
//! - [`pyramid_edges`] (the chapter's dₖ) and the cone approximation error [`pyramid_relative_error`].
//! - [`force_closure`]: rank test plus a strictly positive null combination of the primitive
//!   wrenches, found by non-negative least squares solved with Lemke (no LP).
//! - [`centre_of_pressure`], [`zmp`], [`zmp_from_wrench`], [`SupportPolygon`].
//! - [`min_norm_distribution`] (pseudo-inverse with cone check) and
//!   [`min_norm_distribution_in_cones`] (exact cones, semismooth Newton on the 6-D dual).
//!
//! # Example
//!
//! A 3 kg point mass on a 25° slope, one step of 1 ms from rest (frame: n = slope normal, t₁ = down-hill).
//! μ = 0.6 > tan 25°, so it sticks: friction holds the down-hill weight component.
//!
//! ```
//! use nalgebra::{DMatrix, DVector};
//! use tribo_lcp::{ContactFriction, ContactProblem, FrictionModel, Pgs, PgsOptions};
//!
//! let (mass, h, g, theta) = (3.0, 1e-3, 9.81, 25f64.to_radians());
//! let problem = ContactProblem::new(
//!     DMatrix::identity(3, 3) / mass,                                                 // A = J M⁻¹ Jᵀ
//!     DVector::from_vec(vec![-g * h * theta.cos(), g * h * theta.sin(), 0.0]), // b, m/s
//!     vec![ContactFriction::new(0.6, FrictionModel::Cone)],
//! )?;
//! let mut pgs = Pgs::new(PgsOptions::default());
//! let mut lambda = DVector::zeros(3); // warm start: last step's impulses
//! let report = pgs.solve_contacts(&problem, &mut lambda)?;
//! assert!(report.converged);
//! assert!((lambda[0] - mass * g * h * theta.cos()).abs() < 1e-12); // λₙ, N·s
//! assert!((lambda[1] + mass * g * h * theta.sin()).abs() < 1e-12); // λₜ₁ up-hill
//! # Ok::<(), tribo_lcp::Error>(())
//! ```
//!
//! # Notation
//!
//! Contact c owns rows 3c + k of every contact vector: k = 0 normal, 1 first tangent, 2 second tangent
//! ([`NORMAL`], [`TANGENT_1`], [`TANGENT_2`]). Forces given in a contact frame use the chapter's axes
//! x = t₁, y = t₂, z = n ([`ContactFrame`]).
//!
//! | symbol | field | unit, range |
//! |---|---|---|
//! | A | [`Lcp::a`], [`ContactProblem::delassus`] (= J M⁻¹ Jᵀ) | 1/kg (m/s per N·s); symmetric PSD for contact |
//! | b | [`Lcp::b`], [`ContactProblem::free_velocity`] (= J(v⁻ + h M⁻¹ f_ext)) | m/s |
//! | λ = (λₙ, λₜ₁, λₜ₂) | the solution vector (impulse, λ = h f_c) | N·s; λₙ ≥ 0 |
//! | w = v = Aλ + b | contact velocity after the step ([`ContactProblem::velocity`]) | m/s |
//! | μ | [`ContactFriction::mu`], [`ContactPoint::mu`] | dimensionless, ≥ 0 |
//! | m | edges of a pyramid ([`FrictionModel::Pyramid`]) | count, ≥ 3 |
//! | dₖ | [`pyramid_edges`]: [μcos(2πk/m), μsin(2πk/m), 1]/√(1+μ²) | unit vector, contact frame |
//! | ω | [`PgsOptions::relaxation`] | dimensionless, (0, 2), default 1 |
//! | tol | [`PgsOptions::tolerance`] | natural-map residual (≈ m/s), default 1e-9 |
//! | r | [`SolveReport::residual`]: ‖λ − Π(λ − w)‖∞ | mixed N·s and m/s |
//! | c | [`SolveReport::complementarity`]: maxᵢ\|λᵢwᵢ\| (plus dissipation gap for contacts) | J |
//! | p, pᵢ | contact or application point ([`ContactPoint::position`], [`PointForce::point`]) | m, world |
//! | f, fᵢ | contact force | N (world, or contact frame where stated) |
//! | τ | [`Wrench::torque`], about a stated reference point | N·m |
//! | w = [f; τ] | [`Wrench`] (force first) | N, N·m |
//! | G, Gᵢ | [`grasp_matrix`], [`ContactPoint::wrench_map`] | 6 × 3n; rows 1–3 dimensionless, 4–6 m |
//! | n | [`Plane::normal`] | unit vector |
//! | p_CoP, p_ZMP | [`centre_of_pressure`], [`zmp`] | m, world |
//! | ε | [`pyramid_relative_error`] | dimensionless (1 − cos(π/m)) |

mod cone_error;
mod contact;
pub mod delassus;
mod distribution;
mod drift;
mod error;
mod factored;
mod force_closure;
mod friction;
mod grasp;
mod lcp;
mod lemke;
mod newton;
mod pgs;
mod pivoted_cholesky;
mod polyhedral;
pub mod report;
mod snapshot;
mod subspace;
mod support;
mod wrench;
mod zmp;

pub use cone_error::{
    pyramid_relative_error, pyramid_relative_error_3d, pyramid_relative_error_closed_form, PyramidFit,
};
pub use contact::{ContactFriction, ContactProblem, NORMAL, TANGENT_1, TANGENT_2};
pub use delassus::{BlockSparseDelassus, DelassusRows, DenseRows};
pub use distribution::{
    internal_force_projector, min_norm_distribution, min_norm_distribution_in_cones, ConeCheck,
    ConeDistributionOptions, ForceDistribution,
};
pub use error::{Error, Result};
pub use factored::{FactoredDelassus, FactoredSide};
pub use force_closure::{force_closure, scaled_primitive_wrenches, ForceClosureOptions, ForceClosureReport};
pub use friction::{
    edge_direction, project_onto_circular_cone, project_onto_circular_cone_with_jacobian, project_onto_disc,
    project_onto_polygon, pyramid_edges, ContactFrame, FrictionModel,
};
pub use grasp::{grasp_matrix, primitive_wrenches, ContactPoint};
pub use lcp::Lcp;
pub use lemke::{solve_lemke, LemkeOptions, LemkeSolution};
pub use pgs::{solve_contacts_pgs, solve_lcp_pgs, Pgs, PgsOptions};
pub use polyhedral::{solve_contacts_lemke, PolyhedralLcp};
pub use report::SolveReport;
pub use support::SupportPolygon;
pub use wrench::{point_contact_wrench, point_contact_wrench_about, Wrench};
pub use zmp::{centre_of_pressure, zmp, zmp_from_wrench, Plane, PointForce};
