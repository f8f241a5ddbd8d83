//! The contact-host interface: how a contact extension (the lattice of the `cslc` engine) runs on
//! top of a host engine (`pgs`, `rapier`) without knowing which one.
//!
//! The extension computes its contact forces from the state at the start of a step, then hands
//! the host, in one call ([`ContactHost::step_with`]), everything the step needs:
//! - **compliant points** ([`CompliantPoint`]): a force at the start of the step and its
//!   stiffness and damping with respect to the relative motion of the two links, which the host
//!   integrates implicitly (or as stably as its own solver allows — each host documents how),
//!   inside the friction cone `‖f_t‖ ≤ μ f_n`;
//! - **wrenches** ([`HostWrench`]): pure forces and torques on links for the step (the part of
//!   the extension's wrench the points do not carry).
//!
//! The host answers with its step report and the force it applied at each point. There is no
//! ordering contract between calls and nothing the extension hands over can be dropped: a point
//! or wrench that names a link outside the scene is an error
//! ([`StepError::InvalidCommand`](crate::StepError::InvalidCommand)), not a silent no-op.

use std::sync::Arc;

use nalgebra::Vector3;

use crate::{BodyCommands, BuildError, Commands, Engine, EngineOptions, LinkRef, Scene, StepError, StepReport};

/// A compliant contact point for one hosted step.
///
/// Along each axis `d` of the contact frame `[n, t₁, t₂]`, with the relative velocity `v_d⁺` of
/// `b` against `a` at the end of the step, the host applies (backward Euler on the spring)
///
/// `f_d⁺ = f_d − (k_d h + c) v_d⁺`,
///
/// with `f_n⁺ ≥ 0` and `‖f_t⁺‖ ≤ μ f_n⁺`. At rest (`v⁺ = 0`) the applied force is exactly
/// `force`: the extension's model decides the forces, the implicit increment keeps stiff patches
/// stable at the host's step.
#[derive(Debug, Clone, PartialEq)]
pub struct CompliantPoint {
    /// The link pushing (receives `−force`).
    pub a: LinkRef,
    /// The link pushed (receives `force`).
    pub b: LinkRef,
    /// World point, m.
    pub point: Vector3<f64>,
    /// Unit normal from `a` to `b`, world.
    pub normal: Vector3<f64>,
    /// Force on `b` at the start of the step (normal and tangential), N.
    pub force: Vector3<f64>,
    /// Normal stiffness `∂f_n/∂(approach)`, N/m (> 0).
    pub normal_stiffness: f64,
    /// Tangential stiffness, N/m (> 0).
    pub tangential_stiffness: f64,
    /// Viscous damping on all three axes, N·s/m (≥ 0).
    pub damping: f64,
    /// Coulomb friction coefficient.
    pub friction: f64,
}

impl CompliantPoint {
    /// Why this point cannot be integrated (non-finite or negative stiffness, damping or
    /// friction, or `k h + c ≤ 0` on an axis), if it cannot.
    pub fn invalid(&self, h: f64) -> Option<String> {
        let values = [
            self.normal_stiffness,
            self.tangential_stiffness,
            self.damping,
            self.friction,
        ];
        // Component by component: the hosts check every point of every step.
        let finite = [&self.point, &self.normal, &self.force]
            .iter()
            .all(|v| v.x.is_finite() && v.y.is_finite() && v.z.is_finite());
        let positive = [self.normal_stiffness, self.tangential_stiffness]
            .iter()
            .all(|k| *k * h + self.damping > 0.0);
        if finite && positive && values.iter().all(|v| v.is_finite() && *v >= 0.0) {
            None
        } else {
            Some(format!(
                "a compliant contact point between {:?} and {:?} needs finite stiffnesses > 0, damping ≥ 0 and \
                 friction ≥ 0, found {self:?}",
                self.a, self.b
            ))
        }
    }
}

/// A pure wrench on a link for one hosted step (world frame, about the link origin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostWrench {
    pub link: LinkRef,
    /// N, world frame.
    pub force: Vector3<f64>,
    /// N·m, world frame, about the link origin.
    pub torque: Vector3<f64>,
}

/// What an extension hands its host for one step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostedContacts {
    pub points: Vec<CompliantPoint>,
    pub wrenches: Vec<HostWrench>,
}

impl HostedContacts {
    /// The first point or wrench naming a link that the scene does not have, as an error.
    pub fn check_links(&self, scene: &Scene) -> Result<(), StepError> {
        let exists = |l: &LinkRef| scene.bodies.get(l.body).is_some_and(|b| l.link < b.model.links.len());
        let bad = self
            .points
            .iter()
            .flat_map(|p| [p.a, p.b])
            .chain(self.wrenches.iter().map(|w| w.link))
            .find(|l| !exists(l));
        match bad {
            None => Ok(()),
            Some(l) => Err(StepError::InvalidCommand {
                what: format!(
                    "a hosted contact names link {} of body {}, which the scene does not have",
                    l.link, l.body
                ),
            }),
        }
    }
}

impl HostedContacts {
    /// `commands` with the extension's wrenches added to their links' bodies. Bodies that
    /// `commands` does not list get idle commands first, so no wrench is lost.
    pub fn merged_commands(&self, commands: &Commands, scene: &Scene) -> Commands {
        let mut merged = Commands::default();
        self.merge_commands_into(commands, scene, &mut merged);
        merged
    }

    /// [`HostedContacts::merged_commands`] into `merged`, reusing its storage.
    pub fn merge_commands_into(&self, commands: &Commands, scene: &Scene, merged: &mut Commands) {
        let listed = commands.bodies.len();
        let total = listed.max(scene.bodies.len());
        // Not `Vec::clone_from`, which would drop the idle bodies' storage past `listed`.
        merged.bodies.truncate(total);
        merged.bodies.resize_with(total, BodyCommands::default);
        for (b, body) in merged.bodies.iter_mut().enumerate() {
            match commands.bodies.get(b) {
                Some(given) => body.clone_from(given),
                None => body.make_idle(scene.bodies.get(b).map_or(0, |s| s.model.links.len())),
            }
        }
        for w in &self.wrenches {
            if let Some(body) = merged.bodies.get_mut(w.link.body) {
                body.link_wrenches.push(crate::LinkWrench {
                    link: w.link.link,
                    force: w.force,
                    torque: w.torque,
                });
            }
        }
    }
}

/// The host's answer to one hosted step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostedStep {
    pub report: StepReport,
    /// Force applied on `b` at each point of [`HostedContacts::points`], in order, world, N
    /// (the mean over the step).
    pub point_forces: Vec<Vector3<f64>>,
}

/// An engine that can carry a contact extension.
pub trait ContactHost: Engine {
    /// Rigid contacts between these link pairs (either order) are the extension's; the host
    /// leaves them out from now on.
    fn exclude_pairs(&mut self, pairs: &[(LinkRef, LinkRef)]);

    /// Whether the host collides the links of scene body `body` with each other: the body's
    /// self-collision flag, or what the host's options make of it. An extension's pads touch
    /// their own body's links only where this holds (and then by
    /// [`tribo_model::RigidGroups::may_self_touch`], the host's own rule).
    fn self_collides(&self, body: usize) -> bool;

    /// Advance by `dt` with `commands` and the extension's contacts for this step.
    fn step_with(&mut self, dt: f64, commands: &Commands, extension: &HostedContacts) -> Result<HostedStep, StepError>;
}

/// Builds hosts of one kind: an engine factory whose engines can also carry an extension.
pub trait HostFactory: crate::EngineFactory {
    /// The host engine's registry name (`pgs`, `rapier`).
    fn host_name(&self) -> &'static str;

    /// How the host integrates compliant points, for `tribo engines` (one line).
    fn coupling(&self) -> &'static str;

    fn build_host(&self, scene: &Arc<Scene>, options: &EngineOptions) -> Result<Box<dyn ContactHost>, BuildError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point() -> CompliantPoint {
        CompliantPoint {
            a: LinkRef { body: 0, link: 0 },
            b: LinkRef { body: 1, link: 2 },
            point: Vector3::new(0.1, -0.2, 0.3),
            normal: Vector3::z(),
            force: Vector3::new(0.5, 0.0, 2.0),
            normal_stiffness: 1e4,
            tangential_stiffness: 5e3,
            damping: 3.0,
            friction: 0.6,
        }
    }

    #[test]
    fn a_point_is_invalid_for_any_non_finite_component_or_bad_coefficient() {
        let h = 1e-3;
        assert_eq!(point().invalid(h), None);
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for axis in 0..3 {
                let fields: [fn(&mut CompliantPoint) -> &mut Vector3<f64>; 3] =
                    [|p| &mut p.point, |p| &mut p.normal, |p| &mut p.force];
                for field in fields {
                    let mut p = point();
                    field(&mut p)[axis] = bad;
                    assert!(p.invalid(h).is_some(), "{p:?}");
                }
            }
        }
        let mut negative = point();
        negative.friction = -0.1;
        assert!(negative.invalid(h).is_some());
        // k h + c must be positive on every axis.
        let mut limp = point();
        (limp.tangential_stiffness, limp.damping) = (0.0, 0.0);
        assert!(limp.invalid(h).is_some());
        let mut damped = limp.clone();
        damped.damping = 1.0;
        assert_eq!(damped.invalid(h), None);
    }
}
