"""The planar robot-plus-landmark model of seed 003 ch. 5 in both coordinate systems.

Symbols (the thesis's names): pose ``(p, θ)`` with ``p ∈ R²`` and ``R(θ)`` the rotation; landmarks
``p_i^f`` (global) or ``z_i = R(θ)ᵀ (p_i^f − p)`` (relative, body frame); ``J = [[0, −1], [1, 0]]``;
odometry increments ``Δd = v_m Δt`` (body frame, 2-vector) and ``Δθ = w_m Δt``.

State layouts (flat vectors, the thesis's order):

* classical ``x = (p, θ, p_1^f, …, p_N^f)`` ∈ SE(2) × R^{2N}, dimension ``3 + 2N``;
* reduced ``x = (p, θ, z_1, …, z_N)`` = ``(x_N, x_O)`` with ``x_N = (p, θ)`` unobservable and
  ``x_O = (z_1, …, z_N)`` observable.

The SE(2) action (5.8) is implemented with ``lgbeam.groups.SE2`` (a pose is the homogeneous matrix
``[[R(θ), p], [0, 1]]``; ``g`` acts by left multiplication on poses and on landmarks).

References
----------
Shen, X. (2019), PhD thesis, UCSD, ch. 5 (seed 003): eqs. (5.3)/(5.4) model, (5.7) unobservable
directions, (5.8) group action, (5.9)–(5.11) classical discrete model and transition matrix, the
measurement Jacobian after (5.11), (5.15)/(5.16) reduced model, (5.17)–(5.20) reduced discrete model
and transition matrix, (5.23) the change of coordinates.
"""

from __future__ import annotations

import logging

import numpy as np
from numpy.typing import ArrayLike

from lgbeam._typing import FloatArray
from lgbeam.groups import SE2

logger = logging.getLogger(__name__)

__all__ = [
    "J2",
    "act",
    "act_reduced",
    "measure_classical",
    "measurement_jacobian_classical",
    "measurement_jacobian_reduced",
    "noise_jacobian_classical",
    "noise_jacobian_reduced",
    "pose_matrix",
    "propagate_classical",
    "propagate_reduced",
    "rot2",
    "to_classical",
    "to_reduced",
    "to_reduced_jacobian",
    "transition_classical",
    "transition_reduced",
    "unobservable_basis_classical",
    "unobservable_basis_reduced",
    "wrap_angle",
]

J2: FloatArray = np.array([[0.0, -1.0], [1.0, 0.0]])
"""``J``, rotation by +π/2 (``J x`` is the generator of rotations; ``Jᵀ = −J``)."""

_SE2 = SE2()


def rot2(theta: FloatArray | float) -> FloatArray:
    """``R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]``, shape ``(..., 2, 2)``."""
    th = np.asarray(theta, dtype=float)
    if th.ndim == 0:  # the filters' per-step call: no stacking overhead
        c0, s0 = float(np.cos(th)), float(np.sin(th))
        return np.array([[c0, -s0], [s0, c0]])
    c, s = np.cos(th), np.sin(th)
    return np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)


def wrap_angle(a: FloatArray | float) -> FloatArray:
    """Angle(s) wrapped to ``[−π, π)``."""
    return np.mod(np.asarray(a, dtype=float) + np.pi, 2.0 * np.pi) - np.pi


def pose_matrix(x: FloatArray) -> FloatArray:
    """The SE(2) element ``[[R(θ), p], [0, 1]]`` of a state's pose ``x[:3] = (p, θ)``."""
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape[:-1] + (3, 3))
    out[..., :2, :2] = rot2(x[..., 2])
    out[..., :2, 2] = x[..., :2]
    out[..., 2, 2] = 1.0
    return out


def _n_landmarks(x: FloatArray) -> int:
    n = x.shape[-1] - 3
    if n < 0 or n % 2:
        raise ValueError(f"a planar SLAM state has 3 + 2N entries (p, θ, N landmarks); got {x.shape[-1]}")
    return n // 2


# ------------------------------------------------------------------------------------- propagation
def propagate_classical(x: FloatArray, dd: FloatArray, dth: float) -> FloatArray:
    """Nominal update (5.10): ``p ← p + R(θ) Δd``, ``θ ← θ + Δθ``, landmarks unchanged."""
    out = np.array(x, dtype=float)
    out[:2] = x[:2] + rot2(x[2]) @ dd
    out[2] = x[2] + dth
    return out


def propagate_reduced(x: FloatArray, dd: FloatArray, dth: float) -> FloatArray:
    """Nominal update (5.19): pose as (5.10), ``z_i ← (I − Δθ J) z_i − Δd``."""
    out = propagate_classical(x, dd, dth)
    z = np.asarray(x[3:], dtype=float).reshape(-1, 2)
    out[3:] = (z @ (np.eye(2) - dth * J2).T - dd).ravel()
    return out


def _pose_block(dp: FloatArray) -> FloatArray:
    blk = np.eye(3)
    blk[:2, 2] = J2 @ dp
    return blk


def transition_classical(p_next: FloatArray, p_prev: FloatArray, n_landmarks: int) -> FloatArray:
    """Transition matrix (5.11) ``Φ(x_{k+1}, x_k) = [[I, J(p_{k+1} − p_k)], [0, 1]] ⊕ I_{2N}``.

    Written through the two positions, it has the chain property
    ``Φ(x_{k+2}, x_{k+1}) Φ(x_{k+1}, x_k) = Φ(x_{k+2}, x_k)`` for any three points (5.1).
    """
    Phi = np.eye(3 + 2 * n_landmarks)
    Phi[:3, :3] = _pose_block(np.asarray(p_next, dtype=float) - np.asarray(p_prev, dtype=float))
    return Phi


def transition_reduced(p_next: FloatArray, p_prev: FloatArray, dth: float, n_landmarks: int) -> FloatArray:
    """Transition matrix (5.20): the pose block of (5.11) ⊕ ``(I − Δθ J)`` for every ``z_i``."""
    Phi = np.zeros((3 + 2 * n_landmarks,) * 2)
    Phi[:3, :3] = _pose_block(np.asarray(p_next, dtype=float) - np.asarray(p_prev, dtype=float))
    blk = np.eye(2) - dth * J2
    for i in range(n_landmarks):
        Phi[3 + 2 * i: 5 + 2 * i, 3 + 2 * i: 5 + 2 * i] = blk
    return Phi


def noise_jacobian_classical(x: FloatArray, dt: float) -> FloatArray:
    """``G = ∂x_{k+1}/∂(n_v, n_w)`` of (5.9), shape ``(3 + 2N, 3)``: ``Δt R(θ)`` on p, ``Δt`` on θ."""
    G = np.zeros((x.shape[-1], 3))
    G[:2, :2] = dt * rot2(x[2])
    G[2, 2] = dt
    return G


def noise_jacobian_reduced(x: FloatArray, dt: float) -> FloatArray:
    """``G`` of (5.18): the pose rows of (5.9) and ``[−Δt I, −Δt J z_i]`` for every ``z_i``."""
    G = noise_jacobian_classical(x, dt)
    z = np.asarray(x[3:], dtype=float).reshape(-1, 2)
    n = z.shape[0]
    G[3:, :2] = np.tile(-dt * np.eye(2), (n, 1))
    G[3:, 2] = (-dt * z @ J2.T).ravel()
    return G


# ------------------------------------------------------------------------------------- measurement
def measure_classical(x: FloatArray, idx: ArrayLike | None = None) -> FloatArray:
    """(5.4): ``z_i = R(θ)ᵀ (p_i^f − p)`` for the landmark slots ``idx`` (all by default), ``(n, 2)``."""
    f = np.asarray(x[3:], dtype=float).reshape(-1, 2)
    if idx is not None:
        f = f[np.asarray(idx, dtype=int)]
    return (f - x[:2]) @ rot2(x[2])  # rows: Rᵀ (f − p)


def measurement_jacobian_classical(x: FloatArray, idx: ArrayLike,
                                   f_lin: FloatArray | None = None) -> FloatArray:
    """``dh_i = R(θ)ᵀ [−I, Jᵀ(p_i^f − p), 0, …, I (slot i), …]`` stacked for the slots ``idx``.

    ``f_lin`` (``(len(idx), 2)``) replaces the landmark positions in the θ column: the first-estimates
    Jacobian evaluates it at each landmark's first estimate (Huang et al., ref. [24] of the thesis).
    """
    idx = np.asarray(idx, dtype=int)
    n = _n_landmarks(x)
    Rt = rot2(x[2]).T
    f = np.asarray(x[3:], dtype=float).reshape(-1, 2)[idx] if f_lin is None else np.asarray(f_lin, dtype=float)
    H = np.zeros((2 * idx.size, 3 + 2 * n))
    rows = np.arange(idx.size)
    Hb = H.reshape(idx.size, 2, 3 + 2 * n)
    Hb[:, :, :2] = -Rt
    Hb[:, :, 2] = (f - x[:2]) @ J2 @ Rt.T  # row i: Rᵀ Jᵀ (f_i − p)
    for c in range(2):
        Hb[rows, :, 3 + 2 * idx + c] = Rt[:, c]
    return H


def measurement_jacobian_reduced(n_landmarks: int, idx: ArrayLike) -> FloatArray:
    """Reduced measurement (5.16) ``z_i = Id(z_i)``: ``dh_i = [0₂ₓ₂, 0₂ₓ₁, 0, …, I (slot i), …]``."""
    idx = np.asarray(idx, dtype=int)
    H = np.zeros((2 * idx.size, 3 + 2 * n_landmarks))
    r = np.arange(2 * idx.size)
    H[r, 3 + np.repeat(2 * idx, 2) + np.tile([0, 1], idx.size)] = 1.0
    return H


# ------------------------------------------------------------------------------------- observability
def unobservable_basis_classical(x: FloatArray) -> FloatArray:
    """(5.7): ``N = [[I, Jp], [0, 1], [I, Jp_1^f], …]``, shape ``(3 + 2N, 3)`` (x, y translations; rotation)."""
    n = _n_landmarks(x)
    N = np.zeros((3 + 2 * n, 3))
    N[:2, :2] = np.eye(2)
    N[:2, 2] = J2 @ x[:2]
    N[2, 2] = 1.0
    f = np.asarray(x[3:], dtype=float).reshape(-1, 2)
    N[3:, :2] = np.tile(np.eye(2), (n, 1))
    N[3:, 2] = (f @ J2.T).ravel()
    return N


def unobservable_basis_reduced(x: FloatArray) -> FloatArray:
    """(5.17): ``N = [[I, Jp], [0, 1], [0, 0], …]`` (the group acts trivially on the ``z_i``)."""
    N = unobservable_basis_classical(x)
    N[3:] = 0.0
    return N


# ------------------------------------------------------------------------------------- coordinates
def to_reduced(x: FloatArray) -> FloatArray:
    """(5.23) ``(p, θ, p_i^f) → (p, θ, z_i = R(θ)ᵀ (p_i^f − p))``."""
    out = np.array(x, dtype=float)
    out[3:] = measure_classical(x).ravel()
    return out


def to_classical(x: FloatArray) -> FloatArray:
    """(5.23) ``(p, θ, z_i) → (p, θ, p_i^f = p + R(θ) z_i)``."""
    out = np.array(x, dtype=float)
    z = np.asarray(x[3:], dtype=float).reshape(-1, 2)
    out[3:] = (x[:2] + z @ rot2(x[2]).T).ravel()
    return out


def to_reduced_jacobian(x: FloatArray) -> FloatArray:
    """Jacobian of :func:`to_reduced` at the classical state ``x``: ``∂z_i/∂(p, θ, p_i^f) = dh_i``."""
    n = _n_landmarks(x)
    T = np.eye(3 + 2 * n)
    if n:
        T[3:] = measurement_jacobian_classical(x, np.arange(n))
    return T


def act(g: FloatArray, x: FloatArray) -> FloatArray:
    """The SE(2) action (5.8) on a classical state: ``pose ← g · pose``, ``p_i^f ← g · p_i^f``."""
    g = np.asarray(g, dtype=float)
    X = _SE2.compose(g, pose_matrix(x))
    out = np.empty_like(np.asarray(x, dtype=float))
    out[:2] = X[:2, 2]
    out[2] = x[2] + np.arctan2(g[1, 0], g[0, 0])  # θ keeps its branch (no wrapping)
    f = np.asarray(x[3:], dtype=float).reshape(-1, 2)
    out[3:] = (f @ g[:2, :2].T + g[:2, 2]).ravel()
    return out


def act_reduced(g: FloatArray, x: FloatArray) -> FloatArray:
    """The same action in reduced coordinates: the pose moves, the ``z_i`` are invariant."""
    out = act(g, np.concatenate([x[:3], np.zeros(x.shape[-1] - 3)]))
    out[3:] = x[3:]
    return out
