//! Wavefront OBJ through the `tobj` crate: every object and group of the file in one mesh,
//! polygons triangulated as fans, materials (`.mtl`) not read.

use std::io::Cursor;

use nalgebra::Vector3;

use super::{index, MeshData};

/// All faces of an OBJ file.
pub fn read_obj(bytes: &[u8]) -> Result<MeshData, String> {
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    // Materials are appearance only: a missing `.mtl` must not fail the geometry.
    let (models, _) = tobj::load_obj_buf(&mut Cursor::new(bytes), &options, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| format!("not a valid OBJ file: {e}"))?;
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for model in &models {
        let mesh = &model.mesh;
        let base = vertices.len();
        vertices.extend(mesh.positions.chunks_exact(3).map(|p| Vector3::new(p[0], p[1], p[2])));
        let count = vertices.len();
        for face in mesh.indices.chunks_exact(3) {
            triangles.push([
                index(base + face[0] as usize, count)?,
                index(base + face[1] as usize, count)?,
                index(base + face[2] as usize, count)?,
            ]);
        }
    }
    Ok(MeshData { vertices, triangles })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quads_become_two_triangles_and_groups_join() {
        let text = "# a unit square and a triangle\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\n\
                    g square\nf 1 2 3 4\ng tri\nf 1 2 5\n";
        let mesh = read_obj(text.as_bytes()).expect("obj");
        assert_eq!(mesh.triangles.len(), 3);
        for t in &mesh.triangles {
            for &i in t {
                assert!((i as usize) < mesh.vertices.len());
            }
        }
        let area: f64 = mesh
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| mesh.vertices[i as usize]);
                (b - a).cross(&(c - a)).norm() / 2.0
            })
            .sum();
        assert!((area - 1.5).abs() < 1e-12, "{area}");
    }

    #[test]
    fn a_face_naming_a_missing_vertex_is_refused() {
        let err = read_obj(b"v 0 0 0\nv 1 0 0\nf 1 2 7\n").expect_err("bad index");
        assert!(err.contains("OBJ") || err.contains("vertex"), "{err}");
    }
}
