//! The `pgs` engine's options (`engine_options: {pgs: {...}}` in a project file). Keys, units and
//! defaults are documented in the crate docs (`lib.rs`, section *Options*).

use serde::{Deserialize, Deserializer};
use tribo_engine::{Diagnostic, EngineOptions};
use tribo_lcp::FrictionModel;

/// Which solver resolves the contact LCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename = "solver", rename_all = "lowercase")]
pub(crate) enum SolverKind {
    Pgs,
    Lemke,
}

/// `friction_cone` as written.
#[derive(Deserialize)]
#[serde(rename = "friction cone", rename_all = "lowercase")]
enum Cone {
    Circular,
    Pyramid4,
    Pyramid8,
    Pyramid16,
    Box,
}

fn friction_cone<'de, D: Deserializer<'de>>(d: D) -> Result<FrictionModel, D::Error> {
    Ok(match Cone::deserialize(d)? {
        Cone::Circular => FrictionModel::Cone,
        Cone::Pyramid4 => FrictionModel::Pyramid { edges: 4 },
        Cone::Pyramid8 => FrictionModel::Pyramid { edges: 8 },
        Cone::Pyramid16 => FrictionModel::Pyramid { edges: 16 },
        Cone::Box => FrictionModel::Box,
    })
}

/// The options block; absent keys keep their defaults.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct PgsOptions {
    pub solver: SolverKind,
    #[serde(deserialize_with = "friction_cone")]
    pub friction_cone: FrictionModel,
    pub iterations: usize,
    pub tolerance: f64,
    pub over_relaxation: f64,
    pub erp: f64,
    pub contact_slop: f64,
    pub contact_margin: f64,
    pub contact_recycling_distance: f64,
    pub restitution_threshold: f64,
    pub slip_threshold: f64,
    pub self_collision: Option<bool>,
    pub culling_distance: f64,
    pub culling_depth: f64,
    pub max_num_contact_points: usize,
    pub lemke_max_contacts: usize,
    pub load_sharing: f64,
    pub subspace_rows: usize,
}

impl Default for PgsOptions {
    fn default() -> Self {
        PgsOptions {
            solver: SolverKind::Pgs,
            friction_cone: FrictionModel::Cone,
            iterations: 100,
            tolerance: 1e-9,
            over_relaxation: 1.0,
            erp: 0.2,
            contact_slop: 1e-4,
            contact_margin: 1e-3,
            contact_recycling_distance: 1e-5,
            restitution_threshold: 1e-4,
            slip_threshold: 1e-4,
            self_collision: None,
            culling_distance: 0.005,
            culling_depth: 0.05,
            max_num_contact_points: 4,
            lemke_max_contacts: 64,
            load_sharing: 1.0,
            subspace_rows: 96,
        }
    }
}

impl PgsOptions {
    /// Reads the options block; an unknown key or a bad value is a located error.
    pub fn from_engine_options(options: &EngineOptions) -> Result<PgsOptions, Diagnostic> {
        let o: PgsOptions = options.read("pgs")?;
        let not_negative = [
            ("tolerance", o.tolerance),
            ("contact_slop", o.contact_slop),
            ("contact_margin", o.contact_margin),
            ("contact_recycling_distance", o.contact_recycling_distance),
            ("restitution_threshold", o.restitution_threshold),
            ("slip_threshold", o.slip_threshold),
            ("culling_distance", o.culling_distance),
        ];
        for (key, value) in not_negative {
            options.check(key, value, value >= 0.0, "must not be negative")?;
        }
        options.check("iterations", o.iterations, o.iterations >= 1, "must be at least 1")?;
        let (w, erp) = (o.over_relaxation, o.erp);
        options.check("over_relaxation", w, w > 0.0 && w < 2.0, "must lie in (0, 2)")?;
        options.check("erp", erp, (0.0..=1.0).contains(&erp), "must lie in [0, 1]")?;
        options.check(
            "culling_depth",
            o.culling_depth,
            o.culling_depth > 0.0,
            "must be positive",
        )?;
        let lemke = o.lemke_max_contacts;
        options.check("lemke_max_contacts", lemke, lemke >= 1, "must be at least 1")?;
        let share = o.load_sharing;
        options.check("load_sharing", share, share >= 0.0, "must be a finite number ≥ 0")?;
        if o.solver == SolverKind::Lemke && o.friction_cone == FrictionModel::Cone {
            return Err(options.error_at(
                "solver",
                "solver `lemke` needs a polyhedral friction cone: set `friction_cone` to pyramid4, pyramid8, \
                 pyramid16 or box",
            ));
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<PgsOptions, Diagnostic> {
        let node = tribo_yaml::parse_str(text, "project.yaml").expect("valid YAML");
        PgsOptions::from_engine_options(&EngineOptions { node: Some(node) })
    }

    #[test]
    fn no_block_gives_the_defaults() {
        assert_eq!(
            PgsOptions::from_engine_options(&EngineOptions::none()),
            Ok(PgsOptions::default())
        );
    }

    #[test]
    fn every_key_is_read() {
        let o = parse(
            "solver: lemke\nfriction_cone: pyramid8\niterations: 30\ntolerance: 1e-6\nover_relaxation: 1.3\n\
             erp: 0.1\ncontact_slop: 0.001\ncontact_margin: 0.002\ncontact_recycling_distance: 0.0\nrestitution_threshold: 0.01\n\
             slip_threshold: 0.001\nself_collision: true\nculling_distance: 0.01\nculling_depth: 0.1\n\
             max_num_contact_points: 2\nlemke_max_contacts: 10\nload_sharing: 0.5\nsubspace_rows: 40\n",
        )
        .expect("valid options");
        let expected = PgsOptions {
            solver: SolverKind::Lemke,
            friction_cone: FrictionModel::Pyramid { edges: 8 },
            iterations: 30,
            tolerance: 1e-6,
            over_relaxation: 1.3,
            erp: 0.1,
            contact_slop: 0.001,
            contact_margin: 0.002,
            contact_recycling_distance: 0.0,
            restitution_threshold: 0.01,
            slip_threshold: 0.001,
            self_collision: Some(true),
            culling_distance: 0.01,
            culling_depth: 0.1,
            max_num_contact_points: 2,
            lemke_max_contacts: 10,
            load_sharing: 0.5,
            subspace_rows: 40,
        };
        assert_eq!(o, expected);
    }

    #[test]
    fn errors_are_located_and_suggest_the_closest_name() {
        let err = parse("iterations: 4\niteration: 2\n").expect_err("unknown key");
        assert_eq!(
            err.to_string(),
            "project.yaml:2:1: unknown key `iteration` in the pgs engine options (did you mean `iterations`?)"
        );
        let err = parse("friction_cone: pyramid6\n").expect_err("bad cone");
        assert!(
            err.to_string()
                .starts_with("project.yaml:1:16: unknown friction cone `pyramid6`"),
            "{err}"
        );
        let err = parse("solver: lemke\n").expect_err("lemke with a cone");
        assert!(
            err.to_string()
                .starts_with("project.yaml:1:9: solver `lemke` needs a polyhedral"),
            "{err}"
        );
        let err = parse("over_relaxation: 2.5\n").expect_err("out of range");
        assert_eq!(
            err.to_string(),
            "project.yaml:1:18: `over_relaxation` must lie in (0, 2), found 2.5"
        );
    }
}
