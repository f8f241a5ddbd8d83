//! Scenes built in code: bodies, placements and a material table, no project file.

use std::sync::Arc;

use nalgebra::{Isometry3, Vector3};
use tribo_material::{ContactTable, MaterialTable};
use tribo_model::{Body, Geometry};
use tribo_runner::{declared_pads, Scene, SceneBody};
use tribo_scene::Simulation;

use crate::{Error, Project};

/// Builds a scene in code and wraps it as a [`Project`] that runs, compares and steps like one
/// loaded from a file.
///
/// The material table starts as tribo's default table (Choreonoid's), and
/// [`SceneBuilder::materials_yaml`] merges tables over it in call order, as a project's
/// `materials:` list does; every link's material must be in the merged table.
///
/// ```
/// use nalgebra::{Isometry3, Vector3};
/// use tribo::{Geometry, SceneBuilder};
///
/// # fn main() -> Result<(), tribo::Error> {
/// let project = SceneBuilder::new("drop")?
///     .materials_yaml("materials:\n  - name: Rubber\n    roughness: 0.9\n")?
///     .ground("Ground")
///     .solid("ball", Geometry::Sphere { radius: 0.1 }, 0.5, "Rubber", Isometry3::translation(0.0, 0.0, 0.5))
///     .project(0.001, 1.0)?;
/// let run = project.run("pgs")?;
/// let z = run.column("ball.pos.z").unwrap();
/// assert!((z.last().unwrap() - 0.1).abs() < 0.01, "the ball rests on the ground");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct SceneBuilder {
    name: String,
    gravity: Vector3<f64>,
    materials: MaterialTable,
    bodies: Vec<Placed>,
}

#[derive(Debug, Clone)]
struct Placed {
    name: String,
    model: Body,
    pose: Isometry3<f64>,
    linear_velocity: Vector3<f64>,
    fixed: bool,
}

impl SceneBuilder {
    /// An empty scene called `name`, gravity 9.81 m/s² down (−z), tribo's default material
    /// table.
    pub fn new(name: &str) -> Result<SceneBuilder, Error> {
        Ok(SceneBuilder {
            name: name.to_string(),
            gravity: Vector3::new(0.0, 0.0, -9.81),
            materials: MaterialTable::builtin_default()?,
            bodies: Vec::new(),
        })
    }

    /// Gravity, m/s², world frame.
    pub fn gravity(mut self, gravity: Vector3<f64>) -> SceneBuilder {
        self.gravity = gravity;
        self
    }

    /// Merge a material table written in Choreonoid's YAML format (`materials`,
    /// `contact_materials`) over the table so far.
    pub fn materials_yaml(mut self, yaml: &str) -> Result<SceneBuilder, Error> {
        let loaded = MaterialTable::parse_str(yaml, &format!("<code>/{}/materials.yaml", self.name))?;
        self.materials.merge(&loaded.table);
        Ok(self)
    }

    /// Merge a material table file over the table so far.
    pub fn materials_file(mut self, path: impl AsRef<std::path::Path>) -> Result<SceneBuilder, Error> {
        let loaded = MaterialTable::load_file(path.as_ref())?;
        self.materials.merge(&loaded.table);
        Ok(self)
    }

    /// A fixed 40 m × 40 m × 1 m slab of `material` whose top face is the plane z = 0, as body
    /// `ground`.
    pub fn ground(self, material: &str) -> SceneBuilder {
        let slab = Body::solid(
            "ground",
            Geometry::Box {
                size: Vector3::new(40.0, 40.0, 1.0),
            },
            0.0,
            material,
        );
        self.fixed("ground", slab, Isometry3::translation(0.0, 0.0, -0.5))
    }

    /// A free one-link body of one uniform solid ([`Body::solid`]) at `pose`, at rest.
    pub fn solid(
        self,
        name: &str,
        geometry: Geometry,
        mass: f64,
        material: &str,
        pose: Isometry3<f64>,
    ) -> SceneBuilder {
        self.body(name, Body::solid(name, geometry, mass, material), pose)
    }

    /// A body (built in code, or loaded with `tribo_model::load_body`) with a free root at
    /// `pose`, at rest.
    pub fn body(mut self, name: &str, model: Body, pose: Isometry3<f64>) -> SceneBuilder {
        self.bodies.push(Placed {
            name: name.to_string(),
            model,
            pose,
            linear_velocity: Vector3::zeros(),
            fixed: false,
        });
        self
    }

    /// A body whose root is fixed to the world at `pose`.
    pub fn fixed(mut self, name: &str, model: Body, pose: Isometry3<f64>) -> SceneBuilder {
        self.bodies.push(Placed {
            name: name.to_string(),
            model,
            pose,
            linear_velocity: Vector3::zeros(),
            fixed: true,
        });
        self
    }

    /// The last body added starts with this linear velocity, m/s (world frame).
    pub fn moving(mut self, velocity: Vector3<f64>) -> SceneBuilder {
        if let Some(last) = self.bodies.last_mut() {
            last.linear_velocity = velocity;
        }
        self
    }

    /// The scene: every body checked as a loaded one is (masses, inertias, joints), every link
    /// material resolved in the merged table.
    pub fn build(self) -> Result<(Arc<Scene>, MaterialTable), Error> {
        let mut names: Vec<&str> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for placed in &self.bodies {
            if !seen.insert(placed.name.as_str()) {
                return Err(Error::Input(format!("two bodies are called `{}`", placed.name)));
            }
            tribo_model::validate(&placed.model, placed.fixed)?;
            for link in &placed.model.links {
                if !self.materials.knows(&link.material) {
                    return Err(Error::Input(unknown_material(
                        &self.materials,
                        &placed.name,
                        &link.name,
                        &link.material,
                    )));
                }
                names.push(&link.material);
            }
        }
        let contacts = ContactTable::build(&self.materials, names)?;
        let bodies: Vec<SceneBody> = self
            .bodies
            .iter()
            .map(|placed| {
                let link_materials = placed
                    .model
                    .links
                    .iter()
                    .map(|l| contacts.id(&l.material).unwrap_or(tribo_material::MaterialId::DEFAULT))
                    .collect();
                SceneBody {
                    name: placed.name.clone(),
                    initial_positions: placed.model.links.iter().map(|l| l.joint.initial_position).collect(),
                    model: Arc::new(placed.model.clone()),
                    root_pose: placed.pose,
                    root_linear_velocity: placed.linear_velocity,
                    root_angular_velocity: Vector3::zeros(),
                    fixed_root: placed.fixed,
                    link_materials,
                    self_collision: false,
                }
            })
            .collect();
        let pads = declared_pads(bodies.iter().map(|b| b.model.as_ref()));
        let scene = Scene {
            name: self.name,
            gravity: self.gravity,
            bodies,
            contacts,
            pads,
        };
        Ok((Arc::new(scene), self.materials))
    }

    /// The scene as a project stepped at `time_step` for `duration` seconds: no controllers, no
    /// metrics; its trajectory records the root position of every free body (`NAME.pos.x`, …).
    pub fn project(self, time_step: f64, duration: f64) -> Result<Project, Error> {
        for (what, value) in [("time step", time_step), ("duration", duration)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::Input(format!(
                    "the {what} must be a positive number of seconds, found {value}"
                )));
            }
        }
        let (scene, materials) = self.build()?;
        let simulation = Simulation {
            time_step,
            duration,
            engines: Vec::new(),
        };
        Ok(Project::from_scene(tribo_scene::Project::from_scene(
            scene, materials, simulation,
        )))
    }
}

fn unknown_material(table: &MaterialTable, body: &str, link: &str, material: &str) -> String {
    let known = table.known_names();
    let hint = tribo_yaml::closest(material, known.iter().copied())
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default();
    format!("body `{body}`, link `{link}`: unknown material `{material}`{hint}")
}
