"""The protocols that time integrators consume; discretisations implement them.

Symbols (seed 004 eqs. (1)–(5)):
    q ∈ G            configuration on a Lie group G (array of shape ``G.param_shape``)
    v ∈ R^n          body-frame (left-trivialised) velocity, n = G.dim, q' = q · v^
    M(q)             mass matrix (n, n), symmetric positive definite, sparse / block diagonal
    g(t, q, v)       forces with M v' = −g − Bᵀλ (the sign is part of the contract)
    Φ(q) ∈ R^m       position constraints, B(q) (m, n) their derivative along left-translated
                     directions: d/dε Φ(q ∘ exp(ε w))|₀ = B(q) w  (seed 004 eq. (2))
    Φ(t, q), Φ_t     rheonomic (time-dependent) constraints, optional (``RheonomicConstraints``):
                     the hidden constraint becomes B(t, q) v + Φ_t(t, q) = 0

Semilinear Poisson systems (seed 003 ch. 2): y' = S (A y + ∇U(y)), H = ½⟨y, A y⟩ + U(y).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from lgbeam._typing import Array, FloatArray, Matrix


@runtime_checkable
class LieGroup(Protocol):
    """A matrix Lie group acting on plain arrays, vectorised over leading batch axes."""

    @property
    def name(self) -> str: ...
    @property
    def dim(self) -> int: ...
    @property
    def param_shape(self) -> tuple[int, ...]: ...
    def identity(self, batch: tuple[int, ...] = ()) -> FloatArray: ...
    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray: ...
    def inverse(self, a: FloatArray) -> FloatArray: ...
    def exp(self, xi: FloatArray) -> FloatArray: ...
    def log(self, a: FloatArray) -> FloatArray: ...
    def tangent(self, xi: FloatArray) -> Any: ...
    def tangent_inv(self, xi: FloatArray) -> Any: ...


@runtime_checkable
class ConstrainedMechanicalSystem(Protocol):
    """M(q) v' = −g(t, q, v) − B(q)ᵀ λ,  Φ(q) = 0,  q' = q · v^  (seed 004 eq. (1))."""

    @property
    def group(self) -> Any: ...
    @property
    def n_constraints(self) -> int: ...
    def mass(self, q: FloatArray) -> Matrix: ...
    def forces(self, t: float, q: FloatArray, v: FloatArray) -> FloatArray: ...
    def constraints(self, q: FloatArray) -> FloatArray: ...
    def constraint_jacobian(self, q: FloatArray) -> Matrix: ...


@runtime_checkable
class RheonomicConstraints(Protocol):
    """Optional capability: time-dependent constraints Φ(t, q) = 0 (prescribed motion).

    ``constraints_t(t, q)`` is Φ(t, q) (same rows as ``constraints``, which stays the t = 0 form for
    callers that know no time), ``constraint_rate(t, q)`` is ∂Φ/∂t at fixed q, and
    ``constraint_jacobian_t(t, q)`` is B(t, q) = ∂Φ/∂q along left-translated directions at time t.
    The hidden constraint is B(t, q) v + Φ_t(t, q) = 0. ``rheonomic`` is False for an
    instance whose rows happen to be all time-independent; the driver then takes the scleronomic path
    (bit-identical results). Use ``is_rheonomic(system)``.
    """

    @property
    def rheonomic(self) -> bool: ...
    def constraints_t(self, t: float, q: FloatArray) -> FloatArray: ...
    def constraint_rate(self, t: float, q: FloatArray) -> FloatArray: ...
    def constraint_jacobian_t(self, t: float, q: FloatArray) -> Matrix: ...


def is_rheonomic(system: Any) -> bool:
    """True when ``system`` has time-dependent constraints that the integrator must account for."""
    # the cheap attribute test first: a runtime Protocol isinstance costs ~50 µs (called per step)
    return bool(getattr(system, "rheonomic", False)) and isinstance(system, RheonomicConstraints)


@runtime_checkable
class HasEnergy(Protocol):
    """Optional capability: total mechanical energy (kinetic + potential)."""

    def energy(self, t: float, q: FloatArray, v: FloatArray) -> float: ...


@runtime_checkable
class LieGroupODE(Protocol):
    """y' = y · ξ(t, y)^ : an unconstrained ODE on a Lie group (RKMK, commutator-free)."""

    @property
    def group(self) -> Any: ...
    def generator(self, t: float, y: FloatArray) -> FloatArray: ...


@runtime_checkable
class SemilinearPoissonSystem(Protocol):
    """y' = S (A y + ∇U(y)) with S skew, A symmetric and SA = AS (seed 003 ch. 2)."""

    def apply_S(self, y: Array) -> Array: ...
    def apply_A(self, y: Array) -> Array: ...
    def grad_potential(self, y: Array) -> Array: ...
    def hamiltonian(self, y: Array) -> float: ...
    def phi(self, k: int, h: float, y: Array) -> Array: ...
