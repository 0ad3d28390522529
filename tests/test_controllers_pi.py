"""The PI step-size rule (``AdaptiveStep(beta > 0)``, case key ``integrator.controller = "pi"``).

Problems with exact solutions, run with the DOPRI 5(4) Lie group RK (``rkmk5``) on the additive group R⁴:

- ``TwoScale``: two undamped oscillators, ω = 1 and ω = 1000. With the fast one excited at amplitude 1e-6 and
  tol = 1e-4 the accuracy of the slow one would allow ωh ≫ 1, so the step is bound by DOPRI5's stability on
  the imaginary axis (|R(iy)| ≤ 1 for |y| ≲ 1): the stability-boundary problem of Hairer & Wanner II §IV.2;
- the same with the fast oscillator at rest: a smooth problem, where the global error must track the tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from lgbeam.apps import load_case
from lgbeam.apps._runner import controller_of
from lgbeam.diagnostics import observed_order
from lgbeam.groups.direct import Rn
from lgbeam.integrators.controllers import PI_BETA
from lgbeam.io.datafile import decode, encode
from lgbeam.io.schema import CaseError
from lgbeam.solve import AdaptiveStep, ConstantStep, integrate
from lgbeam.solve.driver import Checkpointing


@dataclass(frozen=True)
class TwoScale:
    """y = (u, u', w, w'): u'' = −ω_slow² u, w'' = −ω_fast² w, as y' = ξ(t, y) on R⁴."""

    w_slow: float = 1.0
    w_fast: float = 1000.0

    @property
    def group(self) -> Rn:
        return Rn(4)

    def generator(self, t: float, y: np.ndarray) -> np.ndarray:
        return np.array([y[1], -self.w_slow**2 * y[0], y[3], -self.w_fast**2 * y[2]])

    def exact(self, t: float, y0: np.ndarray) -> np.ndarray:
        out = []
        for w, (a, b) in ((self.w_slow, y0[:2]), (self.w_fast, y0[2:])):
            c, s = np.cos(w * t), np.sin(w * t)
            out += [a * c + b / w * s, -a * w * s + b * c]
        return np.array(out)


STIFF_Y0 = np.array([1.0, 0.0, 1e-6, 0.0])
SMOOTH_Y0 = np.array([1.0, 0.0, 0.0, 0.0])


def _run(y0: np.ndarray, tol: float, beta: float, t_end: float, **kw):
    sol = integrate(TwoScale(), "rkmk5", y0, (0.0, t_end),
                    controller=AdaptiveStep(rtol=tol, atol=tol, beta=beta, h0=1e-3), diagnostics=False, **kw)
    assert sol.status == "ok", sol.message
    return sol


def test_pi_rejects_fewer_steps_at_the_stability_boundary():
    """Counts, not times: the I rule rejects ~30 % of its trial steps here (h oscillates across ωh ≈ 1),
    the PI rule with DOPRI5's β = 0.04 a third of that and with β = 0.08 almost none, at the same mean step."""
    i, pi, pi8 = (_run(STIFF_Y0, 1e-4, beta, 10.0) for beta in (0.0, PI_BETA, 0.08))
    n_i, n_pi, n_pi8 = (s.stats["n_steps"] for s in (i, pi, pi8))
    r_i, r_pi, r_pi8 = (s.stats["n_rejected"] for s in (i, pi, pi8))
    assert r_i > 0.2 * n_i, (r_i, n_i)  # the problem is at the stability boundary
    assert r_pi < 0.5 * r_i and r_pi8 < 0.05 * r_i, (r_i, r_pi, r_pi8)
    # the accepted steps stay stability-bound (ωh ≈ 1): no more than 10 % more of them
    assert n_pi < 1.1 * n_i and n_pi8 < 1.1 * n_i, (n_i, n_pi, n_pi8)
    assert n_i > 0.8 * 10.0 * 1000.0  # ωh ≲ 1.25: the steps really are bound by the fast mode


@pytest.mark.parametrize("beta", [PI_BETA, 0.08])
def test_pi_error_tracks_the_tolerance_against_the_exact_solution(beta):
    """Smooth problem, exact solution: the global error at t = 10 (1.6 periods) stays within 2 tol and falls
    with the tolerance at a fitted slope near 1, like the I rule's."""
    tols = np.array([1e-5, 1e-6, 1e-7, 1e-8, 1e-9])
    errs, steps = [], []
    for tol in tols:
        sol = _run(SMOOTH_Y0, tol, beta, 10.0)
        errs.append(np.abs(sol.y[-1] - TwoScale().exact(10.0, SMOOTH_Y0)).max())
        steps.append(sol.stats["n_steps"])
    errs = np.array(errs)
    assert np.all(errs <= 2 * tols), errs / tols
    assert 0.8 < observed_order(tols, errs) < 1.2, errs
    assert np.all(np.diff(steps) > 0)


def test_pi_run_resumes_bit_for_bit_from_a_checkpoint():
    """The PI rule's memory (the last accepted error norm) is part of the driver's loop state."""
    states = []
    full = _run(STIFF_Y0, 1e-4, PI_BETA, 0.5, checkpoint=Checkpointing(lambda s: states.append(encode(s)),
                                                                       steps=100))
    mid = decode(*states[len(states) // 2])  # the data-only form a run folder's checkpoint holds
    assert np.isfinite(mid.err_prev) and mid.n_acc > 0
    rest = integrate(TwoScale(), "rkmk5", None, (0.0, 0.5), controller=AdaptiveStep(rtol=1e-4, atol=1e-4,
                     beta=PI_BETA, h0=1e-3), diagnostics=False, resume=mid)
    assert rest.stats["n_steps"] == full.stats["n_steps"] and rest.stats["n_rejected"] == full.stats["n_rejected"]
    assert np.array_equal(rest.y[-1], full.y[-1])


def test_beta_is_validated():
    with pytest.raises(ValueError, match="beta must lie in"):
        AdaptiveStep(rtol=1e-6, atol=1e-8, beta=-0.01)
    with pytest.raises(ValueError, match="too large for error order 4"):  # α = 0.2 − 0.75 β ≤ β
        AdaptiveStep(rtol=1e-6, atol=1e-8, beta=0.15).next_step(1.0, 0.5, 4, False, 0.5)
    assert AdaptiveStep(rtol=1e-6, atol=1e-8).kind == "i" and AdaptiveStep(1e-6, 1e-8, beta=0.04).kind == "pi"


def test_the_case_selects_the_step_size_control():
    """The case default is fixed-step HERK4 (h = 2e-3); integrator.controller = "pi" / "i" make it adaptive
    (h ignored), "constant" needs h."""
    case, _ = load_case("flying-spaghetti")
    assert case["integrator"]["method"] == "herk4" and controller_of(case["integrator"]) == ConstantStep(2e-3)
    case, _ = load_case("flying-spaghetti", ["integrator.method=\"hedop5\"", 'integrator.controller="pi"'])
    assert controller_of(case["integrator"]) == AdaptiveStep(rtol=1e-6, atol=1e-8, beta=PI_BETA)
    case, _ = load_case("flying-spaghetti", ['integrator.controller="pi"', "integrator.beta=0.08"])
    assert controller_of(case["integrator"]).beta == 0.08
    case, _ = load_case("flying-spaghetti", ['integrator.controller="i"'])
    assert controller_of(case["integrator"]) == AdaptiveStep(rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="needs a step size"):
        controller_of({**case["integrator"], "controller": "constant", "h": None})
    with pytest.raises(CaseError, match="is not one of auto, constant, i, pi"):
        load_case("flying-spaghetti", ['integrator.controller="p"'])


@pytest.mark.parametrize("make", [lambda: AdaptiveStep(rtol=1e-6, atol=0.0),
                                  lambda: AdaptiveStep(rtol=1e-6, atol=np.array([1e-9, 0.0])),
                                  lambda: ConstantStep(1e-3, rtol=1e-6, atol=0.0)])
def test_a_zero_atol_is_refused_in_one_line(make):
    """atol = 0 made the scaled error 0/0 on a component that is zero (a Lie-group step's local coordinates start
    at 0): heavy-top with integrator.atol = 0 ended in a FloatingPointError in the initial step size."""
    with pytest.raises(ValueError, match=r"atol must be > 0, got .*e\.g\. atol = 1e-3 \* rtol"):
        make()


def test_the_cli_refuses_a_zero_atol_before_writing(tmp_path, capsys):
    from lgbeam.cli.main import main

    assert main(["run", "heavy-top", "--set", "integrator.atol=0", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "atol must be > 0" in err[0]
    assert not (tmp_path / "r").exists()
