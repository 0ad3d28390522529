"""Structured linear algebra for the half-explicit stage systems (seed 004 eq. (14)).

Each stage solves the (non-symmetric) saddle-point system

    [ M        B_iᵀ ] [V̇]   [r₁]
    [ γ B_{i+1}  0  ] [Λ] = [r₂]

by the Schur complement S = B_{i+1} M⁻¹ B_iᵀ: with M block diagonal (rods, rigid bodies) M⁻¹ is
block diagonal and S is banded, so a stage costs O(n) for n bodies. No dense matrix of the full
system is ever formed.

A mass matrix that is not block diagonal (the corotational element's consistent mass, which couples the
two nodes of each element) is factorised once — M = PᵀLLᵀP by LAPACK's banded Cholesky ``dpbtrf`` after a
reverse Cuthill–McKee ordering P (bandwidth k), or SuperLU when no narrow band exists — and never inverted
(``FactoredMass``). Each stage then takes the cheaper of two exact routes: with few constraints
(m ≤ 3(k + 1)) the Schur complement through W = M⁻¹B_iᵀ, m banded solves (``dpbtrs``), O(n·k·m); with
many the sparse LU of the full matrix [[M, B_iᵀ], [B_{i+1}, 0]] (scaled by γ), O(n·k²) for banded fill.

Fast path (performance only, same results to round-off): when M⁻¹ is diagonal and both Jacobians are
CSR arrays sharing one sparsity pattern (the same ``indices``/``indptr`` objects, as the rod's
``constraint_jacobian`` returns them), the entries of S are gathered with a precomputed product
pattern (one ``bincount``) straight into LAPACK band storage (rows/columns reordered by reverse
Cuthill–McKee when that narrows the band) and solved by ``dgbsv``: O(m·bw²) with a handful of numpy
calls per stage. Any other input takes the general path below. ``SaddlePointSolver(compiled=True)`` runs
the banded fast path, and the dense path of single bodies, as one compiled call each (``_compiled``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg.lapack import dgbsv, dpbtrf, dpbtrs
from scipy.sparse.csgraph import reverse_cuthill_mckee

from lgbeam._numba import resolve
from lgbeam._typing import FloatArray, Matrix
from lgbeam.integrators import _compiled


def as_csr(A: Matrix) -> sp.csr_array:
    """A CSR array view of a dense or sparse matrix."""
    return sp.csr_array(A)


def as_matrix(A: Matrix) -> np.ndarray | sp.csr_array:
    """Dense arrays stay dense (small systems: no sparse overhead); sparse ones become CSR."""
    if type(A) is sp.csr_array or isinstance(A, np.ndarray):
        return A
    return sp.csr_array(A)


def block_diagonal_inverse(M: Matrix, block: int) -> sp.csr_array:
    """Inverse of a block-diagonal matrix with square blocks of size ``block``.

    Raises ``ValueError`` if ``M`` has entries outside the block diagonal (then M is not block
    diagonal with this block size and a general sparse factorisation must be used instead).
    """
    M = sp.coo_array(M)
    n = M.shape[0]
    if n % block:
        raise ValueError(f"mass matrix of size {n} is not made of {block}x{block} blocks")
    if np.any(M.row // block != M.col // block):
        raise ValueError(f"mass matrix has entries outside its {block}x{block} diagonal blocks")
    nb = n // block
    blocks = np.zeros((nb, block, block))
    np.add.at(blocks, (M.row // block, M.row % block, M.col % block), M.data)
    inv = np.linalg.inv(blocks)
    offset = np.arange(nb)[:, None, None] * block
    rows = np.broadcast_to(offset + np.arange(block)[None, :, None], inv.shape)
    cols = np.broadcast_to(offset + np.arange(block)[None, None, :], inv.shape)
    return sp.csr_array((inv.ravel(), (rows.ravel(), cols.ravel())), shape=(n, n))


DENSE_LIMIT = 48  # below this many unknowns dense numpy beats scipy.sparse's per-call overhead
BAND_LIMIT = 100  # LAPACK band storage rows (2 kl + ku + 1) above which the sparse LU is used


def band_ordering(k: np.ndarray, l: np.ndarray, m: int) -> np.ndarray:
    """A permutation of 0..m−1 that narrows the band of a matrix with entries at (k, l): reverse Cuthill–McKee
    when it narrows the band, else the natural order."""
    natural = np.arange(m, dtype=np.intp)
    if k.size == 0:
        return natural
    graph = sp.csr_array((np.ones(k.size), (k, l)), shape=(m, m))
    graph = graph + graph.T
    rcm = np.asarray(reverse_cuthill_mckee(sp.csr_matrix(graph), symmetric_mode=True), dtype=np.intp)
    pos = np.empty(m, dtype=np.intp)
    pos[rcm] = natural
    bw_nat = int(np.max(np.abs(k - l)))
    bw_rcm = int(np.max(np.abs(pos[k] - pos[l])))
    return rcm if bw_rcm < bw_nat else natural


class FactoredMass:
    """M⁻¹ of a sparse SPD mass matrix that is not block diagonal, as a factorisation (never a dense inverse).

    M = PᵀLLᵀP with P a reverse Cuthill–McKee ordering (``band_ordering``) and L the banded Cholesky factor of
    bandwidth k (LAPACK ``dpbtrf``; storage (k + 1)·n), solved by ``dpbtrs``: O(n·k²) once, O(n·k) per
    right-hand side. When no band of ≤ ``BAND_LIMIT`` rows exists, SuperLU (``splu``, COLAMD ordering)
    instead.
    ``Minv @ X`` is M⁻¹X for a vector, a dense (n, r) block or a sparse (n, r) one (densified column block:
    r ≪ n constraint columns, never n × n).
    """

    def __init__(self, M: Matrix) -> None:
        A = sp.coo_array(M)
        n = A.shape[0]
        self.M, self.shape, self.n = sp.csr_array(A), (n, n), n
        perm = band_ordering(np.asarray(A.row, dtype=np.intp), np.asarray(A.col, dtype=np.intp), n)
        pos = np.empty(n, dtype=np.intp)
        pos[perm] = np.arange(n)
        i, j = pos[A.row], pos[A.col]
        kd = int(np.max(np.abs(i - j), initial=0))
        self.perm, self.kd = perm, kd
        self._lu: Any = None
        self._band: FloatArray | None = None
        self._saddle: _SaddlePattern | None = None
        if kd + 1 <= BAND_LIMIT:
            upper = i <= j
            ab = np.zeros((kd + 1, n))
            np.add.at(ab, (kd + i[upper] - j[upper], j[upper]), A.data[upper])
            c, info = dpbtrf(ab, lower=0, overwrite_ab=1)
            if info != 0:
                raise ValueError(f"the mass matrix is not positive definite (Cholesky pivot {info} of {n}); "
                                 "check the masses and inertias of the model")
            self._band = c
        else:
            try:
                self._lu = spla.splu(sp.csc_array(A))
            except RuntimeError as exc:
                raise ValueError(f"the mass matrix is singular ({exc}); check the masses and inertias of the "
                                 "model") from exc

    def solve(self, X: FloatArray) -> FloatArray:
        """M⁻¹X for X (n,) or (n, r), dense."""
        X = np.asarray(X, dtype=float)
        if self._band is None:
            return np.asarray(self._lu.solve(X))
        Y = np.empty_like(X)
        x, info = dpbtrs(self._band, X[self.perm], lower=0)
        assert info == 0, info  # only an illegal argument sets it
        Y[self.perm] = x
        return Y

    def __matmul__(self, X: Any) -> FloatArray:
        return self.solve(X.toarray() if sp.issparse(X) else X)

    def saddle_matrix(self, B_i: Matrix, B_next: Matrix) -> sp.csc_array:
        """K = [[M, B_iᵀ], [B_next, 0]] (CSC); through a cached ``_SaddlePattern`` when both B are CSR arrays
        of one shared pattern (the structures' ``constraint_jacobian``), else assembled by ``sp.bmat``."""
        if (isinstance(B_i, sp.csr_array) and isinstance(B_next, sp.csr_array)
                and B_i.indices is B_next.indices and B_i.indptr is B_next.indptr):
            pat = self._saddle
            if pat is None or not pat.matches(B_i):
                pat = self._saddle = _SaddlePattern(self.M, B_i)
            if pat.valid:
                return pat.matrix(B_i.data, B_next.data)
        return sp.csc_array(sp.bmat([[self.M, B_i.T], [B_next, None]], format="csc"))


class _SaddlePattern:
    """CSC structure of K = [[M, B_iᵀ], [B_next, 0]] for Jacobians sharing one CSR pattern (canonical: no
    duplicates): a stage gathers the entries of M, B_i and B_next into it with one index array (``order``)."""

    def __init__(self, M: sp.csr_array, B: sp.csr_array) -> None:
        n, m = M.shape[0], B.shape[0]
        Mc, Bc = M.tocoo(), B.tocoo()
        rows = np.concatenate([Mc.row, Bc.col, n + Bc.row])
        cols = np.concatenate([Mc.col, n + Bc.row, Bc.col])
        K = sp.csc_array((np.arange(1, rows.size + 1, dtype=float), (rows, cols)), shape=(n + m, n + m))
        K.sort_indices()
        self.valid = K.nnz == rows.size  # False: B has duplicate entries (then ``sp.bmat`` sums them)
        self.order = K.data.astype(np.intp) - 1
        self.indices, self.indptr, self.shape = K.indices, K.indptr, K.shape
        self.m_data, self.b_indices, self.b_indptr = M.data, B.indices, B.indptr

    def matches(self, B: sp.csr_array) -> bool:
        return B.indices is self.b_indices and B.indptr is self.b_indptr

    def matrix(self, data_i: FloatArray, data_next: FloatArray) -> sp.csc_array:
        data = np.concatenate([self.m_data, data_i, data_next])[self.order]
        return sp.csc_array((data, self.indices, self.indptr), shape=self.shape)


def mass_inverse(M: Matrix, block: int) -> sp.csr_array | np.ndarray | FactoredMass:
    """M⁻¹ for an SPD mass matrix: dense for tiny systems (n ≤ ``DENSE_LIMIT``); diagonal or block
    diagonal (block size 1 or ``block``) as CSR; otherwise the factorisation ``FactoredMass`` (never a dense
    n × n inverse)."""
    M = as_csr(M)
    n = M.shape[0]
    if n <= DENSE_LIMIT:
        return np.linalg.inv(M.toarray())
    for size in dict.fromkeys((1, block)):
        try:
            return block_diagonal_inverse(M, size)
        except ValueError:
            continue
    return FactoredMass(M)


class _ProductPattern:
    """Precomputed structure of S = B_next diag(d) B_iᵀ for two CSR matrices with one pattern.

    Entry pairs (a, b) of B_next and B_i in the same column give S[row(a), row(b)] += B_next[a] d B_i[b];
    ``target`` is the flat index of that entry in the (column-major) LAPACK band storage of the
    permuted S, so one ``bincount`` assembles the band matrix.
    """

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, shape: tuple[int, int], minv: FloatArray) -> None:
        m, n = shape
        self.indptr, self.indices, self.m, self.n = indptr, indices, m, n
        self.rows = np.repeat(np.arange(m, dtype=np.intp), np.diff(indptr))
        cols = np.asarray(indices, dtype=np.intp)
        self.cols = cols
        order = np.argsort(cols, kind="stable")
        counts = np.bincount(cols, minlength=n)
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        # pairs: every entry a with every entry b of its column (ragged arange, vectorised)
        n_pair = counts[cols]
        pa = np.repeat(np.arange(cols.size, dtype=np.intp), n_pair)
        offs = np.arange(pa.size) - np.repeat(np.cumsum(n_pair) - n_pair, n_pair)
        pb = order[start[cols[pa]] + offs]
        k, l = self.rows[pa], self.rows[pb]
        perm = band_ordering(k, l, m)
        pos = np.empty(m, dtype=np.intp)
        pos[perm] = np.arange(m)
        kp, lp = pos[k], pos[l]
        self.kl = int(max(0, np.max(kp - lp, initial=0)))
        self.ku = int(max(0, np.max(lp - kp, initial=0)))
        self.ldab = 2 * self.kl + self.ku + 1
        self.banded = self.ldab <= BAND_LIMIT or m <= DENSE_LIMIT
        self.perm, self.pos = perm, pos
        # band storage ab[kl + ku + i − j, j] = S[i, j] (permuted), column-major: flat j*ldab + row
        target = lp * self.ldab + (self.kl + self.ku + kp - lp)
        by_target = np.argsort(target, kind="stable")  # pairs in storage order: sequential writes
        pa, pb, k, l = pa[by_target], pb[by_target], k[by_target], l[by_target]
        self.pa, self.pb, self.weight = pa, pb, minv[cols[pa]]
        self.target = target[by_target]
        self.k, self.l = k, l

    def matches(self, B: sp.csr_array) -> bool:
        return B.indices is self.indices and B.indptr is self.indptr

    @property
    def stripped(self) -> bool:
        """True once ``strip`` dropped the Schur pairs (B x and Bᵀ y still work)."""
        return self.pa is None

    def strip(self) -> None:
        """Drop the arrays of the Schur product (pairs, weights, band targets: O(nnz·entries per column)), keeping
        what B x and Bᵀ y use; a later ``schur_solve`` needs a fresh pattern (``SaddlePointSolver`` rebuilds it)."""
        self.pa = self.pb = self.weight = self.target = self.k = self.l = None  # type: ignore[assignment]

    def matvec(self, data: FloatArray, x: FloatArray) -> FloatArray:
        """B x for B with this pattern and entries ``data``."""
        out = np.bincount(self.rows, weights=data * x[self.indices], minlength=self.m)
        return np.asarray(out, dtype=float)

    def rmatvec(self, data: FloatArray, y: FloatArray) -> FloatArray:
        """Bᵀ y for B with this pattern and entries ``data``."""
        out = np.bincount(self.indices, weights=data * y[self.rows], minlength=self.n)
        return np.asarray(out, dtype=float)

    def schur_solve(self, data_next: FloatArray, data_i: FloatArray, rhs: FloatArray) -> FloatArray:
        """Solve (B_next diag(d) B_iᵀ) x = rhs."""
        w = data_next[self.pa] * self.weight * data_i[self.pb]
        if not self.banded:
            S = sp.csc_array((w, (self.k, self.l)), shape=(self.m, self.m))
            return _factor(S)(rhs)
        ab = np.bincount(self.target, weights=w, minlength=self.m * self.ldab).reshape(self.m, self.ldab).T
        _, _, x, info = dgbsv(self.kl, self.ku, ab, rhs[self.perm], overwrite_ab=1, overwrite_b=1)
        if info > 0:
            raise SingularStageMatrix("B M⁻¹ Bᵀ is singular (zero pivot): redundant or contradictory constraints")
        if self.m <= DENSE_LIMIT and not np.isfinite(x).all():
            raise SingularStageMatrix("B M⁻¹ Bᵀ is numerically singular or B non-finite: redundant or "
                                      "contradictory constraints")
        return x[self.pos]


def _small_dense(Minv: Any, B_i: Any, B_next: Any, r1: Any) -> bool:
    """Dense float64 operands with at least one constraint (one body: the compiled dense path applies)."""
    return (type(B_i) is np.ndarray and type(B_next) is np.ndarray and isinstance(Minv, np.ndarray)
            and bool(B_i.shape[0]) and B_i.dtype.char == B_next.dtype.char == np.asarray(r1).dtype.char == "d")


def _diagonal(Minv: sp.csr_array | np.ndarray | FactoredMass) -> FloatArray | None:
    """The diagonal of M⁻¹ if M⁻¹ is diagonal, else None."""
    if not sp.issparse(Minv):
        return None
    A = sp.csr_array(Minv)
    n = A.shape[0]
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    if np.any(A.indices != rows):
        return None
    return np.asarray(A.diagonal(), dtype=float)


def _schur_numpy(pat: _ProductPattern, d: FloatArray, r1: FloatArray, B_i: sp.csr_array, B_next: sp.csr_array,
                 r2g: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(V̇, Λ) through the product pattern: Λ = S⁻¹ (B_next M⁻¹ r1 − r2g), V̇ = M⁻¹ (r1 − B_iᵀ Λ), M⁻¹ = diag(d)."""
    a = d * r1
    lam = pat.schur_solve(B_next.data, B_i.data, pat.matvec(B_next.data, a) - r2g)
    return a - d * pat.rmatvec(B_i.data, lam), lam


def _schur_compiled(pat: _ProductPattern, d: FloatArray, r1: FloatArray, B_i: sp.csr_array, B_next: sp.csr_array,
                    r2g: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``_schur_numpy`` in one compiled call when S fits band storage (else the numpy path)."""
    if not pat.banded:
        return _schur_numpy(pat, d, r1, B_i, B_next, r2g)
    vdot, lam, info = _compiled.schur_stage_solve(
        d, r1, r2g, B_next.data, B_i.data, pat.rows, pat.cols, pat.pa, pat.pb, pat.weight, pat.target, pat.kl, pat.ku,
        pat.perm, pat.pos)
    if info != 0:
        raise SingularStageMatrix("B M⁻¹ Bᵀ is singular (zero pivot) or B non-finite: redundant or "
                                  "contradictory constraints")
    return vdot, lam


def _dense_compiled(Minv: np.ndarray, B_i: np.ndarray, B_next: np.ndarray, r1: FloatArray,
                    r2g: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The dense path (small systems, one body) in one compiled call."""
    vdot, lam, info = _compiled.dense_stage_solve(Minv, B_i, B_next, r1, r2g)
    if info != 0:
        raise SingularStageMatrix("B M⁻¹ Bᵀ is singular or B non-finite: redundant or contradictory constraints")
    return vdot, lam


SCHUR_PER_BAND = 3  # Schur route while m ≤ 3 (k + 1): its O(n·k·m) beats the saddle-point LU's O(n·k²) there


def _factored_solve(F: FactoredMass, r1: FloatArray, B_i: Any, B_next: Any,
                    r2g: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(V̇, Λ) of [[M, B_iᵀ], [B_next, 0]] [V̇; Λ] = [r1; r2g] with M factorised (``FactoredMass``).

    m ≤ 3(k + 1) constraints (k: M's bandwidth; the measured crossover of the two routes, docs/benchmarks.md
    "Explicit steps with the consistent mass"): Schur, W = M⁻¹B_iᵀ (m banded solves, (n, m)),
    Λ = (B_next W)⁻¹ (B_next M⁻¹r1 − r2g), V̇ = M⁻¹r1 − WΛ; O(n·k·m). More constraints: the sparse LU of the
    (n + m) saddle-point matrix itself (``splu``), whose banded fill costs O(n·k²) and never O(n·m).
    """
    m = 0 if B_i is None else B_i.shape[0]
    if m == 0:
        return F.solve(r1), np.zeros(0)
    if m <= SCHUR_PER_BAND * (F.kd + 1):
        W = F @ B_i.T
        a = F.solve(r1)
        lam = _factor(np.asarray(B_next @ W))(B_next @ a - r2g)
        return a - W @ lam, lam
    x = _factor(F.saddle_matrix(B_i, B_next))(np.concatenate([r1, r2g]))
    return x[:F.n], x[F.n:]


@dataclass(frozen=True)
class SaddlePointSolver:
    """Solves the stage systems of eq. (14) with a fixed M⁻¹ (constant mass matrix).

    ``compiled``: run the banded fast path and the small dense path as compiled calls (``_compiled``); None
    takes ``lgbeam._numba.ENABLED``. Resolved to a bool, and the paths chosen, when the solver is built.
    """

    Minv: sp.csr_array | np.ndarray | FactoredMass
    compiled: bool | None = None
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _schur: Callable[..., tuple[FloatArray, FloatArray]] = field(init=False, repr=False, compare=False)
    _dense: Callable[..., tuple[FloatArray, FloatArray]] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", resolve(self.compiled))
        object.__setattr__(self, "_schur", _schur_compiled if self.compiled else _schur_numpy)
        object.__setattr__(self, "_dense", _dense_compiled if self.compiled else None)

    @property
    def _minv_diag(self) -> FloatArray | None:
        c = self._cache
        if "diag" not in c:
            c["diag"] = _diagonal(self.Minv)
        return c["diag"]

    def _pattern(self, B_i: Matrix | None, B_next: Matrix | None) -> _ProductPattern | None:
        """The cached product pattern when the fast path applies (module docstring), else None."""
        if not (isinstance(B_i, sp.csr_array) and isinstance(B_next, sp.csr_array)):
            return None
        pat = self._cache.get("pattern")
        if pat is not None and pat.matches(B_i) and pat.matches(B_next) and not pat.stripped:
            return pat
        if B_i.indices is not B_next.indices or B_i.indptr is not B_next.indptr:
            return None
        d = self._minv_diag
        if d is None or B_i.data.dtype != np.float64:
            return None
        pat = _ProductPattern(B_i.indptr, B_i.indices, B_i.shape, d)
        self._cache["pattern"] = pat
        return pat

    def solve(
        self, r1: FloatArray, B_i: sp.csr_array | None, B_next: sp.csr_array | None, gamma: float, r2: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Return (V̇, Λ) of ``[[M, B_iᵀ], [γ B_next, 0]] [V̇; Λ] = [r1; r2]``."""
        if B_i is not None and B_i.shape[0] and (pat := self._pattern(B_i, B_next)) is not None:
            return self._schur(pat, self._cache["diag"], r1, B_i, B_next, r2 / gamma)
        if isinstance(self.Minv, FactoredMass):
            return _factored_solve(self.Minv, r1, B_i, B_next, r2 / gamma)
        if self._dense is not None and _small_dense(self.Minv, B_i, B_next, r1):
            return self._dense(self.Minv, B_i, B_next, r1, r2 / gamma)
        a = self.Minv @ r1
        if B_i is None or B_i.shape[0] == 0:
            return a, np.zeros(0)
        assert B_next is not None  # B_i given: the stage has constraints, so B_next is given too
        S = B_next @ (self.Minv @ B_i.T)
        rhs = B_next @ a - r2 / gamma
        lam = _factor(S)(rhs)
        return a - self.Minv @ (B_i.T @ lam), lam

    def products_only(self) -> None:
        """Keep only what B x and Bᵀ y need (``_ProductPattern.strip``): for a method that solves the saddle-point
        problem once, at its start (gen-alpha's consistent λ₀), and then only multiplies by B."""
        pat = self._cache.get("pattern")
        if pat is not None:
            pat.strip()

    def explicit(self, r1: FloatArray) -> FloatArray:
        """M⁻¹ r1 (the explicit first stage)."""
        d = self._minv_diag
        return d * r1 if d is not None else self.Minv @ r1

    def matvec(self, B: Matrix, x: FloatArray) -> FloatArray:
        """B x (through the cached pattern when B has it)."""
        pat = self._cache.get("pattern")
        if pat is not None and type(B) is sp.csr_array and pat.matches(B):
            return pat.matvec(B.data, x)
        return B @ x

    def rmatvec(self, B: Matrix, y: FloatArray) -> FloatArray:
        """Bᵀ y (through the cached pattern when B has it)."""
        pat = self._cache.get("pattern")
        if pat is not None and type(B) is sp.csr_array and pat.matches(B):
            return pat.rmatvec(B.data, y)
        return B.T @ y

    def project_velocity(self, B: sp.csr_array, v: FloatArray) -> FloatArray:
        """Mass-orthogonal projection of v onto ker B: v − M⁻¹Bᵀ(BM⁻¹Bᵀ)⁻¹Bv."""
        if B.shape[0] == 0:
            return v
        if isinstance(self.Minv, FactoredMass):
            return _factored_solve(self.Minv, self.Minv.M @ v, B, B, np.zeros(B.shape[0]))[0]
        S = B @ (self.Minv @ B.T)
        return v - self.Minv @ (B.T @ _factor(S)(B @ v))

    def correction(self, B: sp.csr_array, residual: FloatArray) -> FloatArray:
        """Minimal-mass-norm δ with B δ = −residual: δ = −M⁻¹Bᵀ(BM⁻¹Bᵀ)⁻¹ residual."""
        if isinstance(self.Minv, FactoredMass):
            r2 = -np.asarray(residual, dtype=float)
            return _factored_solve(self.Minv, np.zeros(self.Minv.n), B, B, r2)[0]
        S = B @ (self.Minv @ B.T)
        return -(self.Minv @ (B.T @ _factor(S)(residual)))


class SingularStageMatrix(RuntimeError):
    """The Schur complement B M⁻¹ Bᵀ is singular: redundant or contradictory constraints."""


def _dense_solver(S: np.ndarray):
    if not np.all(np.isfinite(S)):
        raise SingularStageMatrix("non-finite entries in the constraint Jacobian")

    def solve(rhs: FloatArray) -> FloatArray:
        try:
            x = np.linalg.solve(S, rhs)
        except np.linalg.LinAlgError as exc:
            raise SingularStageMatrix(f"B M⁻¹ Bᵀ is singular ({exc}): redundant or contradictory constraints") from exc
        if not np.all(np.isfinite(x)):
            raise SingularStageMatrix("B M⁻¹ Bᵀ is numerically singular: redundant or contradictory constraints")
        return x

    return solve


def _factor(S):
    if isinstance(S, np.ndarray):
        return _dense_solver(S)
    if S.shape[0] <= DENSE_LIMIT:
        return _dense_solver(S.toarray())
    try:
        return spla.splu(sp.csc_array(S)).solve
    except RuntimeError as exc:
        raise SingularStageMatrix(f"B M⁻¹ Bᵀ is singular ({exc}): redundant or contradictory constraints") from exc
