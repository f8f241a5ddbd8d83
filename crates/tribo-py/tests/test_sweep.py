"""Sweeps on executors: in-process threads, a process pool, Dask's distributed scheduler."""

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

import tribo

from conftest import BALL

PARAMS = {"drop_height": [0.5, 0.75, 1.0]}
ENGINES = ["rapier", "pgs"]


@pytest.fixture(scope="module")
def in_process():
    return tribo.sweep(BALL, PARAMS, ENGINES, time=1.5)


def test_a_sweep_runs_every_point_on_every_engine(in_process):
    assert in_process.parameters == ["drop_height"] and in_process.engines == ENGINES
    assert len(in_process.runs) == 6
    assert [r.engine for r in in_process.runs[:2]] == ENGINES
    assert in_process.points == [{"drop_height": h} for h in PARAMS["drop_height"]]
    apexes = in_process.values("first_apex", "pgs")
    for h, apex in zip(PARAMS["drop_height"], apexes):
        assert apex == pytest.approx(0.64 * h, rel=0.03)
    run = in_process.run("rapier", drop_height=1.0)
    assert run.ok and len(run.trajectory["time"]) == run.steps + 1
    # Plain data: the results pickle (they crossed process boundaries to get here).
    assert pickle.loads(pickle.dumps(in_process)).matches(in_process)


def test_a_sweep_is_the_same_on_a_process_pool(in_process):
    spawn = multiprocessing.get_context("spawn")  # fresh interpreters, as on another machine
    with ProcessPoolExecutor(max_workers=2, mp_context=spawn) as pool:
        assert tribo.sweep(BALL, PARAMS, ENGINES, pool, time=1.5).matches(in_process)


def test_a_sweep_is_the_same_on_a_dask_cluster_with_two_workers(in_process):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        on_dask = tribo.sweep(BALL, PARAMS, ENGINES, client.get_executor(), time=1.5)
        workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2
    assert on_dask.matches(in_process)


def test_invalid_sweeps_raise_before_or_instead_of_results(tmp_path):
    with pytest.raises(tribo.UnknownEngineError, match="pgs"):
        tribo.sweep(BALL, PARAMS, ["pgss"])
    with pytest.raises(tribo.InputError):
        tribo.sweep(BALL, {"drop_height": []}, ["pgs"])
    with pytest.raises(tribo.LoadError):
        tribo.sweep(BALL, {"drop_height": [1.0, "high"]}, ["pgs"], time=0.1)


def test_a_failed_run_is_kept_as_data(tmp_path):
    project = tmp_path / "push.yaml"
    project.write_text(
        "parameters: { force: { default: 1.0 } }\n"
        "simulation: { time_step: 0.001, duration: 0.05, gravity: [0, 0, 0] }\n"
        "bodies:\n"
        '  - { name: ball, model: "${SHARE}/model/ball.body", translation: [0, 0, 1] }\n'
        "controllers:\n"
        "  - { type: wrench, body: ball, force: [force, 0, 0], start: 0, duration: 1 }\n"
    )
    result = tribo.sweep(project, {"force": [1.0, 1e308]}, ["pgs"])
    ok, failed = result.runs
    assert ok.ok and not failed.ok
    assert failed.error["type"] == "DivergedError" and failed.error["body"] == "ball"
    assert isinstance(failed.exception(), tribo.DivergedError)
    assert result.failed() == [failed]
