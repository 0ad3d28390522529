"""Geometric exponential integrators for y' = S(Ay + ∇U(y)) (seed 003 ch. 2).

Symbols: E(t) = e^{tSA} = ``system.phi(0, t, ·)``, T(h) = ∫₀ʰ e^{τSA} dτ = h φ₁(hSA) =
``h * system.phi(1, h, ·)``, f(y) = S∇U(y).

- Exponential midpoint (2.7), implemented in the stage form Q = E(h/2) y₀ + (h/2) f(Q),
  y₁ = E(h/2)(2Q − E(h/2) y₀) (equivalent: put Q = (E(h/2)y₀ + E(−h/2)y₁)/2 in (2.7)).
- DISEX (2.10) as the composition of exponential midpoint steps b_i h (Theorem 13), plus the tableau
  form (2.10) for cross-checking.
- Energy-preserving exponential (2.14): y₁ = E(h) y₀ + T(h) S ∇̄U(y₀, y₁).
- Exponential Euler (2.4): y₁ = E(h) y₀ + T(h) f(y₀).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import numpy as np

from lgbeam._typing import Array
from lgbeam.integrators.base import Step
from lgbeam.integrators.poisson.base import PoissonMethod, SysT, nonlinear_field, solved, stage_map
from lgbeam.integrators.poisson.coefficients import DISEX6, DisexCoefficients
from lgbeam.integrators.poisson.solver import FixedPoint
from lgbeam.integrators.poisson.stability import warn_above_stable_step
from lgbeam.integrators.poisson.stage import check_stage_mode, check_stage_system, solve_stage
from lgbeam.systems import (
    DiscreteGradientPoissonSystem,
    HasDiscreteGradient,
    HasFusedPhiS,
    SemilinearPoissonSystem,
    supports,
)

logger = logging.getLogger(__name__)

PREDICTORS = {"none": -1, "previous": 0, "linear": 1, "quadratic": 2, "cubic": 3}
"""Initial guesses of the fixed-point solves (opt-in; ``"none"`` is the default of Tables 2.3/2.4).

- ``"none"``: the stage starts at its linear part, Q⁰ = E(b_i h/2) Z_{i−1} (energy-exp: y₁⁰ = E(h) y₀).
- ``"previous"``, ``"linear"``, ``"quadratic"``, ``"cubic"``: Q⁰ = E(b_i h/2) Z_{i−1} + D̃_i, where
  D̃_i extrapolates (polynomial degree 0, 1, 2, 3 in t) the same stage's converged nonlinear increment
  D_i = Q_i − E(b_i h/2) Z_{i−1} = (b_i h/2) f(Q_i) over the previous 1, 2, 3, 4 steps of the run.
  Starting error O(h^{p+2}) instead of O(h) (p the degree) for a smooth solution.

A predictor only moves the starting point: the stopping rule and the fixed point are unchanged, so
results differ from ``"none"`` by at most the solver tolerance. The history is used only when the
step continues the previous one (same system, the state passed in is the object the previous step
returned) with the same h; with a new h the previous increments are rescaled by h/h_prev (degree 0);
without history the step starts as ``"none"``.
"""

_BINOMIAL = {0: (1.0,), 1: (2.0, -1.0), 2: (3.0, -3.0, 1.0), 3: (4.0, -6.0, 4.0, -1.0)}


class _StageMemory:
    """History of the stages' nonlinear increments over the last steps (for the opt-in predictors).

    ``slots[j]`` (j = 0 newest) holds the s stage increments of a past step as one (s, n) array, so
    that a prediction costs 2p + 1 array operations a step, whatever s.
    """

    __slots__ = ("hs", "slots", "system", "warned", "y")

    def __init__(self) -> None:
        self.system: object = None  # the system and the state of the last step (compared by identity)
        self.y: Array | None = None
        self.hs: list[float] = []
        self.slots: list[Array] = []
        self.warned = False  # the stable-step check of the run's first step is done (``stability``)

    def predict(self, degree: int, system: object, h: float, y: Array) -> Array | None:
        """Predicted increments, shape (s, n), or None (no predictor, or no continuing history)."""
        if degree < 0 or not self.slots or y is not self.y or system is not self.system:
            return None
        if h != self.hs[0]:
            return (h / self.hs[0]) * self.slots[0]
        p = 0
        while p < min(degree, len(self.hs) - 1) and self.hs[p + 1] == h:
            p += 1
        if p == 0:
            return self.slots[0]
        c = _BINOMIAL[p]
        acc = c[0] * self.slots[0]
        for ck, slot in zip(c[1:], self.slots[1 : p + 1]):
            acc += ck * slot
        return acc

    def buffer(self, degree: int, like: Array, stages: int) -> Array:
        """An (s, n) array for this step's increments: the oldest slot when ``remember`` is about to
        drop it (never the newest one, which a prediction may still be reading), else a new array."""
        if len(self.slots) == degree + 1 >= 2 and self.slots[-1].shape == (stages, *like.shape) \
                and self.slots[-1].dtype == like.dtype:
            self.hs.pop()
            return self.slots.pop()
        return np.empty((stages, *like.shape), dtype=like.dtype)

    def remember(self, degree: int, system: object, h: float, y_out: Array, increments: Array) -> None:
        if system is not self.system:
            self.hs, self.slots = [], []
        self.hs = [h, *self.hs[:degree]]
        self.slots = [increments, *self.slots[:degree]]
        self.system, self.y = system, y_out


class _RunFlags(Protocol):
    """What the checkpoint of a predicting method's run cache keeps (``_StageMemory``, the spectral
    ``_Run``)."""

    warned: bool


class _Predicting(PoissonMethod[SysT]):
    """A method with the opt-in ``predictor``: its stage history is the run's cache (``init``)."""

    predictor: str

    def __post_init__(self) -> None:
        if self.predictor not in PREDICTORS:
            raise ValueError(f"unknown predictor {self.predictor!r}; choose one of {', '.join(PREDICTORS)}")

    def new_memory(self) -> _StageMemory | None:
        """The stage history of a new run, None without a predictor."""
        return _StageMemory() if PREDICTORS[self.predictor] >= 0 else None

    def init(self, system: SysT, t0: float, y0: Array) -> tuple[Array, _RunFlags | None]:
        return np.array(y0, copy=True), self.new_memory()

    def checkpoint(self, cache: _RunFlags | None) -> dict[str, bool] | None:
        """The run cache as data (``HasCheckpoint``): only whether the first step's stable-step check ran. The
        predictor history and the last step's coefficients are rebuilt by the resumed steps (they start a
        stage solve, they are not its result: the resumed run agrees to the stage tolerance)."""
        return None if cache is None else {"warned": bool(cache.warned)}

    def restore(self, system: SysT, y: Array, data: dict[str, bool] | None) -> _RunFlags | None:
        _, cache = self.init(system, 0.0, y)
        if cache is not None and data is not None:
            cache.warned = bool(data["warned"])
        return cache


@dataclass(frozen=True)
class ExponentialMidpoint(_Predicting[SemilinearPoissonSystem]):
    """Exponential midpoint rule (seed 003 eq. (2.7)); a Poisson map (Theorem 12), order 2.

    y₁ = e^{hSA} y₀ + h e^{hSA/2} f((e^{hSA/2} y₀ + e^{−hSA/2} y₁)/2), solved by fixed-point
    iteration on the stage Q (iteration matrix (h/2)∇f, independent of the stiffness of A).
    ``predictor``: initial guess of the stage (``PREDICTORS``; default ``"none"``). ``stage``: the stage
    solver (``lgbeam.integrators.poisson.stage``; default ``"fixed-point"``, "newton", "exact", "auto").
    """

    solver: FixedPoint = field(default_factory=FixedPoint)
    name: str = "exp-midpoint"
    order: int = 2
    predictor: str = "none"
    stage: str = "fixed-point"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_stage_mode(self.stage)

    def init(self, system: SemilinearPoissonSystem, t0: float, y0: Array) -> tuple[Array, _StageMemory]:
        check_stage_system(self.stage, system, self.name)
        # always a memory: it also carries the first-step check
        return np.array(y0, copy=True), _StageMemory()

    def step(self, system: SemilinearPoissonSystem, t: float, h: float, y: Array,
             memory: _StageMemory) -> Step[Array, _StageMemory]:
        if not memory.warned:
            memory.warned = True
            warn_above_stable_step(self.name, system, y, h, (1.0,))
        ey = system.phi(0, 0.5 * h, y)
        degree = PREDICTORS[self.predictor]
        pred = memory.predict(degree, system, h, y)
        x0 = ey if pred is None else ey + pred[0]
        if self.stage == "fixed-point":  # the default: Tables 2.3/2.4 (bit for bit)
            res = self.solver.solve(stage_map(system, ey, 0.5 * h), x0)
        else:
            res = solve_stage(self.stage, self.solver, system, ey, 0.5 * h, x0)
        y1 = system.phi(0, 0.5 * h, 2.0 * res.x - ey)
        if degree >= 0 and res.converged:
            incs = memory.buffer(degree, ey, 1)
            np.subtract(res.x, ey, out=incs[0])
            memory.remember(degree, system, h, y1, incs)
        return solved(y1, res, memory, stage=self.stage)


@dataclass(frozen=True)
class Disex(_Predicting[SemilinearPoissonSystem]):
    """DISEX: composition of exponential midpoint steps with sizes b₁h, …, b_s h (seed 003 Thm 13).

    Default coefficients: the 6-stage order-5 set (``DISEX6``). Iterations are summed over the
    sub-steps (as in Tables 2.3/2.4). ``predictor``: initial guesses of the stages (``PREDICTORS``);
    ``stage``: the stage solver (as ``ExponentialMidpoint``).
    """

    coefficients: DisexCoefficients = DISEX6
    solver: FixedPoint = field(default_factory=FixedPoint)
    name: str = "disex"
    predictor: str = "none"
    stage: str = "fixed-point"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_stage_mode(self.stage)

    def init(self, system: SemilinearPoissonSystem, t0: float, y0: Array) -> tuple[Array, _StageMemory]:
        check_stage_system(self.stage, system, self.name)
        # always a memory: it also carries the first-step check
        return np.array(y0, copy=True), _StageMemory()

    @property
    def order(self) -> int:
        return self.coefficients.order

    def step(self, system: SemilinearPoissonSystem, t: float, h: float, y: Array,
             memory: _StageMemory) -> Step[Array, _StageMemory]:
        """Sub-steps Z_i = E(b_i h/2)(2Q_i − E(b_i h/2) Z_{i−1}), Q_i = E(b_i h/2)Z_{i−1} + (b_i h/2) f(Q_i).

        The closing half-flow of sub-step i and the opening half-flow of sub-step i+1 are fused into
        one transform E((b_i + b_{i+1})h/2) (exact: the flows commute), so a step costs s + 1
        transforms plus the iterations instead of 2s.
        """
        b = self.coefficients.b
        if not memory.warned:
            memory.warned = True
            warn_above_stable_step(self.name, system, y, h, b)
        degree = PREDICTORS[self.predictor]
        pred = memory.predict(degree, system, h, y)
        its = 0
        ey = system.phi(0, 0.5 * b[0] * h, y)
        incs = memory.buffer(degree, ey, len(b)) if degree >= 0 else None
        for i, bi in enumerate(b):
            x0 = ey if pred is None else ey + pred[i]
            if self.stage == "fixed-point":  # the default: Tables 2.3/2.4 (bit for bit)
                res = self.solver.solve(stage_map(system, ey, 0.5 * bi * h), x0)
            else:
                res = solve_stage(self.stage, self.solver, system, ey, 0.5 * bi * h, x0)
            its += res.iterations
            w = 2.0 * res.x - ey
            if not res.converged:
                return solved(system.phi(0, 0.5 * bi * h, w), res, memory, its, stage=self.stage)
            if incs is not None:
                np.subtract(res.x, ey, out=incs[i])
            nxt = b[i + 1] if i + 1 < len(b) else 0.0
            ey = system.phi(0, 0.5 * (bi + nxt) * h, w)
        if incs is not None:
            memory.remember(degree, system, h, ey, incs)
        return Step(ey, memory, iterations=its)


def disex_tableau_step(
    system: SemilinearPoissonSystem,
    h: float,
    y: Array,
    coefficients: DisexCoefficients = DISEX6,
    solver: FixedPoint | None = None,
) -> Step[Array, None]:
    """One DISEX step in the exponential-tableau form (seed 003 eq. (2.10), Table 2.2).

    Q_i = e^{hc_iSA} y + h Σ_{j<i} b_j e^{h(c_i−c_j)SA} f(Q_j) + (h b_i/2) f(Q_i),
    y₁  = e^{hSA} y + h Σ_i b_i e^{h(1−c_i)SA} f(Q_i).
    Used to cross-check Theorem 13 (equivalence with the composition ``Disex``).
    """
    solver = solver or FixedPoint()
    b, c = coefficients.b_array, coefficients.c
    F: list[Array] = []
    its = 0
    for i in range(b.size):
        base = system.phi(0, h * c[i], y)
        for j in range(i):
            base = base + h * b[j] * system.phi(0, h * (c[i] - c[j]), F[j])
        def G(Q: Array, base: Array = base, bi: float = b[i]) -> Array:
            return base + 0.5 * h * bi * nonlinear_field(system, Q)

        res = solver.solve(G, base)
        its += res.iterations
        if not res.converged:
            return solved(res.x, res, None, its)
        F.append(nonlinear_field(system, res.x))
    y1 = system.phi(0, h, y)
    for i in range(b.size):
        y1 = y1 + h * b[i] * system.phi(0, h * (1.0 - c[i]), F[i])
    return Step(y1, None, iterations=its)


@dataclass(frozen=True)
class EnergyPreservingExponential(_Predicting[DiscreteGradientPoissonSystem]):
    """Energy-preserving exponential integrator (seed 003 eq. (2.14), Theorem 14); order 2.

    y₁ = e^{hSA} y₀ + (∫₀ʰ e^{τSA} dτ) S ∇̄U(y₀, y₁); preserves H = ½⟨y, Ay⟩ + U exactly (up to the
    solver tolerance) for any symmetric or non-symmetric discrete gradient ∇̄U.
    ``predictor``: initial guess of y₁ (``PREDICTORS``; default ``"none"``: y₁⁰ = E(h) y₀).
    """

    solver: FixedPoint = field(default_factory=FixedPoint)
    name: str = "energy-exp"
    order: int = 2
    predictor: str = "none"
    requires: ClassVar[tuple[type, ...]] = (HasDiscreteGradient,)

    def step(self, system: DiscreteGradientPoissonSystem, t: float, h: float, y: Array,
             memory: _StageMemory | None) -> Step[Array, _StageMemory | None]:
        ey = system.phi(0, h, y)
        dg = system.discrete_gradient
        degree = PREDICTORS[self.predictor]
        pred = memory.predict(degree, system, h, y) if memory is not None else None
        x0 = ey if pred is None else ey + pred[0]
        if supports(system, HasFusedPhiS):  # φ_k(hSA) S y in one transform
            fused = system.phi_S
            res = self.solver.solve(lambda y1: ey + h * fused(1, h, dg(y, y1)), x0)
        else:
            res = self.solver.solve(lambda y1: ey + h * system.phi(1, h, system.apply_S(dg(y, y1))), x0)
        if memory is not None and res.converged:
            incs = memory.buffer(degree, ey, 1)
            np.subtract(res.x, ey, out=incs[0])
            memory.remember(degree, system, h, res.x, incs)
        return solved(res.x, res, memory, stage=None)


@dataclass(frozen=True)
class ExponentialEuler(PoissonMethod[SemilinearPoissonSystem]):
    """Exponential Euler (seed 003 eq. (2.4)): y₁ = e^{hSA} y₀ + h φ₁(hSA) f(y₀); explicit, order 1."""

    name: str = "exp-euler"
    order: int = 1

    def step(self, system: SemilinearPoissonSystem, t: float, h: float, y: Array,
             cache: None) -> Step[Array, None]:
        return Step(
            system.phi(0, h, y) + h * system.phi(1, h, nonlinear_field(system, y)), None, evaluations=1
        )


def lawson4_step(system: SemilinearPoissonSystem, h: float, y: Array) -> Array:
    """Explicit Lawson RK4 (classical RK4 on the mollified system (2.2)); predictor for quasi-Newton.

    References: Lawson, SIAM J. Numer. Anal. 4 (1967); seed 003 eq. (2.2).
    """
    E = lambda t, v: system.phi(0, t, v)
    f = lambda v: nonlinear_field(system, v)
    k1 = f(y)
    k2 = E(-0.5 * h, f(E(0.5 * h, y + 0.5 * h * k1)))
    k3 = E(-0.5 * h, f(E(0.5 * h, y + 0.5 * h * k2)))
    k4 = E(-h, f(E(h, y + h * k3)))
    return E(h, y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4))


__all__ = ["PREDICTORS", "Disex", "EnergyPreservingExponential", "ExponentialEuler", "ExponentialMidpoint",
           "disex_tableau_step", "lawson4_step"]
