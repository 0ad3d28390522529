"""Geometrically exact Cosserat/Kirchhoff rod on (S³⋉R³)^(N+1) as a constrained mechanical system.

    M v' = −g(t, q, v) − B(q)ᵀ λ,   Φ(q) = 0,   q' = q · v^            (seed 004 eq. (1))

Symbols (seed 004 §4, eqs. (23)–(25); Table 3 in /work/shared/notes/beam-reference-data.md §4):
    q   (N+1, 7)  nodal frames (p_i, x_i);  v (6(N+1),) flat body velocities (Ω_i, U_i), x_i' = R_i U_i
    w   (N, 6)    edge strains (K, Γ) = log(q_{i−1}⁻¹ q_i)/Δs; w0 those of the reference configuration
    V   Σ_e Δs_e ½ (w − w0)ᵀ C (w − w0)         (midpoint rule)
    T   Σ_i ℓ_i ½ (ρA |U_i|² + Ω_iᵀ ρJ Ω_i)      (trapezoidal rule, lumped; M constant diagonal)
    g   ∂V (through T⁻¹ and Ad, kernels.py) + Kelvin–Voigt C_d ẇ + (Ω×JΩ, m Ω×U) − external loads
    Φ   Kirchhoff Δs(Γ₁ − Γ₀₁, Γ₂ − Γ₀₂) per edge (eq. (25), Γ₀ = e₃ for straight/arc/helix rods),
        optional inextensibility Δs(Γ₃ − Γ₀₃), then the support rows (supports.py, support_rows.py): per
        degree of freedom in a frame, any node; spring supports add to g and V; reactions from λ
    Φ(t, q), Φ_t  with prescribed supports the rod is rheonomic (lgbeam.systems.RheonomicConstraints);
        ``constraints``/``constraint_jacobian`` are then the t = 0 forms
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from lgbeam._numba import resolve
from lgbeam._typing import FloatArray

from . import _compiled, assembly, kernels, tangents
from . import inertia as _inertia
from .loads import DistributedLoad, Gravity, Load, NodalLoad, PointMass, external_forces
from .material import Material
from .mesh import RodMesh
from .support_rows import SupportRows
from .supports import Support

logger = logging.getLogger(__name__)



def _dot_rotated(p: FloatArray, a: FloatArray, u: FloatArray) -> float:
    """a·(R(p) u) for one unit quaternion p = (w, x, y, z): R(p) u = u + 2w (r × u) + 2 r × (r × u), r = (x, y, z)
    (scalar arithmetic: a 3-vector does not pay numpy's per-call cost)."""
    w, x, y, z = (float(c) for c in p)
    u0, u1, u2 = (float(c) for c in u)
    c0, c1, c2 = y * u2 - z * u1, z * u0 - x * u2, x * u1 - y * u0
    d0, d1, d2 = y * c2 - z * c1, z * c0 - x * c2, x * c1 - y * c0
    return float(a[0] * (u0 + 2 * (w * c0 + d0)) + a[1] * (u1 + 2 * (w * c1 + d1)) + a[2] * (u2 + 2 * (w * c2 + d2)))

@dataclass(frozen=True, kw_only=True)
class CosseratRod:
    """A Cosserat rod with internal constraints, supports and loads (a ``ConstrainedMechanicalSystem``).

    Parameters
    ----------
    mesh : RodMesh with N ≥ 1 edges.
    material : Material (stiffness, damping, inertia per length).
    q_ref : (N+1, 7) reference (stress-free) configuration; also the support targets.
    supports, loads : tuples of Support / NodalLoad, DistributedLoad, Gravity.
    kirchhoff : impose Γ₁ = Γ₀₁, Γ₂ = Γ₀₂ per edge (seed 004 eq. (25)).
    inextensible : impose Γ₃ = Γ₀₃ per edge.
    radius : display radius for ParaView's Tube filter.
    inertia : nodal weights of the lumped inertia (``inertia.py``): "lumped" (trapezoidal, seed 004 §4, default),
        "end-corrected" or "end-corrected-3" (Gregory's end corrections: the rigid-body inertia of a straight
        uniform rod to O(h³); docs/rod.md "Spatial accuracy"). Gravity and distributed loads use the same weights.
    point_masses : PointMass tuple: masses and rotary inertia added to the lumped nodal ones (gravity acts on them).
    compiled : run the compiled kernels (``_compiled.KERNELS``, and an ``S3R3(compiled=True)`` group) instead
        of the numpy ones (``kernels.NUMPY_KERNELS``); None takes ``lgbeam._numba.ENABLED``. Resolved to a
        bool, and the kernels chosen, when the rod is built.

    References
    ----------
    Seed 004 §4 eqs. (23)–(25) (Hante's discretisation of the Lang–Linn rod); Table 3.
    """

    mesh: RodMesh
    material: Material
    q_ref: FloatArray = field(repr=False)
    supports: tuple[Support, ...] = ()
    loads: tuple[Load, ...] = ()
    kirchhoff: bool = True
    inextensible: bool = False
    radius: float = 0.05
    compiled: bool | None = None
    inertia: str = "lumped"
    point_masses: tuple[PointMass, ...] = ()

    mass_is_constant: bool = field(default=True, init=False)
    _kernels: kernels.RodKernels = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", resolve(self.compiled))
        object.__setattr__(self, "_kernels", _compiled.KERNELS if self.compiled else kernels.NUMPY_KERNELS)
        q = np.asarray(self.q_ref, dtype=float)
        n = self.mesh.n_nodes
        if q.shape != (n, 7):
            raise ValueError(f"q_ref must have shape ({n}, 7) for {n - 1} edges, got {q.shape}")
        self.G.validate(q)
        object.__setattr__(self, "q_ref", q)
        object.__setattr__(self, "supports", tuple(self.supports))
        object.__setattr__(self, "loads", tuple(self.loads))
        object.__setattr__(self, "point_masses", tuple(self.point_masses))
        for pm in self.point_masses:
            if not isinstance(pm, PointMass):
                raise TypeError(f"point_masses must be PointMass objects, got {pm!r}")
            self.mesh.node_index(pm.node)
        _inertia.check_inertia(self.inertia, self.mesh.n_elements)
        _ = self.support_rows, self._load_nodes  # validate supports (redundant rows) and node references now
        chord = np.linalg.norm(np.diff(self.G.translation(q), axis=0), axis=1)
        if np.any(chord == 0.0):
            raise ValueError(f"zero-length edge(s) {np.flatnonzero(chord == 0.0).tolist()} in the reference centreline")

    # ------------------------------------------------------------------ structure
    @cached_property
    def G(self) -> Any:
        from lgbeam.groups.s3r3 import S3R3  # deferred import: keeps this module importable alone

        return S3R3(compiled=self.compiled)

    @cached_property
    def group(self) -> Any:
        from lgbeam.groups import Product

        return Product(self.G, self.mesh.n_nodes)

    @cached_property
    def n_nodes(self) -> int:
        return self.mesh.n_nodes

    @property
    def n_dofs(self) -> int:
        """Velocity unknowns: 6 a node (angular, then translational)."""
        return 6 * self.n_nodes

    @cached_property
    def internal_rows(self) -> tuple[int, ...]:
        """Components of xi constrained per edge: 3, 4 (Kirchhoff Γ₁, Γ₂), 5 (Γ₃)."""
        return (3, 4) * self.kirchhoff + (5,) * self.inextensible

    @cached_property
    def support_rows(self) -> SupportRows:
        """The supports resolved and stacked: rows of Φ and B, springs, tangents, reactions (support_rows.py)."""
        return SupportRows.build(self.supports, self.mesh, self.q_ref, inextensible=self.inextensible)

    @cached_property
    def _load_nodes(self) -> tuple[int, ...]:
        out = []
        for load in self.loads:
            if isinstance(load, NodalLoad):
                out.append(self.mesh.node_index(load.node))
            elif isinstance(load, (DistributedLoad, Gravity)):
                out.append(-1)
            else:
                raise ValueError(f"unknown rod load {load!r}; use NodalLoad, DistributedLoad or Gravity")  # noqa: TRY004 - a user error: the CLI maps ValueError to exit 2
        return tuple(out)

    @property
    def rheonomic(self) -> bool:
        """True when some support row follows a prescribed motion (time-dependent constraint rows)."""
        return self.support_rows.rheonomic

    @property
    def n_internal(self) -> int:
        return self.mesh.n_elements * len(self.internal_rows)

    @property
    def n_constraints(self) -> int:
        return self.n_internal + self.support_rows.n_rows

    @cached_property
    def w0(self) -> FloatArray:
        """Reference strains (N, 6) of ``q_ref``."""
        _, xi = kernels.edge_logs(self.G, self.q_ref)
        return xi / self.mesh.ds[:, None]

    @cached_property
    def mass_weights(self) -> FloatArray:
        """Nodal weights w_i of the lumped inertia and of gravity/distributed loads (``inertia.node_weights``)."""
        return _inertia.node_weights(self.mesh, self.inertia)

    @cached_property
    def node_mass(self) -> FloatArray:
        """Nodal masses: ρA w_i plus the point masses."""
        m = self.material.rhoA * self.mass_weights
        if self.point_masses:
            np.add.at(m, [self.mesh.node_index(pm.node) for pm in self.point_masses],
                      [pm.mass for pm in self.point_masses])
        return m

    @cached_property
    def node_inertia(self) -> FloatArray:
        """Nodal rotary inertia (N+1, 3) about the directors: ρJ w_i plus the point masses' inertia."""
        J = self.material.rhoJ[None, :] * self.mass_weights[:, None]
        if self.point_masses:
            np.add.at(J, [self.mesh.node_index(pm.node) for pm in self.point_masses],
                      np.array([pm.inertia for pm in self.point_masses]))
        return J

    @cached_property
    def _mass(self) -> sp.csr_array:
        diag = np.concatenate([self.node_inertia, np.repeat(self.node_mass[:, None], 3, axis=1)], axis=1)
        return assembly.block_diagonal(diag)

    @cached_property
    def _mass_diag(self) -> FloatArray:
        return self._mass.diagonal()

    @cached_property
    def _nodal_only(self) -> tuple[NodalLoad, ...]:
        """The loads when every one is a nodal load (the fused paths), else ()."""
        nodal = tuple(ld for ld in self.loads if isinstance(ld, NodalLoad))
        return nodal if len(nodal) == len(self.loads) else ()

    @cached_property
    def _nodal_loads(self) -> tuple[np.ndarray, FloatArray, np.ndarray] | None:
        """(nodes, (moment, force) pairs, spatial flags) when every load is a nodal one, else None."""
        if not (nodal := self._nodal_only):
            return None
        return (np.array(self._load_nodes, dtype=np.intp), np.array([ld.pair for ld in nodal]),
                np.array([ld.frame == "spatial" for ld in nodal]))

    @cached_property
    def _B_gather(self) -> np.ndarray | None:
        """Flat indices into JJ (N, 6, 12) that give B's CSR entries directly (only internal rows), else None."""
        if not self.internal_rows or self.n_constraints != self.n_internal:
            return None
        n = self.mesh.n_elements
        flat = np.arange(n * 72).reshape(n, 6, 12)[:, self._rows_index, :].ravel()
        return flat[self._B_csr.perm]

    @cached_property
    def _B_csr(self) -> assembly.CSRPattern:
        rr, cc = self._B_pattern
        return assembly.CSRPattern(rr, cc, (self.n_constraints, 6 * self.n_nodes))

    @cached_property
    def _memo(self) -> dict[bytes, tuple[FloatArray, FloatArray]]:
        """Two-entry memo of the edge kinematics of the last configurations q (forces and B are evaluated at the same
        stage configurations); a pure cache, never part of the state."""
        return {}

    def _edges(self, q: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(xi, JJ) of configuration q (``edge_kinematics`` of the rod's kernels; JJ = [Jm | Jp], (N, 6, 12)).

        Two-entry memo keyed on the bytes of q: forces and B are evaluated at the same stage
        configurations, and the driver's residuals at the configuration of the last stage."""
        key = q.tobytes()
        memo = self._memo
        hit = memo.get(key)
        if hit is None:
            hit = self._kernels.edge_kinematics(q)
            if len(memo) >= 2:
                del memo[next(iter(memo))]
            memo[key] = hit
        return hit

    @cached_property
    def _rows_index(self) -> np.ndarray:
        return np.array(self.internal_rows, dtype=np.intp)

    @cached_property
    def _phi_ref(self) -> FloatArray:
        """Δs w0 on the internally constrained components, (N, len(internal_rows))."""
        return self.mesh.ds[:, None] * self.w0[:, self._rows_index]

    @cached_property
    def _kv(self) -> tuple[FloatArray, FloatArray, FloatArray | None, FloatArray, FloatArray]:
        """Constant factors of the stress: (C/Δs, C w0, C_d/Δs or None, nodal inertia, nodal mass)."""
        mat, ds = self.material, self.mesh.ds[:, None]
        C = mat.stiffness
        Cd = mat.damping / ds if mat.has_damping else None
        return C / ds, C * self.w0, Cd, self.node_inertia, self.node_mass

    @cached_property
    def _B_pattern(self) -> tuple[np.ndarray, np.ndarray]:
        nr = len(self.internal_rows)
        parts = [assembly.edge_row_pattern(self.mesh.n_elements, nr)] if nr else []
        if self.support_rows.n_rows:
            parts.append(self.support_rows.pattern(self.n_internal))
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    # ------------------------------------------------------------------ protocol
    def _q(self, q: FloatArray) -> FloatArray:
        n = self.n_nodes
        if type(q) is np.ndarray and q.shape == (n, 7) and q.dtype == np.float64 and q.flags.c_contiguous:
            return q  # the integrators' own states: no conversion
        return np.ascontiguousarray(q, dtype=float).reshape(n, 7)

    def mass(self, q: FloatArray) -> sp.csr_array:
        """Constant lumped mass, diagonal CSR (6(N+1), 6(N+1)): diag(ρJ ℓ_i, ρA ℓ_i I₃) per node."""
        return self._mass

    def forces(self, t: float, q: FloatArray, v: FloatArray) -> FloatArray:
        """g(t, q, v) = ∂V + Kelvin–Voigt + gyroscopic − external, flat (6(N+1),)."""
        q = self._q(q)
        V = np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        xi, JJ = self._edges(q)
        g = self._kernels.internal_forces(xi, JJ, V, *self._kv).ravel()
        if (nodal := self._nodal_loads) is not None:  # −f added in place at the loaded nodes only
            scale = np.array([-ld.time(t) for ld in self._nodal_only])
            self._kernels.loads.add_nodal_loads(g.reshape(self.n_nodes, 6), q, nodal[0], nodal[1], nodal[2], scale)
        elif self.loads:
            g -= self.external_forces(t, q)
        if self.support_rows.has_springs:  # elastic supports (support_rows.py)
            g += self.support_rows.spring_forces(t, q).ravel()
        return g

    def external_forces(self, t: float, q: FloatArray) -> FloatArray:
        """Body-frame generalised external loads f (6(N+1),) at time t; they enter g as −f."""
        if not self.loads:
            return np.zeros(6 * self.n_nodes)
        return external_forces(
            t, self._q(q), self.loads, self._load_nodes, self.mass_weights, self.material.rhoA, self._kernels.loads,
            self.node_mass if self.point_masses else None).ravel()

    def constraints(self, q: FloatArray) -> FloatArray:
        """Φ(q): internal rows (edge-major), then the support rows in the order of ``supports`` (prescribed at t = 0)."""
        return self.constraints_t(0.0, q)

    def constraints_t(self, t: float, q: FloatArray) -> FloatArray:
        """Φ(t, q); only the rows of prescribed supports depend on t."""
        q = self._q(q)
        parts = []
        if self.internal_rows:
            xi, _ = self._edges(q)
            parts.append((xi[:, self._rows_index] - self._phi_ref).ravel())
        if self.support_rows.n_rows:
            parts.append(self.support_rows.evaluate(t, q)[0] if self.compiled else self.support_rows.phi(t, q))
        return np.concatenate(parts) if parts else np.zeros(0)

    def constraint_rate(self, t: float, q: FloatArray) -> FloatArray:
        """∂Φ/∂t (m,): zero except the prescribed support rows (−a·T(ψ)⁻¹ w_ref, −a·ẋ_ref; support_rows.py)."""
        out = np.zeros(self.n_constraints)
        if self.support_rows.rheonomic:
            out[self.n_internal:] = self.support_rows.rate(t, self._q(q))
        return out

    def constraint_jacobian(self, q: FloatArray) -> sp.csr_array:
        """B(q) = dΦ along left-translated directions, banded CSR (m, 6(N+1)) (prescribed rows at t = 0)."""
        return self.constraint_jacobian_t(0.0, q)

    def constraint_jacobian_t(self, t: float, q: FloatArray) -> sp.csr_array:
        """B(t, q) = ∂Φ(t, ·) along left-translated directions (support rows: support_rows.py)."""
        q = self._q(q)
        if self._B_gather is not None:  # internal rows only: one gather straight into CSR order
            return self._B_csr.matrix_sorted(self._edges(q)[1].ravel()[self._B_gather])
        if self.compiled and self.support_rows.n_rows:  # internal and support rows, one compiled gather
            _, s_data, _ = self.support_rows.evaluate(t, q)
            return self._B_csr.matrix_sorted(_compiled.jacobian_data(self._edges(q)[1], self._rows_index, s_data,
                                                                     self._B_csr.perm))
        data = []
        if self.internal_rows:
            _, JJ = self._edges(q)
            data.append(JJ[:, self._rows_index, :].ravel())  # per row: [Jm row | Jp row] (edge_row_pattern)
        if self.support_rows.n_rows:
            data.append(self.support_rows.evaluate(t, q)[1].ravel() if self.compiled
                        else self.support_rows.jacobian_data(t, q))
        d = (data[0] if len(data) == 1 else np.concatenate(data)) if data else np.zeros(0)
        return self._B_csr.matrix(d)

    def newton_residual(self, t: float, q: FloatArray, v: FloatArray,
                        lam: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(g, Bᵀλ, Φ, B v + Φ_t) at (t, q, v, λ): what one Newton iteration of an implicit method evaluates
        (``HasNewtonResidual``). Compiled rods with nodal loads only: one fused pass (``_compiled.rod_residual``), B is never
        assembled; otherwise the protocol methods (the numpy reference)."""
        q = self._q(q)
        V = np.ascontiguousarray(v, dtype=float).reshape(self.n_nodes, 6)
        lam = np.ascontiguousarray(lam, dtype=float)
        fused = self._fused
        if fused is None:
            B = self.constraint_jacobian_t(t, q)
            bv = B @ V.ravel()
            if self.rheonomic:
                bv = bv + self.constraint_rate(t, q)
            return self.forces(t, q, V.ravel()), B.T @ lam, self.constraints_t(t, q), bv
        sr = self.support_rows
        b = sr.base(t)
        scale = np.array([-ld.time(t) for ld in self._nodal_only]) if self.loads else fused["no_scale"]
        g, f, phi, bv = _compiled.rod_residual(
            q, V, lam, *fused["rows"], sr.nodes, b.p, b.R, b.x, sr.row_entry, sr.row_rot, sr.row_dir,
            fused["s_node"], fused["s_row"], *fused["kv"], *fused["loads"], scale)
        if sr.rheonomic:
            bv[self.n_internal:] += sr.rate(t, q)
        return g.ravel(), f.ravel(), phi, bv

    def ga_evaluator(self, t: float, q: FloatArray) -> tuple[Callable[..., tuple[Any, ...]],
                                                              Callable[..., tuple[Any, ...]]] | None:
        """A generalized-α step's compiled calls at t = t_{n+1} from q_n, bound to this step's constants
        (``generalized_alpha.HasGAEvaluator``): ``evaluate`` (``_compiled.ga_rod_evaluate``: iterate, q_n ∘ exp(θ),
        ``rod_residual``, scaled right-hand side) and ``iterate`` (``_compiled.ga_rod_iterate``: banded correction, then
        ``evaluate`` at the corrected iterate); None where ``newton_residual`` needs the reference path or Φ depends
        on t."""
        fused = self._fused
        sr = self.support_rows
        if fused is None or sr.rheonomic:
            return None
        b = sr.base(t)
        scale = np.array([-ld.time(t) for ld in self._nodal_only]) if self.loads else fused["no_scale"]
        tail = (*fused["rows"], sr.nodes, b.p, b.R, b.x, sr.row_entry, sr.row_rot, sr.row_dir, fused["s_node"],
                fused["s_row"], *fused["kv"], *fused["loads"], scale)
        qn, ev_kernel, it_kernel = self._q(q), _compiled.ga_rod_evaluate, _compiled.ga_rod_iterate

        def evaluate(lam: FloatArray, th: FloatArray, *consts: Any) -> tuple[Any, ...]:
            """(θ, v_{n+1}, v̇_{n+1}, q_{n+1}, rhs, max|g|, max|M v̇|, max|θ|) of (λ, θ̃, B_nᵀν, base, βh², v_base,
            hγ, v̇_base, (1 − α_m)/(1 − α_f), diag M, 1/β', γ', m, index 2) (``generalized_alpha``)."""
            return ev_kernel(qn, lam, th, *consts, *tail)  # type: ignore[no-any-return]

        def iterate(*correction: Any) -> tuple[Any, ...]:
            """``ga_rod_iterate`` of (lub, kl, ku, piv, perm, rhs, θ̃, λ, ν, B_nᵀν, B_n's CSR arrays, base, βh², v_base,
            hγ, v̇_base, (1 − α_m)/(1 − α_f), diag M, 1/β', γ', m, index 2)."""
            return it_kernel(*correction[:13], qn, *correction[13:], *tail)  # type: ignore[no-any-return]

        return evaluate, iterate

    @cached_property
    def _fused(self) -> dict[str, Any] | None:
        """The constant arguments of ``_compiled.rod_residual``, or None where the rod needs the reference
        path (numpy kernels, spring supports, distributed loads or gravity)."""
        if not self.compiled or self.support_rows.has_springs or (self.loads and self._nodal_loads is None):
            return None
        C_ds, Cw0, Cd_ds, J, m = self._kv
        nodal = self._nodal_loads
        loads = ((np.zeros(0, np.intp), np.zeros((0, 6)), np.zeros(0, bool)) if nodal is None
                 else (nodal[0].astype(np.intp), np.ascontiguousarray(nodal[1], dtype=float), nodal[2]))
        ne, nr = self.mesh.n_elements, len(self.internal_rows)
        rows = (np.arange(ne, dtype=np.int64), np.repeat(np.arange(ne, dtype=np.int64), nr),
                np.tile(self._rows_index.astype(np.int64), ne), np.arange(ne * nr, dtype=np.int64),
                np.ascontiguousarray(self._phi_ref, dtype=float).ravel())
        return {"kv": (C_ds, Cw0, C_ds if Cd_ds is None else Cd_ds, Cd_ds is not None, J, m), "loads": loads,
                "rows": rows, "s_node": self.support_rows.row_nodes,
                "s_row": self.n_internal + np.arange(self.support_rows.n_rows, dtype=np.int64), "no_scale": np.zeros(0)}

    # ------------------------------------------------------------------ exact tangents (HasTangents; tangents.py)
    def stiffness(self, t: float, q: FloatArray, v: FloatArray) -> sp.csr_array:
        """K w = d/dε g(t, q ∘ exp(εw), v)|₀: elastic, Kelvin–Voigt and load stiffness, block-tridiagonal CSR."""
        K = tangents.stiffness(self, t, q, v)
        return (K + self.support_stiffness(t, q)).tocsr() if self.support_rows.has_springs else K  # spring supports

    def damping(self, t: float, q: FloatArray, v: FloatArray) -> sp.csr_array:
        """D u = d/dε g(t, q, v + εu)|₀: Kelvin–Voigt and gyroscopic terms, block-tridiagonal CSR."""
        return tangents.damping(self, q, v)

    def constraint_stiffness(self, t: float, q: FloatArray, lam: FloatArray) -> sp.csr_array:
        """Z w = d/dε B(t, q ∘ exp(εw))ᵀ λ|₀, CSR (analytic for the internal rows and the support kinds)."""
        return tangents.constraint_stiffness(self, t, q, lam)

    def chain_tangent_blocks(self, t: float, q: FloatArray, v: FloatArray,
                             lam: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray] | None:
        """The exact tangents as blocks of the node chain (edge e joins nodes e and e + 1): (K + Z edge blocks
        (N, 12, 12), K + Z node blocks (N+1, 6, 6), D edge blocks, D node blocks), equal to ``stiffness`` +
        ``constraint_stiffness`` and ``damping`` to round-off; None with spring supports or numpy kernels (the
        sparse matrices then). ``generalized_alpha`` assembles its iteration matrix from them in one compiled pass
        (``integrators._compiled.ga_band_matrix``)."""
        if not self.compiled or self.support_rows.has_springs:
            return None
        q = self._q(q)
        lam = np.asarray(lam, dtype=float)
        nr, n_int = len(self.internal_rows), self.n_internal
        s_lam = None
        if nr:  # Z_e of the internal rows = [H(−ξ, s_λ); H(ξ, s_λ)] JJ, linear in s: one pass with σ + s_λ
            s_lam = np.zeros((self.mesh.n_elements, 6))
            s_lam[:, self._rows_index] = lam[:n_int].reshape(-1, nr)
        Eq = tangents.element_stiffness(self, q, v, s_lam)
        _, JJ = self._edges(q)
        loads = tangents.load_node_blocks(self, t, q)
        Nq = np.zeros((self.n_nodes, 6, 6)) if loads is None else -loads
        if self.n_constraints > n_int:
            sr = self.support_rows
            np.add.at(Nq, sr.nodes, sr.constraint_stiffness_blocks(t, q, lam[n_int:]))
        _, _, Cd_ds, J, m = self._kv
        Nd = tangents.gyroscopic_blocks(np.asarray(v, dtype=float).reshape(self.n_nodes, 6), J, m)
        Ed = (np.zeros((self.mesh.n_elements, 12, 12)) if Cd_ds is None
              else np.swapaxes(JJ, 1, 2) @ (Cd_ds[:, :, None] * JJ))
        return Eq, Nq, Ed, Nd

    def node_tangent_blocks(self, theta: FloatArray) -> FloatArray:
        """T(θ) of the group, one (6, 6) block per node (N+1, 6, 6) (``groups.se3.tangent_se3``; compiled:
        ``_compiled.s3r3_tangent_blocks``)."""
        rows = np.ascontiguousarray(theta, dtype=float).reshape(self.n_nodes, 6)
        return _compiled.s3r3_tangent_blocks(rows) if self.compiled else np.asarray(self.group.tangent(rows.ravel()))

    # ------------------------------------------------------------------ energies, invariants
    def strains(self, q: FloatArray) -> FloatArray:
        """Edge strains w = (K, Γ), (N, 6)."""
        xi, _ = self._edges(self._q(q))
        return xi / self.mesh.ds[:, None]

    def potential_energy(self, q: FloatArray, t: float = 0.0) -> float:
        """Elastic energy V plus the potential of gravity loads (−Σ m_i γ·x_i) and of spring supports (at time t)."""
        q = self._q(q)
        xi, _ = self._edges(q)
        V = self._kernels.elastic_energy(xi, self.mesh.ds, self.w0, self.material.stiffness)
        V += self.support_rows.spring_energy(t, q)
        for load in self.loads:
            if isinstance(load, Gravity):
                V -= float(np.sum(self.node_mass * (self.G.translation(q) @ load.acceleration)))
        return V

    def kinetic_energy(self, v: FloatArray) -> float:
        """T = ½ vᵀ M v."""
        v = np.asarray(v, dtype=float)
        return float(0.5 * np.einsum("i,i,i->", v, self._mass_diag, v))  # no BLAS: a threaded ddot stalls when loaded

    def step_residuals(self, t: float, q: FloatArray, v: FloatArray) -> tuple[float, float, float] | None:
        """(‖Φ‖, ‖B v‖, energy) in one compiled pass when the constraints are internal rows only (the driver's
        per-step diagnostics) with the compiled kernels; None otherwise (the driver then evaluates them one by one)."""
        fused = self._kernels.step_residuals
        if fused is None or self._B_gather is None or self.support_rows.has_springs:  # fused energy has no springs
            return None
        q = self._q(q)
        xi, JJ = self._edges(q)
        g = sum((ld.acceleration for ld in self.loads if isinstance(ld, Gravity)), np.zeros(3))
        V = np.ascontiguousarray(v, dtype=float).reshape(self.n_nodes, 6)
        return fused(xi, JJ, q, V, self._rows_index, self._phi_ref, self.mesh.ds, self.w0, self.material.stiffness,
                     self._mass_diag, self.node_mass, g)

    def step_invariants(self, t: float, q: FloatArray, v: FloatArray) -> tuple[float, float] | None:
        """(‖Φ‖, energy) in one compiled pass plus the support rows' Φ (``_compiled.support_eval``): what the driver's
        blow-up check reads after every step (``HasStepInvariants``), also with supports; None with spring supports
        or the numpy kernels."""
        fused = self._kernels.step_residuals
        if fused is None or self.support_rows.has_springs:
            return None
        q = self._q(q)
        xi, JJ = self._edges(q)
        g = sum((ld.acceleration for ld in self.loads if isinstance(ld, Gravity)), np.zeros(3))
        V = np.ascontiguousarray(v, dtype=float).reshape(self.n_nodes, 6)
        phi, _, energy = fused(xi, JJ, q, V, self._rows_index, self._phi_ref, self.mesh.ds, self.w0,
                               self.material.stiffness, self._mass_diag, self.node_mass, g)
        if self.support_rows.n_rows:
            ps = self.support_rows.evaluate(t, q)[0]
            phi = math.sqrt(phi * phi + float(ps @ ps))
        return float(phi), float(energy)

    def element_rotation(self, q: FloatArray) -> float:
        """The largest rotation angle (rad, in [0, π]) between the two nodes of one element: arccos((tr(R_iᵀ R_{i+1})
        − 1)/2). Near π the element's strain, the group logarithm of its nodes' relative motion, is about to jump:
        the mesh no longer resolves the bending (the driver's advice names model.n_elements)."""
        R = self.G.rotation(self._q(q))
        c = 0.5 * (np.einsum("nij,nij->n", R[:-1], R[1:]) - 1.0)
        return float(np.arccos(np.clip(c, -1.0, 1.0)).max()) if len(c) else 0.0

    def energy(self, t: float, q: FloatArray, v: FloatArray) -> float:
        """Total mechanical energy T + V (conserved without damping and time-dependent loads)."""
        return self.kinetic_energy(v) + self.potential_energy(q, t)

    @cached_property
    def length_scale(self) -> float:
        """The reference centreline's length (``HasEnergyBudget``)."""
        return float(self.mesh.length)

    @cached_property
    def _work_loads(self) -> tuple[tuple[tuple[NodalLoad, int], ...], tuple[tuple[Any, int], ...]]:
        """(nodal loads with their nodes, the other non-gravity loads with theirs): the loads that do work."""
        pairs = [(ld, i) for ld, i in zip(self.loads, self._load_nodes, strict=True) if not isinstance(ld, Gravity)]
        return (tuple((ld, i) for ld, i in pairs if isinstance(ld, NodalLoad)),
                tuple(p for p in pairs if not isinstance(p[0], NodalLoad)))

    def external_power(self, t: float, q: FloatArray, v: FloatArray) -> float | None:
        """f·v of the loads whose work is not in ``potential_energy`` (all but gravity), plus ∂V/∂t of spring supports
        whose anchor follows a prescribed motion (central difference in t; zero for fixed springs, whose energy is in
        ``potential_energy``) (``HasEnergyBudget``). The power of prescribed motions, λ·Φ_t, is the driver's (it
        needs λ). Nodal loads: (moment, force) in the body frame at their nodes only, Σ pairᵢ·Vᵢ (Rᵀ for spatial
        ones)."""
        nodal, other = self._work_loads
        V = np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        power = 0.0
        sr = self.support_rows
        if sr.has_springs and sr.rheonomic:
            dt = 1e-6 * max(1.0, abs(t))
            qa = self._q(q)
            power += (sr.spring_energy(t + dt, qa) - sr.spring_energy(t - dt, qa)) / (2.0 * dt)
        if nodal:
            qa = self._q(q)
            for ld, i in nodal:  # over the loads (a handful), not the nodes
                pair = ld.time(t) * ld.pair
                if ld.frame == "spatial":  # a·(R(p) u) = (R(p)ᵀ a)·u
                    power += _dot_rotated(qa[i, :4], pair[:3], V[i, :3]) + _dot_rotated(qa[i, :4], pair[3:], V[i, 3:])
                else:
                    power += float(pair @ V[i])
        if other:
            f = external_forces(t, self._q(q), tuple(ld for ld, _ in other), tuple(i for _, i in other),
                                self.mass_weights, self.material.rhoA, self._kernels.loads)
            power += float(np.einsum("ij,ij->", f, V))
        return power

    def linear_momentum(self, q: FloatArray, v: FloatArray) -> FloatArray:
        """Σ_i m_i R_i U_i (spatial)."""
        q = self._q(q)
        V = np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        R = self.G.rotation(q)
        return np.einsum("n,nij,nj->i", self.node_mass, R, V[:, 3:])

    def angular_momentum(self, q: FloatArray, v: FloatArray) -> FloatArray:
        """Σ_i x_i × m_i R_i U_i + R_i J_i Ω_i about the origin (spatial)."""
        q = self._q(q)
        V = np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        R, x = self.G.rotation(q), self.G.translation(q)
        p = self.node_mass[:, None] * np.einsum("nij,nj->ni", R, V[:, 3:])
        spin = np.einsum("nij,nj->ni", R, self.node_inertia * V[:, :3])
        return np.sum(np.cross(x, p) + spin, axis=0)

    def check_initial_velocity(self, q: FloatArray, v: FloatArray, tol: float = 1e-8, t: float = 0.0) -> None:
        """Raise ValueError if B(t, q) v + Φ_t(t, q) ≠ 0 (hidden constraints violated by the initial velocity)."""
        if self.n_constraints == 0:
            return
        res = self.constraint_jacobian_t(t, q) @ np.asarray(v, dtype=float)
        if self.rheonomic:
            res = res + self.constraint_rate(t, q)
            sr = self.support_rows
            moving = np.flatnonzero(sr.moving[sr.row_entry])
            k_pre = moving[int(np.argmax(np.abs(res[self.n_internal + moving])))]
            if abs(res[self.n_internal + k_pre]) > tol * max(1.0, float(np.max(np.abs(v)))):
                node = int(sr.nodes[sr.row_entry[k_pre]])
                raise ValueError(
                    f"initial velocity of node {node} does not follow its prescribed motion at t = {t:g} "
                    f"(|B v0 + Φ_t| = {np.linalg.norm(res):.3g}); give the rigid velocity of the motion, e.g. "
                    "initial.angular_velocity = ω(t0) and initial.velocity = u(t0) − ω(t0) × x_node (zero with a ramp)"
                )
        scale = max(1.0, float(np.max(np.abs(v))) if np.size(v) else 1.0)
        if np.max(np.abs(res)) > tol * scale:
            k = int(np.argmax(np.abs(res)))
            raise ValueError(
                f"initial velocity violates the constraints: |B v0| = {np.linalg.norm(res):.3g} "
                f"(largest in row {k}: {res[k]:.3g}); give a velocity tangent to the constraints "
                "(e.g. zero, or a rigid motion compatible with the supports)"
            )

    # ------------------------------------------------------------------ supports: reactions, tangents
    def support_reactions(self, t: float, q: FloatArray, lam: FloatArray) -> FloatArray:
        """Force and moment of every support on the rod, spatial, moment about its node: (n_supports, 6) = (M, F).

        ``lam`` is the full multiplier vector (m,) of M v' + g + Bᵀλ = 0; spring supports included."""
        return self.support_rows.reactions(t, self._q(q), np.asarray(lam, dtype=float)[self.n_internal:])

    def support_stiffness(self, t: float, q: FloatArray) -> sp.csr_array:
        """∂g_spring/∂q along left-translated directions, CSR (6(N+1), 6(N+1)): the springs' part of K."""
        sr = self.support_rows
        return sr.assemble(sr.spring_stiffness_blocks(t, self._q(q)))

    def support_springs(self, t: float, q: FloatArray) -> sp.csr_array | None:
        """The spring supports' stiffness (``support_stiffness``), None without springs: what holds a rigid motion
        besides the constraint rows (``stability.check_no_rigid_motion``)."""
        return self.support_stiffness(t, q) if self.support_rows.has_springs else None

    def support_constraint_stiffness(self, t: float, q: FloatArray, lam: FloatArray) -> sp.csr_array:
        """∂(B_sᵀ λ_s)/∂q of the support rows along left-translated directions, CSR: their part of Z (full λ in)."""
        sr = self.support_rows
        lam_s = np.asarray(lam, dtype=float)[self.n_internal:]
        return sr.assemble(sr.constraint_stiffness_blocks(t, self._q(q), lam_s))

    # ------------------------------------------------------------------ output
    def vtk_frame(
        self, q: FloatArray, v: FloatArray, lam: FloatArray | None
    ) -> tuple[FloatArray, list[tuple[str, np.ndarray]], dict[str, FloatArray], dict[str, list[FloatArray]]]:
        """(points, cells, point_data, cell_data) of the rod as a polyline (ParaView)."""
        q = self._q(q)
        V = np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        R, x = self.G.rotation(q), self.G.translation(q)
        w = self.strains(q)
        sigma = self.material.stiffness * (w - self.w0)
        mult = np.zeros((self.mesh.n_elements, 3))
        nr = len(self.internal_rows)
        if lam is not None and nr:
            mult[:, :nr] = np.asarray(lam, dtype=float)[: self.n_internal].reshape(-1, nr)
        point_data = {
            "d1": R[:, :, 0].copy(), "d2": R[:, :, 1].copy(), "d3": R[:, :, 2].copy(),
            "quaternion": q[:, :4].copy(),
            "velocity": np.einsum("nij,nj->ni", R, V[:, 3:]),
            "angular_velocity": np.einsum("nij,nj->ni", R, V[:, :3]),
            "radius": np.full(self.n_nodes, self.radius),
        }
        cell_data = {
            "K": [w[:, :3]], "Gamma": [w[:, 3:]], "moment": [sigma[:, :3]], "force": [sigma[:, 3:]],
            "multipliers": [mult],
        }
        return x, [("line", self.mesh.edges.copy())], point_data, cell_data
