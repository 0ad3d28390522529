"""The supports of a rod as rows of Φ and B, springs, their exact tangents and the support reactions,
vectorised over the supports (no Python loop in an evaluation).

Symbols, per support k at node i (docs/supports.md):

    a           (3,)   a support frame axis in spatial coordinates (a row of ``Support.axes``)
    R_ref, x_ref       the support base: the node's reference frame, moved by ``PrescribedMotion`` (prescribed)
    w_ref, ẋ_ref       its spatial angular velocity s ω + s' exp(S ω̂) r and velocity s u + s' d
    ψ = log(R_i R_refᵀ)   spatial rotation vector of the node relative to its base;   e = x_i − x_ref
    T(ψ)⁻¹             the SO(3) tangent inverse (seed 004 eq. (19))

    rotation row     Φ = a·ψ       B = [aᵀ T(ψ)⁻¹ R_ref, 0]    Φ_t = −a·T(ψ)⁻¹ w_ref
    translation row  Φ = a·e       B = [0, aᵀ R_i]             Φ_t = −a·ẋ_ref
    springs          V = ½ eᵀ S_t e + ½ ψᵀ S_r ψ,  S = Aᵀ diag(k) A;   g_i += [R_refᵀ T(ψ)⁻ᵀ S_r ψ, R_iᵀ S_t e]

Derivatives along q_i ∘ exp(ε w), w = (Ω, U): x_i moves by ε R_i U; R_i exp(εΩ̂) R_refᵀ = exp(ψ̂) exp(ε (R_ref Ω)^),
so dψ = T(ψ)⁻¹ R_ref Ω (exp(ψ + εη) = exp(ψ) exp(ε T(ψ) η)); d(R_iᵀ f) = (R_iᵀ f)^ Ω. With m = Σ a λ over the
rotation rows and f = Σ a λ over the translation rows, Bᵀλ at node i is [R_refᵀ T(ψ)⁻ᵀ m, R_iᵀ f] and

    Z = ∂(Bᵀλ)/∂q = [[R_refᵀ D(ψ, m) T(ψ)⁻¹ R_ref, 0], [(R_iᵀ f)^, 0]]
    K_spring = [[R_refᵀ (D(ψ, S_r ψ) + T(ψ)⁻ᵀ S_r) T(ψ)⁻¹ R_ref, 0], [(R_iᵀ S_t e)^, R_iᵀ S_t R_i]]

where D(ψ, m) δ = (d/dε T⁻¹(ψ + εδ))ᵀ m; d/dε T⁻¹(ψ + εδ) is the lower-left block of the SE(3) T⁻¹ at
(ψ, δ) (``lgbeam.groups.se3.coupling_D``; block-triangular functions of ad). Reactions (the force and
moment the support exerts on the rod, spatial, about the node): [−R_i (Bᵀλ + g_spring)_Ω, −(f + S_t e)].

References
----------
Géradin & Cardona 2001, *Flexible Multibody Dynamics*, §4.7 (rotation vector derivatives, T⁻¹);
seed 004 eqs. (19)–(20) (T, T⁻¹ of SO(3)/SE(3)).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from lgbeam._typing import FloatArray, IntArray
from lgbeam.groups.base import hat3, quat_conj, quat_mul, quat_to_matrix
from lgbeam.groups.se3 import coupling_D
from lgbeam.groups.so3 import quat_exp, quat_log, tangent_inv_so3

from .supports import PrescribedMotion, Support, ramp_factors, resolve_node


class Base(NamedTuple):
    """The support bases at time t: quaternions (k, 4), rotations (k, 3, 3), positions (k, 3), w_ref, ẋ_ref (k, 3)."""

    p: FloatArray
    R: FloatArray
    x: FloatArray
    w: FloatArray
    xd: FloatArray


class Kinematics(NamedTuple):
    """Per support at (t, q): ψ, e (k, 3), T(ψ)⁻¹, R_i (k, 3, 3), and the base."""

    psi: FloatArray
    e: FloatArray
    Tinv: FloatArray
    R: FloatArray
    base: Base


def merge_support_rows(rods: list[tuple[int, SupportRows]], node_offsets: Any, names: Any, n_nodes: int) -> SupportRows:
    """The support rows of several rods of a structure as one ``SupportRows`` over its global nodes (rod k's nodes
    shifted by ``node_offsets[k]``; rows in rod order), so Φ and B of all supports are one vectorised evaluation.
    ``rods``: (rod index, its SupportRows) for the rods that have supports."""
    n_sup = np.cumsum([0] + [sr.n_supports for _, sr in rods])

    def cat(attr: str) -> np.ndarray:
        return np.concatenate([getattr(sr, attr) for _, sr in rods])

    return SupportRows(
        n_nodes=int(n_nodes), supports=tuple(s for _, sr in rods for s in sr.supports),
        nodes=np.concatenate([node_offsets[k] + sr.nodes for k, sr in rods]).astype(np.int64),
        labels=tuple(f"{names[k]}:{lb}" for k, sr in rods for lb in sr.labels),
        p0=cat("p0"), x0=cat("x0"), motion=cat("motion"), ramp=cat("ramp"), moving=cat("moving"),
        row_entry=np.concatenate([sr.row_entry + n_sup[j] for j, (_, sr) in enumerate(rods)]).astype(np.int64),
        row_rot=cat("row_rot"), row_dir=cat("row_dir"), St=cat("St"), Sr=cat("Sr"))


def dtinv_transpose(psi: FloatArray, m: FloatArray) -> FloatArray:
    """D(ψ, m) (k, 3, 3) with D δ = (d/dε T⁻¹(ψ + εδ))ᵀ m, for (k, 3) ψ and m (module docstring)."""
    k = psi.shape[0]
    L = coupling_D(np.broadcast_to(psi[:, None, :], (k, 3, 3)), np.broadcast_to(np.eye(3), (k, 3, 3)))
    return np.einsum("kjab,ka->kbj", L, m)  # L[k, j] = d T⁻¹ along e_j


@dataclass(frozen=True, eq=False)
class SupportRows:
    """All supports of one rod, resolved (node indices, frames in spatial coordinates) and stacked."""

    n_nodes: int
    supports: tuple[Support, ...]
    nodes: IntArray          # (k,) node of each support
    labels: tuple[str, ...]
    p0: FloatArray           # (k, 4) reference quaternion of each support's node
    x0: FloatArray           # (k, 3)
    motion: FloatArray       # (k, 4, 3): ω, u, d, r (zero for fixed supports)
    ramp: FloatArray         # (k,)
    moving: np.ndarray       # (k,) bool: a prescribed support
    row_entry: IntArray      # (m,) support of each row
    row_rot: np.ndarray      # (m,) bool: rotation row
    row_dir: FloatArray      # (m, 3) frame axis a of each row (spatial)
    St: FloatArray           # (k, 3, 3) translational spring matrices (spatial)
    Sr: FloatArray           # (k, 3, 3) rotational spring matrices (spatial)

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(cls, supports: tuple[Support, ...], mesh: Any, q_ref: FloatArray, *, inextensible: bool = False) -> SupportRows:
        """Resolve nodes and frames; reject contradicting supports (redundant rows) with a one-line ValueError."""
        nodes, labels, rows_e, rows_rot, rows_dir = [], [], [], [], []
        motion, ramp, moving, St, Sr = [], [], [], [], []
        for k, sup in enumerate(supports):  # once, at construction
            i = resolve_node(sup, mesh)
            R0 = quat_to_matrix(q_ref[i, :4])
            A = sup.axes(R0)
            nodes.append(i)
            labels.append(sup.name or f"{sup.label_kind}@{i}")
            for d in sup.dofs:
                rows_e.append(k)
                rows_rot.append(d.startswith("r"))
                rows_dir.append(A["xyz".index(d[-1])])
            mo = sup.motion if isinstance(sup.motion, PrescribedMotion) else None  # a dict became one in Support
            motion.append(np.zeros((4, 3)) if mo is None else np.array(
                [mo.angular_velocity, mo.velocity, mo.displacement, mo.rotation]))
            ramp.append(0.0 if mo is None else mo.ramp)
            moving.append(mo is not None)
            St.append(A.T @ np.diag(sup.stiffness or (0.0,) * 3) @ A)
            Sr.append(A.T @ np.diag(sup.rotational_stiffness or (0.0,) * 3) @ A)
        if len(set(labels)) != len(labels):
            dup = next(lb for lb in labels if labels.count(lb) > 1)
            raise ValueError(f"two supports are labelled {dup!r}; give them distinct names")
        idx = np.array(nodes, dtype=np.int64)
        out = cls(
            n_nodes=int(q_ref.shape[0]), supports=tuple(supports), nodes=idx, labels=tuple(labels),
            p0=np.asarray(q_ref)[idx, :4].reshape(-1, 4), x0=np.asarray(q_ref)[idx, 4:].reshape(-1, 3),
            motion=np.array(motion).reshape(-1, 4, 3), ramp=np.array(ramp, dtype=float), moving=np.array(moving, bool),
            row_entry=np.array(rows_e, dtype=np.int64), row_rot=np.array(rows_rot, dtype=bool),
            row_dir=np.array(rows_dir, dtype=float).reshape(-1, 3),
            St=np.array(St).reshape(-1, 3, 3), Sr=np.array(Sr).reshape(-1, 3, 3),
        )
        out._check_redundant()
        if inextensible:
            out._check_inextensible(np.asarray(q_ref)[:, 4:], mesh.length)
        return out

    def _check_redundant(self) -> None:
        """Two supports fixing the same translation or rotation of one node (dependent rows of B)."""
        for i in np.unique(self.nodes):
            at = np.flatnonzero(self.nodes == i)
            if at.size < 2:
                continue
            for rot, what in ((True, "rotation"), (False, "translation")):
                sel = np.isin(self.row_entry, at) & (self.row_rot == rot)
                dirs = self.row_dir[sel]
                if dirs.shape[0] > 1 and np.linalg.matrix_rank(dirs, tol=1e-9) < dirs.shape[0]:
                    names = sorted({self.labels[k] for k in self.row_entry[sel]})
                    raise ValueError(f"contradictory supports at node {int(i)}: {' and '.join(names)} fix the same "
                                     f"{what} (redundant rows in B); fix each degree of freedom in one support only")

    def _check_inextensible(self, x: FloatArray, length: float) -> None:
        """A straight inextensible rod with its axial translation fixed at two nodes is over-constrained."""
        chord = x[-1] - x[0]
        c = chord / np.linalg.norm(chord)
        off = (x - x[0]) - np.outer((x - x[0]) @ c, c)
        if np.max(np.linalg.norm(off, axis=1)) > 1e-9 * length:
            return  # curved: the chord can change by bending, no such redundancy
        axial = []
        for i in np.unique(self.nodes):
            sel = np.isin(self.row_entry, np.flatnonzero(self.nodes == i)) & ~self.row_rot
            dirs = self.row_dir[sel]
            if dirs.size and np.linalg.norm(c - dirs.T @ np.linalg.lstsq(dirs.T, c, rcond=None)[0]) < 1e-9:
                axial.append(int(i))
        if len(axial) >= 2:
            raise ValueError(
                f"contradictory supports: an inextensible straight rod with its axial translation fixed at nodes "
                f"{axial[0]} and {axial[1]} is over-constrained (redundant rows in B); leave it free at one of them "
                "(e.g. a roller sliding along the rod) or drop inextensible")

    # ------------------------------------------------------------------ structure
    @property
    def n_supports(self) -> int:
        return int(self.nodes.size)

    @property
    def n_rows(self) -> int:
        return int(self.row_entry.size)

    @functools.cached_property
    def rheonomic(self) -> bool:
        """True when some row follows a prescribed motion."""
        return bool(np.any(self.moving[self.row_entry]))

    @functools.cached_property
    def has_springs(self) -> bool:
        """True when some support is elastic (computed once: it is asked in every force evaluation)."""
        return bool(np.any(self.St) or np.any(self.Sr))

    def pattern(self, row_offset: int) -> tuple[IntArray, IntArray]:
        """(rows, cols) of the support rows in B: 6 entries per row (the node's (Ω, U) columns)."""
        r = np.arange(self.n_rows)
        rows = np.repeat(row_offset + r, 6)
        cols = (6 * self.nodes[self.row_entry][:, None] + np.arange(6)).ravel()
        return rows, cols

    # ------------------------------------------------------------------ kinematics
    @functools.cached_property
    def _fixed_base(self) -> Base | None:
        """The bases when no support moves (computed once), else None."""
        k = self.n_supports
        if np.any(self.moving):
            return None
        return Base(self.p0, quat_to_matrix(self.p0), self.x0, np.zeros((k, 3)), np.zeros((k, 3)))

    def base(self, t: float) -> Base:
        """Support bases at time t (module docstring; fixed supports: the reference frame, at rest)."""
        if (fixed := self._fixed_base) is not None:
            return fixed
        s, S, sd = ramp_factors(t, self.ramp)
        om, u, d, r = (self.motion[:, j] for j in range(4))
        qa = quat_exp(S[:, None] * om)
        p = quat_mul(qa, quat_mul(quat_exp(s[:, None] * r), self.p0))
        x = self.x0 + S[:, None] * u + s[:, None] * d
        w = s[:, None] * om + sd[:, None] * np.einsum("kij,kj->ki", quat_to_matrix(qa), r)
        return Base(p, quat_to_matrix(p), x, w, s[:, None] * u + sd[:, None] * d)

    @functools.cached_property
    def _memo(self) -> dict[tuple[float, bytes], Kinematics]:
        return {}

    def kinematics(self, t: float, q: FloatArray) -> Kinematics:
        """ψ, e, T(ψ)⁻¹, R_i of every support at (t, q); q (n_nodes, 7). Two-entry memo keyed on (t, the bytes
        of the supported nodes' q): Φ, B and the reactions of one iterate share them."""
        qi = np.ascontiguousarray(q[self.nodes])
        key = (float(t) if self.rheonomic else 0.0, qi.tobytes())
        memo = self._memo
        hit = memo.get(key)
        if hit is None:
            b = self.base(t)
            psi = quat_log(quat_mul(qi[:, :4], quat_conj(b.p)))
            hit = Kinematics(psi, qi[:, 4:] - b.x, tangent_inv_so3(psi), quat_to_matrix(qi[:, :4]), b)
            if len(memo) >= 2:
                del memo[next(iter(memo))]
            memo[key] = hit
        return hit

    @functools.cached_property
    def row_nodes(self) -> IntArray:
        """The node of each row (m,)."""
        return np.ascontiguousarray(self.nodes[self.row_entry], dtype=np.int64)

    def evaluate(self, t: float, q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(Φ (m,), B entries (m, 6), T(ψ)⁻ᵀ a (m, 3)) of every row in one compiled pass
        (``_compiled.support_eval``; equal to ``phi``/``jacobian_data`` to round-off); q (n_nodes, 7) C-contiguous."""
        from ._compiled import support_eval

        b = self.base(t)
        return support_eval(q, self.nodes, b.p, b.R, b.x, self.row_entry, self.row_rot, self.row_dir)  # type: ignore[no-any-return]

    def _rows(self, values_rot: FloatArray, values_trans: FloatArray) -> FloatArray:
        """a·v per row from per-support (k, 3) vectors (rotation rows from the first, translation from the second)."""
        k = self.row_entry
        return np.where(self.row_rot, np.einsum("mi,mi->m", self.row_dir, values_rot[k]),
                        np.einsum("mi,mi->m", self.row_dir, values_trans[k]))

    # ------------------------------------------------------------------ Φ, B, Φ_t
    def phi(self, t: float, q: FloatArray) -> FloatArray:
        """Φ of the support rows (m,)."""
        kin = self.kinematics(t, q)
        return self._rows(kin.psi, kin.e)

    def jacobian_data(self, t: float, q: FloatArray) -> FloatArray:
        """B entries of the support rows in ``pattern`` order, (m·6,)."""
        kin = self.kinematics(t, q)
        k, rot = self.row_entry, self.row_rot
        data = np.zeros((self.n_rows, 6))
        data[rot, :3] = np.einsum("mi,mij,mjl->ml", self.row_dir[rot], kin.Tinv[k[rot]], kin.base.R[k[rot]])
        data[~rot, 3:] = np.einsum("mi,mij->mj", self.row_dir[~rot], kin.R[k[~rot]])
        return data.ravel()

    def rate(self, t: float, q: FloatArray) -> FloatArray:
        """∂Φ/∂t of the support rows (m,)."""
        kin = self.kinematics(t, q)
        return -self._rows(np.einsum("kij,kj->ki", kin.Tinv, kin.base.w), kin.base.xd)

    # ------------------------------------------------------------------ forces, reactions
    def _resultants(self, lam: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(m, f) (k, 3): Σ a λ over each support's rotation rows and translation rows."""
        lam = np.asarray(lam, dtype=float)
        m = np.zeros((self.n_supports, 3))
        f = np.zeros((self.n_supports, 3))
        rot = self.row_rot
        np.add.at(m, self.row_entry[rot], self.row_dir[rot] * lam[rot, None])
        np.add.at(f, self.row_entry[~rot], self.row_dir[~rot] * lam[~rot, None])
        return m, f

    @staticmethod
    def _generalised(kin: Kinematics, m: FloatArray, f: FloatArray) -> FloatArray:
        """Body generalised force (k, 6) [R_refᵀ T(ψ)⁻ᵀ m, R_iᵀ f]."""
        mom = np.einsum("kji,kj->ki", kin.base.R, np.einsum("kji,kj->ki", kin.Tinv, m))
        return np.concatenate([mom, np.einsum("kji,kj->ki", kin.R, f)], axis=1)

    def spring_forces(self, t: float, q: FloatArray) -> FloatArray:
        """Spring contribution to g, (n_nodes, 6) (zero without springs)."""
        out = np.zeros((self.n_nodes, 6))
        if self.has_springs:
            kin = self.kinematics(t, q)
            ms = np.einsum("kij,kj->ki", self.Sr, kin.psi)
            fs = np.einsum("kij,kj->ki", self.St, kin.e)
            np.add.at(out, self.nodes, self._generalised(kin, ms, fs))
        return out

    def spring_energy(self, t: float, q: FloatArray) -> float:
        """½ Σ (eᵀ S_t e + ψᵀ S_r ψ)."""
        if not self.has_springs:
            return 0.0
        kin = self.kinematics(t, q)
        return 0.5 * float(np.einsum("ki,kij,kj->", kin.e, self.St, kin.e)
                           + np.einsum("ki,kij,kj->", kin.psi, self.Sr, kin.psi))

    def reactions(self, t: float, q: FloatArray, lam: FloatArray) -> FloatArray:
        """Force and moment each support exerts on the rod, spatial, moment about the node: (k, 6) = (M, F).

        ``lam`` are the multipliers of the support rows (m,) (sign of M v' + g + Bᵀλ = 0); springs included."""
        kin = self.kinematics(t, q)
        m, f = self._resultants(lam)
        m = m + np.einsum("kij,kj->ki", self.Sr, kin.psi)
        f = f + np.einsum("kij,kj->ki", self.St, kin.e)
        body = self._generalised(kin, m, f)
        return -np.concatenate([np.einsum("kij,kj->ki", kin.R, body[:, :3]), f], axis=1)

    # ------------------------------------------------------------------ tangents
    def constraint_stiffness_blocks(self, t: float, q: FloatArray, lam: FloatArray) -> FloatArray:
        """Z blocks (k, 6, 6) = ∂(B_kᵀ λ_k)/∂q_i along q_i ∘ exp(εw) (module docstring), one per support."""
        kin = self.kinematics(t, q)
        m, f = self._resultants(lam)
        return self._blocks(kin, m, f, None)

    def spring_stiffness_blocks(self, t: float, q: FloatArray) -> FloatArray:
        """K blocks (k, 6, 6) of the springs: ∂g_spring/∂q_i along q_i ∘ exp(εw)."""
        kin = self.kinematics(t, q)
        ms = np.einsum("kij,kj->ki", self.Sr, kin.psi)
        fs = np.einsum("kij,kj->ki", self.St, kin.e)
        return self._blocks(kin, ms, fs, kin)

    def _blocks(self, kin: Kinematics, m: FloatArray, f: FloatArray, spring: Kinematics | None) -> FloatArray:
        D = dtinv_transpose(kin.psi, m)
        if spring is not None:
            D = D + np.einsum("kji,kjl->kil", kin.Tinv, self.Sr)  # T⁻ᵀ S_r
        out = np.zeros((self.n_supports, 6, 6))
        out[:, :3, :3] = np.einsum("kji,kjl,klm,kmn->kin", kin.base.R, D, kin.Tinv, kin.base.R)
        out[:, 3:, :3] = hat3(np.einsum("kji,kj->ki", kin.R, f))
        if spring is not None:
            out[:, 3:, 3:] = np.einsum("kji,kjl,kln->kin", kin.R, self.St, kin.R)
        return out

    def assemble(self, blocks: FloatArray) -> sp.csr_array:
        """Sum (k, 6, 6) nodal blocks into a CSR (6 n_nodes, 6 n_nodes) matrix (blocks at one node add)."""
        n = 6 * self.n_nodes
        dof = 6 * self.nodes[:, None] + np.arange(6)
        rows = np.repeat(dof, 6, axis=1).ravel()
        cols = np.tile(dof, (1, 6)).ravel()
        return sp.coo_array((blocks.ravel(), (rows, cols)), shape=(n, n)).tocsr()

    # ------------------------------------------------------------------ checks
    def loads_on_fixed_dofs(self, loads: tuple[Any, ...], node_index: Any, q_ref: FloatArray) -> list[str]:
        """One line per nodal load with a component along a fixed degree of freedom of a support at its node
        (``node_index``: the mesh's node resolver; distributed loads and gravity are not nodal)."""
        notes = []
        for load in loads:
            pair = getattr(load, "pair", None)
            if pair is None:
                continue
            i = node_index(load.node)
            at = np.flatnonzero(self.nodes == i)
            if not at.size:
                continue
            R = quat_to_matrix(q_ref[i, :4]) if load.frame == "body" else np.eye(3)
            mom, force = R @ pair[:3], R @ pair[3:]
            for rot, vec, what in ((True, mom, "moment"), (False, force, "force")):
                sel = np.isin(self.row_entry, at) & (self.row_rot == rot)
                comp = self.row_dir[sel] @ vec
                if np.any(np.abs(comp) > 1e-12 * max(1.0, float(np.linalg.norm(vec)))):
                    names = sorted({self.labels[k] for k in self.row_entry[sel]})
                    notes.append(f"the nodal {what} {vec.tolist()} at node {i} acts on degrees of freedom fixed by "
                                 f"support {', '.join(names)}: that part goes straight into its reaction")
        return notes
