"""tribo: material-aware contact simulation in the style of Choreonoid, from Python.

Load a project whose materials decide friction and bounce, run it on several contact engines,
compare them, step an engine by hand with your own controller, and sweep parameters on any
``concurrent.futures.Executor`` (threads here, Dask or Ray workers elsewhere)::

    import tribo
    project = tribo.load("samples/ball/ball.yaml", set={"drop_height": 1.0})
    run = project.run("pgs")
    run.metrics["bounce_ratio"]            # ≈ 0.64 (restitution 0.8: e² per bounce)
    run.trajectory["ball.z"]               # numpy array, one value per recorded step

Everything is SI units and radians; runs are deterministic (the same inputs give bit-identical
results on any machine, in any thread or process). Errors are :class:`TriboError` subclasses:
:class:`LoadError` names ``file``, ``line`` and ``column``; :class:`DivergedError` the
``engine``, ``body``, ``step`` and ``time``.
"""

from ._errors import (
    BuildError,
    ControllerError,
    DivergedError,
    InputError,
    LoadError,
    OutputError,
    RunFailedError,
    StepFailedError,
    TooManyStepsError,
    TriboError,
    UnknownEngineError,
)
from ._sweep import RunResult, Sweep, run_task, sweep
from ._tribo import (
    Contact,
    MaterialPair,
    MaterialTable,
    Project,
    Run,
    Simulator,
    __version__,
    engines,
    load,
    materials,
    share_dir,
)

__all__ = [
    "BuildError",
    "Contact",
    "ControllerError",
    "DivergedError",
    "InputError",
    "LoadError",
    "MaterialPair",
    "MaterialTable",
    "OutputError",
    "Project",
    "Run",
    "RunFailedError",
    "RunResult",
    "Simulator",
    "StepFailedError",
    "Sweep",
    "TooManyStepsError",
    "TriboError",
    "UnknownEngineError",
    "__version__",
    "engines",
    "load",
    "materials",
    "run_task",
    "share_dir",
    "sweep",
]
