//! Writes a walking pattern as a Choreonoid `.seq`: a CompositeSeq (format version 2) BodyMotion
//! with a MultiValueSeq `JointDisplacement` component (radians, column j = joint id j) and an
//! optional Vector3Seq `ZMP` component (world frame, `isRootRelative: false`) —
//! docs/design/choreonoid-formats.md §3, the layout of Choreonoid's SR1WalkPattern2.seq.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use nalgebra::Vector2;
use tribo_model::JointMotion;

/// Decimal places written for angles (rad) and ZMP coordinates (m).
const DECIMALS: usize = 8;

/// The `.seq` text of `motion`, with the planned ZMP (one point per frame, z = 0) if given.
pub fn seq_text(motion: &JointMotion, zmp: Option<&[Vector2<f64>]>, comment: &str) -> String {
    let frames = motion.num_frames();
    let mut out = String::with_capacity(frames * (motion.num_parts * (DECIMALS + 5) + 40));
    for line in comment.lines() {
        let _ = writeln!(out, "# {line}");
    }
    let _ = writeln!(out, "type: CompositeSeq");
    let _ = writeln!(out, "content: BodyMotion");
    let _ = writeln!(out, "formatVersion: 2");
    let _ = writeln!(out, "frameRate: {}", motion.frame_rate);
    let _ = writeln!(out, "numFrames: {frames}");
    let _ = writeln!(out, "components:");
    let _ = writeln!(out, "  - type: MultiValueSeq");
    let _ = writeln!(out, "    content: JointDisplacement");
    let _ = writeln!(out, "    numParts: {}", motion.num_parts);
    let _ = writeln!(out, "    frames:");
    for i in 0..frames {
        let values: Vec<String> = motion.frame(i).iter().map(|v| format!("{v:.DECIMALS$}")).collect();
        let _ = writeln!(out, "      - [ {} ]", values.join(", "));
    }
    if let Some(zmp) = zmp {
        let _ = writeln!(out, "  - type: Vector3Seq");
        let _ = writeln!(out, "    content: ZMP");
        let _ = writeln!(out, "    isRootRelative: false");
        let _ = writeln!(out, "    frames:");
        for p in zmp {
            let _ = writeln!(out, "      - [ {:.DECIMALS$}, {:.DECIMALS$}, 0 ]", p.x, p.y);
        }
    }
    out
}

/// Writes [`seq_text`] to `path`.
pub fn write_seq(path: &Path, motion: &JointMotion, zmp: Option<&[Vector2<f64>]>, comment: &str) -> io::Result<()> {
    std::fs::write(path, seq_text(motion, zmp, comment))
}
