#!/usr/bin/env python3
"""The floor under the `cslc ÷ pgs` goals of issue #14: what the `cslc` step would cost if every
pad sphere out of contact cost nothing, sampled in time.

    python3 bench/cslc_floor.py                    # the walker and gentle-grasp, 3 rounds
    python3 bench/cslc_floor.py --scenes walker --rounds 5

Why: a pad step whose set-up, solve and outputs follow the patch would make the spheres out of
contact (nearly) free; what it leaves is the host, the coupling and the touching spheres' work.
BENCHMARKS.md, "cslc: the floor under each goal", quotes this script's report.

What it does, per scene:
1. `cslc ÷ pgs`: `tribo-bench time` on both engines in interleaved rounds (the engines' order
   alternating), each measurement the fastest run of one process (`--repeat`), the median of the
   per-round ratios, per phase.
2. Where `cslc`'s step goes: `perf record -F 9999` of `tribo-bench time SCENE --engine cslc
   --repeat N` (N large enough that loading the project is a few per cent of the samples), each
   sampled function put in one part by its name (PARTS below); the loading and the kernel's
   zeroing of fresh pages are left out, the rest is the step.
3. The touching spheres: `tribo-bench patches SCENE` counts, from the contact records after every
   step, the share of the pads' sphere-steps in contact. A touching sphere costs each pass at
   least what a free one costs (its visit adds the local step, its set-up the stick anchor, its
   assembly the forces), so the touching spheres' share of "the rest of the pads" is at least that
   share.
4. The floor: host + coupling + touching local steps + share × rest of the pads, as a share of
   the step and times `cslc ÷ pgs`. The allocator's share is counted as removable.

Needs `perf` (Debian: apt-get install linux-perf) with access to the CPU clock event. Writes the
report to bench/out/ (git-ignored) and prints it.
"""

import argparse
import datetime
import json
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import anchors

# Scene -> (project, phases, --repeat for the ratio runs, --repeat for the profile).
SCENES = {
    "walker": ("slippy-walker/walker.yaml", "1-3800", 2, 6),
    "gentle-grasp": ("gentle-grasp/gentle-grasp.yaml", "1-300,301-2000", 5, 60),
}

# Parts of the step, by the sampled function's name: the first rule that matches decides.
LOADING = ("yaml", "serde", "tribo_scene", "tribo_model", "dec2flt", "from_str")
PARTS = [
    # The condensed solve (`condensed_or_red_black`, which inlines it) visits the touching spheres
    # alone; its field formation (`field_of`) is counted with the rest of the pads.
    ("touching spheres' local steps", ("local_step_of", "condensed_or_red_black")),
    ("coupling and engine bookkeeping", ("tribo_cslc_engine",)),
    ("rest of the pads", ("tribo_cslc",)),
    (
        "host pgs and the controllers",
        ("tribo_pgs", "tribo_multibody", "tribo_lcp", "tribo_geometry", "tribo_engine", "tribo_runner", "tribo_material", "parry3d", "tribo::"),
    ),
    ("allocator, memmove, memset", ("mi_", "malloc", "memmove", "memcpy", "memset")),
]
OTHER = "other"


def part_of(kind, symbol):
    """The part of the step a sampled function belongs to, or None for loading and the kernel."""
    if kind == "k" or any(word in symbol for word in LOADING) or symbol.startswith("mi_page_fresh") or "mi_arenas" in symbol:
        return None
    for name, words in PARTS:
        if any(word in symbol for word in words):
            return name
    return OTHER


def profile(driver, project, repeat):
    """{part: share of the step's samples} of `cslc` stepping `project`."""
    with tempfile.TemporaryDirectory() as tmp:
        data = pathlib.Path(tmp) / "perf.data"
        subprocess.run(
            ["perf", "record", "-q", "-F", "9999", "-o", str(data), "--", str(driver), "time", str(project), "--engine", "cslc", "--repeat", str(repeat)],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        report = subprocess.run(
            ["perf", "report", "-i", str(data), "--no-children", "--sort", "symbol", "--stdio"],
            check=True, capture_output=True, text=True,
        ).stdout
    parts = {}
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[(.)\]\s+(.+?)\s*$", line)
        if not m:
            continue
        share, kind, symbol = float(m.group(1)), m.group(2), m.group(3)
        part = part_of(kind, symbol)
        if part is not None:
            parts[part] = parts.get(part, 0.0) + share
    step = sum(parts.values())
    if step <= 0:
        sys.exit(f"cslc_floor.py: perf sampled nothing of the step of {project}")
    return {part: share / step for part, share in parts.items()}


def per_step(driver, project, engine, phases, repeat):
    """{phase: fastest run's CPU seconds per step} of one process."""
    out = subprocess.run(
        [str(driver), "time", str(project), "--engine", engine, "--phases", phases, "--repeat", str(repeat)],
        check=True, capture_output=True, text=True,
    ).stdout
    return {p["steps"]: min(p["cpu_s_runs"]) / p["count"] for p in json.loads(out)["phases"]}


def fastest_of(driver, project, engine, phases, repeat, processes):
    """{phase: the fastest of `processes` processes' [`per_step`]}."""
    runs = [per_step(driver, project, engine, phases, repeat) for _ in range(processes)]
    return {phase: min(run[phase] for run in runs) for phase in runs[0]}


def ratios(driver, project, phases, repeat, rounds, processes=1):
    """{phase: (median cslc ÷ pgs, median pgs s/step, median cslc s/step)} over interleaved rounds,
    each measurement the fastest of `processes` processes."""
    per_round = []
    for r in range(rounds):
        order = ["pgs", "cslc"] if r % 2 == 0 else ["cslc", "pgs"]
        times = {engine: fastest_of(driver, project, engine, phases, repeat, processes) for engine in order}
        per_round.append(times)
        print(f"  round {r + 1}: " + ", ".join(f"{ph} {times['cslc'][ph] / times['pgs'][ph]:.3f}" for ph in times["pgs"]), file=sys.stderr)
    out = {}
    for phase in per_round[0]["pgs"]:
        out[phase] = (
            statistics.median(t["cslc"][phase] / t["pgs"][phase] for t in per_round),
            statistics.median(t["pgs"][phase] for t in per_round),
            statistics.median(t["cslc"][phase] for t in per_round),
        )
    return out


def touching_share(driver, project):
    out = json.loads(subprocess.run([str(driver), "patches", str(project), "--engine", "cslc"], check=True, capture_output=True, text=True).stdout)
    if out["touching_share"] is None:
        sys.exit(f"cslc_floor.py: a pad of {project} never touched; its size is unknown")
    return out["touching_share"]


def main():
    parser = argparse.ArgumentParser(description="the floor under the cslc ÷ pgs goals: the cslc step with its spheres out of contact free")
    parser.add_argument("--scenes", default=",".join(SCENES), help=f"comma-separated, of {', '.join(SCENES)}")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the ratio runs (default 3)")
    parser.add_argument("--out", type=pathlib.Path, default=anchors.HERE / "out", help="directory for the report")
    args = parser.parse_args()
    if shutil.which("perf") is None:
        sys.exit("cslc_floor.py: perf is not installed (Debian: apt-get install linux-perf)")
    scenes = [s for s in args.scenes.split(",") if s]
    unknown = [s for s in scenes if s not in SCENES]
    if unknown:
        sys.exit(f"cslc_floor.py: unknown scene(s) {', '.join(unknown)}; known: {', '.join(SCENES)}")
    if args.rounds < 1:
        sys.exit("cslc_floor.py: --rounds wants at least 1")

    driver = anchors.build_driver()
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = anchors.loadavg()
    lines = []
    for scene in scenes:
        project_file, phases, ratio_repeat, profile_repeat = SCENES[scene]
        project = anchors.SAMPLES / project_file
        print(f"{scene}: cslc ÷ pgs", file=sys.stderr)
        measured = ratios(driver, project, phases, ratio_repeat, args.rounds)
        print(f"{scene}: profile", file=sys.stderr)
        parts = profile(driver, project, profile_repeat)
        share = touching_share(driver, project)
        touching = parts.get(PARTS[0][0], 0.0)
        coupling = parts.get(PARTS[1][0], 0.0)
        pads = parts.get(PARTS[2][0], 0.0)
        host = parts.get(PARTS[3][0], 0.0)
        floor = host + coupling + touching + share * pads
        lines.append(f"### {scene} (`samples/{project_file}`)")
        lines.append("")
        lines.append("| part | share of the `cslc` step |")
        lines.append("|---|---|")
        for name, _ in PARTS + [(OTHER, ())]:
            lines.append(f"| {name} | {100 * parts.get(name, 0.0):.1f} % |")
        lines.append(f"| touching share of the pads' sphere-steps (`tribo-bench patches`) | {100 * share:.1f} % |")
        lines.append(f"| **left with the spheres out of contact free** | **{100 * floor:.1f} %** |")
        lines.append("")
        lines.append("| phase | pgs µs/step | cslc µs/step | cslc ÷ pgs | at the floor |")
        lines.append("|---|---|---|---|---|")
        for phase, (ratio, pgs, cslc) in measured.items():
            lines.append(f"| {phase} | {1e6 * pgs:.2f} | {1e6 * cslc:.2f} | {ratio:.2f} | **{floor * ratio:.2f}** |")
        lines.append("")
    anchors.write_report(args.out, "cslc-floor", "cslc: the floor under the goals", started, load_before, args.rounds, 1, lines)


if __name__ == "__main__":
    main()
