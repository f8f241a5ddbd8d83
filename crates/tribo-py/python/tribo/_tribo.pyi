"""Type stubs of the native module ``tribo._tribo`` (re-exported by ``tribo``)."""

import os
import pathlib
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

PathLike = Union[str, os.PathLike[str]]
Vec3 = Tuple[float, float, float]
MetricValue = Union[float, bool, None]

__version__: str

class MetricDetails(TypedDict):
    value: MetricValue
    unit: str
    expected: Union[float, bool, None]
    formula: Optional[str]
    tolerance: Optional[float]
    relative_error: Optional[float]
    passed: Optional[bool]
    missing: Optional[str]

class EngineInfo(TypedDict):
    name: str
    description: str
    honours: List[str]
    ignores: List[str]

class LinkState(TypedDict):
    position: Vec3
    orientation: Tuple[float, float, float, float]
    linear_velocity: Vec3
    angular_velocity: Vec3

class JointState(TypedDict):
    position: float
    velocity: float
    effort: float

class BodyState(TypedDict):
    links: Dict[str, LinkState]
    joints: Dict[str, JointState]

class Wrench(TypedDict, total=False):
    link: str
    force: Sequence[float]
    torque: Sequence[float]

class PdTarget(TypedDict, total=False):
    position: float
    kp: float
    kd: float
    velocity: float
    feedforward: float

class BodyCommands(TypedDict, total=False):
    joints: Mapping[str, Union[float, Mapping[str, float], PdTarget]]
    wrench: Wrench
    wrenches: Sequence[Wrench]

Commands = Mapping[str, BodyCommands]

def load(
    path: PathLike,
    set: Optional[Mapping[str, Union[float, int, str, bool]]] = None,
    materials: Optional[Union[PathLike, Sequence[PathLike]]] = None,
    time: Optional[float] = None,
    share: Optional[PathLike] = None,
    strict: bool = False,
) -> Project:
    """Load a project file; raises ``tribo.LoadError`` (file, line, column) if invalid."""

def materials(files: Union[PathLike, Sequence[PathLike]]) -> MaterialTable:
    """Load and merge material tables, later files overriding earlier ones."""

def engines() -> List[EngineInfo]:
    """The engines tribo ships, in order."""

def share_dir() -> pathlib.Path:
    """The share directory ``${SHARE}`` names by default."""

class Project:
    """A loaded project, ready to run on any engine."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def path(self) -> pathlib.Path: ...
    @property
    def time_step(self) -> float: ...
    @property
    def duration(self) -> float: ...
    @property
    def engines(self) -> List[str]: ...
    @property
    def parameters(self) -> Dict[str, Union[float, str]]: ...
    @property
    def bodies(self) -> List[str]: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def materials(self) -> MaterialTable: ...
    def run(
        self,
        engine: str,
        contacts_every: Optional[int] = None,
        record_interval: Optional[float] = None,
        time: Optional[float] = None,
        allow_long_run: bool = False,
    ) -> Run:
        """Run on ``engine`` (GIL released); raises ``tribo.DivergedError`` etc. on failure."""
    def compare(
        self,
        engines: Optional[Union[str, Sequence[str]]] = None,
        contacts_every: Optional[int] = None,
        record_interval: Optional[float] = None,
        time: Optional[float] = None,
        allow_long_run: bool = False,
    ) -> Dict[str, Union[Run, "TriboError"]]:
        """Run several engines in parallel: engine → Run, or the exception its run raised."""
    def simulator(self, engine: str, project_controllers: bool = True) -> Simulator:
        """Build ``engine`` for this scene, to step by hand."""

class Run:
    """One engine's finished run."""

    @property
    def engine(self) -> str: ...
    @property
    def steps(self) -> int: ...
    @property
    def time_step(self) -> float: ...
    @property
    def simulated_time(self) -> float: ...
    @property
    def wall_time(self) -> float: ...
    @property
    def steps_per_second(self) -> float: ...
    @property
    def metrics(self) -> Dict[str, MetricValue]: ...
    @property
    def metric_details(self) -> Dict[str, MetricDetails]: ...
    @property
    def columns(self) -> List[str]: ...
    @property
    def trajectory(self) -> Dict[str, npt.NDArray[np.float64]]:
        """Column → array (a new dict of new arrays on each access)."""
    def column(self, name: str) -> npt.NDArray[np.float64]: ...
    def contacts_at(self, step: int) -> List[Contact]:
        """Contacts after ``step`` (kept with ``run(..., contacts_every=N)``)."""
    @property
    def contact_steps(self) -> List[int]: ...
    @property
    def warnings(self) -> List[str]: ...

class Contact:
    """One contact; forces on ``b`` (``a`` receives the opposite); world frame, SI."""

    body_a: str
    link_a: str
    body_b: str
    link_b: str
    point: Vec3
    normal: Vec3
    depth: float
    normal_force: float
    friction_force: Vec3
    @property
    def force(self) -> Vec3: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Simulator:
    """An engine stepped by hand."""

    def step(self, commands: Optional[Commands] = None, steps: int = 1) -> None:
        """Take ``steps`` steps with ``commands`` (GIL released)."""
    @property
    def state(self) -> Dict[str, BodyState]: ...
    @property
    def contacts(self) -> List[Contact]: ...
    @property
    def time(self) -> float: ...
    @property
    def steps(self) -> int: ...
    @property
    def time_step(self) -> float: ...
    @property
    def engine(self) -> str: ...
    @property
    def bodies(self) -> List[str]: ...

class MaterialTable:
    """A merged material table."""

    def pair(self, a: str, b: str) -> MaterialPair: ...
    @property
    def names(self) -> List[str]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class MaterialPair:
    """A pair's contact parameters and their provenance."""

    @property
    def materials(self) -> Tuple[str, str]: ...
    @property
    def static_friction(self) -> float: ...
    @property
    def dynamic_friction(self) -> float: ...
    @property
    def restitution(self) -> float: ...
    @property
    def explicit(self) -> bool: ...
    @property
    def source(self) -> Dict[str, Any]: ...
    @property
    def extras(self) -> Dict[str, Any]: ...
    def explain(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...

from ._errors import TriboError
