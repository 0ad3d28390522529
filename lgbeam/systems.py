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

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, TypeVar, runtime_checkable
from typing import Generic as Generic_

from lgbeam._typing import Array, FloatArray, Matrix

if TYPE_CHECKING:  # typing.TypeIs is Python 3.13; mypy reads it from typing_extensions (no run-time import)
    from typing_extensions import TypeIs

P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class MechanicalState:
    """The state of a constrained mechanical system: q ∈ G, body velocity v ∈ Rⁿ, multipliers λ ∈ Rᵐ.

    ``lam`` None in an initial state means "the consistent λ₀" (computed by the method's ``init``).
    A ``Solution`` of a mechanical run holds the saved states stacked along a leading axis.
    """

    q: FloatArray
    v: FloatArray
    lam: FloatArray | None = None

    def arrays(self) -> tuple[FloatArray, ...]:
        return (self.q, self.v) if self.lam is None else (self.q, self.v, self.lam)


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
    def tangent_inv_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray: ...
    def ad(self, xi: FloatArray) -> FloatArray: ...
    def retract(self, a: FloatArray, xi: FloatArray) -> FloatArray: ...
    def validate(self, a: Any) -> FloatArray: ...


@runtime_checkable
class ConstrainedMechanicalSystem(Protocol):
    """M(q) v' = −g(t, q, v) − B(q)ᵀ λ,  Φ(q) = 0,  q' = q · v^  (seed 004 eq. (1))."""

    @property
    def group(self) -> LieGroup: ...
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


def is_rheonomic(system: object) -> TypeGuard[RheonomicConstraints]:
    """True when ``system`` has time-dependent constraints that the integrator must account for."""
    # the cheap attribute test first: a runtime Protocol isinstance costs ~50 µs (called per step)
    return bool(getattr(system, "rheonomic", False)) and supports(system, RheonomicConstraints)


@runtime_checkable
class HasEnergy(Protocol):
    """Optional capability: total mechanical energy (kinetic + potential)."""

    def energy(self, t: float, q: FloatArray, v: FloatArray) -> float: ...


@runtime_checkable
class HasEnergyBudget(Protocol):
    """Optional capability that lets the driver's always-on blow-up check (``lgbeam.solve.driver``) hold the
    energy to its budget: E(t) − E(t₀) = W(t) (work of the loads that are not in the potential) up to the
    method's error.

    ``kinetic_energy(v)``                 T (the energy content T + |V| scales the check, free of cancellation)
    ``external_power(t, q, v)``           P = f·v of those loads, or None when the system cannot account for the
                                          energy entering it (prescribed motion, moving spring anchors)
    ``length_scale``                      a length of the model (m): the constraint residual |Φ| may not exceed a
                                          small multiple of it
    """

    length_scale: float

    def kinetic_energy(self, v: FloatArray) -> float: ...
    def external_power(self, t: float, q: FloatArray, v: FloatArray) -> float | None: ...


@runtime_checkable
class HasTangents(Protocol):
    """Optional capability: the exact linearisation of a constrained mechanical system (implicit methods,
    statics, modes and buckling), all along left-translated directions w (q ∘ exp(ε w)), sparse (n, n):

    ``stiffness(t, q, v)``             K w = d/dε g(t, q ∘ exp(εw), v)|₀
    ``damping(t, q, v)``               D u = d/dε g(t, q, v + εu)|₀   (material damping + gyroscopic terms)
    ``constraint_stiffness(t, q, lam)`` Z w = d/dε B(q ∘ exp(εw))ᵀ λ|₀  (for rheonomic rows at time t)
    """

    def stiffness(self, t: float, q: FloatArray, v: FloatArray) -> Matrix: ...
    def damping(self, t: float, q: FloatArray, v: FloatArray) -> Matrix: ...
    def constraint_stiffness(self, t: float, q: FloatArray, lam: FloatArray) -> Matrix: ...


@runtime_checkable
class HasMassBlocks(Protocol):
    """Optional capability: M is block diagonal with blocks of this size (inverted blockwise; default 6)."""

    @property
    def mass_block(self) -> int: ...


@runtime_checkable
class HasCompiledChoice(Protocol):
    """Optional capability: the system chose compiled (numba) or numpy kernels when it was built; methods
    build their own solvers the same way."""

    @property
    def compiled(self) -> bool: ...


@runtime_checkable
class HasVariableMass(Protocol):
    """Optional capability: ``mass_is_constant`` False declares M(q) configuration dependent."""

    @property
    def mass_is_constant(self) -> bool: ...


@runtime_checkable
class HasNewtonResidual(Protocol):
    """Optional capability of a constrained mechanical system: the vectors one Newton iteration of an
    implicit method needs at an iterate, (g(t, q, v), B(t, q)ᵀλ, Φ(t, q), B(t, q) v + Φ_t(t, q)), in one
    pass and without assembling B (``CosseratRod``: the compiled step core). Must equal the protocol
    methods to round-off."""

    def newton_residual(self, t: float, q: FloatArray, v: FloatArray,
                        lam: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]: ...


@runtime_checkable
class HasStepResiduals(Protocol):
    """Optional capability: (‖Φ‖, ‖B v‖, energy) after a step in one fused pass, or None to fall back."""

    def step_residuals(self, t: float, q: FloatArray, v: FloatArray) -> tuple[float, float, float] | None: ...


@runtime_checkable
class LieGroupODE(Protocol):
    """y' = y · ξ(t, y)^ : an unconstrained ODE on a Lie group (RKMK, commutator-free)."""

    @property
    def group(self) -> LieGroup: ...
    def generator(self, t: float, y: FloatArray) -> FloatArray: ...


@runtime_checkable
class HomogeneousSpace(Protocol):
    """A manifold M with a transitive action of a Lie group G, through the algebra g (seed 000 §2.1).

    Points (``size``,) and algebra elements (``dim``,) are flat arrays. ``exp_act(ξ, m)`` is ψ(exp ξ, m),
    ``generator(ξ, m)`` ψ_*(ξ)|_m (eq. (2)), ``dexp_inv(σ, v)`` the right-trivialised dexp⁻¹_σ v (eq. (8)),
    ``bracket(x, y)`` [x, y]; ``validate(m)`` raises ValueError off M, ``deviation(m)`` the residuals of
    M's defining equations. Implementations: ``lgbeam.groups.homogeneous``.
    """

    @property
    def name(self) -> str: ...
    @property
    def dim(self) -> int: ...
    @property
    def size(self) -> int: ...
    def exp_act(self, xi: FloatArray, m: FloatArray) -> FloatArray: ...
    def generator(self, xi: FloatArray, m: FloatArray) -> FloatArray: ...
    def dexp_inv(self, sigma: FloatArray, v: FloatArray) -> FloatArray: ...
    def bracket(self, x: FloatArray, y: FloatArray) -> FloatArray: ...
    def validate(self, m: Any) -> FloatArray: ...
    def deviation(self, m: FloatArray) -> dict[str, float]: ...


@runtime_checkable
class HomogeneousSpaceODE(Protocol):
    """y' = ψ_*(f(t, y))|_y on a homogeneous space M, f: R × M → g (seed 000 eqs. (1)–(3)).

    ``space`` is a ``HomogeneousSpace``; ``algebra_field(t, y)`` is f(t, y), flat (space.dim,). Integrated
    by RKMK, commutator-free and Crouch–Grossman methods as y_{n+1} = exp(σ)·y_n (seed 000 §3).
    """

    @property
    def space(self) -> HomogeneousSpace: ...
    def algebra_field(self, t: float, y: FloatArray) -> FloatArray: ...


@runtime_checkable
class HasInvariants(Protocol):
    """Optional capability: first integrals and monitors of a state (energy, Casimirs), as a dict of
    floats."""

    def invariants(self, t: float, y: FloatArray) -> dict[str, float]: ...


@runtime_checkable
class CotangentHamiltonian(Protocol):
    """A Hamiltonian H(g, μ) on T*G ≅ G ⋉ g*, right-trivialised (seed 000 §3.1, eqs. (11)–(14)).

    ``group`` is an lgbeam Lie group with ``exp``, ``compose``, ``Ad`` and ``tangent``; the state is flat,
    ``[g.ravel(), μ]``. ``hamiltonian(g, μ)`` is H; ``hamiltonian_field(g, μ)`` the pair
    (∂H/∂μ ∈ g, −R_g^* ∂H/∂g ∈ g*) of eq. (14), ⟨R_g^* ∂H/∂g, η⟩ = d/dε H(exp(εη) g, μ)|₀.
    """

    @property
    def group(self) -> LieGroup: ...
    def hamiltonian(self, g: FloatArray, mu: FloatArray) -> float: ...
    def hamiltonian_field(self, g: FloatArray, mu: FloatArray) -> tuple[FloatArray, FloatArray]: ...


@runtime_checkable
class SemilinearPoissonSystem(Protocol):
    """y' = S (A y + ∇U(y)) with S skew, A symmetric and SA = AS (seed 003 ch. 2)."""

    def apply_S(self, y: Array) -> Array: ...
    def apply_A(self, y: Array) -> Array: ...
    def grad_potential(self, y: Array) -> Array: ...
    def hamiltonian(self, y: Array) -> float: ...
    def phi(self, k: int, h: float, y: Array) -> Array: ...


@runtime_checkable
class HasDiscreteGradient(Protocol):
    """Optional capability: a symmetric discrete gradient ∇̄U(y₀, y₁) of the potential (seed 003 (2.11))."""

    def discrete_gradient(self, y0: Array, y1: Array) -> Array: ...


@runtime_checkable
class HasJacobian(Protocol):
    """Optional capability: the Jacobian of the full field S(A + ∇²U(y)) (quasi-Newton baseline)."""

    def jacobian(self, y: Array) -> Any: ...


@runtime_checkable
class HasFusedField(Protocol):
    """Optional capability: ``nonlinear_field(y, scale=1.0)`` = scale · S∇U(y), fused, a new array.

    Speed only; it must equal ``scale * apply_S(grad_potential(y))`` (our Fourier systems: bitwise).
    """

    def nonlinear_field(self, y: Array, scale: float = 1.0) -> Array: ...


@runtime_checkable
class HasFusedPhiS(Protocol):
    """Optional capability: ``phi_S(k, h, y)`` = φ_k(hSA) S y in one transform (speed only)."""

    def phi_S(self, k: int, h: float, y: Array) -> Array: ...


@runtime_checkable
class SpectralPoissonSystem(SemilinearPoissonSystem, Protocol):
    """y' = S (A y + ∇U(y)) with S and SA diagonal in a transform (Fourier): methods iterate in its coefficients.

    ``to_spectral(y)`` gives the coefficients (normalised, ``norm="forward"``) of a state,
    ``from_spectral(v)`` the state back; ``spectral_symbols()`` the diagonal symbols (λ of SA, σ of S) in
    that layout, so that e^{hSA} is ``exp(h λ) v`` and S is ``σ v`` (issue 18: exponentials cost no
    transform)."""

    def to_spectral(self, y: Array) -> Array: ...
    def from_spectral(self, v: Array) -> Array: ...
    def spectral_symbols(self) -> tuple[Array, Array]: ...


@runtime_checkable
class HasExactStage(Protocol):
    """Optional capability: ``solve_stage(base, c)`` = the exact solution Q of Q = base + c S∇U(Q) (pointwise);
    ``stage_increment(base, c)`` = Q − base computed without cancellation (round-off relative to it)."""

    def solve_stage(self, base: Array, c: float) -> Array: ...

    def stage_increment(self, base: Array, c: float) -> Array: ...


@runtime_checkable
class HasStageLinearisation(Protocol):
    """Optional capability for Newton-type stage solves of Q = base + c S∇U(Q):

    ``field_jvp(y, v)`` = S ∇²U(y) v exactly; ``field_lipschitz(y)`` a bound of ‖S ∇²U(y)‖ near y (the
    fixed point's contraction factor is ≈ c times it); ``frozen_stage_solve(c, y, r)`` solves
    (I − c S ∇²U(ȳ)) x = r exactly in Fourier space, ∇²U frozen at a constant state ȳ taken from y.
    """

    def field_jvp(self, y: Array, v: Array) -> Array: ...
    def field_lipschitz(self, y: Array) -> float: ...
    def frozen_stage_solve(self, c: float, y: Array, r: Array) -> Array: ...


@runtime_checkable
class HasL2Mass(Protocol):
    """Optional capability: ``l2_mass(y)`` = ∫|y|² dx, a positive-definite invariant of the PDE (NLS: its
    mass; KdV: twice its momentum). Poisson methods report it as the diagnostic ``mass`` (blow-up check)."""

    def l2_mass(self, y: Array) -> float: ...


@runtime_checkable
class HasSpectralInvariants(Protocol):
    """Optional capability of a spectral system: its first integrals and their gradients from a state y and
    its coefficients v = ``to_spectral(y)`` without transforming either (``etd35``'s projection,
    ``lgbeam.integrators.poisson.projection``).

    ``spectral_invariants(y, v)``: name → value (quadratic parts by Parseval from v, the potential from y);
    ``spectral_invariant_gradients(y, v)``: name → (∇I nodal, in ``inner``: dI(y)[δ] = inner(∇I, δ); and its
    coefficients ``to_spectral(∇I)``)."""

    def inner(self, a: Array, b: Array) -> float: ...

    def spectral_invariants(self, y: Array, v: Array) -> dict[str, float]: ...

    def spectral_invariant_gradients(self, y: Array, v: Array) -> dict[str, tuple[Array, Array]]: ...


@runtime_checkable
class LieGroupFirstIntegral(Protocol):
    """x' = (S(x) γ(x))^ · x with first integral H, γ = R_x^* dH (right-trivialised; seed 002 eqs. (1)–(2), (13)).

    ``first_integral(x)`` is H, ``trivialised_differential(x)`` γ ∈ g* in the group's algebra coordinates
    (pairing: the sum of products), ``bivector(x)`` the skew (dim, dim) S(x) with field ξ = S γ; all
    vectorised over leading batch axes of x.
    """

    @property
    def group(self) -> LieGroup: ...
    def first_integral(self, x: FloatArray) -> FloatArray: ...
    def trivialised_differential(self, x: FloatArray) -> FloatArray: ...
    def bivector(self, x: FloatArray) -> FloatArray: ...


@runtime_checkable
class SphereFirstIntegral(Protocol):
    """p' = S(p) ∇H(p) on the unit sphere |p| = 1 of Rⁿ with first integral H (seed 002 §3, eq. (16)).

    ``ambient_dim`` is n; ``first_integral``, ``gradient`` (Euclidean, in Rⁿ) and ``bivector`` (skew (n, n))
    are vectorised over leading batch axes.
    """

    @property
    def ambient_dim(self) -> int: ...
    def first_integral(self, p: FloatArray) -> FloatArray: ...
    def gradient(self, p: FloatArray) -> FloatArray: ...
    def bivector(self, p: FloatArray) -> FloatArray: ...


@runtime_checkable
class HamiltonianSOn(Protocol):
    """g' = gΩ, μ' = [μ, Ω] − ∂H/∂U, Ω = ∂H/∂μ: a Hamiltonian on T*SO(n), left-trivialised (seed 003 (4.25)).

    The state is ``y = stack([g, μ])`` of shape (2, n, n) (μ skew). ``dH_dmu(U, μ)`` is Ω ∈ so(n),
    ``dH_dU(U, μ)`` the left-trivialised gradient in so(n) under ⟨X, Y⟩ = ½ Σ X_ij Y_ij (for H = K + V(U):
    UᵀD − DᵀU, D the matrix gradient of V); both vectorised over leading (stage) axes.
    """

    @property
    def n(self) -> int: ...
    def hamiltonian(self, y: FloatArray) -> float: ...
    def dH_dmu(self, U: FloatArray, mu: FloatArray) -> FloatArray: ...
    def dH_dU(self, U: FloatArray, mu: FloatArray) -> FloatArray: ...


@runtime_checkable
class LiePoissonSOn(Protocol):
    """μ' = [μ, Ω], Ω = ∂h/∂μ, g' = gΩ: a left-invariant Hamiltonian h(μ) on T*SO(n) (seed 003 (4.27)).

    State ``y = stack([g, μ])`` (2, n, n); ``dh_dmu(μ)`` vectorised over leading axes.
    """

    @property
    def n(self) -> int: ...
    def reduced_hamiltonian(self, mu: FloatArray) -> float: ...
    def dh_dmu(self, mu: FloatArray) -> FloatArray: ...


@runtime_checkable
class RigidBodySO3(Protocol):
    """R' = R ω^, J ω' = Jω × ω + τ(R): a rigid body on SO(3) in a static potential (seed 001 (2.14)).

    ``inertia`` is the body-frame J (3, 3), symmetric positive definite; ``torque(R)`` τ = −dU(R), the
    left-trivialised gradient (τ·η = −d/dε U(R exp(εη))|₀, seed 001 (2.15)); ``potential(R)`` U.
    State: ``MechanicalState(q=R (3, 3), v=ω (3,))``, ω the body angular velocity.
    """

    @property
    def inertia(self) -> FloatArray: ...
    def torque(self, R: FloatArray) -> FloatArray: ...
    def potential(self, R: FloatArray) -> float: ...


@runtime_checkable
class ProductOfSpheres(Protocol):
    """q_i' = ω_i × q_i, ω_i' = α_i(q, ω) on T(S²)ⁿ, |q_i| = 1, q_i·ω_i = 0 (seed 001 (6.5)).

    ``mass_matrix`` M (n, n) SPD (scalar blocks M_ij I₃); ``potential_gradient(q)`` ∂V/∂q (n, 3);
    ``angular_acceleration(q, ω)`` α (n, 3) with α_i·q_i = 0; ``velocity_dependent`` True when α depends
    on ω (then a spatial Lie–Newmark step is implicit). State: ``MechanicalState(q (n, 3), v=ω (n, 3))``.
    """

    @property
    def n_spheres(self) -> int: ...
    @property
    def mass_matrix(self) -> FloatArray: ...
    @property
    def velocity_dependent(self) -> bool: ...
    def potential_gradient(self, q: FloatArray) -> FloatArray: ...
    def angular_acceleration(self, q: FloatArray, omega: FloatArray) -> FloatArray: ...


@runtime_checkable
class RigidBodyInField(Protocol):
    """m x'' = −∂V/∂x, J Ω' = JΩ × Ω + vee(DᵀR − RᵀD), R' = RΩ^ (seed 003 §3.2, (3.15) corrected).

    ``mass`` m, ``inertia`` J = diag(J₁, J₂, J₃) (3,) with the strict triangle inequality (so that
    J_d = ½ tr(J) I − J is positive definite); ``potential(x, R)`` V, ``potential_gradients(x, R)``
    (∂V/∂x (3,), D = ∂V/∂R (3, 3)). State: flat ``y = [x, q, p, Π]`` (13,), q a unit quaternion
    (scalar first, R = R(q)), p = m x', Π = JΩ the body angular momentum.
    """

    @property
    def mass(self) -> float: ...
    @property
    def inertia(self) -> FloatArray: ...
    def potential(self, x: FloatArray, R: FloatArray) -> float: ...
    def potential_gradients(self, x: FloatArray, R: FloatArray) -> tuple[FloatArray, FloatArray]: ...


def protocol_members(protocol: type) -> tuple[str, ...]:
    """The public members a runtime protocol requires (methods and properties), in definition order."""
    names: list[str] = []
    for klass in reversed(protocol.__mro__):
        if klass in (object, Protocol, Generic_) or not getattr(klass, "_is_protocol", False):
            continue
        for name in list(getattr(klass, "__annotations__", {})) + list(vars(klass)):
            if not name.startswith("_") and name not in names:
                names.append(name)
    return tuple(names)


def missing_members(obj: object, protocol: type) -> tuple[str, ...]:
    """The members of ``protocol`` that ``obj`` lacks (empty when it satisfies the protocol)."""
    return tuple(name for name in protocol_members(protocol) if not hasattr(obj, name))


_CLASS_SUPPORTS: dict[tuple[type, type], bool | None] = {}


def _class_supports(cls: type, protocol: type) -> bool | None:
    """Whether the class has every member of ``protocol``; None when only an instance can tell (the
    protocol has data members, which may be set in ``__init__``). Memoised per (class, protocol)."""
    key = (cls, protocol)
    if key not in _CLASS_SUPPORTS:
        members = protocol_members(protocol)
        methods_only = all(callable(getattr(protocol, name, None))
                           and not isinstance(getattr(protocol, name), property) for name in members)
        has_all = all(hasattr(cls, name) for name in members)
        _CLASS_SUPPORTS[key] = has_all if methods_only or has_all else None
    return _CLASS_SUPPORTS[key]


def supports(obj: object, protocol: Callable[..., P]) -> TypeIs[P]:
    """``isinstance(obj, protocol)`` for a runtime protocol, memoised per class when the protocol names
    methods only (a runtime protocol check costs microseconds; this one is a dictionary lookup).

    For mypy it narrows like ``isinstance``: after ``if supports(system, HasTangents):`` the system has both
    its declared protocol and ``HasTangents``. ``protocol`` is typed as the class object's constructor
    (``Callable[..., P]``) because mypy refuses a protocol class where ``type[P]`` is expected
    ([type-abstract], python/mypy#4717); every caller passes a runtime-checkable protocol class.
    """
    cls: type = protocol  # type: ignore[assignment]  # a protocol class, seen by mypy as Callable[..., P]
    known = _class_supports(type(obj), cls)
    return isinstance(obj, cls) if known is None else known


@runtime_checkable
class HasEnergyParts(Protocol):
    """Optional capability of a semilinear Poisson system: the two parts of H = ½⟨y, Ay⟩ + U(y) apart,
    ``inner(a, b)`` the real inner product in which S is skew and A symmetric, ``potential(y)`` U. The Poisson
    methods scale their energy check by |½⟨y, Ay⟩| + |U| (not |H|, which may vanish)."""

    def inner(self, a: Array, b: Array) -> float: ...
    def potential(self, y: Array) -> float: ...


@runtime_checkable
class HasSpectralRadius(Protocol):
    """Optional capability: ``spectral_radius_SA()`` = ρ(SA), the largest |eigenvalue| of the linear part (a
    Fourier grid: its largest symbol), for the resonance-free step bound of the exponential compositions."""

    def spectral_radius_SA(self) -> float: ...


@runtime_checkable
class LinearisedPoissonSystem(SemilinearPoissonSystem, HasStageLinearisation, Protocol):
    """A semilinear Poisson system with ``HasStageLinearisation``: what a Newton–Krylov stage solve calls."""


@runtime_checkable
class DiscreteGradientPoissonSystem(SemilinearPoissonSystem, HasDiscreteGradient, Protocol):
    """A semilinear Poisson system with ``HasDiscreteGradient``: what the energy-preserving methods call."""


@runtime_checkable
class JacobianPoissonSystem(SemilinearPoissonSystem, HasJacobian, Protocol):
    """A semilinear Poisson system with ``HasJacobian``: what the quasi-Newton midpoint baseline calls."""


@runtime_checkable
class SpectralDiscreteGradientSystem(SpectralPoissonSystem, HasDiscreteGradient, Protocol):
    """A spectral Poisson system with ``HasDiscreteGradient``: what the Fourier-space energy-preserving
    compositions call."""
