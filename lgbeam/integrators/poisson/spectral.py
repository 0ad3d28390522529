"""Composition methods iterated in Fourier coefficients (issue 18 items 2 and 3).

For a ``SpectralPoissonSystem`` the linear flow e^{τSA} is a diagonal multiply, v ↦ e^{τλ} v, in the
coefficients v = ``to_spectral(y)``; only the nonlinearity needs the grid. Symbols: λ (SA), σ (S),
f = S∇U, N̂(v) = σ · to_spectral(∇U(from_spectral(v))) (one transform pair), c_i = γ_i h/2.

- ``SpectralComposition``: the symmetric composition of exponential midpoint steps γ_1 h, …, γ_s h
  (seed 003 Theorem 13 with b = γ; ``compositions.COMPOSITIONS``), a Poisson map of order p(γ):
      Q̂_i = e^{c_iλ} Ẑ_{i−1} + c_i N̂(Q̂_i),   Ẑ_i = e^{c_iλ}(2Q̂_i − e^{c_iλ}Ẑ_{i−1});
  the closing and the next opening half-flow are one multiply. The stage is solved by ``stage``:
  "exact" (``HasExactStage``, NLS: one transform pair a stage, no iteration), "fixed-point" (in Fourier
  coefficients: one pair an iteration, no transform for the exponentials), "newton" (Newton–Krylov on the
  grid, ``stage.NewtonKrylov``), or "auto" (exact if the system has it; else the fixed point where the
  estimated contraction |c_i| · ``field_lipschitz(y)`` < ½, Newton–Krylov otherwise or if it fails).
- ``SpectralEnergyComposition``: the same composition of the energy-preserving exponential integrator
  (seed 003 eq. (2.14), symmetric for a symmetric discrete gradient), sub-step τ = γ_i h:
      ŷ₁ = e^{τλ} ŷ₀ + τ φ₁(τλ) σ · to_spectral(∇̄U(y₀, y₁)),
  solved by fixed-point iteration in y₁ (one transform pair an iteration). Each sub-step preserves
  H = ½⟨y, Ay⟩ + U exactly (Theorem 14), so the composition does; with Suzuki's γ it has order 4.

The stopping test of the fixed point is applied to the normalised coefficients (``norm="forward"``),
which are bounded by max|y|. References: Suzuki, Phys. Lett. A 146 (1990); Yoshida, Phys. Lett. A 150
(1990); McLachlan, SIAM J. Sci. Comput. 16 (1995) (compositions of symmetric methods); Hairer, Lubich &
Wanner (2006) §II.4, §V.3; Li & Wu, SIAM J. Sci. Comput. 38 (2016) A1876 (the exponential AVF method
(2.14) is their eq. (3.3), and composing it raises its order without losing conservation).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, TypeVar

import numpy as np

from lgbeam._typing import Array
from lgbeam.integrators.base import Step
from lgbeam.integrators.poisson.base import solved
from lgbeam.integrators.poisson.coefficients import DISEX6, DisexCoefficients
from lgbeam.integrators.poisson.compositions import SUZUKI4, composition
from lgbeam.integrators.poisson.exponential import PREDICTORS, _Predicting, _StageMemory
from lgbeam.integrators.poisson.solver import FixedPoint, FixedPointResult
from lgbeam.integrators.poisson.stability import warn_above_stable_step
from lgbeam.integrators.poisson.stage import (
    AUTO_CONTRACTION,
    NewtonKrylov,
    check_stage_mode,
    check_stage_system,
)
from lgbeam.systems import (
    HasDiscreteGradient,
    HasExactStage,
    HasStageLinearisation,
    SpectralDiscreteGradientSystem,
    SpectralPoissonSystem,
    supports,
)

logger = logging.getLogger(__name__)

SpecT = TypeVar("SpecT", bound=SpectralPoissonSystem)


def phi1(z: Array) -> Array:
    """φ₁(z) = (e^z − 1)/z; 30-term Taylor series where |z| < 1 (truncation < 1e-32), φ₁(0) = 1."""
    z = np.asarray(z)
    small = np.abs(z) < 1.0
    zs = np.where(small, z, 0.0)
    series = np.zeros_like(zs)
    for k in range(30, 0, -1):  # Horner: Σ z^k/(k+1)!
        series = 1.0 + zs * series / (k + 1)
    safe = np.where(small, 1.0, z)
    return np.where(small, series, np.expm1(safe) / safe)


class _Run:
    """The run's cache: the predictor history, the last state returned with its coefficients (the next step
    then skips one transform) and the multipliers of the last step size."""

    __slots__ = ("h", "memory", "mults", "system", "v", "warned", "y")

    def __init__(self, memory: _StageMemory | None) -> None:
        self.memory = memory
        self.warned = False  # the stable-step check of the run's first step is done (``stability``)
        self.system: object = None  # the system, state and its coefficients of the last step (by identity)
        self.y: Array | None = None
        self.v: Array | None = None
        self.h = float("nan")
        self.mults: tuple[list[Array], list[Array]] | None = None

    def coefficients(self, system: SpectralPoissonSystem, y: Array) -> Array:
        if self.v is not None and y is self.y and system is self.system:
            return self.v
        return system.to_spectral(y)

    def keep(self, system: SpectralPoissonSystem, y: Array, v: Array) -> None:
        self.system, self.y, self.v = system, y, v


class _SpectralMethod(_Predicting[SpecT]):
    """What the two Fourier-space compositions share: a coefficient set (name or data) and the run cache."""

    system_type: ClassVar[type] = SpectralPoissonSystem
    coefficients: DisexCoefficients | str

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "coefficients", composition(self.coefficients))

    @property
    def table(self) -> DisexCoefficients:
        """The coefficient set (``__post_init__`` resolved a name)."""
        assert isinstance(self.coefficients, DisexCoefficients), "resolved by __post_init__"
        return self.coefficients

    @property
    def order(self) -> int:
        return self.table.order

    def init(self, system: SpecT, t0: float, y0: Array) -> tuple[Array, _Run]:
        return np.array(y0, copy=True), _Run(self.new_memory())


@dataclass(frozen=True)
class SpectralComposition(_SpectralMethod[SpectralPoissonSystem]):
    """Composition of exponential midpoint steps in Fourier coefficients (module docstring); a Poisson map.

    ``coefficients``: a name of ``COMPOSITIONS`` or a ``DisexCoefficients``; ``stage``: "auto" (default),
    "exact", "fixed-point", "newton"; ``predictor``: initial guesses of iterated stages (``PREDICTORS``).
    """

    coefficients: DisexCoefficients | str = SUZUKI4
    solver: FixedPoint = field(default_factory=FixedPoint)
    name: str = "exp-suzuki4"
    predictor: str = "none"
    stage: str = "auto"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_stage_mode(self.stage)

    def init(self, system: SpectralPoissonSystem, t0: float, y0: Array) -> tuple[Array, _Run]:
        check_stage_system(self.stage, system, self.name)
        return super().init(system, t0, y0)

    def _multipliers(
        self, run: _Run, system: SpectralPoissonSystem, h: float
    ) -> tuple[list[Array], list[Array]]:
        """e^{c_1λ}, the fused e^{(c_i + c_{i+1})λ} (last: e^{c_sλ}), and c_i σ, for this h."""
        if run.mults is None or run.h != h or run.system is not system:
            lam, sigma = system.spectral_symbols()
            b = self.table.b
            flows = [np.exp(0.5 * b[0] * h * lam)]
            flows += [np.exp(0.5 * (bi + (b[i + 1] if i + 1 < len(b) else 0.0)) * h * lam)
                      for i, bi in enumerate(b)]
            run.mults, run.h = (flows, [0.5 * bi * h * sigma for bi in b]), h
        return run.mults

    def step(
        self, system: SpectralPoissonSystem, t: float, h: float, y: Array, run: _Run
    ) -> Step[Array, _Run]:
        b = self.table.b
        if not run.warned:
            run.warned = True
            warn_above_stable_step(self.name, system, y, h, b)
        flows, cs = self._multipliers(run, system, h)
        memory = run.memory
        degree = PREDICTORS[self.predictor]
        pred = memory.predict(degree, system, h, y) if memory is not None else None
        v = run.coefficients(system, y)
        ey: Array = flows[0] * v
        increment = (
            system.stage_increment
            if self.stage in ("exact", "auto") and supports(system, HasExactStage)
            else None
        )  # the exact stage's Q − base (HasExactStage)
        exact = increment is not None
        lip = system.field_lipschitz(y) if (self.stage == "auto" and not exact
                                            and supports(system, HasStageLinearisation)) else None
        incs = memory.buffer(degree, ey, len(b)) if (memory is not None and not exact) else None
        its = 0
        for i, bi in enumerate(b):
            c = 0.5 * bi * h
            # Q̂ − ẽy from the increment: no transform pair of the state (issue 35 item 2)
            if increment is not None:
                w = ey + 2.0 * system.to_spectral(increment(system.from_spectral(ey), c))
                its += 1
            else:
                res = self._iterate(system, ey, c, cs[i], None if pred is None else pred[i], lip)
                its += res.iterations
                if not res.converged:
                    return solved(system.from_spectral(ey), res, run, its, stage=self.stage)
                if incs is not None:
                    np.subtract(res.x, ey, out=incs[i])
                w = 2.0 * res.x - ey
            ey = flows[i + 1] * w
        y1 = system.from_spectral(ey)
        if memory is not None and incs is not None:
            memory.remember(degree, system, h, y1, incs)
        run.keep(system, y1, ey)
        return Step(y1, run, iterations=its)

    def _iterate(self, system: SpectralPoissonSystem, ey: Array, c: float, c_sigma: Array, pred: Array | None,
                 lip: float | None) -> FixedPointResult:
        """Q̂ = ey + c N̂(Q̂): the fixed point in coefficients, or Newton–Krylov on the grid (module
        docstring)."""
        x0 = ey if pred is None else ey + pred
        newton = self.stage == "newton" or (lip is not None and abs(c) * lip >= AUTO_CONTRACTION)
        if not newton:
            grad, to_s, from_s = system.grad_potential, system.to_spectral, system.from_spectral
            res = self.solver.solve(lambda q: ey + c_sigma * to_s(grad(from_s(q))), x0)
            if res.converged or lip is None:
                return res
            spent = res.iterations
        else:
            spent = 0
        # reached with stage='newton' (check_stage_system) or a Lipschitz bound: both need the capability
        assert supports(system, HasStageLinearisation), "Newton–Krylov stage without HasStageLinearisation"
        nk = NewtonKrylov(tol=self.solver.tol, max_newton=min(self.solver.max_iter, 30))
        out = nk.solve(system, system.from_spectral(ey), c, system.from_spectral(x0 - ey), increment=True)
        # Q̂ = ẽy + F(Q − base): only the O(c) increment goes through the transform (issue 35 item 2)
        return FixedPointResult(ey + system.to_spectral(out.x), spent + out.iterations, out.converged,
                                out.residual, out.reason)


@dataclass(frozen=True)
class SpectralEnergyComposition(_SpectralMethod[SpectralDiscreteGradientSystem]):
    """Composition of energy-preserving exponential steps (module docstring): H exactly, order p(γ).

    Default γ: Suzuki's 5-stage order-4 set (``energy-exp4``). ``predictor``: initial guesses of the
    sub-steps' y₁ (``PREDICTORS``). Solver tolerance 1e-14 by default, as energy-exp: the energy error a
    sub-step leaves is the solver's increment times |∇H|.
    """

    coefficients: DisexCoefficients | str = SUZUKI4
    solver: FixedPoint = field(default_factory=FixedPoint)
    name: str = "energy-exp4"
    predictor: str = "none"
    requires: ClassVar[tuple[type, ...]] = (HasDiscreteGradient,)

    def _multipliers(self, run: _Run, system: SpectralDiscreteGradientSystem,
                     h: float) -> tuple[list[Array], list[Array]]:
        """e^{τ_iλ} and τ_i φ₁(τ_iλ) σ for the sub-steps τ_i = γ_i h."""
        if run.mults is None or run.h != h or run.system is not system:
            lam, sigma = system.spectral_symbols()
            b = self.table.b
            run.mults = (
                [np.exp(bi * h * lam) for bi in b],
                [bi * h * phi1(bi * h * lam) * sigma for bi in b],
            )
            run.h = h
        return run.mults

    def step(self, system: SpectralDiscreteGradientSystem, t: float, h: float, y: Array,
             run: _Run) -> Step[Array, _Run]:
        b = self.table.b
        flows, ts = self._multipliers(run, system, h)
        memory = run.memory
        degree = PREDICTORS[self.predictor]
        pred = memory.predict(degree, system, h, y) if memory is not None else None
        v0, y0 = run.coefficients(system, y), y
        incs = memory.buffer(degree, v0, len(b)) if memory is not None else None
        dg, to_s, from_s = system.discrete_gradient, system.to_spectral, system.from_spectral
        its = 0
        for i in range(len(b)):
            ev = flows[i] * v0
            last: list[Array] = [ev]

            def G(y1: Array, ev: Array = ev, mult: Array = ts[i], y0: Array = y0,
                  last: list[Array] = last) -> Array:
                last[0] = ev + mult * to_s(dg(y0, y1))
                return from_s(last[0])

            res = self.solver.solve(G, from_s(ev if pred is None else ev + pred[i]))
            its += res.iterations
            if not res.converged:
                return solved(y0, res, run, its, stage=None)
            if incs is not None:
                np.subtract(last[0], ev, out=incs[i])
            y0, v0 = res.x, last[0]
        if memory is not None and incs is not None:
            memory.remember(degree, system, h, y0, incs)
        run.keep(system, y0, v0)
        return Step(y0, run, iterations=its)




_Family = type[SpectralComposition] | type[SpectralEnergyComposition]


def _spectral(cls: _Family, coefficients: str | DisexCoefficients, name: str, *, tol: float = 1e-14, max_iter: int = 100,
              **options: Any) -> SpectralComposition | SpectralEnergyComposition:
    return cls(coefficients=coefficients, solver=FixedPoint(tol=tol, max_iter=max_iter), name=name, **options)


def _entry(name: str, cls: _Family, coefficients: str | DisexCoefficients, summary: str,
           options: tuple[str, ...]) -> tuple[Any, ...]:
    return (name, "poisson", partial(_spectral, cls, coefficients, name), summary, options)


_OPTS = ("tol", "max_iter", "predictor", "stage")
ENTRIES: tuple[tuple[Any, ...], ...] = (
    _entry(
        "exp-triple-jump4",
        SpectralComposition,
        "triple-jump4",
        "exponential midpoint composed by the triple jump, order 4, Fourier space (Yoshida 1990)",
        _OPTS,
    ),
    _entry(
        "exp-suzuki4",
        SpectralComposition,
        "suzuki4",
        "exponential midpoint composed by Suzuki's 5 stages, order 4, Fourier space (Suzuki 1990)",
        _OPTS,
    ),
    _entry(
        "exp-yoshida6",
        SpectralComposition,
        "yoshida6",
        "exponential midpoint composed by Yoshida's 7 stages, order 6, Fourier space (Yoshida 1990)",
        _OPTS,
    ),
    _entry(
        "exp-kahan-li6",
        SpectralComposition,
        "kahan-li6",
        "exponential midpoint composed by Kahan–Li's 9 stages, order 6, Fourier space (Kahan & Li 1997)",
        _OPTS,
    ),
    _entry(
        "exp-kahan-li8",
        SpectralComposition,
        "kahan-li8",
        "exponential midpoint composed by Kahan–Li's 17 stages, order 8, Fourier space (Kahan & Li 1997)",
        _OPTS,
    ),
    _entry(
        "exp-disex",
        SpectralComposition,
        DISEX6,  # not symmetric (order 5): not in ``COMPOSITIONS``, whose sets are symmetric
        "DISEX (seed 003 Thm 13, the 6-stage order-5 coefficients) in Fourier space: no transform of the whole "
        "state per sub-step, so no round-off floor (the grid-space disex has one near 1e-11)",
        _OPTS,
    ),
    _entry(
        "energy-exp4",
        SpectralEnergyComposition,
        "suzuki4",
        "energy-preserving exponential composed by Suzuki's 5 stages, order 4, H exactly (issue 18)",
        ("tol", "max_iter", "predictor"),
    ),
)
"""Registry rows (``lgbeam.integrators.registry``): name, family, factory(**options), summary, options."""


__all__ = ["ENTRIES", "SpectralComposition", "SpectralEnergyComposition", "phi1"]
