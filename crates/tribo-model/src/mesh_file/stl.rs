//! STL, binary and ASCII, through the `stl_io` crate (identical vertices are merged).

use std::io::Cursor;

use nalgebra::Vector3;

use super::{index, MeshData};

/// Size of a binary STL's header (80 bytes of free text and a triangle count).
const BINARY_HEADER: usize = 84;
/// Size of one binary STL triangle record.
const BINARY_RECORD: usize = 50;

/// A binary or ASCII STL file's triangles.
///
/// A binary file is recognised by its length (84 + 50 n bytes for the n triangles its header
/// counts), not by its first word: many exporters begin the free-text header of binary files
/// with `solid`, the keyword of ASCII files, which `stl_io` would take for ASCII. Such a header
/// is blanked in the copy handed to `stl_io`.
pub fn read_stl(bytes: &[u8]) -> Result<MeshData, String> {
    let mut owned;
    let mut data = bytes;
    if is_binary(bytes) && bytes.starts_with(b"solid") {
        owned = bytes.to_vec();
        owned[..5].copy_from_slice(b"     ");
        data = &owned;
    } else if !is_binary(bytes) && !bytes.trim_ascii_start().starts_with(b"solid") {
        return Err(format!(
            "not an STL file: {} bytes is not the size of a binary STL (84 + 50 × its triangle count) \
             and the text does not start with `solid`",
            bytes.len()
        ));
    } else if !is_binary(bytes) {
        // ASCII: stl_io expects `solid ` at the very start of the first line.
        let start = bytes.len() - bytes.trim_ascii_start().len();
        owned = bytes[start..].to_vec();
        if owned.get(5).is_none_or(|c| *c == b'\n' || *c == b'\r') {
            owned.splice(5..5, *b" ");
        }
        data = &owned;
    }
    let mesh = stl_io::read_stl(&mut Cursor::new(data)).map_err(|e| format!("not a valid STL file: {e}"))?;
    let count = mesh.vertices.len();
    let vertices = mesh
        .vertices
        .iter()
        .map(|v| Vector3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2])))
        .collect();
    let triangles = mesh
        .faces
        .iter()
        .map(|f| {
            Ok([
                index(f.vertices[0], count)?,
                index(f.vertices[1], count)?,
                index(f.vertices[2], count)?,
            ])
        })
        .collect::<Result<_, String>>()?;
    Ok(MeshData { vertices, triangles })
}

fn is_binary(bytes: &[u8]) -> bool {
    let Some(count) = bytes.get(80..84) else {
        return false;
    };
    let n = u32::from_le_bytes([count[0], count[1], count[2], count[3]]) as usize;
    n.checked_mul(BINARY_RECORD)
        .and_then(|b| b.checked_add(BINARY_HEADER))
        .is_some_and(|total| total == bytes.len())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A binary STL of `triangles`, its header starting with `solid` as many exporters write.
    pub fn binary_stl(triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
        let mut out = vec![b' '; 80];
        out[..12].copy_from_slice(b"solid binary");
        out.extend_from_slice(&(triangles.len() as u32).to_le_bytes());
        for t in triangles {
            out.extend_from_slice(&[0u8; 12]);
            for v in t {
                for x in v {
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
            out.extend_from_slice(&[0u8; 2]);
        }
        out
    }

    const TETRA: [[[f32; 3]; 3]; 4] = [
        [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]],
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    ];

    #[test]
    fn binary_with_a_solid_header_and_ascii_give_the_same_mesh() {
        let binary = read_stl(&binary_stl(&TETRA)).expect("binary");
        assert_eq!(binary.vertices.len(), 4, "shared vertices merged");
        assert_eq!(binary.triangles.len(), 4);
        let mut ascii = String::from("solid tetra\n");
        for t in TETRA {
            ascii.push_str("  facet normal 0 0 0\n    outer loop\n");
            for v in t {
                ascii.push_str(&format!("      vertex {} {} {}\n", v[0], v[1], v[2]));
            }
            ascii.push_str("    endloop\n  endfacet\n");
        }
        ascii.push_str("endsolid tetra\n");
        assert_eq!(read_stl(ascii.as_bytes()).expect("ascii"), binary);
    }

    #[test]
    fn truncated_and_foreign_files_are_refused() {
        let mut bytes = binary_stl(&TETRA);
        bytes.truncate(bytes.len() - 7);
        bytes[..5].copy_from_slice(b"xxxxx");
        let err = read_stl(&bytes).expect_err("truncated");
        assert!(err.starts_with("not an STL file"), "{err}");
        let err = read_stl(b"solid x\n  facet normal 0 0 0\n    outer loop\n      vertex 0 0 zero\n")
            .expect_err("bad number");
        assert!(err.starts_with("not a valid STL file"), "{err}");
    }
}
