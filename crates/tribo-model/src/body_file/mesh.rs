//! Mesh geometry in `.body` files (docs/design/choreonoid-formats.md §2.7): `TriangleMesh` and
//! `IndexedFaceSet` given inline, `Resource` files (STL, OBJ) named by `uri` relative to the body
//! file, and the `collision:` key that chooses how engines collide a mesh. `Extrusion` and
//! `ElevationGrid` are built in [`super::mesh_generated`].
//!
//! Keys follow Choreonoid's scene reader (`readMesh`,
//! `choreonoid@25994f3eda src/Util/StdSceneReader.cpp:1160-1271`; `readResourceNode`, 1672-1754): vertices as a flat list `vertices` (or
//! `coordinate`), faces as a flat list `faces` (or `coordIndex`), triples for a TriangleMesh and
//! polygons closed by −1 for an IndexedFaceSet. tribo splits each polygon into a fan of
//! triangles from its first vertex — exact for the convex polygons mesh exporters write
//! (Choreonoid's triangulator also handles concave ones).

use std::path::{Path, PathBuf};

use nalgebra::Vector3;
use tribo_yaml::{closest, Diagnostic, Error, Fields, Node};

use crate::{load_mesh_file, MeshCollision, MeshFileError};

/// A mesh geometry as read, in the geometry's own coordinates (before the Transform stack).
pub enum MeshRead {
    Mesh {
        vertices: Vec<Vector3<f64>>,
        triangles: Vec<[u32; 3]>,
        /// "`box.stl`", "TriangleMesh", … for messages.
        what: String,
    },
    /// A mesh the engines cannot get: why (names the format or the missing feature).
    Unsupported(String),
}

/// Keys of a `Resource` node besides the transform; `collision` is tribo's.
pub const RESOURCE_KEYS: [&str; 6] = ["type", "uri", "url", "fragment", "node", "metadata"];

/// The `collision:` key of a mesh geometry or Resource node (default: the convex hull).
pub fn read_collision(f: &Fields) -> Result<MeshCollision, Error> {
    let choices: Vec<(&str, MeshCollision)> = MeshCollision::NAMES
        .iter()
        .filter_map(|&n| MeshCollision::from_name(n).map(|c| (n, c)))
        .collect();
    f.choice_or("collision", MeshCollision::ConvexHull, &choices, "mesh collision mode")
}

/// `TriangleMesh` (`triangles = true`) or `IndexedFaceSet`.
pub fn read_inline(f: &Fields, node: &Node, triangles_only: bool) -> Result<MeshRead, Error> {
    let what = if triangles_only {
        "a TriangleMesh"
    } else {
        "an IndexedFaceSet"
    };
    f.skip(&[
        "normals",
        "normal_indices",
        "normalIndex",
        "tex_coords",
        "texCoord",
        "tex_coord_indices",
        "texCoordIndex",
        "crease_angle",
        "creaseAngle",
        "solid",
        "ccw",
        "convex",
    ]);
    let Some(vertices_node) = f.get_value(&["vertices", "coordinate"]) else {
        return Err(node.error(format!("{what} needs `vertices` (a flat list x, y, z, …)")));
    };
    let vertices = read_vertices(vertices_node)?;
    let Some(faces_node) = f.get_value(&["faces", "coordIndex"]) else {
        return Err(node.error(format!("{what} needs `faces` (vertex indices)")));
    };
    let faces = faces_node.as_seq()?;
    let count = vertices.len();
    let mut triangles = Vec::new();
    if triangles_only {
        if faces.len() % 3 != 0 {
            return Err(faces_node.error(format!(
                "the faces of a TriangleMesh are vertex index triples, found {} indices",
                faces.len()
            )));
        }
        for t in faces.chunks_exact(3) {
            triangles.push([vertex(&t[0], count)?, vertex(&t[1], count)?, vertex(&t[2], count)?]);
        }
    } else {
        let mut polygon: Vec<u32> = Vec::new();
        let mut start = faces.first();
        for (k, index) in faces.iter().enumerate() {
            if index.as_i64()? == -1 {
                fan(&polygon, start.unwrap_or(index), &mut triangles)?;
                polygon.clear();
                start = faces.get(k + 1);
            } else {
                polygon.push(vertex(index, count)?);
            }
        }
        if !polygon.is_empty() {
            fan(&polygon, start.unwrap_or(faces_node), &mut triangles)?;
        }
    }
    if triangles.is_empty() {
        return Err(faces_node.error(format!("{what} has no faces")));
    }
    Ok(MeshRead::Mesh {
        vertices,
        triangles,
        what: if triangles_only {
            "TriangleMesh"
        } else {
            "IndexedFaceSet"
        }
        .to_string(),
    })
}

/// A flat list of coordinates as points.
pub fn read_vertices(node: &Node) -> Result<Vec<Vector3<f64>>, Error> {
    let items = node.as_seq()?;
    if items.len() % 3 != 0 {
        return Err(node.error(format!(
            "vertices are a flat list of x, y, z triples, found {} numbers",
            items.len()
        )));
    }
    items
        .chunks_exact(3)
        .map(|c| Ok(Vector3::new(c[0].as_finite()?, c[1].as_finite()?, c[2].as_finite()?)))
        .collect()
}

fn vertex(node: &Node, count: usize) -> Result<u32, Error> {
    let i = node.as_index()?;
    if i >= count {
        return Err(node.error(format!("vertex index {i} is out of range: there are {count} vertices")));
    }
    u32::try_from(i).map_err(|_| node.error(format!("vertex index {i} is too large")))
}

/// Triangles (p₀, pₖ, pₖ₊₁) of one polygon.
fn fan(polygon: &[u32], at: &Node, out: &mut Vec<[u32; 3]>) -> Result<(), Error> {
    if polygon.len() < 3 {
        return Err(at.error(format!(
            "a face of an IndexedFaceSet needs at least 3 vertices, found {}",
            polygon.len()
        )));
    }
    out.extend(polygon.windows(2).skip(1).map(|w| [polygon[0], w[0], w[1]]));
    Ok(())
}

/// A `Resource` (geometry type or element node): the mesh file its `uri` names, relative to
/// `dir` (the body file's directory). A format tribo does not read, a path variable or a remote
/// address is `Unsupported`; a file that is missing or not valid is an error at the `uri`.
pub fn read_resource(f: &Fields, node: &Node, dir: &Path) -> Result<MeshRead, Error> {
    f.skip(&["metadata"]);
    let Some(uri_node) = f.get_value(&["uri", "url"]) else {
        let typo = f
            .map()
            .entries
            .iter()
            .find_map(|e| closest(&e.key, ["uri"]).map(|near| (e, near)));
        return Err(match typo {
            Some((entry, near)) => Diagnostic::error(
                entry.key_location.clone(),
                format!(
                    "a Resource needs a `uri` naming its file; found `{}` (did you mean `{near}`?)",
                    entry.key
                ),
            ),
            None => node.error("a Resource needs a `uri` naming its file"),
        });
    };
    let uri = uri_node.as_str()?;
    if let Some(fragment) = f.get_value(&["fragment", "node"]) {
        let name = fragment.as_str()?;
        return Ok(MeshRead::Unsupported(format!(
            "`Resource` `{uri}` selects the node `{name}` of a scene file; tribo reads whole mesh files only"
        )));
    }
    if uri.contains("${") {
        return Ok(MeshRead::Unsupported(format!(
            "`Resource` `{uri}` uses a path variable, which tribo does not resolve; give a path relative to the body file"
        )));
    }
    let path = match uri.strip_prefix("file://") {
        Some(local) => PathBuf::from(local),
        None if uri.contains("://") => {
            return Ok(MeshRead::Unsupported(format!(
                "`Resource` `{uri}` is not a local file; tribo reads files relative to the body file"
            )))
        }
        None => PathBuf::from(uri),
    };
    let resolved = if path.is_absolute() { path } else { dir.join(path) };
    match load_mesh_file(&resolved) {
        Ok(data) => Ok(MeshRead::Mesh {
            vertices: data.vertices,
            triangles: data.triangles,
            what: format!("`{uri}`"),
        }),
        Err(MeshFileError::UnsupportedFormat { format }) => Ok(MeshRead::Unsupported(format!(
            "`Resource` `{uri}`: {format} mesh files are not read by tribo (STL and OBJ are)"
        ))),
        Err(MeshFileError::Invalid(message)) => Err(uri_node.error(format!("`Resource` `{uri}`: {message}"))),
    }
}
