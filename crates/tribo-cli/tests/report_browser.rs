//! `tribo compare --out DIR` writes a report that loads in headless Chromium without script
//! errors and draws the replay (the page counts the distinct colours of its first replay view).
//!
//! Needs Debian's `chromium` (`.ci/run` installs it). Without it the test fails on CI (`CI` set)
//! and is skipped with a message elsewhere.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn chromium() -> Option<PathBuf> {
    let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
    candidates.iter().map(PathBuf::from).find(|p| p.exists())
}

/// What a finished browser run printed.
struct Printed {
    stdout: String,
    stderr: String,
}

/// Run `command` to completion with its output in files (a dumped page exceeds a pipe's buffer),
/// killing it after `limit`.
fn run_within(mut command: Command, scratch: &Path, limit: Duration) -> Printed {
    let out_path = scratch.with_extension("stdout");
    let err_path = scratch.with_extension("stderr");
    let mut child = command
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("start chromium");
    let started = Instant::now();
    loop {
        if child.try_wait().expect("wait for chromium").is_some() {
            break;
        }
        if started.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            assert!(started.elapsed() <= limit, "chromium took longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Printed {
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

fn headless(browser: &Path, profile: &Path, extra: &[String], url: &str) -> Printed {
    let mut command = Command::new(browser);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,900",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url);
    run_within(command, profile, Duration::from_secs(90))
}

/// Console messages Chromium logged that are errors of the page.
fn console_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains("Uncaught") || l.contains("Error") || l.contains("error")))
        .collect()
}

#[test]
fn ball_report_loads_in_chromium_and_draws_the_replay() {
    let Some(browser) = chromium() else {
        let message = "chromium is not installed (apt-get install chromium): the report browser test cannot run";
        let on_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
        assert!(!on_ci, "{message}");
        eprintln!("skipped: {message}");
        return;
    };
    let dir = std::env::temp_dir().join(format!("tribo-browser-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let out = dir.join("ball");
    let o = Command::new(env!("CARGO_BIN_EXE_tribo"))
        .args(["compare", "samples/ball/ball.yaml", "--time", "1.2", "--quiet", "--out"])
        .arg(&out)
        .current_dir(workspace())
        .output()
        .expect("run tribo");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = out.join("report.html");
    for file in [
        "report.html",
        "plots/ball_z.svg",
        "plots/ball_z.png",
        "rapier/trajectory.csv",
    ] {
        assert!(out.join(file).exists(), "{file} missing");
    }
    // The ball is in the air at 0.3 s (it lands at √(2/9.81) ≈ 0.45 s).
    let url = format!("file://{}#t=0.3", report.canonicalize().expect("report path").display());

    let dom = headless(&browser, &dir.join("profile-dom"), &["--dump-dom".into()], &url);
    let page = &dom.stdout;
    let stderr = &dom.stderr;
    let status_start = page.find("id=\"report-status\"").expect("status element in the DOM");
    let status = &page[status_start..];
    let status = &status[status.find('>').expect("status text") + 1..status.find('<').expect("end of status")];
    assert!(
        status.starts_with("ok replay-colours="),
        "page status: {status}\n{stderr}"
    );
    let colours: usize = status["ok replay-colours=".len()..].parse().expect("colour count");
    // Background, floor and the shaded ball: far more than a blank canvas's one colour.
    assert!(colours > 20, "the replay view shows only {colours} colours");
    assert!(console_errors(stderr).is_empty(), "{:?}", console_errors(stderr));

    let shot = dir.join("replay.png");
    let o = headless(
        &browser,
        &dir.join("profile-shot"),
        &[format!("--screenshot={}", shot.display())],
        &url,
    );
    assert!(console_errors(&o.stderr).is_empty(), "{:?}", console_errors(&o.stderr));
    let png = std::fs::read(&shot).expect("screenshot written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // IHDR: width and height, big-endian, at bytes 16..24.
    let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
    let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
    assert_eq!((width, height), (1280, 900));
    // A blank 1280×900 page compresses to a few kB; the drawn report is tens of kB.
    assert!(png.len() > 20_000, "screenshot of {} bytes looks blank", png.len());
    std::fs::remove_dir_all(&dir).ok();
}
