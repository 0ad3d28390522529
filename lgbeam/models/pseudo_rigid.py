"""The pseudo-rigid (homogeneous elastic) body on T*GL⁺(3) ≅ GL⁺(3) ⋉ gl(3)* (seed 002 §5.2, Fig. 3).

Deformation x = F X, F ∈ GL⁺(3), momentum P ∈ gl(3)*; St Venant–Kirchhoff in the seed's form (in C − I,
not the Green strain (C − I)/2):

    H(F, P) = ½ tr(Pᵀ P E⁻¹) + W(FᵀF),   W(C) = ½ λ tr(C − I)² + μ tr((C − I)²),
    ∇W(C) = λ tr(C − I) I + 2μ (C − I),
    F' = P E⁻¹,   P' = −2F ∇W(FᵀF)        (eqs. (28)–(29); erratum 4 of notes/002.md §7: ∂H/∂F = +2F∇W)

As a ``LieGroupFirstIntegral`` (right trivialisation, points flat (18,) = [F, P]), the seed's
"trivialised differential" and the canonical bivector J⁻¹ = [[0, I₉], [−I₉, 0]] (erratum 6):

    γ₂ = P E⁻¹ F⁻¹,   γ₁ = 2F ∇W(FᵀF) − ad*_{γ₂} P,   ad*_ξ P = ξᵀP − Pξᵀ,   field (γ₂, −γ₁),

which is exactly the right-trivialised Hamiltonian field (d/dt Exp(t(γ₂, −γ₁))·(F, P) = (PE⁻¹, −2F∇W)).
(γ₁, γ₂) is *not* R_x^* dH under the trace pairing (notes/002.md §4.3, erratum 15): the Gonzalez
correction (15) restores the discrete chain rule exactly, and an AVF average of this γ would not.

References
----------
Celledoni & Owren (seed 002), §5.2, eqs. (28)–(30), data of Fig. 3 (E = diag(1, 2, 3), λ = 1/3, μ = 1,
F₀ = I, P₀ = diag(0.2575, 0.8407, 0.2543)); notes/002.md §4.3; Cohen & Muncaster (1988) for the model.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from lgbeam._typing import FloatArray
from lgbeam.groups.gl3 import SemidirectGL3, check_det_positive

logger = logging.getLogger(__name__)

_I3 = np.eye(3)
FIG3_P0 = (0.2575, 0.8407, 0.2543)


@dataclass(frozen=True)
class PseudoRigidBody:
    """St Venant–Kirchhoff pseudo-rigid body; see the module docstring."""

    inertia: tuple[float, float, float] = (1.0, 2.0, 3.0)
    lame_lambda: float = 1.0 / 3.0
    lame_mu: float = 1.0
    group: SemidirectGL3 = field(default_factory=SemidirectGL3)

    def __post_init__(self) -> None:
        if len(self.inertia) != 3 or not all(i > 0 for i in self.inertia):
            raise ValueError(f"PseudoRigidBody: inertia E must be three positive entries, got {self.inertia!r}")
        if not (self.lame_mu > 0 and 3 * self.lame_lambda + 2 * self.lame_mu > 0):
            raise ValueError(f"PseudoRigidBody: need mu > 0 and 3 lambda + 2 mu > 0 (got lambda = {self.lame_lambda}, "
                             f"mu = {self.lame_mu})")

    @property
    def _Einv(self) -> FloatArray:
        return np.diag(1.0 / np.asarray(self.inertia, dtype=float))

    def initial_state(self, F0: FloatArray | None = None, P0: FloatArray | None = None) -> FloatArray:
        """The flat point ``(F₀, P₀)``; default the data of Fig. 3 (F₀ = I, P₀ = diag(0.2575, 0.8407, 0.2543))."""
        F = _I3 if F0 is None else np.asarray(F0, dtype=float)
        P = np.diag(FIG3_P0) if P0 is None else np.asarray(P0, dtype=float)
        check_det_positive("PseudoRigidBody", F)
        return self.group.join(F, P)

    def _split(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        F, P = self.group.split(np.asarray(x, dtype=float))
        check_det_positive("PseudoRigidBody", F)
        return F, P

    def grad_W(self, C: FloatArray) -> FloatArray:
        """``∇W(C) = λ tr(C − I) I + 2μ (C − I)``."""
        D = C - _I3
        return self.lame_lambda * np.trace(D, axis1=-2, axis2=-1)[..., None, None] * _I3 + 2.0 * self.lame_mu * D

    def first_integral(self, x: FloatArray) -> FloatArray:
        F, P = self._split(x)
        D = np.swapaxes(F, -1, -2) @ F - _I3
        trD = np.trace(D, axis1=-2, axis2=-1)
        kin = 0.5 * np.einsum("...ij,...ij->...", P @ self._Einv, P)
        return kin + 0.5 * self.lame_lambda * trD**2 + self.lame_mu * np.einsum("...ij,...ji->...", D, D)

    def trivialised_differential(self, x: FloatArray) -> FloatArray:
        """The seed's (γ₁, γ₂) (module docstring), flat (..., 18)."""
        F, P = self._split(x)
        g2 = P @ self._Einv @ np.linalg.inv(F)
        C = np.swapaxes(F, -1, -2) @ F
        g2t = np.swapaxes(g2, -1, -2)
        g1 = 2.0 * F @ self.grad_W(C) - (g2t @ P - P @ g2t)
        return self.group.join(g1, g2)

    def bivector(self, x: FloatArray) -> FloatArray:
        """The constant canonical J⁻¹ = [[0, I₉], [−I₉, 0]] (erratum 6: 18×18, not 6×6)."""
        batch = np.asarray(x).shape[:-1]
        J = np.zeros((18, 18))
        J[:9, 9:] = np.eye(9)
        J[9:, :9] = -np.eye(9)
        return np.broadcast_to(J, batch + (18, 18))

    def determinant(self, x: FloatArray) -> FloatArray:
        """det F of flat points."""
        return np.linalg.det(self.group.split(np.asarray(x, dtype=float))[0])

    def reference(self, times: FloatArray, x0: FloatArray | None = None) -> FloatArray:
        """(F, P) flat at ``times`` by scipy's DOP853 on the canonical equations (rtol 1e-13, atol 1e-14)."""
        x0 = self.initial_state() if x0 is None else np.asarray(x0, dtype=float)

        def rhs(t: float, z: FloatArray) -> FloatArray:
            F, P = z[:9].reshape(3, 3), z[9:].reshape(3, 3)
            return np.concatenate([(P @ self._Einv).ravel(), (-2.0 * F @ self.grad_W(F.T @ F)).ravel()])

        sol = solve_ivp(rhs, (0.0, float(np.max(times))), x0, method="DOP853", rtol=1e-13, atol=1e-14,
                        t_eval=np.asarray(times, float))
        return sol.y.T


__all__ = ["FIG3_P0", "PseudoRigidBody"]
