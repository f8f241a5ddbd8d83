//! `<worldbody>` and its `<body>` tree as tribo links.
//!
//! - Every `<body>` is a link named after it (`bodyN` when unnamed, N being MuJoCo's body id:
//!   the world is 0, then bodies in file order); its frame is the body frame moved to its joint's
//!   `pos` ([`super::joint`]).
//! - The world: a floating body (`<freejoint>`) of the world is the root, and must be the world's
//!   only body (tribo's model is one tree with one floating root); the world's geoms (a floor) are
//!   then left out with a note — a project gives its ground as a body of its own. A single body of
//!   the world without joints, beside no world geoms, is the root, welded to the world. Otherwise
//!   the root is a link `world` welded to the world, holding the world's geoms, with the world's
//!   bodies below it (so a body of the world may turn on a hinge).
//! - Movable joints get ids 0, 1, … in MuJoCo's joint order (depth-first through the bodies,
//!   siblings in file order): the order of MuJoCo's `qpos`, and what a project's
//!   `joint_positions:` list and `.seq` columns index.
//! - Mass: `<inertial pos quat mass diaginertia|fullinertia>` (`fullinertia` is `ixx iyy izz ixy
//!   ixz iyz`), the inertia turned from the inertial frame into the body frame, `I = R I' Rᵀ`;
//!   without `<inertial>` (or always, with `inertiafromgeom="true"`) the sum of the geoms' solids
//!   about their common centre of mass (parallel-axis theorem).
//! - `<site>`, `<camera>` and `<light>` are not physical and are skipped; `<frame>`, composites,
//!   flexes, plugins and attachments are refused.

use std::path::Path;

use nalgebra::{Isometry3, Matrix3, Translation3, Vector3};
use tribo_yaml::{Diagnostic, Error, Location};

use super::assets::Assets;
use super::compiler::{Compiler, InertiaFromGeom};
use super::defaults::{Attrs, Defaults, MAIN};
use super::frame::{fixed, pose};
use super::geom::{filter_note, read_geom, Geom, Solid};
use super::joint::{read_joint, BodyJoint};
use super::schema::check_attributes;
use super::xml::Element;
use super::GeomFriction;
use crate::{Joint, JointKind, Link};

/// Children of a body that carry nothing physical.
const SKIPPED: [&str; 3] = ["site", "camera", "light"];

/// Children of a body that are read.
const READ: [&str; 5] = ["body", "geom", "joint", "freejoint", "inertial"];

/// The links of a model, their geoms' friction, and notes.
pub(crate) struct Tree {
    pub links: Vec<Link>,
    pub frictions: Vec<GeomFriction>,
    pub notes: Vec<Diagnostic>,
}

struct Builder<'a> {
    defaults: &'a Defaults,
    compiler: &'a Compiler,
    assets: Assets,
    links: Vec<Link>,
    frictions: Vec<GeomFriction>,
    notes: Vec<Diagnostic>,
    /// The next MuJoCo body id (for unnamed bodies).
    next_body: usize,
    next_joint_id: usize,
}

/// The link tree of `<mujoco>`; `model_dir` is where mesh directories are relative to.
pub(crate) fn read_tree(
    mujoco: &Element,
    defaults: &Defaults,
    compiler: &Compiler,
    model_dir: &Path,
) -> Result<Tree, Error> {
    let assets = Assets::read(mujoco, defaults, compiler, model_dir)?;
    let mut builder = Builder {
        defaults,
        compiler,
        assets,
        links: Vec::new(),
        frictions: Vec::new(),
        notes: Vec::new(),
        next_body: 1,
        next_joint_id: 0,
    };
    let worlds: Vec<&Element> = mujoco.children_named("worldbody").collect();
    let mut world = Element {
        tag: "worldbody".to_string(),
        attrs: Vec::new(),
        children: worlds.iter().flat_map(|w| w.children.iter().cloned()).collect(),
        at: worlds.first().map_or_else(|| mujoco.at.clone(), |w| w.at.clone()),
    };
    world.children.retain(|c| !SKIPPED.contains(&c.tag.as_str()));
    builder.world(&world)?;
    Ok(Tree {
        links: builder.links,
        frictions: builder.frictions,
        notes: builder.notes,
    })
}

impl Builder<'_> {
    fn world(&mut self, world: &Element) -> Result<(), Error> {
        refuse_unknown(world)?;
        let bodies: Vec<&Element> = world.children_named("body").collect();
        let geoms: Vec<&Element> = world.children_named("geom").collect();
        if bodies.is_empty() && geoms.is_empty() {
            return Err(Diagnostic::error(
                world.at.clone(),
                "the model has no bodies and no geoms in <worldbody>",
            ));
        }
        let mut floating: Vec<Location> = Vec::new();
        for body in &bodies {
            floating.extend(self.free_joint(body)?);
        }
        if let Some(at) = floating.first().filter(|_| bodies.len() > 1) {
            return Err(Diagnostic::error(
                at.clone(),
                format!(
                    "a floating body beside {} other bodies of the world: tribo's model is one tree with one floating root (give each floating body its own file)",
                    bodies.len() - 1
                ),
            ));
        }
        let single_root =
            bodies.len() == 1 && (!floating.is_empty() || (geoms.is_empty() && self.joint_count(bodies[0]) == 0));
        if single_root {
            for geom in &geoms {
                let name = geom.attr("name").map_or("(unnamed)", |a| a.value.as_str());
                self.notes.push(Diagnostic::warning(
                    geom.at.clone(),
                    format!(
                        "geom `{name}` of the world is not part of the model: its root floats, and a project gives the ground as a body of its own"
                    ),
                ));
            }
            self.body(bodies[0], None, Vector3::zeros(), MAIN, true, true)?;
            return Ok(());
        }
        let mut root = Link::new("world", None, world.at.clone());
        root.joint = Joint::new(JointKind::Fixed, "world");
        root.mass = 0.0;
        root.inertia = Matrix3::zeros();
        self.links.push(root);
        let read = self.geoms(world, "world", MAIN, true, false)?;
        self.finish_link(0, read, Vector3::zeros());
        for body in bodies {
            self.body(body, Some(0), Vector3::zeros(), MAIN, true, true)?;
        }
        Ok(())
    }

    /// Where a body's free joint is written, if it has one.
    fn free_joint(&self, body: &Element) -> Result<Option<Location>, Error> {
        let class = match body.attr("childclass") {
            Some(c) => {
                self.defaults.check_class(c)?;
                c.value.as_str()
            }
            None => MAIN,
        };
        for joint in &body.children {
            if joint.tag == "freejoint" {
                return Ok(Some(joint.at.clone()));
            }
            if joint.tag == "joint" && self.defaults.resolve(joint, class)?.text("type") == Some("free") {
                return Ok(Some(joint.at.clone()));
            }
        }
        Ok(None)
    }

    fn joint_count(&self, body: &Element) -> usize {
        body.children
            .iter()
            .filter(|c| c.tag == "joint" || c.tag == "freejoint")
            .count()
    }

    /// Read `element` as a link below `parent`; `parent_shift` is where the parent's link frame
    /// sits in the parent's body frame (its joint's `pos`).
    fn body(
        &mut self,
        element: &Element,
        parent: Option<usize>,
        parent_shift: Vector3<f64>,
        inherited: &str,
        of_world: bool,
        static_chain: bool,
    ) -> Result<usize, Error> {
        refuse_unknown(element)?;
        check_attributes(element)?;
        let id = self.next_body;
        self.next_body += 1;
        let own = Attrs::own(element);
        let class = match element.attr("childclass") {
            Some(c) => {
                self.defaults.check_class(c)?;
                c.value.as_str()
            }
            None => inherited,
        };
        let name = own.text("name").map_or_else(|| format!("body{id}"), str::to_string);
        let body_pose = pose(&own, self.compiler)?;
        let joint = read_joint(element, &name, self.defaults, class, self.compiler, &mut self.notes)?;
        let mut link = Link::new(name.clone(), parent, element.at.clone());
        let (shift, reference) = match joint {
            BodyJoint::Welded => (Vector3::zeros(), Isometry3::identity()),
            BodyJoint::Free { name: joint_name, at } => {
                if !of_world {
                    return Err(Diagnostic::error(
                        at,
                        format!(
                            "free joint `{joint_name}` on body `{name}`, which is not a body of the world: only tribo's root link floats"
                        ),
                    ));
                }
                link.joint = Joint::new(JointKind::Free, joint_name);
                (Vector3::zeros(), Isometry3::identity())
            }
            BodyJoint::Moving {
                mut joint,
                pos,
                reference,
            } => {
                joint.id = Some(self.next_joint_id);
                self.next_joint_id += 1;
                link.joint = joint;
                (pos, reference)
            }
        };
        let is_static = static_chain && link.joint.kind == JointKind::Fixed;
        link.offset = Translation3::from(-parent_shift) * body_pose * Translation3::from(shift) * reference.inverse();
        let index = self.links.len();
        self.links.push(link);
        let read = self.geoms(element, &name, class, is_static, true)?;
        let (mass, centre, inertia) = self.mass(element, &read)?;
        {
            let link = &mut self.links[index];
            link.mass = mass;
            link.center_of_mass = centre - shift;
            link.inertia = inertia;
        }
        self.finish_link(index, read, shift);
        if let Err(message) = self.links[index].check_numbers() {
            return Err(Diagnostic::error(element.at.clone(), message));
        }
        for child in element.children_named("body") {
            self.body(child, Some(index), shift, class, false, is_static)?;
        }
        Ok(index)
    }

    /// The geoms of a body (or the world), read.
    fn geoms(
        &mut self,
        element: &Element,
        body: &str,
        class: &str,
        is_static: bool,
        mass_counts: bool,
    ) -> Result<Vec<Geom>, Error> {
        let has_inertial = element.children_named("inertial").next().is_some();
        let needs_mass = mass_counts
            && match self.compiler.inertia_from_geom {
                InertiaFromGeom::Always => true,
                InertiaFromGeom::Auto => !has_inertial,
                InertiaFromGeom::Never => false,
            };
        let mut out = Vec::new();
        for (n, geom) in element.children_named("geom").enumerate() {
            check_attributes(geom)?;
            let attrs = self.defaults.resolve(geom, class)?;
            let mut read = read_geom(&attrs, n + 1, self.compiler, &mut self.assets, needs_mass)?;
            read.notes.extend(filter_note(&attrs, &read.name)?);
            if read.type_name == "plane" && !is_static {
                return Err(Diagnostic::error(
                    read.at.clone(),
                    format!(
                        "plane geom `{}` in body `{body}`, which moves: MuJoCo allows planes only on the world and bodies welded to it",
                        read.name
                    ),
                ));
            }
            out.push(read);
        }
        Ok(out)
    }

    /// The body's mass, centre of mass and inertia (body frame) from `<inertial>` or its geoms.
    fn mass(&self, element: &Element, geoms: &[Geom]) -> Result<(f64, Vector3<f64>, Matrix3<f64>), Error> {
        let inertial = element.children_named("inertial").next();
        let from_geoms = match self.compiler.inertia_from_geom {
            InertiaFromGeom::Always => true,
            InertiaFromGeom::Auto => inertial.is_none(),
            InertiaFromGeom::Never => false,
        };
        if from_geoms {
            return Ok(combined(geoms.iter().map(|g| g.solid)));
        }
        let Some(inertial) = inertial else {
            return Ok((0.0, Vector3::zeros(), Matrix3::zeros()));
        };
        check_attributes(inertial)?;
        let attrs = Attrs::own(inertial);
        let frame = pose(&attrs, self.compiler)?;
        let [mass] = fixed(&attrs, "mass")?;
        let in_frame = match (attrs.get("diaginertia"), attrs.get("fullinertia")) {
            (Some(_), Some(full)) => {
                return Err(Diagnostic::error(
                    full.at.clone(),
                    "<inertial> gives both `diaginertia` and `fullinertia`",
                ))
            }
            (Some(_), None) => {
                let d: [f64; 3] = fixed(&attrs, "diaginertia")?;
                Matrix3::from_diagonal(&Vector3::from(d))
            }
            (None, Some(_)) => {
                let [xx, yy, zz, xy, xz, yz]: [f64; 6] = fixed(&attrs, "fullinertia")?;
                Matrix3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz)
            }
            (None, None) => {
                return Err(Diagnostic::error(
                    attrs.at(),
                    "<inertial> needs `diaginertia` or `fullinertia`",
                ))
            }
        };
        let r = frame.rotation.to_rotation_matrix();
        Ok((
            mass,
            frame.translation.vector,
            r.matrix() * in_frame * r.matrix().transpose(),
        ))
    }

    /// Shapes, notes, material and friction records of link `index` from its geoms; `shift`
    /// moves body-frame poses into the link frame.
    fn finish_link(&mut self, index: usize, geoms: Vec<Geom>, shift: Vector3<f64>) {
        let to_link = Isometry3::from(Translation3::from(-shift));
        let mut material: Option<String> = None;
        for geom in geoms {
            let link = &mut self.links[index];
            if let Some(note) = geom.uncollided {
                self.notes.push(note.clone());
                link.uncollided.push(note);
            }
            self.notes.extend(geom.notes);
            let Some(mut shape) = geom.shape else { continue };
            shape.pose = to_link * shape.pose;
            link.shapes.push(shape);
            let name = super::friction::material_name(geom.friction[0]);
            match &material {
                None => {
                    link.material = name.clone();
                    link.material_location = Some(geom.at.clone());
                    material = Some(name);
                }
                Some(first) if *first != name => self.notes.push(Diagnostic::warning(
                    geom.at.clone(),
                    format!(
                        "geom `{}` has friction {} but link `{}` takes the material of its first colliding geom, `{first}` (tribo's materials are per link)",
                        geom.name, geom.friction[0], link.name
                    ),
                )),
                Some(_) => {}
            }
            self.frictions.push(GeomFriction {
                link: link.name.clone(),
                geom: geom.name,
                location: geom.at,
                friction: geom.friction,
                material: link.material.clone(),
            });
        }
    }
}

/// Solids combined: total mass, common centre, inertia about it (parallel-axis theorem).
fn combined(solids: impl Iterator<Item = Solid> + Clone) -> (f64, Vector3<f64>, Matrix3<f64>) {
    let mass: f64 = solids.clone().map(|s| s.mass).sum();
    if mass <= 0.0 {
        return (0.0, Vector3::zeros(), Matrix3::zeros());
    }
    let centre = solids.clone().map(|s| s.centre * s.mass).sum::<Vector3<f64>>() / mass;
    let inertia = solids
        .map(|s| {
            let d = s.centre - centre;
            s.inertia + (Matrix3::identity() * d.dot(&d) - d * d.transpose()) * s.mass
        })
        .sum();
    (mass, centre, inertia)
}

/// An error for a child element the import does not read and cannot skip.
fn refuse_unknown(element: &Element) -> Result<(), Error> {
    for child in &element.children {
        let tag = child.tag.as_str();
        if READ.contains(&tag) || SKIPPED.contains(&tag) {
            continue;
        }
        let hint = tribo_yaml::did_you_mean(tag, READ.iter().copied());
        return Err(Diagnostic::error(
            child.at.clone(),
            format!(
                "<{tag}> in <{}> is not supported (the import reads {}; sites, cameras and lights are skipped){hint}",
                element.tag,
                READ.map(|t| format!("<{t}>")).join(", ")
            ),
        ));
    }
    Ok(())
}
