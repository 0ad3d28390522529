"""A structure of several Cosserat rods joined by joints, as one constrained mechanical system.

    M v' = −g(t, q, v) − B(q)ᵀ λ,   Φ(q) = 0,   q' = q · v^                    (seed 004 eq. (1))

Symbols (docs/frames.md): the rods r = 1 … R (each a ``CosseratRod``: its own mesh, material, supports and
loads) are stacked node by node, q = (q¹; …; q^R) ∈ (S³⋉R³)^(Σ n_r), flat tangents likewise:

    M = diag(M¹, …, M^R)                          (constant, diagonal)
    g = (g¹; …; g^R) + g_joint springs
    Φ = (Φ¹; …; Φ^R; Φ_joints)                    rows of each rod (internal, supports), then the joint rows
    B = [diag(B¹, …, B^R); B_joints]              (joints.py)
    K = diag(K^r) + K_joint springs,  D = diag(D^r),  Z = diag(Z^r(λ^r)) + Z_joints(λ_j)   (HasTangents)

All of them are sparse: the rods' own CSR matrices are placed into one fixed pattern (``CSRPattern``), so the
half-explicit methods' banded fast path and the sparse solvers of the implicit methods, statics and modes run
a structure exactly as they run one rod.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from lgbeam._typing import FloatArray
from lgbeam.discretisations.rods import CosseratRod
from lgbeam.discretisations.rods import statics as rod_statics
from lgbeam.discretisations.rods import tangents as rod_tangents
from lgbeam.discretisations.rods.assembly import CSRPattern, edge_row_pattern
from lgbeam.discretisations.rods.support_rows import Base, merge_support_rows

from .joints import COINCIDE_TOL, Joint, JointRows

if TYPE_CHECKING:
    from .model import FrameModel

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Structure:
    """Named rods joined by joints (a ``ConstrainedMechanicalSystem`` with ``HasTangents``, ``HasEnergy``).

    Parameters
    ----------
    rods : mapping name → CosseratRod (or a sequence of (name, rod) pairs); order = node order of q.
    joints : Joint tuple; each joins two nodes of different rods, or two nodes of one rod, that coincide in
        the reference configuration.

    Python API::

        frame = Structure(rods={"left": col1, "beam": beam, "right": col2},
                          joints=(Joint(("left", "end"), ("beam", "start")), Joint(("beam", "end"), ("right", "end"))))
        sol = integrate(frame, "hedop5", MechanicalState(frame.q_ref, np.zeros(frame.n_dofs)), (0, 1), ...)
    """

    rods: Any
    joints: tuple[Joint, ...] = ()
    viscous: Any = None  # damping by ratio (``rods.viscous.ViscousDamping``): +C v in g, C in ``damping``
    ground: Any = None  # uniform base excitation (``frames.ground.GroundMotion``): +M ι a_g in g (relative motion)
    model: FrameModel | None = field(default=None, compare=False, repr=False)  # the frame model built from (model.py)

    mass_is_constant: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        pairs = tuple(self.rods.items()) if isinstance(self.rods, Mapping) else tuple(tuple(p) for p in self.rods)
        if not pairs:
            raise ValueError("a structure needs at least one rod")
        names = [p[0] for p in pairs]
        for name, rod in pairs:
            if not isinstance(name, str) or not name:
                raise ValueError(f"rod names must be non-empty strings, got {name!r}")
            if not isinstance(rod, CosseratRod):
                raise TypeError(f"rod {name!r} must be a CosseratRod, got {type(rod).__name__}")
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"two rods are named {dup!r}; give them distinct names")
        compiled = {rod.compiled for _, rod in pairs}
        if len(compiled) > 1:
            raise ValueError("the rods of a structure must all use compiled kernels or all numpy ones (compiled=...)")
        object.__setattr__(self, "rods", pairs)
        object.__setattr__(self, "joints", tuple(self.joints))
        for jt in self.joints:
            if not isinstance(jt, Joint):
                raise TypeError(f"joints must be Joint objects, got {jt!r}")
        _ = self.joint_rows  # resolve and check the joints now

    # ------------------------------------------------------------------ structure
    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p[0] for p in self.rods)

    @property
    def members(self) -> tuple[CosseratRod, ...]:
        return tuple(p[1] for p in self.rods)

    def rod(self, name: str) -> CosseratRod:
        """The rod called ``name`` (ValueError listing the names otherwise)."""
        for n, r in self.rods:
            if n == name:
                return r
        raise ValueError(f"no rod named {name!r}; the structure has {', '.join(map(repr, self.names))}")

    @cached_property
    def node_offsets(self) -> np.ndarray:
        """First global node of each rod, and the total, (R+1,)."""
        return np.concatenate([[0], np.cumsum([r.n_nodes for r in self.members])]).astype(np.int64)

    @cached_property
    def row_offsets(self) -> np.ndarray:
        """First constraint row of each rod, then of the joints, then the total, (R+2,)."""
        rod_rows = [r.n_constraints for r in self.members]
        return np.concatenate([[0], np.cumsum(rod_rows + [self.joint_rows.n_rows])]).astype(np.int64)

    @property
    def n_nodes(self) -> int:
        return int(self.node_offsets[-1])

    @property
    def n_dofs(self) -> int:
        return 6 * self.n_nodes

    @property
    def n_constraints(self) -> int:
        return int(self.row_offsets[-1])

    @property
    def compiled(self) -> bool:
        return bool(self.members[0].compiled)

    @cached_property
    def G(self) -> Any:
        return self.members[0].G

    @cached_property
    def group(self) -> Any:
        from lgbeam.groups import Product

        return Product(self.G, self.n_nodes)

    @cached_property
    def q_ref(self) -> FloatArray:
        return np.concatenate([r.q_ref for r in self.members])

    @property
    def loads(self) -> tuple[Any, ...]:
        return tuple(ld for r in self.members for ld in r.loads)

    @property
    def rheonomic(self) -> bool:
        return any(r.rheonomic for r in self.members)

    @cached_property
    def length_scale(self) -> float:
        """Size of the structure (largest extent of the reference nodes, at least the longest rod)."""
        x = self.G.translation(self.q_ref)
        return max(float(np.ptp(x, axis=0).max()), max(r.mesh.length for r in self.members))

    def node(self, rod: str, where: int | str) -> int:
        """Global node index of ``where`` (index, negative from the end, "start"/"end") on rod ``rod``."""
        k = self.names.index(rod) if rod in self.names else None
        if k is None:
            raise ValueError(f"no rod named {rod!r}; the structure has {', '.join(map(repr, self.names))}")
        try:
            return int(self.node_offsets[k]) + self.members[k].mesh.node_index(where)
        except ValueError as err:
            raise ValueError(f"rod {rod!r}: {err}") from None

    def parts(self) -> list[tuple[tuple[str, ...], np.ndarray]]:
        """The connected parts of the structure (rods linked by joints): (rod names, global node indices) each;
        one part for a connected frame (static and modal analyses check every part for free rigid motions)."""
        names = self.names
        root = list(range(len(names)))

        def find(i: int) -> int:
            while root[i] != i:
                root[i] = root[root[i]]
                i = root[i]
            return i

        for jt in self.joints:
            a, b = find(names.index(jt.a[0])), find(names.index(jt.b[0]))
            root[max(a, b)] = min(a, b)
        groups: dict[int, list[int]] = {}
        for k in range(len(names)):
            groups.setdefault(find(k), []).append(k)
        o = self.node_offsets
        return [(tuple(names[k] for k in ks), np.concatenate([np.arange(o[k], o[k + 1]) for k in ks]))
                for ks in groups.values()]

    @cached_property
    def joint_rows(self) -> JointRows:
        """The joints resolved to global nodes and checked (one-line ValueError naming the joint)."""
        nodes: list[tuple[int, int]] = []
        seen: dict[Any, Any] = {}
        x = self.G.translation(self.q_ref)
        for jt in self.joints:
            where = f"joint {jt.label!r}"
            try:
                ia, ib = self.node(*jt.a), self.node(*jt.b)
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
            if ia == ib:
                raise ValueError(f"{where} joins node {jt.a[1]!r} of rod {jt.a[0]!r} to itself")
            pair = (min(ia, ib), max(ia, ib))
            if pair in seen:
                raise ValueError(f"{where} and joint {seen[pair]!r} join the same pair of nodes; "
                                 "merge them into one joint (rigid, hinge, ball or elastic)")
            seen[pair] = jt.label
            gap = float(np.linalg.norm(x[ia] - x[ib]))
            if gap > COINCIDE_TOL * self.length_scale:
                raise ValueError(f"{where}: the nodes are {gap:.4g} apart in the reference configuration "
                                 f"({jt.a[0]} at {x[ia].tolist()}, {jt.b[0]} at {x[ib].tolist()}); a joint connects "
                                 "coinciding nodes: check the rods' start points and lengths")
            nodes.append((ia, ib))
        labels = [jt.label for jt in self.joints]
        if len(set(labels)) != len(labels):
            dup = next(lb for lb in labels if labels.count(lb) > 1)
            raise ValueError(f"two joints are labelled {dup!r}; give them distinct names")
        return JointRows.build(self.joints, nodes, self.q_ref)

    # ------------------------------------------------------------------ splitting
    def _q(self, q: FloatArray) -> FloatArray:
        return np.ascontiguousarray(q, dtype=float).reshape(self.n_nodes, 7)

    def split_q(self, q: FloatArray) -> list[FloatArray]:
        q = self._q(q)
        o = self.node_offsets
        return [q[o[k]:o[k + 1]] for k in range(len(self.rods))]

    def split_v(self, v: FloatArray) -> list[FloatArray]:
        v = np.asarray(v, dtype=float).ravel()
        o = 6 * self.node_offsets
        return [v[o[k]:o[k + 1]] for k in range(len(self.rods))]

    def split_lam(self, lam: FloatArray) -> tuple[list[FloatArray], FloatArray]:
        """(λ of each rod, λ of the joint rows)."""
        lam = np.asarray(lam, dtype=float).ravel()
        o = self.row_offsets
        return [lam[o[k]:o[k + 1]] for k in range(len(self.rods))], lam[o[-2]:o[-1]]

    def _block_diag(self, mats: list[Any]) -> sp.csr_array:
        return sp.csr_array(sp.block_diag([sp.csr_array(m) for m in mats], format="csr"))

    # ------------------------------------------------------------------ protocol
    @cached_property
    def _mass(self) -> sp.csr_array:
        return sp.diags_array(np.concatenate([r.mass(r.q_ref).diagonal() for r in self.members]), format="csr")

    def mass(self, q: FloatArray) -> sp.csr_array:
        """Constant diagonal mass: the rods' lumped masses, stacked."""
        return self._mass

    def support_springs(self, t: float, q: FloatArray) -> sp.csr_array | None:
        """The rods' spring supports' stiffness (the merged support rows' nodal blocks); None without any (joint
        springs are relative: they hold no rigid motion of the structure)."""
        sup = self._rows_batch["supports"]
        if sup is None or not sup.has_springs:
            return None
        return sup.assemble(sup.spring_stiffness_blocks(t, self._q(q)))

    def forces(self, t: float, q: FloatArray, v: FloatArray) -> FloatArray:
        """g(t, q, v): each rod's g (elastic, damping, gyroscopic, springs − loads), plus the joint springs."""
        g = np.concatenate([r.forces(t, qr, vr) for r, qr, vr in zip(self.members, self.split_q(q), self.split_v(v),
                                                                     strict=True)])
        if self.joint_rows.has_springs:
            g += self.joint_rows.spring_forces(self._q(q)).ravel()
        if self.viscous is not None:
            g += self.viscous.force(v)
        if self.ground is not None:
            g += self.ground.force(t, self.G.rotation(self._q(q)))
        return g

    def newton_residual(self, t: float, q: FloatArray, v: FloatArray,
                        lam: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(g, Bᵀλ, Φ, B v + Φ_t) at (t, q, v, λ) (``HasNewtonResidual``): compiled structures with nodal loads only in
        one pass over all edges, supports and joints (``frames._compiled.structure_residual``; springs added after);
        otherwise the protocol methods (the numpy reference)."""
        qa = self._q(q)
        fused = self._fused
        if fused is None:
            B = self.constraint_jacobian_t(t, qa)
            bv = B @ v
            if self.rheonomic:
                bv = bv + self.constraint_rate(t, qa)
            return self.forces(t, qa, v), B.T @ lam, self.constraints_t(t, qa), bv
        from ._compiled import structure_residual

        V = np.ascontiguousarray(v, dtype=float).reshape(self.n_nodes, 6)
        lam = np.ascontiguousarray(lam, dtype=float)
        sup, jr = fused["supports"], self.joint_rows
        base = sup.base(t) if sup is not None else fused["no_base"]
        scale = np.array([-ld.time(t) for ld in fused["loads_list"]]) if fused["loads_list"] else fused["no_scale"]
        g, f, phi, bv = structure_residual(
            qa, V, lam, *fused["edges"], *fused["internal"], *fused["support_nodes"], base.p, base.R, base.x,
            *fused["support_rows"], jr.ia, jr.ib, jr.c0, jr.row_entry, jr.row_rot, jr.row_dir, fused["joint_row"],
            *fused["loads"], scale)
        return self._residual_rest(t, qa, v, sup, g, f, phi, bv)

    def _residual_rest(self, t: float, qa: FloatArray, v: FloatArray, sup: Any, g: FloatArray, f: FloatArray,
                       phi: FloatArray, bv: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """What a compiled residual leaves out, added to its (g, f, Φ, B v) at (t, q): support and joint springs,
        damping by ratio, the ground-motion loads, the constraints' explicit time rate (``sup``: the support rows)."""
        jr = self.joint_rows
        if sup is not None and sup.has_springs:
            g += sup.spring_forces(t, qa)
        if jr.has_springs:
            g += jr.spring_forces(qa)
        g = g.ravel()
        if self.viscous is not None:
            g = g + self.viscous.force(v)
        if self.ground is not None:
            g = g + self.ground.force(t, self.G.rotation(qa))
        if self.rheonomic:
            bv = bv + self.constraint_rate(t, qa)
        return g, f.ravel(), phi, bv

    @cached_property
    def _fused(self) -> dict[str, Any] | None:
        """The constant arguments of ``structure_residual``, or None where the reference path is needed (numpy
        kernels, loads other than nodal ones)."""
        if not self.compiled or any(r.loads and r._nodal_loads is None for r in self.members):
            return None
        b, (ia, C_ds, Cw0, Cd_ds, _) = self._rows_batch, self._edge_batch
        J, m = self._inertia
        sup = b["supports"]
        o = self.node_offsets
        nodal = [(o[k] + r._nodal_loads[0], r._nodal_loads[1], r._nodal_loads[2])
                 for k, r in enumerate(self.members) if r.loads and r._nodal_loads is not None]
        loads = ((np.concatenate([x[0] for x in nodal]).astype(np.intp),
                  np.ascontiguousarray(np.concatenate([x[1] for x in nodal]), dtype=float),
                  np.concatenate([x[2] for x in nodal]).astype(bool)) if nodal
                 else (np.zeros(0, np.intp), np.zeros((0, 6)), np.zeros(0, bool)))
        k0 = np.zeros(0, np.int64)
        no_base = Base(np.zeros((0, 4)), np.zeros((0, 3, 3)), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)))
        return {
            "edges": (ia, C_ds, Cw0, C_ds if Cd_ds is None else Cd_ds, Cd_ds is not None, J, m),
            "internal": (b["xi"] // 6, b["xi"] % 6, b["phi_rows"], b["phi_ref"]),
            "supports": sup, "no_base": no_base,
            "support_nodes": (sup.nodes if sup is not None else k0,),
            "support_rows": ((sup.row_entry, sup.row_rot, sup.row_dir, b["sup_rows"]) if sup is not None
                             else (k0, np.zeros(0, bool), np.zeros((0, 3)), k0)),
            "joint_row": np.ascontiguousarray(b["joint_rows"], dtype=np.int64),
            "loads": loads, "loads_list": tuple(ld for r in self.members for ld in r.loads), "no_scale": np.zeros(0),
        }

    def external_forces(self, t: float, q: FloatArray) -> FloatArray:
        """Body-frame external loads f of all rods (they enter g as −f)."""
        return np.concatenate([r.external_forces(t, qr) for r, qr in zip(self.members, self.split_q(q), strict=True)])

    def constraints(self, q: FloatArray) -> FloatArray:
        return self.constraints_t(0.0, q)

    def _edges_all(self, q: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(ξ, JJ) of every edge of the structure, rod after rod (each rod's own memoised ``_edges``)."""
        parts = [r._edges(r._q(qr)) for r, qr in zip(self.members, self.split_q(q), strict=True)]
        if len(parts) == 1:
            return parts[0]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    @cached_property
    def _rows_batch(self) -> dict[str, Any]:
        """Index maps of Φ and B evaluated for the whole structure at once: the rods' internal rows gathered from
        the stacked (ξ, JJ) of all edges, their support rows as one merged ``SupportRows`` (global nodes), and where
        each lands in the structure's row order (rod after rod: internal, supports; then the joints)."""
        o_rows, o_nodes = self.row_offsets, self.node_offsets
        rows_i, cols_i, jj_idx, xi_idx, phi_ref, phi_rows, sup_rows = [], [], [], [], [], [], []
        sups: list[tuple[int, Any]] = []
        e0 = 0
        for k, r in enumerate(self.members):
            nr, ne = len(r.internal_rows), r.n_nodes - 1
            if nr:
                rr, cc = edge_row_pattern(ne, nr)
                rows_i.append(rr + o_rows[k])
                cols_i.append(cc + 6 * o_nodes[k])
                e = (e0 + np.arange(ne))[:, None, None]
                jj_idx.append(((e * 6 + r._rows_index[None, :, None]) * 12 + np.arange(12)).ravel())
                xi_idx.append(((e0 + np.arange(ne))[:, None] * 6 + r._rows_index[None, :]).ravel())
                phi_ref.append(r._phi_ref.ravel())
                phi_rows.append(o_rows[k] + np.arange(r.n_internal))
            if r.support_rows.n_supports:  # constraint rows and/or springs
                sups.append((k, r.support_rows))
                sup_rows.append(o_rows[k] + r.n_internal + np.arange(r.support_rows.n_rows))
            e0 += ne

        def cat(parts: list[np.ndarray], dtype: Any = np.int64) -> np.ndarray:
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

        merged = merge_support_rows(sups, o_nodes, self.names, self.n_nodes) if sups else None
        sup_rows_all = cat(sup_rows)
        rows, cols = [cat(rows_i)], [cat(cols_i)]
        if merged is not None:
            mr, mc = merged.pattern(0)
            rows.append(sup_rows_all[mr])
            cols.append(mc)
        jr, jc = self.joint_rows.pattern(int(o_rows[-2]))
        rows.append(jr)
        cols.append(jc)
        pattern = CSRPattern(np.concatenate(rows), np.concatenate(cols), (self.n_constraints, self.n_dofs))
        return {"jj": cat(jj_idx), "xi": cat(xi_idx), "phi_ref": cat(phi_ref, float), "phi_rows": cat(phi_rows),
                "supports": merged, "sup_rows": sup_rows_all, "pattern": pattern,
                "joint_rows": int(o_rows[-2]) + np.arange(self.joint_rows.n_rows)}

    def constraints_t(self, t: float, q: FloatArray) -> FloatArray:
        """Φ(t, q): the rods' rows (internal, supports) in rod order, then the joint rows; evaluated for all rods
        at once (``_rows_batch``)."""
        b, qa = self._rows_batch, self._q(q)
        out = np.empty(self.n_constraints)
        if b["xi"].size:
            out[b["phi_rows"]] = self._edges_all(q)[0].ravel()[b["xi"]] - b["phi_ref"]
        compiled = self.compiled
        if b["supports"] is not None:
            out[b["sup_rows"]] = b["supports"].evaluate(t, qa)[0] if compiled else b["supports"].phi(t, qa)
        out[b["joint_rows"]] = self.joint_rows.evaluate(qa)[0] if compiled else self.joint_rows.phi(qa)
        return out

    def constraint_rate(self, t: float, q: FloatArray) -> FloatArray:
        """∂Φ/∂t: the rods' prescribed support rows; joints are scleronomic."""
        parts = [r.constraint_rate(t, qr) for r, qr in zip(self.members, self.split_q(q), strict=True)]
        parts.append(np.zeros(self.joint_rows.n_rows))
        return np.concatenate(parts)

    def constraint_jacobian(self, q: FloatArray) -> sp.csr_array:
        return self.constraint_jacobian_t(0.0, q)

    def constraint_jacobian_t(self, t: float, q: FloatArray) -> sp.csr_array:
        """B(t, q) in one fixed pattern (shared index arrays): the rods' internal rows gathered from the stacked JJ
        of all edges, their support rows from the merged ``SupportRows``, the joint rows (``_rows_batch``)."""
        b, qa = self._rows_batch, self._q(q)
        data = [self._edges_all(q)[1].ravel()[b["jj"]]] if b["jj"].size else []
        if self.compiled:  # support and joint rows in compiled passes
            if b["supports"] is not None:
                data.append(b["supports"].evaluate(t, qa)[1].ravel())
            data.append(self.joint_rows.evaluate(qa)[1].ravel())
        else:
            if b["supports"] is not None:
                data.append(b["supports"].jacobian_data(t, qa))
            data.append(self.joint_rows.jacobian_data(qa))
        return b["pattern"].matrix(np.concatenate(data))

    # ------------------------------------------------------------------ tangents (HasTangents)
    @cached_property
    def _edge_batch(self) -> tuple[np.ndarray, FloatArray, FloatArray, FloatArray | None, CSRPattern]:
        """Every edge of every rod at once: global start node a (b = a + 1), C/Δs, C w0, C_d/Δs (zeros for undamped
        rods; None when no rod is damped) and the block pattern of K: the node blocks, then the (a, b) and (b, a)
        blocks of every edge (``assembly.block_tridiagonal``'s order, over the structure's edges)."""
        o = self.node_offsets
        ia = np.concatenate([o[k] + np.arange(r.n_nodes - 1) for k, r in enumerate(self.members)]).astype(np.int64)
        kv = [r._kv for r in self.members]
        C_ds, Cw0 = np.concatenate([k[0] for k in kv]), np.concatenate([k[1] for k in kv])
        Cd_ds = (np.concatenate([k[2] if k[2] is not None else np.zeros_like(k[0]) for k in kv])
                 if any(k[2] is not None for k in kv) else None)
        r, c = np.meshgrid(np.arange(6), np.arange(6), indexing="ij")
        i, a = np.arange(self.n_nodes)[:, None, None], ia[:, None, None]
        rows = np.concatenate([(6 * i + r).ravel(), (6 * a + r).ravel(), (6 * (a + 1) + r).ravel()])
        cols = np.concatenate([(6 * i + c).ravel(), (6 * (a + 1) + c).ravel(), (6 * a + c).ravel()])
        return ia, C_ds, Cw0, Cd_ds, CSRPattern(rows, cols, (self.n_dofs, self.n_dofs))

    def _element_blocks(self, q: FloatArray, v: FloatArray | None) -> FloatArray:
        """K_e of all edges in one batched call (``rods.tangents.edge_blocks``): the rods' own ξ, JJ (memoised)."""
        ia, C_ds, Cw0, Cd_ds, _ = self._edge_batch
        xi, JJ = self._edges_all(q)
        V = None if v is None else np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        if V is not None and not np.any(V):
            V = None
        return rod_tangents.edge_blocks(xi, JJ, C_ds, Cw0, Cd_ds, None if V is None else V[ia],
                                        None if V is None else V[ia + 1], self.compiled)

    def _load_blocks(self, t: float, q: FloatArray) -> FloatArray | None:
        """∂f/∂w of the spatial loads (and of the ground's effective loads) per node (n, 6, 6), or None."""
        blocks = [rod_tangents.load_node_blocks(r, t, qr) for r, qr in zip(self.members, self.split_q(q), strict=True)]
        ground = None if self.ground is None else self.ground.blocks(t, self.G.rotation(self._q(q)))
        if all(b is None for b in blocks):
            return ground
        out = np.concatenate([b if b is not None else np.zeros((r.n_nodes, 6, 6))
                              for r, b in zip(self.members, blocks, strict=True)])
        return out if ground is None else out + ground

    def _assemble(self, Ke: FloatArray | None, node: FloatArray | None) -> sp.csr_array:
        """CSR of the structure from edge blocks (E, 12, 12) and node blocks (n, 6, 6) (``tangents._assemble``)."""
        ia, _, _, _, pattern = self._edge_batch
        diag = np.zeros((self.n_nodes, 6, 6)) if node is None else np.array(node, dtype=float)
        if Ke is None:
            up = lo = np.zeros((ia.size, 6, 6))
        else:
            diag[ia] += Ke[:, :6, :6]  # every node starts at most one edge and ends at most one: no repeats
            diag[ia + 1] += Ke[:, 6:, 6:]
            up, lo = Ke[:, :6, 6:], Ke[:, 6:, :6]
        return pattern.matrix(np.concatenate([diag.ravel(), up.ravel(), lo.ravel()]))

    def _with_support_springs(self, K: sp.csr_array, t: float, q: FloatArray) -> sp.csr_array:
        springs = self.support_springs(t, q)
        return K if springs is None else sp.csr_array(K + springs)

    def stiffness(self, t: float, q: FloatArray, v: FloatArray) -> sp.csr_array:
        """K = diag(K^r) + support and joint springs, the rods' edges in one batched evaluation."""
        loads = self._load_blocks(t, q)
        K = self._assemble(self._element_blocks(q, v), None if loads is None else -loads)
        return self._with_joint_springs(self._with_support_springs(K, t, q), q)

    def damping(self, t: float, q: FloatArray, v: FloatArray) -> sp.csr_array:
        """D = diag(D^r) (joints carry no damping): ``rods.tangents.damping`` over all nodes and edges at once; plus
        the constant C of damping by ratio (``viscous``)."""
        D = self._rod_damping(q, v)
        return D if self.viscous is None else sp.csr_array(D + self.viscous.matrix())

    def _rod_damping(self, q: FloatArray, v: FloatArray) -> sp.csr_array:
        """The rods' material damping and gyroscopic blocks."""
        Cd_ds = self._edge_batch[3]
        J, m = self._inertia
        node = rod_tangents.gyroscopic_blocks(np.asarray(v, dtype=float).reshape(self.n_nodes, 6), J, m)
        Ke = None
        if Cd_ds is not None:
            JJ = self._edges_all(q)[1]
            Ke = np.swapaxes(JJ, 1, 2) @ (Cd_ds[:, :, None] * JJ)
        return self._assemble(Ke, node)

    @cached_property
    def _inertia(self) -> tuple[FloatArray, FloatArray]:
        """The rods' nodal rotary inertia J (n, 3) and mass m (n,), stacked (the last two of ``CosseratRod._kv``)."""
        return (np.concatenate([r._kv[3] for r in self.members]), np.concatenate([r._kv[4] for r in self.members]))

    def constraint_stiffness(self, t: float, q: FloatArray, lam: FloatArray) -> sp.csr_array:
        """Z = diag(Z^r(λ^r)) + Z of the joint rows (analytic, joints.py): the rods' internal rows over all edges at
        once (``rods.tangents.constraint_stiffness``), their support rows as nodal blocks."""
        lam = np.asarray(lam, dtype=float)
        b, Ke = self._rows_batch, None
        if b["xi"].size:  # the internal rows' multipliers are stresses on their strain components (as Φ reads ξ)
            xi, JJ = self._edges_all(q)
            s_all = np.zeros(xi.size)
            s_all[b["xi"]] = lam[b["phi_rows"]]
            Ke = rod_tangents._pair_H(xi, s_all.reshape(-1, 6), JJ, self.compiled)
        node = None
        if b["sup_rows"].size:  # the supports' (k, 6, 6) blocks at their nodes
            sup = b["supports"]
            node = np.zeros((self.n_nodes, 6, 6))
            np.add.at(node, sup.nodes, sup.constraint_stiffness_blocks(t, self._q(q), lam[b["sup_rows"]]))
        Z = self._assemble(Ke, node)
        lam_j = lam[b["joint_rows"]]
        if self.joint_rows.n_rows:
            jr = self.joint_rows
            Z = sp.csr_array(Z + jr.assemble(jr.constraint_stiffness_blocks(self._q(q), lam_j)))
        return Z

    def static_tangent_parts(self, t: float, q: FloatArray, lam: FloatArray,
                             mu: float) -> list[tuple[float, sp.csr_array]]:
        """K_t = K_int − μ ∂f/∂q + Z(λ) as terms for the statics core (``rods.statics_core``, which scatters them
        into one band): the edges' elastic and internal-row blocks and the nodes' support and load blocks in one
        fixed-pattern CSR, the joint rows' blocks in another, the springs (if any) as their own terms."""
        lam = np.asarray(lam, dtype=float)
        b = self._rows_batch
        Ke = self._element_blocks(q, None)
        if b["xi"].size:  # the internal rows' multipliers are stresses on their strain components
            xi, JJ = self._edges_all(q)
            s_all = np.zeros(xi.size)
            s_all[b["xi"]] = lam[b["phi_rows"]]
            Ke = Ke + rod_tangents._pair_H(xi, s_all.reshape(-1, 6), JJ, self.compiled)
        loads = self._load_blocks(t, q)
        node = np.zeros((self.n_nodes, 6, 6)) if loads is None else -mu * loads
        if b["sup_rows"].size:
            sup = b["supports"]
            np.add.at(node, sup.nodes, sup.constraint_stiffness_blocks(t, self._q(q), lam[b["sup_rows"]]))
        parts = [(1.0, self._assemble(Ke, node))]
        jr = self.joint_rows
        if jr.n_rows:
            parts.append((1.0, self._joint_pattern.matrix(jr.constraint_stiffness_blocks(self._q(q),
                                                                                         lam[b["joint_rows"]]).ravel())))
        springs = self.support_springs(t, q)
        if springs is not None:
            parts.append((1.0, sp.csr_array(springs)))
        if jr.has_springs:
            parts.append((1.0, self._joint_pattern.matrix(jr.spring_stiffness_blocks(self._q(q)).ravel())))
        return parts

    @cached_property
    def _joint_pattern(self) -> _SummingPattern:
        """The COO order of ``JointRows.assemble`` ((k, 12, 12) blocks on (a, b)) as a fixed pattern; the blocks
        of two joints at one node pair would repeat an entry, so each joint's blocks get their own rows."""
        jr = self.joint_rows
        dof = np.concatenate([6 * jr.ia[:, None] + np.arange(6), 6 * jr.ib[:, None] + np.arange(6)], axis=1)
        rows = np.repeat(dof, 12, axis=1).ravel()
        cols = np.tile(dof, (1, 12)).ravel()
        return _SummingPattern(rows, cols, (self.n_dofs, self.n_dofs))

    def _with_joint_springs(self, K: sp.csr_array, q: FloatArray) -> sp.csr_array:
        jr = self.joint_rows
        if not jr.has_springs:
            return K
        return sp.csr_array(K + jr.assemble(jr.spring_stiffness_blocks(self._q(q))))

    # ------------------------------------------------------------------ statics (rods.tangents.SplitTangents)
    def internal_stiffness(self, t: float, q: FloatArray) -> sp.csr_array:
        """K_int (elastic, support and joint springs; no loads) for the static path follower."""
        K = self._assemble(self._element_blocks(q, None), None)
        return self._with_joint_springs(self._with_support_springs(K, t, q), q)

    def load_stiffness(self, t: float, q: FloatArray) -> sp.csr_array:
        """∂f/∂q of the external loads (f enters g as −f)."""
        return self._assemble(None, self._load_blocks(t, q))

    def stress_stiffness(self, t: float, q: FloatArray, dq: FloatArray) -> sp.csr_array:
        """K_σ of the first-order stresses of dq about the stress-free q (``rods.tangents.stress_stiffness``, rod by
        rod) plus the joint springs' stiffness differentiated along dq (linear buckling, ``rods.modal``)."""
        K = self._block_diag([rod_tangents.stress_stiffness(r, qr, dr, t) for r, qr, dr in
                              zip(self.members, self.split_q(q), self.split_v(dq), strict=True)])
        jr = self.joint_rows
        if not jr.has_springs:
            return K
        dK = rod_tangents.directional_derivative(lambda qq: jr.assemble(jr.spring_stiffness_blocks(self._q(qq))),
                                                 self.G, self._q(q), dq, self.length_scale)
        return sp.csr_array(K + dK)

    def force_scale(self, t: float) -> float:
        """Scale of the static residual: the largest load component, or the largest EI/L of the rods."""
        f = self.external_forces(t, self.q_ref)
        return max(float(np.max(np.abs(f), initial=0.0)),
                   max(float(np.max(r.material.C_K)) / r.mesh.length for r in self.members))

    @cached_property
    def _anchors(self) -> list[int]:
        """Per rod: the node the static retraction moves rigidly (its first support, else its first joint node)."""
        out = []
        for k, r in enumerate(self.members):
            nodes = list(r.support_rows.nodes)
            if not nodes:
                o0, o1 = self.node_offsets[k], self.node_offsets[k + 1]
                jr = self.joint_rows
                nodes = [int(i) - o0 for i in np.concatenate([jr.ia, jr.ib]) if o0 <= i < o1]
            out.append(int(min(nodes)) if nodes else 0)
        return out

    def static_retraction(self, q: FloatArray, dw: FloatArray) -> FloatArray:
        """q "∘" δw rod by rod through the strains (``rods.statics.strain_update``; a retraction of the product)."""
        parts = [rod_statics.strain_update(r, qr, wr, a) for r, qr, wr, a in
                 zip(self.members, self.split_q(q), self.split_v(dw), self._anchors, strict=True)]
        return np.concatenate(parts)

    # ------------------------------------------------------------------ energies
    def potential_energy(self, q: FloatArray, t: float = 0.0) -> float:
        return float(sum(r.potential_energy(qr, t) for r, qr in zip(self.members, self.split_q(q), strict=True))
                     + self.joint_rows.spring_energy(self._q(q)))

    def kinetic_energy(self, v: FloatArray) -> float:
        return float(sum(r.kinetic_energy(vr) for r, vr in zip(self.members, self.split_v(v), strict=True)))

    def element_rotation(self, q: FloatArray) -> float:
        """The largest relative rotation (rad) across one element of any member (``CosseratRod.element_rotation``)."""
        return max(r.element_rotation(qr) for r, qr in zip(self.members, self.split_q(q), strict=True))

    def energy(self, t: float, q: FloatArray, v: FloatArray) -> float:
        """T + V (elastic, gravity, support and joint springs)."""
        return self.kinetic_energy(v) + self.potential_energy(q, t)

    def external_power(self, t: float, q: FloatArray, v: FloatArray) -> float | None:
        """Σ of the members' ``external_power`` (None when one cannot account for its energy exchange)."""
        total = 0.0
        for r, qr, vr in zip(self.members, self.split_q(q), self.split_v(v), strict=True):  # over members, not nodes
            p = r.external_power(t, qr, vr)
            if p is None:
                return None
            total += p
        if self.ground is not None:
            total += self.ground.power(t, self.G.rotation(self._q(q)), v)
        return total

    def linear_momentum(self, q: FloatArray, v: FloatArray) -> FloatArray:
        return np.sum([r.linear_momentum(qr, vr) for r, qr, vr in
                       zip(self.members, self.split_q(q), self.split_v(v), strict=True)], axis=0)

    def angular_momentum(self, q: FloatArray, v: FloatArray) -> FloatArray:
        return np.sum([r.angular_momentum(qr, vr) for r, qr, vr in
                       zip(self.members, self.split_q(q), self.split_v(v), strict=True)], axis=0)

    def check_initial_velocity(self, q: FloatArray, v: FloatArray, tol: float = 1e-8, t: float = 0.0) -> None:
        """ValueError if B v₀ + Φ_t ≠ 0 (each rod's own check first, then the joints)."""
        for name, r, qr, vr in zip(self.names, self.members, self.split_q(q), self.split_v(v), strict=True):
            try:
                r.check_initial_velocity(qr, vr, tol, t)
            except ValueError as err:
                raise ValueError(f"rod {name!r}: {err}") from None
        res = self.constraint_jacobian_t(t, q) @ np.asarray(v, dtype=float) + self.constraint_rate(t, q)
        if np.max(np.abs(res), initial=0.0) > tol * max(1.0, float(np.max(np.abs(v), initial=0.0))):
            raise ValueError(f"initial velocity violates the joints: |B v0| = {np.linalg.norm(res):.3g}; give a "
                             "velocity compatible with the joints (e.g. zero or one rigid motion of the whole frame)")

    # ------------------------------------------------------------------ reactions
    def support_reactions(self, t: float, q: FloatArray, lam: FloatArray) -> tuple[list[str], FloatArray]:
        """(labels "rod:support", (n, 6) = (M, F)): every support's wrench on its rod, spatial, about its node."""
        lam_r, _ = self.split_lam(lam)
        labels, out = [], []
        for name, r, qr, lr in zip(self.names, self.members, self.split_q(q), lam_r, strict=True):
            if r.support_rows.n_supports:
                labels += [f"{name}:{lb}" for lb in r.support_rows.labels]
                out.append(r.support_reactions(t, qr, lr))
        return labels, (np.concatenate(out) if out else np.zeros((0, 6)))

    def resultants(self, q: FloatArray, lam: FloatArray | None, v: FloatArray | None = None) -> list[Any]:
        """Section resultants of every rod at (q, λ, v) (``rods.resultants.section_resultants``), in rod order."""
        from lgbeam.discretisations.rods.resultants import section_resultants

        lam_r = self.split_lam(lam)[0] if lam is not None else [None] * len(self.rods)
        vs = self.split_v(v) if v is not None else [None] * len(self.rods)
        return [section_resultants(r, qr, lr, vr) for r, qr, lr, vr in zip(self.members, self.split_q(q), lam_r, vs,
                                                                           strict=True)]

    def joint_reactions(self, q: FloatArray, lam: FloatArray) -> FloatArray:
        """(n_joints, 6) = (M, F): each joint's wrench on rod b at node b (rod a gets the opposite)."""
        _, lam_j = self.split_lam(lam)
        return self.joint_rows.reactions(self._q(q), lam_j)

    def support_nodes(self) -> np.ndarray:
        """Global node of each support, in ``support_reactions`` order."""
        return np.concatenate([self.node_offsets[k] + r.support_rows.nodes for k, r in enumerate(self.members)
                               if r.support_rows.n_supports] or [np.zeros(0, np.int64)]).astype(np.int64)


class _SummingPattern:
    """A fixed COO pattern that may repeat entries, summed into a CSR matrix by one ``np.bincount`` per call
    (the joint blocks of several joints at one node)."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> None:
        key = rows.astype(np.int64) * shape[1] + cols
        uniq, self.inverse = np.unique(key, return_inverse=True)
        r, c = np.divmod(uniq, shape[1])
        self.pattern = CSRPattern(r, c, shape)
        self.size = uniq.size

    def matrix(self, data: FloatArray) -> sp.csr_array:
        return self.pattern.matrix(np.bincount(self.inverse, weights=data, minlength=self.size).astype(float))
