"""The free rigid body and the heavy top on SO(n) for the polar-decomposition methods (seed 003 §4.5).

State ``y = stack([g, μ])`` (2, n, n): g ∈ SO(n), μ ∈ so(n)* ≅ so(n) the body momentum, with the
pairing ⟨X, Y⟩ = ½ Σ X_ij Y_ij (n = 3: μ = hat(m), the dot product). Equations (left trivialisation):

    g' = g Ω,   μ' = [μ, Ω] − ∂H/∂U,   Ω = ∂H/∂μ,

(``[μ, Ω] = hat(m × ω)`` for n = 3: Euler's equations).

``FreeRigidBodySOn(d)``: the generalised rigid body with mass-matrix eigenvalues d (Manakov/Ratiu),
``μ = ΩD + DΩ`` ⇒ ``Ω_ij = μ_ij/(d_i + d_j)``, ``h(μ) = ½⟨μ, Ω⟩``. For n = 3 and principal moments I,
``d_i + d_j = I_k`` ((i, j, k) cyclic): ``FreeRigidBodySOn(from_inertia(I))``.

``HeavyTopSOn(d, chi, e)``: adds ``V(g) = eᵀ g χ`` (n = 3: ``e₃·(Rχ)``, seed 003 note C.8 with
χ = (0.3, 0.2, 1)), ``∂H/∂U = UᵀD − DᵀU``, ``D = e χᵀ`` the matrix gradient of V. The component of the
spatial momentum ``g μ gᵀ`` in the rotations that fix e is conserved (n = 3: ``e·(R m)``).

References
----------
Shen (2019), seed 003, §4.5 (free rigid body J = diag(1, 2, 3), μ₀ = (0.5, −0.5, 0.5)) and (4.25);
notes/003-ch3plus.md §§C.4–C.8; Ratiu (1980) for the SO(n) rigid body.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.integrate import solve_ivp

from lgbeam._typing import FloatArray
from lgbeam.groups.base import hat3, vee3

logger = logging.getLogger(__name__)


def _check_d(name: str, d: tuple[float, ...]) -> FloatArray:
    arr = np.asarray(d, dtype=float)
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"{name}: d must be a sequence of n >= 2 values, got {d!r}")
    s = arr[:, None] + arr[None, :]
    if np.any(s[~np.eye(arr.size, dtype=bool)] <= 0):
        raise ValueError(f"{name}: need d_i + d_j > 0 for i != j (positive moments), got d = {d!r}")
    return arr


@dataclass(frozen=True)
class _SOnBody:
    """What both bodies share: the kinetic energy ½⟨μ, Ω⟩ with Ω_ij = μ_ij/(d_i + d_j)."""

    d: tuple[float, ...] = (2.0, 1.0, 0.0)  # = from_inertia((1, 2, 3)): d_i + d_j = I_k

    def __post_init__(self) -> None:
        _check_d(type(self).__name__, self.d)

    @property
    def n(self) -> int:
        return len(self.d)

    @property
    def _denominator(self) -> FloatArray:
        d = np.asarray(self.d, dtype=float)
        den = d[:, None] + d[None, :]
        np.fill_diagonal(den, 1.0)
        return den

    def _omega(self, mu: FloatArray) -> FloatArray:
        return np.asarray(mu, dtype=float) / self._denominator

    def _kinetic(self, mu: FloatArray) -> float:
        mu = np.asarray(mu, dtype=float)
        return float(0.25 * np.sum(mu * self._omega(mu)))

    def dH_dmu(self, U: FloatArray, mu: FloatArray) -> FloatArray:
        return self._omega(mu)

    def dH_dU(self, U: FloatArray, mu: FloatArray) -> FloatArray:  # pragma: no cover - each body defines it
        """∂H/∂U, the left-trivialised gradient of the potential (``HamiltonianSOn``)."""
        raise NotImplementedError

    def initial_state(self, mu0: ArrayLike = (0.5, -0.5, 0.5), g0: ArrayLike | None = None) -> FloatArray:
        """``stack([g₀, μ₀])``; μ₀ a 3-vector (n = 3, hat) or a skew (n, n) matrix; g₀ = I by default."""
        return _state(self.n, mu0, g0)

    def reference(self, times: ArrayLike, y0: ArrayLike) -> FloatArray:
        """States at ``times`` by scipy's DOP853 on ``g' = gΩ``, ``μ' = [μ, Ω] − ∂H/∂U`` (rtol 1e-13)."""
        return _reference(self, times, y0)


def from_inertia(inertia: tuple[float, float, float]) -> tuple[float, float, float]:
    """n = 3 with principal moments I: ``d_i = (I_j + I_k − I_i)/2`` (so ``d_i + d_j = I_k``)."""
    I1, I2, I3 = (float(v) for v in inertia)
    return ((I2 + I3 - I1) / 2, (I1 + I3 - I2) / 2, (I1 + I2 - I3) / 2)


@dataclass(frozen=True)
class FreeRigidBodySOn(_SOnBody):
    """The generalised free rigid body on SO(n); both ``HamiltonianSOn`` and ``LiePoissonSOn``."""

    def dh_dmu(self, mu: FloatArray) -> FloatArray:
        return self._omega(mu)

    def reduced_hamiltonian(self, mu: FloatArray) -> float:
        return self._kinetic(mu)

    def hamiltonian(self, y: FloatArray) -> float:
        return self._kinetic(np.asarray(y)[1])

    def dH_dU(self, U: FloatArray, mu: FloatArray) -> FloatArray:
        return np.zeros(np.broadcast_shapes(np.shape(U), np.shape(mu)))


@dataclass(frozen=True)
class HeavyTopSOn(_SOnBody):
    """A heavy top on SO(n): kinetic energy plus ``V(g) = eᵀ g χ`` (a ``HamiltonianSOn`` only: not
    left-invariant, so it has no reduced Lie–Poisson form)."""

    chi: tuple[float, ...] = (0.3, 0.2, 1.0)
    e: tuple[float, ...] | None = None  # default e_n

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.chi) != self.n or (self.e is not None and len(self.e) != self.n):
            raise ValueError(f"HeavyTopSOn: chi (and e) must have n = {self.n} entries, got chi = {self.chi!r}")

    @property
    def _e(self) -> FloatArray:
        if self.e is None:
            e = np.zeros(self.n)
            e[-1] = 1.0
            return e
        return np.asarray(self.e, dtype=float)

    def potential_gradient(self, g: FloatArray) -> FloatArray:
        """``D = ∂V/∂g = e χᵀ`` (constant), broadcast to g's shape."""
        D = np.outer(self._e, np.asarray(self.chi, dtype=float))
        return np.broadcast_to(D, np.shape(g))

    def potential(self, g: FloatArray) -> float:
        return float(self._e @ np.asarray(g, dtype=float) @ np.asarray(self.chi, dtype=float))

    def hamiltonian(self, y: FloatArray) -> float:
        y = np.asarray(y)
        return self._kinetic(y[1]) + self.potential(y[0])

    def dH_dU(self, U: FloatArray, mu: FloatArray) -> FloatArray:
        U = np.asarray(U, dtype=float)
        UtD = np.swapaxes(U, -1, -2) @ self.potential_gradient(U)
        return UtD - np.swapaxes(UtD, -1, -2)

    def vertical_momentum(self, y: FloatArray) -> float:
        """n = 3: ``e·(g m)`` with μ = hat(m), conserved by the symmetry about e."""
        if self.n != 3:
            raise ValueError("vertical_momentum is defined for n = 3")
        y = np.asarray(y)
        return float(self._e @ (y[0] @ vee3(y[1])))


def _state(n: int, mu0: ArrayLike, g0: ArrayLike | None) -> FloatArray:
    mu = np.asarray(mu0, dtype=float)
    if mu.shape == (3,) and n == 3:
        mu = hat3(mu)
    if mu.shape != (n, n) or np.abs(mu + mu.T).max() > 1e-14 * max(1.0, np.abs(mu).max()):
        raise ValueError(f"initial momentum must be a skew ({n}, {n}) matrix (or a 3-vector for n = 3), got shape "
                         f"{mu.shape}")
    g = np.eye(n) if g0 is None else np.asarray(g0, dtype=float)
    return np.stack([g, mu])


def _reference(body: _SOnBody, times: ArrayLike, y0: ArrayLike) -> FloatArray:
    n = body.n

    def rhs(t: float, z: FloatArray) -> FloatArray:
        g, mu = z[: n * n].reshape(n, n), z[n * n:].reshape(n, n)
        Om = body.dH_dmu(g, mu)
        return np.concatenate([(g @ Om).ravel(), (mu @ Om - Om @ mu - body.dH_dU(g, mu)).ravel()])

    times = np.asarray(times, dtype=float)
    z0 = np.asarray(y0, dtype=float).ravel()
    out = np.full((times.size, 2 * n * n), np.nan)  # NaN where the reference could not be computed
    out[times == 0.0] = z0
    later = times > 0.0  # solve_ivp over an empty span (a run stopped at its first step) returns no array
    if later.any():
        sol = solve_ivp(rhs, (0.0, float(times.max())), z0, method="DOP853", rtol=1e-13, atol=1e-14,
                        t_eval=times[later])
        y = np.asarray(sol.y, dtype=float).reshape(2 * n * n, -1).T
        out[np.flatnonzero(later)[: len(y)]] = y
    return out.reshape(-1, 2, n, n)


__all__ = ["FreeRigidBodySOn", "HeavyTopSOn", "from_inertia"]
