"""Euler–Bernoulli beam with cubic Hermite elements (scikit-fem): statics and natural modes.

The linear reference for the rod cases: transverse deflection ``w(x)`` of a straight beam,

    EI w'''' + ρA w_tt = q(x, t),      x ∈ (0, L),

with supports "clamped" (w = w' = 0), "pinned" (w = 0, EI w'' = 0) or "free" (EI w'' = EI w''' = 0)
at either end; the natural boundary conditions come from the weak form

    ∫ EI w'' v'' dx + ∫ ρA w_tt v dx = ∫ q v dx + P v(L)      for all admissible v.

Discretisation: ``ElementLineHermite`` on a ``MeshLine``; scikit-fem orders the global DOFs as
``[w_0, w'_0, w_1, w'_1, ...]`` with ``w'`` the *physical* slope dw/dx (``ElementGlobal`` builds the
basis in physical coordinates; checked in ``tests/test_fem_euler_bernoulli.py``). ``K`` (stiffness)
and ``M`` (consistent mass) are sparse CSR; supports remove DOFs (condensation), never a penalty.

Symbols: L (length), EI (bending stiffness), rhoA (mass per length), K, M (global matrices),
β_n L (dimensionless roots of the frequency equation), ω_n = (β_n L)² √(EI / (ρA L⁴)).

References
----------
Timoshenko, Young & Weaver, *Vibration Problems in Engineering*, 5th ed., 1990, §5.3 (frequency
equations cos βL cosh βL = ∓1 and tan βL = tanh βL; static cantilever deflections PL³/3EI, qL⁴/8EI).
Strang & Fix, *An Analysis of the Finite Element Method*, 1973, §6.3 (eigenvalue error
O(h^{2(k+1-m)}) = O(h⁴) for cubics, k = 3, on the fourth-order problem, m = 2).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import scipy.optimize
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from skfem import Basis, BilinearForm, ElementLineHermite, LinearForm, MeshLine
from skfem.helpers import dd

from lgbeam._sparse import arpack_start
from lgbeam._typing import FloatArray, IntArray

logger = logging.getLogger(__name__)

Support = Literal["clamped", "pinned", "free"]
SUPPORTS: tuple[str, ...] = ("clamped", "pinned", "free")

# number of rigid-body (zero-frequency) modes for each unordered pair of supports
_RIGID_MODES = {frozenset({"free"}): 2, frozenset({"pinned", "free"}): 1}


def n_rigid_modes(left: str, right: str) -> int:
    """Number of zero-frequency (rigid-body) modes of a beam with these supports (0, 1 or 2)."""
    return _RIGID_MODES.get(frozenset({left, right}), 0)


def closed_form_beta_l(left: str, right: str, n: int) -> FloatArray | None:
    """The first ``n`` elastic roots β_k L of the Euler–Bernoulli frequency equation, or None.

    ================================  =================================  ===================
    supports (either order)           frequency equation                 β_1 L
    ================================  =================================  ===================
    clamped–free                      cos βL cosh βL = −1                1.87510407
    pinned–pinned                     sin βL = 0                         π
    free–free, clamped–clamped        cos βL cosh βL = 1 (βL > 0)        4.73004074
    clamped–pinned, pinned–free       tan βL = tanh βL (βL > 0)          3.92660231
    ================================  =================================  ===================

    Roots are bracketed one per interval and found by Brent's method to 1e-15 (relative); the
    equations are divided by cosh βL so that nothing overflows for large βL.

    References
    ----------
    Timoshenko, Young & Weaver (1990), §5.3, Table 5.3.
    """
    if n < 1:
        raise ValueError(f"n must be a positive number of modes, got {n}")
    pair = frozenset({left, right})
    k = np.arange(1, n + 1, dtype=float)
    if pair == frozenset({"pinned"}):
        return k * np.pi

    def sech(b: float) -> float:
        e = np.exp(-b)
        return 2.0 * e / (1.0 + e * e)

    if pair == frozenset({"clamped", "free"}):
        f: Callable[[float], float] = lambda b: np.cos(b) + sech(b)
        brackets = [((j - 1) * np.pi + 1e-3, j * np.pi) for j in range(1, n + 1)]
    elif pair in (frozenset({"free"}), frozenset({"clamped"})):
        f = lambda b: np.cos(b) - sech(b)
        brackets = [(j * np.pi, (j + 1) * np.pi) for j in range(1, n + 1)]
    elif pair in (frozenset({"clamped", "pinned"}), frozenset({"pinned", "free"})):
        f = lambda b: np.sin(b) - np.cos(b) * np.tanh(b)
        brackets = [(j * np.pi, j * np.pi + 0.5 * np.pi) for j in range(1, n + 1)]
    else:
        return None
    return np.array([scipy.optimize.brentq(f, a, b, xtol=1e-15, rtol=1e-15) for a, b in brackets])


@dataclass(frozen=True)
class StaticResult:
    """Static deflection: node coordinates ``x`` (n_nodes,), deflection ``w`` and slope ``dw``
    (n_nodes,), and the tip (x = L) deflection ``tip``."""

    x: FloatArray
    w: FloatArray
    dw: FloatArray
    tip: float


@dataclass(frozen=True)
class ModesResult:
    """Natural modes: ``omega`` (rad/s) and ``hz`` (n,), mass-normalised DOF vectors ``vectors``
    (n, n_dofs) and nodal deflections ``shapes`` (n, n_nodes), sign chosen so that the largest
    nodal deflection is positive; ``x`` are the node coordinates."""

    omega: FloatArray
    hz: FloatArray
    x: FloatArray
    shapes: FloatArray
    vectors: FloatArray


@dataclass(frozen=True, eq=False)
class EulerBernoulliBeam:
    """A straight Euler–Bernoulli beam on [0, L] discretised by cubic Hermite elements.

    Parameters
    ----------
    length, EI, rhoA
        Length L > 0, bending stiffness EI > 0, mass per unit length ρA > 0.
    n_elements
        Number of elements (≥ 1) of a uniform mesh; ignored in favour of ``nodes`` when given.
    left, right
        Supports at x = 0 and x = L: "clamped", "pinned" or "free".
    nodes
        Optional node coordinates (strictly increasing, from 0 to L) for a non-uniform mesh.

    Examples
    --------
    >>> beam = EulerBernoulliBeam(length=2.0, EI=3.0, rhoA=1.5, n_elements=8)
    >>> round(beam.static(tip_force=1.0).tip, 12)   # P L³ / (3 EI) = 8/9
    0.888888888889
    """

    length: float
    EI: float
    rhoA: float
    n_elements: int
    left: str = "clamped"
    right: str = "free"
    nodes: FloatArray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for name in ("length", "EI", "rhoA"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float, np.floating)) and np.isfinite(value) and value > 0):
                raise ValueError(
                    f"EulerBernoulliBeam: {name} must be a positive finite number, got {value!r}"
                )
        for name in ("left", "right"):
            if getattr(self, name) not in SUPPORTS:
                raise ValueError(
                    f"EulerBernoulliBeam: {name} support {getattr(self, name)!r} is not one of "
                    f"{', '.join(SUPPORTS)}"
                )
        if self.nodes is None:
            if not (isinstance(self.n_elements, (int, np.integer)) and self.n_elements >= 1):
                raise ValueError(
                    f"EulerBernoulliBeam: n_elements must be an integer ≥ 1, got {self.n_elements!r}"
                )
            return
        nodes = np.asarray(self.nodes, dtype=float)
        if nodes.ndim != 1 or nodes.size < 2:
            raise ValueError(
                f"EulerBernoulliBeam: nodes must be a 1-D array of ≥ 2 coordinates, got shape {nodes.shape}"
            )
        if not np.all(np.diff(nodes) > 0):
            raise ValueError("EulerBernoulliBeam: nodes must be strictly increasing")
        if not (np.isclose(nodes[0], 0.0, atol=1e-12 * self.length) and np.isclose(nodes[-1], self.length)):
            raise ValueError(
                f"EulerBernoulliBeam: nodes must run from 0 to length={self.length}, got "
                f"[{nodes[0]}, {nodes[-1]}]"
            )
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "n_elements", nodes.size - 1)

    # ------------------------------------------------------------------ structure
    @cached_property
    def x(self) -> FloatArray:
        """Node coordinates (n_nodes,)."""
        if self.nodes is not None:
            return np.asarray(self.nodes, dtype=float)
        return np.linspace(0.0, self.length, self.n_elements + 1)

    @cached_property
    def basis(self) -> Basis:
        """scikit-fem basis (cubic Hermite; quadrature exact for the degree-6 mass integrand)."""
        return Basis(MeshLine(self.x), ElementLineHermite(), intorder=6)

    @cached_property
    def stiffness(self) -> sp.csr_matrix:
        """K_ij = ∫ EI φ_i'' φ_j'' dx, sparse (n_dofs, n_dofs)."""
        EI = float(self.EI)
        form = BilinearForm(lambda u, v, w: EI * dd(u)[0, 0] * dd(v)[0, 0])
        return form.assemble(self.basis).tocsr()

    @cached_property
    def mass(self) -> sp.csr_matrix:
        """Consistent mass M_ij = ∫ ρA φ_i φ_j dx, sparse (n_dofs, n_dofs)."""
        rhoA = float(self.rhoA)
        form = BilinearForm(lambda u, v, w: rhoA * u * v)
        return form.assemble(self.basis).tocsr()

    @cached_property
    def fixed_dofs(self) -> IntArray:
        """DOFs removed by the supports (clamped: w, w'; pinned: w; free: none)."""
        nd = self.basis.nodal_dofs  # (2, n_nodes): row 0 = w, row 1 = w'
        out: list[int] = []
        for support, node in ((self.left, 0), (self.right, self.x.size - 1)):
            if support == "clamped":
                out += [int(nd[0, node]), int(nd[1, node])]
            elif support == "pinned":
                out.append(int(nd[0, node]))
        return np.array(sorted(out), dtype=np.int64)

    @cached_property
    def free_dofs(self) -> IntArray:
        """DOFs left after the supports."""
        return np.setdiff1d(np.arange(self.basis.N), self.fixed_dofs).astype(np.int64)

    def _reduced(self, A: sp.csr_matrix) -> sp.csr_matrix:
        f = self.free_dofs
        return A[f][:, f].tocsr()

    def _nodal(self, u: FloatArray) -> tuple[FloatArray, FloatArray]:
        nd = self.basis.nodal_dofs
        return u[..., nd[0]], u[..., nd[1]]

    # ------------------------------------------------------------------ statics
    def static(
        self,
        tip_force: float = 0.0,
        distributed: float | Callable[[FloatArray], FloatArray] = 0.0,
    ) -> StaticResult:
        """Static deflection under a transverse tip force P at x = L and a distributed load q(x).

        Solves ``K u = f`` with ``f_i = ∫ q φ_i dx + P φ_i(L)`` on the free DOFs (sparse LU).

        Parameters
        ----------
        tip_force
            Transverse force P at x = L (same direction as positive w); the right end must be free.
        distributed
            Load per unit length: a number (uniform) or a vectorised callable ``q(x)``.

        Returns
        -------
        StaticResult
            Nodal deflection and slope; exact at the nodes for polynomial q of degree ≤ 3 applied
            with enough quadrature (Hermite cubics are nodally exact for EI w'''' = q, see the
            module references), e.g. the cantilever tip P L³/(3EI) + q L⁴/(8EI).
        """
        if n_rigid_modes(self.left, self.right):
            raise ValueError(
                f"static: the beam with supports left={self.left!r}, right={self.right!r} can move as a "
                "rigid body; use clamped or pinned supports that prevent rigid motion"
            )
        if tip_force != 0.0 and self.right != "free":
            raise ValueError(
                f"static: tip_force acts on the right end, which is {self.right!r} and would carry it; "
                "set right='free' or tip_force=0"
            )
        if callable(distributed):
            q_fun = distributed
            form = LinearForm(lambda v, w: q_fun(w.x[0]) * v)
        else:
            q0 = float(distributed)
            if not np.isfinite(q0):
                raise ValueError(f"static: distributed load must be finite, got {distributed!r}")
            form = LinearForm(lambda v, w: q0 * v)
        f = form.assemble(self.basis)
        f[self.basis.nodal_dofs[0, -1]] += float(tip_force)
        u = np.zeros(self.basis.N)
        u[self.free_dofs] = spla.spsolve(self._reduced(self.stiffness).tocsc(), f[self.free_dofs])
        w, dw = self._nodal(u)
        return StaticResult(x=self.x, w=w, dw=dw, tip=float(w[-1]))

    # ------------------------------------------------------------------ modes
    def modes(self, n: int, include_rigid: bool = False) -> ModesResult:
        """The ``n`` lowest natural modes: K φ = ω² M φ on the free DOFs.

        Uses ``scipy.sparse.linalg.eigsh`` in shift-invert mode with the shift σ = −EI/(ρA L⁴)
        below the spectrum, so that K − σM is positive definite even with rigid-body modes.
        Rigid-body modes (free–free: 2, pinned–free: 1) are dropped unless ``include_rigid``.
        """
        if not (isinstance(n, (int, np.integer)) and n >= 1):
            raise ValueError(f"modes: n must be a positive integer, got {n!r}")
        n_rigid = 0 if include_rigid else n_rigid_modes(self.left, self.right)
        k = n + n_rigid
        n_free = self.free_dofs.size
        if k >= n_free:
            raise ValueError(
                f"modes: {n} modes requested but the mesh has only {n_free} free DOFs "
                f"({n_free - 1 - n_rigid} computable modes); increase n_elements"
            )
        K, M = self._reduced(self.stiffness), self._reduced(self.mass)
        scale = self.EI / (self.rhoA * self.length**4)
        lam, vec = spla.eigsh(K, k=k, M=M, sigma=-scale, which="LM", v0=arpack_start(K.shape[0]))
        order = np.argsort(lam)
        lam, vec = lam[order][n_rigid:], vec[:, order][:, n_rigid:]
        omega = np.sqrt(np.maximum(lam, 0.0))  # rigid modes may come out as −1e-12 · scale
        vectors = np.zeros((n, self.basis.N))
        vectors[:, self.free_dofs] = vec.T
        shapes, _ = self._nodal(vectors)
        idx = np.argmax(np.abs(shapes), axis=1)
        sign = np.sign(shapes[np.arange(n), idx])
        sign = np.where(sign == 0, 1.0, sign)
        vectors *= sign[:, None]
        shapes = shapes * sign[:, None]
        logger.debug("modes: %d elements, omega = %s", self.n_elements, omega)
        return ModesResult(omega=omega, hz=omega / (2 * np.pi), x=self.x, shapes=shapes, vectors=vectors)

    def closed_form_omega(self, n: int) -> FloatArray | None:
        """Closed-form ω_n = (β_n L)² √(EI/(ρA L⁴)) for uniform beams, or None if not tabulated."""
        bl = closed_form_beta_l(self.left, self.right, n)
        if bl is None:
            return None
        return bl**2 * np.sqrt(self.EI / (self.rhoA * self.length**4))
