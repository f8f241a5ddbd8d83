//! Which material parameters a scene sets that an engine does not honour.
//!
//! General parameters (dynamic friction, restitution, compliance, culling) that an engine
//! ignores are warned about on every run: the scene asked for physics the engine does not do.
//! Engine-specific blocks ([`ENGINE_SPECIFIC`], the `cslc` block of pad materials) are written
//! for one engine and expected to be ignored by the others, so they are never warned about per
//! run; `tribo engines` and the compare report say once which engine reads them
//! ([`engine_specific_notes`]).

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

/// Engine-specific material blocks and the engine that reads each (the registry's factories
/// agree: only that engine and its variants on other hosts, named `cslc-<host>`, list the parameter
/// as honoured; tribo-cli tests this).
pub const ENGINE_SPECIFIC: [(MaterialParameter, &str); 1] = [(MaterialParameter::Cslc, "cslc")];

/// Is `p` a block written for one engine (not warned about when other engines ignore it)?
pub fn is_engine_specific(p: MaterialParameter) -> bool {
    ENGINE_SPECIFIC.iter().any(|(q, _)| *q == p)
}

/// One warning per used general parameter the engine ignores (engine-specific blocks are not
/// warned about, see the module docs).
pub fn ignored_parameter_warnings(scene: &Scene, honoured: &[MaterialParameter]) -> Vec<String> {
    used_parameters(scene)
        .into_iter()
        .filter(|p| !honoured.contains(p) && !is_engine_specific(*p))
        .map(|p| format!("material parameter `{}` is set but this engine ignores it", p.name()))
        .collect()
}

/// Whether `engine` reads the blocks of `reader` ([`ENGINE_SPECIFIC`]): it is that engine or one of
/// its variants on another host (`cslc-rapier` for `cslc`).
pub fn reads_blocks_of(engine: &str, reader: &str) -> bool {
    engine
        .strip_prefix(reader)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
}

/// For each engine-specific block the scene's materials use and some of `engines` do not read, one
/// line: "materials have `cslc` blocks: only the `cslc` engine reads them; rapier, pgs run
/// without them" (or "only the `cslc`, `cslc-rapier` engines read them" when several of
/// `engines` do).
pub fn engine_specific_notes(scene: &Scene, engines: &[&str]) -> Vec<String> {
    let used = used_parameters(scene);
    ENGINE_SPECIFIC
        .iter()
        .filter(|(p, _)| used.contains(p))
        .filter_map(|(p, reader)| {
            let (readers, others): (Vec<&str>, Vec<&str>) =
                engines.iter().copied().partition(|e| reads_blocks_of(e, reader));
            if others.is_empty() {
                return None;
            }
            let readers = if readers.len() > 1 {
                format!(
                    "the {} engines read",
                    readers.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ")
                )
            } else {
                format!("the `{}` engine reads", readers.first().unwrap_or(reader))
            };
            Some(format!(
                "materials have `{}` blocks: only {readers} them; {} {} without them",
                p.name(),
                others.join(", "),
                if others.len() == 1 { "runs" } else { "run" }
            ))
        })
        .collect()
}
