"""Shared pieces of the Poisson-system integrators: the step record and the nonlinear field.

All integrators here are generic over ``lgbeam.systems.SemilinearPoissonSystem``
(y' = S(Ay + ∇U(y)), seed 003 eq. (2.5) with S = J, A = D). They use only ``apply_S``, ``apply_A``,
``grad_potential``, ``phi``, ``hamiltonian``, ``discrete_gradient`` and — for the quasi-Newton
baseline only — ``jacobian`` (a dense or sparse matrix of the full field).
"""

from __future__ import annotations

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


def nonlinear_field(system: SemilinearPoissonSystem, y: Array) -> Array:
    """f(y) = S ∇U(y), the non-stiff part (seed 003 eq. (2.5): f = J ∇V)."""
    return system.apply_S(system.grad_potential(y))


def full_field(system: SemilinearPoissonSystem, y: Array) -> Array:
    """F(y) = S(Ay + ∇U(y))."""
    return system.apply_S(system.apply_A(y) + system.grad_potential(y))


def require(system: Any, capability: type, method: str, what: str) -> None:
    """Raise a ValueError naming the missing capability of ``system`` for ``method``."""
    if not isinstance(system, capability):
        raise ValueError(f"{method} needs {what}; {type(system).__name__} does not provide it "
                         f"(choose another integrator.method)")
