"""The joints' rows of Φ and B in one compiled pass (the numpy reference: ``JointRows.phi``/``jacobian_data``).

Per joint k (joints.py, module docstring): pQ = p̄_a p_b c̄₀ (the quaternion of Q = R_aᵀ R_b C₀ᵀ), ψ = log pQ, then
per row with b = T(ψ)⁻ᵀ n = T(−ψ)⁻¹ n

    translation row  Φ = d·(x_b − x_a)     B = [0, −(R_aᵀ d)ᵀ | 0, (R_bᵀ d)ᵀ]
    rotation row     Φ = n·ψ               B = [−(Q b)ᵀ, 0 | (C₀ᵀ b)ᵀ, 0]

``tests/test_step_core.py`` checks it against the numpy reference.
"""

from __future__ import annotations

import math

import numpy as np

from lgbeam._numba import njit
from lgbeam.groups import compiled_kernels as gk


@njit
def _qmul(a0, a1, a2, a3, b0, b1, b2, b3):  # type: ignore[no-untyped-def]
    return (a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3, a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
            a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1, a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0)


@njit
def joint_eval(q, ia, ib, c0, row_entry, row_rot, row_dir):  # type: ignore[no-untyped-def]
    """(Φ (m,), B entries (m, 12) in ``JointRows.pattern`` order) of every joint row."""
    k = ia.shape[0]
    pq = np.empty((k, 4))
    psi = np.empty((k, 3))
    tc = np.empty(k)
    for j in range(k):
        a, b = ia[j], ib[j]
        r0, r1, r2, r3 = _qmul(q[b, 0], q[b, 1], q[b, 2], q[b, 3], c0[j, 0], -c0[j, 1], -c0[j, 2], -c0[j, 3])
        p0, p1, p2, p3 = _qmul(q[a, 0], -q[a, 1], -q[a, 2], -q[a, 3], r0, r1, r2, r3)
        pq[j, 0], pq[j, 1], pq[j, 2], pq[j, 3] = p0, p1, p2, p3
        w0, w1, w2 = gk.quat_log1(p0, p1, p2, p3)
        psi[j, 0], psi[j, 1], psi[j, 2] = w0, w1, w2
        tc[j] = gk.tinv_c(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2))
    m = row_entry.shape[0]
    phi = np.empty(m)
    data = np.zeros((m, 12))
    for r in range(m):
        j = row_entry[r]
        a, b = ia[j], ib[j]
        d0, d1, d2 = row_dir[r, 0], row_dir[r, 1], row_dir[r, 2]
        if row_rot[r]:
            phi[r] = d0 * psi[j, 0] + d1 * psi[j, 1] + d2 * psi[j, 2]
            n0, n1, n2 = gk.tinv_so3(-psi[j, 0], -psi[j, 1], -psi[j, 2], tc[j], d0, d1, d2)
            u0, u1, u2 = gk.rotate(pq[j, 0], pq[j, 1], pq[j, 2], pq[j, 3], n0, n1, n2)
            data[r, 0], data[r, 1], data[r, 2] = -u0, -u1, -u2
            w0, w1, w2 = gk.rotate(c0[j, 0], -c0[j, 1], -c0[j, 2], -c0[j, 3], n0, n1, n2)
            data[r, 6], data[r, 7], data[r, 8] = w0, w1, w2
        else:
            phi[r] = d0 * (q[b, 4] - q[a, 4]) + d1 * (q[b, 5] - q[a, 5]) + d2 * (q[b, 6] - q[a, 6])
            u0, u1, u2 = gk.rotate(q[a, 0], -q[a, 1], -q[a, 2], -q[a, 3], d0, d1, d2)
            data[r, 3], data[r, 4], data[r, 5] = -u0, -u1, -u2
            w0, w1, w2 = gk.rotate(q[b, 0], -q[b, 1], -q[b, 2], -q[b, 3], d0, d1, d2)
            data[r, 9], data[r, 10], data[r, 11] = w0, w1, w2
    return phi, data


__all__ = ["joint_eval"]
