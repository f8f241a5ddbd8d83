#![allow(clippy::panic)]
//! `tribo sweep --shard K/N` and `--merge` as a user runs them: the shards of a grid, merged, are
//! the sweep run on one machine — `sweep.json`, the JSON and table on stdout, `sweep.html` and the
//! plots — except for timings; and what is refused, with which message.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{stderr, stdout, temp_dir, tribo};
use serde_json::Value;

const BALL: &str = "samples/ball/ball.yaml";

/// `tribo ARGS` that must end with one of the exit statuses `allowed`.
fn ran(args: &[&str], allowed: &[i32]) -> Output {
    let o = tribo(args);
    let code = o.status.code().unwrap_or(-1);
    assert!(
        allowed.contains(&code),
        "tribo {}: status {code}\n{}",
        args.join(" "),
        stderr(&o)
    );
    o
}

/// `tribo ARGS` that must succeed.
fn ok(args: &[&str]) -> Output {
    ran(args, &[0])
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("cannot read {}: {e}", path.display()))
}

/// The sweep JSON without its timings (`steps_per_s`, the only field that depends on the machine).
fn untimed(mut v: Value) -> Value {
    if let Some(points) = v["points"].as_array_mut() {
        for point in points {
            if let Some(engines) = point["engines"].as_object_mut() {
                for run in engines.values_mut() {
                    if let Some(run) = run.as_object_mut() {
                        assert!(run.remove("steps_per_s").is_some(), "no steps_per_s in {run:?}");
                    }
                }
            }
        }
    }
    v
}

fn json_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// `sweep.html` with the steps/s cell of each row (its last cell) blanked.
fn html_untimed(html: &str) -> String {
    html.lines()
        .map(|l| match (l.ends_with("</td></tr>"), l.rfind("<td>")) {
            (true, Some(at)) => format!("{}<td>…</td></tr>", &l[..at]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The table on stdout with the steps/s column (each line's last word) left out.
fn table_untimed(table: &str) -> String {
    table
        .lines()
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words[..words.len().saturating_sub(1)].join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The files of `dir/plots`, name and bytes, sorted by name.
fn plots(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("plots"))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| {
                    let bytes = std::fs::read(e.path()).unwrap_or_default();
                    (e.file_name().to_string_lossy().into_owned(), bytes)
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// A sweep's outputs, timings aside: exit status and stderr, stdout (JSON or table), sweep.json,
/// sweep.html, the plots.
#[derive(Debug, PartialEq)]
struct Outputs {
    status: Option<i32>,
    stderr: String,
    stdout_json: Value,
    stdout_table: String,
    sweep_json: Value,
    sweep_html: String,
    plots: Vec<String>,
    svg: Vec<(String, Vec<u8>)>,
}

fn outputs(json_run: &Output, table_run: &Output, dir: &Path) -> Outputs {
    let all = plots(dir);
    Outputs {
        status: json_run.status.code(),
        stderr: stderr(json_run),
        stdout_json: untimed(json_text(&stdout(json_run))),
        stdout_table: table_untimed(&stdout(table_run)),
        sweep_json: untimed(json_text(&text(&dir.join("sweep.json")))),
        sweep_html: html_untimed(&text(&dir.join("sweep.html"))),
        plots: all.iter().map(|(name, _)| name.clone()).collect(),
        svg: all.into_iter().filter(|(name, _)| name.ends_with(".svg")).collect(),
    }
}

/// The sweep of `grid` on one machine: its outputs in `dir`. Exit status 0, or 1 when runs failed.
fn whole(grid: &[&str], dir: &Path) -> Outputs {
    let out = dir.display().to_string();
    let base: Vec<&str> = [&["sweep"], grid, &["--quiet", "--out", &out]].concat();
    let json_run = ran(&[&base[..], &["--json"]].concat(), &[0, 1]);
    let table_run = ran(&base, &[0, 1]);
    outputs(&json_run, &table_run, dir)
}

/// `grid` run as `n` shards into `dir/K`, merged (in the order `order` gives) into `dir/merged`.
fn sharded(grid: &[&str], n: usize, order: &[usize], dir: &Path) -> Outputs {
    for k in 1..=n {
        let shard = format!("{k}/{n}");
        let out = dir.join(k.to_string()).display().to_string();
        ran(
            &[&["sweep"], grid, &["--quiet", "--shard", &shard, "--out", &out]].concat(),
            &[0, 1],
        );
    }
    let shards: Vec<String> = order
        .iter()
        .map(|k| dir.join(k.to_string()).display().to_string())
        .collect();
    let merged = dir.join("merged").display().to_string();
    let run = |extra: &[&str]| {
        let mut args: Vec<&str> = vec!["sweep", "--merge"];
        args.extend(shards.iter().map(String::as_str));
        args.extend(["--quiet", "--out", merged.as_str()]);
        args.extend_from_slice(extra);
        ran(&args, &[0, 1])
    };
    let json_run = run(&["--json"]);
    let table_run = run(&[]);
    outputs(&json_run, &table_run, &dir.join("merged"))
}

#[test]
fn shards_merged_are_the_sweep_on_one_machine_timings_aside() {
    let dir = temp_dir("shards", "equal");
    // Five points on both of the project's engines; 0.8 s is too short for three bounces, so some
    // metrics are missing (with their reason) — they must survive the round trip too.
    let grid = [BALL, "--param", "drop_height=0.25,0.5,0.75,1,1.5", "--time", "0.8"];
    let one = whole(&grid, &dir.join("whole"));
    assert_eq!((one.status, one.stderr.as_str()), (Some(0), ""));
    assert_eq!(one.stdout_json["points"].as_array().map(Vec::len), Some(5));
    assert!(
        one.stdout_json.to_string().contains("\"missing\""),
        "{}",
        one.stdout_json
    );
    assert_eq!(one.stdout_json, one.sweep_json);
    assert!(
        one.plots.iter().any(|p| p == "first_apex_vs_drop_height.png"),
        "{:?}",
        one.plots
    );

    let two = sharded(&grid, 2, &[1, 2], &dir.join("two"));
    assert_eq!(two, one, "1/2 + 2/2 merged");
    let three = sharded(&grid, 3, &[3, 1, 2], &dir.join("three"));
    assert_eq!(three, one, "3/3 + 1/3 + 2/3 merged");
    std::fs::remove_dir_all(&dir).ok();
}

/// A ball pushed up with `push` newtons: 1e308 makes every engine diverge in its first step.
const PUSHED: &str = "name: pushed
parameters:
  push: { default: 0 }
simulation: { time_step: 0.001, duration: 0.3, engines: [rapier, pgs] }
bodies:
  - { name: floor, model: \"${SHARE}/model/floor.body\", fixed: true, translation: [0, 0, -0.1] }
  - { name: ball, model: \"${SHARE}/model/ball.body\", translation: [0, 0, 0.5] }
controllers:
  - { type: wrench, body: ball, force: [0, 0, push], torque: [0, 0, 0], start: 0, duration: 1 }
metrics:
  - { name: fell, kind: fell, body: ball, height: 0.1 }
";

#[test]
fn failed_runs_merge_as_they_failed() {
    let dir = temp_dir("shards", "failed");
    let project = dir.join("pushed.yaml");
    std::fs::write(&project, PUSHED).ok();
    let project = project.display().to_string();
    let grid = [project.as_str(), "--param", "push=0,1e308,0.5"];
    let one = whole(&grid, &dir.join("whole"));
    assert_eq!(one.status, Some(1), "{}", one.stderr);
    assert!(
        one.stderr.contains("some runs failed:\n  rapier at 1e308: "),
        "{}",
        one.stderr
    );
    let failure = &one.stdout_json["points"][1]["engines"]["pgs"]["failure"];
    assert!(failure.as_str().is_some_and(|f| f.contains("diverged")), "{failure}");
    assert_eq!(sharded(&grid, 2, &[2, 1], &dir.join("two")), one);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_shard_with_no_points_is_valid_says_so_and_merges() {
    let dir = temp_dir("shards", "empty");
    let grid = [
        BALL,
        "--param",
        "drop_height=0.5,1",
        "--time",
        "0.3",
        "--engines",
        "pgs",
    ];
    let out = dir.join("3").display().to_string();
    let o = tribo(&[&["sweep"], &grid[..], &["--shard", "3/3", "--out", &out]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("shard 3/3 has no points: the grid has 2"), "{err}");
    let file = json_text(&text(&dir.join("3/shard.json")));
    assert_eq!(file["points"], serde_json::json!([]));
    assert_eq!(file["shard"], serde_json::json!({"index": 3, "count": 3}));
    assert_eq!(file["grid"]["parameters"][0]["values"], serde_json::json!(["0.5", "1"]));

    let one = whole(&grid, &dir.join("whole"));
    assert_eq!(sharded(&grid, 3, &[1, 2, 3], &dir.join("three")), one);
    std::fs::remove_dir_all(&dir).ok();
}

/// `tribo ARGS` that must fail with exit status 2; its stderr.
fn refused(args: &[&str]) -> String {
    let o = tribo(args);
    assert_eq!(o.status.code(), Some(2), "tribo {}\n{}", args.join(" "), stderr(&o));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    stderr(&o)
}

#[test]
fn bad_shard_options_are_refused_before_anything_runs() {
    let sweep = |shard: &str| {
        refused(&[
            "sweep",
            BALL,
            "--param",
            "drop_height=1",
            "--shard",
            shard,
            "--out",
            "x",
        ])
    };
    for (shard, expected) in [
        (
            "2",
            "invalid value '2' for '--shard <K/N>': expected K/N, shard K of N (whole numbers, 1 ≤ K ≤ N), found `2`",
        ),
        ("a/b", "expected K/N, shard K of N"),
        ("0/2", "`0/2`: shards are numbered from 1 to N, so the first is `1/2`"),
        ("3/2", "`3/2`: there is no shard 3 of 2 (K must be at most N)"),
        ("1/0", "`1/0`: N, the number of shards, must be at least 1"),
    ] {
        let err = sweep(shard);
        assert!(err.contains(expected), "--shard {shard}: {err}");
    }
    let err = refused(&["sweep", BALL, "--param", "drop_height=1", "--shard", "1/2"]);
    assert_eq!(
        err.trim(),
        "--shard 1/2 needs --out DIR: the shard's runs go to DIR/shard.json for `tribo sweep --merge`"
    );
    // --merge takes no project, grid or run options: they come from the shards.
    for args in [
        &["sweep", BALL, "--merge", "x"][..],
        &["sweep", "--merge", "x", "--param", "drop_height=1"],
        &["sweep", "--merge", "x", "--shard", "1/2"],
        &["sweep", "--merge", "x", "--time", "1"],
    ] {
        let err = refused(args);
        assert!(
            err.contains("cannot be used with") && err.contains("--merge <SHARD_DIR>..."),
            "{err}"
        );
    }
    let err = refused(&["sweep", "--param", "drop_height=1"]);
    assert!(
        err.contains("required arguments were not provided") && err.contains("<PROJECT>"),
        "{err}"
    );
}

/// Run shard `shard` of `grid` into `dir`.
fn shard(grid: &[&str], shard: &str, dir: &Path) -> PathBuf {
    let out = dir.display().to_string();
    ok(&[&["sweep"], grid, &["--quiet", "--shard", shard, "--out", &out]].concat());
    dir.to_path_buf()
}

fn merge(dirs: &[&Path]) -> String {
    let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let mut args = vec!["sweep", "--merge"];
    args.extend(dirs.iter().map(String::as_str));
    refused(&args)
}

#[test]
fn merging_refuses_what_is_not_every_shard_of_one_sweep_once() {
    let dir = temp_dir("shards", "refused");
    let grid = [
        BALL,
        "--param",
        "drop_height=0.5,1,2",
        "--time",
        "0.05",
        "--engines",
        "pgs",
    ];
    let s1 = shard(&grid, "1/3", &dir.join("1"));
    let s2 = shard(&grid, "2/3", &dir.join("2"));
    let s3 = shard(&grid, "3/3", &dir.join("3"));
    let shown = |p: &Path| p.display().to_string();

    // Not a shard: an empty directory, a missing one, a file that is not a shard.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).ok();
    assert_eq!(
        merge(&[&s1, &empty]).trim(),
        format!(
            "{}: not a sweep shard: it has no shard.json (`tribo sweep ... --shard K/N --out DIR` writes one)",
            shown(&empty)
        )
    );
    let err = merge(&[&dir.join("nowhere")]);
    assert!(
        err.starts_with(&format!("{}: No such file or directory", shown(&dir.join("nowhere")))),
        "{err}"
    );
    let results = dir.join("results");
    ok(&[&["sweep"], &grid[..], &["--quiet", "--out", &shown(&results)]].concat());
    let err = merge(&[&results.join("sweep.json")]);
    assert!(err.contains("sweep.json: not a tribo sweep shard"), "{err}");

    // Missing and repeated shards.
    assert!(merge(&[&s1, &s3]).starts_with("shard 2/3 missing: --merge needs all 3 shards of the sweep; given 1/3 ("));
    assert!(merge(&[&s2]).starts_with("shards 1/3 and 3/3 missing"));
    let err = merge(&[&s1, &s2, &s3, &s2]);
    assert_eq!(
        err.trim(),
        format!("shard 2/3 given twice: {} and {}", shown(&s2), shown(&s2))
    );

    // Shards of other sweeps: another grid, --time, engines, number of shards.
    let other = |extra: &[&str], k: &str, name: &str| shard(&[&grid[..], extra].concat(), k, &dir.join(name));
    let values = shard(
        &[
            BALL,
            "--param",
            "drop_height=0.5,1",
            "--time",
            "0.05",
            "--engines",
            "pgs",
        ],
        "2/3",
        &dir.join("values"),
    );
    let err = merge(&[&s1, &values, &s3]);
    assert_eq!(
        err.trim(),
        format!(
            "{}: not a shard of the same sweep as {}: --param `drop_height=0.5,1` there, `drop_height=0.5,1,2` in {}",
            shown(&values),
            shown(&s1),
            shown(&s1)
        )
    );
    let time = shard(
        &[
            BALL,
            "--param",
            "drop_height=0.5,1,2",
            "--time",
            "0.06",
            "--engines",
            "pgs",
        ],
        "2/3",
        &dir.join("time"),
    );
    assert!(merge(&[&s1, &time, &s3]).contains("--time 0.06 s there, 0.05 s in"));
    let engines = other(&["--engines", "rapier"], "2/3", "engines");
    let err = merge(&[&s1, &engines, &s3]);
    assert!(err.contains("the engines `pgs,rapier` there, `pgs` in"), "{err}");
    let halves = shard(&grid, "2/2", &dir.join("halves"));
    assert_eq!(
        merge(&[&s1, &halves]).trim(),
        format!(
            "{}: not a shard of the same sweep as {}: the number of shards 2 (shard 2/2) there, 3 (shard 1/3) in {}",
            shown(&halves),
            shown(&s1),
            shown(&s1)
        )
    );

    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn merging_refuses_shards_of_different_project_files() {
    let dir = temp_dir("shards", "files");
    let project = dir.join("ball.yaml");
    let original = text(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(BALL));
    std::fs::write(&project, &original).ok();
    let shown = project.display().to_string();
    let grid = [
        shown.as_str(),
        "--param",
        "drop_height=0.5,1",
        "--time",
        "0.05",
        "--engines",
        "pgs",
    ];
    let s1 = shard(&grid, "1/2", &dir.join("1"));
    // The same path, edited between the two shards.
    std::fs::write(&project, original.replace("time_step: 0.001", "time_step: 0.002")).ok();
    let s2 = shard(&grid, "2/2", &dir.join("2"));
    let err = merge(&[&s1, &s2]);
    let expected = format!(
        "{}: not a shard of the same sweep as {}: the project's files differ: {shown} has FNV-1a ",
        s2.display(),
        s1.display()
    );
    assert!(err.starts_with(&expected), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
