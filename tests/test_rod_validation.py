"""Bad input raises ValueError with an actionable message before anything runs (issue 4)."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.discretisations.rods import CosseratRod, Material, NodalLoad, RodMesh, Support, straight
from lgbeam.groups import S3R3

G = S3R3()
MESH = RodMesh.uniform(1.0, 4)
MAT = {"C_K": [1.0] * 3, "C_Gamma": [1e3] * 3, "rhoA": 1.0, "rhoJ": [0.1] * 3}


@pytest.mark.parametrize("kw, match", [
    ({"C_K": [1.0, 0.0, 1.0]}, "positive"), ({"rhoA": -1.0}, "rhoA"), ({"rhoJ": [0.1, -1, 0.1]}, "rhoJ"),
])
def test_bad_material(kw, match):
    with pytest.raises(ValueError, match=match):
        Material(**(MAT | kw))


def test_bad_mesh():
    with pytest.raises(ValueError, match="at least 1 edge"):
        RodMesh(np.array([0.0]))
    with pytest.raises(ValueError, match="non-positive length"):
        RodMesh(np.array([0.0, 0.5, 0.5, 1.0]))
    with pytest.raises(ValueError, match="n_elements"):
        RodMesh.uniform(1.0, 0)


def _rod(**kw):
    return CosseratRod(mesh=MESH, material=Material(**MAT), q_ref=straight(G, MESH), **kw)


def test_bad_load_node_and_supports():
    with pytest.raises(ValueError, match="node 7 does not exist"):
        _rod(loads=(NodalLoad(node=7, force=[1.0, 0.0, 0.0]),))
    with pytest.raises(ValueError, match="contradictory supports"):
        _rod(supports=(Support("start", "clamped"), Support(0, "pinned")))
    with pytest.raises(ValueError, match="over-constrained"):
        _rod(supports=(Support("start", "clamped"), Support("end", "pinned")), inextensible=True)


def test_initial_velocity_violating_constraints():
    rod = _rod(supports=(Support("start", "clamped"),))
    v = np.zeros(6 * rod.n_nodes)
    v[3] = 0.5  # the clamped node moves
    with pytest.raises(ValueError, match=r"violates the constraints: \|B v0\| = 0.707"):  # clamp 0.5, shear 0.5
        rod.check_initial_velocity(rod.q_ref, v)
