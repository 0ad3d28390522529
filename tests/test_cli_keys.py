"""``lgbeam keys``: the case-key reference (docs/case-keys.md is the generated page, checked current here), the
case template, and the load examples of docs/rod.md (each loaded, built and its forces checked against statics)."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from lgbeam.apps import APPS, get_app
from lgbeam.cli import cmd_keys
from lgbeam.cli.main import main
from lgbeam.groups.base import quat_mul, quat_to_matrix
from lgbeam.io.cases import find_case, read_toml
from lgbeam.io.schema import validate

ROOT = Path(__file__).resolve().parents[1]


def test_docs_page_is_current():
    page = (ROOT / "docs" / "case-keys.md").read_text(encoding="utf-8")
    assert page == cmd_keys.markdown(), "docs/case-keys.md is stale: lgbeam keys --markdown > docs/case-keys.md"
    for kind in APPS:  # one section per kind, every key of its schema in it
        assert f"## `{kind}`" in page
    assert all(f"| `{k}` |" in page for k, _ in cmd_keys.flatten(get_app("frame").SCHEMA))


def test_keys_command(capsys):
    assert main(["keys", "rod"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("model.material.E "))
    assert row.split()[-1] == "Pa" and "—" in row  # unit, no default (optional)
    assert re.search(r"^model\.length\s+number\s+required\s+m$", out, re.MULTILINE)
    assert re.search(r"^time\.t_end\s+number\s+required\s+s$", out, re.MULTILINE)
    assert re.search(r"^integrator\.method\s+string\s+\"hedop5\"", out, re.MULTILINE)
    assert main(["keys", "no-such-kind"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown case kind 'no-such-kind'" in err[0] and "frame" in err[0]


@pytest.mark.parametrize("kind", ["rod", "frame", "kdv"])
def test_template_is_toml_and_validates_once_filled(kind, capsys):
    assert main(["keys", kind, "--template"]) == 0
    text = capsys.readouterr().out
    assert ("SI units" in text) == (kind in cmd_keys.SI_KINDS)
    case = tomllib.loads(text)
    assert case["kind"] == kind
    required = [k for k, key in cmd_keys.flatten(get_app(kind).SCHEMA) if key.default is cmd_keys.REQUIRED]
    assert all(f"# {k.rpartition('.')[2]} =   # REQUIRED" in text for k in required if k != "kind")


def _load_examples() -> list[str]:
    text = (ROOT / "docs" / "rod.md").read_text(encoding="utf-8")
    section = text.split("## Loads: gravity, distributed and nodal", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```toml\n(.*?)```", section, re.DOTALL)


def _spatial_loads(case: dict, q: np.ndarray | None = None, t: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(moments, forces) per node in the spatial frame, R_i f_i of the rod's body-frame external forces."""
    rod, q_ref, _ = get_app("rod").build(case)
    q = q_ref if q is None else q
    f = rod.external_forces(t, q).reshape(-1, 6)
    R = quat_to_matrix(np.asarray(q)[:, :4])
    return np.einsum("nij,nj->ni", R, f[:, :3]), np.einsum("nij,nj->ni", R, f[:, 3:])


def test_load_examples_of_the_docs():
    examples = _load_examples()
    assert len(examples) == 3
    base = read_toml(find_case("cantilever-tip-load"))
    schema = get_app("rod").SCHEMA
    cases = []
    for snippet in examples:
        raw = copy.deepcopy(base)
        raw["loads"] = tomllib.loads(snippet)["loads"]
        cases.append(validate(raw, schema))
    gravity, distributed, follower = cases
    mat = base["model"]["material"]
    weight = mat["rho"] * np.pi * mat["section_radius"] ** 2 * base["model"]["length"] * 9.81  # 24.19 N
    M, F = _spatial_loads(gravity)
    np.testing.assert_allclose(F.sum(axis=0), [0.0, 0.0, -weight], rtol=1e-12, atol=1e-12)
    assert np.abs(M).max() == 0.0
    _, F = _spatial_loads(distributed, t=0.5)  # the table ramp at half: 250 N/m over 1 m
    np.testing.assert_allclose(F.sum(axis=0), [0.0, 0.0, -250.0], rtol=1e-12, atol=1e-9)
    _, q_ref, _ = get_app("rod").build(follower)
    _, F = _spatial_loads(follower)
    np.testing.assert_allclose(F[-1], [0.0, 0.0, -10.0], atol=1e-12)  # 10 N along d1 = -e_z
    r = np.array([np.cos(np.pi / 4), 0.0, np.sin(np.pi / 4), 0.0])  # the whole rod turned 90 degrees about y
    q_turned = np.array(q_ref, dtype=float).copy()
    q_turned[:, :4] = quat_mul(r, q_turned[:, :4])
    Q = quat_to_matrix(r)
    _, F = _spatial_loads(follower, q_turned)
    np.testing.assert_allclose(F[-1], Q @ [0.0, 0.0, -10.0], atol=1e-12)  # the follower load turned with it
    spatial = copy.deepcopy(follower)
    spatial["loads"]["nodal"][0]["frame"] = "spatial"
    _, F = _spatial_loads(spatial, q_turned)
    np.testing.assert_allclose(F[-1], [10.0, 0.0, 0.0], atol=1e-12)  # a dead load does not
