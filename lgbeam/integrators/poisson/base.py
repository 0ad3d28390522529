"""Shared pieces of the Poisson-system integrators: the method base, the step of a solve, the nonlinear field.

All integrators here are generic over ``lgbeam.systems.SemilinearPoissonSystem``
(y' = S(Ay + ∇U(y)), seed 003 eq. (2.5) with S = J, A = D). They use only ``apply_S``, ``apply_A``,
``grad_potential``, ``phi``, ``hamiltonian``, and the capabilities they declare in ``requires``
(``HasDiscreteGradient``; ``HasJacobian`` for the quasi-Newton baseline only), checked by the driver
before the first step.

Typing: a method is ``PoissonMethod[P]`` with P the protocol its ``init``/``step`` take, the one its
``system_type`` and ``requires`` name at run time (``SemilinearPoissonSystem``, ``SpectralPoissonSystem``, or
the combined ``DiscreteGradientPoissonSystem``, ``JacobianPoissonSystem``, ``SpectralDiscreteGradientSystem``
of ``lgbeam.systems``). An optional capability is used under ``if supports(system, HasX):``, which mypy reads
as a type guard.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from lgbeam._typing import Array
from lgbeam.integrators.base import Status, Step
from lgbeam.integrators.poisson.solver import FixedPointResult
from lgbeam.systems import (
    HasEnergyParts,
    HasFusedField,
    HasL2Mass,
    SemilinearPoissonSystem,
    supports,
)

SysT = TypeVar("SysT", bound=SemilinearPoissonSystem)

BLOWUP_FACTOR = 10.0
"""A Poisson run has blown up when |H| or the L² mass exceeds 10× its initial |value| (the driver's growth
check, statuses ``energy_growth`` / ``mass_growth``): both are invariants of the PDE, which a converging
method keeps to its error, so a tenfold growth is never accuracy loss alone (issue 18 item 5)."""


class PoissonMethod(Generic[SysT]):
    """What the Poisson-system methods share: the protocol they need, fixed steps only (no embedded
    estimate), the flat initial state and the default per-step diagnostics (the Hamiltonian and, where the
    system has ``l2_mass``, the mass: the driver's blow-up check, factor ``BLOWUP_FACTOR``).

    ``SysT`` is the protocol a subclass's ``init``/``step`` take: ``system_type`` at run time
    (``SemilinearPoissonSystem``, or ``SpectralPoissonSystem`` for the Fourier-space methods).
    """

    system_type: ClassVar[type] = SemilinearPoissonSystem
    requires: ClassVar[tuple[type, ...]] = ()
    error_order: ClassVar[int | None] = None
    dense_output: ClassVar[bool] = False
    blowup_factor: ClassVar[float] = BLOWUP_FACTOR

    def init(self, system: SysT, t0: float, y0: Array) -> tuple[Array, Any]:
        return np.array(y0, copy=True), None

    def diagnostics(self, system: SysT, t: float, y: Array, cache: object) -> dict[str, float]:
        return self.blowup_invariants(system, t, y, cache)

    def blowup_invariants(self, system: SysT, t: float, y: Array, cache: object) -> dict[str, float]:
        """The invariants of the driver's always-on blow-up check (also with ``diagnostics=False``; factor
        ``BLOWUP_FACTOR`` against the initial values): H = ½⟨y, Ay⟩ + U (one transform pair on a Fourier grid)
        and, where the system has ``l2_mass``, the mass (O(n)). The energy is the one that catches the
        exponential-midpoint compositions' blow-ups: they keep the quadratic mass to round-off while H grows
        (issue 26; all 25 blow-ups of the review stopped with energy_growth)."""
        out = energy_parts(system, y)
        if supports(system, HasL2Mass):
            out["mass"] = float(system.l2_mass(y))
        return out


def energy_parts(system: SemilinearPoissonSystem, y: Array) -> dict[str, float]:
    """{energy: H, energy_scale: |½⟨y, Ay⟩| + |U(y)|}: H = ½⟨y, Ay⟩ + U and the size of its two parts, the
    scale of the driver's energy check (positive for a state of zero energy, e.g. a focusing NLS plane wave
    whose kinetic and potential parts cancel); a system without ``inner``/``potential`` (``HasEnergyParts``)
    gives H as its own scale."""
    if supports(system, HasEnergyParts):
        quad, pot = 0.5 * float(np.real(system.inner(y, system.apply_A(y)))), float(system.potential(y))
        return {"energy": quad + pot, "energy_scale": abs(quad) + abs(pot)}
    energy = float(system.hamiltonian(y))
    return {"energy": energy, "energy_scale": abs(energy)}


def stage_advice(stage: str | None) -> str:
    """What to change when a stage solve of stage solver ``stage`` (None: a method without the choice)
    failed."""
    if stage == "fixed-point":
        return ("the fixed-point stage solver (integrator.stage = 'fixed-point') did not converge: set "
                "integrator.stage = 'auto' or 'newton' (Newton–Krylov), or a smaller integrator.h")
    if stage in ("auto", "newton"):
        return (f"the stage solver (integrator.stage = {stage!r}, Newton–Krylov where the fixed point cannot "
                "contract) did not converge: use a smaller integrator.h")
    return (
        "this method's fixed point does not contract at this step (it has no integrator.stage choice): use a "
        "smaller integrator.h, or exp-midpoint / disex / exp-suzuki4 with integrator.stage = 'auto'"
    )


def solved(y: Array, res: FixedPointResult, cache: Any = None, iterations: int | None = None,
           stage: str | None = "") -> Step[Array, Any]:
    """The ``Step`` of a nonlinear stage solve ``res`` (a ``FixedPointResult``) that produced ``y``.

    ``stage``: the stage solver that ran (``stage_advice``; "" for the methods outside this module's family,
    whose message stays the bare residual)."""
    its = res.iterations if iterations is None else iterations
    if res.converged:
        return Step(y, cache, iterations=its)
    detail = f"relative increment {res.residual:.3g} after {its} iterations ({res.reason})"
    if stage != "":
        detail = f"{detail}; {stage_advice(stage)}"
    return Step(y, cache, status=Status.SOLVER_FAILED, detail=detail, iterations=its)


def nonlinear_field(system: SemilinearPoissonSystem, y: Array) -> Array:
    """f(y) = S ∇U(y), the non-stiff part (seed 003 eq. (2.5): f = J ∇V)."""
    if supports(system, HasFusedField):
        return system.nonlinear_field(y)
    return system.apply_S(system.grad_potential(y))


def full_field(system: SemilinearPoissonSystem, y: Array) -> Array:
    """F(y) = S(Ay + ∇U(y))."""
    return system.apply_S(system.apply_A(y) + system.grad_potential(y))


def stage_map(system: SemilinearPoissonSystem, base: Array, scale: float) -> Callable[[Array], Array]:
    """The fixed-point map Q ↦ base + scale · f(Q) of an exponential-midpoint stage.

    With the fused capability the sum is formed in place in the fresh array the system returns
    (same values as ``base + scale * f(Q)``: IEEE addition is commutative).
    """
    if not supports(system, HasFusedField):
        return lambda Q: base + scale * system.apply_S(system.grad_potential(Q))
    fused = system.nonlinear_field

    def G(Q: Array) -> Array:
        v = fused(Q, scale)
        return np.add(v, base, out=v)  # v += base (numpy's stubs type no in-place add of an inexact array)

    return G
