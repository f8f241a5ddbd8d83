#!/usr/bin/env python3
"""Memory traffic per box and step of the N-box piles (issue #14), counted, not timed.

    python3 bench/footprint.py                          # pgs and raw rapier, the default scenes
    python3 bench/footprint.py --engines pgs --scenes pile-1000
    python3 bench/footprint.py --steps 301-500          # the steps counted (default 301-500)

Why: on the 2-core machines of BENCHMARKS.md the 1000-box pile's growth over the 50-box one is
memory traffic, not work ("pgs: the pile's growth is memory traffic, not work"): at 1000 boxes a
step's data no longer stays in the per-core 2 MiB level, and every line a step writes there is
fetched and written back. How much that costs per line differs from one machine to the next
(BENCHMARKS.md, "Like with like, twenty-sixth round"), the count does not: this script counts it.

What it does: builds the timing driver (as bench/anchors.py does) and runs `tribo-bench time
PROJECT --engine E` under valgrind's cachegrind, with the cache simulated at this machine's
per-core sizes (L1d and the level-2 cache, read from /sys; `--l1` and `--l2` override them), once
to the first counted step's predecessor and once to the last counted step: the difference of the
two runs is the counted steps' alone, whatever building the scene and landing the boxes cost.
Per box and step it reports the instructions, the lines read that were not in the simulated
level-2 cache and the lines written that were not in it (a written line that is not in the cache
is fetched first and written back later). The 50-box pile stepped as twenty independent copies
in turn (`--copies 20`, the "50x20" scene) has the boxes of the 1000-box pile, each copy's step
touching only its own data: its misses are what a step that stays within one island still
streams. Deterministic: the same build gives the same counts on any machine with the same cache
sizes. Writes the report to bench/out/ (git-ignored) and prints it.
"""

import argparse
import datetime
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import anchors

# Scene name -> (project under samples/bench/, copies, boxes in all).
SCENES = {
    "pile-50": ("pile-50.yaml", 1, 50),
    "pile-1000": ("pile-1000.yaml", 1, 1000),
    "pile-50x20": ("pile-50.yaml", 20, 1000),
}
ENGINES = ["pgs", "raw-rapier", "rapier"]


def cache_level(level, kind):
    """(size, ways, line) in bytes of cpu0's cache of `level` and `kind` ('Data' or 'Unified'),
    from /sys; None if the machine does not say."""
    base = pathlib.Path("/sys/devices/system/cpu/cpu0/cache")
    for index in sorted(base.glob("index*")):
        try:
            if int((index / "level").read_text()) != level or (index / "type").read_text().strip() != kind:
                continue
            size = (index / "size").read_text().strip()
            factor = {"K": 1024, "M": 1024 * 1024}.get(size[-1], 1)
            size = int(size.rstrip("KM")) * factor
            ways = int((index / "ways_of_associativity").read_text())
            line = int((index / "coherency_line_size").read_text())
            return size, ways, line
        except (OSError, ValueError):
            continue
    return None


def spec(text):
    """`size,ways,line` (bytes) as cachegrind takes it."""
    size, ways, line = (int(x) for x in text.split(","))
    return size, ways, line


def counts(driver, project, engine, copies, last_step, caches, env):
    """Cachegrind's summary (event -> count) of a run of steps 1..=last_step."""
    (d1, l2) = caches
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "cachegrind.out"
        cmd = [
            "valgrind", "--tool=cachegrind", "--cache-sim=yes",
            f"--D1={d1[0]},{d1[1]},{d1[2]}", f"--LL={l2[0]},{l2[1]},{l2[2]}",
            f"--cachegrind-out-file={out}",
            str(driver), "time", str(project), "--engine", engine,
            "--phases", f"1-{last_step}", "--copies", str(copies),
        ]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        events, summary = None, None
        for line in out.read_text().splitlines():
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                summary = [int(x) for x in line.split()[1:]]
        if events is None or summary is None:
            sys.exit(f"footprint.py: no summary in cachegrind's output for {project} on {engine}")
        return dict(zip(events, summary))


def main():
    parser = argparse.ArgumentParser(description="memory traffic per box and step of the N-box piles, counted by cachegrind")
    parser.add_argument("--engines", default="pgs,raw-rapier", help=f"comma-separated, of {', '.join(ENGINES)} (default pgs,raw-rapier)")
    parser.add_argument("--scenes", default=",".join(SCENES), help=f"comma-separated, of {', '.join(SCENES)}")
    parser.add_argument("--steps", default="301-500", help="the steps counted, FIRST-LAST (default 301-500: settled boxes)")
    parser.add_argument("--l1", type=spec, help="the simulated L1d as size,ways,line in bytes (default: this machine's)")
    parser.add_argument("--l2", type=spec, help="the simulated level-2 cache as size,ways,line in bytes (default: this machine's)")
    parser.add_argument("--out", type=pathlib.Path, default=anchors.HERE / "out", help="directory for the report")
    args = parser.parse_args()

    if shutil.which("valgrind") is None:
        sys.exit("footprint.py: valgrind is not installed (Debian: apt-get install valgrind)")
    engines = [e for e in args.engines.split(",") if e]
    scenes = [s for s in args.scenes.split(",") if s]
    for name, known in (("engine", ENGINES), ("scene", list(SCENES))):
        chosen = engines if name == "engine" else scenes
        unknown = [c for c in chosen if c not in known]
        if unknown:
            sys.exit(f"footprint.py: unknown {name}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    try:
        first, last = (int(x) for x in args.steps.split("-"))
    except ValueError:
        sys.exit(f"footprint.py: --steps wants FIRST-LAST, got {args.steps!r}")
    if not 1 < first <= last:
        sys.exit(f"footprint.py: --steps wants 1 < FIRST <= LAST, got {args.steps!r}")
    d1 = args.l1 or cache_level(1, "Data")
    l2 = args.l2 or cache_level(2, "Unified")
    if d1 is None or l2 is None:
        sys.exit("footprint.py: this machine does not list its L1d and level-2 caches in /sys; give --l1 and --l2")

    driver = anchors.build_driver()
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    counted = last - first + 1
    rows = []
    for scene in scenes:
        project, copies, boxes = SCENES[scene]
        path = anchors.SAMPLES / "bench" / project
        for engine in engines:
            before = counts(driver, path, engine, copies, first - 1, (d1, l2), env)
            after = counts(driver, path, engine, copies, last, (d1, l2), env)
            per = {k: (after[k] - before[k]) / counted / boxes for k in ("Ir", "DLmr", "DLmw")}
            rows.append((scene, engine, per))
            print(f"{scene} {engine}: {per['Ir']:.0f} instructions, {per['DLmr']:.1f} read misses, {per['DLmw']:.1f} write misses per box and step", file=sys.stderr)

    date = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        f"Date: {date:%Y-%m-%d %H:%M} UTC. Machine: {anchors.machine()['cpu']}. Code: {anchors.git_commit()}.",
        f"Cachegrind, L1d {d1[0] // 1024} KiB {d1[1]}-way, level 2 {l2[0] // 1024} KiB {l2[1]}-way, {l2[2]}-byte lines; steps {first}–{last}, per box and step:",
        "",
        "| scene | engine | instructions | lines read, not in level 2 | lines written, not in level 2 |",
        "|---|---|---|---|---|",
    ]
    for scene, engine, per in rows:
        lines.append(f"| {scene} | {engine} | {per['Ir'] / 1000:.1f} k | {per['DLmr']:.1f} | {per['DLmw']:.1f} |")
    report = "\n".join(lines) + "\n"
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"footprint-{date:%Y%m%d-%H%M}.md"
    path.write_text(report)
    print(report)
    print(f"written: {path}")


if __name__ == "__main__":
    main()
