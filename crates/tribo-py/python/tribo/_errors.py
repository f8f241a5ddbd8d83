"""The exceptions tribo raises; every one is a :class:`TriboError`.

The native module builds them with the message first and the fields as keyword arguments, so
each field is an attribute (``None`` when unknown) and an exception pickles with its fields
(except ``partial``, a native :class:`tribo.Run`: pickle the data you need from it instead).
"""

from __future__ import annotations

from typing import Any, Optional


class TriboError(Exception):
    """Base class of every tribo error; ``str(error)`` is the full message."""

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        for name, value in fields.items():
            setattr(self, name, value)

    @property
    def message(self) -> str:
        """The message, as ``str(error)``."""
        return str(self.args[0]) if self.args else ""


class LoadError(TriboError):
    """A project, model, motion or material file is invalid or unreadable.

    ``file``, ``line`` and ``column`` say where (``line``/``column`` are ``None`` for the file
    as a whole); ``reason`` is the message without the location.
    """

    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    reason: Optional[str] = None


class InputError(TriboError, ValueError):
    """An argument given in code is not valid (an override, a command, a column name, …)."""


class UnknownEngineError(TriboError, ValueError):
    """No engine has this name; the message names the closest and lists them all."""


class BuildError(TriboError):
    """The engine ``engine`` cannot simulate this scene."""

    engine: Optional[str] = None


class ControllerError(TriboError):
    """A controller of the project (``controller``) failed to start on ``engine``."""

    engine: Optional[str] = None
    controller: Optional[str] = None
    reason: Optional[str] = None


class TooManyStepsError(TriboError):
    """The run would take more than 10⁷ steps; pass ``allow_long_run=True`` to run it."""


class OutputError(TriboError):
    """An output could not be written."""


class RunFailedError(TriboError):
    """A run or a step failed at ``step`` (the steps completed before it), time ``time`` (s).

    ``partial`` is the run up to the failure (a :class:`tribo.Run`; ``None`` when stepping by
    hand).
    """

    engine: Optional[str] = None
    step: Optional[int] = None
    time: Optional[float] = None
    partial: Any = None


class DivergedError(RunFailedError):
    """The simulation diverged: ``body`` left the finite numbers (``what`` says how)."""

    body: Optional[str] = None
    what: Optional[str] = None


class StepFailedError(RunFailedError):
    """A step failed for another reason (``reason``): a command the engine cannot apply, …"""

    reason: Optional[str] = None


#: Every exception class by name (how a sweep's plain-data error names its class).
BY_NAME = {
    cls.__name__: cls
    for cls in (
        TriboError,
        LoadError,
        InputError,
        UnknownEngineError,
        BuildError,
        ControllerError,
        TooManyStepsError,
        OutputError,
        RunFailedError,
        DivergedError,
        StepFailedError,
    )
}
