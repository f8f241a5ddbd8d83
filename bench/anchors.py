#!/usr/bin/env python3
"""Benchmarks that compare like with like (issue #14): tribo's engines, raw rapier and MuJoCo on
the same scenes, in interleaved rounds, CPU time of the stepping loop only.

    python3 bench/anchors.py                 # 3 rounds (about 18 minutes on 2 cores)
    python3 bench/anchors.py --rounds 5
    python3 bench/anchors.py --quick         # 1 round, shorter runs: a smoke test of the set-up
    python3 bench/anchors.py --only sr1-walk,pile-500 --rounds 5   # some scenes only

What it does:
1. creates bench/.venv (git-ignored) and installs MuJoCo from PyPI into it, once;
2. builds the timing driver, `cargo build --release -p tribo-bench` (CARGO_TARGET_DIR honoured);
3. describes every scene with `tribo-bench describe` (samples/bench/*.yaml) and builds the same
   scene in MuJoCo from that description (bench/mujoco_scenes.py);
4. runs every scene's measurements once per round, in fresh processes, the order of the scenes
   and of each scene's engines turned every round, and a scene's processes alternating between
   its engines (a slow stretch of the machine falls on them alike); tribo's engines and raw rapier through
   `tribo-bench time`, MuJoCo through bench/mujoco_time.py; RAYON_NUM_THREADS=1 and
   OPENBLAS_NUM_THREADS=1 (one thread everywhere, as MuJoCo steps); a short scene's measurement
   is the median of SHORT_SCENE_RUNS runs in that process (the walks': WALK_RUNS, the larger
   piles': PILE_RUNS), each from a fresh build; every measurement runs in SHORT_SCENE_PROCESSES
   or LONG_SCENE_PROCESSES fresh processes and keeps, phase by phase, the fastest process's time
   (some processes run the same binary half as fast again: SHORT_SCENE_PROCESSES below);
5. prints one markdown report: machine, date, load average before and after, the ratio table
   (medians of per-round ratios) and the N-box scaling tables, with a row for the 50-box pile
   stepped as twenty copies in turn (PILE_COPIES); writes it with the raw per-round numbers to
   bench/out/ (git-ignored).

Scenes and step ranges: samples/bench/README.md.
"""

import argparse
import datetime
import difflib
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

import tables

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
VENV = HERE / ".venv"
SAMPLES = ROOT / "samples"
PILE_SIZES = [50, 100, 200, 500, 1000]
PILE_ENGINES = ["mujoco", "raw-rapier", "pgs", "rapier"]

# The smallest pile stepped as this many independent copies, one after the other at every step
# (`tribo-bench time --copies`, `mujoco_time.py ... COPIES`): as many boxes as the largest pile,
# but each copy's step reads only its own data, which stays in the per-core cache from one stage
# to the next. Its ratio to one copy is the scaling an engine reaches on this machine when its
# step never leaves an island's data (BENCHMARKS.md, "twenty piles of 50 stepped in turn"): the
# floor against which the largest pile's ratio is read.
PILE_COPIES = 20
COPIES_SCENE = f"pile-{PILE_SIZES[0]}x{PILE_COPIES}"

# The walker's sole pads as samples/slippy-walker/walker.yaml declares them, and the soles it had
# before (22 × 12 cells at 1 cm): `walker-cells` times `cslc` on those beside `pgs`, so that the
# report keeps the cost of the finer soles in view (BENCHMARKS.md, "cslc: the walker's soles of
# nodes").
WALKER_SOLES = "resolution: [12, 7], spacing: 0.02, layout: nodes"
FORMER_WALKER_SOLES = "resolution: [22, 12], spacing: 0.01"
WALKER_CELLS_PROJECT = SAMPLES / "slippy-walker" / ".anchors-walker-cells.yaml"


def walker_with_soles(soles):
    """The walker project's text with both sole pads declared as `soles`."""
    project = (SAMPLES / "slippy-walker" / "walker.yaml").read_text()
    if project.count(WALKER_SOLES) != 2:
        sys.exit("bench: samples/slippy-walker/walker.yaml no longer declares its two sole pads as expected")
    return project.replace(WALKER_SOLES, soles)


# Runs per measurement of the short scenes (tens of milliseconds of CPU each): every run from a
# freshly built engine in the same process, each phase the median of the runs
# (`tribo-bench time --repeat`, `mujoco_time.py ... REPEAT`), so that one measurement carries less
# of the machine's noise. Longer scenes run once per measurement.
SHORT_SCENE_RUNS = 5

# Runs per measurement of the two walks (a fraction of a second to two seconds of CPU each): the
# walk ratios moved between 0.77 and 0.96 from one report to the next when each ran once.
WALK_RUNS = 3

# Runs per measurement of the 200-, 500- and 1000-box piles (0.2 to 7 s of CPU each). Run once,
# one engine's time for the same 500-box pile spread from 2.1 to 3.9 ms per step across the five
# rounds of one report, and the per-round ratio tribo rapier ÷ raw rapier on its landing from
# 0.75 to 1.65 (BENCHMARKS.md, "Release profile: fat LTO and one codegen unit").
PILE_RUNS = 3

# Fresh processes per measurement; each phase keeps the fastest process's median. On the 2-core
# machine of BENCHMARKS.md the same binary runs a whole process about 1.5 times slower in about
# one process of four to six (SR1 standing: 22.3 or 33 ms for 1000 steps; the runs within one
# process agree, so more runs do not help; address-space randomisation off and pinning to either
# core alike), and MuJoCo's processes alike. A measurement of one process moved a report's ratio
# by a third ("Like with like, fourteenth round"). Every engine gets the same number of processes.
SHORT_SCENE_PROCESSES = 3
LONG_SCENE_PROCESSES = 2

# A process counts as slow in the report's summary line when a phase takes more than this many
# times its measurement's fastest process.
SLOW_PROCESS = 1.15


def scenes(quick):
    """(name, project, phases, engines, runs, processes) of every measurement; phases are step
    ranges from 1, runs the repetitions within one process, processes the fresh processes of one
    measurement."""
    pile_phases = "1-100,101-300" if quick else "1-200,201-1000"
    walk = "1-1500" if quick else "1-6700"
    walker = "1-1000" if quick else "1-3800"
    short = 1 if quick else SHORT_SCENE_RUNS
    walks = 1 if quick else WALK_RUNS
    piles = 1 if quick else PILE_RUNS
    few = 1 if quick else SHORT_SCENE_PROCESSES
    many = 1 if quick else LONG_SCENE_PROCESSES
    out = [
        ("sr1-standing", SAMPLES / "bench/sr1-standing.yaml", "1-200,201-1000", ["mujoco", "raw-rapier", "pgs", "rapier"], short, few),
        ("sr1-walk", SAMPLES / "bench/sr1-walk.yaml", walk, ["mujoco", "raw-rapier", "pgs", "rapier"], walks, many),
        ("gentle-grasp", SAMPLES / "gentle-grasp/gentle-grasp.yaml", "1-300,301-2000", ["mujoco", "pgs", "cslc"], short, few),
        ("walker", SAMPLES / "slippy-walker/walker.yaml", walker, ["mujoco", "pgs", "rapier", "cslc"], walks, many),
        ("walker-cells", WALKER_CELLS_PROJECT, walker, ["pgs", "cslc"], walks, many),
    ]
    for n in PILE_SIZES:
        out.append((f"pile-{n}", SAMPLES / f"bench/pile-{n}.yaml", pile_phases, PILE_ENGINES, short if n <= 100 else piles, few if n <= 100 else many))
    out.append((COPIES_SCENE, SAMPLES / f"bench/pile-{PILE_SIZES[0]}.yaml", pile_phases, PILE_ENGINES, piles, many))
    return out


def anchor_rows(quick):
    pile = ("1-100", "101-300") if quick else ("1-200", "201-1000")
    return [
        ("SR1 standing, landing", "sr1-standing", "1-200", ["mujoco", "raw-rapier", "pgs", "rapier"]),
        ("SR1 standing, steady", "sr1-standing", "201-1000", ["mujoco", "raw-rapier", "pgs", "rapier"]),
        ("SR1 walk (position-mode PD)", "sr1-walk", "1-1500" if quick else "1-6700", ["mujoco", "raw-rapier", "pgs", "rapier"]),
        ("500-box pile, landing", "pile-500", pile[0], PILE_ENGINES),
        ("500-box pile, steady", "pile-500", pile[1], PILE_ENGINES),
        ("gentle-grasp, closing", "gentle-grasp", "1-300", ["mujoco", "pgs", "cslc"]),
        ("gentle-grasp, held and lifted", "gentle-grasp", "301-2000", ["mujoco", "pgs", "cslc"]),
        ("walker, whole run", "walker", "1-1000" if quick else "1-3800", ["mujoco", "pgs", "rapier", "cslc"]),
        ("walker on its former 22 × 12 soles of cells", "walker-cells", "1-1000" if quick else "1-3800", ["pgs", "cslc"]),
    ]


def venv_python():
    """bench/.venv's interpreter, with mujoco installed (created on first use)."""
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV.relative_to(ROOT)}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run([str(python), "-c", "import mujoco"], capture_output=True)
    if probe.returncode != 0:
        print("installing mujoco from PyPI into bench/.venv", file=sys.stderr)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "mujoco"], check=True)
    return python


def build_driver():
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "tribo-bench"], cwd=ROOT, check=True)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    return target / "release" / "tribo-bench"


def machine():
    model = "unknown"
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return {"cpu": model, "nproc": os.cpu_count(), "kernel": platform.release()}


def loadavg():
    return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


def write_report(out, stem, title, started, load_before, rounds, processes, lines):
    """Writes a `cslc ÷ pgs` report under `out` as `STEM-YYYYmmdd-HHMM.md` and prints it: `title`
    with the start time, the machine, the code and the load average before and now, how the ratios
    were taken (`rounds` interleaved rounds, each measurement the fastest of `processes`
    processes), then `lines`."""
    method = (
        f"`cslc ÷ pgs`: {rounds} interleaved rounds, each measurement the fastest run of "
        + ("one process" if processes == 1 else f"{processes} processes")
        + "; medians of the per-round ratios."
    )
    machine_ = machine()
    header = [
        f"# {title} ({started:%Y-%m-%d %H:%M} UTC)",
        "",
        f"Machine: {machine_['cpu']}, {machine_['nproc']} CPUs, kernel {machine_['kernel']}; code {git_commit()}; "
        f"load average {load_before} before, {loadavg()} after.",
        method,
        "",
    ]
    text = "\n".join(header + lines)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{stem}-{started:%Y%m%d-%H%M}.md"
    path.write_text(text + "\n")
    print(text)
    print(f"(written to {path})", file=sys.stderr)


def git_commit():
    r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True)
    return r.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def run_process(driver, python, descriptions, scene, project, phases, engine, runs, env):
    """The output of one fresh process timing `engine` on `scene` (the median of `runs` runs per
    phase), or None if it failed."""
    copies = PILE_COPIES if scene == COPIES_SCENE else 1
    if engine == "mujoco":
        cmd = [str(python), str(HERE / "mujoco_time.py"), str(descriptions[scene]), phases, str(runs), str(copies)]
    else:
        cmd = [str(driver), "time", str(project), "--engine", engine, "--phases", phases, "--repeat", str(runs), "--copies", str(copies)]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(f"{scene} on {engine} failed: {r.stderr.strip()}", file=sys.stderr)
        return None
    return json.loads(r.stdout)


def measure_scene(driver, python, descriptions, scene, project, phases, engines, runs, processes, env):
    """{engine: {phase: CPU seconds per step}} of one scene's measurements: `processes` fresh
    processes per engine, each the median of `runs` runs, and each phase the fastest process's
    (see SHORT_SCENE_PROCESSES). The processes alternate between the engines — the first process
    of every engine, then the second of every engine, … — so that a slow stretch of the machine,
    which lasts a few seconds and slows every process in it alike, falls on the scene's engines
    alike instead of on all the processes of one of them."""
    outputs = {engine: [] for engine in engines}
    failed = set()
    for _ in range(processes):
        for engine in engines:
            if engine in failed:
                continue
            out = run_process(driver, python, descriptions, scene, project, phases, engine, runs, env)
            if out is None:
                failed.add(engine)
            else:
                outputs[engine].append(out)
    results = {}
    for engine, runs_out in outputs.items():
        if engine in failed or not runs_out:
            results[engine] = {}
            continue
        per_process = [{p["steps"]: p["per_step_s"] for p in out["phases"]} for out in runs_out]
        fastest = {phase: min(p[phase] for p in per_process) for phase in per_process[0]}
        results[engine] = fastest | {"_run": runs_out[0], "_processes": per_process}
    return results


def slow_processes(results):
    """(slow, all): processes of a measurement with any phase more than SLOW_PROCESS times its
    measurement's fastest, over every measurement of the report."""
    slow = total = 0
    for round_results in results:
        for m in round_results.values():
            for p in m.get("_processes", []):
                total += 1
                slow += any(p[phase] > SLOW_PROCESS * m[phase] for phase in p)
    return slow, total


def main():
    parser = argparse.ArgumentParser(description="tribo vs raw rapier vs MuJoCo on the benchmark scenes")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3; 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="1 round of shorter runs")
    parser.add_argument("--only", default="", help="comma-separated scene names to measure (e.g. sr1-walk,pile-500); the tables show the rest empty")
    parser.add_argument("--out", type=pathlib.Path, default=HERE / "out", help="directory for the report and raw numbers")
    args = parser.parse_args()
    rounds = 1 if args.quick and args.rounds == 3 else max(1, args.rounds)

    python = venv_python()
    mujoco_version = subprocess.run([str(python), "-c", "import mujoco; print(mujoco.__version__)"], capture_output=True, text=True).stdout.strip()
    driver = build_driver()
    # One thread everywhere. numpy's OpenBLAS (imported with mujoco) starts nproc − 1 worker
    # threads that spin while idle: their CPU time would count as MuJoCo's (process CPU time).
    env = dict(os.environ, RAYON_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    WALKER_CELLS_PROJECT.write_text(walker_with_soles(FORMER_WALKER_SOLES))
    try:
        run_rounds(args, rounds, python, mujoco_version, driver, env)
    finally:
        WALKER_CELLS_PROJECT.unlink(missing_ok=True)


def run_rounds(args, rounds, python, mujoco_version, driver, env):
    """Describes the chosen scenes, runs the rounds and writes the report (`main`)."""
    jobs = []
    with tempfile.TemporaryDirectory() as tmp:
        descriptions = {}
        chosen = scenes(args.quick)
        if args.only:
            wanted = args.only.split(",")
            unknown = [w for w in wanted if w not in [name for name, *_ in chosen]]
            if unknown:
                known = [name for name, *_ in chosen]
                hints = [f"{w} (closest: {', '.join(difflib.get_close_matches(w, known, n=1)) or 'none'})" for w in unknown]
                sys.exit(f"anchors.py: unknown scene(s) {'; '.join(hints)}; known: {', '.join(known)}")
            chosen = [c for c in chosen if c[0] in wanted]
        for name, project, phases, engines, runs, processes in chosen:
            if "mujoco" in engines:
                path = pathlib.Path(tmp) / f"{name}.json"
                path.write_text(subprocess.run([str(driver), "describe", str(project)], cwd=ROOT, check=True, capture_output=True, text=True).stdout)
                descriptions[name] = path
            jobs.append((name, project, phases, engines, runs, processes))

        started = datetime.datetime.now(datetime.timezone.utc)
        load_before = loadavg()
        loads = []
        results = []
        t0 = time.monotonic()
        for r in range(rounds):
            shift = (r * len(jobs)) // rounds
            order = jobs[shift:] + jobs[:shift]
            round_results = {}
            for name, project, phases, engines, runs, processes in order:
                # The engines' order turns with the rounds too: none always runs first.
                turn = r % len(engines)
                engines = engines[turn:] + engines[:turn]
                measured = measure_scene(driver, python, descriptions, name, project, phases, engines, runs, processes, env)
                for engine, result in measured.items():
                    round_results[(name, engine)] = result
            results.append(round_results)
            loads.append(loadavg())
            print(f"round {r + 1}/{rounds} done, load average {loads[-1]}", file=sys.stderr)
        elapsed = time.monotonic() - t0
        load_after = loadavg()

    m = machine()
    slow, total = slow_processes(results)
    report = "\n".join(
        [
            f"Date: {started:%Y-%m-%d %H:%M} UTC. Machine: {m['cpu']} (`/proc/cpuinfo`), `nproc` {m['nproc']}, Linux {m['kernel']}.",
            f"Load average (1, 5, 15 min) before: {load_before}; after each round: {'; '.join(loads)}; after: {load_after}.",
            f"Code: {git_commit()}; MuJoCo {mujoco_version} (PyPI); {rounds} interleaved round(s){' (--quick)' if args.quick else ''}, {elapsed:.0f} s.",
            "",
            f"Speeds are medians over rounds of steps per second (CPU time per step in brackets); ratios are medians of per-round ratios. The short scenes (SR1 standing, gentle-grasp, the 50- and 100-box piles) run {1 if args.quick else SHORT_SCENE_RUNS} times within each measurement, the two walks {1 if args.quick else WALK_RUNS} times and the 200-, 500- and 1000-box piles {1 if args.quick else PILE_RUNS} times, each from a fresh build, and each process reports the median of its runs; a measurement is the fastest of {1 if args.quick else SHORT_SCENE_PROCESSES} fresh processes for the short scenes and of {1 if args.quick else LONG_SCENE_PROCESSES} for the others, phase by phase, a scene's processes alternating between its engines (slow processes: {slow} of {total} ran a phase more than {SLOW_PROCESS} times slower than their measurement's fastest).",
            "",
            tables.anchor_table(results, anchor_rows(args.quick)),
            "",
            tables.setting_note(results, anchor_rows(args.quick)),
            "",
            "N-box piles, " + ("steps 101–300" if args.quick else "steady state, steps 201–1000") + f": CPU time per step and its ratio to the {PILE_SIZES[0]}-box pile's; the last row steps {PILE_COPIES} independent copies of the {PILE_SIZES[0]}-box pile one after the other (as many boxes as the largest pile, each copy's data staying in the cache through its step: the scaling this machine allows an engine whose step stays within an island).",
            "",
            tables.scaling_table(results, PILE_SIZES, PILE_ENGINES, "101-300" if args.quick else "201-1000", (COPIES_SCENE, PILE_COPIES)),
            "",
            "N-box piles, landing, " + ("steps 1–100" if args.quick else "steps 1–200") + ":",
            "",
            tables.scaling_table(results, PILE_SIZES, PILE_ENGINES, "1-100" if args.quick else "1-200", (COPIES_SCENE, PILE_COPIES)),
            "",
            "Where each engine ends each scene (last round): the highest free root link origin, and the contacts as each engine counts them (the worlds must agree).",
            "",
            tables.check_table(results, [name for name, *_ in chosen]),
        ]
    )
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"anchors-{started:%Y%m%d-%H%M}"
    stem.with_suffix(".md").write_text(report + "\n")
    raw = [{f"{k[0]} {k[1]}": v for k, v in r.items()} for r in results]
    stem.with_suffix(".json").write_text(json.dumps({"machine": m, "rounds": raw}, indent=1))
    print(f"\nwritten: {stem.with_suffix('.md')} and .json", file=sys.stderr)


if __name__ == "__main__":
    main()
