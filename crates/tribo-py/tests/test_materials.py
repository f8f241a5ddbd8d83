"""A material pair's parameters with where each number came from."""

import pytest

import tribo

from conftest import ROOT

DEFAULT = ROOT / "share" / "default" / "materials.yaml"


def test_an_explicit_pair_names_its_entry():
    pair = tribo.materials([DEFAULT]).pair("Ground", "Ball")
    assert pair.restitution == pytest.approx(0.8)
    assert pair.explicit
    source = pair.source
    assert source["kind"] == "entry"
    assert source["file"].endswith("materials.yaml") and source["line"] > 0
    assert "restitution" in pair.explain() and "Ground" in pair.explain()
    assert pair.to_dict()["pair"] == ["Ground", "Ball"]
    # Symmetric.
    assert tribo.materials(DEFAULT).pair("Ball", "Ground").restitution == pair.restitution


def test_a_pair_without_entry_explains_the_fallback():
    table = tribo.materials(DEFAULT)
    names = table.names
    assert "Ground" in names
    with pytest.warns(UserWarning, match="Glass"):
        pair = table.pair("Glass", "Ground")
    assert not pair.explicit and pair.source["kind"] == "fallback"
    assert len(pair.source["inputs"]) == 2


def test_a_project_exposes_its_merged_table():
    project = tribo.load(ROOT / "samples" / "ball" / "ball.yaml")
    assert project.materials.pair("Ground", "Ball").restitution == pytest.approx(0.8)


def test_a_broken_table_is_a_load_error(tmp_path):
    broken = tmp_path / "materials.yaml"
    broken.write_text("materials:\n  - name: Rubber\n    roughness: soft\n")
    with pytest.raises(tribo.LoadError) as caught:
        tribo.materials(broken)
    assert caught.value.file == str(broken) and caught.value.line == 3
