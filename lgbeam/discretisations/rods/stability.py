"""Stability of constrained equilibria: the tangent on ker B, its negative eigenvalues, critical modes,
and the rigid motions that supports leave free.

Inertia. For the symmetric part S of the tangent K_t = K + Z and a full-row-rank B (m rows), Sylvester's
law applied to the saddle-point matrix gives

    In([[S, Bᵀ], [B, 0]]) = In(Zᵀ S Z) + (m, m, 0)       (Z a basis of ker B)

(Gould 1985; Nocedal & Wright 2006, Thm 16.3), so the number of negative eigenvalues of the tangent on ker B
is #neg(KKT) − m. We order the unknowns node by node (the six dofs of node i, then the constraint rows whose
last node is i), which makes the KKT matrix banded (half-bandwidth ≈ 20 for a rod) and puts every zero diagonal
of a constraint row after the dofs it couples, scale it symmetrically (a congruence: inertia unchanged) and
factor it as L D Lᵀ in band storage without pivoting (``_compiled.band_ldl_pivots``): by Sylvester's law the
signs of D are the inertia; O(N·bw²) work, O(N·bw) memory. A (near-)zero pivot (|d| ≤ 64 ε max|d|: a state
at or next to a critical point, or an unlucky leading block) or numba switched off falls back to LAPACK's
banded eigensolver restricted to (−∞, −τ) (``eigvals_banded``, dsbevx; exact but O(N·m), because the m
constraint eigenvalues of the KKT matrix are negative); τ = 1e-12 of the scaled norm.

Critical modes: the eigenpairs of S φ = ω² M φ on ker B nearest a shift, by ARPACK shift-invert on the
saddle-point pencil ([[S, Bᵀ], [B, 0]], [[M, 0], [0, 0]]) (the singular right-hand matrix only adds
infinite eigenvalues; Golub & Van Loan 2013 §8.7).

Rigid motions: a spatial translation a and a rotation ω about the point c give the body velocities
Ω_i = R_iᵀ ω, U_i = R_iᵀ (a + ω × (x_i − c)); the free ones span the null space of B applied to these six
fields (SVD), named as translations or as rotations/screws about an axis through a point.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lgbeam._numba import ENABLED as NUMBA_ENABLED
from lgbeam._sparse import arpack_start
from lgbeam._typing import FloatArray

from ._compiled import band_ldl_pivots

logger = logging.getLogger(__name__)

ZERO_TOL = 1e-12  # eigenvalues of the scaled KKT matrix within this of 0 count as zero
SYM_TOL = 1e-8  # relative skew part above which a tangent counts as non-symmetric (non-conservative loads)


def _node_ranks(S: sp.csr_array, B: sp.csr_array, n_nodes: int) -> np.ndarray:
    """Position of every node in a bandwidth-reducing order of the node graph (nodes coupled by S or by one
    constraint row): the natural order (a rod's), unless a reverse Cuthill–McKee order is narrower — a frame's
    joint rows couple the end of one rod to the start or end of another, which in the natural order makes the
    band as wide as a whole rod (a dense band matrix of rod × structure size)."""
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    Sc = sp.coo_array(S)
    Bc = sp.coo_array(B)
    Sn = sp.csr_array((np.ones(Sc.nnz, dtype=np.int32), (Sc.row // 6, Sc.col // 6)), shape=(n_nodes, n_nodes))
    Bn = sp.csr_array((np.ones(Bc.nnz, dtype=np.int32), (Bc.row, Bc.col // 6)), shape=(B.shape[0], n_nodes))
    P = sp.coo_array(Sn + Bn.T @ Bn)
    natural = np.arange(n_nodes)
    bw = int(np.abs(P.row - P.col).max(initial=0))
    if bw <= 8:
        return natural
    order = reverse_cuthill_mckee(sp.csr_matrix(P), symmetric_mode=True)
    rank = np.empty(n_nodes, dtype=np.intp)
    rank[order] = natural
    return rank if int(np.abs(rank[P.row] - rank[P.col]).max(initial=0)) < bw else natural


def _node_of_rows(B: sp.csr_array, rank: np.ndarray | None = None) -> np.ndarray:
    """Largest node (by ``rank``, default the node index) touched by each constraint row (no entry: 0)."""
    Bc = sp.coo_array(B)
    last = np.zeros(B.shape[0], dtype=np.intp)
    if Bc.nnz:
        node = Bc.col // 6
        np.maximum.at(last, Bc.row, node if rank is None else rank[node])
    return last


def kkt_matrix(S: Any, B: Any) -> tuple[sp.csr_array, np.ndarray]:
    """The saddle-point matrix [[S, Bᵀ], [B, 0]] and the node-by-node ordering that makes it banded (each
    constraint row after the last node it couples)."""
    S, B = sp.csr_array(S), sp.csr_array(B)
    n, m = S.shape[0], B.shape[0]
    rank = _node_ranks(S, B, n // 6) if n % 6 == 0 else np.arange(-(-n // 6))
    A = sp.block_array([[S, B.T], [B, None]], format="csr") if m else S
    dofs = 2 * rank[np.arange(n) // 6]
    key = np.concatenate([dofs, 2 * _node_of_rows(B, rank) + 1]) if m else dofs
    perm = np.argsort(key, kind="stable")
    return A, perm


def _banded_lower(A: sp.csr_array) -> FloatArray:
    coo = sp.coo_array(A)
    low = coo.row >= coo.col
    r, c, v = coo.row[low], coo.col[low], coo.data[low]
    bw = int((r - c).max(initial=0))
    ab = np.zeros((bw + 1, A.shape[0]))
    np.add.at(ab, (r - c, c), v)
    return ab


def is_symmetric(K: Any, tol: float = SYM_TOL) -> bool:
    """max |K − Kᵀ| ≤ tol · max |K| (a conservative tangent at an equilibrium is symmetric)."""
    K = sp.csr_array(K)
    skew = abs(K - K.T)
    return float(skew.max()) <= tol * float(abs(K).max()) if K.nnz else True


def negative_count(S: Any, B: Any, M: Any = None) -> tuple[int, int]:
    """(number of unstable eigenvalues of the tangent on ker B, number of (near-)zero ones).

    Symmetric tangent (conservative loads): the negative eigenvalues, exactly, from the banded inertia of the
    saddle-point matrix (module docstring). Non-symmetric tangent (follower loads, spatial moments in 3-D;
    needs the mass ``M``): the eigenvalues of K φ = μ M φ on ker B with negative real part (divergence),
    counted among those nearest zero by ARPACK shift-invert (``nonsymmetric_count``)."""
    S = sp.csr_array(S)
    if M is not None and not is_symmetric(S):
        return nonsymmetric_count(S, M, B)
    S = ((S + S.T) * 0.5).tocsr()
    m = sp.csr_array(B).shape[0]
    A, perm = kkt_matrix(S, B)
    A = sp.csr_array(A)[perm][:, perm]
    rowmax = np.asarray(abs(A).max(axis=1).toarray()).ravel()
    s = 1.0 / np.sqrt(np.where(rowmax > 0, rowmax, 1.0))
    A = (sp.diags_array(s) @ A @ sp.diags_array(s)).tocsr()
    pivots = _ldl_pivots(A)
    if pivots is not None:
        return int(np.sum(pivots < 0)) - m, 0
    ab = _banded_lower(A)  # the LDLᵀ needed a pivot off the diagonal: the banded eigensolver, O(N·m)
    neg = la.eigvals_banded(ab, lower=True, select="v", select_range=(-np.inf, -ZERO_TOL))
    near = la.eigvals_banded(ab, lower=True, select="v", select_range=(-ZERO_TOL, ZERO_TOL))
    return int(neg.size) - m, int(near.size)


def _ldl_pivots(A: sp.csr_array) -> FloatArray | None:
    """The pivots D of A = L D Lᵀ in the given (banded, node-by-node) order (compiled banded LDLᵀ without
    pivoting), or None when a pivot is (near) zero or numba is off (the caller then uses the eigensolver)."""
    if not NUMBA_ENABLED:
        return None
    d = band_ldl_pivots(_banded_lower(A))
    if not np.all(np.isfinite(d)) or np.min(np.abs(d)) <= 64 * np.finfo(float).eps * float(np.max(np.abs(d))):
        return None
    return d


def nonsymmetric_count(K: Any, M: Any, B: Any, k0: int = 6) -> tuple[int, int]:
    """(eigenvalues with Re μ < 0, with |μ| ≈ 0) of K φ = μ M φ on ker B for a non-symmetric K: ARPACK
    shift-invert about a small negative shift, doubling the number k of eigenvalues until one with Re μ ≥ 0
    is among them (unstable eigenvalues of a loaded rod appear one or two at a time near zero); at most DENSE_EIGS
    unknowns, every eigenvalue of Zᵀ K Z y = μ Zᵀ M Z y densely (Z an orthonormal basis of ker B)."""
    K, M, B = sp.csr_array(K), sp.csr_array(M), sp.csr_array(B)
    n, m = K.shape[0], B.shape[0]
    scale = float(np.max(np.abs(K.diagonal()))) / float(np.max(M.diagonal()))
    tol = 1e-9 * scale
    if n <= DENSE_EIGS:  # a handful of elements: every eigenvalue densely (ARPACK cannot factorise k near n − m)
        Z = null_basis(B, n)
        vals = la.eigvals(Z.T @ (K @ Z), Z.T @ (M @ Z))
        return int(np.sum(vals.real < -tol)), int(np.sum(np.abs(vals) <= tol))
    A = sp.block_array([[K, B.T], [B, None]], format="csc") if m else K.tocsc()
    Mb = sp.block_diag([M, sp.csr_array((m, m))], format="csc") if m else M.tocsc()
    k = k0
    while True:
        k = min(k, n - m - 2)
        vals = spla.eigs(A, k=k, M=Mb, sigma=-1e-6 * scale, which="LM", return_eigenvectors=False,
                         v0=arpack_start(A.shape[0]))
        neg = int(np.sum(vals.real < -tol))
        zero = int(np.sum(np.abs(vals) <= tol))
        if neg + zero < k or k >= n - m - 2:
            return neg, zero
        k *= 2


@dataclass(frozen=True)
class Modes:
    """Eigenpairs of S φ = μ M φ on ker B: μ ascending (ω² for modes), φ (k, n) with φᵀ M φ = 1."""

    values: FloatArray
    vectors: FloatArray


def null_basis(B: Any, n: int) -> FloatArray:
    """An orthonormal basis (n, n − rank B) of ker B, dense: for the small problems of DENSE_EIGS only."""
    Bd = B.toarray() if sp.issparse(B) else np.asarray(B, dtype=float)
    return la.null_space(Bd) if Bd.shape[0] else np.eye(n)


DENSE_EIGS = 120  # at most this many unknowns (20 nodes): the dense null-space route instead of ARPACK


def constrained_eigs(S: Any, M: Any, B: Any, k: int, sigma: float = 0.0) -> Modes:
    """The ``k`` eigenpairs of S φ = μ M φ, B φ = 0 nearest ``sigma`` (ARPACK shift-invert, sparse LU; for
    at most DENSE_EIGS unknowns, dense: Zᵀ S Z y = μ Zᵀ M Z y with Z an orthonormal basis of ker B)."""
    S, M, B = sp.csr_array(S), sp.csr_array(M), sp.csr_array(B)
    S = ((S + S.T) * 0.5).tocsr()
    n, m = S.shape[0], B.shape[0]
    n_free = n - m
    if not 1 <= k < n_free:
        raise ValueError(f"asked for {k} modes but the constrained problem has {n_free} degrees of freedom; ask for 1 … {n_free - 1}")
    if n <= DENSE_EIGS:  # a handful of elements: ARPACK cannot build its factorisation when k nears n_free
        Z = null_basis(B, n)
        mu, y = la.eigh(Z.T @ (S @ Z), Z.T @ (M @ Z))
        pick = np.sort(np.argsort(np.abs(mu - sigma), kind="stable")[:k])
        vals, vecs = mu[pick], Z @ y[:, pick]
    else:
        A = sp.block_array([[S, B.T], [B, None]], format="csc") if m else S.tocsc()
        Mb = sp.block_diag([M, sp.csr_array((m, m))], format="csc") if m else M.tocsc()
        vals, vecs = spla.eigsh(A, k=k, M=Mb, sigma=sigma, which="LM", v0=arpack_start(A.shape[0]))
        order = np.argsort(vals)
        vals, vecs = vals[order], vecs[:n, order]
    norms = np.sqrt(np.einsum("ik,ik->k", vecs, M @ vecs))
    return Modes(values=vals, vectors=(vecs / norms).T)


def rigid_fields(G: Any, q: FloatArray, centre: FloatArray) -> FloatArray:
    """(6, 6(N+1)) body velocities of the six rigid motions: translations along x, y, z, then rotations
    about x, y, z through ``centre``."""
    R, x = G.rotation(q), G.translation(q)
    out = np.zeros((6, q.shape[0], 6))
    for k in range(3):
        e = np.zeros(3)
        e[k] = 1.0
        out[k, :, 3:] = np.einsum("nji,j->ni", R, e)
        out[3 + k, :, :3] = np.einsum("nji,j->ni", R, e)
        out[3 + k, :, 3:] = np.einsum("nji,nj->ni", R, np.cross(e, x - centre))
    return out.reshape(6, -1)


def _fmt(v: FloatArray) -> str:
    v = np.where(np.abs(v) < 1e-12, 0.0, v)
    return "(" + ", ".join(f"{c:.4g}" for c in v) + ")"


def _name(a: FloatArray, w: FloatArray, centre: FloatArray, scale: float) -> str:
    axes = ("x", "y", "z")
    if np.linalg.norm(w) * scale < 1e-6 * np.linalg.norm(a):
        d = a / np.linalg.norm(a)
        k = int(np.argmax(np.abs(d)))
        return f"translation along {axes[k]}" if abs(abs(d[k]) - 1.0) < 1e-9 else f"translation along {_fmt(d)}"
    ws = w * scale  # O(1): |w|² itself underflows for a structure of astronomical size
    n2 = float(ws @ ws)
    point = centre + scale * np.cross(ws, a) / n2
    pitch = scale * float(ws @ a) / n2
    d = ws / np.sqrt(n2)
    k = int(np.argmax(np.abs(d)))
    axis = axes[k] if abs(abs(d[k]) - 1.0) < 1e-9 else _fmt(d)
    what = "rotation" if abs(pitch) < 1e-9 * scale else f"screw motion (pitch {pitch:.4g})"
    return f"{what} about {axis} through {_fmt(point)}"


def free_rigid_motions(G: Any, q: FloatArray, B: Any, tol: float = 1e-8, springs: Any = None) -> list[str]:
    """Names of the rigid motions of configuration q that the constraints B and the spring supports ``springs``
    (their stiffness, symmetric positive semi-definite: K F = 0 exactly when Fᵀ K F = 0) leave free (empty: none)."""
    x = G.translation(q)
    centre = x.mean(axis=0)
    scale = max(float(np.ptp(x, axis=0).max()), 1e-300)
    F = rigid_fields(G, q, centre)
    blocks = []
    for A in (B, springs):
        if A is None or A.shape[0] == 0 or sp.csr_array(A).nnz == 0:
            continue
        Am = sp.csr_array(A)
        ref = max(float(np.abs(Am.data).max(initial=0.0)), 1e-300)
        blocks.append(np.asarray(Am @ F.T) / (ref * np.sqrt(Am.shape[0] + 1)))  # rows normalised per kind
    Y = np.vstack(blocks) if blocks else np.zeros((0, 6))
    Y[:, 3:] *= 1.0 / scale  # a rotation moves points by ~scale: same units as the translations
    if Y.shape[0] == 0:
        null = np.eye(6)
    else:
        # economy SVD: vt is 6 x 6 whenever Y has >= 6 rows (a full U would be a dense rows x rows matrix)
        _, sv, vt = np.linalg.svd(Y, full_matrices=Y.shape[0] < 6)
        sv = np.concatenate([sv, np.zeros(6 - sv.size)])
        null = vt[sv <= tol]
    null = _canonical(null)
    out = []
    for v in null:
        a, w = v[:3], v[3:] / scale
        out.append(_name(a, w, centre, scale))
    return out


def _canonical(null: FloatArray) -> FloatArray:
    """A readable basis of the null space: reduced row echelon form (axis-aligned motions stay axis-aligned)."""
    if null.shape[0] == 0:
        return null
    M = null.copy()
    r = 0
    for c in range(6):
        if r == M.shape[0]:
            break
        p = r + int(np.argmax(np.abs(M[r:, c])))
        if abs(M[p, c]) < 1e-10:
            continue
        M[[r, p]] = M[[p, r]]
        M[r] /= M[r, c]
        for i in range(M.shape[0]):
            if i != r:
                M[i] -= M[i, c] * M[r]
        r += 1
    return M


def check_no_rigid_motion(G: Any, q: FloatArray, B: Any, what: str, springs: Any = None,
                          parts: Any = None) -> None:
    """Raise ValueError naming the free rigid motions, if any (static and modal analyses need none); spring
    supports (``springs``: their stiffness) hold a motion as a constraint row does. ``parts``: the connected
    parts of a structure, [(rod names, global node indices)] (``Structure.parts``); each part not joined to a
    support is named with the motions it leaves free (a whole-structure check cannot see a loose member)."""
    free = free_rigid_motions(G, q, B, springs=springs)
    if free:
        raise ValueError(
            f"{what} needs supports that fix every rigid motion; {' and '.join(free)} "
            f"{'is' if len(free) == 1 else 'are'} free: add a support (e.g. clamp an end), a spring support on it, or fix that motion"
        )
    if parts is None or len(parts) < 2:
        return
    q = np.asarray(q).reshape(-1, 7)
    Bc = None if B is None else sp.csc_array(B)
    Kc = None if springs is None else sp.csc_array(springs)
    for names, nodes in parts:
        cols = (6 * np.asarray(nodes)[:, None] + np.arange(6)).ravel()
        sub = [None if A is None else _nonzero_rows(sp.csr_array(A[:, cols])) for A in (Bc, Kc)]
        free = free_rigid_motions(G, q[nodes], sub[0], springs=sub[1])
        if free:
            rods = ", ".join(map(repr, names))
            motions = (f"all six rigid motions ({' and '.join(free)})" if len(free) == 6 else " and ".join(free))
            raise ValueError(
                f"{what} needs supports that fix every rigid motion; rod{'s' if len(names) > 1 else ''} {rods} "
                f"{'are' if len(names) > 1 else 'is'} joined to no support, so {motions} "
                f"{'is' if len(free) == 1 else 'are'} free: join {'them' if len(names) > 1 else 'it'} to the "
                "structure (model.joints) or add a support")


def _nonzero_rows(A: sp.csr_array) -> sp.csr_array:
    A.eliminate_zeros()
    return A[np.flatnonzero(np.diff(A.indptr))]
