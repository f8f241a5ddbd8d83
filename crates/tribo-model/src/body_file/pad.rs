//! The `pad:` key of a link (tribo extension; Choreonoid ignores it):
//!
//! ```yaml
//! pad: {shape: flat, resolution: [15, 15], spacing: 0.002, translation: [0, 0, 0.01], rotation: [1, 0, 0, 90]}
//! pad: {shape: flat, resolution: [12, 7], spacing: 0.02, layout: nodes}
//! pad: {shape: dome, radius: 0.03, base_radius: 0.012, resolution: 12}
//! ```
//! The pad frame's origin lies on the contact surface with outward normal +Z. A flat pad's
//! `layout` (optional) is `cells` — each sphere centred in its own cell, the pad `resolution ×
//! spacing` wide — or `nodes` — the outermost spheres on the pad's edges, the pad `(resolution −
//! 1) × spacing` wide (`docs/design/lattice-model.md` §2, "Where a flat pad ends").

use tribo_yaml::{Error, Fields, Node};

use super::pose::{isometry, read_placement};
use super::units::AngleUnit;
use crate::pad::{PadLayout, PadShape, PadSpec};

/// Keys of a pad mapping.
pub const PAD_KEYS: [&str; 8] = [
    "shape",
    "resolution",
    "spacing",
    "layout",
    "radius",
    "base_radius",
    "translation",
    "rotation",
];

/// Reads a pad mapping; `extra` lists keys the caller reads itself (e.g. `body`, `link` in a
/// project), anything else is an error naming the closest key.
pub fn read_pad(node: &Node, unit: AngleUnit, extra: &[&str]) -> Result<PadSpec, Error> {
    let f = Fields::new(node, "a pad")?;
    f.skip(extra);
    let shape_node = f.required(&["shape"])?;
    let shape = match shape_node.as_name()? {
        "flat" => {
            let resolution = read_resolution_pair(f.required(&["resolution"])?)?;
            let spacing = positive(&f, "spacing")?;
            let layout = read_layout(&f)?;
            PadShape::Flat {
                resolution,
                spacing,
                layout,
            }
        }
        "dome" => {
            if let Some(layout) = f.get(&["layout"]) {
                return Err(layout.error("`layout` belongs to flat pads; a dome is sampled by its own grid"));
            }
            let radius = positive(&f, "radius")?;
            let base_radius = positive(&f, "base_radius")?;
            if base_radius >= radius {
                let at = f.required(&["base_radius"])?;
                return Err(at.error(format!(
                    "a dome's `base_radius` ({base_radius}) must be smaller than its `radius` ({radius})"
                )));
            }
            let resolution = f.count_or("resolution", 0, 2)?;
            if resolution == 0 {
                return Err(node.error("a dome pad needs `resolution` (grid cells across its base, ≥ 2)"));
            }
            PadShape::Dome {
                radius,
                base_radius,
                resolution,
            }
        }
        other => {
            let hint = tribo_yaml::did_you_mean(other, ["flat", "dome"]);
            return Err(shape_node.error(format!("unknown pad shape `{other}`{hint}; expected flat or dome")));
        }
    };
    let (translation, rotation) = read_placement(&f, unit)?;
    let known: Vec<&str> = PAD_KEYS.iter().chain(extra).copied().collect();
    f.reject_unknown("a pad", &known)?;
    Ok(PadSpec {
        shape,
        pose: isometry(translation, rotation),
        location: node.location.clone(),
    })
}

/// The optional `layout:` of a flat pad, `cells` when absent.
fn read_layout(f: &Fields) -> Result<PadLayout, Error> {
    let Some(node) = f.get(&["layout"]) else {
        return Ok(PadLayout::Cells);
    };
    let name = node.as_name()?;
    PadLayout::named(name).ok_or_else(|| {
        let hint = tribo_yaml::did_you_mean(name, PadLayout::ALL.map(PadLayout::name));
        node.error(format!(
            "unknown flat pad layout `{name}`{hint}; expected cells (each sphere centred in its own \
             cell) or nodes (the outermost spheres on the pad's edges)"
        ))
    })
}

fn positive(f: &Fields, key: &str) -> Result<f64, Error> {
    let node = f.required(&[key])?;
    let value = node.as_finite()?;
    if value > 0.0 {
        Ok(value)
    } else {
        Err(node.error(format!("`{key}` must be a length > 0 (m), found {value}")))
    }
}

/// `[nx, ny]`, each at least 2.
fn read_resolution_pair(node: &Node) -> Result<[usize; 2], Error> {
    let items = node.as_seq().map_err(|_| {
        node.error(format!(
            "expected `resolution: [nx, ny]` (spheres along X and Y), found {}",
            node.kind_name()
        ))
    })?;
    let [x, y] = items else {
        return Err(node.error(format!(
            "expected `resolution: [nx, ny]` with two counts, found {} values",
            items.len()
        )));
    };
    let count = |n: &Node| -> Result<usize, Error> {
        let v = n.as_index()?;
        if v >= 2 {
            Ok(v)
        } else {
            Err(n.error(format!("a pad needs at least 2 spheres along each side, found {v}")))
        }
    };
    Ok([count(x)?, count(y)?])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    fn parse(text: &str) -> Result<PadSpec, Error> {
        let doc = tribo_yaml::parse_str(text, "pad.yaml").expect("yaml");
        read_pad(&doc, AngleUnit::Degree, &[])
    }

    #[test]
    fn flat_and_dome_pads_read_with_their_pose() {
        let flat = parse(
            "{shape: flat, resolution: [15, 10], spacing: 0.002, translation: [0, 0, 0.01], rotation: [1, 0, 0, 90]}",
        )
        .expect("flat pad");
        assert_eq!(
            flat.shape,
            PadShape::Flat {
                resolution: [15, 10],
                spacing: 0.002,
                layout: PadLayout::Cells,
            }
        );
        let normal = flat.pose.rotation * Vector3::z();
        assert!((normal - Vector3::new(0.0, -1.0, 0.0)).norm() < 1e-12, "{normal}");
        assert!((flat.pose.translation.vector.z - 0.01).abs() < 1e-15);
        let nodes = parse("{shape: flat, resolution: [12, 7], spacing: 0.02, layout: nodes}").expect("flat pad");
        assert_eq!(
            nodes.shape,
            PadShape::Flat {
                resolution: [12, 7],
                spacing: 0.02,
                layout: PadLayout::Nodes
            }
        );
        let dome = parse("{shape: dome, radius: 0.03, base_radius: 0.012, resolution: 12}").expect("dome pad");
        assert_eq!(
            dome.shape,
            PadShape::Dome {
                radius: 0.03,
                base_radius: 0.012,
                resolution: 12
            }
        );
    }

    #[test]
    fn bad_pads_are_located_errors() {
        let e = parse("{shape: flot, resolution: [3, 3], spacing: 0.01}").unwrap_err();
        assert!(e.to_string().contains("did you mean `flat`"), "{e}");
        let e = parse("{shape: flat, resolution: [1, 3], spacing: 0.01}").unwrap_err();
        assert!(e.to_string().contains("at least 2"), "{e}");
        let e = parse("{shape: flat, resolution: [3, 3], spacing: -1}").unwrap_err();
        assert!(e.to_string().contains("> 0"), "{e}");
        let e = parse("{shape: dome, radius: 0.01, base_radius: 0.02, resolution: 5}").unwrap_err();
        assert!(e.to_string().contains("smaller"), "{e}");
        let e = parse("{shape: flat, resolution: [3, 3], spacing: 0.01, layout: node}").unwrap_err();
        assert!(e.to_string().contains("did you mean `nodes`"), "{e}");
        assert!(e.to_string().starts_with("pad.yaml:1:"), "{e}");
        let e = parse("{shape: dome, radius: 0.03, base_radius: 0.012, resolution: 12, layout: nodes}").unwrap_err();
        assert!(e.to_string().contains("flat pads"), "{e}");
        let e = parse("{shape: flat, resolution: [3, 3], spacing: 0.01, spacnig: 2}").unwrap_err();
        assert!(e.to_string().contains("spacing"), "{e}");
        assert!(e.to_string().starts_with("pad.yaml:1:"), "{e}");
    }
}
