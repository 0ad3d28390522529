"""Shared pieces of the Poisson-system integrators: the step record and the nonlinear field.

All integrators here are generic over ``lgbeam.systems.SemilinearPoissonSystem``
(y' = S(Ay + ∇U(y)), seed 003 eq. (2.5) with S = J, A = D). They use only ``apply_S``, ``apply_A``,
``grad_potential``, ``phi``, ``hamiltonian``, ``discrete_gradient`` and — for the quasi-Newton
baseline only — ``jacobian`` (a dense or sparse matrix of the full field).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from lgbeam._typing import Array
from lgbeam.systems import SemilinearPoissonSystem


@runtime_checkable
class HasDiscreteGradient(Protocol):
    """Optional capability: a symmetric discrete gradient ∇̄U(y₀, y₁) of the potential (seed 003 (2.11))."""

    def discrete_gradient(self, y0: Array, y1: Array) -> Array: ...


@runtime_checkable
class HasJacobian(Protocol):
    """Optional capability: the Jacobian of the full field S(A + ∇²U(y)) (quasi-Newton baseline)."""

    def jacobian(self, y: Array) -> Any: ...


@dataclass(frozen=True)
class PoissonStep:
    """One step's outcome: the new state and how the nonlinear solve went."""

    y: Array
    iterations: int = 0
    converged: bool = True
    residual: float = 0.0
    reason: str = ""


@runtime_checkable
class HasFusedField(Protocol):
    """Optional capability: ``nonlinear_field(y, scale=1.0)`` = scale · S∇U(y), fused, a new array.

    Speed only; it must equal ``scale * apply_S(grad_potential(y))`` (our Fourier systems: bitwise).
    """

    def nonlinear_field(self, y: Array, scale: float = 1.0) -> Array: ...


def nonlinear_field(system: SemilinearPoissonSystem, y: Array) -> Array:
    """f(y) = S ∇U(y), the non-stiff part (seed 003 eq. (2.5): f = J ∇V)."""
    fused = getattr(system, "nonlinear_field", None)
    if fused is not None:
        return fused(y)
    return system.apply_S(system.grad_potential(y))


def full_field(system: SemilinearPoissonSystem, y: Array) -> Array:
    """F(y) = S(Ay + ∇U(y))."""
    return system.apply_S(system.apply_A(y) + system.grad_potential(y))


def stage_map(system: SemilinearPoissonSystem, base: Array, scale: float) -> Callable[[Array], Array]:
    """The fixed-point map Q ↦ base + scale · f(Q) of an exponential-midpoint stage.

    With the fused capability the sum is formed in place in the fresh array the system returns
    (same values as ``base + scale * f(Q)``: IEEE addition is commutative).
    """
    fused = getattr(system, "nonlinear_field", None)
    if fused is None:
        return lambda Q: base + scale * system.apply_S(system.grad_potential(Q))

    def G(Q: Array) -> Array:
        v = fused(Q, scale)
        v += base
        return v

    return G


def require(system: Any, capability: type, method: str, what: str) -> None:
    """Raise a ValueError naming the missing capability of ``system`` for ``method``.

    A ValueError, like every other configuration error the app reports (not a TypeError).
    """
    if not isinstance(system, capability):
        msg = f"{method} needs {what}; {type(system).__name__} does not provide it (choose another integrator.method)"
        raise ValueError(msg)  # noqa: TRY004
