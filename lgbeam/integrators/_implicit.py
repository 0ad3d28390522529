"""What the implicit mechanical methods share: tangent matrices and the sparse Newton (KKT) solves.

Symbols (``lgbeam.systems``): M v' = −g(t, q, v) − B(q)ᵀλ, Φ(q) = 0, all derivatives along
left-translated directions w (q ∘ exp(εw)):

    K_q w = d/dε [g(t, q ∘ exp(εw), v) + B(q ∘ exp(εw))ᵀ λ]|₀      (stiffness K plus constraint stiffness Z)
    C u   = d/dε g(t, q, v + εu)|₀                                 (damping, gyroscopic terms)

A system with ``HasTangents`` gives them exactly (``stiffness + constraint_stiffness``, ``damping``).
Otherwise ``FiniteDifferenceTangents`` forms them by central differences: dense (all columns) for small
systems, else *coloured* for large sparse ones — columns whose blocks are more than 2b + 1 blocks apart
are perturbed together, assuming the forces couple blocks at most ``b`` apart (block size: the mass
matrix's blocks, 6 by default). The assumption is checked once, when the helper is built, against a
directional derivative along a random direction; b doubles until it holds (up to the dense case). This
module never imports a discretisation: the structure is discovered through the protocol only.

``KKTFactor`` factorises the (non-symmetric) Newton matrix [[A, E], [F, G]] once (sparse LU, scipy's
SuperLU with COLAMD ordering, O(n) for banded structure; dense LU below ``DENSE_LIMIT`` unknowns) and
solves with it as often as asked (iteration-matrix reuse).

References
----------
Curtis, Powell & Reid (1974), "On the estimation of sparse Jacobian matrices", J. Inst. Maths Applics 13
(column colouring); Brüls, Cardona & Arnold (2012), Mech. Mach. Theory 48, §4 (tangent operators along
left-translated directions, iteration matrix).
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lgbeam._typing import FloatArray
from lgbeam.integrators._banded import BandedLU, band_order, band_positions, band_width
from lgbeam.systems import ConstrainedMechanicalSystem, HasMassBlocks, HasTangents, LieGroup, supports

logger = logging.getLogger(__name__)

DENSE_LIMIT = 60  # unknowns below which dense LU and dense finite differences are used
FD_EPS = 1e-6  # central-difference step (truncation ~ε² relative)
NONFINITE_SOLVE = "the Newton solve gave non-finite values (singular matrix)"


class SingularNewtonMatrix(RuntimeError):
    """The Newton (KKT) matrix is singular: redundant constraints, or a step far too large."""


@runtime_checkable
class BlockDiagonalGroup(LieGroup, Protocol):
    """A product group whose tangent operator is block diagonal, one block per factor (``Product``)."""

    def block_diag(self, blocks: FloatArray) -> sp.csr_array: ...



@runtime_checkable
class HasChainTangentBlocks(Protocol):
    """Optional capability of a system whose nodes form a chain (edge e joins nodes e and e + 1, six unknowns per
    node: ``CosseratRod``): its exact tangents K + Z and C as (edge blocks (N, 12, 12), node blocks (N+1, 6, 6)) each,
    or None where it cannot (the sparse matrices of ``HasTangents`` then), and the blocks of T(θ)."""

    def chain_tangent_blocks(self, t: float, q: FloatArray, v: FloatArray,
                             lam: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray] | None: ...

    def node_tangent_blocks(self, theta: FloatArray) -> FloatArray:
        """The blocks (N+1, 6, 6) of the block-diagonal T(θ) of the system's group."""


_CHAIN_PLANS: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray, int, int] | None] = {}


def chain_band_plan(n_nodes: int, B1: sp.csr_array, Bn: sp.csr_array | None,
                    idx2: bool) -> tuple[np.ndarray, np.ndarray, int, int] | None:
    """(perm, inverse perm, kl, ku) of the banded order (``_banded.band_order``) of the generalized-α iteration matrix
    of a node chain with constraint rows of the patterns of B(q_{n+1}) and B(q_n) (``generalized_alpha``), from the
    structural pattern (every block entry that can be non-zero: all-ones blocks multiplied, no cancellation); None
    when the band is too wide (``BandedLU.fits``). Kept per pattern."""
    m = B1.shape[0]
    Bs = Bn if (idx2 and Bn is not None) else B1
    key = (n_nodes, m, idx2, _fingerprint(B1.indptr, B1.indices), _fingerprint(Bs.indptr, Bs.indices))
    if key in _CHAIN_PLANS:
        return _CHAIN_PLANS[key]
    n = 6 * n_nodes
    ones = np.ones((6, 6))
    chain = sp.diags_array([np.ones(n_nodes - 1), np.ones(n_nodes), np.ones(n_nodes - 1)], offsets=[-1, 0, 1])
    K = sp.csr_array(sp.kron(chain, ones))
    KT = K @ sp.csr_array(sp.kron(sp.eye_array(n_nodes), ones))
    blocks: list[list[Any]] = [[KT]]
    if m:
        P1 = sp.csr_array((np.ones(B1.indices.size), B1.indices, B1.indptr), shape=B1.shape)
        PnT = sp.csr_array((np.ones(Bs.indices.size), Bs.indices, Bs.indptr), shape=Bs.shape).T
        BT = P1 @ sp.csr_array(sp.kron(sp.eye_array(n_nodes), ones))
        blocks = [[KT, KT @ PnT, P1.T], [BT, BT @ PnT, None], [P1, None, None]] if idx2 else [[KT, P1.T], [BT, None]]
    r, c, v, N = _coo_blocks(blocks)
    perm = band_order(sp.csr_array((v, (r, c)), shape=(N, N)), n, 6)
    kl, ku = band_width(r, c, perm)
    plan = None
    if BandedLU.fits(N, kl, ku):
        inv = np.empty(N, np.int64)
        inv[perm] = np.arange(N)
        plan = (np.ascontiguousarray(perm, dtype=np.int64), inv, kl, ku)
    if len(_CHAIN_PLANS) >= 8:
        del _CHAIN_PLANS[next(iter(_CHAIN_PLANS))]
    _CHAIN_PLANS[key] = plan
    return plan

def _sparse(A: Any) -> sp.csr_array:
    return A if isinstance(A, sp.csr_array) else sp.csr_array(A)


@dataclass(frozen=True)
class KKTFactor:
    """LU factors of the block matrix [[A, E], [F, G]] (any of E, F, G may be None: empty blocks); ``band``: the
    banded LU behind ``solve_fn`` where there is one (a caller may fuse its substitution with its own arithmetic,
    ``_compiled.ga_solve_update``)."""

    n: int
    solve_fn: Callable[[FloatArray], FloatArray]
    band: BandedLU | None = None

    @staticmethod
    def build(blocks: list[list[Any]], block: int = 6) -> KKTFactor:
        """Factorise the block matrix ``blocks`` (a list of rows, ``None`` for zero blocks, as in ``sp.bmat``);
        ``block``: the number of velocity unknowns per node (the banded ordering, ``_banded``)."""
        dense = all(b is None or isinstance(b, np.ndarray) for row in blocks for b in row)
        r, c, v, n = _coo_blocks(blocks)
        if n <= DENSE_LIMIT or dense and n <= 4 * DENSE_LIMIT:
            Kd = np.zeros((n, n))
            np.add.at(Kd, (r, c), v)
            if not np.all(np.isfinite(Kd)):
                raise SingularNewtonMatrix("the Newton matrix has non-finite entries")
            lu, piv = sla.lu_factor(Kd, check_finite=False)
            d = np.abs(np.diag(lu))
            if d.min() <= 1e-14 * max(d.max(), 1e-300):
                raise SingularNewtonMatrix(
                    f"the Newton matrix is numerically singular (pivot ratio {d.min() / d.max():.1e})"
                )
            return KKTFactor(n, lambda rhs: sla.lu_solve((lu, piv), rhs, check_finite=False))
        if not np.all(np.isfinite(v)):
            raise SingularNewtonMatrix("the Newton matrix has non-finite entries")
        banded = _banded_factor(r, c, v, n, blocks[0][0].shape[0], block)
        if banded is not None:
            return KKTFactor(n, banded.solve, banded)
        K = sp.csc_array((v, (r, c)), shape=(n, n))
        try:
            lu = spla.splu(K, permc_spec="COLAMD")
        except RuntimeError as exc:  # "Factor is exactly singular"
            raise SingularNewtonMatrix(f"the Newton matrix is singular ({exc})") from None
        return KKTFactor(n, lu.solve)

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        """Pickled (run checkpoints) as None: LU factors do not pickle; a resumed run refactorises (its
        steps then agree with an uninterrupted run to the Newton tolerance, not bit for bit)."""
        return (_lost, ())

    def solve(self, rhs: FloatArray) -> FloatArray:
        x = self.solve_fn(rhs)
        if not np.all(np.isfinite(x)):
            raise SingularNewtonMatrix(NONFINITE_SOLVE)
        return x


def _coo_blocks(blocks: list[list[Any]]) -> tuple[np.ndarray, np.ndarray, FloatArray, int]:
    """(rows, cols, values, n) of the square block matrix ``blocks`` (rows of blocks, None for zero blocks, as in
    ``sp.bmat``) without forming it: each block's COO entries shifted to its place."""
    heights = [next(b.shape[0] for b in row if b is not None) for row in blocks]
    widths = [next(row[j].shape[1] for row in blocks if row[j] is not None) for j in range(len(blocks[0]))]
    r0, c0 = np.concatenate([[0], np.cumsum(heights)]), np.concatenate([[0], np.cumsum(widths)])
    rows, cols, vals = [], [], []
    for i, row in enumerate(blocks):
        for j, b in enumerate(row):
            if b is None:
                continue
            if isinstance(b, np.ndarray):
                rr, cc = np.nonzero(b)
                vv = b[rr, cc]
            else:
                C = b.tocoo() if sp.issparse(b) else sp.coo_array(b)
                rr, cc, vv = C.row, C.col, C.data
            rows.append(rr + r0[i])
            cols.append(cc + c0[j])
            vals.append(np.asarray(vv, dtype=float))
    return (
        np.concatenate(rows).astype(np.int64),
        np.concatenate(cols).astype(np.int64),
        np.concatenate(vals),
        int(r0[-1]),
    )


_ORDERS: dict[tuple[int, int, int], tuple[bytes, np.ndarray, int, int, np.ndarray]] = {}


def _fingerprint(r: np.ndarray, c: np.ndarray) -> bytes:
    """A 32-byte digest of the pattern (r, c): the cache key of its ordering without a copy of the arrays."""
    return hashlib.blake2b(np.ascontiguousarray(r).data, digest_size=16).digest() + hashlib.blake2b(
        np.ascontiguousarray(c).data, digest_size=16).digest()


def _banded_factor(
    r: np.ndarray, c: np.ndarray, v: FloatArray, n: int, nv: int, block: int
) -> BandedLU | None:
    """The banded LU of the matrix with entries (r, c, v) (``_banded``) when its node-block ordering gives
    a narrow band, else None (SuperLU). The ordering, bandwidth and band positions are kept per pattern (a
    refactorisation reuses them and only scatters the values)."""
    key = (n, nv, r.size)
    hit = _ORDERS.get(key)
    fp = _fingerprint(r, c)
    if hit is not None and hit[0] == fp:
        perm, kl, ku, pos = hit[1], hit[2], hit[3], hit[4]
    else:
        perm = band_order(sp.csr_array((v, (r, c)), shape=(n, n)), nv, block)
        kl, ku = band_width(r, c, perm)
        pos = band_positions(r, c, perm, kl, ku) if BandedLU.fits(n, kl, ku) else np.zeros(0, np.int64)
        if len(_ORDERS) >= 8:
            del _ORDERS[next(iter(_ORDERS))]
        _ORDERS[key] = (fp, perm, kl, ku, pos)
    if not BandedLU.fits(n, kl, ku):
        return None
    lu = BandedLU.from_positions(pos, v, n, perm, kl, ku)
    if lu is None:
        raise SingularNewtonMatrix("the Newton matrix is singular (zero pivot in the banded LU)")
    return lu


STAGNATION = (
    1e-7  # relative size of a correction below which a non-contracting Newton iteration is at round-off
)


def at_round_off(err: float, prev: float, tol: float) -> bool:
    """True when Newton stagnates at round-off: the scaled correction ``err`` (1 = the tolerance ``tol``)
    no longer halves, and the correction is already below ``STAGNATION`` relative. Stiff steel rods have
    residual noise near a relative tolerance of 1e-10 (forces EA·ε_mach per element), so the tolerance may
    be unreachable."""
    return math.isfinite(prev) and err > 0.5 * prev and err * tol <= STAGNATION


def abs_max(A: Any) -> float:
    """max |A_ij| of a dense or sparse matrix (0 for an empty one)."""
    if sp.issparse(A):
        return float(abs(A).max()) if A.nnz else 0.0
    return float(np.abs(np.asarray(A)).max(initial=0.0))


def dense_if_small(A: Any) -> Any:
    """A dense array for a small matrix (no sparse overhead per product), else CSR."""
    n = A.shape[0]
    if n <= DENSE_LIMIT:
        return A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)
    return _sparse(A)


def _lost() -> None:
    return None


def block_size(system: object) -> int:
    """The mass matrix's block size (``HasMassBlocks``; 6 otherwise)."""
    return int(system.mass_block) if supports(system, HasMassBlocks) else 6


@dataclass(frozen=True)
class _Colouring:
    """Column groups of a block-banded Jacobian (block size ``blk``, block bandwidth ``b``) and the
    (row, column) entries of each group's central difference; ``b`` None: dense."""

    n: int
    blk: int
    b: int | None
    groups: tuple[np.ndarray, ...] = field(init=False)
    rows: np.ndarray = field(init=False)
    cols: np.ndarray = field(init=False)
    colour_of_col: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n, blk, b = self.n, self.blk, self.b
        j = np.arange(n)
        nb = -(-n // blk)
        if b is None or 2 * b + 1 >= nb:
            colour = j
            rows = np.tile(j, n)  # every (i, j)
            cols = np.repeat(j, n)
        else:
            colour = ((j // blk) % (2 * b + 1)) * blk + j % blk
            offs = np.arange(-b, b + 1)
            cb = (j // blk)[:, None] + offs[None, :]  # (n, 2b+1) row blocks of column j
            ok = (cb >= 0) & (cb < nb)
            rr = (cb[:, :, None] * blk + np.arange(blk)[None, None, :])  # (n, 2b+1, blk)
            keep = ok[:, :, None] & (rr < n)
            cols = np.broadcast_to(j[:, None, None], rr.shape)[keep]
            rows = rr[keep]
        object.__setattr__(self, "colour_of_col", colour)
        object.__setattr__(
            self, "groups", tuple(np.flatnonzero(colour == c) for c in range(int(colour.max()) + 1))
        )
        object.__setattr__(self, "rows", np.asarray(rows, dtype=np.intp))
        object.__setattr__(self, "cols", np.asarray(cols, dtype=np.intp))

    def jacobian(self, fun: Callable[[FloatArray], FloatArray], eps: float) -> sp.csr_array:
        """Central differences of ``fun`` (ℝⁿ → ℝⁿ, fun(0) the base point) over the colour groups."""
        n = self.n
        diffs = np.empty((len(self.groups), n))
        for c, cols in enumerate(self.groups):
            e = np.zeros(n)
            e[cols] = eps
            diffs[c] = (fun(e) - fun(-e)) / (2 * eps)
        vals = diffs[self.colour_of_col[self.cols], self.rows]
        return sp.csr_array((vals, (self.rows, self.cols)), shape=(n, n))


@dataclass(frozen=True)
class FiniteDifferenceTangents:
    """K_q and C by (coloured) central differences for a system without ``HasTangents`` (module docstring).

    ``build(system, t, q, v, lam)`` discovers and checks the block bandwidth once; the helper is then
    reused for every Jacobian of the run.
    """

    colouring: _Colouring

    @staticmethod
    def build(system: ConstrainedMechanicalSystem, t: float, q: FloatArray, v: FloatArray, lam: FloatArray,
              rng: np.random.Generator | None = None) -> FiniteDifferenceTangents:
        n = v.size
        blk = block_size(system)
        if n <= DENSE_LIMIT:
            return FiniteDifferenceTangents(_Colouring(n, blk, None))
        rng = rng or np.random.default_rng(12345)
        r = rng.normal(size=n)
        r /= np.linalg.norm(r)
        fq = _position_map(system, t, q, v, lam)
        exact = (fq(FD_EPS * r) - fq(-FD_EPS * r)) / (2 * FD_EPS)
        b = 1
        while True:
            col = _Colouring(n, blk, b)
            J = col.jacobian(fq, FD_EPS)
            gap = np.linalg.norm(J @ r - exact)
            scale = max(float(np.linalg.norm(exact)), 1e-300)
            if col.b is None or 2 * b + 1 >= -(-n // blk) or gap <= 1e-6 * scale:
                logger.info("finite-difference tangents: block bandwidth %s (%d colours)", col.b,
                            len(col.groups))
                return FiniteDifferenceTangents(col)
            b *= 2

    def position(self, system: ConstrainedMechanicalSystem, t: float, q: FloatArray, v: FloatArray,
                 lam: FloatArray) -> sp.csr_array:
        """K_q = ∂/∂w [g + Bᵀλ] at (t, q, v, λ) along left-translated directions."""
        return self.colouring.jacobian(_position_map(system, t, q, v, lam), FD_EPS)

    def velocity(self, system: ConstrainedMechanicalSystem, t: float, q: FloatArray,
                 v: FloatArray) -> sp.csr_array:
        """C = ∂g/∂v at (t, q, v)."""
        return self.colouring.jacobian(lambda u: system.forces(t, q, v + u), FD_EPS)


def _position_map(system: ConstrainedMechanicalSystem, t: float, q: FloatArray, v: FloatArray,
                  lam: FloatArray) -> Callable[[FloatArray], FloatArray]:
    G = system.group
    m = system.n_constraints

    def f(w: FloatArray) -> FloatArray:
        qw = G.retract(q, w)
        out = np.asarray(system.forces(t, qw, v), dtype=float)
        if m:
            out = out + _sparse(system.constraint_jacobian(qw)).T @ lam
        return out

    return f


def position_tangent(system: ConstrainedMechanicalSystem, fd: FiniteDifferenceTangents | None, t: float,
                     q: FloatArray, v: FloatArray, lam: FloatArray) -> sp.csr_array:
    """K + Z (exact with ``HasTangents``, else by finite differences)."""
    if fd is not None:
        return fd.position(system, t, q, v, lam)
    assert supports(system, HasTangents), "fd is None only for a system with exact tangents (tangents_for)"
    K = _sparse(system.stiffness(t, q, v))
    if system.n_constraints:
        K = K + _sparse(system.constraint_stiffness(t, q, lam))
    return _sparse(K)


def velocity_tangent(system: ConstrainedMechanicalSystem, fd: FiniteDifferenceTangents | None, t: float,
                     q: FloatArray, v: FloatArray) -> sp.csr_array:
    """C = ∂g/∂v (exact with ``HasTangents``, else by finite differences)."""
    if fd is not None:
        return fd.velocity(system, t, q, v)
    assert supports(system, HasTangents), "fd is None only for a system with exact tangents (tangents_for)"
    return _sparse(system.damping(t, q, v))


def tangents_for(system: ConstrainedMechanicalSystem, t: float, q: FloatArray, v: FloatArray,
                 lam: FloatArray) -> FiniteDifferenceTangents | None:
    """None when the system has exact tangents (``HasTangents``), else the finite-difference helper."""
    return None if supports(system, HasTangents) else FiniteDifferenceTangents.build(system, t, q, v, lam)


def tangent_blocks(G: LieGroup, theta: FloatArray) -> sp.csr_array:
    """T(θ) as a sparse block-diagonal matrix (one block for a single group, ``Product``: one per node)."""
    T = np.asarray(G.tangent(theta), dtype=float)
    if T.ndim == 2:
        return sp.csr_array(T)
    assert supports(G, BlockDiagonalGroup), f"{type(G).__name__}: batched T(θ) needs block_diag (Product)"
    return G.block_diag(T)


__all__ = [
    "DENSE_LIMIT",
    "FD_EPS",
    "NONFINITE_SOLVE",
    "STAGNATION",
    "BlockDiagonalGroup",
    "FiniteDifferenceTangents",
    "HasChainTangentBlocks",
    "KKTFactor",
    "SingularNewtonMatrix",
    "at_round_off",
    "block_size",
    "chain_band_plan",
    "dense_if_small",
    "position_tangent",
    "tangent_blocks",
    "tangents_for",
    "velocity_tangent",
]
