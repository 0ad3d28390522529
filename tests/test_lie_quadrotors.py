"""Two quadrotors with a slung payload (seed 000 §6; notes/000.md §5.4, §8.5, §10 check 8). Truth: the
numbers of notes §8.5 (DOP853 at 1e-12 on the ambient 42-dimensional system in the note author's own
transcription) and scipy's DOP853 on lgbeam's ambient field."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.diagnostics import observed_order
from lgbeam.models.quadrotors import TwoQuadrotorsPayload
from lgbeam.solve import ConstantStep, SaveAt, integrate

# notes §8.5: |y − y_d| and (|q1 − q1d|, |q2 − q2d|) at t = 0, 0.5, …, 5 (DOP853 reference)
TRACKING = [0.90139, 2.93078, 1.20609, 0.03138, 0.09551, 0.02123, 0.00345, 0.00245, 0.00024, 0.00015, 0.00005]
LINKS = [(1.2878, 1.3191), (0.5531, 0.4676), (0.0672, 0.0809), (0.0463, 0.0392), (0.0052, 0.0064), (0.0038, 0.0033),
         (4e-4, 5e-4), (3e-4, 3e-4)]


def test_rkmk4_tracks_the_parabola_and_stays_on_the_manifold():
    """Figs 15–18 with RKMK4 (h = 0.01): tracking and link errors as notes §8.5 (to the printed digits),
    |y − y_d| < 1e-3 for t ≥ 4 (issue 14), |q_i| = 1 and R_i orthogonal to round-off."""
    model = TwoQuadrotorsPayload()
    sol = integrate(model, "hs-rkmk4", model.initial_state(), (0.0, 5.0), controller=ConstantStep(0.01),
                    save=SaveAt(every=0.5))
    assert sol.status == "ok"
    inv = [model.invariants(t, y) for t, y in zip(sol.t, sol.y)]
    np.testing.assert_allclose([d["tracking"] for d in inv], TRACKING, atol=6e-6)  # printed to 5 decimals
    links = [(d["link_error_1"], d["link_error_2"]) for d in inv[: len(LINKS)]]
    np.testing.assert_allclose(links, LINKS, atol=6e-5)
    assert all(d["tracking"] < 1e-3 for t, d in zip(sol.t, inv) if t >= 4)
    st = sol.steps
    assert np.nanmax(st["unit_q"]) < 1e-14 and np.nanmax(st["q_dot_w"]) < 1e-13
    assert max(np.nanmax(st[k]) for k in st if k.startswith("orthogonality")) < 1e-13
    S = model.split(sol.y[-1])
    np.testing.assert_allclose(S["y"], [2.500004, 3e-6, -0.750051], atol=2e-6)  # notes §8.5 at T = 5
    assert abs(np.linalg.norm(S["Omega"][0]) - 38.0149) < 1e-3


@pytest.mark.slow
def test_rkmk_orders_against_the_note():
    """Fig. 13: Heun, RKMK3, RKMK4 at h = 5/250 … 5/2000 against DOP853 (notes §8.5 values, 2 %); Lie–Euler
    blows up at h = 0.02 (notes: NaN) and the run ends with a failure status."""
    model = TwoQuadrotorsPayload()
    ref = model.reference_solution([5.0])[-1]
    hs = 5.0 / np.array([250, 500, 1000, 2000])
    note = {"hs-heun": [1.832e1, 4.155, 1.023, 2.553e-1], "hs-rkmk3": [1.496, 1.965e-1, 2.475e-2, 3.099e-3],
            "hs-rkmk4": [1.238e-1, 7.758e-3, 4.850e-4, 3.031e-5]}
    for method, expected in note.items():
        errs = [np.linalg.norm(integrate(model, method, model.initial_state(), (0.0, 5.0), controller=ConstantStep(h),
                                         save=SaveAt(steps=10**7), diagnostics=False).y[-1] - ref) for h in hs]
        np.testing.assert_allclose(errs, expected, rtol=0.02)
        assert abs(observed_order(hs[1:], errs[1:]) - {"hs-heun": 2, "hs-rkmk3": 3, "hs-rkmk4": 4}[method]) < 0.1
    with np.errstate(over="ignore", invalid="ignore"):  # numpy's default: the overflow becomes inf/NaN
        euler = integrate(model, "hs-lie-euler", model.initial_state(), (0.0, 5.0), controller=ConstantStep(0.02),
                          diagnostics=False)
    assert euler.status == "nonfinite" and euler.t[-1] < 5.0


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="masses must be 2 finite values > 0"):
        TwoQuadrotorsPayload(masses=np.array([0.7, -1.0]))
    with pytest.raises(ValueError, match="payload_mass must be > 0"):
        TwoQuadrotorsPayload(payload_mass=0.0)
