"""Exponential time differencing in Fourier coefficients: ETD(3,5) with its embedded estimate (issue 35 item
1).

For a ``SpectralPoissonSystem`` y' = SAy + S∇U(y) the linear part is the diagonal symbol λ of SA on the
coefficients v = ``to_spectral(y)``, and N̂(v) = σ · to_spectral(∇U(from_spectral(v))) (one transform pair).
Whalen, Brio & Moloney's ETD(3,5) (J. Comput. Phys. 280 (2015) 579, Table 2; the ψ₂ coefficient of a₇₃ is
−467, not the printed −497, as rkstiff notes) with ψ_r(z) = r! φ_r(z) and nodes c = (0, ¼, ¼, ½, ¾, 1, 1):

    k₂ = e^{hλ/4}v + a₂₁N₁,   k₃ = e^{hλ/4}v + a₃₁N₁ + a₃₂N₂,   k₄ = e^{hλ/2}v + a₄₁N₁ + a₄₃N₃,
    k₅ = e^{3hλ/4}v + a₅₁N₁ + a₅₂(N₂ − N₃) + a₅₄N₄,
    k₆ = e^{hλ}v + a₆₁N₁ + a₆₂(N₂ − 3N₄/2) + a₆₃N₃ + a₆₅N₅,
    v₁ = e^{hλ}v + a₇₁N₁ + a₇₃N₃ + a₇₄N₄ + a₇₅N₅ + a₇₆N₆          (order 5),
    err = a₇₅(−N₁ + 4N₃ − 6N₄ + 4N₅ − N₆)                          (v₁ minus the order-3 embedding),

N_i = N̂(k_i), six evaluations a step. Classical order 5; on stiff problems its order drops (exponential RK
stiff order conditions, Hochbruck & Ostermann, Acta Numerica 19 (2010)): measured 4.0–4.3 on the NLS soliton
of tests/test_orders.py (registered order 4), 4.8 on the Akhmediev breather. Explicit: no stage solve, so no
step cap from a fixed point. It is not a Poisson map (neither H nor the mass is kept exactly); what makes it
the robust default is that for imaginary λ every coefficient a_ij(hλ) is bounded by O(h) uniformly in λ
(|ψ_r(iy)| ≤ 1), so a stiff high mode is never amplified by the linear part, and under ``AdaptiveStep`` the
embedded estimate keeps the nonlinear part resolved (``error_order = 3``, the embedding's order). φ_r by
``lgbeam.discretisations._phi`` (recursion for |z| ≥ 1, Taylor series below: no cancellation at small hλ).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from lgbeam._typing import Array, FloatArray
from lgbeam.integrators.base import Step
from lgbeam.integrators.poisson.base import PoissonMethod
from lgbeam.integrators.poisson.projection import project as project_onto
from lgbeam.systems import HasL2Mass, HasSpectralInvariants, SpectralPoissonSystem, supports

_SMALL = 1.0  # |z| below this: Taylor series (the recursion's cancellation grows like |z|^{−r})
_TERMS = 18  # Taylor terms of φ_r, r ≤ 3, for |z| < 1: the first omitted one is below 1/21! < 2e-20
_TAYLOR = {r: np.array([1.0 / math.factorial(j + r) for j in range(_TERMS)]) for r in (2, 3)}


def _phis(z: Array, r_max: int) -> tuple[Array, list[Array]]:
    """(e^z, [φ₁(z), …, φ_{r_max}(z)]), r_max ∈ {2, 3}: the recursion φ_{r+1} = (φ_r − 1/r!)/z where |z| ≥ 1;
    below, φ_{r_max} by its Taylor series Σ_j z^j/(j + r_max)! and the lower ones by the stable backward
    recursion φ_r = 1/r! + z φ_{r+1}, on those entries only. (The shared ``_phi.phi`` evaluates both branches
    on the whole array for every r: 80 % of an adaptive step's time, since h changes every step.)"""
    e = np.exp(z)
    big = np.abs(z) >= _SMALL
    zb = np.where(big, z, 1.0)
    out: list[Array] = []
    prev, fact = e, 1.0
    for r in range(1, r_max + 1):
        prev = (prev - 1.0 / fact) / zb
        fact *= r
        out.append(prev)
    if not big.all():
        small = ~big
        zs = z[small]
        top = np.zeros(zs.shape, dtype=complex)
        for c in _TAYLOR[r_max][::-1]:
            top = top * zs + c
        low = top
        out[r_max - 1] = np.array(out[r_max - 1], dtype=complex)
        out[r_max - 1][small] = top
        for r in range(r_max - 1, 0, -1):
            low = 1.0 / math.factorial(r) + zs * low
            out[r - 1] = np.array(out[r - 1], dtype=complex)
            out[r - 1][small] = low
    return e, out


def etd35_coefficients(h: float, lam: Array) -> dict[str, Array]:
    """The exponentials and a_ij of ETD(3,5) for the step h on the symbol λ (module docstring)."""
    z = h * np.asarray(lam, dtype=complex)
    psi, exps = {}, {}
    for frac, name in ((0.25, "14"), (0.5, "12"), (0.75, "34"), (1.0, "1")):
        e, ph = _phis(frac * z, 3 if name == "1" else 2)
        exps[name] = e
        psi["1_" + name] = h * ph[0]
        psi["2_" + name] = 2.0 * h * ph[1]
        if name == "1":
            psi["3_1"] = 6.0 * h * ph[2]
    p11, p21, p31 = psi["1_1"], psi["2_1"], psi["3_1"]
    return {
        "e14": exps["14"],
        "e12": exps["12"],
        "e34": exps["34"],
        "e1": exps["1"],
        "a21": psi["1_14"] / 4.0,
        "a31": (psi["1_14"] - psi["2_14"] / 2.0) / 4.0,
        "a32": psi["2_14"] / 8.0,
        "a41": (psi["1_12"] - psi["2_12"]) / 2.0,
        "a43": psi["2_12"] / 2.0,
        "a51": 3.0 * (psi["1_34"] - 0.75 * psi["2_34"]) / 4.0,
        "a52": -3.0 * psi["1_34"] / 8.0,
        "a54": 9.0 * psi["2_34"] / 16.0,
        "a61": (-77.0 * p11 + 59.0 * p21) / 42.0,
        "a62": 8.0 * p11 / 7.0,
        "a63": (111.0 * p11 - 87.0 * p21) / 28.0,
        "a65": (-47.0 * p11 + 143.0 * p21) / 84.0,
        "a71": 7.0 * (257.0 * p11 - 497.0 * p21 + 270.0 * p31) / 2700.0,
        "a73": (1097.0 * p11 - 467.0 * p21 - 150.0 * p31) / 1350.0,
        "a74": 2.0 * (-49.0 * p11 + 199.0 * p21 - 135.0 * p31) / 225.0,
        "a75": (-313.0 * p11 + 883.0 * p21 - 90.0 * p31) / 1350.0,
        "a76": (509.0 * p11 - 2129.0 * p21 + 1830.0 * p31) / 2700.0,
    }


@runtime_checkable
class HasSpectralNonlinear(Protocol):
    """Optional fused capability of a ``SpectralPoissonSystem`` (``KdV``): N̂ = σ · F[∇U(F⁻¹v)] in one transform
    pair (bitwise the generic form), N̂ of a nodal state in one transform, and ½⟨y, Ay⟩ from the coefficients
    (Parseval, no transform)."""

    def spectral_nonlinear(self, v: Array) -> Array: ...

    def spectral_nonlinear_nodal(self, y: Array) -> Array: ...

    def spectral_quadratic(self, v: Array) -> float: ...

    def potential(self, y: Array) -> float: ...


class _EtdRun:
    """The run's cache: the coefficients of the last h and the last state with its Fourier coefficients."""

    __slots__ = ("coef", "fused", "h", "system", "target", "v", "y")

    def __init__(self) -> None:
        self.h = float("nan")
        self.coef: dict[str, Array] = {}
        self.system: object = None  # the system, state and its coefficients of the last step (by identity)
        self.y: Array | None = None
        self.v: Array | None = None
        self.fused: HasSpectralNonlinear | None = None  # ``system`` when it has the fused capability
        self.target: dict[str, float] = {}  # with ``project``: the integrals' values to keep


@dataclass(frozen=True)
class SpectralETD35(PoissonMethod[SpectralPoissonSystem]):
    """ETD(3,5) of Whalen, Brio & Moloney in Fourier coefficients, order 5 (4 when stiff), embedded order
    3."""

    name: str = "etd35"
    order: int = 4  # classical order 5; observed 4.0–4.3 on the stiff NLS soliton of tests/test_orders.py
    error_order: ClassVar[int | None] = 3
    step_hold: ClassVar[float] = 1.25
    """Under ``AdaptiveStep`` an accepted step keeps h unless the controller would grow it by more than 1.25×
    (rkstiff's ``incr_f``; h shrinks by rejections): the φ-coefficients are recomputed only when h changes,
    which otherwise costs about two steps' transforms."""
    system_type: ClassVar[type] = SpectralPoissonSystem
    project: bool = False
    """Project every step onto the level set of the system's first integrals (energy, mass, momentum;
    ``lgbeam.integrators.poisson.projection``): they stay at their initial values to round-off on any
    horizon, at three more transforms a step; needs ``HasSpectralInvariants`` (NLS, KdV)."""

    def init(self, system: SpectralPoissonSystem, t0: float, y0: Array) -> tuple[Array, _EtdRun]:
        return np.array(y0, copy=True), self._start(system, y0)

    def _start(self, system: SpectralPoissonSystem, y: Array) -> _EtdRun:
        run = _EtdRun()
        if self.project:
            if not supports(system, HasSpectralInvariants):
                raise ValueError(f"etd35 with project = true needs a system with spectral invariants (NLS, "
                                 f"KdV); {type(system).__name__} has none: set project = false")
            run.target = system.spectral_invariants(y, system.to_spectral(y))
        return run

    def checkpoint(self, cache: _EtdRun) -> None:
        """The run cache as data (``HasCheckpoint``): nothing; the φ-coefficients and the state's Fourier
        coefficients are rebuilt by the resumed step (bit-for-bit the same values)."""

    def restore(self, system: SpectralPoissonSystem, y: Array, data: None) -> _EtdRun:
        return self._start(system, y)  # with ``project``: the integrals' values at the checkpoint

    def _coefficients(self, run: _EtdRun, system: SpectralPoissonSystem, h: float) -> dict[str, Array]:
        if run.h != h or run.system is not system or not run.coef:
            run.coef, run.h = etd35_coefficients(h, system.spectral_symbols()[0]), h
        return run.coef

    @staticmethod
    def _evaluations(system: SpectralPoissonSystem, run: _EtdRun) -> tuple[Callable[[Array], Array],
                                                                               Callable[[Array], Array]]:
        """(N̂ of coefficients, N̂ of a nodal state): the system's fused forms where it has them."""
        if run.system is not system:
            run.fused = system if supports(system, HasSpectralNonlinear) else None
        if run.fused is not None:
            return run.fused.spectral_nonlinear, run.fused.spectral_nonlinear_nodal
        sigma = system.spectral_symbols()[1]
        to_s, from_s, grad = system.to_spectral, system.from_spectral, system.grad_potential
        return (lambda v: sigma * to_s(grad(from_s(v)))), (lambda y: sigma * to_s(grad(y)))

    def step(
        self, system: SpectralPoissonSystem, t: float, h: float, y: Array, run: _EtdRun
    ) -> Step[Array, _EtdRun]:
        a = self._coefficients(run, system, h)
        N, N_nodal = self._evaluations(system, run)
        from_s = system.from_spectral
        v = run.v if (run.v is not None and y is run.y and system is run.system) else system.to_spectral(y)
        n1 = N_nodal(y)
        e14v = a["e14"] * v
        n2 = N(e14v + a["a21"] * n1)
        n3 = N(e14v + a["a31"] * n1 + a["a32"] * n2)
        n4 = N(a["e12"] * v + a["a41"] * n1 + a["a43"] * n3)
        n5 = N(a["e34"] * v + a["a51"] * n1 + a["a52"] * (n2 - n3) + a["a54"] * n4)
        e1v = a["e1"] * v
        n6 = N(e1v + a["a61"] * n1 + a["a62"] * (n2 - 1.5 * n4) + a["a63"] * n3 + a["a65"] * n5)
        v1 = e1v + a["a71"] * n1 + a["a73"] * n3 + a["a74"] * n4 + a["a75"] * n5 + a["a76"] * n6
        y1 = from_s(v1)
        err = from_s(a["a75"] * (4.0 * (n3 + n5) - n1 - 6.0 * n4 - n6))
        if run.target:
            assert supports(system, HasSpectralInvariants)
            y1, v1, _ = project_onto(system, y1, v1, run.target)
        run.system, run.y, run.v = system, y1, v1
        # Step.error is declared FloatArray, but a complex-form NLS state gives a complex estimate: the
        # controllers measure it by |error| (controllers._scaled_rms), as they should
        mag = np.maximum(np.abs(y), np.abs(y1))
        return Step(y1, run, error=err, magnitude=mag, iterations=6)  # type: ignore[arg-type]

    def blowup_invariants(self, system: SpectralPoissonSystem, t: float, y: Array, cache: object
                          ) -> dict[str, float]:
        """As ``PoissonMethod.blowup_invariants`` (H and its scale, the mass), with ½⟨y, Ay⟩ from the step's
        own Fourier coefficients where the system can (``HasSpectralNonlinear.spectral_quadratic``): the
        check's transform pair saved, two of the step's fifteen on KdV; equal to the nodal H to round-off."""
        run = cache
        if not (isinstance(run, _EtdRun) and run.fused is not None and y is run.y and run.v is not None
                and system is run.system):
            return super().blowup_invariants(system, t, y, cache)
        quad, pot = run.fused.spectral_quadratic(run.v), float(run.fused.potential(y))
        out = {"energy": quad + pot, "energy_scale": abs(quad) + abs(pot)}
        if supports(system, HasL2Mass):
            out["mass"] = float(system.l2_mass(y))
        return out

    def initial_step(self, system: SpectralPoissonSystem, t0: float, y0: Array, cache: _EtdRun,
                     rtol: float | FloatArray, atol: float | FloatArray, h_max: float) -> float:
        """A trial step h = min(0.01, h_max), rescaled once by its own estimate (err ~ h⁴)."""
        h = min(0.01, h_max)
        trial = self.step(system, t0, h, y0, cache)
        assert trial.error is not None and trial.magnitude is not None
        scale = atol + rtol * trial.magnitude
        err = float(np.sqrt(np.mean((np.abs(trial.error) / scale) ** 2)))
        return float(min(h_max, h * 0.8 * max(err, 1e-10) ** (-1.0 / 4.0)))


_SUMMARY = (
    "ETD(3,5) in Fourier space: order 5 (4 observed on stiff NLS) with an embedded order-3 estimate, "
    "explicit, 6 evaluations a step (Whalen, Brio & Moloney 2015); the recommended default for smooth "
    "NLS/KdV runs (issue 35)"
)
ENTRY = ("etd35", "poisson", lambda project=False: SpectralETD35(project=bool(project)), _SUMMARY, ("project",))

__all__ = ["ENTRY", "SpectralETD35", "etd35_coefficients"]
