"""tribo's errors as Python exceptions with their fields."""

import pickle

import pytest

import tribo

from conftest import BALL, MALFORMED


def test_a_load_error_names_file_line_and_column(tmp_path):
    with pytest.raises(tribo.LoadError) as caught:
        tribo.load(MALFORMED / "negative-time-step.yaml")
    error = caught.value
    assert isinstance(error, tribo.TriboError)
    assert error.file == str(MALFORMED / "negative-time-step.yaml")
    assert (error.line, error.column) == (1, 25)
    assert str(error) == f"{error.file}:1:25: the time step must be positive, found -0.001"
    assert error.reason == "the time step must be positive, found -0.001"


def test_an_error_in_a_written_file_points_at_it(tmp_path):
    project = tmp_path / "p.yaml"
    project.write_text(BALL.read_text().replace("time_step: 0.001", "time_step: fast"))
    with pytest.raises(tribo.LoadError) as caught:
        tribo.load(project)
    assert caught.value.file == str(project)
    assert caught.value.line == 8 and caught.value.column > 1


def test_a_missing_file_is_a_load_error_without_a_line(tmp_path):
    with pytest.raises(tribo.LoadError) as caught:
        tribo.load(tmp_path / "nowhere.yaml")
    assert caught.value.line is None and caught.value.column is None


def test_an_unknown_engine_names_the_closest():
    project = tribo.load(BALL, time=0.1)
    with pytest.raises(tribo.UnknownEngineError, match="pgs"):
        project.run("pgss")
    with pytest.raises(tribo.UnknownEngineError):
        project.compare(["rapier", "nope"])
    with pytest.raises(tribo.UnknownEngineError):
        project.simulator("nope")


def test_bad_arguments_are_input_errors():
    with pytest.raises(tribo.InputError, match="drop_height"):
        tribo.load(BALL, set={"drop_height": [1, 2]})
    with pytest.raises(tribo.InputError, match="time"):
        tribo.load(BALL).run("pgs", time=-1.0)
    with pytest.raises(ValueError):  # InputError is a ValueError too
        tribo.load(BALL, set={"drop_height": float("nan")})


def test_a_diverging_run_names_engine_body_step_and_time(tmp_path):
    # A 0.5 kg ball pushed by 1e308 N leaves the finite numbers in its first step.
    project = tmp_path / "push.yaml"
    project.write_text(
        "simulation: { time_step: 0.001, duration: 1.0, gravity: [0, 0, 0] }\n"
        "bodies:\n"
        '  - { name: ball, model: "${SHARE}/model/ball.body", translation: [0, 0, 1] }\n'
        "controllers:\n"
        "  - { type: wrench, body: ball, force: [1e308, 0, 0], start: 0, duration: 1 }\n"
    )
    for engine in ["pgs", "rapier"]:
        with pytest.raises(tribo.DivergedError) as caught:
            tribo.load(project).run(engine)
        error = caught.value
        assert isinstance(error, tribo.RunFailedError)
        assert error.engine == engine and error.body == "ball"
        assert error.step is not None and error.step < 10
        assert error.time == pytest.approx(error.step * 0.001)
        assert error.partial is not None and error.partial.steps == error.step
    results = tribo.load(project).compare(["pgs"])
    assert isinstance(results["pgs"], tribo.DivergedError)


def test_exceptions_pickle_with_their_fields():
    try:
        tribo.load(MALFORMED / "bodies-not-a-list.yaml")
    except tribo.LoadError as error:
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is tribo.LoadError
        assert (copy.file, copy.line, copy.column) == (error.file, error.line, error.column)
        assert str(copy) == str(error)
