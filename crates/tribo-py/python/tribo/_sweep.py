"""Parameter sweeps on any ``concurrent.futures.Executor``.

A sweep is a grid of parameter values × engines. Each run (one point on one engine) is an
independent task: :func:`run_task` loads the project with the point's overrides and runs it in
the worker, and returns plain data (metrics, trajectory arrays), so any executor can carry it —
a thread pool here, a process pool, Dask (``client.get_executor()``), or anything else with
``submit``. Runs are deterministic: the result does not depend on where they ran.
"""

from __future__ import annotations

import difflib
import itertools
import math
import os
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _errors

PathLike = Union[str, "os.PathLike[str]"]

#: Errors that make the whole sweep invalid (raised), rather than one failed run (kept).
_INPUT_ERRORS = ("LoadError", "InputError", "UnknownEngineError", "TooManyStepsError")


@dataclass
class RunResult:
    """One run of a sweep, as plain data (picklable, no native objects)."""

    engine: str
    #: The grid point: parameter name → value, as given to :func:`sweep`.
    values: Dict[str, Any]
    #: Metric name → value (``float``, ``bool`` or ``None``); empty for a failed run.
    metrics: Dict[str, Any] = field(default_factory=dict)
    #: Metric name → unit, expected, tolerance, passed, … (see ``Run.metric_details``).
    metric_details: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    #: Column → ``numpy.ndarray`` (empty when the sweep was asked for no trajectories).
    trajectory: Dict[str, np.ndarray] = field(default_factory=dict)
    steps: int = 0
    #: s.
    simulated_time: float = 0.0
    #: s of wall-clock time in the worker (the one field that differs between equal runs).
    wall_time: float = 0.0
    warnings: List[str] = field(default_factory=list)
    #: ``None``, or ``{"type": "DivergedError", "message": ..., "engine": ..., ...}``.
    error: Optional[Dict[str, Any]] = None

    @property
    def ok(self) -> bool:
        """Whether the run finished."""
        return self.error is None

    def exception(self) -> Optional[_errors.TriboError]:
        """The failure as the exception the run raised (without ``partial``), or ``None``."""
        if self.error is None:
            return None
        return _exception(self.error)

    def matches(self, other: "RunResult") -> bool:
        """The same run bit for bit: everything but ``wall_time``."""
        return (
            self.engine == other.engine
            and self.values == other.values
            and _same(self.metrics, other.metrics)
            and _same(self.metric_details, other.metric_details)
            and self.trajectory.keys() == other.trajectory.keys()
            and all(
                np.array_equal(self.trajectory[k], other.trajectory[k], equal_nan=True)
                for k in self.trajectory
            )
            and self.steps == other.steps
            and self.simulated_time == other.simulated_time
            and self.warnings == other.warnings
            and _same(self.error, other.error)
        )


@dataclass
class Sweep:
    """A finished sweep: ``runs`` in grid order (the first parameter varying slowest), each
    point's runs in ``engines`` order."""

    parameters: List[str]
    engines: List[str]
    runs: List[RunResult]

    @property
    def points(self) -> List[Dict[str, Any]]:
        """The grid points, in order."""
        return [r.values for r in self.runs[:: max(len(self.engines), 1)]]

    def run(self, engine: str, **values: Any) -> RunResult:
        """The run of ``engine`` at the point with these parameter values."""
        for r in self.runs:
            if r.engine == engine and r.values == values:
                return r
        raise KeyError(f"no run of {engine!r} at {values!r}")

    def values(self, metric: str, engine: str) -> List[Any]:
        """Metric ``metric`` of ``engine`` at every point, in grid order (``None`` where the
        run failed or the metric has no value)."""
        return [r.metrics.get(metric) for r in self.runs if r.engine == engine]

    def failed(self) -> List[RunResult]:
        """The runs that failed."""
        return [r for r in self.runs if not r.ok]

    def matches(self, other: "Sweep") -> bool:
        """The same sweep bit for bit, wall times aside (where the runs ran does not matter)."""
        return (
            self.parameters == other.parameters
            and self.engines == other.engines
            and len(self.runs) == len(other.runs)
            and all(a.matches(b) for a, b in zip(self.runs, other.runs))
        )


def sweep(
    project: PathLike,
    params: Mapping[str, Sequence[Any]],
    engines: Optional[Union[str, Sequence[str]]] = None,
    executor: Optional[Executor] = None,
    *,
    set: Optional[Mapping[str, Any]] = None,
    materials: Optional[Union[PathLike, Sequence[PathLike]]] = None,
    time: Optional[float] = None,
    share: Optional[PathLike] = None,
    record_interval: Optional[float] = None,
    trajectory: bool = True,
) -> Sweep:
    """Run the project file ``project`` at every point of the grid ``params`` × ``engines``.

    ``params`` maps parameter names to their values (``{"drop_height": [0.5, 1.0]}``); the grid
    is every combination, the first parameter varying slowest. ``engines``: a name or a list
    (default: the project's ``simulation.engines``, else every engine). ``executor``: any
    ``concurrent.futures.Executor``; each run is one task (:func:`run_task`, picklable
    arguments, plain-data result). Default: a thread pool of one thread per core in this
    process (runs release the GIL). ``set``, ``materials``, ``time``, ``share`` are as for
    :func:`tribo.load` (the point's values override ``set``); ``record_interval`` spaces
    trajectory rows; ``trajectory=False`` returns metrics only (less data to ship).

    Paths are made absolute here: a worker on another machine needs the same files at the same
    paths (a shared file system or the same checkout). The project is loaded here first, so an
    invalid file or an unknown engine raises before anything is submitted; an invalid point
    raises its ``tribo.LoadError``; a run that fails (diverges, …) is kept as a
    :class:`RunResult` with ``error`` set.
    """
    from . import _tribo

    names = list(params)
    axes = [list(params[n]) for n in names]
    for name, values in zip(names, axes):
        if not str(name).strip():
            raise _errors.InputError("a sweep parameter has an empty name")
        if not values:
            raise _errors.InputError(f"sweep parameter `{name}` needs at least one value")
    base = dict(set or {})
    path = os.path.abspath(os.fspath(project))
    extra = [os.path.abspath(os.fspath(m)) for m in _as_list(materials)]
    share_dir = os.path.abspath(os.fspath(share)) if share is not None else None
    loaded = _tribo.load(path, set=base, materials=extra, time=time, share=share_dir)
    engine_names = _engines(engines, loaded.engines, [e["name"] for e in _tribo.engines()])

    tasks = []
    for point in itertools.product(*axes):
        values = dict(zip(names, point))
        for engine in engine_names:
            tasks.append(
                {
                    "project": path,
                    "set": {**base, **values},
                    "values": values,
                    "materials": extra,
                    "time": time,
                    "share": share_dir,
                    "engine": engine,
                    "record_interval": record_interval,
                    "trajectory": trajectory,
                }
            )
    results = _submit_all(executor, tasks)
    runs = [_result(r) for r in results]
    for r in runs:
        if r.error is not None and r.error.get("type") in _INPUT_ERRORS:
            raise _exception(r.error)
    return Sweep(parameters=names, engines=engine_names, runs=runs)


def run_task(task: Mapping[str, Any]) -> Dict[str, Any]:
    """One run of a sweep, in whichever process or machine the executor chose: load the project
    with the task's overrides, run it, return plain data (a ``dict`` of :class:`RunResult`'s
    fields). A tribo error becomes ``error`` data; anything else propagates."""
    from . import _tribo

    out: Dict[str, Any] = {"engine": task["engine"], "values": dict(task["values"])}
    try:
        project = _tribo.load(
            task["project"],
            set=task["set"],
            materials=task["materials"],
            time=task["time"],
            share=task["share"],
        )
        run = project.run(task["engine"], record_interval=task["record_interval"])
    except _errors.TriboError as error:
        out["error"] = _error_data(error)
        return out
    out.update(
        metrics=run.metrics,
        metric_details=run.metric_details,
        trajectory=run.trajectory if task["trajectory"] else {},
        steps=run.steps,
        simulated_time=run.simulated_time,
        wall_time=run.wall_time,
        warnings=run.warnings,
    )
    return out


def _submit_all(executor: Optional[Executor], tasks: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    if executor is None:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            return _submit_all(pool, tasks)
    futures = [executor.submit(run_task, task) for task in tasks]
    return [f.result() for f in futures]


def _engines(asked: Any, project: List[str], known: List[str]) -> List[str]:
    names = _as_list(asked) or project or known
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            raise _errors.UnknownEngineError(
                f"unknown engine `{name}`{hint}; the engines are {', '.join(known)}"
            )
    return list(names)


def _as_list(value: Any) -> List[Any]:
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike)):
        return [value]
    return list(value)


def _error_data(error: _errors.TriboError) -> Dict[str, Any]:
    data: Dict[str, Any] = {"type": type(error).__name__, "message": str(error)}
    data.update({k: v for k, v in vars(error).items() if k != "partial"})
    return data


def _exception(data: Mapping[str, Any]) -> _errors.TriboError:
    fields = {k: v for k, v in data.items() if k not in ("type", "message")}
    cls = _errors.BY_NAME.get(str(data.get("type")), _errors.TriboError)
    return cls(str(data.get("message", "")), **fields)


def _result(data: Mapping[str, Any]) -> RunResult:
    return RunResult(**data)


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN (a metric may be NaN on both sides)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


__all__: Iterable[str] = ("RunResult", "Sweep", "run_task", "sweep")
