"""path.csv / path.png and load_displacement.png of a frame follow a node the engineer can name (issue 31 item 5;
docs/frames.md "Output"): the node that moves most over the path, or ``output.node``, labelled by its case name,
never the last rod's end node when that is a support."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from lgbeam.apps import frame as frame_app
from lgbeam.apps._frame_diagrams import path_node
from lgbeam.discretisations.rods.statics import solve_static
from lgbeam.io.plots import moving_node
from lgbeam.io.schema import validate

RECT = {"shape": "rectangle", "b": 0.1, "h": 0.2}


def _frame(**output) -> dict:
    """An L: column a→b clamped at a, then the beam t→b from its free tip t to b, so the last rod ends at b, not
    at the node that moves most (t, loaded down)."""
    nodes = {"a": [0.0, 0.0, 0.0], "b": [0.0, 0.0, 2.0], "t": [2.0, 0.0, 2.0]}
    raw = {"kind": "frame", "name": "p", "time": {"t_end": 1.0},
           "analysis": {"kind": "static", "richardson": False, "load_steps": 1, "stability": False},
           "model": {"n_elements": 2, "nodes": [{"name": k, "at": v} for k, v in nodes.items()],
                     "members": [{"name": m, "nodes": list(m), "section": RECT, "material": "S355"}
                                 for m in ("ab", "tb")]},
           "supports": [{"node": "a", "kind": "clamped"}],
           "loads": {"nodal": [{"node": "t", "force": [0.0, 0.0, -1e4]}]}, "output": {"vtk": False, **output}}
    return validate(raw, frame_app.SCHEMA)


def _path_csv(run) -> tuple[list[str], list[dict[str, str]]]:
    with open(run / "path.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return list(rows[0]), rows


def test_path_follows_the_node_that_moves_most_and_names_it(tmp_path):
    case = _frame()
    frame = frame_app.build(case)
    frame_app.run_static(case, frame, tmp_path)
    header, rows = _path_csv(tmp_path)
    assert header[-1] == "node" and {r["node"] for r in rows} == {"node t"}
    with np.load(tmp_path / "solution.npz") as z:
        sol = {k: z[k] for k in z.files}
    t = int(sol["node_ids"][list(sol["node_names"]).index("t")])
    u = sol["positions"][-1] - sol["positions"][0]
    assert float(rows[-1]["z"]) - float(rows[0]["z"]) == pytest.approx(u[t, 2], rel=1e-12)
    assert np.argmax(np.linalg.norm(u, axis=1)) == t and np.linalg.norm(u[-1]) < 0.5 * np.linalg.norm(u[t])
    assert moving_node(sol) == (t, "node t")  # load_displacement.png's title and legend


def test_output_node_picks_the_node_and_a_wrong_name_is_one_line(tmp_path):
    case = _frame(node="b")
    frame = frame_app.build(case)
    path = solve_static(frame, load_steps=1, stability_check=False)
    named = frame_app.node_ids(case, frame)
    assert path_node(frame, named, path.states, "b") == (named["b"], "node b")
    assert path_node(frame, named, path.states, None) == (named["t"], "node t")
    bad = _frame(node="zz")
    with pytest.raises(ValueError, match=r"output.node = 'zz' names no node of the case; use one of 'a', 'b', 't'"):
        frame_app.run_static(bad, frame_app.build(bad), tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_a_node_inside_a_member_is_named_by_its_rod():
    """Mid-span of a beam under a central-free distributed load: no case node there, so "<rod> node i"."""
    x = np.zeros((2, 5, 3))
    x[:, :, 0] = np.linspace(0.0, 4.0, 5)
    x[1, 2, 2] = -1e-3
    z = {"positions": x, "rod_names": np.array(["beam"]), "rod_offsets": np.array([0, 5]),
         "node_names": np.array(["A", "B"]), "node_ids": np.array([0, 4])}
    assert moving_node(z) == (2, "beam node 2")
