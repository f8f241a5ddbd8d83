//! `<asset><mesh name file scale>` (MuJoCo's XML reference, *asset/mesh*): a mesh is named by
//! `name`, else by its file name without directory and extension; its file is found in the
//! compiler's `meshdir` (relative to the model file) and read through tribo's STL and OBJ readers;
//! `scale` multiplies the vertex coordinates. Files are read when a geom first needs them (a mesh
//! that only draws a body whose mass is given never is, and a mesh the import cannot read is an
//! error only then).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nalgebra::Vector3;
use tribo_yaml::{Diagnostic, Error, Location};

use super::compiler::Compiler;
use super::defaults::{Defaults, MAIN};
use super::xml::{Attr, Element};
use crate::{Mesh, MeshCollision, MeshFileError};

/// A declared mesh, read on first use.
#[derive(Debug)]
struct MeshAsset {
    path: PathBuf,
    /// As written, for messages.
    file: String,
    scale: Vector3<f64>,
    at: Location,
    loaded: Option<Arc<Mesh>>,
    /// Why the mesh cannot be read, reported when a geom needs it.
    problem: Option<Diagnostic>,
}

#[derive(Debug, Default)]
pub(crate) struct Assets {
    meshes: BTreeMap<String, MeshAsset>,
}

impl Assets {
    /// The meshes of every `<asset>` under `<mujoco>`; `model_dir` is the model file's directory.
    pub fn read(mujoco: &Element, defaults: &Defaults, compiler: &Compiler, model_dir: &Path) -> Result<Assets, Error> {
        let mut out = Assets::default();
        for element in mujoco.children_named("asset").flat_map(|a| a.children_named("mesh")) {
            let attrs = defaults.resolve(element, MAIN)?;
            let file = attrs.get("file");
            // A mesh the import cannot read is an error only when a geom needs it.
            let problem = super::schema::check_attributes(element).err().or_else(|| {
                file.is_none().then(|| {
                    Diagnostic::error(
                        element.at.clone(),
                        "<mesh> without `file`: meshes given by their vertices in the XML are not supported",
                    )
                })
            });
            let file_name = file.map_or("", |f| f.value.as_str());
            let name = match attrs.text("name") {
                Some(name) => name.to_string(),
                None => Path::new(file_name)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            };
            let scale = match attrs.numbers("scale", 3, 3)? {
                Some((s, _)) => Vector3::new(s[0], s[1], s[2]),
                None => Vector3::repeat(1.0),
            };
            if out.meshes.contains_key(&name) {
                return Err(Diagnostic::error(
                    element.at.clone(),
                    format!("mesh `{name}` is declared twice"),
                ));
            }
            out.meshes.insert(
                name,
                MeshAsset {
                    path: model_dir.join(&compiler.mesh_dir).join(file_name),
                    file: file_name.to_string(),
                    scale,
                    at: file.map_or_else(|| element.at.clone(), |f| f.at.clone()),
                    loaded: None,
                    problem,
                },
            );
        }
        Ok(out)
    }

    /// The mesh a geom's `mesh` attribute names, scaled, read now if not yet read.
    pub fn mesh(&mut self, reference: &Attr) -> Result<Arc<Mesh>, Error> {
        let known: Vec<String> = self.meshes.keys().cloned().collect();
        let Some(asset) = self.meshes.get_mut(&reference.value) else {
            let hint = tribo_yaml::did_you_mean(&reference.value, known.iter().map(String::as_str));
            return Err(Diagnostic::error(
                reference.at.clone(),
                format!("no mesh asset `{}`{hint}", reference.value),
            ));
        };
        if let Some(mesh) = &asset.loaded {
            return Ok(Arc::clone(mesh));
        }
        if let Some(problem) = &asset.problem {
            return Err(problem.clone());
        }
        let data = crate::load_mesh_file(&asset.path).map_err(|e| {
            let why = match e {
                MeshFileError::UnsupportedFormat { format } => {
                    format!("{format} mesh files are not read by tribo (STL and OBJ are)")
                }
                MeshFileError::Invalid(message) => message,
            };
            Diagnostic::error(asset.at.clone(), format!("mesh `{}`: {why}", asset.file))
        })?;
        let scale = asset.scale;
        let vertices = data.vertices.iter().map(|v| v.component_mul(&scale)).collect();
        let mut triangles = data.triangles;
        if scale.x * scale.y * scale.z < 0.0 {
            Mesh::flip_winding(&mut triangles);
        }
        let mesh = Mesh::new(
            vertices,
            triangles,
            MeshCollision::ConvexHull,
            format!("`{}` ({})", asset.file, asset.at),
        )
        .map_err(|e| Diagnostic::error(asset.at.clone(), format!("mesh `{}`: {e}", asset.file)))?;
        let mesh = Arc::new(mesh);
        asset.loaded = Some(Arc::clone(&mesh));
        Ok(mesh)
    }
}
