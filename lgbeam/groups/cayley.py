"""SO(3) toolkit of seed 001 ch. 2: the Cayley map, right/left-trivialised tangents of exp and cay and
their inverses, a retraction switch (exp ↔ cay), and the left-trivialised potential gradient (torque)
from a user callback with a finite-difference consistency check.

Symbols (seed 001 §2.1; notes/001.md §2.2): ``x^`` the hat map, ``θ = |x|``.

    exp(x)   = I + sin θ/θ x^ + (1 − cos θ)/θ² x^²                        (2.6)
    cay(x)   = (I + x^/2)(I − x^/2)⁻¹ = I + 4/(4 + θ²) x^ + 2/(4 + θ²) x^²   (2.2), (2.8)
    right-trivialised derivative  DF(x)·δ = (dF_x δ)^ F(x)                 (Def. 2.1.4)
    dexp_x   = sin θ/θ I + (1 − cos θ)/θ² x^ + (θ − sin θ)/θ³ x xᵀ         (2.7)
    dcay_x   = 4/(4 + θ²) (I + x^/2)                                       (2.9)
    dexp⁻¹_x = I − x^/2 + (1 − (θ/2) cot(θ/2))/θ² x^²,   dcay⁻¹_x = I − x^/2 + x xᵀ/4
    left-trivialised derivative   DF(x)·δ = F(x) (dF^L_x δ)^,  dF^L_x = dF_{−x}

(lgbeam's ``T(Ω)`` of ``groups.so3`` is the left-trivialised ``dexp^L``.) The extraction prints the last
line of the proof of (2.8) with ``−2/(4+θ²) x^²`` (sign typo) and garbles the (2.7) footnote's last
coefficient; the forms above are checked against ``scipy.linalg.expm`` and central differences in
``tests/test_rigid_groups.py``.

Torque: ``τ(R)·η = −d/dε U(R exp(εη))|₀`` (seed 001 (2.15), Def. 2.2.1).

References
----------
Ortolan (2011), seed 001, eqs. (2.2), (2.6)–(2.13), (2.15); Iserles et al. (2000) for dexp⁻¹.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups import _series as sr
from lgbeam.groups.base import hat3, quat_mul, sq_hat3
from lgbeam.groups.so3 import exp_so3

logger = logging.getLogger(__name__)

Trivialisation = Literal["right", "left"]
RetractionKind = Literal["exp", "cay"]
TORQUE_FD_EPS = 1e-5  # central difference: truncation O(ε²) ~ 1e-10, round-off ~ 1e-16/ε ~ 1e-11


def _theta2(x: FloatArray) -> FloatArray:
    return np.einsum("...i,...i->...", x, x)


def _sign(trivialisation: Trivialisation) -> float:
    if trivialisation not in ("right", "left"):
        raise ValueError(f"trivialisation must be 'right' or 'left', got {trivialisation!r}")
    return 1.0 if trivialisation == "right" else -1.0


def cay(x: FloatArray) -> FloatArray:
    """Cayley map ``I + 4/(4+θ²) x^ + 2/(4+θ²) x^²`` (seed 001 (2.8)); ``(..., 3) -> (..., 3, 3)``."""
    x = np.asarray(x, dtype=float)
    c = (1.0 / (4.0 + _theta2(x)))[..., None, None]
    return np.eye(3) + 4.0 * c * hat3(x) + 2.0 * c * sq_hat3(x)


def dcay(x: FloatArray, trivialisation: Trivialisation = "right") -> FloatArray:
    """Tangent of cay, ``4/(4+θ²)(I ± x^/2)`` (seed 001 (2.9); ``+`` right-, ``−`` left-trivialised)."""
    x = np.asarray(x, dtype=float)
    s = _sign(trivialisation)
    c = (4.0 / (4.0 + _theta2(x)))[..., None, None]
    return c * (np.eye(3) + 0.5 * s * hat3(x))


def dcay_inv(x: FloatArray, trivialisation: Trivialisation = "right") -> FloatArray:
    """Inverse tangent of cay, ``I ∓ x^/2 + x xᵀ/4`` (seed 001 §4.1, VLV; notes/001.md §3.7)."""
    x = np.asarray(x, dtype=float)
    s = _sign(trivialisation)
    return np.eye(3) - 0.5 * s * hat3(x) + 0.25 * x[..., :, None] * x[..., None, :]


def dexp(x: FloatArray, trivialisation: Trivialisation = "right") -> FloatArray:
    """Tangent of exp (seed 001 (2.7)): ``sin θ/θ I ± (1−cos θ)/θ² x^ + (θ − sin θ)/θ³ x xᵀ``."""
    x = np.asarray(x, dtype=float)
    s = _sign(trivialisation)
    th = np.sqrt(_theta2(x))[..., None, None]
    return (sr.sinc(th) * np.eye(3) + s * sr.onem_cos_x2(th) * hat3(x)
            + sr.x_sin_x3(th) * x[..., :, None] * x[..., None, :])


def dexp_inv(x: FloatArray, trivialisation: Trivialisation = "right") -> FloatArray:
    """Inverse tangent of exp: ``I ∓ x^/2 + (1 − (θ/2)cot(θ/2))/θ² x^²`` (closed Bernoulli series)."""
    x = np.asarray(x, dtype=float)
    s = _sign(trivialisation)
    th = np.sqrt(_theta2(x))[..., None, None]
    return np.eye(3) - 0.5 * s * hat3(x) + sr.tinv_c(th) * sq_hat3(x)


def dexp_inv_series(x: FloatArray, v: FloatArray, order: int = 4) -> FloatArray:
    """Truncated right-trivialised ``dexp⁻¹_x v = Σ_{k<order} B_k/k! ad_x^k v`` (seed 001 §2.2, RKMK).

    ``order`` 1..4: ``v``, ``− ½ x × v``, ``+ 1/12 x × (x × v)`` (B₃ = 0); vectorised over batch axes."""
    if order not in (1, 2, 3, 4):
        raise ValueError(f"dexp_inv_series: order must be 1, 2, 3 or 4 (terms of the Bernoulli series), got {order}")
    x, v = np.asarray(x, dtype=float), np.asarray(v, dtype=float)
    if order == 1:
        return v.copy()
    xv = np.cross(x, v)
    out = v - 0.5 * xv
    return out + np.cross(x, xv) / 12.0 if order >= 3 else out


@dataclass(frozen=True)
class Retraction:
    """The map F: so(3) → SO(3) a rigid-body method uses, ``exp`` (Rodrigues) or ``cay`` (Cayley).

    Every method of ``lgbeam.integrators.rigid`` takes one (seed 001 §4.1: "no difference in long-time
    behaviour with exp instead of cay"). ``tangent``/``tangent_inv`` are right-trivialised by default.
    """

    kind: RetractionKind = "cay"

    def __post_init__(self) -> None:
        if self.kind not in ("exp", "cay"):
            raise ValueError(f"retraction must be 'exp' or 'cay', got {self.kind!r}")

    def map(self, x: FloatArray) -> FloatArray:
        """F(x), a rotation matrix; ``(3,)`` inputs take a scalar fast path."""
        x = np.asarray(x, dtype=float)
        if x.shape != (3,):
            return cay(x) if self.kind == "cay" else exp_so3(x)
        t2 = float(x @ x)
        if self.kind == "cay":
            a = 4.0 / (4.0 + t2)
            b = 2.0 / (4.0 + t2)
        else:
            a, b = _exp_coeffs(t2)
        X = _hat(x)
        return np.eye(3) + a * X + b * (X @ X)

    def tangent(self, x: FloatArray, trivialisation: Trivialisation = "right") -> FloatArray:
        """dF_x (right-trivialised: ``DF(x)·δ = (dF_x δ)^ F(x)``)."""
        return dcay(x, trivialisation) if self.kind == "cay" else dexp(x, trivialisation)

    def tangent_inv(self, x: FloatArray, trivialisation: Trivialisation = "right") -> FloatArray:
        """dF_x⁻¹."""
        return dcay_inv(x, trivialisation) if self.kind == "cay" else dexp_inv(x, trivialisation)


def _exp_coeffs(t2: float) -> tuple[float, float]:
    """(sin θ/θ, (1 − cos θ)/θ²) for θ² = t2, Taylor below θ = 1e-4 (truncation < 1e-20)."""
    if t2 < 1e-8:
        return 1.0 - t2 / 6.0 + t2 * t2 / 120.0, 0.5 - t2 / 24.0 + t2 * t2 / 720.0
    th = math.sqrt(t2)
    return math.sin(th) / th, (1.0 - math.cos(th)) / t2


def _hat(x: FloatArray) -> FloatArray:
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


# --- potentials on SO(3): the torque τ = −dU and its check --------------------------------------


def torque_from_potential(potential: Callable[[FloatArray], float], R: FloatArray,
                          eps: float = TORQUE_FD_EPS) -> FloatArray:
    """τ(R) = −dU(R) by central differences along ``R exp(±ε e_i)`` (seed 001 (2.15)), ``(3,)``.

    Truncation error O(ε²); for the default ε = 1e-5 about 1e-10 relative on smooth potentials.
    """
    R = np.asarray(R, dtype=float)
    E = exp_so3(eps * np.vstack([np.eye(3), -np.eye(3)]))  # (6, 3, 3)
    vals = np.array([potential(R @ Ei) for Ei in E])
    return -(vals[:3] - vals[3:]) / (2.0 * eps)


def torque_defect(potential: Callable[[FloatArray], float], torque: Callable[[FloatArray], FloatArray],
                  R: FloatArray, eps: float = TORQUE_FD_EPS) -> float:
    """``max_i |τ(R)_i + dU(R exp(ε e_i))/dε|`` relative to ``max(1, |τ|)``: 0 up to O(ε²) when consistent."""
    tau = np.asarray(torque(R), dtype=float)
    if tau.shape != (3,):
        raise ValueError(f"torque(R) must return a (3,) vector (body frame), got shape {tau.shape}")
    fd = torque_from_potential(potential, R, eps)
    return float(np.abs(tau - fd).max() / max(1.0, float(np.abs(fd).max())))


def check_torque(potential: Callable[[FloatArray], float], torque: Callable[[FloatArray], FloatArray],
                 rotations: FloatArray, rtol: float = 1e-6, eps: float = TORQUE_FD_EPS) -> float:
    """Raise ValueError unless ``torque`` is −dU of ``potential`` at every rotation ``(k, 3, 3)``.

    The tolerance 1e-6 is far above the O(ε²) ≈ 1e-10 difference error and far below the 1e-1 defect of
    seed 001's misprinted coefficient 2(m−1)/m² in (3.5). Returns the largest defect.
    """
    worst = max(torque_defect(potential, torque, R, eps) for R in np.asarray(rotations, dtype=float).reshape(-1, 3, 3))
    if not worst <= rtol:
        raise ValueError(f"torque(R) is not −dU(R) of the potential: relative defect {worst:.3e} > {rtol:g} "
                         "against central differences along R exp(εe_i); check its sign (τ = −dU, body frame) "
                         "and coefficients, or pass torque=None to use finite differences")
    return worst


# --- unit quaternions in seed 003's notation ----------------------------------------------------


def quat_F(q: FloatArray) -> FloatArray:
    """``F(q) = [−q_v, q_s I − q_v^]`` (3×4) with ``q·(0, v) = F(q)ᵀ v`` (seed 003 §3.3; hats restored)."""
    q = np.asarray(q, dtype=float)
    out = np.empty(q.shape[:-1] + (3, 4))
    out[..., :, 0] = -q[..., 1:]
    out[..., :, 1:] = q[..., 0, None, None] * np.eye(3) - hat3(q[..., 1:])
    return out


def quat_G(q: FloatArray) -> FloatArray:
    """``G(q) = q_s I − q_v^`` (3×3) with ``Im(q·(0, v)) = G(q)ᵀ v`` (seed 003 §3.3)."""
    q = np.asarray(q, dtype=float)
    return q[..., 0, None, None] * np.eye(3) - hat3(q[..., 1:])


def quat_times_pure(q: FloatArray, v: FloatArray) -> FloatArray:
    """``q·(0, v)``."""
    pure = np.concatenate([np.zeros(np.shape(v)[:-1] + (1,)), np.asarray(v, dtype=float)], axis=-1)
    return quat_mul(np.asarray(q, dtype=float), pure)


__all__ = ["Retraction", "cay", "check_torque", "dcay", "dcay_inv", "dexp", "dexp_inv", "dexp_inv_series",
           "quat_F", "quat_G", "quat_times_pure", "torque_defect", "torque_from_potential"]
