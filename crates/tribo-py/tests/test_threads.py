"""Runs and steps release the GIL: runs in threads give the same results as one after another
(and run in parallel; the wall time is not asserted on a shared machine)."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import tribo

from conftest import BALL


def test_runs_in_threads_equal_runs_in_sequence():
    heights = [0.5, 0.8, 1.0, 1.2]
    projects = [tribo.load(BALL, set={"drop_height": h}, time=1.0) for h in heights]
    sequential = [p.run("pgs") for p in projects]
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(lambda p: p.run("pgs"), projects))
    for a, b in zip(sequential, threaded):
        assert a.metrics == b.metrics
        for column, values in a.trajectory.items():
            np.testing.assert_array_equal(values, b.trajectory[column])


def test_the_gil_is_released_while_a_run_runs():
    # While another thread runs a long run, this thread keeps executing Python bytecode: a run
    # that held the GIL would stop this loop for the whole run (Rust code never yields the GIL on
    # its own), leaving one gap as long as the run between two turns of the loop.
    project = tribo.load(BALL, time=60.0)
    done = threading.Event()
    runs = []

    def run():
        runs.append(project.run("pgs", record_interval=1.0))
        done.set()

    worker = threading.Thread(target=run)
    last = time.perf_counter()
    longest_gap = 0.0
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest_gap = max(longest_gap, now - last)
        last = now
    worker.join()
    assert runs[0].steps == 60_000
    assert longest_gap < runs[0].wall_time / 2, (longest_gap, runs[0].wall_time)


def test_simulators_step_in_threads():
    project = tribo.load(BALL)

    def fall(_):
        sim = project.simulator("pgs")
        sim.step(steps=300)
        return sim.state["ball"]["links"]["Ball"]["position"]

    with ThreadPoolExecutor(max_workers=2) as pool:
        positions = list(pool.map(fall, range(4)))
    assert all(p == positions[0] for p in positions)
