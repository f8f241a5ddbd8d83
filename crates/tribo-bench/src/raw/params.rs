//! The integration parameters of tribo's `rapier` engine with its default options
//! (`crates/tribo-rapier/src/options.rs` and `step.rs`; the same as
//! `crates/tribo-rapier/benches/raw_vs_tribo.rs`).

use rapier3d_f64::prelude::{FrictionModel, IntegrationParameters, SpringCoefficients};

/// 4 substeps of 1 PGS sweep and 1 stabilization sweep, `simplified` friction, contacts at
/// 400 Hz with damping ratio 10 for moving and fixed pairs, prediction distance 0.02 m, no
/// contact recycling, CCD with one substep.
pub fn tribo_defaults(dt: f64) -> IntegrationParameters {
    IntegrationParameters {
        dt,
        num_solver_iterations: 4,
        num_internal_pgs_iterations: 1,
        num_internal_stabilization_iterations: 1,
        friction_model: FrictionModel::Simplified,
        contact_softness: SpringCoefficients::new(400.0, 10.0),
        static_contact_softness: SpringCoefficients::new(400.0, 10.0),
        length_unit: 1.0,
        normalized_prediction_distance: 0.02,
        contact_recycling: false,
        max_ccd_substeps: 1,
        ..IntegrationParameters::default()
    }
}
