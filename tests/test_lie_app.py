"""The ``spherical-pendulum`` case kind (seed 000 §5 from a case file): a run stays on TS², and bad input
exits 2 with what to change."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.cli.main import main

CASE = """kind = "spherical-pendulum"
name = "chain"
[model]
n = 2
{model}
[initial]
{initial}
[integrator]
method = "{method}"
{integrator}
[time]
t_end = 0.3
[output]
every = 0.1
vtk = false
"""


def _write(tmp_path, model="", initial='state = "paper"', method="hs-rkmk5", integrator="rtol = 1e-6\natol = 1e-8"):
    path = tmp_path / "chain.toml"
    path.write_text(CASE.format(model=model, initial=initial, method=method, integrator=integrator))
    return path


def test_adaptive_run_stays_on_ts2(tmp_path):
    assert main(["run", str(_write(tmp_path)), "--out", str(tmp_path / "run")]) == 0
    data = np.load(tmp_path / "run" / "solution.npz")
    y = data["y"].reshape(len(data["t"]), -1, 2, 3)
    assert np.abs(np.linalg.norm(y[:, :, 0], axis=-1) - 1).max() < 1e-13
    assert data["positions"].shape == (len(data["t"]), 2, 3)


@pytest.mark.parametrize("initial, message", [
    ('state = "given"\nq = [[1.0, 0, 0], [0, 0, 1.001]]\nw = [[0, 0, 0], [0, 0, 0]]', "q_2 is not a unit vector"),
    ('state = "given"\nq = [[1.0, 0, 0], [0, 0, 1.0]]\nw = [[0.5, 0, 0], [0, 0, 0]]', "w_1 is not tangent"),
    ('state = "given"\nq = [[1.0, 0, 0]]\nw = [[0, 0, 0]]', "must be 2 × 3 lists"),
])
def test_off_manifold_start_exits_2(tmp_path, capsys, initial, message):
    assert main(["run", str(_write(tmp_path, initial=initial)), "--out", str(tmp_path / "run")]) == 2
    assert message in capsys.readouterr().err


def test_bad_model_and_method_exit_2(tmp_path, capsys):
    assert main(["run", str(_write(tmp_path, model="masses = [1.0, -2.0]")), "--out", str(tmp_path / "a")]) == 2
    assert "every entry of masses must be finite and > 0" in capsys.readouterr().err
    assert main(["run", str(_write(tmp_path, method="hedop5")), "--out", str(tmp_path / "b")]) == 2
    assert "needs ConstrainedMechanicalSystem" in capsys.readouterr().err
