//! Mesh files a `.body` file's `Resource` nodes name, read into vertices and triangles.
//!
//! STL (binary and ASCII, [`stl`]) and Wavefront OBJ ([`obj`]) are read; other formats
//! (Collada `.dae`, VRML `.wrl`, glTF, …) have no reader here and say so.

mod obj;
mod stl;

use std::path::Path;

use nalgebra::Vector3;

/// Larger mesh files are refused before they are read (a robot's collision meshes are a few
/// megabytes at most).
pub const MAX_MESH_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Vertices (in the file's units) and triangles of a mesh file.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshData {
    pub vertices: Vec<Vector3<f64>>,
    pub triangles: Vec<[u32; 3]>,
}

/// Why a mesh file gave no mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeshFileError {
    /// The format has no reader in tribo; `format` names it (e.g. "Collada (.dae)").
    UnsupportedFormat { format: String },
    /// The file could not be read or is not a valid file of its format.
    Invalid(String),
}

impl std::fmt::Display for MeshFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeshFileError::UnsupportedFormat { format } => {
                write!(f, "{format} mesh files are not read by tribo (STL and OBJ are)")
            }
            MeshFileError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for MeshFileError {}

/// The formats recognised by extension, whether read or not.
const KNOWN_FORMATS: [(&str, &str); 9] = [
    ("stl", "STL (.stl)"),
    ("obj", "Wavefront OBJ (.obj)"),
    ("dae", "Collada (.dae)"),
    ("wrl", "VRML (.wrl)"),
    ("gltf", "glTF (.gltf)"),
    ("glb", "glTF (.glb)"),
    ("ply", "PLY (.ply)"),
    ("3ds", "3DS (.3ds)"),
    ("fbx", "FBX (.fbx)"),
];

/// The mesh in the file at `path`, its format chosen by extension (case-insensitive).
pub fn load_mesh_file(path: &Path) -> Result<MeshData, MeshFileError> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let reader: fn(&[u8]) -> Result<MeshData, String> = match extension.as_str() {
        "stl" => stl::read_stl,
        "obj" => obj::read_obj,
        other => {
            let format = KNOWN_FORMATS
                .iter()
                .find(|(e, _)| *e == other)
                .map(|(_, name)| name.to_string())
                .unwrap_or_else(|| {
                    if other.is_empty() {
                        "extension-less".to_string()
                    } else {
                        format!("`.{other}`")
                    }
                });
            return Err(MeshFileError::UnsupportedFormat { format });
        }
    };
    let shown = path.display();
    let size = std::fs::metadata(path)
        .map_err(|e| MeshFileError::Invalid(format!("cannot read mesh file {shown}: {e}")))?
        .len();
    if size > MAX_MESH_FILE_BYTES {
        return Err(MeshFileError::Invalid(format!(
            "mesh file {shown} has {size} bytes, more than the {MAX_MESH_FILE_BYTES} tribo reads"
        )));
    }
    let bytes =
        std::fs::read(path).map_err(|e| MeshFileError::Invalid(format!("cannot read mesh file {shown}: {e}")))?;
    let data = reader(&bytes).map_err(|e| MeshFileError::Invalid(format!("{shown}: {e}")))?;
    if data.triangles.is_empty() {
        return Err(MeshFileError::Invalid(format!("{shown}: the mesh has no triangles")));
    }
    Ok(data)
}

/// A vertex index as `u32`, or a message.
fn index(i: usize, count: usize) -> Result<u32, String> {
    if i >= count {
        return Err(format!("a face uses vertex {i}, but there are only {count} vertices"));
    }
    u32::try_from(i).map_err(|_| format!("vertex index {i} is too large"))
}
