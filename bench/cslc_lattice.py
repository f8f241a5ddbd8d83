#!/usr/bin/env python3
"""What a pad's lattice costs: `cslc ÷ pgs` and the samples' physics against the pads' resolution.

    python3 bench/cslc_lattice.py                      # gentle-grasp and the walker, 3 rounds
    python3 bench/cslc_lattice.py --scenes walker --rounds 5

Why: issue #14 asks for `cslc` within 3 × `pgs` on gentle-grasp and on the walker, and a `cslc`
step's cost follows its pads' spheres (BENCHMARKS.md, "cslc: the floor under each goal"). The
samples fix one lattice each (gentle-grasp 10 × 10 spheres at 2 mm on 2 × 2 cm fingers, the
walker 12 × 7 nodes at 2 cm on 22 × 12 cm soles); this script measures the same scenes with the same
pads sampled coarser and finer, so that the cost of a resolution is read beside what the sample
checks at it. BENCHMARKS.md, "cslc: what a pad's lattice costs", quotes its report.

What it does, per scene and lattice:
1. Writes the sample with that lattice (the same pad extent, square cells; a pad of `cells` or of
   `nodes`, whose outermost spheres lie on the pad's edges) beside the sample's
   own files, as hidden temporary files removed afterwards (the sample's relative paths and
   `${SHARE}` resolve as for the sample itself).
2. `cslc ÷ pgs` by `bench/cslc_floor.py`'s interleaved rounds (each measurement the fastest of
   two processes, each process's fastest run; the median of the per-round ratios), per phase.
   `pgs` ignores pads, so its side is the sample's `pgs` step.
3. The same ratio in instructions (with `--instructions`, needs valgrind): callgrind counts what
   `tribo-bench time` executes inside its timed phases, on each engine, once. The count is the
   same on any machine and for any load, where the timed ratio moves with both.
4. The sample's checks on `cslc` at that lattice, by `tribo run --json`: gentle-grasp at the
   squeeze factors 1.05 (the object must be held) and 0.95 (it must slide out), the walker its
   forward progress (1.05 m planned, within 10 %), its foot slip and ZMP error (within 5 cm and
   12 cm) and whether it fell, and how far its WAIST's path runs from the path on a lattice four
   times as fine as the sample's (45 × 25 nodes at 5 mm; RMS over the run's rows): what the
   resolution changes in the walk (`tests/walker.rs` bounds the sample's at 2 mm).

Writes the report to bench/out/ (git-ignored) and prints it.
"""

import argparse
import csv
import datetime
import json
import math
import pathlib
import shutil
import subprocess
import sys
import tempfile

import anchors
import cslc_floor

# A pad's sphere count along each side, its spacing, m, and its layout (`cells`: the pad
# count × spacing wide; `nodes`: the outermost spheres on its edges, the pad (count − 1) × spacing
# wide; docs/design/lattice-model.md §2, "Where a flat pad ends"); the sample's own lattice first.
# Every lattice spans the sample's pad: 2 × 2 cm fingers, 22 × 12 cm soles.
GRASP_LATTICES = [(10, 0.002, "cells"), (8, 0.0025, "cells"), (5, 0.004, "cells"), (9, 0.0025, "nodes"), (7, 0.02 / 6, "nodes")]
WALKER_LATTICES = [(12, 7, 0.02, "nodes"), (22, 12, 0.01, "cells"), (33, 18, 0.01 * 2 / 3, "cells"), (11, 6, 0.02, "cells"), (23, 13, 0.01, "nodes")]
# The walker's reference lattice, four times as fine as the sample's.
WALKER_REFERENCE = (45, 25, 0.005, "nodes")


def pad_keys(counts, spacing, layout, spaced):
    """The pad's `resolution`, `spacing` and (for nodes) `layout` keys as the sample writes them."""
    keys = f"resolution: [{spaced.join(str(n) for n in counts)}], spacing: {spacing!r}"
    return keys if layout == "cells" else f"{keys}, layout: {layout}"


def grasp_files(lattice):
    """{file name: text} of gentle-grasp with flat pads of `n × n` spheres at `spacing`."""
    n, spacing, layout = lattice
    folder = anchors.SAMPLES / "gentle-grasp"
    body = (folder / "gripper-flat.body").read_text()
    pad = "resolution: [ 10, 10 ], spacing: 0.002"
    if body.count(pad) != 2:
        sys.exit("cslc_lattice.py: samples/gentle-grasp/gripper-flat.body no longer declares its two pads as expected")
    body_name = f".lattice-{n}-{layout}-gripper.body"
    project = (folder / "gentle-grasp.yaml").read_text()
    if project.count("gripper-${pad}.body") != 1:
        sys.exit("cslc_lattice.py: samples/gentle-grasp/gentle-grasp.yaml no longer names its gripper as expected")
    return {
        body_name: body.replace(pad, pad_keys((n, n), spacing, layout, ", ").replace("[", "[ ").replace("]", " ]")),
        f".lattice-{n}-{layout}.yaml": project.replace("gripper-${pad}.body", body_name),
    }


def walker_files(lattice):
    """{file name: text} of the walker with sole pads of `nx × ny` spheres at `spacing`."""
    nx, ny, spacing, layout = lattice
    return {f".lattice-{nx}x{ny}-{layout}.yaml": anchors.walker_with_soles(pad_keys((nx, ny), spacing, layout, ", "))}


def instructions_per_step(driver, project, engine, phases):
    """Instructions per timed step of `tribo-bench time PROJECT --engine ENGINE --phases PHASES`,
    counted by callgrind inside the timed phases alone (loading and building left out)."""
    steps = 0
    for part in phases.split(","):
        first, _, last = part.partition("-")
        steps += int(last or first) - int(first) + 1
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=*phases::time_phases*", f"--callgrind-out-file={out}",
             str(driver), "time", str(project), "--engine", engine, "--phases", phases],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
    if not totals:
        sys.exit(f"cslc_lattice.py: callgrind wrote no totals for {project} on {engine}")
    return int(totals[0].split()[1]) / steps


def tribo_cli():
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "tribo-cli"], cwd=anchors.ROOT, check=True)
    return anchors.build_driver().parent / "tribo"


def metrics(cli, project, settings):
    """{metric: value} of `tribo run PROJECT --engine cslc` with `settings` (NAME=VALUE)."""
    command = [str(cli), "run", str(project), "--engine", "cslc", "--json", "--quiet"]
    for setting in settings:
        command += ["--set", setting]
    out = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    return {name: m["value"] for name, m in out["metrics"].items()}


def grasp_checks(cli, project):
    held = metrics(cli, project, ["squeeze_factor=1.05"])
    dropped = metrics(cli, project, ["squeeze_factor=0.95"])
    ok = held["held"] is True and dropped["held"] is False and abs(held["lift"] - 0.05) <= 0.002
    return f"1.05: held {held['held']}, slip {1e3 * held['slip']:.3f} mm; 0.95: held {dropped['held']}", ok


def waist_path(cli, project):
    """The WAIST's recorded positions, row by row, of `tribo run PROJECT --engine cslc`."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([str(cli), "run", str(project), "--engine", "cslc", "--quiet", "--out", tmp], check=True, stdout=subprocess.DEVNULL)
        with open(pathlib.Path(tmp) / "trajectory.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    return [tuple(float(row[f"waist.{axis}"]) for axis in "xyz") for row in rows]


_reference_path = []


def reference_waist_path(cli):
    """The WAIST's path on the reference soles (`WALKER_REFERENCE`), run once."""
    if not _reference_path:
        written = []
        try:
            for name, text in walker_files(WALKER_REFERENCE).items():
                path = anchors.SAMPLES / "slippy-walker" / name
                path.write_text(text)
                written.append(path)
            _reference_path.append(waist_path(cli, written[0]))
        finally:
            for path in written:
                path.unlink(missing_ok=True)
    return _reference_path[0]


def walker_checks(cli, project):
    m = metrics(cli, project, [])
    ok = abs(m["forward_progress"] - 1.05) <= 0.105 and m["fell"] is False and m["foot_slip"] <= 0.05 and m["zmp_error"] <= 0.12
    path, reference = waist_path(cli, project), reference_waist_path(cli)
    squares = [sum((a - b) ** 2 for a, b in zip(p, r)) for p, r in zip(path, reference)]
    off = math.sqrt(sum(squares) / len(squares)) if squares and len(path) == len(reference) else math.nan
    nx, ny, spacing, layout = WALKER_REFERENCE
    text = (
        f"progress {m['forward_progress']:.3f} m, fell {m['fell']}, foot slip {1e3 * m['foot_slip']:.1f} mm, "
        f"ZMP error {1e3 * m['zmp_error']:.1f} mm, yaw {m['max_yaw']:.2f}°, "
        f"WAIST path {1e3 * off:.2f} mm RMS off {nx} × {ny} {layout}'s at {1e3 * spacing:.0f} mm"
    )
    return text, ok


# Scene -> (sample folder, lattices, files of a lattice, lattice label, phases, --repeat, checks).
SCENES = {
    "gentle-grasp": ("gentle-grasp", GRASP_LATTICES, grasp_files, lambda l: f"{l[0]} × {l[0]} {l[2]} at {1e3 * l[1]:.2f} mm", "1-300,301-2000", 5, grasp_checks),
    "walker": ("slippy-walker", WALKER_LATTICES, walker_files, lambda l: f"{l[0]} × {l[1]} {l[3]} at {1e3 * l[2]:.2f} mm", "1-3800", 2, walker_checks),
}


def main():
    parser = argparse.ArgumentParser(description="cslc ÷ pgs and the samples' checks against the pads' lattice")
    parser.add_argument("--scenes", default=",".join(SCENES), help=f"comma-separated, of {', '.join(SCENES)}")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the ratio runs (default 3)")
    parser.add_argument("--processes", type=int, default=2, help="processes per measurement, the fastest kept (default 2)")
    parser.add_argument("--instructions", action="store_true", help="also count instructions per step with callgrind (needs valgrind)")
    parser.add_argument("--out", type=pathlib.Path, default=anchors.HERE / "out", help="directory for the report")
    args = parser.parse_args()
    scenes = [s for s in args.scenes.split(",") if s]
    unknown = [s for s in scenes if s not in SCENES]
    if unknown:
        sys.exit(f"cslc_lattice.py: unknown scene(s) {', '.join(unknown)}; known: {', '.join(SCENES)}")
    if args.rounds < 1 or args.processes < 1:
        sys.exit("cslc_lattice.py: --rounds and --processes want at least 1")
    if args.instructions and shutil.which("valgrind") is None:
        sys.exit("cslc_lattice.py: --instructions needs valgrind (Debian: apt-get install valgrind)")

    driver = anchors.build_driver()
    cli = tribo_cli()
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = anchors.loadavg()
    lines = []
    for scene in scenes:
        folder, lattices, files_of, label, phases, repeat, checks = SCENES[scene]
        lines += [f"### {scene} (`samples/{folder}`; the sample's lattice first)", ""]
        phase_names = phases.split(",")
        counted = " instructions, cslc ÷ pgs |" if args.instructions else ""
        lines.append("| pad lattice | spheres a pad | " + " | ".join(f"cslc ÷ pgs, steps {p}" for p in phase_names) + f" |{counted} the sample's checks on `cslc` | pass |")
        lines.append("|---|---|" + "---|" * (len(phase_names) + bool(args.instructions)) + "---|---|")
        for lattice in lattices:
            written = []
            try:
                for name, text in files_of(lattice).items():
                    path = anchors.SAMPLES / folder / name
                    path.write_text(text)
                    written.append(path)
                project = next(p for p in written if p.suffix == ".yaml")
                print(f"{scene}, {label(lattice)}: cslc ÷ pgs", file=sys.stderr)
                measured = cslc_floor.ratios(driver, project, phases, repeat, args.rounds, args.processes)
                counts = ""
                if args.instructions:
                    cslc, pgs = (instructions_per_step(driver, project, e, phases) for e in ("cslc", "pgs"))
                    counts = f" {cslc / pgs:.2f} ({cslc / 1e3:.0f} k ÷ {pgs / 1e3:.0f} k a step) |"
                text, ok = checks(cli, project)
            finally:
                for path in written:
                    path.unlink(missing_ok=True)
            spheres = lattice[0] * lattice[0] if len(lattice) == 3 else lattice[0] * lattice[1]
            ratios = " | ".join(f"{measured[p][0]:.2f}" for p in phase_names)
            lines.append(f"| {label(lattice)} | {spheres} | {ratios} |{counts} {text} | {'yes' if ok else '**no**'} |")
        lines.append("")
    anchors.write_report(args.out, "cslc-lattice", "cslc: what a pad's lattice costs", started, load_before, args.rounds, args.processes, lines)


if __name__ == "__main__":
    main()
