//! Contact coefficients of the scene's material pairs as rapier colliders carry them.
//!
//! tribo's rapier engine writes each pair's coefficients into the contacts through a hook; raw
//! rapier combines two per-collider numbers. With the `Min` rule and every collider carrying its
//! material's coefficient against the scene's one fixed body (which carries the largest), a pair
//! gets the table's value whenever the table is of that form; [`collider_coefficients`] checks
//! that it is for every pair of bodies that can touch, and says which pair is not otherwise.

use std::collections::BTreeMap;

use tribo_material::MaterialId;
use tribo_runner::Scene;

/// (friction, restitution) per material id, for colliders combined with the `Min` rule.
pub struct Coefficients {
    pub per_material: BTreeMap<MaterialId, (f64, f64)>,
}

impl Coefficients {
    pub fn of(&self, id: MaterialId) -> (f64, f64) {
        self.per_material.get(&id).copied().unwrap_or((0.0, 0.0))
    }
}

/// Per-material friction (the pair's static friction) and restitution for the `Min` rule, or
/// why the scene's table cannot be expressed that way.
pub fn collider_coefficients(scene: &Scene) -> Result<Coefficients, String> {
    let fixed: Vec<_> = scene.bodies.iter().filter(|b| b.fixed_root).collect();
    let [ground] = fixed.as_slice() else {
        return Err(format!(
            "{} fixed bodies; raw rapier scenes here have exactly one",
            fixed.len()
        ));
    };
    let ground_materials: Vec<MaterialId> = ground.link_materials.clone();
    let Some(&floor) = ground_materials.first() else {
        return Err("the fixed body has no link".to_string());
    };
    let mut per_material = BTreeMap::new();
    let moving: Vec<MaterialId> = scene
        .bodies
        .iter()
        .filter(|b| !b.fixed_root)
        .flat_map(|b| b.link_materials.iter().copied())
        .collect();
    for &m in &moving {
        let pair = scene.contacts.pair(m, floor);
        per_material.insert(m, (pair.static_friction, pair.restitution));
    }
    let top = per_material
        .values()
        .fold((0.0f64, 0.0f64), |acc, &(f, r)| (acc.0.max(f), acc.1.max(r)));
    per_material.insert(floor, top);
    let name = |id: MaterialId| scene.contacts.name(id).to_string();
    for &g in &ground_materials {
        if g != floor {
            return Err(format!(
                "the fixed body mixes materials `{}` and `{}`",
                name(floor),
                name(g)
            ));
        }
    }
    // Pairs between different moving bodies.
    let dynamic: Vec<&tribo_runner::SceneBody> = scene.bodies.iter().filter(|b| !b.fixed_root).collect();
    let mut kinds: Vec<MaterialId> = moving.clone();
    kinds.sort();
    kinds.dedup();
    if dynamic.len() > 1 {
        for &a in &kinds {
            for &b in &kinds {
                let pair = scene.contacts.pair(a, b);
                let (fa, ra) = per_material[&a];
                let (fb, rb) = per_material[&b];
                if (pair.static_friction - fa.min(fb)).abs() > 1e-12 || (pair.restitution - ra.min(rb)).abs() > 1e-12 {
                    return Err(format!(
                        "materials `{}` and `{}` touch with friction {} and restitution {}, which the Min rule \
                         over their coefficients against `{}` cannot give",
                        name(a),
                        name(b),
                        pair.static_friction,
                        pair.restitution,
                        name(floor)
                    ));
                }
            }
        }
    }
    Ok(Coefficients { per_material })
}
