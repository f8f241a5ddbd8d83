//! Pressure maps from a real `cslc` run of the gentle-grasp sample: the runner's replay carries
//! both pads' per-sphere pressures, the report embeds them laid out by the lattice's own
//! positions, and each pad's image at its peak normal force is a real heat map.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tribo_report::{pressure_maps, write_compare_report, write_pressure_images, EngineRun, MAX_REPLAY_FRAMES};
use tribo_runner::{RunOptions, RunOutcome};
use tribo_scene::{LoadOptions, Project};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn gentle_grasp(pad: &str) -> Project {
    let options = LoadOptions {
        overrides: [("pad".to_string(), pad.to_string())].into_iter().collect(),
        share_dir: root().join("share"),
        ..Default::default()
    };
    Project::load(&root().join("samples/gentle-grasp/gentle-grasp.yaml"), &options).expect("sample loads")
}

fn run_cslc(project: &Project, seconds: f64) -> RunOutcome {
    let registry = tribo::engines();
    let options = RunOptions {
        duration: Some(seconds),
        replay_interval: Some(project.simulation.time_step),
        ..Default::default()
    };
    tribo_runner::run(project, &registry, "cslc", &options, &mut |_, _| {}).expect("run")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tribo-report-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    dir
}

fn embedded_replay(html: &str) -> serde_json::Value {
    let open = "<script type=\"application/json\" id=\"replay-data\">";
    let start = html.find(open).expect("replay data element") + open.len();
    let end = start + html[start..].find("</script>").expect("end of replay data");
    serde_json::from_str(&html[start..end]).expect("valid JSON")
}

/// Distinct RGB colours of a PNG.
fn png_colours(path: &Path) -> usize {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("png file"));
    let mut reader = decoder.read_info().expect("png header");
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).expect("png frame");
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    buffer[..info.buffer_size()]
        .chunks(channels)
        .map(|p| (p[0], p[1], p[2]))
        .collect::<BTreeSet<_>>()
        .len()
}

#[test]
fn flat_pads_of_a_cslc_run_have_pressure_frames_report_and_images() {
    let project = gentle_grasp("flat");
    let outcome = run_cslc(&project, 0.3);
    let maps = pressure_maps(&project.scene, &outcome);
    assert_eq!(maps.len(), 2, "one map per finger pad");
    for (map, finger) in maps.iter().zip(["left_finger", "right_finger"]) {
        assert_eq!(map.label, format!("gripper.{finger}"));
        assert_eq!(map.touched, "object.object");
        // 10 × 10 spheres at 2 mm.
        assert_eq!(map.positions.len(), 100);
        assert!((map.cell - 0.002).abs() < 1e-12);
        assert!(map.times.len() <= MAX_REPLAY_FRAMES && map.times.len() > 100);
        assert!(map.times.windows(2).all(|w| w[0] < w[1]));
        // The fingers squeeze from the start: most frames press, with a peak in the middle
        // of the pad (the sphere touches the pad's centre).
        let pressing = map.frames.iter().filter(|f| f.iter().any(|&p| p > 0.0)).count();
        assert!(
            pressing > map.frames.len() / 2,
            "{pressing} of {} frames",
            map.frames.len()
        );
        assert!(map.peak_force > 0.5, "peak normal force {}", map.peak_force);
        let (centre, _) = map
            .peak_pressures
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .expect("spheres");
        let [x, y] = map.positions[centre];
        assert!(x.abs() < 0.002 && y.abs() < 0.002, "peak at ({x}, {y})");
    }

    let dir = temp_dir("pressure");
    let runs = [EngineRun {
        outcome: &outcome,
        failure: None,
        pressure: &maps,
    }];
    let files = write_compare_report(&dir, &project, &runs).expect("report");
    let html = std::fs::read_to_string(&files.html).expect("report.html");
    let data = embedded_replay(&html);
    let pads = data["runs"][0]["pads"].as_array().expect("pads");
    assert_eq!(pads.len(), 2);
    for pad in pads {
        let x = pad["x"].as_array().expect("x");
        assert_eq!(x.len(), 100);
        assert_eq!(pad["y"].as_array().expect("y").len(), 100);
        let values = pad["values"].as_array().expect("values");
        assert_eq!(values.len(), pad["times"].as_array().expect("times").len());
        let nonzero = values
            .iter()
            .flat_map(|f| f.as_array().expect("frame").iter())
            .filter(|v| v.as_f64().is_some_and(|v| v > 0.0))
            .count();
        assert!(nonzero > 100, "{nonzero} non-zero pressures in {}", pad["title"]);
        assert!(pad["peak"].as_f64().expect("peak") > 1000.0);
    }

    let images = write_pressure_images(&dir, &maps).expect("images");
    assert_eq!(images.len(), 2);
    for image in &images {
        assert!(image.svg.exists());
        let colours = png_colours(&image.png);
        // Background, axes, the pad's cells and a 100-step colour bar.
        assert!(colours > 20, "{} shows {colours} colours", image.png.display());
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dome_pads_are_laid_out_as_discs() {
    let project = gentle_grasp("dome");
    let outcome = run_cslc(&project, 0.05);
    let maps = pressure_maps(&project.scene, &outcome);
    assert_eq!(maps.len(), 2);
    for map in &maps {
        // 12 cells across a disc: fewer spheres than the 12 × 12 square, none in its corners.
        let n = map.positions.len();
        assert!(n > 80 && n < 144, "{n} spheres");
        let r = 6.0 * map.cell;
        assert!(
            map.positions.iter().all(|p| p[0].hypot(p[1]) <= r * 1.05),
            "sphere outside the disc"
        );
        assert!(map.peak_force > 0.0 && map.peak().is_finite());
    }
}
