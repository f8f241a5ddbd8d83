//! Pressure maps end to end through the `tribo` binary on the gentle-grasp sample: `compare --out`
//! embeds both `cslc` pads' pressure frames in the report (none for the rigid engines) and writes
//! their images; `run --engine cslc --out` writes and names one image per pad; in headless
//! Chromium (when installed) each pad's map is drawn.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tribo(args: &[&str], out: &Path) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_tribo"))
        .args(args)
        .arg("--out")
        .arg(out)
        .current_dir(workspace())
        .output()
        .expect("run tribo");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tribo-pressure-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    dir
}

fn embedded_replay(html: &str) -> serde_json::Value {
    let open = "<script type=\"application/json\" id=\"replay-data\">";
    let start = html.find(open).expect("replay data element") + open.len();
    let end = start + html[start..].find("</script>").expect("end of replay data");
    serde_json::from_str(&html[start..end]).expect("valid JSON")
}

/// Distinct `fill="#rrggbb"` colours of an SVG.
fn svg_fills(svg: &str) -> usize {
    svg.match_indices("fill=\"#")
        .map(|(i, m)| &svg[i + m.len()..(i + m.len() + 6).min(svg.len())])
        .collect::<BTreeSet<_>>()
        .len()
}

const PADS: [&str; 2] = ["gripper_left_finger", "gripper_right_finger"];

#[test]
fn compare_report_carries_both_cslc_pads_pressure_frames() {
    let dir = temp_dir("compare");
    tribo(
        &[
            "compare",
            "samples/gentle-grasp/gentle-grasp.yaml",
            "--engines",
            "pgs,cslc",
            "--time",
            "0.3",
            "--quiet",
        ],
        &dir,
    );
    let html = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
    let data = embedded_replay(&html);
    let runs = data["runs"].as_array().expect("runs");
    assert_eq!(runs[0]["engine"], "pgs");
    assert_eq!(runs[0]["pads"], serde_json::json!([]), "a rigid engine has no pads");
    assert_eq!(runs[1]["engine"], "cslc");
    let pads = runs[1]["pads"].as_array().expect("pads");
    assert_eq!(pads.len(), 2);
    for (pad, name) in pads.iter().zip(["gripper.left_finger", "gripper.right_finger"]) {
        assert_eq!(pad["label"], name);
        let spheres = pad["x"].as_array().expect("x").len();
        assert_eq!(spheres, 100);
        let values = pad["values"].as_array().expect("values");
        assert!(values.len() > 100);
        let pressing = values
            .iter()
            .filter(|f| {
                f.as_array()
                    .is_some_and(|f| f.len() == spheres && f.iter().any(|v| v.as_f64() > Some(0.0)))
            })
            .count();
        assert!(
            pressing > values.len() / 2,
            "{pressing} of {} frames press on {name}",
            values.len()
        );
    }
    for pad in PADS {
        for ext in ["png", "svg"] {
            let path = dir.join(format!("cslc/pressure_{pad}.{ext}"));
            assert!(path.exists(), "{} missing", path.display());
        }
        assert!(!dir.join(format!("pgs/pressure_{pad}.png")).exists());
    }

    if let Some(browser) = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
    {
        let url = format!(
            "file://{}#t=0.25",
            dir.join("report.html").canonicalize().expect("path").display()
        );
        let profile = dir.join("profile");
        let o = Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1280,900",
                "--virtual-time-budget=3000",
                "--dump-dom",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(&url)
            .output()
            .expect("run chromium");
        let page = String::from_utf8_lossy(&o.stdout);
        assert!(page.contains("class=\"pass\">ok replay-colours="), "page status not ok");
        // Each pad's map shows its cells in more than one colour (zero and pressed spheres).
        let colours: Vec<usize> = page
            .match_indices("data-colours=\"")
            .filter_map(|(i, m)| page[i + m.len()..].split('"').next()?.parse().ok())
            .collect();
        assert_eq!(colours.len(), 2, "pad maps drawn: {colours:?}");
        assert!(colours.iter().all(|&c| c > 1), "pad map colours {colours:?}");
    } else {
        eprintln!("skipped the browser part: chromium is not installed");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_writes_a_pressure_image_per_pad_and_says_so() {
    let dir = temp_dir("run");
    let o = tribo(
        &[
            "run",
            "samples/gentle-grasp/gentle-grasp.yaml",
            "--engine",
            "cslc",
            "--set",
            "pad=dome",
            "--time",
            "0.3",
            "--quiet",
        ],
        &dir,
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    for pad in PADS {
        let png = dir.join(format!("pressure_{pad}.png"));
        let svg = dir.join(format!("pressure_{pad}.svg"));
        assert!(stdout.contains(&png.display().to_string()), "{stdout}");
        let bytes = std::fs::read(&png).expect("png written");
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let svg = std::fs::read_to_string(&svg).expect("svg written");
        assert!(svg.contains("pressure (Pa)"));
        assert!(svg.contains(&pad.replacen('_', ".", 1)), "title names the pad link");
        // White, the cells and a 100-step colour bar.
        assert!(svg_fills(&svg) > 20, "{} fill colours", svg_fills(&svg));
    }
    assert!(
        stdout.contains("pressure map of gripper.left_finger (pad 0) on object.object at its peak total normal force")
    );
    std::fs::remove_dir_all(&dir).ok();
}
