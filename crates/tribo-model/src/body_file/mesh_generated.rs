//! `Extrusion` and `ElevationGrid` built into triangle meshes as Choreonoid builds them
//! (`readExtrusion`, `readElevationGrid`: `choreonoid@25994f3eda src/Util/StdSceneReader.cpp:1042-1157`;
//! `generateExtrusion`, `generateElevationGrid`: `choreonoid@25994f3eda src/Util/MeshGenerator.cpp:1183-1378`
//! and `1524-1568`).
//!
//! **ElevationGrid**: `x_dimension` × `z_dimension` heights (row by row along x), spaced
//! `x_spacing`/`z_spacing` (default 1 m); vertex (x, z) is at (x·Δx, h, z·Δz) in the geometry
//! frame, each grid cell two triangles (turned the other way with `ccw: false`). The surface is
//! open: collide it as `triangle_mesh` for terrain (its convex hull is a solid slab).
//!
//! **Extrusion**: the `cross_section` (2-D points in the local x–z plane) is scaled (`scale`, one
//! pair per spine point or one for all), turned by `orientation` (axis–angle, one per spine point
//! or one for all) and placed at each `spine` point, its plane across the spine: y along the
//! spine's tangent, z along the bend (the cross product of the neighbouring segments, kept from
//! flipping), x = y × z. A straight spine has no bend; the cross-section is then turned by the
//! shortest rotation that takes +Y to the tangent (the VRML rule; Choreonoid's own code agrees
//! for spines along an axis). Neighbouring rings are joined by two triangles per
//! cross-section edge; `begin_cap`/`end_cap` (default true, unless the spine is closed) close the
//! ends with a fan of triangles — exact for convex cross-sections.

use nalgebra::{Matrix3, Rotation3, Unit, UnitQuaternion, Vector3};
use tribo_yaml::{Diagnostic, Error, Fields, Node};

use super::mesh::MeshRead;
use super::units::AngleUnit;

/// Largest number of grid points an ElevationGrid may have (a 4000 × 4000 terrain).
const MAX_GRID_POINTS: usize = 16_000_000;

/// An `ElevationGrid` geometry.
pub fn read_elevation_grid(f: &Fields, node: &Node) -> Result<MeshRead, Error> {
    f.skip(&[
        "crease_angle",
        "creaseAngle",
        "tex_coord",
        "texCoord",
        "solid",
        "color",
        "normal",
    ]);
    let dimension =
        |keys: &[&str]| -> Result<usize, Error> { Ok(f.get_value(keys).map(Node::as_index).transpose()?.unwrap_or(0)) };
    let nx = dimension(&["x_dimension", "xDimension"])?;
    let nz = dimension(&["z_dimension", "zDimension"])?;
    let dx = f.f64_or(&["x_spacing", "xSpacing"], 1.0)?;
    let dz = f.f64_or(&["z_spacing", "zSpacing"], 1.0)?;
    let ccw = f.bool_or(&["ccw"], true)?;
    for (key, value) in [("x_spacing", dx), ("z_spacing", dz)] {
        if !(value.is_finite() && value > 0.0) {
            let at = f.get_value(&[key]).unwrap_or(node);
            return Err(at.error(format!("an ElevationGrid {key} must be > 0 m, found {value}")));
        }
    }
    if nx < 2 || nz < 2 {
        return Err(node.error(format!(
            "an ElevationGrid needs x_dimension and z_dimension of at least 2, found {nx} × {nz}"
        )));
    }
    if nx.saturating_mul(nz) > MAX_GRID_POINTS {
        return Err(node.error(format!(
            "an ElevationGrid of {nx} × {nz} points is larger than the {MAX_GRID_POINTS} tribo reads"
        )));
    }
    let height_node = f
        .get_value(&["height"])
        .ok_or_else(|| node.error("an ElevationGrid needs `height` (x_dimension × z_dimension values)"))?;
    let heights = height_node.as_seq()?;
    if heights.len() != nx * nz {
        return Err(height_node.error(format!(
            "an ElevationGrid of {nx} × {nz} points needs {} heights, found {}",
            nx * nz,
            heights.len()
        )));
    }
    let mut vertices = Vec::with_capacity(nx * nz);
    for z in 0..nz {
        for x in 0..nx {
            let h = heights[z * nx + x].as_finite()?;
            vertices.push(Vector3::new(x as f64 * dx, h, z as f64 * dz));
        }
    }
    let id = |x: usize, z: usize| (z * nx + x) as u32;
    let mut triangles = Vec::with_capacity(2 * (nx - 1) * (nz - 1));
    for z in 0..nz - 1 {
        for x in 0..nx - 1 {
            let (a, b, c, d) = (id(x, z), id(x, z + 1), id(x + 1, z + 1), id(x + 1, z));
            if ccw {
                triangles.extend([[a, b, c], [a, c, d]]);
            } else {
                triangles.extend([[a, c, b], [a, d, c]]);
            }
        }
    }
    Ok(MeshRead::Mesh {
        vertices,
        triangles,
        what: "ElevationGrid".to_string(),
    })
}

/// An `Extrusion` geometry.
pub fn read_extrusion(
    f: &Fields,
    node: &Node,
    unit: AngleUnit,
    notes: &mut Vec<Diagnostic>,
) -> Result<MeshRead, Error> {
    f.skip(&["crease_angle", "creaseAngle", "solid", "ccw", "convex"]);
    let cross_node = f
        .get_value(&["cross_section", "crossSection"])
        .ok_or_else(|| node.error("an Extrusion needs `cross_section` (x, z pairs)"))?;
    let mut cross = groups::<2>(cross_node, "cross_section", notes)?;
    let spine_node = f
        .get_value(&["spine"])
        .ok_or_else(|| node.error("an Extrusion needs `spine` (x, y, z points)"))?;
    let mut spine: Vec<Vector3<f64>> = groups::<3>(spine_node, "spine", notes)?
        .into_iter()
        .map(Vector3::from)
        .collect();
    let scales = match f.get_value(&["scale"]) {
        Some(n) => groups::<2>(n, "scale", notes)?,
        None => Vec::new(),
    };
    let orientations: Vec<Matrix3<f64>> = match f.get_value(&["orientation"]) {
        Some(n) => groups::<4>(n, "orientation", notes)?
            .into_iter()
            .map(|c| axis_angle(Vector3::new(c[0], c[1], c[2]), unit.to_radians(c[3])))
            .collect(),
        None => Vec::new(),
    };
    let begin_cap = f.bool_or(&["begin_cap", "beginCap"], true)?;
    let end_cap = f.bool_or(&["end_cap", "endCap"], true)?;

    let spine_closed = spine.len() > 1 && spine.first() == spine.last();
    if spine_closed {
        spine.pop();
    }
    let cross_closed = cross.len() > 1 && cross.first() == cross.last();
    if cross_closed {
        cross.pop();
    }
    if spine.len() < 2 || cross.len() < 2 {
        return Err(node.error(format!(
            "an Extrusion needs at least 2 distinct spine points and 2 cross-section points, found {} and {}",
            spine.len(),
            cross.len()
        )));
    }
    for (name, n, list) in [
        ("scale", scales.len(), "scale"),
        ("orientation", orientations.len(), "orientation"),
    ] {
        if n > 1 && n < spine.len() {
            let at = f.get_value(&[list]).unwrap_or(node);
            return Err(at.error(format!(
                "an Extrusion {name} has {n} entries: give one, or one per spine point ({})",
                spine.len()
            )));
        }
    }
    let frames = spine_frames(&spine, spine_closed);
    let (ns, nc) = (spine.len(), cross.len());
    let mut vertices = Vec::with_capacity(ns * nc);
    for (i, (point, frame)) in spine.iter().zip(&frames).enumerate() {
        let s = pick(&scales, i).copied().unwrap_or([1.0, 1.0]);
        let r = pick(&orientations, i).copied().unwrap_or_else(Matrix3::identity);
        for c in &cross {
            vertices.push(frame * r * Vector3::new(c[0] * s[0], 0.0, c[1] * s[1]) + point);
        }
    }
    let mut triangles = Vec::new();
    let rings = if spine_closed { ns } else { ns - 1 };
    let edges = if cross_closed { nc } else { nc - 1 };
    let id = |i: usize, j: usize| (i * nc + j) as u32;
    for i in 0..rings {
        let ii = (i + 1) % ns;
        for j in 0..edges {
            let jj = (j + 1) % nc;
            triangles.push([id(i, j), id(ii, j), id(ii, jj)]);
            triangles.push([id(i, j), id(ii, jj), id(i, jj)]);
        }
    }
    if !spine_closed && nc >= 3 {
        if begin_cap {
            triangles.extend((1..nc - 1).map(|j| [id(0, 0), id(0, j), id(0, j + 1)]));
        }
        if end_cap {
            let last = ns - 1;
            triangles.extend((1..nc - 1).map(|j| [id(last, 0), id(last, j + 1), id(last, j)]));
        }
    }
    Ok(MeshRead::Mesh {
        vertices,
        triangles,
        what: "Extrusion".to_string(),
    })
}

fn pick<T>(list: &[T], i: usize) -> Option<&T> {
    match list.len() {
        0 => None,
        1 => list.first(),
        _ => list.get(i),
    }
}

/// A flat list of numbers as groups of `N`. Choreonoid reads the whole groups and drops the rest
/// (`readExtrusion` divides the length by the group size); so does tribo, with a note.
fn groups<const N: usize>(node: &Node, what: &str, notes: &mut Vec<Diagnostic>) -> Result<Vec<[f64; N]>, Error> {
    let v = node.as_f64_list()?;
    if let Some(c) = v.iter().find(|x| !x.is_finite()) {
        return Err(node.error(format!("an Extrusion {what} holds a non-finite number ({c})")));
    }
    if v.len() % N != 0 {
        notes.push(node.warning(format!(
            "an Extrusion {what} is a flat list of groups of {N} numbers, found {}: the last {} are ignored, as \
             Choreonoid does",
            v.len(),
            v.len() % N
        )));
    }
    Ok(v.chunks_exact(N).map(|c| std::array::from_fn(|k| c[k])).collect())
}

fn axis_angle(axis: Vector3<f64>, angle: f64) -> Matrix3<f64> {
    match Unit::try_new(axis, 1e-12) {
        Some(axis) => *Rotation3::from_axis_angle(&axis, angle).matrix(),
        None => Matrix3::identity(),
    }
}

/// The cross-section plane's axes (columns x, y, z) at each spine point (module docs).
fn spine_frames(spine: &[Vector3<f64>], closed: bool) -> Vec<Matrix3<f64>> {
    let n = spine.len();
    let neighbours = |i: usize| -> (Vector3<f64>, Vector3<f64>, Vector3<f64>) {
        // (previous, this, next), wrapping on a closed spine, clamped at the ends of an open one.
        let prev = if i > 0 {
            spine[i - 1]
        } else if closed {
            spine[n - 1]
        } else {
            spine[0]
        };
        let next = if i + 1 < n {
            spine[i + 1]
        } else if closed {
            spine[0]
        } else {
            spine[n - 1]
        };
        (prev, spine[i], next)
    };
    let mut tangents = Vec::with_capacity(n);
    let mut bends: Vec<Option<Vector3<f64>>> = Vec::with_capacity(n);
    for i in 0..n {
        let (prev, here, next) = neighbours(i);
        tangents.push(next - prev);
        let bend = if n > 2 {
            // At the ends of an open spine the bend is that of the nearest inner point.
            let (p, h, q) = match (closed, i) {
                (false, 0) => (spine[0], spine[1], spine[2]),
                (false, k) if k == n - 1 => (spine[n - 3], spine[n - 2], spine[n - 1]),
                _ => (prev, here, next),
            };
            let z = (q - h).cross(&(p - h));
            (z.norm() > 0.0).then_some(z)
        } else {
            None
        };
        bends.push(bend);
    }
    let first_bend = bends.iter().flatten().next().copied();
    let mut frames = Vec::with_capacity(n);
    let mut previous_z: Option<Vector3<f64>> = None;
    for i in 0..n {
        let y = tangents[i].try_normalize(0.0).unwrap_or_else(Vector3::y);
        let frame = match first_bend {
            None => *UnitQuaternion::rotation_between(&Vector3::y(), &y)
                .unwrap_or_else(|| UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI))
                .to_rotation_matrix()
                .matrix(),
            Some(first) => {
                let mut z = bends[i].or(previous_z).unwrap_or(first);
                if previous_z.is_some_and(|p| p.dot(&z) < 0.0) {
                    z = -z;
                }
                previous_z = Some(z);
                let z = z.normalize();
                let x = y.cross(&z);
                Matrix3::from_columns(&[x, y, z])
            }
        };
        frames.push(frame);
    }
    frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Mesh, MeshCollision};
    use tribo_yaml::parse_str;

    fn mesh(read: MeshRead) -> Mesh {
        let MeshRead::Mesh {
            vertices, triangles, ..
        } = read
        else {
            unreachable!("expected a mesh");
        };
        Mesh::new(vertices, triangles, MeshCollision::ConvexHull, "test").expect("valid")
    }

    fn extrusion(text: &str) -> Result<MeshRead, Error> {
        let node = parse_str(text, "x.body").expect("yaml");
        let f = Fields::new(&node, "g").expect("map");
        read_extrusion(&f, &node, AngleUnit::Degree, &mut Vec::new())
    }

    #[test]
    fn a_square_extruded_along_y_is_a_closed_box() {
        let m = mesh(
            extrusion(
                "cross_section: [-0.5, -0.5, 0.5, -0.5, 0.5, 0.5, -0.5, 0.5, -0.5, -0.5]\nspine: [0, 0, 0, 0, 2, 0]",
            )
            .expect("extrusion"),
        );
        assert_eq!(m.vertices.len(), 8);
        assert!(m.is_closed(), "sides and caps close the box");
        let p = m.mass_properties();
        assert!((p.volume - 2.0).abs() < 1e-12, "{}", p.volume);
        assert!((p.centre - Vector3::new(0.0, 1.0, 0.0)).norm() < 1e-12);
    }

    #[test]
    fn a_tilted_straight_spine_carries_the_cross_section_across_it() {
        let m = mesh(
            extrusion("cross_section: [1, 0, 0, 1, -1, 0, 0, -1, 1, 0]\nspine: [0, 0, 0, 3, 0, 4]").expect("extrusion"),
        );
        let axis = Vector3::new(0.6, 0.0, 0.8);
        for v in &m.vertices[..4] {
            assert!(v.dot(&axis).abs() < 1e-12, "first ring across the spine: {v}");
            assert!((v.norm() - 1.0).abs() < 1e-12);
        }
        assert!(
            (m.mass_properties().volume - 2.0 * 5.0).abs() < 1e-12,
            "a square of area 2, 5 long"
        );
    }

    #[test]
    fn a_bent_spine_keeps_its_rings_across_the_tangent() {
        let m = mesh(
            extrusion("cross_section: [1, 0, 0, 1, -1, 0, 0, -1, 1, 0]\nspine: [0, 0, 0, 0, 1, 0, 1, 1, 0]\nscale: [0.1, 0.1]")
                .expect("extrusion"),
        );
        // The last ring sits around (1, 1, 0) in the plane normal to the last segment (+x).
        for v in &m.vertices[8..12] {
            assert!((v.x - 1.0).abs() < 1e-12, "{v}");
        }
        let err = extrusion("cross_section: [0, 0]\nspine: [0, 0, 0, 0, 1, 0]")
            .map(|_| ())
            .expect_err("too short");
        assert!(err.message.contains("at least 2"), "{err}");
    }

    #[test]
    fn an_elevation_grid_is_a_height_field() {
        let node = parse_str(
            "x_dimension: 3\nz_dimension: 2\nx_spacing: 0.5\nz_spacing: 2\nheight: [0, 1, 0, 0, 1, 0]",
            "g.body",
        )
        .expect("yaml");
        let f = Fields::new(&node, "g").expect("map");
        let m = mesh(read_elevation_grid(&f, &node).expect("grid"));
        assert_eq!(m.vertices.len(), 6);
        assert_eq!(m.triangles.len(), 4);
        assert_eq!(m.vertices[4], Vector3::new(0.5, 1.0, 2.0));
        // Counter-clockwise seen from above (+y): every normal points up.
        for t in &m.triangles {
            let [a, b, c] = t.map(|i| m.vertices[i as usize]);
            assert!((b - a).cross(&(c - a)).y > 0.0);
        }
        let node = parse_str("x_dimension: 2\nz_dimension: 2\nheight: [0, 0, 0]", "g.body").expect("yaml");
        let f = Fields::new(&node, "g").expect("map");
        let err = read_elevation_grid(&f, &node).map(|_| ()).expect_err("3 of 4");
        assert_eq!(
            err.to_string(),
            "g.body:3:9: an ElevationGrid of 2 × 2 points needs 4 heights, found 3"
        );
    }
}
