//! The `rapier` engine's options (`engine_options: {rapier: {...}}` in a project file).
//!
//! The keys, units, defaults and the measurements behind the defaults are documented in the
//! crate docs (`lib.rs`, section *Options*).

use rapier3d_f64::prelude::{FrictionModel as RapierFriction, IntegrationParameters, SpringCoefficients};
use serde::Deserialize;
use tribo_engine::{Diagnostic, EngineOptions};

/// How friction is solved between two plain rigid bodies (contacts of articulated links always
/// use the per-point Coulomb model: rapier 0.36 `FrictionModel` docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FrictionModel {
    Simplified,
    Coulomb,
}

/// The options block; absent keys keep their defaults.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct RapierOptions {
    pub substeps: usize,
    pub pgs_iterations: usize,
    pub stabilization_iterations: usize,
    pub friction_model: FrictionModel,
    pub contact_softness_hz: f64,
    pub static_contact_softness_hz: f64,
    pub contact_damping_ratio: f64,
    pub prediction_distance: f64,
    pub ccd: bool,
    pub slip_threshold: f64,
    pub joint_damping: f64,
}

impl Default for RapierOptions {
    fn default() -> Self {
        RapierOptions {
            substeps: 4,
            pgs_iterations: 1,
            stabilization_iterations: 1,
            friction_model: FrictionModel::Simplified,
            contact_softness_hz: 400.0,
            static_contact_softness_hz: 400.0,
            contact_damping_ratio: 10.0,
            prediction_distance: 0.02,
            ccd: true,
            slip_threshold: 1e-4,
            joint_damping: 0.0,
        }
    }
}

impl RapierOptions {
    /// rapier's integration parameters for a step of `dt` s under these options (before the
    /// hosted compliant points tune the solver iterations, `host.rs`).
    pub fn integration_parameters(&self, dt: f64) -> IntegrationParameters {
        IntegrationParameters {
            dt,
            num_solver_iterations: self.substeps,
            num_internal_pgs_iterations: self.pgs_iterations,
            num_internal_stabilization_iterations: self.stabilization_iterations,
            friction_model: match self.friction_model {
                FrictionModel::Simplified => RapierFriction::Simplified,
                FrictionModel::Coulomb => RapierFriction::Coulomb,
            },
            contact_softness: SpringCoefficients::new(self.contact_softness_hz, self.contact_damping_ratio),
            static_contact_softness: SpringCoefficients::new(
                self.static_contact_softness_hz,
                self.contact_damping_ratio,
            ),
            length_unit: 1.0,
            normalized_prediction_distance: self.prediction_distance,
            // Fresh narrow-phase data every step: exact contact points for the readout (pairs with
            // an active hook, i.e. all of ours, are never recycled anyway).
            contact_recycling: false,
            max_ccd_substeps: usize::from(self.ccd),
            ..IntegrationParameters::default()
        }
    }

    /// Reads the options block; an unknown key or a bad value is a located error.
    pub fn from_engine_options(options: &EngineOptions) -> Result<RapierOptions, Diagnostic> {
        let o: RapierOptions = options.read("rapier")?;
        for (key, value) in [("substeps", o.substeps), ("pgs_iterations", o.pgs_iterations)] {
            options.check(key, value, value >= 1, "must be at least 1")?;
        }
        let positive = [
            ("contact_softness_hz", o.contact_softness_hz),
            ("static_contact_softness_hz", o.static_contact_softness_hz),
            ("contact_damping_ratio", o.contact_damping_ratio),
        ];
        for (key, value) in positive {
            options.check(key, value, value > 0.0, "must be positive")?;
        }
        let not_negative = [
            ("prediction_distance", o.prediction_distance),
            ("slip_threshold", o.slip_threshold),
            ("joint_damping", o.joint_damping),
        ];
        for (key, value) in not_negative {
            options.check(key, value, value >= 0.0, "must not be negative")?;
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RapierOptions, Diagnostic> {
        let node = tribo_yaml::parse_str(text, "project.yaml").expect("valid YAML");
        RapierOptions::from_engine_options(&EngineOptions { node: Some(node) })
    }

    #[test]
    fn no_block_gives_the_defaults() {
        assert_eq!(
            RapierOptions::from_engine_options(&EngineOptions::none()),
            Ok(RapierOptions::default())
        );
    }

    #[test]
    fn every_key_is_read() {
        let o = parse(
            "substeps: 3\npgs_iterations: 2\nstabilization_iterations: 0\nfriction_model: coulomb\n\
             contact_softness_hz: 20\nstatic_contact_softness_hz: 40\ncontact_damping_ratio: 5\n\
             prediction_distance: 0.01\nccd: false\nslip_threshold: 0.001\njoint_damping: 0.2\n",
        )
        .expect("valid options");
        let expected = RapierOptions {
            substeps: 3,
            pgs_iterations: 2,
            stabilization_iterations: 0,
            friction_model: FrictionModel::Coulomb,
            contact_softness_hz: 20.0,
            static_contact_softness_hz: 40.0,
            contact_damping_ratio: 5.0,
            prediction_distance: 0.01,
            ccd: false,
            slip_threshold: 0.001,
            joint_damping: 0.2,
        };
        assert_eq!(o, expected);
    }

    #[test]
    fn unknown_key_is_located_and_suggests_the_closest() {
        let err = parse("substeps: 4\nsubstep: 2\n").expect_err("unknown key");
        assert_eq!(
            err.to_string(),
            "project.yaml:2:1: unknown key `substep` in the rapier engine options (did you mean `substeps`?)"
        );
    }

    #[test]
    fn bad_values_are_located() {
        let err = parse("substeps: 0\n").expect_err("zero substeps");
        assert_eq!(
            err.to_string(),
            "project.yaml:1:11: `substeps` must be at least 1, found 0"
        );
        let err = parse("friction_model: colomb\n").expect_err("typo");
        assert_eq!(
            err.to_string(),
            "project.yaml:1:17: unknown friction model `colomb` (did you mean `coulomb`?)"
        );
        let err = parse("contact_softness_hz: -3\n").expect_err("negative");
        assert!(
            err.to_string()
                .starts_with("project.yaml:1:22: `contact_softness_hz` must be positive"),
            "{err}"
        );
    }
    /// Every option that is one of rapier's integration parameters reaches them, as the engine
    /// steps and as raw rapier is given them (`crate::integration_parameters`).
    #[test]
    fn the_options_become_rapiers_integration_parameters() {
        let o = parse(
            "substeps: 3\npgs_iterations: 2\nstabilization_iterations: 0\nfriction_model: coulomb\n\
             contact_softness_hz: 20\nstatic_contact_softness_hz: 40\ncontact_damping_ratio: 5\n\
             prediction_distance: 0.01\nccd: false\n",
        )
        .expect("valid options");
        let p = o.integration_parameters(1e-3);
        assert_eq!(p.dt, 1e-3);
        assert_eq!(
            (
                p.num_solver_iterations,
                p.num_internal_pgs_iterations,
                p.num_internal_stabilization_iterations
            ),
            (3, 2, 0)
        );
        assert_eq!(p.friction_model, RapierFriction::Coulomb);
        assert_eq!(
            (p.contact_softness.natural_frequency, p.contact_softness.damping_ratio),
            (20.0, 5.0)
        );
        assert_eq!(
            (
                p.static_contact_softness.natural_frequency,
                p.static_contact_softness.damping_ratio
            ),
            (40.0, 5.0)
        );
        assert_eq!((p.normalized_prediction_distance, p.length_unit), (0.01, 1.0));
        assert_eq!((p.max_ccd_substeps, p.contact_recycling), (0, false));
        let defaults = crate::integration_parameters(&EngineOptions::none(), 2e-3).expect("defaults");
        assert_eq!(
            (
                defaults.num_solver_iterations,
                defaults.friction_model,
                defaults.max_ccd_substeps
            ),
            (4, RapierFriction::Simplified, 1)
        );
        let err = crate::integration_parameters(
            &EngineOptions {
                node: Some(tribo_yaml::parse_str("substep: 2\n", "project.yaml").expect("valid YAML")),
            },
            2e-3,
        )
        .expect_err("unknown key");
        assert!(
            err.to_string().starts_with("project.yaml:1:1: unknown key `substep`"),
            "{err}"
        );
    }
}
