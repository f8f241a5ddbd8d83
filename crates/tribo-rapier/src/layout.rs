//! How a body's link tree maps onto rapier bodies.
//!
//! Links welded by a Fixed joint share one rigid body: the *carrier*, the nearest ancestor (or the
//! link itself) whose joint moves (the root, a revolute or a prismatic joint). Merging them is
//! exact for rigid welds and keeps the multibody small (one dense mass-matrix row per degree of
//! freedom, not per link).
//!
//! Each rigid body's frame is its carrier link's frame moved to the welded centre of mass (same
//! axes). rapier's floating-base root integrates the velocity of the body frame's origin as if it
//! were the centre of mass (its root Jacobian has no centre-of-mass shift), so putting the origin
//! at the centre of mass keeps an off-centre root exact; for every other body it changes nothing.

use nalgebra::{Isometry3, Translation3, Vector3};
use tribo_model::Body;

use crate::error::BodyError;
use crate::mass::MassBlock;

/// The carrier of every link and where each link sits on it.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// Index of the link whose rigid body carries link `i` (`carrier[i] == i` for carriers).
    pub carrier: Vec<usize>,
    /// Pose of link `i`'s frame in its rigid body's frame.
    pub link_in_body: Vec<Isometry3<f64>>,
    /// Welded mass properties per link index, in the rigid body frame (centre of mass at the
    /// origin); meaningful for carriers only, zero elsewhere.
    pub mass: Vec<MassBlock>,
    /// Mass of each link plus everything it carries or drives, kg.
    pub subtree_mass: Vec<f64>,
}

impl Layout {
    /// The layout of `body`, or why rapier cannot represent it.
    pub fn of(body: &Body) -> Result<Layout, BodyError> {
        let links = &body.links;
        let n = links.len();
        // The same rigid groups every engine and the scene's validation use.
        let tribo_model::RigidGroups {
            carrier,
            link_in_carrier,
            ..
        } = tribo_model::rigid_groups(body).map_err(BodyError::Model)?;

        let mut welded = vec![MassBlock::zero(); n];
        for (i, link) in links.iter().enumerate() {
            let part = MassBlock::moved(link.mass, &link.center_of_mass, &link.inertia, &link_in_carrier[i]);
            welded[carrier[i]] = welded[carrier[i]].welded(&part);
        }
        // Move each carrier's frame to its centre of mass.
        let link_in_body: Vec<Isometry3<f64>> = (0..n)
            .map(|i| Translation3::from(-welded[carrier[i]].com) * link_in_carrier[i])
            .collect();
        let mass = welded
            .iter()
            .map(|m| MassBlock {
                com: Vector3::zeros(),
                ..*m
            })
            .collect();

        let mut subtree_mass: Vec<f64> = links.iter().map(|l| l.mass).collect();
        for i in (1..n).rev() {
            if let Some(p) = links[i].parent {
                subtree_mass[p] += subtree_mass[i];
            }
        }
        Ok(Layout {
            carrier,
            link_in_body,
            mass,
            subtree_mass,
        })
    }

    /// Links that carry a rigid body, in link order (the root first).
    pub fn carriers(&self) -> impl Iterator<Item = usize> + '_ {
        self.carrier
            .iter()
            .enumerate()
            .filter(|(i, c)| *i == **c)
            .map(|(i, _)| i)
    }

    /// Whether the body needs a multibody (it has at least one revolute or prismatic joint).
    pub fn is_articulated(&self) -> bool {
        self.carriers().count() > 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Matrix3;
    use std::sync::Arc;
    use tribo_model::{Joint, JointKind, Link};

    fn link(name: &str, parent: Option<usize>, kind: JointKind, x: f64, mass: f64) -> Link {
        Link {
            name: name.to_owned(),
            parent,
            children: Vec::new(),
            joint: Joint::new(kind, name),
            offset: Translation3::new(x, 0.0, 0.0).into(),
            mass,
            center_of_mass: Vector3::zeros(),
            inertia: Matrix3::identity() * mass,
            material: "Default".to_owned(),
            material_location: None,
            shapes: Vec::new(),
            uncollided: Vec::new(),
            pads: Vec::new(),
            location: tribo_yaml::Location::file("test"),
        }
    }

    fn body(links: Vec<Link>) -> Body {
        Body {
            name: "b".to_owned(),
            source: Arc::from(""),
            links,
            joints_by_id: Vec::new(),
            notes: Vec::new(),
            extra_joints: Vec::new(),
        }
    }

    #[test]
    fn fixed_children_are_welded_to_their_carrier_at_the_common_centre_of_mass() {
        let b = body(vec![
            link("base", None, JointKind::Free, 0.0, 1.0),
            link("weld", Some(0), JointKind::Fixed, 1.0, 1.0),
            link("arm", Some(1), JointKind::Revolute, 1.0, 2.0),
        ]);
        let layout = Layout::of(&b).expect("valid tree");
        assert_eq!(layout.carrier, [0, 0, 2]);
        assert_eq!(layout.carriers().collect::<Vec<_>>(), [0, 2]);
        assert!(layout.is_articulated());
        // Base and weld (1 kg each at x = 0 and x = 1) weld into 2 kg centred at x = 0.5.
        assert_eq!(layout.mass[0].mass, 2.0);
        assert!((layout.link_in_body[0].translation.vector - Vector3::new(-0.5, 0.0, 0.0)).norm() < 1e-15);
        assert!((layout.link_in_body[1].translation.vector - Vector3::new(0.5, 0.0, 0.0)).norm() < 1e-15);
        // I about the common centre: 2 × identity + 2 × 1 kg × (0.5 m)² about y and z.
        let expected = Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 2.5));
        assert!((layout.mass[0].inertia - expected).norm() < 1e-14);
        assert_eq!(layout.subtree_mass, [4.0, 3.0, 2.0]);
    }

    #[test]
    fn unrepresentable_trees_are_explained() {
        let free_child = body(vec![
            link("a", None, JointKind::Free, 0.0, 1.0),
            link("b", Some(0), JointKind::Free, 0.0, 1.0),
        ]);
        assert!(Layout::of(&free_child)
            .expect_err("free child")
            .to_string()
            .contains("link `b` has a free joint, but only the root link of a body can be free"));
        let hinge_root = body(vec![link("a", None, JointKind::Revolute, 0.0, 1.0)]);
        assert!(Layout::of(&hinge_root)
            .expect_err("hinge root")
            .to_string()
            .contains("must be free or fixed"));
        assert!(Layout::of(&body(Vec::new()))
            .expect_err("empty")
            .to_string()
            .contains("has no links"));
    }
}
