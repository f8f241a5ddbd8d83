//! Choreonoid `BodyMotion` `.seq` files: the joint component (docs/design/choreonoid-formats.md §3;
//! `BodyMotion.cpp` `doReadSeq`, `GeneralSeqReader.h`).

use std::path::Path;
use std::sync::Arc;

use tribo_yaml::{Error, Map, Node, Value};

use crate::{JointMotion, ZmpSeq};

/// Format versions from this one on are rejected, as by Choreonoid.
const UNSUPPORTED_VERSION: f64 = 5.0;

/// Load the joint motion of a `.seq` file.
pub fn load_motion(path: &Path) -> Result<JointMotion, Error> {
    let doc = tribo_yaml::parse_file(path)?;
    read_motion(&doc, path.display().to_string().into())
}

/// Parse `.seq` text; `file_name` names it in locations.
pub fn parse_motion(text: &str, file_name: &str) -> Result<JointMotion, Error> {
    let doc = tribo_yaml::parse_str(text, file_name)?;
    read_motion(&doc, file_name.into())
}

/// A component's keys, falling back to the top level's: each component is a copy of its own
/// mapping with the top-level mapping merged in without overwriting (BodyMotion.cpp).
struct Inherited<'a> {
    own: &'a Map,
    top: &'a Map,
}

impl<'a> Inherited<'a> {
    fn get(&self, keys: &[&str]) -> Option<&'a Node> {
        let find = |map: &'a Map| keys.iter().find_map(|k| map.get(k)).filter(|n| !n.is_null());
        find(self.own).or_else(|| find(self.top))
    }
}

fn read_motion(doc: &Node, source: Arc<str>) -> Result<JointMotion, Error> {
    let top = doc
        .as_map()
        .map_err(|_| doc.error(format!("expected a motion file (a mapping), found {}", doc.kind_name())))?;
    let top_keys = Inherited { own: top, top };
    let version = match top_keys.get(&["format_version", "formatVersion"]) {
        Some(node) => node.as_finite()?,
        None => 1.0,
    };
    if version >= UNSUPPORTED_VERSION {
        let at = top_keys.get(&["format_version", "formatVersion"]).unwrap_or(doc);
        return Err(at.error(format!(
            "BodyMotion format version {version} is not supported (versions below {UNSUPPORTED_VERSION})"
        )));
    }
    let expected_type = if version >= 2.0 { "CompositeSeq" } else { "BodyMotion" };
    let type_node = top_keys
        .get(&["type"])
        .ok_or_else(|| doc.error(format!("missing `type: {expected_type}`")))?;
    let type_name = type_node.as_str()?;
    if type_name != expected_type {
        return Err(type_node.error(format!(
            "expected `type: {expected_type}` for a body motion of format version {version}, found `{type_name}`"
        )));
    }
    if version >= 2.0 {
        if let Some(content) = top_keys.get(&["content"]) {
            if content.as_str()? != "BodyMotion" {
                return Err(content.error(format!("expected `content: BodyMotion`, found {}", content.kind_name())));
            }
        }
    }
    let joint_content = if version < 2.0 {
        "JointPosition"
    } else if (3.0..4.0).contains(&version) {
        "MultiJointDisplacementSeq"
    } else {
        "JointDisplacement"
    };
    let components_node = top_keys
        .get(&["components"])
        .ok_or_else(|| doc.error("missing `components`"))?;
    let components = components_node.as_seq()?;
    let mut motion = None;
    let mut zmp = None;
    for component in components {
        let own = component.as_map().map_err(|_| {
            component.error(format!(
                "expected a motion component (a mapping), found {}",
                component.kind_name()
            ))
        })?;
        let keys = Inherited { own, top };
        let component_type = keys.get(&["type"]).map(Node::as_str).transpose()?;
        let content_keys: &[&str] = if version < 2.0 {
            &["content", "purpose"]
        } else {
            &["content"]
        };
        let content = keys.get(content_keys).map(Node::as_str).transpose()?;
        // The last joint component wins, as in Choreonoid; other components (ZMP, link
        // positions, user data) are not used.
        if component_type == Some("MultiValueSeq") && content == Some(joint_content) {
            motion = Some(read_joint_component(component, &keys, &source)?);
        }
        if component_type == Some("Vector3Seq") && content == Some("ZMP") {
            zmp = Some(read_zmp_component(component, &keys)?);
        }
    }
    let mut motion = motion.ok_or_else(|| {
        components_node.error(format!(
            "no joint motion: expected a component with `type: MultiValueSeq` and `content: {joint_content}`"
        ))
    })?;
    motion.zmp = zmp;
    Ok(motion)
}

/// A `Vector3Seq` ZMP component: `frame_rate`, `is_root_relative`, frames of `[x, y, z]`.
fn read_zmp_component(component: &Node, keys: &Inherited) -> Result<ZmpSeq, Error> {
    let rate_node = keys
        .get(&["frame_rate", "frameRate"])
        .ok_or_else(|| component.error("missing `frame_rate` (or `frameRate`)"))?;
    let frame_rate = rate_node.as_finite()?;
    if frame_rate <= 0.0 {
        return Err(rate_node.error(format!("the frame rate must be positive, found {frame_rate}")));
    }
    let root_relative = match keys.get(&["is_root_relative", "isRootRelative"]) {
        Some(n) => n.as_bool()?,
        None => false,
    };
    let frames = keys
        .get(&["frames"])
        .ok_or_else(|| component.error("missing `frames`"))?;
    let points = frames.as_seq()?.iter().map(Node::as_vec3).collect::<Result<_, _>>()?;
    Ok(ZmpSeq {
        frame_rate,
        points,
        root_relative,
    })
}

/// A `MultiValueSeq` joint component (GeneralSeqReader `readHeaders`, `readFrames`).
fn read_joint_component(component: &Node, keys: &Inherited, source: &Arc<str>) -> Result<JointMotion, Error> {
    let version = keys
        .get(&["format_version", "formatVersion"])
        .map(Node::as_finite)
        .transpose()?
        .unwrap_or(1.0);
    let has_frame_time = match keys.get(&["has_frame_time", "hasFrameTime"]) {
        None => false,
        Some(node) if version < 2.0 => {
            return Err(node.error(format!("has_frame_time is not supported in format version {version}")))
        }
        Some(node) => node.as_bool()?,
    };
    let rate_node = keys
        .get(&["frame_rate", "frameRate"])
        .ok_or_else(|| component.error("missing required key `frame_rate` or `frameRate`"))?;
    let frame_rate = rate_node.as_finite()?;
    if frame_rate <= 0.0 {
        return Err(rate_node.error(format!("frame_rate must be > 0 frames per second, found {frame_rate}")));
    }
    let parts_node = keys
        .get(&["num_parts", "numParts"])
        .ok_or_else(|| component.error("missing required key `num_parts` or `numParts`"))?;
    let num_parts = parts_node.as_i64()?;
    let num_parts = usize::try_from(num_parts)
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| parts_node.error(format!("num_parts must be ≥ 1, found {num_parts}")))?;
    let labels = match keys.get(&["part_labels", "partLabels"]) {
        None => Vec::new(),
        Some(node) => {
            let labels: Vec<String> = node.as_name_list()?.into_iter().map(str::to_string).collect();
            if labels.len() != num_parts {
                return Err(node.error(format!(
                    "expected {num_parts} part labels (num_parts), found {}",
                    labels.len()
                )));
            }
            labels
        }
    };
    let frames_node = keys
        .get(&["frames"])
        .ok_or_else(|| component.error("missing required key `frames`"))?;
    let frames = frames_node.as_seq()?;
    if frames.is_empty() {
        return Err(frames_node.error("the motion has no frames"));
    }
    let skip = usize::from(has_frame_time);
    let width = num_parts + skip;
    let mut values = Vec::with_capacity(frames.len().saturating_mul(num_parts));
    for (i, frame) in frames.iter().enumerate() {
        let items = match &frame.value {
            Value::Seq(items) if items.len() == width => items,
            Value::Seq(items) => {
                let what = if has_frame_time {
                    "a time and num_parts"
                } else {
                    "num_parts"
                };
                return Err(frame.error(format!(
                    "frame {i} has {} values, expected {width} ({what} = {num_parts})",
                    items.len()
                )));
            }
            _ => {
                return Err(frame.error(format!(
                    "expected frame {i} as a list of {width} numbers, found {}",
                    frame.kind_name()
                )))
            }
        };
        if has_frame_time {
            if let Some(time) = items.first() {
                time.as_finite()?;
            }
        }
        for item in items.iter().skip(skip) {
            values.push(item.as_finite()?);
        }
    }
    Ok(JointMotion {
        zmp: None,
        frame_rate,
        num_parts,
        values,
        labels,
        source: Arc::clone(source),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "type: CompositeSeq\ncontent: BodyMotion\nformat_version: 4\nframe_rate: 100\n\
        components:\n  - {type: Vector3Seq, content: ZMP, frames: [[0, 0, 0]]}\n  - type: MultiValueSeq\n    content: JointDisplacement\n    num_parts: 2\n    part_labels: [a, b]\n    frames:\n      - [0.1, 0.2]\n      - [0.3, 0.4]\n";

    #[test]
    fn zmp_component_is_kept() {
        let text = "type: CompositeSeq\nformatVersion: 2\nframeRate: 10\ncomponents:\n  - {type: Vector3Seq, content: ZMP, isRootRelative: false, frames: [[0, 0.1, 0], [0.2, 0.1, 0]]}\n  - {type: MultiValueSeq, content: JointDisplacement, numParts: 1, frames: [[1], [2]]}\n";
        let motion = parse_motion(text, "z.seq").expect("loads");
        let zmp = motion.zmp.expect("zmp component");
        assert_eq!(zmp.points, vec![[0.0, 0.1, 0.0], [0.2, 0.1, 0.0]]);
        assert!(!zmp.root_relative);
        assert_eq!(zmp.at(0.1), Some([0.2, 0.1, 0.0]));
        assert_eq!(zmp.at(5.0), Some([0.2, 0.1, 0.0]), "clamped to the last frame");
        let bad = text.replace("[0.2, 0.1, 0]", "[0.2, 0.1]");
        let err = parse_motion(&bad, "z.seq").expect_err("a 2-vector");
        assert!(err.to_string().starts_with("z.seq:5:"), "{err}");
    }

    #[test]
    fn components_inherit_the_frame_rate() {
        let m = parse_motion(SMALL, "s.seq").expect("motion");
        assert_eq!(m.frame_rate, 100.0);
        assert_eq!(m.num_parts, 2);
        assert_eq!(m.num_frames(), 2);
        assert_eq!(m.frame(1), [0.3, 0.4]);
        assert_eq!(m.labels, ["a", "b"]);
    }

    #[test]
    fn version_one_and_three_content_names() {
        let v1 = "type: BodyMotion\nframeRate: 10\ncomponents:\n  - {type: MultiValueSeq, purpose: JointPosition, numParts: 1, frames: [[1], [2]]}\n";
        assert_eq!(parse_motion(v1, "v1.seq").expect("v1").values, [1.0, 2.0]);
        let v3 = "type: CompositeSeq\nformatVersion: 3\nframeRate: 10\ncomponents:\n  - {type: MultiValueSeq, content: MultiJointDisplacementSeq, numParts: 1, frames: [[1]]}\n";
        assert_eq!(parse_motion(v3, "v3.seq").expect("v3").values, [1.0]);
        let v3_wrong = v3.replace("MultiJointDisplacementSeq", "JointDisplacement");
        assert!(parse_motion(&v3_wrong, "v3.seq").is_err());
    }

    #[test]
    fn frame_time_is_dropped() {
        let text = "type: CompositeSeq\nformat_version: 4\ncomponents:\n  - {type: MultiValueSeq, content: JointDisplacement, frame_rate: 2, num_parts: 2, has_frame_time: true, frames: [[0, 1, 2], [0.5, 3, 4]]}\n";
        assert_eq!(parse_motion(text, "t.seq").expect("timed").values, [1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn bad_frame_is_located() {
        let bad = SMALL.replace("[0.3, 0.4]", "[0.3]");
        let err = parse_motion(&bad, "s.seq").expect_err("short frame");
        assert_eq!(
            err.to_string(),
            "s.seq:13:9: frame 1 has 1 values, expected 2 (num_parts = 2)"
        );
    }
}
