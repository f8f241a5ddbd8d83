//! The `pgs` engine's options (`engine_options: {pgs: {...}}` in a project file). Keys, units and
//! defaults are documented in the crate docs (`lib.rs`, section *Options*).

use tribo_engine::EngineOptions;
use tribo_lcp::FrictionModel;
use tribo_yaml::Diagnostic;

/// Which solver resolves the contact LCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SolverKind {
    Pgs,
    Lemke,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PgsOptions {
    pub solver: SolverKind,
    pub friction_cone: FrictionModel,
    pub iterations: usize,
    pub tolerance: f64,
    pub over_relaxation: f64,
    pub erp: f64,
    pub contact_slop: f64,
    pub contact_margin: f64,
    pub restitution_threshold: f64,
    pub slip_threshold: f64,
    pub self_collision: Option<bool>,
    pub culling_distance: f64,
    pub culling_depth: f64,
    pub max_num_contact_points: usize,
    pub lemke_max_contacts: usize,
    pub load_sharing: f64,
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
            restitution_threshold: 1e-4,
            slip_threshold: 1e-4,
            self_collision: None,
            culling_distance: 0.005,
            culling_depth: 0.05,
            max_num_contact_points: 4,
            lemke_max_contacts: 64,
            load_sharing: 1.0,
        }
    }
}

const KNOWN_KEYS: [&str; 16] = [
    "solver",
    "friction_cone",
    "iterations",
    "tolerance",
    "over_relaxation",
    "erp",
    "contact_slop",
    "contact_margin",
    "restitution_threshold",
    "slip_threshold",
    "self_collision",
    "culling_distance",
    "culling_depth",
    "max_num_contact_points",
    "lemke_max_contacts",
    "load_sharing",
];

const SOLVERS: [(&str, SolverKind); 2] = [("pgs", SolverKind::Pgs), ("lemke", SolverKind::Lemke)];
const CONES: [(&str, FrictionModel); 5] = [
    ("circular", FrictionModel::Cone),
    ("pyramid4", FrictionModel::Pyramid { edges: 4 }),
    ("pyramid8", FrictionModel::Pyramid { edges: 8 }),
    ("pyramid16", FrictionModel::Pyramid { edges: 16 }),
    ("box", FrictionModel::Box),
];

impl PgsOptions {
    /// Reads the options block; an unknown key or a bad value is a located error.
    pub fn from_engine_options(options: &EngineOptions) -> Result<PgsOptions, Diagnostic> {
        let d = PgsOptions::default();
        let Some(fields) = options.fields()? else {
            return Ok(d);
        };
        let solver_node = fields.get_value(&["solver"]);
        let parsed = PgsOptions {
            solver: fields.choice_or("solver", d.solver, &SOLVERS, "solver")?,
            friction_cone: fields.choice_or("friction_cone", d.friction_cone, &CONES, "friction cone")?,
            iterations: fields.count_or("iterations", d.iterations, 1)?,
            tolerance: fields.real_or("tolerance", d.tolerance, |x| x >= 0.0, "must not be negative")?,
            over_relaxation: fields.real_or(
                "over_relaxation",
                d.over_relaxation,
                |x| x > 0.0 && x < 2.0,
                "must lie in (0, 2)",
            )?,
            erp: fields.real_or("erp", d.erp, |x| (0.0..=1.0).contains(&x), "must lie in [0, 1]")?,
            contact_slop: fields.real_or("contact_slop", d.contact_slop, |x| x >= 0.0, "must not be negative")?,
            contact_margin: fields.real_or("contact_margin", d.contact_margin, |x| x >= 0.0, "must not be negative")?,
            restitution_threshold: fields.real_or(
                "restitution_threshold",
                d.restitution_threshold,
                |x| x >= 0.0,
                "must not be negative",
            )?,
            slip_threshold: fields.real_or("slip_threshold", d.slip_threshold, |x| x >= 0.0, "must not be negative")?,
            self_collision: match fields.get_value(&["self_collision"]) {
                Some(node) => Some(node.as_bool()?),
                None => d.self_collision,
            },
            culling_distance: fields.real_or(
                "culling_distance",
                d.culling_distance,
                |x| x >= 0.0,
                "must not be negative",
            )?,
            culling_depth: fields.real_or("culling_depth", d.culling_depth, |x| x > 0.0, "must be positive")?,
            max_num_contact_points: fields.count_or("max_num_contact_points", d.max_num_contact_points, 0)?,
            lemke_max_contacts: fields.count_or("lemke_max_contacts", d.lemke_max_contacts, 1)?,
            load_sharing: fields.real_or(
                "load_sharing",
                d.load_sharing,
                |x| x.is_finite() && x >= 0.0,
                "must be a finite number ≥ 0",
            )?,
        };
        if let (SolverKind::Lemke, Some(node), FrictionModel::Cone) = (parsed.solver, solver_node, parsed.friction_cone)
        {
            return Err(node.error(
                "solver `lemke` needs a polyhedral friction cone: set `friction_cone` to pyramid4, pyramid8, \
                 pyramid16 or box",
            ));
        }
        fields.reject_unknown("the pgs engine options", &KNOWN_KEYS)?;
        Ok(parsed)
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
             erp: 0.1\ncontact_slop: 0.001\ncontact_margin: 0.002\nrestitution_threshold: 0.01\n\
             slip_threshold: 0.001\nself_collision: true\nculling_distance: 0.01\nculling_depth: 0.1\n\
             max_num_contact_points: 2\nlemke_max_contacts: 10\nload_sharing: 0.5\n",
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
            restitution_threshold: 0.01,
            slip_threshold: 0.001,
            self_collision: Some(true),
            culling_distance: 0.01,
            culling_depth: 0.1,
            max_num_contact_points: 2,
            lemke_max_contacts: 10,
            load_sharing: 0.5,
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
