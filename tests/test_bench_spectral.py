"""``lgbeam bench spectral``: the counts it reports (FFTs, nonlinear evaluations) are what the methods
do, and its definition of "equal cost" for the energy comparison."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from lgbeam.bench import spectral as bench
from lgbeam.discretisations.spectral import NLS, KdV


@pytest.fixture
def fft_counter(monkeypatch):
    """Count every numpy FFT call (forward or inverse) made while the fixture is active."""
    counts = {"n": 0}
    for name in ("fft", "ifft", "rfft", "irfft"):
        original = getattr(np.fft, name)

        def counted(*args, _original=original, **kwargs):
            counts["n"] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(np.fft, name, counted)
    return counts


@pytest.mark.parametrize("pname", ["nls-soliton", "kdv-soliton"])
@pytest.mark.parametrize("method", [*bench.OURS, *bench.BASELINES])
def test_reported_transforms_are_the_ffts_made(pname, method, fft_counter):
    system, exact = bench._problems(33)[pname]
    y0 = exact(0.0)
    param = 1e-4 if method == "dop853" else 1 / 20
    fft_counter["n"] = 0
    ys, steps, evals, _ = bench._advance(system, method, param, y0)
    made = fft_counter["n"]
    base = bench.OURS[method][0] if method in bench.OURS else method
    assert bench._transforms(base, isinstance(system, KdV), steps, evals) == made
    assert len(ys) == bench.N_SAVE + 1


_CALLS = {"n": 0}


class _Counting:
    """Counts every nonlinear evaluation (fused field, gradient, discrete gradient) in ``_CALLS``."""

    def nonlinear_field(self, y, scale=1.0):
        _CALLS["n"] += 1
        return super().nonlinear_field(y, scale)

    def grad_potential(self, y):
        _CALLS["n"] += 1
        return super().grad_potential(y)

    def discrete_gradient(self, y0, y1):
        _CALLS["n"] += 1
        return super().discrete_gradient(y0, y1)


@dataclass(frozen=True)
class _CountingNLS(_Counting, NLS):
    pass


@dataclass(frozen=True)
class _CountingKdV(_Counting, KdV):
    pass


@pytest.mark.parametrize("method", [*bench.OURS, "strang", "etdrk4"])
def test_reported_evaluations_are_the_nonlinear_evaluations_made(method, monkeypatch):
    """Ours: one ∇U (or discrete-gradient) evaluation per fixed-point iteration and nothing else;
    ETDRK4: 4 N̂ a step; Strang: 4 (RK4, KdV) or the exact flow e^{−2iκ|ψ|²h}ψ, counted as 1 (NLS)."""
    ops = bench._fourier_ops

    def counting_ops(system):
        fwd, inv, lam, N = ops(system)

        def counted(v):
            _CALLS["n"] += 1
            return N(v)

        return fwd, inv, lam, counted

    monkeypatch.setattr(bench, "_fourier_ops", counting_ops)
    problems = bench._problems(33)
    for pname, cls in (("nls-soliton", _CountingNLS), ("kdv-soliton", _CountingKdV)):
        system, exact = problems[pname]
        counting = cls(**{f: getattr(system, f) for f in system.__dataclass_fields__})
        _CALLS["n"] = 0
        _, steps, evals, _ = bench._advance(counting, method, 1 / 20, exact(0.0))
        if method == "strang" and pname == "nls-soliton":
            assert evals == steps == 20 and _CALLS["n"] == 0
        else:
            assert evals == _CALLS["n"] > 0, (pname, method)


def test_equal_cost_definition():
    runs = [{"cpu_s": 1.0, "energy_error": 1e-6}, {"cpu_s": 2.0, "energy_error": 1e-8},
            {"cpu_s": 3.0, "energy_error": 1e-7},  # dominated: dearer and worse than the 2 s run
            {"cpu_s": 4.0, "energy_error": 1e-10}]
    assert np.isnan(bench.energy_at_cost(0.5, runs))  # no baseline run this cheap
    assert bench.energy_at_cost(1.0, runs) == pytest.approx(1e-6)
    assert bench.energy_at_cost(np.sqrt(2.0), runs) == pytest.approx(1e-7)  # log–log midpoint
    assert bench.energy_at_cost(2.0 * np.sqrt(2.0), runs) == pytest.approx(1e-9)  # the 3 s run is skipped
    assert bench.energy_at_cost(10.0, runs) == pytest.approx(1e-10)  # held at the front's last value


def test_time_at_target_interpolates_log_log():
    runs = [{"error": 1e-6, "cpu_s": 1.0}, {"error": 1e-10, "cpu_s": 100.0}]
    assert bench._at_target(runs, "cpu_s") == pytest.approx(10.0)
    assert np.isnan(bench._at_target(runs[:1], "cpu_s"))
