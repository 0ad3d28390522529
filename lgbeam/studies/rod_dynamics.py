"""Time-integration studies of the rod with half-explicit Lie group methods (seed 004 §4, Figs. 9–12).

* ``temporal_errors``: relative global position error ‖x_h(T) − x_ref(T)‖/‖x_ref(T)‖ of a method at
  fixed steps against a fine-step HEDOP5 reference (Fig. 9).
* ``fixed_step_estimates``: the embedded local error estimate err_n of HEDOP5 along a run with a
  *fixed* step h, measured with the step-size controller's norm (seed 004 eq. (21)) — the driver only
  records err in adaptive mode (Fig. 10). Since err = O(h^{p̂+1}) with the embedded order p̂ = 4
  (seed 004 eq. (26)), err(h)/err(h/2) ≈ 2⁵.
* ``adaptive_history``: err and h per accepted step of adaptive HEDOP5 (Figs. 11, 12).

Symbols: T (horizon), h (step), err (scaled RMS norm of eq. (21) on y = (θ, v)), x (node positions).

References
----------
Seed 004 §4: Fig. 9 (orders), Fig. 10 (local error at fixed h), eq. (26) err = O(h^{p+1}), Fig. 11
(adaptive HEDOP5, Atol = 1e-8, Rtol = 1e-6), Fig. 12 (C_K = 5e2 vs 5e4); eq. (21) (error norm).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.apps import load_case
from lgbeam.apps.rod import build
from lgbeam.integrators.registry import method_entry
from lgbeam.solve import AdaptiveStep, ConstantStep, MechanicalState, SaveAt, integrate

logger = logging.getLogger(__name__)

#: Seed 004 Fig. 11 tolerances.
RTOL, ATOL = 1e-6, 1e-8


@dataclass(frozen=True)
class RodProblem:
    """A rod case ready to integrate: the system and consistent initial data."""

    name: str
    rod: Any
    q0: FloatArray
    v0: FloatArray


def case_problem(name: str, overrides: Sequence[str] = ()) -> RodProblem:
    """Build a rod case (``cases/<name>.toml``) with ``--set``-style overrides."""
    case, _ = load_case(name, list(overrides))
    if case["kind"] != "rod":
        raise ValueError(f"case {name!r} has kind {case['kind']!r}; the rod studies need a 'rod' case")
    rod, q0, v0 = build(case)
    return RodProblem(str(case["name"]), rod, q0, v0)


def with_bending_stiffness(problem: RodProblem, c_k: float, *, scale_moments: bool = True) -> RodProblem:
    """The same problem with C_K = diag(c_k, c_k, c_k) (seed 004 Fig. 12).

    With ``scale_moments`` the nodal moments scale with the stiffness ratio c_k / max(C_K): the
    roll-up's end moment is defined as 2π·EI/L, so the stiffer rod still rolls up into the circle
    (otherwise it would only deflect by 1 %).
    """
    if not c_k > 0:
        raise ValueError(f"bending stiffness must be positive, got {c_k}")
    from lgbeam.discretisations.rods import NodalLoad

    old = problem.rod.material
    factor = float(c_k) / float(np.max(old.C_K)) if scale_moments else 1.0
    loads = tuple(dataclasses.replace(ld, moment=np.asarray(ld.moment) * factor) if isinstance(ld, NodalLoad) else ld
                  for ld in problem.rod.loads)
    rod = dataclasses.replace(problem.rod, material=dataclasses.replace(old, C_K=np.full(3, float(c_k))), loads=loads)
    return RodProblem(f"{problem.name} C_K={c_k:g}", rod, problem.q0, problem.v0)


def positions(problem: RodProblem, q: FloatArray) -> FloatArray:
    """Node positions (..., N+1, 3) of configurations q."""
    return problem.rod.G.translation(q)


def final_positions(problem: RodProblem, T: float, method: str, n_steps: int) -> FloatArray:
    """Node positions at t = T after ``n_steps`` fixed steps of ``method``; ValueError if the run fails."""
    sol = integrate(problem.rod, method, MechanicalState(problem.q0, problem.v0), (0.0, T),
                    controller=ConstantStep(T / n_steps))
    if sol.status != "ok":
        raise ValueError(f"{problem.name}: {method} with h = {T / n_steps:g} failed: {sol.message}")
    return positions(problem, sol.q[-1])


def temporal_errors(problem: RodProblem, T: float, method: str, ns: Sequence[int], x_ref: FloatArray) -> FloatArray:
    """Relative global position errors at t = T for h = T/n, n in ``ns`` (seed 004 Fig. 9)."""
    scale = float(np.linalg.norm(x_ref))
    return np.array([np.linalg.norm(final_positions(problem, T, method, n) - x_ref) / scale for n in ns])


def fixed_step_estimates(
    problem: RodProblem, t_end: float, h: float, *, rtol: float = RTOL, atol: float = ATOL, method: str = "hedop5"
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Embedded local error estimates along a fixed-step run (seed 004 Fig. 10).

    Every step t_n → t_n + h is accepted; ``err_n`` is the controller's norm (eq. (21)) of the
    embedded error vector, ``raw_n`` its unscaled Euclidean norm ‖ŷ − y‖.

    Returns
    -------
    t : (n,) end times of the steps; err : (n,) scaled estimates; raw : (n,) unscaled estimates.
    """
    n = round(t_end / h)
    if n < 1 or abs(n * h - t_end) > 1e-9 * t_end:
        raise ValueError(f"t_end = {t_end:g} must be a whole number of steps h = {h:g}")
    if not method_entry(method).adaptive:
        raise ValueError(f"method {method!r} has no embedded error estimate; use 'hedop5'")
    sol = integrate(problem.rod, method, MechanicalState(problem.q0, problem.v0), (0.0, t_end),
                    controller=ConstantStep(h, rtol=rtol, atol=atol), save=SaveAt(store=False), diagnostics=False)
    if sol.status != "ok":
        raise ValueError(f"{problem.name}: {sol.message}")
    rows = sol.accepted.copy()
    rows[0] = False  # the initial record is not a step
    ts, err, raw = sol.steps["t"][rows], sol.steps["err"][rows], sol.steps["err_raw"][rows]
    return ts, err, raw


def adaptive_history(
    problem: RodProblem, t_end: float, *, rtol: float = RTOL, atol: float = ATOL, save_every: float | None = None,
    max_steps: int = 1_000_000,
) -> dict[str, FloatArray]:
    """Adaptive HEDOP5 run: per accepted step t, h, err; at save points t_save and |tip − start node|.

    Seed 004 Fig. 11 (both cases) and Fig. 12 (roll-up, two bending stiffnesses).
    """
    sol = integrate(problem.rod, "hedop5", MechanicalState(problem.q0, problem.v0), (0.0, t_end),
                    controller=AdaptiveStep(rtol=rtol, atol=atol),
                    save=SaveAt(every=save_every) if save_every is not None else None, max_steps=max_steps)
    if sol.status != "ok":
        raise ValueError(f"{problem.name}: adaptive HEDOP5 stopped: {sol.message}")
    acc = np.asarray(sol.steps["accepted"]) > 0
    acc[0] = False  # the initial record is not a step
    x = positions(problem, sol.q)
    return {
        "t": sol.steps["t"][acc], "h": sol.steps["h"][acc], "err": sol.steps["err"][acc],
        "t_save": np.asarray(sol.t), "gap": np.linalg.norm(x[:, -1] - x[:, 0], axis=-1),
        "n_rejected": np.array(int((~acc[1:]).sum())), "wall_time_s": np.array(sol.stats["wall_time"]),
    }
