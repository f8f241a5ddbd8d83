"""Time a scene in MuJoCo: `python mujoco_time.py DESCRIPTION.json PHASES [REPEAT [COPIES]]` prints
JSON like `tribo-bench time` (CPU time of the stepping loop per step range, from 1). With REPEAT > 1
the whole run is made REPEAT times, each from a copy of the built initial state (the model built once, untimed), and
each phase reports the median of its runs' CPU times, as `tribo-bench time --repeat` does. With
COPIES > 1, that many copies of the initial state (one model) are stepped one after the other at
every step, as `tribo-bench time --copies` steps copies of a project.

Run inside the bench venv (bench/anchors.py does). Steps with constant controls run as one
`mj_step(..., nstep=N)` call; a joint pattern sets the controls before every step from Python.
"""

import copy
import json
import os
import sys
import time

import mujoco

import mujoco_scenes


def parse_phases(text):
    phases = []
    for part in text.split(","):
        a, b = part.split("-")
        phases.append((int(a), int(b)))
    return phases


def run(model, datas, schedule, first, last):
    """Steps first..=last (from 1) of every copy in `datas`, the copies one after the other at
    every step."""
    step = mujoco.mj_step
    if len(datas) == 1 and schedule is None:
        step(model, datas[0], nstep=last - first + 1)
        return
    for k in range(first - 1, last):
        for data in datas:
            if schedule is not None:
                data.ctrl[:] = schedule[k]
            step(model, data)


def single_threaded():
    """Process CPU time is MuJoCo's only if the stepping thread is the process's only thread:
    numpy's OpenBLAS starts spinning workers unless OPENBLAS_NUM_THREADS=1 (bench/anchors.py
    sets it). Linux only; elsewhere the check is skipped."""
    tasks = "/proc/self/task"
    if os.path.isdir(tasks) and len(os.listdir(tasks)) > 1:
        sys.exit(f"mujoco_time.py: {len(os.listdir(tasks))} threads in this process; set OPENBLAS_NUM_THREADS=1 so that CPU time is the stepping thread's")


def time_phases(model, initial, schedule, phases, copies=1):
    """CPU time of each phase of one run of `copies` copies of the initial state `initial`, and
    the copies' states at the end."""
    datas = [copy.copy(initial) for _ in range(copies)]
    times = []
    step = 1
    for first, last in phases:
        if first > step:
            run(model, datas, schedule, step, first - 1)
        start = time.process_time()
        run(model, datas, schedule, first, last)
        times.append(time.process_time() - start)
        step = last + 1
    return times, datas


def median(values):
    s = sorted(values)
    return 0.5 * (s[(len(s) - 1) // 2] + s[len(s) // 2])


def main():
    desc_path, phases_text = sys.argv[1], sys.argv[2]
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    copies = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    single_threaded()
    with open(desc_path) as f:
        desc = json.load(f)
    build_start = time.process_time()
    model, data, schedule = mujoco_scenes.build(desc)
    build = time.process_time() - build_start
    phases = parse_phases(phases_text)
    runs = []
    for _ in range(max(1, repeat)):
        times, end = time_phases(model, data, schedule, phases, copies)
        runs.append(times)
    out = []
    for k, (first, last) in enumerate(phases):
        cpu_runs = [r[k] for r in runs]
        cpu = median(cpu_runs)
        out.append({"steps": f"{first}-{last}", "count": last - first + 1, "cpu_s": cpu, "per_step_s": cpu / (last - first + 1), "cpu_s_runs": cpu_runs})
    free = [model.jnt_qposadr[j] for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
    # Over every copy, as `tribo-bench time --copies` reports them: the highest free root of all
    # copies and the contacts of all copies together.
    top = max(d.qpos[a + 2] for d in end for a in free) if free else None
    print(
        json.dumps(
            {
                "project": desc["project"],
                "engine": "mujoco",
                "mujoco": mujoco.__version__,
                "time_step": model.opt.timestep,
                "repeat": len(runs),
                "copies": copies,
                "build_cpu_s": build,
                "phases": out,
                "contacts_at_end": sum(int(d.ncon) for d in end),
                "top_height_at_end": top,
            }
        )
    )


if __name__ == "__main__":
    main()
