//! Materials whose contacts rapier can give their table coefficients without the material hook.
//!
//! The hook (`materials_hook.rs`) writes each manifold's friction and restitution from the scene's
//! contact table. It runs for every manifold of a collider that asks for it, every step: some 120
//! instructions and two scattered collider reads per manifold, 3.5 % of a step of the 500-box pile
//! (callgrind, steps 1–100). rapier can combine two per-collider numbers by itself; with the `Min`
//! rule (`CoefficientCombineRule::combine`: `c₁.min(c₂).abs()`, exact for non-negative numbers)
//! a pair (a, b) gets `min(c_a, c_b)`. A material m takes that route when, for every material b
//! its links can touch,
//!
//! - the pair has one friction coefficient (μₛ = μ_d: the hook's stick/slip state, which picks
//!   between two, is not needed), and
//! - `min(f_m, f_b)` and `min(e_m, e_b)` are the pair's friction and restitution exactly, with
//!   `f_m = max_b μ(m, b)` and `e_m = max_b e(m, b)` over those materials.
//!
//! The manifolds of two such materials then carry exactly the coefficients the hook would have
//! written, so the simulation is bit-identical; a pair with at least one other material still runs
//! the hook, which overwrites whatever rapier combined. A one-material scene (a pile of boxes on a
//! floor with one contact entry per pair) needs no hook at all.
//!
//! "Can touch": every pair of materials the scene holds, except two that appear only on immovable
//! bodies (a fixed root whose links are all welded to it): rapier solves no contact between two
//! bodies that do not move. The check is conservative otherwise: a pair listed that never meets only costs a
//! hook.

use tribo_engine::{Scene, SceneBody};
use tribo_material::MaterialId;
use tribo_model::JointKind;

/// Per material (by `MaterialId::index`): the friction and restitution its colliders carry for
/// rapier's `Min` rule, or `None` for a material whose contacts need the hook.
pub(crate) struct CombinedCoefficients {
    per_material: Vec<Option<(f64, f64)>>,
}

impl CombinedCoefficients {
    pub fn of_scene(scene: &Scene) -> CombinedCoefficients {
        let count = scene.contacts.len();
        // Whether each material appears on the scene, and whether on a body that can move.
        let mut present = vec![false; count];
        let mut moving = vec![false; count];
        for body in &scene.bodies {
            let movable = !immovable(body);
            for id in &body.link_materials {
                if let Some(slot) = present.get_mut(id.index()) {
                    *slot = true;
                }
                if let Some(slot) = moving.get_mut(id.index()) {
                    *slot |= movable;
                }
            }
        }
        let ids: Vec<MaterialId> = scene.contacts.ids().filter(|id| present[id.index()]).collect();
        let touch = |a: MaterialId, b: MaterialId| moving[a.index()] || moving[b.index()];
        // f_m, e_m: the largest coefficients of m's pairs.
        let mut largest = vec![(0.0_f64, 0.0_f64); count];
        for &a in &ids {
            for &b in ids.iter().filter(|&&b| touch(a, b)) {
                let pair = scene.contacts.pair(a, b);
                let (f, e) = &mut largest[a.index()];
                *f = f.max(pair.static_friction);
                *e = e.max(pair.restitution);
            }
        }
        let mut per_material = vec![None; count];
        for &a in &ids {
            let combines = ids.iter().filter(|&&b| touch(a, b)).all(|&b| {
                let pair = scene.contacts.pair(a, b);
                let ((fa, ea), (fb, eb)) = (largest[a.index()], largest[b.index()]);
                pair.static_friction == pair.dynamic_friction
                    && pair.static_friction >= 0.0
                    && pair.restitution >= 0.0
                    && fa.min(fb) == pair.static_friction
                    && ea.min(eb) == pair.restitution
            });
            if combines {
                per_material[a.index()] = Some(largest[a.index()]);
            }
        }
        CombinedCoefficients { per_material }
    }

    /// The coefficients the colliders of `material` carry for the `Min` rule, or `None` when they
    /// need the hook.
    pub fn of(&self, material: MaterialId) -> Option<(f64, f64)> {
        self.per_material.get(material.index()).copied().flatten()
    }
}

/// A body rapier builds as one fixed rigid body: a fixed root whose other links are welded to it.
fn immovable(body: &SceneBody) -> bool {
    body.fixed_root
        && body
            .model
            .links
            .iter()
            .skip(1)
            .all(|link| link.joint.kind == JointKind::Fixed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Isometry3, Vector3};
    use tribo_model::Geometry;
    use tribo_testkit::{place, scene, solid, table};

    const MATERIALS: &str = "materials:\n  - name: Ground\n  - name: Wall\n  - name: Box\n  - name: Rubber\n";

    /// A scene of a fixed `Ground` slab, a `Wall` slab (fixed or free) and free `Box` and `Rubber`
    /// cubes, with `pairs` as the table's contact entries.
    fn coefficients(pairs: &str, wall_fixed: bool) -> (CombinedCoefficients, impl Fn(&str) -> MaterialId) {
        let yaml = format!("{MATERIALS}contact_materials:\n{pairs}");
        let names = ["Ground", "Wall", "Box", "Rubber"];
        let contacts = table(&yaml, &names);
        let cube = |material: &str| {
            solid(
                material,
                Geometry::Box {
                    size: Vector3::repeat(0.1),
                },
                1.0,
                material,
            )
        };
        let bodies = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let fixed = *name == "Ground" || (*name == "Wall" && wall_fixed);
                place(
                    name,
                    cube(name),
                    Isometry3::translation(i as f64, 0.0, 0.0),
                    fixed,
                    &contacts,
                )
            })
            .collect();
        let scene = scene(bodies, contacts.clone());
        (CombinedCoefficients::of_scene(&scene), move |name: &str| {
            contacts.id(name).expect("material in the table")
        })
    }

    /// Every pair the materials form, with friction and restitution (one coefficient each).
    fn entries(pairs: &[(&str, &str, f64, f64)]) -> String {
        pairs
            .iter()
            .map(|(a, b, f, e)| format!("  - {{ materials: [{a}, {b}], friction: {f}, restitution: {e} }}\n"))
            .collect()
    }

    /// Pairs rapier's `Min` rule reproduces: each material's largest coefficients, min-combined, give
    /// every pair's exactly (Box 0.4 against everything, Rubber and the slabs 0.9 among themselves).
    fn min_shaped(ground_wall: f64) -> Vec<(&'static str, &'static str, f64, f64)> {
        let mut pairs = Vec::new();
        let names = ["Ground", "Wall", "Box", "Rubber"];
        for (i, a) in names.iter().enumerate() {
            for b in &names[i..] {
                let boxed = *a == "Box" || *b == "Box";
                let (f, e) = if boxed { (0.4, 0.1) } else { (0.9, 0.5) };
                pairs.push((*a, *b, f, e));
            }
        }
        for pair in pairs.iter_mut().filter(|p| p.0 == "Ground" && p.1 == "Wall") {
            pair.2 = ground_wall;
        }
        pairs
    }

    #[test]
    fn a_table_of_min_form_needs_no_hook() {
        let (combined, id) = coefficients(&entries(&min_shaped(0.9)), false);
        assert_eq!(combined.of(id("Box")), Some((0.4, 0.1)));
        for name in ["Ground", "Wall", "Rubber"] {
            assert_eq!(combined.of(id(name)), Some((0.9, 0.5)), "{name}");
        }
    }

    #[test]
    fn a_pair_the_min_rule_cannot_give_keeps_the_hook_for_its_two_materials() {
        // Ground–Wall at 0.2: min(0.9, 0.9) ≠ 0.2, and the wall can move.
        let (combined, id) = coefficients(&entries(&min_shaped(0.2)), false);
        assert_eq!(combined.of(id("Ground")), None);
        assert_eq!(combined.of(id("Wall")), None);
        assert_eq!(combined.of(id("Box")), Some((0.4, 0.1)));
        assert_eq!(combined.of(id("Rubber")), Some((0.9, 0.5)));
    }

    #[test]
    fn materials_that_meet_only_on_fixed_bodies_are_not_checked_against_each_other() {
        let (combined, id) = coefficients(&entries(&min_shaped(0.2)), true);
        for name in ["Ground", "Wall", "Rubber"] {
            assert_eq!(combined.of(id(name)), Some((0.9, 0.5)), "{name}");
        }
    }

    #[test]
    fn two_friction_coefficients_keep_the_hook() {
        let mut pairs = entries(&min_shaped(0.9));
        pairs = pairs.replace(
            "[Box, Rubber], friction: 0.4",
            "[Box, Rubber], static_friction: 0.4, dynamic_friction: 0.3",
        );
        assert!(pairs.contains("dynamic_friction: 0.3"));
        let (combined, id) = coefficients(&pairs, false);
        assert_eq!(combined.of(id("Box")), None);
        assert_eq!(combined.of(id("Rubber")), None);
        assert_eq!(combined.of(id("Ground")), Some((0.9, 0.5)));
    }
}
