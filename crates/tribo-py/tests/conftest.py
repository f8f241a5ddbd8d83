"""Shared fixtures: the repository's samples, found from this file (tests run from any cwd)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BALL = ROOT / "samples" / "ball" / "ball.yaml"
ARM_EFFORT = ROOT / "tests" / "fixtures" / "controllers" / "arm-effort.yaml"
MALFORMED = ROOT / "tests" / "malformed-projects"


@pytest.fixture(scope="session")
def ball_path() -> Path:
    assert BALL.is_file(), BALL
    return BALL
