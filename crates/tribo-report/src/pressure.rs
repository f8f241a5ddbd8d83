//! Pressure maps of distributed contact patches (CSLC pads): per pad, the per-sphere pressure of
//! the frames a run's replay kept, shown in the page under the pad's engine view (moving with the
//! shared time slider), and a heat-map image of each pad at its largest total normal force.
//!
//! Spheres are drawn at their rest positions in the pad frame (`PatchDetail::sphere_positions`),
//! one lattice cell square each, so a dome pad shows as the disc it is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use serde_json::{json, Value};
use tribo_runner::{ContactRecord, Replay, RunOutcome};
use tribo_scene::{LinkRef, Scene};

use crate::format::{num, round_sig, slug};
use crate::replay_data::{kept_frames, MAX_REPLAY_FRAMES};
use crate::ReportError;

/// One pad's pressures over time.
#[derive(Debug, Clone, PartialEq)]
pub struct PressureMap {
    /// Index of the pad in `Scene::pads`.
    pub pad: usize,
    /// The pad's link, "body.link".
    pub label: String,
    /// The links the pad touched, "body.link, body.link".
    pub touched: String,
    /// Lattice spacing, m.
    pub cell: f64,
    /// Per-sphere rest position in the pad frame, `[x, y]`, m (lattice order).
    pub positions: Vec<[f64; 2]>,
    /// s, one per frame.
    pub times: Vec<f64>,
    /// The pad's total normal force per frame, N.
    pub forces: Vec<f64>,
    /// Per frame, per sphere (lattice order), Pa; empty while the pad is out of contact.
    pub frames: Vec<Vec<f64>>,
    /// When the pad's total normal force was largest (of every captured step), s.
    pub peak_time: f64,
    /// That force, N.
    pub peak_force: f64,
    /// The per-sphere pressures then, Pa.
    pub peak_pressures: Vec<f64>,
}

/// The pressure maps of `outcome`'s pads (none without a replay or without pads).
pub fn pressure_maps(scene: &Scene, outcome: &RunOutcome) -> Vec<PressureMap> {
    outcome
        .replay
        .as_ref()
        .map_or_else(Vec::new, |r| PressureMap::from_replay(scene, r))
}

impl PressureMap {
    /// One map per pad of `replay`'s pressure track, in pad order.
    pub fn from_replay(scene: &Scene, replay: &Replay) -> Vec<PressureMap> {
        let names = |links: &[LinkRef]| {
            links
                .iter()
                .map(|&l| link_name(scene, l))
                .collect::<Vec<_>>()
                .join(", ")
        };
        Self::from_track(replay, |l| link_name(scene, l), names)
    }

    fn from_track(
        replay: &Replay,
        name: impl Fn(LinkRef) -> String,
        names: impl Fn(&[LinkRef]) -> String,
    ) -> Vec<PressureMap> {
        let track = &replay.pressure;
        track
            .pads
            .iter()
            .map(|pad| {
                let mut map = PressureMap {
                    pad: pad.pad,
                    label: name(pad.link),
                    touched: names(&pad.touched),
                    cell: pad.cell,
                    positions: pad.positions.clone(),
                    times: Vec::with_capacity(track.frames.len()),
                    forces: Vec::with_capacity(track.frames.len()),
                    frames: Vec::with_capacity(track.frames.len()),
                    peak_time: pad.peak.time,
                    peak_force: pad.peak.normal_force,
                    peak_pressures: pad.peak.pressures.clone(),
                };
                for frame in &track.frames {
                    let mine = frame.pads.iter().find(|p| p.pad == pad.pad);
                    map.times.push(frame.time);
                    map.forces.push(mine.map_or(0.0, |p| p.normal_force));
                    map.frames.push(mine.map_or_else(Vec::new, |p| p.pressures.clone()));
                }
                map
            })
            .collect()
    }

    /// Highest pressure of any sphere in any frame, Pa (0 when empty).
    pub fn peak(&self) -> f64 {
        self.frames
            .iter()
            .flatten()
            .chain(&self.peak_pressures)
            .copied()
            .filter(|p| p.is_finite())
            .fold(0.0, f64::max)
    }

    /// "body.link (pad N) on body.link".
    pub fn title(&self) -> String {
        let mut title = format!("{} (pad {})", self.label, self.pad);
        if !self.touched.is_empty() {
            title.push_str(&format!(" on {}", self.touched));
        }
        title
    }

    /// `{"pad", "label", "title", "cell", "x": [...], "y": [...], "peak", "peak_time",
    /// "peak_force", "times": [...], "forces": [...], "values": [[...] per frame, [] out of
    /// contact]}` (positions in m, pressures in Pa to 3 significant digits), at most
    /// [`MAX_REPLAY_FRAMES`] frames.
    pub fn to_json(&self) -> Value {
        let n = self.times.len().min(self.frames.len());
        let kept = kept_frames(n, MAX_REPLAY_FRAMES);
        let pick = |values: &[f64]| -> Vec<Value> {
            kept.iter()
                .map(|&i| num(values.get(i).copied().unwrap_or(0.0)))
                .collect()
        };
        let values: Vec<Value> = kept
            .iter()
            .filter_map(|&i| self.frames.get(i))
            .map(|f| {
                if f.iter().all(|&p| p == 0.0) {
                    Value::Array(Vec::new())
                } else {
                    Value::Array(f.iter().map(|&p| pascal_json(p)).collect())
                }
            })
            .collect();
        json!({
            "pad": self.pad,
            "label": self.label,
            "title": self.title(),
            "cell": num(self.cell),
            "x": self.positions.iter().map(|p| num(p[0])).collect::<Vec<_>>(),
            "y": self.positions.iter().map(|p| num(p[1])).collect::<Vec<_>>(),
            "peak": num(self.peak()),
            "peak_time": num(self.peak_time),
            "peak_force": num(self.peak_force),
            "times": pick(&self.times),
            "forces": pick(&self.forces),
            "values": values,
        })
    }
}

/// Collects pressure maps straight from contact records (for callers that step an engine
/// themselves; `tribo_runner::run` fills the replay's track instead): one map per pad that ever
/// had a patch, bounded like a replay's.
#[derive(Debug, Clone, Default)]
pub struct PressureRecorder {
    replay: Replay,
    names: BTreeMap<LinkRef, String>,
}

impl PressureRecorder {
    pub fn new() -> Self {
        PressureRecorder::default()
    }

    /// Record the patches among `contacts` at time `time`.
    pub fn capture(&mut self, scene: &Scene, time: f64, contacts: &[ContactRecord]) {
        for c in contacts.iter().filter(|c| c.patch.is_some()) {
            for l in [c.a, c.b] {
                self.names.entry(l).or_insert_with(|| link_name(scene, l));
            }
        }
        self.replay.pressure.capture(time, contacts);
    }

    pub fn finish(self) -> Vec<PressureMap> {
        let names = &self.names;
        let name = |l: LinkRef| names.get(&l).cloned().unwrap_or_default();
        PressureMap::from_track(&self.replay, name, |links| {
            links.iter().map(|&l| name(l)).collect::<Vec<_>>().join(", ")
        })
    }
}

fn link_name(scene: &Scene, link: LinkRef) -> String {
    let Some(body) = scene.bodies.get(link.body) else {
        return format!("body{}.link{}", link.body, link.link);
    };
    match body.model.links.get(link.link) {
        Some(l) => format!("{}.{}", body.name, l.name),
        None => format!("{}.link{}", body.name, link.link),
    }
}

/// Heat colour of `x` in [0, 1]: dark blue → purple → red → yellow (the page uses the same).
pub fn heat(x: f64) -> (u8, u8, u8) {
    const STOPS: [[f64; 3]; 4] = [
        [20.0, 20.0, 60.0],
        [120.0, 30.0, 140.0],
        [220.0, 60.0, 40.0],
        [250.0, 220.0, 60.0],
    ];
    let x = if x.is_finite() { x.clamp(0.0, 1.0) } else { 0.0 } * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let c = |k: usize| (STOPS[i][k] + f * (STOPS[i + 1][k] - STOPS[i][k])).round() as u8;
    (c(0), c(1), c(2))
}

pub const PRESSURE_IMAGE_SIZE: (u32, u32) = (760, 600);

/// What [`write_pressure_images`] wrote for one pad.
#[derive(Debug, Clone, PartialEq)]
pub struct PressureImage {
    pub title: String,
    pub png: PathBuf,
    pub svg: PathBuf,
    /// s.
    pub time: f64,
    /// N.
    pub normal_force: f64,
    /// Pa.
    pub peak_pressure: f64,
}

/// Per pad, `dir/pressure_LINK.png` and `.svg`: a heat map of the pad's per-sphere pressure at its
/// largest total normal force, with a colour bar in Pa and the pad's link in the title. Pads that
/// never pressed get no image.
pub fn write_pressure_images(dir: &Path, maps: &[PressureMap]) -> Result<Vec<PressureImage>, ReportError> {
    std::fs::create_dir_all(dir).map_err(crate::io_error(dir))?;
    let mut images = Vec::new();
    let mut stems: Vec<String> = Vec::new();
    for map in maps
        .iter()
        .filter(|m| m.peak_force > 0.0 && !m.peak_pressures.is_empty())
    {
        let mut stem = format!("pressure_{}", slug(&map.label));
        if stems.contains(&stem) {
            stem.push_str(&format!("_pad{}", map.pad));
        }
        stems.push(stem.clone());
        let png = dir.join(format!("{stem}.png"));
        let svg = dir.join(format!("{stem}.svg"));
        {
            let root = SVGBackend::new(&svg, PRESSURE_IMAGE_SIZE).into_drawing_area();
            draw_pressure(map, &root).map_err(|message| ReportError::Plot {
                path: svg.clone(),
                message,
            })?;
        }
        {
            let root = BitMapBackend::new(&png, PRESSURE_IMAGE_SIZE).into_drawing_area();
            draw_pressure(map, &root).map_err(|message| ReportError::Plot {
                path: png.clone(),
                message,
            })?;
        }
        images.push(PressureImage {
            title: map.title(),
            png,
            svg,
            time: map.peak_time,
            normal_force: map.peak_force,
            peak_pressure: map.peak_pressures.iter().copied().fold(0.0, f64::max),
        });
    }
    Ok(images)
}

/// A pressure, Pa, to 3 significant digits, written as an integer when it is one (most are: the
/// page's data stays small).
fn pascal_json(p: f64) -> Value {
    let r = round_sig(p, 3);
    if r.fract() == 0.0 && r.abs() < 1e15 {
        json!(r as i64)
    } else {
        json!(r)
    }
}

/// Pa as a tick label.
fn pascal(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

fn draw_pressure<DB: DrawingBackend>(
    map: &PressureMap,
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String> {
    crate::fonts::ensure_registered()?;
    let text = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(text)?;
    let root = root
        .titled(&format!("pressure: {}", map.title()), (crate::fonts::FAMILY, 18))
        .map_err(text)?;
    let width = root.dim_in_pixel().0;
    let (left, right) = root.split_horizontally(width.saturating_sub(160));
    let pressures = &map.peak_pressures;
    let top = pressures.iter().copied().filter(|p| p.is_finite()).fold(0.0, f64::max);
    let top = if top > 0.0 { top } else { 1.0 };

    // The pad in mm, square axes around the lattice, one cell per sphere.
    let mm = 1000.0;
    let half = 0.5 * map.cell * mm;
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for p in &map.positions {
        x0 = x0.min(p[0] * mm - half);
        x1 = x1.max(p[0] * mm + half);
        y0 = y0.min(p[1] * mm - half);
        y1 = y1.max(p[1] * mm + half);
    }
    if !x0.is_finite() || !y0.is_finite() {
        (x0, x1, y0, y1) = (-1.0, 1.0, -1.0, 1.0);
    }
    let span = (x1 - x0).max(y1 - y0) * 1.05;
    let (cx, cy) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
    let mut chart = ChartBuilder::on(&left)
        .caption(
            format!(
                "at its peak total normal force {:.3} N, t = {:.3} s",
                map.peak_force, map.peak_time
            ),
            (crate::fonts::FAMILY, 14),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(cx - 0.5 * span..cx + 0.5 * span, cy - 0.5 * span..cy + 0.5 * span)
        .map_err(text)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("x in the pad frame (mm)")
        .y_desc("y (mm)")
        .label_style((crate::fonts::FAMILY, 13))
        .axis_desc_style((crate::fonts::FAMILY, 14))
        .draw()
        .map_err(text)?;
    chart
        .draw_series(map.positions.iter().enumerate().map(|(i, p)| {
            let v = pressures.get(i).copied().unwrap_or(0.0);
            let (r, g, b) = heat(v / top);
            let (x, y) = (p[0] * mm, p[1] * mm);
            Rectangle::new([(x - half, y - half), (x + half, y + half)], RGBColor(r, g, b).filled())
        }))
        .map_err(text)?;

    // The colour bar: 0 … the peak pressure, Pa.
    let mut bar = ChartBuilder::on(&right)
        .margin_top(40)
        .margin_bottom(52)
        .margin_left(10)
        .margin_right(8)
        .set_label_area_size(LabelAreaPosition::Right, 90)
        .build_cartesian_2d(0.0..1.0, 0.0..top)
        .map_err(text)?;
    bar.configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_desc("pressure (Pa)")
        .y_label_style((crate::fonts::FAMILY, 13))
        .axis_desc_style((crate::fonts::FAMILY, 14))
        .y_label_formatter(&|v| pascal(*v))
        .draw()
        .map_err(text)?;
    let steps = 100;
    bar.draw_series((0..steps).map(|k| {
        let (a, b) = (k as f64 / steps as f64, (k + 1) as f64 / steps as f64);
        let (r, g, bl) = heat(0.5 * (a + b));
        Rectangle::new([(0.0, a * top), (1.0, b * top)], RGBColor(r, g, bl).filled())
    }))
    .map_err(text)?;
    root.present().map_err(text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> PressureMap {
        PressureMap {
            pad: 1,
            label: "gripper.left".into(),
            touched: "object.Object".into(),
            cell: 0.002,
            positions: vec![[-0.001, -0.001], [0.001, -0.001], [-0.001, 0.001], [0.001, 0.001]],
            times: vec![0.0, 0.5],
            forces: vec![0.0, 2.0],
            frames: vec![vec![0.0; 4], vec![1.0, 2.0, 3.0, 1234.5678]],
            peak_time: 0.5,
            peak_force: 2.0,
            peak_pressures: vec![1.0, 2.0, 3.0, 1234.5678],
        }
    }

    #[test]
    fn json_keeps_positions_frames_and_peak() {
        let v = map().to_json();
        assert_eq!(v["peak"], 1234.6);
        assert_eq!(v["values"][0], json!([]));
        assert_eq!(v["values"][1][3], 1230);
        assert_eq!(v["values"][1][0].to_string(), "1");
        assert_eq!(v["times"][1], 0.5);
        assert_eq!(v["forces"][1], 2.0);
        assert_eq!(v["x"], json!([-0.001, 0.001, -0.001, 0.001]));
        assert_eq!(v["cell"], 0.002);
        assert_eq!(v["title"], "gripper.left (pad 1) on object.Object");
    }

    #[test]
    fn heat_runs_from_dark_blue_to_yellow() {
        assert_eq!(heat(0.0), (20, 20, 60));
        assert_eq!(heat(1.0), (250, 220, 60));
        assert_eq!(heat(f64::NAN), heat(0.0));
        assert_ne!(heat(0.5), heat(0.6));
    }

    #[test]
    fn images_are_written_per_pad_that_pressed() {
        let dir = std::env::temp_dir().join(format!("tribo-report-pressure-{}", std::process::id()));
        let mut idle = map();
        idle.pad = 0;
        idle.label = "gripper.right".into();
        idle.peak_force = 0.0;
        let images = write_pressure_images(&dir, &[map(), idle]).expect("images");
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].png, dir.join("pressure_gripper_left.png"));
        let svg = std::fs::read_to_string(&images[0].svg).expect("svg");
        assert!(svg.contains("pressure (Pa)"));
        assert!(svg.contains("gripper.left"));
        let png = std::fs::read(&images[0].png).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        std::fs::remove_dir_all(&dir).ok();
    }
}
