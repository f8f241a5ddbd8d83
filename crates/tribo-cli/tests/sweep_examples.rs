#![allow(clippy::panic)]
//! The scheduler examples of docs/sweeps.md run as their schedulers would run them, with the real
//! `tribo` on `PATH`: the Slurm array job's script once per array task (with the `SLURM_*`
//! variables Slurm sets) and then the merge job's script; the Kubernetes indexed Job's container
//! command once per completion index (with `JOB_COMPLETION_INDEX` and the container's `env`, the
//! shared volume being a temporary directory) and then the merge Job's. Both must leave the whole
//! sweep, and the same one.
#![cfg(unix)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::temp_dir;
use serde::Deserialize;
use serde_json::Value;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn examples() -> PathBuf {
    workspace().join("docs/examples")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A directory to run a job in, as the job's working directory would be: `samples/` of the
/// repository and nothing else.
fn job_dir(name: &str) -> PathBuf {
    let dir = temp_dir("examples", name);
    std::os::unix::fs::symlink(workspace().join("samples"), dir.join("samples")).expect("link samples/");
    dir
}

/// `PATH` with the `tribo` under test first.
fn path_with_tribo() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_tribo"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

/// Run `program args` in `dir` with `env`; its exit status must be 0.
fn run(program: &str, args: &[&str], dir: &Path, env: &[(String, String)]) {
    let o = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path_with_tribo())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("run the job's command");
    assert!(
        o.status.success(),
        "{program} {args:?} with {env:?}: {}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The value of `#SBATCH --NAME=VALUE` in a job script.
fn sbatch(script: &str, name: &str) -> String {
    let prefix = format!("#SBATCH --{name}=");
    script
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line"))
        .trim()
        .to_string()
}

/// The merged sweep.json in `dir`, its timings left out.
fn merged(dir: &Path) -> Value {
    let mut v: Value = serde_json::from_str(&read(&dir.join("sweep.json"))).expect("sweep.json is JSON");
    for point in v["points"].as_array_mut().into_iter().flatten() {
        for run in point["engines"]
            .as_object_mut()
            .into_iter()
            .flat_map(|e| e.values_mut())
        {
            run.as_object_mut().map(|r| r.remove("steps_per_s"));
        }
    }
    v
}

fn run_slurm_example() -> Value {
    let dir = job_dir("slurm");
    let scripts = examples().join("slurm");
    let shard_script = scripts.join("shard.sbatch");
    let text = read(&shard_script);
    // `--array=1-N`: Slurm numbers the tasks 1..N and sets the task count N.
    let array = sbatch(&text, "array");
    let n: usize = array
        .strip_prefix("1-")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("--array={array} is not 1-N"));
    let cpus = sbatch(&text, "cpus-per-task");
    let submit = read(&scripts.join("submit.sh"));
    assert!(submit.contains("--dependency=afterany:"), "{submit}");
    assert!(
        submit.contains("mkdir -p shards"),
        "the array's --output=shards/%a.log needs shards/"
    );
    std::fs::create_dir_all(dir.join("shards")).ok();
    for k in 1..=n {
        let env = [
            ("SLURM_ARRAY_TASK_ID".to_string(), k.to_string()),
            ("SLURM_ARRAY_TASK_COUNT".to_string(), n.to_string()),
            ("SLURM_CPUS_PER_TASK".to_string(), cpus.clone()),
        ];
        run("bash", &[&shard_script.display().to_string()], &dir, &env);
        assert!(dir.join(format!("shards/{k}/shard.json")).is_file(), "task {k}");
    }
    run(
        "bash",
        &[&scripts.join("merge.sbatch").display().to_string()],
        &dir,
        &[],
    );
    let v = merged(&dir.join("sweep"));
    std::fs::remove_dir_all(&dir).ok();
    v
}

#[derive(Deserialize)]
struct Job {
    spec: JobSpec,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JobSpec {
    completion_mode: Option<String>,
    completions: Option<usize>,
    template: PodTemplate,
}

#[derive(Deserialize)]
struct PodTemplate {
    spec: PodSpec,
}

#[derive(Deserialize)]
struct PodSpec {
    containers: Vec<Container>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Container {
    command: Vec<String>,
    args: Vec<String>,
    #[serde(default)]
    env: Vec<EnvVar>,
    #[serde(default)]
    volume_mounts: Vec<VolumeMount>,
}

#[derive(Deserialize)]
struct EnvVar {
    name: String,
    value: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VolumeMount {
    mount_path: String,
}

fn job(file: &str) -> Job {
    let path = examples().join("kubernetes").join(file);
    let node = tribo_yaml::parse_file(&path).unwrap_or_else(|e| panic!("{e}"));
    // Only the keys the test needs are read; the others (apiVersion, metadata, resources, …) are
    // Kubernetes' business.
    let ignored = std::cell::RefCell::new(Vec::new());
    let unknown = tribo_yaml::UnknownKeys::Warn(&ignored);
    tribo_yaml::from_node_with(&node, "a Kubernetes Job", &tribo_yaml::Plain, unknown).unwrap_or_else(|e| panic!("{e}"))
}

/// The container's command with its volume at `volume` instead of its mount path.
fn container_command(container: &Container, volume: &Path) -> (String, Vec<String>) {
    let mount = container
        .volume_mounts
        .first()
        .map(|m| m.mount_path.as_str())
        .expect("a volume");
    let args: Vec<String> = container
        .command
        .iter()
        .skip(1)
        .chain(&container.args)
        .map(|a| a.replace(mount, &volume.display().to_string()))
        .collect();
    (container.command[0].clone(), args)
}

fn run_kubernetes_example() -> Value {
    let dir = job_dir("kubernetes");
    let volume = dir.join("volume");
    std::fs::create_dir_all(&volume).ok();
    let sweep = job("sweep-job.yaml");
    assert_eq!(sweep.spec.completion_mode.as_deref(), Some("Indexed"));
    let n = sweep.spec.completions.expect("completions");
    let container = &sweep.spec.template.spec.containers[0];
    let env: Vec<(String, String)> = container
        .env
        .iter()
        .map(|e| (e.name.clone(), e.value.clone()))
        .collect();
    let vars: BTreeMap<&str, &str> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        vars.get("SHARDS"),
        Some(&n.to_string().as_str()),
        "SHARDS must be `completions`"
    );
    let (program, args) = container_command(container, &volume);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for index in 0..n {
        let mut env = env.clone();
        env.push(("JOB_COMPLETION_INDEX".into(), index.to_string()));
        run(&program, &args, &dir, &env);
        assert!(
            volume.join(format!("shards/{}/shard.json", index + 1)).is_file(),
            "index {index}"
        );
    }
    let merge = job("merge-job.yaml");
    let (program, args) = container_command(&merge.spec.template.spec.containers[0], &volume);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&program, &args, &dir, &[]);
    let v = merged(&volume.join("sweep"));
    std::fs::remove_dir_all(&dir).ok();
    v
}

#[test]
fn the_slurm_and_kubernetes_examples_leave_the_same_whole_sweep() {
    let slurm = run_slurm_example();
    let points = slurm["points"].as_array().map_or(0, Vec::len);
    assert_eq!(points, 8, "{slurm}");
    for point in slurm["points"].as_array().into_iter().flatten() {
        assert_eq!(point["engines"].as_object().map(|e| e.len()), Some(2), "{point}");
    }
    let kubernetes = run_kubernetes_example();
    assert_eq!(slurm, kubernetes);
}
