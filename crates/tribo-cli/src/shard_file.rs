//! `DIR/shard.json`: one shard of a sweep, as `tribo sweep --shard K/N --out DIR` writes it and
//! `tribo sweep --merge` reads it back.
//!
//! The file holds the whole grid (project, `--set`, `--materials`, `--time`, every swept
//! parameter with its values, the engines, the project's [`Fingerprint`]), the shard's K and N,
//! and every run of the shard's points as the sweep shows it ([`SweepRun`]: metrics with their
//! expectations and tolerances, steps, simulated and wall time, warnings, why a run failed).
//! Numbers are written so that they read back bit for bit (a finite `f64` as its shortest exact
//! decimal, a non-finite one as `"NaN"`, `"inf"` or `"-inf"`, wall time in nanoseconds): a merged
//! sweep is the sweep run on one machine, timings aside.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tribo_report::{SweepPoint, SweepRun};
use tribo_runner::{MetricResult, MetricValue};
use tribo_scene::ExpectedValue;

use crate::failure::Failure;
use crate::fingerprint::{FileHash, Fingerprint};
use crate::shard::Shard;
use crate::sweep::{grid, Axis};

/// The file a shard directory holds.
pub const FILE_NAME: &str = "shard.json";
const FORMAT: &str = "tribo sweep shard";
const VERSION: u32 = 1;

/// What a sweep runs, as two shards of it must agree on.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// The project file as given on the command line.
    pub project: String,
    /// The project's name.
    pub name: String,
    /// `--set` overrides in effect.
    pub set: BTreeMap<String, String>,
    /// `--materials` files as given.
    pub materials: Vec<String>,
    /// `--time`, s.
    pub time: Option<f64>,
    pub axes: Vec<Axis>,
    pub engines: Vec<String>,
    pub fingerprint: Fingerprint,
}

impl Grid {
    /// Points in the grid: the product of the axes' value counts.
    pub fn size(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product()
    }
}

/// One shard: which one, of which grid, and its points with their 0-based grid indices.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardFile {
    /// The tribo version that ran it.
    pub tribo: String,
    pub shard: Shard,
    pub grid: Grid,
    pub points: Vec<(usize, SweepPoint)>,
}

/// Write `dir/shard.json` (through a temporary file renamed into place, so a shard that was
/// stopped half-way leaves no half-written file behind).
pub fn write(dir: &Path, shard: &ShardFile) -> Result<PathBuf, Failure> {
    let path = dir.join(FILE_NAME);
    let text = serde_json::to_string_pretty(&Stored::from(shard))
        .map_err(|e| Failure::run(format!("{}: cannot encode the shard: {e}", path.display())))?;
    let temporary = dir.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
    std::fs::write(&temporary, text + "\n")
        .and_then(|()| std::fs::rename(&temporary, &path))
        .map_err(|e| Failure::run(format!("{}: cannot write: {e}", path.display())))?;
    Ok(path)
}

/// Read the shard in `path` (a directory holding `shard.json`, or the file itself), checked for
/// consistency: its points are exactly those of its shard of its grid, each with one run per
/// engine in the grid's order.
pub fn read(path: &Path) -> Result<ShardFile, Failure> {
    let file = if path.is_dir() {
        path.join(FILE_NAME)
    } else {
        path.to_path_buf()
    };
    let shown = file.display().to_string();
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(_) if path.is_dir() => {
            return Err(Failure::input(format!(
                "{}: not a sweep shard: it has no {FILE_NAME} (`tribo sweep ... --shard K/N --out DIR` writes one)",
                path.display()
            )))
        }
        Err(e) if !path.exists() => return Err(Failure::input(format!("{}: {e}", path.display()))),
        Err(e) => return Err(Failure::input(format!("{shown}: cannot read: {e}"))),
    };
    let located = |e: serde_json::Error, what: &str| {
        let message = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = message.strip_suffix(&suffix).unwrap_or(&message);
        Failure::input(format!("{shown}:{}:{}: {what}{message}", e.line(), e.column()))
    };
    // What the file says it is, before reading it as a shard.
    let header: serde_json::Value = serde_json::from_str(&text).map_err(|e| located(e, "not JSON: "))?;
    if header.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(Failure::input(format!(
            "{shown}: not a tribo sweep shard (it has no `\"format\": \"{FORMAT}\"`)"
        )));
    }
    let version = header.get("version");
    if version.and_then(|v| v.as_u64()) != Some(u64::from(VERSION)) {
        let found = version.map_or("no version".to_string(), |v| format!("version {v}"));
        return Err(Failure::input(format!(
            "{shown}: a sweep shard of {found}; this tribo ({}) reads version {VERSION}",
            env!("CARGO_PKG_VERSION")
        )));
    }
    let stored: Stored = serde_json::from_str(&text).map_err(|e| located(e, ""))?;
    let shard = stored
        .into_shard()
        .map_err(|what| Failure::input(format!("{shown}: {what}")))?;
    check_points(&shard).map_err(|what| Failure::input(format!("{shown}: {what}")))?;
    Ok(shard)
}

/// The shard's points are its own (round-robin over the grid), each once and all of them, with
/// the grid's values and one run per engine.
fn check_points(shard: &ShardFile) -> Result<(), String> {
    let all = grid(&shard.grid.axes);
    let expected = shard.shard.points(all.len());
    let indices: Vec<usize> = shard.points.iter().map(|(i, _)| *i).collect();
    if indices != expected {
        return Err(format!(
            "shard {} of a {}-point grid holds the points {indices:?}, not its points {expected:?}",
            shard.shard,
            all.len()
        ));
    }
    for (index, point) in &shard.points {
        if all.get(*index) != Some(&point.values) {
            return Err(format!(
                "point {index} has the values {:?}, not the grid's {:?}",
                point.values,
                all.get(*index)
            ));
        }
        let engines: Vec<&str> = point.runs.iter().map(|r| r.engine.as_str()).collect();
        if engines != shard.grid.engines {
            return Err(format!(
                "point {index} has runs of {engines:?}, not of the grid's engines {:?}",
                shard.grid.engines
            ));
        }
    }
    Ok(())
}

#[derive(Serialize, Deserialize)]
struct Stored {
    format: String,
    version: u32,
    tribo: String,
    shard: StoredShard,
    grid: StoredGrid,
    points: Vec<StoredPoint>,
}

#[derive(Serialize, Deserialize)]
struct StoredShard {
    index: usize,
    count: usize,
}

#[derive(Serialize, Deserialize)]
struct StoredGrid {
    project: String,
    name: String,
    set: BTreeMap<String, String>,
    materials: Vec<String>,
    time_s: Option<Real>,
    parameters: Vec<StoredAxis>,
    engines: Vec<String>,
    /// 64-bit FNV-1a, 16 hex digits.
    fingerprint: String,
    files: Vec<StoredFile>,
}

#[derive(Serialize, Deserialize)]
struct StoredAxis {
    name: String,
    values: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct StoredFile {
    path: String,
    fnv1a: String,
}

#[derive(Serialize, Deserialize)]
struct StoredPoint {
    index: usize,
    values: Vec<String>,
    runs: Vec<StoredRun>,
}

#[derive(Serialize, Deserialize)]
struct StoredRun {
    engine: String,
    steps: u64,
    simulated_time_s: Real,
    wall_time_ns: u64,
    metrics: Vec<StoredMetric>,
    warnings: Vec<String>,
    failure: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct StoredMetric {
    name: String,
    unit: String,
    value: StoredValue,
    expected: Option<StoredExpected>,
    formula: Option<String>,
    tolerance: Option<Real>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum StoredValue {
    Number(Real),
    Bool(bool),
    Missing(String),
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum StoredExpected {
    Number(Real),
    Bool(bool),
}

impl From<&ShardFile> for Stored {
    fn from(s: &ShardFile) -> Stored {
        let g = &s.grid;
        Stored {
            format: FORMAT.into(),
            version: VERSION,
            tribo: s.tribo.clone(),
            shard: StoredShard {
                index: s.shard.index(),
                count: s.shard.count(),
            },
            grid: StoredGrid {
                project: g.project.clone(),
                name: g.name.clone(),
                set: g.set.clone(),
                materials: g.materials.clone(),
                time_s: g.time.map(Real),
                parameters: g
                    .axes
                    .iter()
                    .map(|a| StoredAxis {
                        name: a.name.clone(),
                        values: a.values.clone(),
                    })
                    .collect(),
                engines: g.engines.clone(),
                fingerprint: hex(g.fingerprint.digest),
                files: g
                    .fingerprint
                    .files
                    .iter()
                    .map(|f| StoredFile {
                        path: f.path.clone(),
                        fnv1a: hex(f.hash),
                    })
                    .collect(),
            },
            points: s
                .points
                .iter()
                .map(|(index, p)| StoredPoint {
                    index: *index,
                    values: p.values.clone(),
                    runs: p.runs.iter().map(StoredRun::from).collect(),
                })
                .collect(),
        }
    }
}

impl Stored {
    fn into_shard(self) -> Result<ShardFile, String> {
        let StoredShard { index, count } = self.shard;
        let shard =
            Shard::new(index, count).ok_or_else(|| format!("`shard` is {index}/{count}, not K/N with 1 ≤ K ≤ N"))?;
        let g = self.grid;
        let files = g
            .files
            .into_iter()
            .map(|f| {
                Ok(FileHash {
                    hash: unhex(&f.fnv1a)?,
                    path: f.path,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let grid = Grid {
            project: g.project,
            name: g.name,
            set: g.set,
            materials: g.materials,
            time: g.time_s.map(|t| t.0),
            axes: g
                .parameters
                .into_iter()
                .map(|a| Axis {
                    name: a.name,
                    values: a.values,
                })
                .collect(),
            engines: g.engines,
            fingerprint: Fingerprint {
                digest: unhex(&g.fingerprint)?,
                files,
            },
        };
        let points = self
            .points
            .into_iter()
            .map(|p| {
                let point = SweepPoint {
                    values: p.values,
                    runs: p.runs.into_iter().map(SweepRun::from).collect(),
                };
                (p.index, point)
            })
            .collect();
        Ok(ShardFile {
            tribo: self.tribo,
            shard,
            grid,
            points,
        })
    }
}

impl From<&SweepRun> for StoredRun {
    fn from(r: &SweepRun) -> StoredRun {
        StoredRun {
            engine: r.engine.clone(),
            steps: r.steps,
            simulated_time_s: Real(r.simulated_time),
            wall_time_ns: u64::try_from(r.wall_time.as_nanos()).unwrap_or(u64::MAX),
            metrics: r.metrics.iter().map(StoredMetric::from).collect(),
            warnings: r.warnings.clone(),
            failure: r.failure.clone(),
        }
    }
}

impl From<StoredRun> for SweepRun {
    fn from(r: StoredRun) -> SweepRun {
        SweepRun {
            engine: r.engine,
            steps: r.steps,
            simulated_time: r.simulated_time_s.0,
            wall_time: Duration::from_nanos(r.wall_time_ns),
            metrics: r.metrics.into_iter().map(MetricResult::from).collect(),
            warnings: r.warnings,
            failure: r.failure,
        }
    }
}

impl From<&MetricResult> for StoredMetric {
    fn from(m: &MetricResult) -> StoredMetric {
        StoredMetric {
            name: m.name.clone(),
            unit: m.unit.clone(),
            value: match &m.value {
                MetricValue::Number(v) => StoredValue::Number(Real(*v)),
                MetricValue::Bool(b) => StoredValue::Bool(*b),
                MetricValue::Missing(why) => StoredValue::Missing(why.clone()),
            },
            expected: m.expected.map(|e| match e {
                ExpectedValue::Number(v) => StoredExpected::Number(Real(v)),
                ExpectedValue::Bool(b) => StoredExpected::Bool(b),
            }),
            formula: m.formula.clone(),
            tolerance: m.tolerance.map(Real),
        }
    }
}

impl From<StoredMetric> for MetricResult {
    fn from(m: StoredMetric) -> MetricResult {
        MetricResult {
            name: m.name,
            unit: m.unit,
            value: match m.value {
                StoredValue::Number(v) => MetricValue::Number(v.0),
                StoredValue::Bool(b) => MetricValue::Bool(b),
                StoredValue::Missing(why) => MetricValue::Missing(why),
            },
            expected: m.expected.map(|e| match e {
                StoredExpected::Number(v) => ExpectedValue::Number(v.0),
                StoredExpected::Bool(b) => ExpectedValue::Bool(b),
            }),
            formula: m.formula,
            tolerance: m.tolerance.map(|t| t.0),
        }
    }
}

fn hex(value: u64) -> String {
    format!("{value:016x}")
}

fn unhex(text: &str) -> Result<u64, String> {
    u64::from_str_radix(text, 16).map_err(|_| format!("`{text}` is not a 64-bit hash in hexadecimal"))
}

/// An `f64` that survives JSON: a finite value as a number, the others as `"NaN"`, `"inf"`,
/// `"-inf"`.
#[derive(Debug, Clone, Copy)]
struct Real(f64);

impl Serialize for Real {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            v if v.is_finite() => serializer.serialize_f64(v),
            v if v.is_nan() => serializer.serialize_str("NaN"),
            v if v > 0.0 => serializer.serialize_str("inf"),
            _ => serializer.serialize_str("-inf"),
        }
    }
}

impl<'de> Deserialize<'de> for Real {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Real, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Real;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, \"NaN\", \"inf\" or \"-inf\"")
            }

            fn visit_f64<E>(self, v: f64) -> Result<Real, E> {
                Ok(Real(v))
            }

            fn visit_u64<E>(self, v: u64) -> Result<Real, E> {
                Ok(Real(v as f64))
            }

            fn visit_i64<E>(self, v: i64) -> Result<Real, E> {
                Ok(Real(v as f64))
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Real, E> {
                match v {
                    "NaN" => Ok(Real(f64::NAN)),
                    "inf" => Ok(Real(f64::INFINITY)),
                    "-inf" => Ok(Real(f64::NEG_INFINITY)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(name: &str, value: MetricValue, expected: Option<ExpectedValue>, tolerance: Option<f64>) -> MetricResult {
        MetricResult {
            name: name.into(),
            unit: "m".into(),
            value,
            expected,
            formula: expected.map(|_| "drop_height * 0.64".into()),
            tolerance,
        }
    }

    fn sample() -> ShardFile {
        let awkward = [0.1 + 0.2, 1e-300, 5e-324, -0.0, 0.6368000000000001, f64::MAX, 1.0 / 3.0];
        let metrics: Vec<MetricResult> = awkward
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                metric(
                    &format!("m{i}"),
                    MetricValue::Number(v),
                    Some(ExpectedValue::Number(v)),
                    Some(v),
                )
            })
            .chain([
                metric("nan", MetricValue::Number(f64::NAN), None, None),
                metric("inf", MetricValue::Number(f64::INFINITY), None, None),
                metric("minus_inf", MetricValue::Number(f64::NEG_INFINITY), None, None),
                metric("flag", MetricValue::Bool(true), Some(ExpectedValue::Bool(false)), None),
                metric("none", MetricValue::Missing("no bounce".into()), None, None),
            ])
            .collect();
        let run = |engine: &str, failure: Option<&str>| SweepRun {
            engine: engine.into(),
            steps: 1234,
            simulated_time: 1.2340000000000002,
            wall_time: Duration::new(3, 141_592_653),
            metrics: metrics.clone(),
            warnings: vec!["ignored: rolling friction".into()],
            failure: failure.map(Into::into),
        };
        let axes = vec![
            Axis {
                name: "a".into(),
                values: vec!["1".into(), "2".into(), "3".into()],
            },
            Axis {
                name: "b".into(),
                values: vec!["x".into(), "y".into()],
            },
        ];
        let shard = Shard::new(2, 4).expect("2/4");
        let all = grid(&axes);
        let points = shard
            .points(all.len())
            .into_iter()
            .map(|i| {
                let point = SweepPoint {
                    values: all[i].clone(),
                    runs: vec![run("rapier", None), run("pgs", Some("diverged at step 7"))],
                };
                (i, point)
            })
            .collect();
        ShardFile {
            tribo: env!("CARGO_PKG_VERSION").into(),
            shard,
            grid: Grid {
                project: "samples/ball/ball.yaml".into(),
                name: "ball".into(),
                set: [("e".to_string(), "0.5".to_string())].into(),
                materials: vec!["extra.yaml".into()],
                time: Some(0.1 + 0.2),
                axes,
                engines: vec!["rapier".into(), "pgs".into()],
                fingerprint: Fingerprint::from_files(vec![FileHash {
                    path: "samples/ball/ball.yaml".into(),
                    hash: u64::MAX,
                }]),
            },
            points,
        }
    }

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tribo-shard-file-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).ok();
        dir
    }

    /// Equal, NaN included (`MetricValue`'s `PartialEq` says NaN ≠ NaN).
    fn same(a: &ShardFile, b: &ShardFile) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn a_shard_reads_back_bit_for_bit() {
        let dir = dir("round-trip");
        let written = sample();
        let path = write(&dir, &written).ok();
        assert_eq!(path, Some(dir.join(FILE_NAME)));
        let read_back = read(&dir).map_err(|f| f.message);
        assert!(read_back.as_ref().is_ok_and(|r| same(r, &written)), "{read_back:?}");
        if let Ok(r) = &read_back {
            let bits = |s: &ShardFile| -> Vec<u64> {
                s.points[0].1.runs[0]
                    .metrics
                    .iter()
                    .filter_map(|m| m.value.as_number())
                    .map(f64::to_bits)
                    .collect()
            };
            assert_eq!(bits(r), bits(&written));
        }
        assert_eq!(
            std::fs::read_dir(&dir).map(|d| d.count()).ok(),
            Some(1),
            "no temporary left"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn other_files_are_refused_naming_the_file() {
        let dir = dir("refused");
        let message = |path: &Path| read(path).err().map(|f| (f.exit_code, f.message));
        let shown = dir.display();
        assert_eq!(
            message(&dir),
            Some((
                2,
                format!("{shown}: not a sweep shard: it has no shard.json (`tribo sweep ... --shard K/N --out DIR` writes one)")
            ))
        );
        let file = dir.join(FILE_NAME);
        let good = serde_json::to_string_pretty(&Stored::from(&sample())).unwrap_or_default();
        let mut short = sample();
        short.points.pop();
        let short = serde_json::to_string(&Stored::from(&short)).unwrap_or_default();
        let cases = [
            (
                "{\"points\": [".to_string(),
                format!("{shown}/shard.json:1:12: not JSON: EOF while parsing"),
            ),
            (
                "[1, 2]".to_string(),
                format!("{shown}/shard.json: not a tribo sweep shard (it has no `\"format\": \"tribo sweep shard\"`)"),
            ),
            (
                "{\"project\": \"ball\"}".to_string(),
                format!("{shown}/shard.json: not a tribo sweep shard (it has no `\"format\": \"tribo sweep shard\"`)"),
            ),
            (
                "{\"format\": \"tribo sweep shard\", \"version\": 9}".to_string(),
                format!("{shown}/shard.json: a sweep shard of version 9; this tribo"),
            ),
            (
                "{\"format\": \"tribo sweep shard\", \"version\": 1}".to_string(),
                format!("{shown}/shard.json:1:45: missing field `tribo`"),
            ),
            (
                good.replacen("\"index\": 2", "\"index\": 5", 1),
                format!("{shown}/shard.json: `shard` is 5/4, not K/N with 1 ≤ K ≤ N"),
            ),
            (
                short,
                format!("{shown}/shard.json: shard 2/4 of a 6-point grid holds the points [1], not its points [1, 5]"),
            ),
        ];
        for (text, expected) in cases {
            std::fs::write(&file, &text).ok();
            let got = message(&dir).map(|(_, m)| m).unwrap_or_default();
            assert!(
                got.starts_with(&expected),
                "{text}\n  got: {got}\n  expected: {expected}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
