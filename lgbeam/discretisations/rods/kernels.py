"""Element-vectorised rod kernels: (N, ...) arrays in, (N, ...) arrays out; no globals, no loops.

Symbols (seed 004 §4):
    q_i = (p_i, x_i) ∈ S³⋉R³           nodal frames, stored (N+1, 7) = [w, x, y, z, x1, x2, x3]
    r_e = q_{i−1}⁻¹ q_i                relative element of edge e = i−½
    xi_e = log(r_e) = Δs_e w_e         w = (K, Γ): curvature and material strain, eq. (23)
    Jp_e = T(xi_e)⁻¹                   d xi_e / d eta_i         (q_i ∘ exp(ε eta_i))
    Jm_e = −T(xi_e)⁻¹ Ad(r_e⁻¹)        d xi_e / d eta_{i−1}     (q_{i−1} ∘ exp(ε eta_{i−1}))
    sigma_e = C (w_e − w0_e) + C_d ẇ_e  sectional stress (moment m, force n) in the body frame
Derivation of Jm: q_{i−1} exp(ε η) gives r ↦ exp(−ε η) r = r exp(−ε Ad(r⁻¹) η), and
exp(ξ) exp(ε ζ) = exp(ξ + ε T(ξ)⁻¹ ζ + O(ε²)) with the convention of docs/architecture.md.

Two layers: the readable kernels (``edge_logs``, ``edge_jacobians``, ``edge_rates``, ``edge_stress``,
``scatter_edge_forces``) state the definitions through any group ``G``; the fused ones
(``edge_kinematics``, ``internal_forces``, ``elastic_energy``) are what ``CosseratRod`` runs
(``NUMPY_KERNELS``), twins of the compiled kernels in ``_compiled.py``. ``tests/test_jit.py`` checks
both fused paths against the readable definitions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import cross, quat_mul, quat_rotate
from lgbeam.groups.se3 import tangent_inv_pair
from lgbeam.groups.so3 import quat_log, tangent_inv_so3_apply

from .loads import NUMPY_LOADS, LoadKernels

_CONJ = np.array([1.0, -1.0, -1.0, -1.0])


def relative_elements(G: Any, q: FloatArray) -> FloatArray:
    """r_e = q_{i−1}⁻¹ q_i for all edges; q (N+1, 7) → (N, 7)."""
    return G.compose(G.inverse(q[:-1]), q[1:])


def edge_logs(G: Any, q: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(r, xi): relative elements (N, 7) and xi_e = log(r_e) (N, 6) (seed 004 eq. (23) times Δs)."""
    r = relative_elements(G, q)
    return r, G.log(r)


def edge_jacobians(G: Any, r: FloatArray, xi: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(Jm, Jp), each (N, 6, 6): derivatives of xi_e along left-translated directions of q_{i−1}, q_i."""
    Jp = np.asarray(G.tangent_inv(xi))
    Jm = -Jp @ np.asarray(G.Ad(G.inverse(r)))
    return Jm, Jp


def edge_kinematics(q: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(xi, JJ) of all edges of an S³⋉R³ configuration q (N+1, 7), fused for speed.

    xi_e = log(q_{i−1}⁻¹ q_i) (N, 6) as ``edge_logs``; JJ (N, 6, 12) holds [Jm_e | Jp_e] row by row,
    with Jp_e = T(xi_e)⁻¹ and Jm_e = −T(xi_e)⁻¹ Ad(r_e⁻¹) = −T(−xi_e)⁻¹ (``tangent_inv_pair``), equal
    to ``edge_jacobians`` up to round-off.
    """
    pa = q[:-1, :4] * _CONJ
    rp = quat_mul(pa, q[1:, :4])
    rx = quat_rotate(pa, q[1:, 4:] - q[:-1, 4:])  # R(p_a)ᵀ (x_b − x_a)
    W = quat_log(rp)
    xi = np.concatenate([W, tangent_inv_so3_apply(-W, rx)], axis=1)
    return xi, tangent_inv_pair(xi)


def edge_rates(Jm: FloatArray, Jp: FloatArray, v: FloatArray) -> FloatArray:
    """d xi_e / dt = Jm_e v_{i−1} + Jp_e v_i; v (N+1, 6) → (N, 6)."""
    return np.einsum("eij,ej->ei", Jm, v[:-1]) + np.einsum("eij,ej->ei", Jp, v[1:])


def edge_stress(
    xi: FloatArray, ds: FloatArray, w0: FloatArray, C: FloatArray, xi_dot: FloatArray | None = None,
    C_d: FloatArray | None = None,
) -> FloatArray:
    """sigma_e = C (xi_e/Δs_e − w0_e) + C_d (xi_dot_e/Δs_e), (N, 6) (Kelvin–Voigt)."""
    sigma = C * (xi / ds[:, None] - w0)
    if xi_dot is not None and C_d is not None:
        sigma = sigma + C_d * (xi_dot / ds[:, None])
    return sigma


def scatter_edge_forces(Jm: FloatArray, Jp: FloatArray, sigma: FloatArray) -> FloatArray:
    """Nodal generalised forces f_{i−1} += Jmᵀσ, f_i += Jpᵀσ; (N+1, 6)."""
    n = sigma.shape[0]
    f = np.zeros((n + 1, 6))
    f[:-1] += np.einsum("eji,ej->ei", Jm, sigma)
    f[1:] += np.einsum("eji,ej->ei", Jp, sigma)
    return f


def elastic_energy(xi: FloatArray, ds: FloatArray, w0: FloatArray, C: FloatArray) -> float:
    """V = Σ_e Δs_e ½ (w_e − w0_e)ᵀ C (w_e − w0_e) (midpoint rule per edge)."""
    dw = xi / ds[:, None] - w0
    return float(0.5 * np.sum(ds[:, None] * C * dw * dw))


def gyroscopic(v: FloatArray, J: FloatArray, m: FloatArray) -> FloatArray:
    """(Ω × JΩ, m Ω × U) per node for body velocities v = (Ω, U) (Euler–Poincaré on S³⋉R³); (N+1, 6)."""
    Om, U = v[:, :3], v[:, 3:]
    return np.concatenate([cross(Om, J * Om), m[:, None] * cross(Om, U)], axis=1)


def scatter_pair_forces(JJ: FloatArray, sigma: FloatArray) -> FloatArray:
    """``scatter_edge_forces`` for the fused JJ = [Jm | Jp] (N, 6, 12); (N+1, 6)."""
    g = (sigma[:, None, :] @ JJ)[:, 0, :]
    f = np.zeros((sigma.shape[0] + 1, 6))
    f[:-1] += g[:, :6]
    f[1:] += g[:, 6:]
    return f


def pair_rates(JJ: FloatArray, v: FloatArray) -> FloatArray:
    """``edge_rates`` for the fused JJ = [Jm | Jp]; v (N+1, 6) → (N, 6)."""
    return (JJ @ np.concatenate([v[:-1], v[1:]], axis=1)[:, :, None])[:, :, 0]


def internal_forces(
    xi: FloatArray, JJ: FloatArray, V: FloatArray, C_ds: FloatArray, Cw0: FloatArray, Cd_ds: FloatArray | None,
    J: FloatArray, m: FloatArray,
) -> FloatArray:
    """Elastic + Kelvin–Voigt + gyroscopic nodal forces g (N+1, 6) (``CosseratRod.forces`` without loads).

    sigma_e = C_ds xi_e − Cw0 (+ Cd_ds JJ_e [v_e; v_{e+1}]), i.e. ``edge_stress`` with the constant factors
    C/Δs, C w0, C_d/Δs (``Cd_ds`` None: no damping); g = ``scatter_pair_forces`` + ``gyroscopic``.
    """
    sigma = C_ds * xi - Cw0
    if Cd_ds is not None:
        sigma += Cd_ds * pair_rates(JJ, V)
    g = scatter_pair_forces(JJ, sigma)
    g += gyroscopic(V, J, m)
    return g


class RodKernels(NamedTuple):
    """What ``CosseratRod`` runs: ``NUMPY_KERNELS`` (this module) or ``_compiled.KERNELS`` (same signatures)."""

    edge_kinematics: Callable[[FloatArray], tuple[FloatArray, FloatArray]]
    internal_forces: Callable[..., FloatArray]
    elastic_energy: Callable[[FloatArray, FloatArray, FloatArray, FloatArray], float]
    step_residuals: Callable[..., tuple[float, float, float]] | None  # fused driver diagnostics (compiled only)
    loads: LoadKernels


NUMPY_KERNELS = RodKernels(edge_kinematics, internal_forces, elastic_energy, None, NUMPY_LOADS)
