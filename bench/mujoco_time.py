"""Time a scene in MuJoCo: `python mujoco_time.py DESCRIPTION.json PHASES [REPEAT [COPIES]]` prints
JSON like `tribo-bench time` (CPU time of the stepping loop per step range, from 1; beside it,
`setting_per_step_s`, what setting the controls and kinematic bodies from Python costs alone, which
that time includes). With REPEAT > 1 the whole run is made REPEAT times, each from a copy of the
built initial state (the model built once, untimed), and each phase reports the median of its
runs' CPU times, as `tribo-bench time --repeat` does. With COPIES > 1, that many copies of the
initial state (one model) are stepped one after the other at every step, as `tribo-bench time
--copies` steps copies of a project.

Run inside the bench venv (bench/anchors.py does). Steps with constant controls run as one
`mj_step(..., nstep=N)` call; a joint pattern, a joint effort or a kinematic path sets the
controls and the kinematic bodies' positions and velocities before every step from Python.
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
                schedule.apply(data, k)
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


def setting_time(initial, schedule, first, last, copies):
    """CPU time of what the schedule sets before steps first..=last of `copies` copies, alone
    (on scratch copies of the initial state, no step taken): the part of a phase's time that is
    Python setting MuJoCo's inputs rather than MuJoCo stepping."""
    if schedule is None:
        return 0.0
    datas = [copy.copy(initial) for _ in range(copies)]
    start = time.process_time()
    for k in range(first - 1, last):
        for data in datas:
            schedule.apply(data, k)
    return time.process_time() - start


def data_roots(schedule):
    """The kinematic bodies' free joints a schedule sets (none without a schedule)."""
    return schedule.roots if schedule is not None else []


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
    settings = []
    for _ in range(max(1, repeat)):
        times, end = time_phases(model, data, schedule, phases, copies)
        runs.append(times)
        settings.append([setting_time(data, schedule, first, last, copies) for first, last in phases])
    out = []
    for k, (first, last) in enumerate(phases):
        cpu_runs = [r[k] for r in runs]
        cpu = median(cpu_runs)
        count = last - first + 1
        setting = median([r[k] for r in settings])
        out.append({"steps": f"{first}-{last}", "count": count, "cpu_s": cpu, "per_step_s": cpu / count, "cpu_s_runs": cpu_runs, "setting_per_step_s": setting / count})
    # The free roots of the scene's free bodies; a kinematic body's (mujoco_scenes.py) is moved, not free.
    moved = {qadr for qadr, *_ in data_roots(schedule)}
    free = [
        model.jnt_qposadr[j]
        for j in range(model.njnt)
        if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE and model.jnt_qposadr[j] not in moved
    ]
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
