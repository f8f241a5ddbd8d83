//! The material table a `.cnoid` project simulates with (Choreonoid's `WorldItem::materialTable`):
//! the world's default table (`default_material_table_file`, old `materialTableFile`; else
//! `${SHARE}/default/materials.yaml`, which is tribo's built-in default), with every
//! `MaterialTableItem` under the world merged over it in order.

use tribo_yaml::{Diagnostic, Node};

use super::paths::Resolver;
use super::synth;
use super::tree::{data_fields, ignored, report_rest, Item};

/// `default_materials` (if the project names a table) and `materials` entries for the project.
pub struct MaterialFiles {
    pub default: Option<Node>,
    pub merged: Vec<Node>,
}

const WORLD_GUI: [&str; 2] = ["collision_detection", "collisionDetection"];
const WORLD_COLLISION: [&str; 2] = ["collision_detector", "collisionDetector"];
const WORLD_KNOWN: [&str; 4] = [
    "default_material_table_file",
    "materialTableFile",
    "collision_detection",
    "collision_detector",
];

pub fn read(
    worlds: &[Item],
    tables: &[Item],
    resolver: &Resolver,
    warnings: &mut Vec<Diagnostic>,
) -> Result<MaterialFiles, Diagnostic> {
    let mut default = None;
    for world in worlds {
        let Some(f) = data_fields(world)? else { continue };
        if let Some(n) = f.get_value(&["default_material_table_file", "materialTableFile"]) {
            if default.is_none() {
                let path = resolver.file(n, "material table", warnings)?;
                default = Some(synth::text(path.display().to_string(), &n.location));
            } else {
                warnings.push(ignored(
                    &n.location,
                    format!("the default material table of a second world, {}", world.label()),
                ));
            }
        }
        report_rest(
            &f,
            world,
            &[
                (&WORLD_GUI, "the GUI's collision display"),
                (&WORLD_COLLISION, "tribo's engines detect collisions themselves"),
            ],
            &WORLD_KNOWN,
            warnings,
        );
    }
    let mut merged = Vec::new();
    for table in tables {
        let Some(f) = data_fields(table)? else {
            warnings.push(ignored(table.location(), format!("{} names no file", table.label())));
            continue;
        };
        if let Some(n) = f.get_value(&["format"]) {
            let format = n.as_str()?;
            if format != "MATERIAL-TABLE-FILE" {
                return Err(n.error(format!(
                    "material table format `{format}` is not supported; expected MATERIAL-TABLE-FILE"
                )));
            }
        }
        let file = f.required(&["file"])?;
        let path = resolver.file(file, "material table", warnings)?;
        merged.push(synth::text(path.display().to_string(), &file.location));
        report_rest(&f, table, &[], &["file", "format"], warnings);
    }
    Ok(MaterialFiles { default, merged })
}
