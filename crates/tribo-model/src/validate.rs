//! Whether the engines can simulate a body as a scene places it: the checks the engines made at
//! build time, made once, before any engine is built, and located at the `.body` line of the
//! offending link.
//!
//! [`validate`] accepts a body when
//! 1. its links are in depth-first order (the root first, every parent before its children) and
//!    every number is finite, masses ≥ 0 ([`Link::check_numbers`]);
//! 2. the root joint is `free` or `fixed`, and no other link has a `free` joint (a floating
//!    sub-body is its own body in the scene);
//! 3. every rigid group that moves dynamically has a positive-definite spatial inertia: mass
//!    m > 0 and an inertia tensor about its centre of mass whose eigenvalues are all positive.
//!
//! Closed loops (`extra_joints`) are each engine's business: see
//! [`refuse_closed_loops`](crate::refuse_closed_loops).
//!
//! **Rigid groups.** Links welded by `fixed` joints move as one rigid body, the *carrier* (the
//! nearest ancestor, or the link itself, whose joint moves: the root, a revolute or a prismatic
//! joint), as every engine builds them. A group moves dynamically unless it is the root group of
//! a body whose root is held by the world (a `fixed` root joint, or `fixed: true` in the project).
//! So a fixed floor of mass 0 is fine (Choreonoid's convention: a static link's mass is never
//! used), and so is a massless link welded to a link that has mass (a sensor frame); a massless
//! free body, a massless leaf on a revolute joint, or a zero inertia tensor on a moving group is
//! not.
//!
//! **Self-collision.** A body that collides with itself collides two of its links only if they
//! lie on different rigid groups that no joint connects directly
//! ([`RigidGroups::may_self_touch`]): the links on either side of a joint overlap at the joint by
//! construction in most models (Choreonoid's and rapier's convention alike), and a welded group is
//! one rigid body. Every engine applies this rule: `tribo-pgs` and `tribo-rapier` to their rigid
//! shapes, `tribo-cslc-engine` to its pads.
//!
//! **Why rule 3.** The joint-space mass matrix is `M = Σᵢ Jᵢᵀ Îᵢ Jᵢ` over the rigid groups i
//! (Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §6.2, with Jᵢ the group's 6 × nv
//! Jacobian). When every Îᵢ is positive definite, `vᵀ M v = Σᵢ ‖Jᵢ v‖²_Îᵢ` vanishes only when
//! every group is at rest, i.e. v = 0 (each joint's motion subspace has full rank): M is positive
//! definite and every engine can invert it. A 6 × 6 spatial inertia is positive definite exactly
//! when m > 0 and the 3 × 3 inertia about the centre of mass is (RBDA §2.13).
//!
//! **Tolerance.** The smallest eigenvalue of the inertia tensor must exceed `3 ε λ_max`
//! (ε = f64 machine epsilon): a symmetric matrix's computed eigenvalues are exact to within
//! about `ε ‖I‖₂` (Golub & Van Loan, *Matrix Computations*, 4th ed., §8.1.2, Weyl's bound), so a
//! smaller one cannot be told from 0. The tolerance is relative, so a 1e12 kg link and a 1 g link
//! are judged alike.

use nalgebra::{Isometry3, Matrix3, SymmetricEigen, Vector3};
use tribo_yaml::{Diagnostic, Location};

use crate::{Body, JointKind, Link};

/// Checks that every engine can simulate `body` (module docs). `root_held`: the root is welded to
/// the world by the scene (`fixed: true`) whatever its joint; a `fixed` root joint holds it too.
/// The error is located at the offending link's definition.
pub fn validate(body: &Body, root_held: bool) -> Result<(), Diagnostic> {
    let links = &body.links;
    let Some(root) = links.first() else {
        return Err(Diagnostic::error(
            Location::file(body.source.as_ref()),
            format!("body `{}` has no links", body.name),
        ));
    };
    let held = root_held || root.joint.kind == JointKind::Fixed;
    let RigidGroups {
        carrier,
        link_in_carrier,
        ..
    } = rigid_groups(body)?;

    let mut groups = vec![Group::default(); links.len()];
    for (i, link) in links.iter().enumerate() {
        groups[carrier[i]].add(link, &link_in_carrier[i]);
    }
    for (c, group) in groups.iter().enumerate() {
        if carrier[c] != c || (c == 0 && held) {
            continue;
        }
        let link = &links[c];
        let welded = if group.len() > 1 {
            " with the links welded to it"
        } else {
            ""
        };
        let motion = if c == 0 {
            "a free root".to_owned()
        } else {
            format!("its {} joint `{}`", link.joint.kind.name(), link.joint.name)
        };
        if group.mass() <= 0.0 {
            return Err(located(
                link,
                format!(
                    "link `{}`{welded} has mass 0 but moves ({motion}); a moving link needs a positive \
                     mass (only a fixed root may be massless)",
                    link.name
                ),
            ));
        }
        if let Some(smallest) = group.singular_inertia() {
            return Err(located(
                link,
                format!(
                    "link `{}`{welded} has an inertia tensor that is not positive definite (smallest \
                     principal moment {smallest:e} kg·m² about its centre of mass) but moves ({motion}); \
                     a moving link needs three positive principal moments",
                    link.name
                ),
            ));
        }
    }
    Ok(())
}

/// Which link carries each link's rigid body, and where the link sits on it (module docs, *Rigid
/// groups*); every engine that merges welded links builds its bodies from this.
#[derive(Debug, Clone)]
pub struct RigidGroups {
    /// Index of the link whose rigid body carries link `i` (`carrier[i] == i` for carriers).
    pub carrier: Vec<usize>,
    /// Pose of link `i`'s frame in its carrier's frame.
    pub link_in_carrier: Vec<Isometry3<f64>>,
    /// The carrier of the group a joint connects link `i`'s group to: the carrier of its
    /// carrier's parent link (`None` for the root group).
    pub parent_carrier: Vec<Option<usize>>,
}

impl RigidGroups {
    /// Whether links `a` and `b` of one body may touch each other when the body collides with
    /// itself — every engine's rule (module docs, *Self-collision*): they ride on different rigid
    /// groups, and no joint connects those two groups directly. Welded links never touch, nor do
    /// two links on either side of one joint, whichever of the welded links they are.
    pub fn may_self_touch(&self, a: usize, b: usize) -> bool {
        let (Some(&ca), Some(&cb)) = (self.carrier.get(a), self.carrier.get(b)) else {
            return false;
        };
        let parent = |c: usize| self.parent_carrier.get(c).copied().flatten();
        ca != cb && parent(ca) != Some(cb) && parent(cb) != Some(ca)
    }
}

/// The rigid groups of `body`, checking rules 1 and 2 of the module docs on the way (located at the
/// offending link).
pub fn rigid_groups(body: &Body) -> Result<RigidGroups, Diagnostic> {
    let links = &body.links;
    if links.is_empty() {
        return Err(Diagnostic::error(
            Location::file(body.source.as_ref()),
            format!("body `{}` has no links", body.name),
        ));
    }
    let mut carrier = vec![0usize; links.len()];
    let mut link_in_carrier = vec![Isometry3::identity(); links.len()];
    for (i, link) in links.iter().enumerate() {
        link.check_numbers().map_err(|message| located(link, message))?;
        match (i, link.parent) {
            (0, None) => {
                if matches!(link.joint.kind, JointKind::Revolute | JointKind::Prismatic) {
                    return Err(located(
                        link,
                        format!(
                            "the root link `{}` has a {} joint; a root joint must be free or fixed",
                            link.name,
                            link.joint.kind.name()
                        ),
                    ));
                }
            }
            (0, Some(_)) => return Err(located(link, format!("the root link `{}` has a parent", link.name))),
            (_, None) => {
                return Err(located(
                    link,
                    format!("link `{}` is not the root but has no parent", link.name),
                ))
            }
            (_, Some(p)) if p >= i => {
                return Err(located(
                    link,
                    format!(
                        "link `{}` comes before its parent (links must be in depth-first order)",
                        link.name
                    ),
                ))
            }
            (_, Some(p)) => match link.joint.kind {
                JointKind::Fixed => {
                    carrier[i] = carrier[p];
                    link_in_carrier[i] = link_in_carrier[p] * link.offset;
                }
                JointKind::Revolute | JointKind::Prismatic => carrier[i] = i,
                JointKind::Free => {
                    return Err(located(
                        link,
                        format!(
                            "link `{}` has a free joint, but only the root link of a body can be free \
                             (make it the root of a body of its own)",
                            link.name
                        ),
                    ))
                }
            },
        }
    }

    let parent_carrier = carrier.iter().map(|&c| links[c].parent.map(|p| carrier[p])).collect();
    Ok(RigidGroups {
        carrier,
        link_in_carrier,
        parent_carrier,
    })
}

fn located(link: &Link, message: String) -> Diagnostic {
    Diagnostic::error(link.location.clone(), message)
}

/// The links of a rigid group, each as (mass kg, centre of mass m, inertia about it kg·m²) in the
/// carrier's frame.
#[derive(Debug, Clone, Default)]
struct Group {
    parts: Vec<(f64, Vector3<f64>, Matrix3<f64>)>,
}

impl Group {
    fn add(&mut self, link: &Link, pose: &Isometry3<f64>) {
        let rotation = pose.rotation.to_rotation_matrix();
        let c = pose.transform_point(&link.center_of_mass.into()).coords;
        let inertia = rotation.matrix() * link.inertia * rotation.matrix().transpose();
        self.parts.push((link.mass, c, inertia));
    }

    fn len(&self) -> usize {
        self.parts.len()
    }

    fn mass(&self) -> f64 {
        self.parts.iter().map(|p| p.0).sum()
    }

    /// The smallest principal moment about the centre of mass when it is not clearly positive
    /// (module docs, *Tolerance*); `None` for a positive-definite tensor. Needs mass > 0.
    fn singular_inertia(&self) -> Option<f64> {
        // Parallel-axis theorem about the group's centre C = Σ mᵢ cᵢ / m (RBDA §2.13):
        // I_C = Σ Iᵢ + mᵢ (|dᵢ|² E − dᵢ dᵢᵀ), dᵢ = cᵢ − C, so a lone link is judged on its own tensor.
        let mass = self.mass();
        let com = self.parts.iter().map(|p| p.1 * p.0).sum::<Vector3<f64>>() / mass;
        let at_com: Matrix3<f64> = self
            .parts
            .iter()
            .map(|(m, c, i)| {
                let d = c - com;
                i + (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * *m
            })
            .sum();
        let symmetric = (at_com + at_com.transpose()) * 0.5;
        let eigenvalues = SymmetricEigen::new(symmetric).eigenvalues;
        let (smallest, largest) = (eigenvalues.min(), eigenvalues.max());
        let tolerance = 3.0 * f64::EPSILON * largest.abs();
        (!(largest > 0.0 && smallest > tolerance)).then_some(smallest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Joint;
    use std::sync::Arc;

    fn at(line: usize) -> Location {
        Location {
            file: Arc::from("robot.body"),
            line,
            col: 5,
        }
    }

    fn link(name: &str, parent: Option<usize>, kind: JointKind, mass: f64, line: usize) -> Link {
        let mut link = Link::new(name, parent, at(line));
        link.joint = Joint::new(kind, name);
        link.joint.axis = Vector3::y();
        link.mass = mass;
        link.inertia = Matrix3::identity() * mass * 0.01;
        link
    }

    fn body(links: Vec<Link>) -> Body {
        Body::from_links("robot", links).expect("a valid tree")
    }

    #[test]
    fn a_held_root_may_be_massless_but_a_free_one_may_not() {
        let floor = body(vec![link("floor", None, JointKind::Fixed, 0.0, 3)]);
        assert!(validate(&floor, false).is_ok());
        let ghost = body(vec![link("ghost", None, JointKind::Free, 0.0, 3)]);
        assert!(validate(&ghost, true).is_ok(), "fixed by the scene");
        let error = validate(&ghost, false).expect_err("a free massless root");
        assert_eq!(error.location, at(3));
        assert!(error.message.contains("has mass 0 but moves (a free root)"), "{error}");
    }

    #[test]
    fn a_massless_moving_leaf_is_located_at_its_link() {
        let arm = body(vec![
            link("base", None, JointKind::Fixed, 0.0, 3),
            link("arm", Some(0), JointKind::Revolute, 1.0, 9),
            link("hand", Some(1), JointKind::Revolute, 0.0, 17),
        ]);
        let error = validate(&arm, false).expect_err("massless hand");
        assert_eq!(error.to_string(), format!("{}: {}", at(17), error.message));
        assert!(
            error
                .message
                .starts_with("link `hand` has mass 0 but moves (its revolute joint `hand`)"),
            "{error}"
        );
    }

    #[test]
    fn self_touching_links_lie_on_groups_no_joint_connects() {
        // base ─(weld)─ anvil, base ─(slider)─ arm ─(weld)─ plate, arm ─(hinge)─ finger
        let robot = body(vec![
            link("base", None, JointKind::Fixed, 1.0, 3),
            link("anvil", Some(0), JointKind::Fixed, 1.0, 5),
            link("arm", Some(0), JointKind::Prismatic, 1.0, 7),
            link("plate", Some(2), JointKind::Fixed, 1.0, 9),
            link("finger", Some(2), JointKind::Revolute, 1.0, 11),
        ]);
        let groups = rigid_groups(&robot).expect("valid");
        assert_eq!(groups.parent_carrier, vec![None, None, Some(0), Some(0), Some(2)]);
        let touch = |a, b| {
            let (ab, ba) = (groups.may_self_touch(a, b), groups.may_self_touch(b, a));
            assert_eq!(ab, ba, "links {a} and {b}: the rule is symmetric");
            ab
        };
        assert!(!touch(0, 1), "welded");
        assert!(!touch(2, 3), "welded");
        assert!(
            !touch(1, 2),
            "the anvil rides on the base, which the slider joins to the arm"
        );
        assert!(
            !touch(1, 3),
            "the plate rides on the arm: one joint away from the anvil's base"
        );
        assert!(!touch(3, 4), "the plate rides on the arm, the finger's parent");
        assert!(touch(0, 4) && touch(1, 4), "two joints apart");
        assert!(!touch(4, 4), "a link and itself");
        assert!(!touch(0, 9), "a link the body does not have");
    }

    #[test]
    fn welded_links_are_judged_together() {
        // A massless sensor frame welded to a hand that has mass is fine; a massless frame welded
        // to a massless hand is not, and the error names the moving (carrier) link.
        let mut links = vec![
            link("base", None, JointKind::Fixed, 0.0, 3),
            link("hand", Some(0), JointKind::Revolute, 1.0, 9),
            link("sensor", Some(1), JointKind::Fixed, 0.0, 15),
        ];
        assert!(validate(&body(links.clone()), false).is_ok());
        links[1].mass = 0.0;
        links[1].inertia = Matrix3::zeros();
        let error = validate(&body(links), false).expect_err("massless group");
        assert_eq!(error.location, at(9));
        assert!(error.message.contains("with the links welded to it"), "{error}");
    }

    #[test]
    fn a_zero_or_flat_inertia_on_a_moving_link_is_an_error() {
        let mut links = vec![link("ball", None, JointKind::Free, 1.0, 3)];
        links[0].inertia = Matrix3::zeros();
        let error = validate(&body(links.clone()), false).expect_err("zero inertia");
        assert!(error.message.contains("not positive definite"), "{error}");
        // A line mass (one zero principal moment) is singular too.
        links[0].inertia = Matrix3::from_diagonal(&Vector3::new(0.0, 1.0, 1.0));
        assert!(validate(&body(links.clone()), false).is_err());
        // Two point masses apart have a line's inertia; a third off the line makes it solid.
        let mut pair = vec![
            link("a", None, JointKind::Free, 1.0, 3),
            link("b", Some(0), JointKind::Fixed, 1.0, 9),
        ];
        pair[0].inertia = Matrix3::zeros();
        pair[1].inertia = Matrix3::zeros();
        pair[1].offset = Isometry3::translation(1.0, 0.0, 0.0);
        assert!(validate(&body(pair.clone()), false).is_err());
        let mut third = link("c", Some(0), JointKind::Fixed, 1.0, 15);
        third.inertia = Matrix3::zeros();
        third.offset = Isometry3::translation(0.0, 1.0, 0.0);
        pair.push(third);
        // Three points not on one line: every principal moment is positive.
        let outcome = validate(&body(pair), false);
        assert!(outcome.is_ok(), "{outcome:?}");
    }

    #[test]
    fn the_tolerance_is_relative() {
        let mut heavy = vec![link("heavy", None, JointKind::Free, 1e12, 3)];
        heavy[0].inertia = Matrix3::identity() * 4e9;
        assert!(validate(&body(heavy.clone()), false).is_ok());
        let mut light = vec![link("light", None, JointKind::Free, 1e-6, 3)];
        light[0].inertia = Matrix3::identity() * 1e-13;
        assert!(validate(&body(light), false).is_ok());
        // Principal moments (1, 1, 1e-17): the last is below 3 ε · 1 and cannot be told from 0.
        heavy[0].inertia = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 1e-17));
        assert!(validate(&body(heavy), false).is_err());
    }

    #[test]
    fn root_and_free_joints() {
        let hinge_root = body(vec![link("r", None, JointKind::Revolute, 1.0, 3)]);
        let error = validate(&hinge_root, false).expect_err("revolute root");
        assert!(error.message.contains("a root joint must be free or fixed"), "{error}");
        let floating_child = body(vec![
            link("base", None, JointKind::Free, 1.0, 3),
            link("loose", Some(0), JointKind::Free, 1.0, 11),
        ]);
        let error = validate(&floating_child, false).expect_err("free child");
        assert_eq!(error.location, at(11));
        assert!(
            error.message.contains("only the root link of a body can be free"),
            "{error}"
        );
    }

    #[test]
    fn bad_numbers_are_located() {
        let mut links = vec![
            link("a", None, JointKind::Free, 1.0, 3),
            link("b", Some(0), JointKind::Revolute, 1.0, 8),
        ];
        links[1].mass = -1.0;
        let error = validate(&body(links), false).expect_err("negative mass");
        assert_eq!(error.location, at(8));
    }
}
