"""Load, run, metrics, trajectory arrays, contacts, compare."""

import math

import numpy as np
import pytest

import tribo

from conftest import BALL


def test_the_readme_one_liner_prints_the_bounce_ratio():
    run = tribo.load(str(BALL)).run("pgs")
    assert run.metrics["bounce_ratio"] == pytest.approx(0.64, abs=0.01)


def test_metric_details_carry_unit_expectation_and_verdict():
    run = tribo.load(BALL, time=1.5).run("pgs")
    details = run.metric_details["bounce_ratio"]
    assert details["expected"] == pytest.approx(0.64)
    assert details["tolerance"] == pytest.approx(0.03)
    assert details["passed"] is True
    apex = run.metric_details["first_apex"]
    assert apex["unit"] == "m" and apex["missing"] is None
    assert run.engine == "pgs" and run.steps == 1500
    assert run.simulated_time == pytest.approx(1.5)


def test_overrides_change_the_scene():
    low = tribo.load(BALL, set={"drop_height": 0.5}, time=1.5).run("pgs")
    high = tribo.load(BALL, set={"drop_height": 1.0}, time=1.5).run("pgs")
    assert high.metrics["first_apex"] / low.metrics["first_apex"] == pytest.approx(2.0, rel=0.05)
    assert tribo.load(BALL, set={"drop_height": 0.5}).parameters["drop_height"] == 0.5


def test_trajectory_is_a_dict_of_numpy_arrays():
    run = tribo.load(BALL, time=0.5).run("rapier", record_interval=0.01)
    trajectory = run.trajectory
    assert list(trajectory)[0] == "time" and list(trajectory) == run.columns
    z = trajectory["ball.z"]
    assert isinstance(z, np.ndarray) and z.dtype == np.float64
    assert len(z) == len(trajectory["time"]) >= 50
    # Free fall before the ball reaches the floor: z = z0 − ½ g t².
    t = trajectory["time"]
    early = t < 0.3
    np.testing.assert_allclose(z[early], 1.1 - 0.5 * 9.81 * t[early] ** 2, atol=1e-3)
    np.testing.assert_array_equal(run.column("ball.z"), z)
    with pytest.raises(tribo.InputError, match="ball.z"):
        run.column("ball.w")


def test_contacts_at_names_bodies_and_carries_forces():
    run = tribo.load(BALL, time=1.0).run("pgs", contacts_every=1)
    # The ball (0.1 m radius, bottom at 1 m) lands after √(2 h / g) ≈ 0.45 s.
    touching = [s for s in run.contact_steps if run.contacts_at(s)]
    assert touching and 440 <= touching[0] <= 460
    contact = run.contacts_at(touching[0])[0]
    assert {contact.body_a, contact.body_b} == {"floor", "ball"}
    assert contact.normal_force > 0 and abs(contact.depth) < 0.01
    assert len(contact.point) == 3 and abs(math.hypot(*contact.normal) - 1) < 1e-9
    assert contact.to_dict()["normal_force"] == contact.normal_force
    without = tribo.load(BALL, time=0.1).run("pgs")
    with pytest.raises(tribo.InputError, match="contacts_every"):
        without.contacts_at(1)


def test_compare_maps_engines_to_runs():
    results = tribo.load(BALL, time=1.5).compare(["rapier", "pgs"])
    assert list(results) == ["rapier", "pgs"]
    for engine, run in results.items():
        assert isinstance(run, tribo.Run), run
        assert run.metrics["bounce_ratio"] == pytest.approx(0.64, abs=0.01), engine


def test_runs_are_deterministic():
    project = tribo.load(BALL, time=1.0)
    a, b = project.run("pgs"), project.run("pgs")
    assert a.metrics == b.metrics
    for column, values in a.trajectory.items():
        np.testing.assert_array_equal(values, b.trajectory[column])


def test_engines_lists_the_registry():
    names = [e["name"] for e in tribo.engines()]
    assert names == ["rapier", "pgs", "cslc", "cslc-rapier"]
    assert all(e["description"] and isinstance(e["honours"], list) for e in tribo.engines())


def test_the_share_directory_is_found():
    assert (tribo.share_dir() / "model" / "ball.body").is_file()
    project = tribo.load(BALL)
    assert project.bodies == ["floor", "ball"]
    assert project.name == "ball" and project.time_step == 0.001
