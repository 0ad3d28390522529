"""Static equilibrium of a rod: g(t, q, 0) + B(q)ᵀλ = 0, Φ(q) = 0, solved by a Lie group Newton method.

Updates are q ← q ∘ exp(Δη) (node-wise); the tangent stiffness d(g + Bᵀλ)/dη is built column-group
by column-group with central differences of the exact forces, perturbing every third node at once
(the rod couples only neighbouring nodes), so it is sparse and costs 36 force evaluations per
Newton step for any N. The saddle-point system [[K, Bᵀ], [B, 0]] is solved with a sparse LU.
Loads are followed by ``n_load_steps`` increments of a scale factor on the external forces.
"""

from __future__ import annotations

import logging
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lgbeam._typing import FloatArray

from .rod import CosseratRod

logger = logging.getLogger(__name__)


def _residual_forces(rod: CosseratRod, t: float, q: FloatArray, lam: FloatArray, scale: float) -> FloatArray:
    g = rod.forces(t, q, np.zeros(6 * rod.n_nodes))
    if scale != 1.0:
        g = g + (1.0 - scale) * rod.external_forces(t, q)
    if rod.n_constraints:
        g = g + rod.constraint_jacobian(q).T @ lam
    return g


def _perturb(rod: CosseratRod, q: FloatArray, eta: FloatArray) -> FloatArray:
    return rod.G.compose(q, rod.G.exp(eta.reshape(rod.n_nodes, 6)))


def coloured_jacobian(rod: CosseratRod, q: FloatArray, g, eps: float = 1e-6) -> sp.csr_array:  # type: ignore[no-untyped-def]
    """∂g/∂η at q for nodal forces ``g(q) -> (n_nodes, 6)`` that couple neighbouring nodes only.

    Central differences along q ∘ exp(±ε η), perturbing every third node at once (a 3-colouring of
    the chain): 36 evaluations of g for any N; sparse (6(N+1), 6(N+1)).
    """
    n = rod.n_nodes
    rows, cols, vals = [], [], []
    node = np.arange(n)
    for c in range(3):
        group = node[node % 3 == c]
        for j in range(6):
            eta = np.zeros((n, 6))
            eta[group, j] = eps
            d = (g(_perturb(rod, q, eta.ravel())) - g(_perturb(rod, q, -eta.ravel()))) / (2.0 * eps)
            for off in (-1, 0, 1):  # rows of the neighbours of each perturbed node
                src = group + off
                ok = (src >= 0) & (src < n)
                rows.append(((6 * src[ok])[:, None] + np.arange(6)).ravel())
                cols.append(np.repeat(6 * group[ok] + j, 6))
                vals.append(d[src[ok]].ravel())
    return sp.coo_array(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(6 * n, 6 * n)
    ).tocsr()


def _tangent_stiffness(rod: CosseratRod, t: float, q: FloatArray, lam: FloatArray, scale: float, eps: float) -> sp.csr_array:
    return coloured_jacobian(rod, q, lambda qq: _residual_forces(rod, t, qq, lam, scale).reshape(rod.n_nodes, 6), eps)


def static_equilibrium(
    rod: CosseratRod,
    *,
    t: float = 0.0,
    q0: FloatArray | None = None,
    n_load_steps: int = 1,
    tol: float = 1e-10,
    max_iter: int = 30,
    eps: float = 1e-6,
) -> tuple[FloatArray, FloatArray]:
    """Equilibrium (q, λ) under the loads at time ``t``, starting from ``q0`` (default: reference).

    Converged when the scaled residual max|g + Bᵀλ| + max|Φ| < ``tol`` (relative to the largest
    stiffness). Raises ValueError if Newton fails (increase ``n_load_steps``).
    """
    if n_load_steps < 1:
        raise ValueError(f"n_load_steps must be >= 1, got {n_load_steps}")
    q = np.array(rod.q_ref if q0 is None else q0, dtype=float)
    m, ndof = rod.n_constraints, 6 * rod.n_nodes
    lam = np.zeros(m)
    ref = float(np.max(rod.material.stiffness))
    for k in range(1, n_load_steps + 1):
        scale = k / n_load_steps
        for it in range(max_iter):
            r = _residual_forces(rod, t, q, lam, scale)
            phi = rod.constraints(q)
            res = np.max(np.abs(r)) / ref + (np.max(np.abs(phi)) if m else 0.0)
            if res < tol:
                break
            K = _tangent_stiffness(rod, t, q, lam, scale, eps)
            if m:
                B = rod.constraint_jacobian(q)
                A = sp.block_array([[K, B.T], [B, None]], format="csc")
                sol = spla.spsolve(A, -np.concatenate([r, phi]))
                dq, dlam = sol[:ndof], sol[ndof:]
            else:
                dq, dlam = spla.spsolve(K.tocsc(), -r), np.zeros(0)
            if not np.all(np.isfinite(dq)):
                raise ValueError(f"static Newton step is singular at load step {k}; check the supports (rigid-body modes?)")
            q = _perturb(rod, q, dq)
            lam = lam + dlam
        else:
            raise ValueError(
                f"static Newton did not converge at load step {k}/{n_load_steps} (residual {res:.3g}); "
                "increase n_load_steps"
            )
        logger.debug("load step %d/%d converged in %d iterations", k, n_load_steps, it)
    return q, lam
