//! Which material parameters a scene sets that an engine does not honour.

use std::collections::BTreeSet;

use tribo_scene::Scene;

use crate::MaterialParameter;

/// The material parameters the scene's materials actually use (beyond plain static friction).
pub fn used_parameters(scene: &Scene) -> BTreeSet<MaterialParameter> {
    let table = &scene.contacts;
    let mut used = BTreeSet::from([MaterialParameter::StaticFriction]);
    let ids: Vec<_> = table.ids().collect();
    for &a in &ids {
        let m = table.material(a);
        if m.stiffness > 0.0 || m.damping > 0.0 {
            used.insert(MaterialParameter::Compliance);
        }
        if m.extras.get("cslc").is_some() {
            used.insert(MaterialParameter::Cslc);
        }
        for &b in &ids {
            let p = table.pair(a, b);
            if p.dynamic_friction != p.static_friction {
                used.insert(MaterialParameter::DynamicFriction);
            }
            if p.restitution > 0.0 {
                used.insert(MaterialParameter::Restitution);
            }
            if ["cullingDistance", "cullingDepth", "max_num_contact_points"]
                .iter()
                .any(|k| p.extras.get(k).is_some())
            {
                used.insert(MaterialParameter::ContactCulling);
            }
        }
    }
    used
}

/// One warning per used parameter the engine ignores.
pub fn ignored_parameter_warnings(scene: &Scene, honoured: &[MaterialParameter]) -> Vec<String> {
    used_parameters(scene)
        .into_iter()
        .filter(|p| !honoured.contains(p))
        .map(|p| format!("material parameter `{}` is set but this engine ignores it", p.name()))
        .collect()
}
