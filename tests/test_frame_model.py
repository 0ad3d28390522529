"""The typed frame model (docs/frames.md "The frame model"): a run translates its case once, the model's
refinement equals the translation of the refined case, and the named nodes sit where the case puts them."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.apps import _frame_members, _frame_model
from lgbeam.apps import frame as frame_app
from lgbeam.apps import frame_richardson as fr
from lgbeam.io.schema import validate

SMALL = """kind = "frame"
name = "small"
supports = [{ node = "a", kind = "clamped" }]
[model]
n_elements = 4
nodes = [{ name = "a", at = [0.0, 0.0, 0.0] }, { name = "b", at = [0.0, 0.0, 3.0] },
         { name = "c", at = [2.0, 0.0, 3.0] }]
masses = [{ node = "c", mass = 500.0 }]
[[model.members]]
name = "col"
nodes = ["a", "b"]
section = "HEB200"
material = "S355"
orientation = [1.0, 0.0, 0.0]
[[model.members]]
name = "beam"
nodes = ["b", "c"]
section = "IPE300"
material = "S355"
[[loads.cases]]
name = "down"
nodal = [{ node = "c", force = [0.0, 0.0, -1e3] }]
[analysis]
kind = "ANALYSIS"
load_case = "down"
[time]
t_end = 0.002
[integrator]
method = "gen-alpha"
h = 0.001
"""


def _counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the calls of the translation (``frame_model``) and of the rods form it starts from
    (``rods_form``), wherever they are called from."""
    calls = {"frame_model": 0, "rods_form": 0}
    model_fn, rods_fn = _frame_model.frame_model, _frame_members.rods_form

    def frame_model(case):
        calls["frame_model"] += 1
        return model_fn(case)

    def rods_form(case):
        calls["rods_form"] += 1
        return rods_fn(case)

    monkeypatch.setattr(_frame_model, "frame_model", frame_model)
    monkeypatch.setattr(_frame_model, "rods_form", rods_form)
    monkeypatch.setattr(_frame_members, "rods_form", rods_form)
    return calls


@pytest.mark.parametrize("analysis", ["static", "dynamic"])
def test_a_run_translates_its_case_once(tmp_path, monkeypatch, analysis):
    """`lgbeam run` of a nodes + members case with a load case: the static path with Richardson's three meshes
    (N/2, N, 2N: the model refined, not the case translated again) and member diagrams, or two steps of
    dynamics, each translate the case exactly once (the review counted 15 translations of
    steel-frame-2storey)."""
    from lgbeam.cli.main import main

    case = tmp_path / "small.toml"
    case.write_text(SMALL.replace("ANALYSIS", analysis))
    calls = _counted(monkeypatch)
    assert main(["run", str(case), "--out", str(tmp_path / "run"), "--quiet"]) == 0
    assert calls == {"frame_model": 1, "rods_form": 1}
    if analysis == "static":
        assert (tmp_path / "run" / "richardson.csv").is_file()  # the three meshes were solved
    assert (tmp_path / "run" / "member_forces.csv").is_file()


def _case(text: str) -> dict:
    import tomllib

    return validate(tomllib.loads(text), frame_app.SCHEMA)


def test_the_refined_model_is_the_translation_of_the_refined_case():
    """Two routes to the mesh with twice (half) the elements: refine the model, or refine the case's rods
    form (``frame_richardson.refined``) and translate it; the same rods, node indices and reference
    configuration, mass matrix and loads."""
    case = _case(SMALL.replace("ANALYSIS", "static"))
    model = frame_app.model_of(case)
    rods = _frame_members.rods_form(case)  # a copy: the load case applied, the named nodes on their rods
    rods["analysis"]["load_case"] = None  # applied already
    for factor in (2, 0.5):
        by_model = model.refined(factor)
        by_case = _frame_model.frame_model(fr.refined(rods, factor))
        assert by_model is not None
        assert by_model.n_default == by_case.n_default == int(4 * factor)
        assert by_model.n_elements.tolist() == by_case.n_elements.tolist() == [int(4 * factor)] * 2
        assert by_model.node_ids() == by_case.node_ids()
        assert [(j.a, j.b) for j in by_model.joints] == [(j.a, j.b) for j in by_case.joints]
        sm, sc = by_model.structure(), by_case.structure()
        assert np.array_equal(sm.q_ref, sc.q_ref)
        assert np.array_equal(sm.support_nodes(), sc.support_nodes())
        assert np.array_equal(sm.mass(sm.q_ref).toarray(), sc.mass(sc.q_ref).toarray())
        t = 1.0
        assert np.array_equal(sm.external_forces(t, sm.q_ref), sc.external_forces(t, sc.q_ref))


def test_named_nodes_sit_at_the_case_coordinates_and_indices_that_do_not_scale_refuse():
    """node_ids gathers (offset + end · N) per named node: the structure's reference positions there are the
    case's ``at`` coordinates; a rods + joints case whose joint sits at node 3 has no halved mesh."""
    case = _case(SMALL.replace("ANALYSIS", "static"))
    model = frame_app.model_of(case)
    st = model.structure()
    x = st.G.translation(st.q_ref)
    want = {"a": [0.0, 0.0, 0.0], "b": [0.0, 0.0, 3.0], "c": [2.0, 0.0, 3.0]}
    ids = frame_app.node_ids(case, st)
    assert set(ids) == set(want)
    for name, at in want.items():
        np.testing.assert_allclose(x[ids[name]], at, atol=1e-14)
    np.testing.assert_allclose(model.node_xyz, [want[n] for n in model.node_names], atol=0)
    assert frame_app.member_rods(case, st) == {"col": ["col"], "beam": ["beam"]}
    rods = {"kind": "frame", "name": "r", "analysis": {"kind": "static"}, "time": {"t_end": 1.0},
            "model": {"n_elements": 6, "material": {"E": 2e11, "G": 8e10, "rho": 7850.0, "section": "circle",
                                                    "section_radius": 0.01},
                      "rods": [{"name": "a", "start": [0, 0, 0], "end": [1, 0, 0]},
                               {"name": "b", "start": [0.5, 0, 0], "end": [0.5, 1, 0]}],
                      "joints": [{"a": ["a", 3], "b": ["b", "start"]}]},
            "supports": [{"rod": "a", "node": 0, "kind": "clamped"}]}
    m = frame_app.model_of(validate(rods, frame_app.SCHEMA))
    assert m.refined(0.5) is None and m.refined(2) is not None
    assert m.refined(2).joints[0].a == ("a", 6)
