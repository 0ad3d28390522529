"""One Newton controller for the implicit mechanical methods (gen-alpha, rattle-lgvi).

A method solves F(x) = 0 for its step unknowns x by modified Newton with an iteration matrix J ≈ F'
that it keeps (LU factors) across iterations and steps:

    J Δ_k = −F(x_k),   x_{k+1} = x_k + Δ_k.

The method measures each correction Δ_k in a few components c (increment, multipliers, ...) as the
maximum absolute correction d_c and the allowed size a_c (tolerance × the component's own scale, above its
round-off floor); ``NewtonIteration.judge`` decides. With the scaled error e_k = max_c d_c,k / a_c,k
(1 = the tolerance) and the contraction rate measured in one norm — the current iterate's —

    Θ_k = max_c(d_c,k / a_c,k) / max_c(d_c,k−1 / a_c,k)

(Hairer & Wanner II, §IV.8: the error left after Δ_k is at most Θ/(1 − Θ)·‖Δ_k‖ for a contraction):

- **converged** when e_k ≤ 1, or when Θ = max(Θ_k, Θ_k−1) < 1 with the last three corrections from the same
  matrix and Θ/(1 − Θ)·e_k ≤ 1 (eqs. (8.10)–(8.11), scipy's Radau ``solve_collocation_system``; the first rate
  after the predictor alone can be far below the contraction that follows), or when the
  iteration stagnates at round-off (Θ_k > ½ and e_k·tol ≤ ``STAGNATION``);
- **refresh** (the method rebuilds J at x_{k+1}) when the contraction is poor, Θ_k > ``refresh``, or too
  slow to finish in the iterations left, Θ_k^(max_iter − k)/(1 − Θ_k)·e_k > 1;
- **failed** when k = ``max_iter``, or when the iteration diverges: the mean rate over the last ``window``
  ratios is ≥ 1 (∏ Θ ≥ 1) although J was rebuilt inside that window — one correction growing, as the first
  correction from a poor predictor often does, is answered by a refresh, never by a failure.

A failed step is cut by the method (``cut_steps``): two steps of h/2, each cut again if it fails, down to
h/2^``max_cuts``; the next step goes back to the full h. Only a failure below that floor ends the run, with
one line that names what happened and advice that can work (``failure_advice``).

References
----------
Hairer & Wanner (1996), *Solving Ordinary Differential Equations II*, 2nd ed., §IV.8 (simplified Newton,
stopping criterion, eqs. (8.10)–(8.11)); scipy ``integrate/_ivp/radau.py`` (``solve_collocation_system`` and
the step-halving on a Newton failure); Deuflhard (2004), *Newton Methods for Nonlinear Problems*, §2.1
(contraction monitor Θ_k).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

import numpy as np

from lgbeam.integrators.base import Status, Step

STAGNATION = 1e-7  # relative size of a correction below which a non-contracting iteration is at round-off


class Verdict(Enum):
    """What the method does after a correction."""

    CONVERGED = "converged"
    CONTINUE = "continue"
    REFRESH = "refresh"  # rebuild and refactorise the iteration matrix at the new iterate
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class NewtonControl:
    """Tolerance ``tol`` (relative), at most ``max_iter`` iterations per step; refresh when Θ > ``refresh``;
    divergence = mean rate ≥ 1 over ``window`` ratios after a refresh; at most ``max_cuts`` step halvings."""

    tol: float = 1e-8
    max_iter: int = 20
    refresh: float = 0.5
    window: int = 3
    max_cuts: int = 6

    def start(self) -> NewtonIteration:
        """The bookkeeping of one step's iteration."""
        return NewtonIteration(self)


@dataclass(slots=True)
class NewtonIteration:
    """One step's iteration: call ``built()`` whenever the matrix is (re)built, ``judge`` after every
    solve."""

    control: NewtonControl
    it: int = 0
    built_at: int = (
        0  # the iteration whose correction first used the current matrix (0: from an earlier step)
    )
    prev: tuple[float, ...] | None = None
    prev_built_at: int = -1
    log_rates: list[float] = field(default_factory=list)
    rate: float = math.nan
    rate_same: bool = False  # ``rate`` measured between two corrections of one matrix
    err: float = math.inf
    diverged: bool = False

    def built(self) -> None:
        """The method has just (re)built the matrix at the current iterate (before this iteration's solve)."""
        self.built_at = self.it + 1

    def judge(self, corr: Sequence[float], allowed: Sequence[float]) -> Verdict:
        """Judge the correction with components ``corr`` (max |Δ| per component) against ``allowed`` (the
        tolerance per component); raises FloatingPointError on a non-finite correction."""
        c = self.control
        self.it += 1
        err = max(d / a for d, a in zip(corr, allowed, strict=True))
        if not math.isfinite(err):
            raise FloatingPointError("non-finite Newton update")
        theta = math.nan
        if self.prev is not None:
            before = max(d / a for d, a in zip(self.prev, allowed, strict=True))
            theta = err / before if before > 0.0 else math.inf
        same = self.prev_built_at == self.built_at  # both corrections from one matrix
        # the rate estimate of the Θ/(1 − Θ) stop: the larger of the last two rates of one matrix — the first rate
        # after a predictor mixes the predictor's nonlinear error into Δ_{k−1} and can be far below the
        # contraction that follows (rattle-lgvi on the steel cantilever: energy error 1e3× the tolerance's)
        bound = max(theta, self.rate) if same and self.rate_same else math.nan
        self.prev, self.prev_built_at, self.err, self.rate, self.rate_same = (
            tuple(corr), self.built_at, err, theta, same)
        if err <= 1.0 or (bound < 1.0 and bound / (1.0 - bound) * err <= 1.0):
            return Verdict.CONVERGED
        if theta > 0.5 and err * c.tol <= STAGNATION:
            return Verdict.CONVERGED  # round-off: the tolerance is below the residual's noise
        if self.it >= c.max_iter:
            return Verdict.FAILED
        if math.isnan(theta):
            return Verdict.CONTINUE
        self.log_rates.append(math.log(theta) if theta > 0.0 else -math.inf)
        recent = self.log_rates[-c.window:]
        if len(recent) == c.window and sum(recent) >= 0.0 and self.built_at > self.it - c.window:
            self.diverged = True
            return Verdict.FAILED
        left = c.max_iter - self.it
        slow = theta >= 1.0 or theta ** left / (1.0 - theta) * err > 1.0
        return Verdict.REFRESH if theta > c.refresh or slow else Verdict.CONTINUE

    def describe(self) -> str:
        """What happened, for a failure message."""
        c = self.control
        if self.diverged:
            mean = math.exp(sum(self.log_rates[-c.window:]) / c.window)
            return (
                f"diverged (mean contraction rate {mean:.3g} over its last {c.window} iterations, with the "
                f"iteration matrix rebuilt among them)"
            )
        return (f"did not converge in {self.it} iterations (last correction {self.err * c.tol:.3e} relative, "
                f"contraction rate {self.rate:.3g})")

    def advice(self, method: str) -> str:
        """What can help after this iteration failed at every step size down to the floor."""
        if not self.diverged and not self.rate >= 1.0:  # still contracting, or too few iterations to tell
            return (
                "the iteration was still contracting: raise integrator.max_iter (or loosen integrator.tol "
                "if the last correction is at the level of round-off)"
            )
        return (
            f"the {method} equations have no solution near the last state at any step tried: check the loads, "
            "supports and constraints (a load past a limit point, a mechanism, contradictory constraints), "
            "or use another method"
        )


def _combine(first: Step[Any, Any], second: Step[Any, Any]) -> Step[Any, Any]:
    """Two accepted half steps as one step t → t + h (summed local errors, piecewise dense output)."""
    error = magnitude = None
    if first.error is not None and second.error is not None:
        assert first.magnitude is not None and second.magnitude is not None, "error comes with magnitude"
        error = np.abs(first.error) + np.abs(second.error)
        magnitude = np.maximum(first.magnitude, second.magnitude)
    d1, d2 = first.dense, second.dense
    dense = None
    if d1 is not None and d2 is not None:
        def dense(sigma: float) -> Any:
            return d1(2.0 * sigma) if sigma <= 0.5 else d2(2.0 * sigma - 1.0)
    return Step(
        second.y,
        second.cache,
        error=error,
        magnitude=magnitude,
        dense=dense,
        evaluations=first.evaluations + second.evaluations,
        iterations=first.iterations + second.iterations,
    )


CUTTABLE = (Status.SOLVER_FAILED, Status.SINGULAR, Status.NONFINITE)


def cut_steps(
    attempt: Callable[[float, float, Any, Any], Step[Any, Any]],
    t: float,
    h: float,
    y: Any,
    cache: Any,
    max_cuts: int,
    can_cut: Callable[[Step[Any, Any]], bool] = lambda st: True,
    on_cut: Callable[[Any], Any] = lambda cache: cache,
) -> Step[Any, Any]:
    """``attempt(t, h, y, cache)``; when it fails (``CUTTABLE``) and ``can_cut`` allows, two attempts of
    h/2 (each cut again on failure) down to h/2^max_cuts. ``on_cut`` updates a cache for a halved step
    (e.g. counts cuts). A failure below the floor comes back with the step's own y and cache and a detail
    saying how far h was cut."""
    st = attempt(t, h, y, cache)
    if st.status not in CUTTABLE or not can_cut(st) or max_cuts <= 0:
        return st
    deepest = [0]
    out = _halves(
        attempt,
        t,
        h,
        y,
        on_cut(st.retry_cache if st.retry_cache is not None else cache),
        1,
        max_cuts,
        can_cut,
        on_cut,
        deepest,
    )
    if out.status is Status.OK:
        return _summed(out, st)
    detail = (
        f"the step to t = {t + h:.6g} was halved {deepest[0]} times (from h = {h:.3g}) and still failed: "
        f"{out.detail}"
    )
    return Step(y, cache, status=out.status, detail=detail, advice=out.advice, evaluations=out.evaluations +
                st.evaluations, iterations=out.iterations + st.iterations, retry_cache=st.retry_cache)


def _halves(
    attempt: Callable[[float, float, Any, Any], Step[Any, Any]],
    t: float,
    h: float,
    y: Any,
    cache: Any,
    depth: int,
    max_cuts: int,
    can_cut: Callable[[Step[Any, Any]], bool],
    on_cut: Callable[[Any], Any],
    deepest: list[int],
) -> Step[Any, Any]:
    """Two steps of h/2 from (t, y), each halved again on failure while depth < max_cuts."""
    deepest[0] = max(deepest[0], depth)
    half = 0.5 * h
    parts: list[Step[Any, Any]] = []
    failed: list[Step[Any, Any]] = []  # attempts that were cut: their work counts
    for k in range(2):
        st = attempt(t + k * half, half, y, cache)
        if st.status in CUTTABLE and can_cut(st) and depth < max_cuts:
            failed.append(st)
            retry = on_cut(st.retry_cache if st.retry_cache is not None else cache)
            st = _halves(attempt, t + k * half, half, y, retry, depth + 1, max_cuts, can_cut, on_cut, deepest)
        if st.status is not Status.OK:
            return _summed(st, *parts, *failed)
        parts.append(st)
        y, cache = st.y, st.cache
    return _summed(_combine(parts[0], parts[1]), *failed)


def _summed(st: Step[Any, Any], *spent: Step[Any, Any]) -> Step[Any, Any]:
    """``st`` with the evaluations and iterations of the attempts before it added."""
    if not spent:
        return st
    return replace(st, evaluations=st.evaluations + sum(s.evaluations for s in spent),
                   iterations=st.iterations + sum(s.iterations for s in spent))


__all__ = ["CUTTABLE", "STAGNATION", "NewtonControl", "NewtonIteration", "Verdict", "cut_steps"]
