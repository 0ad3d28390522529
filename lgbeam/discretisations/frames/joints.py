"""Joints between the rods of a structure: rows of Φ and B, rotational springs, their exact tangents and the
joint reactions, vectorised over the joints (no Python loop in an evaluation).

Symbols, per joint k between node a (rod A) and node b (rod B), which coincide in the reference (docs/frames.md):

    C₀ = R_a0ᵀ R_b0       the reference relative rotation (a kink between the rods is kept, not smeared)
    Q = R_aᵀ R_b C₀ᵀ      relative rotation in a's body frame (I in the reference);  ψ = log Q ∈ R³, |ψ| ≤ π
    e = x_b − x_a         relative position (spatial; 0 in the reference)
    n                     a joint axis in a's body frame (n = R_a0ᵀ a for a frame axis a fixed in space)
    T(ψ)⁻¹                the SO(3) tangent inverse, exp(ψ + εη) = exp(ψ) exp(ε T(ψ)η)

    translation row  Φ = d·e (d = e_x, e_y, e_z)   B = [0, −dᵀR_a | 0, dᵀR_b]               on (Ω_a, U_a | Ω_b, U_b)
    rotation row     Φ = n·ψ                        B = [nᵀT⁻¹(−Qᵀ), 0 | nᵀT⁻¹C₀, 0]
    spring           V = ½ ψᵀ S ψ,  S = Nᵀ diag(k) N (N: joint axes in a's body frame, rows)

Derivation (left-translated directions q ∘ exp(εw), w = (Ω, U)): R_b e^{εΩ̃_b} gives Q e^{ε(C₀Ω_b)~} and
R_a e^{εΩ̃_a} gives e^{−εΩ̃_a} Q = Q e^{−ε(QᵀΩ_a)~}, so dψ = T(ψ)⁻¹ η with η = C₀Ω_b − QᵀΩ_a; x moves by εRU.

Generalised forces (m = Σ n λ over the rotation rows + S ψ, f = Σ d λ over the translation rows, u = T⁻ᵀ m):
node a [−Q u, −R_aᵀ f], node b [C₀ᵀ u, R_bᵀ f]. Their derivatives (Z for the rows, K for the springs) with
P = (D(ψ, m) + T⁻ᵀS) T⁻¹, D(ψ, m)δ = (d/dε T⁻¹(ψ + εδ))ᵀ m (``support_rows.dtinv_transpose``) and
dQ = Q η̃, L = [−Qᵀ | C₀] (η = L (Ω_a, Ω_b)):

    ∂(−Q u) = Q (ũ − P) L,   ∂(C₀ᵀ u) = C₀ᵀ P L,   ∂(−R_aᵀ f)/∂Ω_a = −(R_aᵀ f)~,   ∂(R_bᵀ f)/∂Ω_b = (R_bᵀ f)~.

Reactions: the joint acts on rod B at node b with the force −f and the moment −R_b C₀ᵀ u (spatial, about the
node) and on rod A with the opposite wrench.

References
----------
Géradin & Cardona 2001, *Flexible Multibody Dynamics*, §4.7 and ch. 6 (rotation vector derivatives, joints
as constraints on relative rotations); seed 004 eqs. (19)–(20) (T, T⁻¹).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from lgbeam._typing import FloatArray, IntArray
from lgbeam.discretisations.rods.support_rows import dtinv_transpose
from lgbeam.discretisations.rods.supports import _frame, _springs
from lgbeam.groups.base import hat3, quat_conj, quat_mul, quat_to_matrix
from lgbeam.groups.so3 import quat_log, tangent_inv_so3

JOINT_KINDS = ("rigid", "hinge", "ball", "elastic")
_AXES = ("x", "y", "z")
COINCIDE_TOL = 1e-9  # joined nodes must coincide in the reference to this fraction of the structure's size


def _end(where: str, name: str, value: Any) -> tuple[str, int | str]:
    if (not isinstance(value, (tuple, list)) or len(value) != 2 or not isinstance(value[0], str)
            or isinstance(value[1], (bool, float)) or not isinstance(value[1], (int, str, np.integer))):
        raise ValueError(f"{where}: {name} must be (rod name, node), e.g. ('beam', 'start') or ('column', -1), "
                         f"got {value!r}")
    return (value[0], value[1] if isinstance(value[1], str) else int(value[1]))


@dataclass(frozen=True)
class Joint:
    """A joint between node ``a = (rod, node)`` and node ``b = (rod, node)`` of two rods of a structure.

    Parameters
    ----------
    a, b : (rod name, node): node an index (negative from the end) or "start"/"end". The nodes must coincide
        in the reference configuration.
    kind : "rigid" (all six relative motions fixed), "hinge" (relative rotation about ``axis`` free),
        "ball" (relative rotations free), "elastic" (relative rotations held by ``rotational_stiffness``).
    axis : "x" | "y" | "z" of ``frame``: the hinge axis; two letters ("yz") free both rotations (a member-end
        release of two bending rotations).
    frame : "global", "local" (rod a's reference directors at its node) or explicit axes (rows), fixed to rod a.
    rotational_stiffness : moment per radian about the frame axes (one number or three): required for
        "elastic", allowed on the free rotation of "hinge" and "ball".
    name : label in the output (default "<kind>:<rod a>@<node>-<rod b>@<node>").
    """

    a: tuple[str, int | str]
    b: tuple[str, int | str]
    kind: str = "rigid"
    axis: str | None = field(default=None, kw_only=True)
    frame: Any = field(default="global", kw_only=True)
    rotational_stiffness: Any = field(default=None, kw_only=True)
    name: str | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        where = f"joint {self.name!r}" if self.name else "joint"
        object.__setattr__(self, "a", _end(where, "a", self.a))
        object.__setattr__(self, "b", _end(where, "b", self.b))
        if self.kind not in JOINT_KINDS:
            raise ValueError(f"{where}: unknown joint kind {self.kind!r}; use one of {', '.join(JOINT_KINDS)}")
        if self.kind == "hinge" and not (isinstance(self.axis, str) and 1 <= len(self.axis) <= 2
                                         and set(self.axis) <= set(_AXES) and len(set(self.axis)) == len(self.axis)):
            raise ValueError(f"{where}: a hinge needs axis = 'x', 'y' or 'z' of its frame (or two of them, e.g. 'yz': "
                             f"both rotations free), got {self.axis!r}")
        if self.kind != "hinge" and self.axis is not None:
            raise ValueError(f"{where}: axis is only for kind 'hinge'; drop it")
        object.__setattr__(self, "frame", _frame(where, self.frame))
        k = _springs(where, "rotational_stiffness", self.rotational_stiffness)
        object.__setattr__(self, "rotational_stiffness", k)
        if self.kind == "elastic" and (k is None or not any(v > 0.0 for v in k)):
            raise ValueError(f"{where}: an elastic joint needs rotational_stiffness > 0 (moment per radian)")
        if k is not None:
            clash = [ax for ax, v in zip(_AXES, k, strict=True) if v > 0.0 and ax in self.fixed_rotations]
            if clash:
                raise ValueError(f"{where}: a rotational stiffness about {', '.join(clash)}, which the {self.kind} "
                                 "joint fixes; set it to 0 or use an elastic, ball or hinge joint")

    @property
    def fixed_rotations(self) -> tuple[str, ...]:
        """Frame axes about which the relative rotation is fixed."""
        if self.kind == "rigid":
            return _AXES
        if self.kind == "hinge":
            return tuple(ax for ax in _AXES if ax not in str(self.axis))
        return ()

    @property
    def label(self) -> str:
        return self.name or f"{self.kind}:{self.a[0]}@{self.a[1]}-{self.b[0]}@{self.b[1]}"

    def axes(self, R_a0: FloatArray) -> FloatArray:
        """The frame axes as rows (3, 3) in spatial reference coordinates (rod a's node rotation R_a0)."""
        if self.frame == "global":
            return np.eye(3)
        if self.frame == "local":
            return np.asarray(R_a0, dtype=float).T.copy()
        return np.array(self.frame, dtype=float)


class JointKinematics:
    """Per joint at q: R_a, R_b (k, 3, 3), Q, ψ, T(ψ)⁻¹, e (module docstring)."""

    def __init__(self, rows: JointRows, q: FloatArray) -> None:
        qa, qb = q[rows.ia], q[rows.ib]
        self.Ra, self.Rb = quat_to_matrix(qa[:, :4]), quat_to_matrix(qb[:, :4])
        pQ = quat_mul(quat_conj(qa[:, :4]), quat_mul(qb[:, :4], quat_conj(rows.c0)))
        self.Q = quat_to_matrix(pQ)
        self.psi = quat_log(pQ)
        self.Tinv = tangent_inv_so3(self.psi)
        self.e = qb[:, 4:] - qa[:, 4:]


@dataclass(frozen=True, eq=False)
class JointRows:
    """All joints of a structure, resolved to global node indices and stacked (module docstring)."""

    n_nodes: int
    labels: tuple[str, ...]
    ia: IntArray            # (k,) global node a of each joint
    ib: IntArray            # (k,) global node b
    c0: FloatArray          # (k, 4) quaternion of C₀ = R_a0ᵀ R_b0
    C0: FloatArray          # (k, 3, 3)
    row_entry: IntArray     # (m,) joint of each row
    row_rot: np.ndarray     # (m,) bool: rotation row
    row_dir: FloatArray     # (m, 3): d (spatial) for translation rows, n (a's body frame) for rotation rows
    S: FloatArray           # (k, 3, 3) rotational spring matrices in a's body frame

    @classmethod
    def build(cls, joints: tuple[Joint, ...], nodes: list[tuple[int, int]], q_ref: FloatArray) -> JointRows:
        """``nodes[k]`` = (global node a, global node b) of joint k (resolved by the structure)."""
        rows_e, rows_rot, rows_dir, S = [], [], [], []
        ia = np.array([n[0] for n in nodes], dtype=np.int64)
        ib = np.array([n[1] for n in nodes], dtype=np.int64)
        pa, pb = q_ref[ia, :4].reshape(-1, 4), q_ref[ib, :4].reshape(-1, 4)
        c0 = quat_mul(quat_conj(pa), pb)
        Ra = quat_to_matrix(pa)
        for k, jt in enumerate(joints):  # once, at construction
            N = jt.axes(Ra[k]) @ Ra[k]  # frame axes in a's body frame, rows
            for d in np.eye(3):
                rows_e.append(k)
                rows_rot.append(False)
                rows_dir.append(d)
            for ax in jt.fixed_rotations:
                rows_e.append(k)
                rows_rot.append(True)
                rows_dir.append(N[_AXES.index(ax)])
            S.append(N.T @ np.diag(jt.rotational_stiffness or (0.0,) * 3) @ N)
        return cls(n_nodes=int(q_ref.shape[0]), labels=tuple(jt.label for jt in joints), ia=ia, ib=ib,
                   c0=c0.reshape(-1, 4), C0=quat_to_matrix(c0).reshape(-1, 3, 3),
                   row_entry=np.array(rows_e, dtype=np.int64), row_rot=np.array(rows_rot, dtype=bool),
                   row_dir=np.array(rows_dir, dtype=float).reshape(-1, 3), S=np.array(S).reshape(-1, 3, 3))

    # ------------------------------------------------------------------ structure
    @property
    def n_joints(self) -> int:
        return int(self.ia.size)

    @property
    def n_rows(self) -> int:
        return int(self.row_entry.size)

    @property
    def has_springs(self) -> bool:
        return bool(np.any(self.S))

    def pattern(self, row_offset: int) -> tuple[IntArray, IntArray]:
        """(rows, cols) of the joint rows in B: 12 entries per row, node a's (Ω, U) then node b's."""
        k = self.row_entry
        rows = np.repeat(row_offset + np.arange(self.n_rows), 12)
        cols = np.concatenate([6 * self.ia[k][:, None] + np.arange(6), 6 * self.ib[k][:, None] + np.arange(6)], axis=1)
        return rows, cols.ravel()

    @functools.cached_property
    def _memo(self) -> dict[bytes, JointKinematics]:
        return {}

    def kinematics(self, q: FloatArray) -> JointKinematics:
        """The joints' kinematics at q; two-entry memo keyed on the bytes of q (Φ, B and the forces of one Newton
        iteration are evaluated at the same configuration, as ``CosseratRod._edges``)."""
        q = np.ascontiguousarray(q)
        key = q.tobytes()
        memo = self._memo
        hit = memo.get(key)
        if hit is None:
            hit = JointKinematics(self, q)  # fancy indexing copies what it keeps
            if len(memo) >= 2:
                del memo[next(iter(memo))]
            memo[key] = hit
        return hit

    # ------------------------------------------------------------------ Φ, B
    def phi(self, q: FloatArray) -> FloatArray:
        kin = self.kinematics(q)
        k = self.row_entry
        v = np.where(self.row_rot[:, None], kin.psi[k], kin.e[k])
        return np.einsum("mi,mi->m", self.row_dir, v)

    def jacobian_data(self, q: FloatArray) -> FloatArray:
        """B entries in ``pattern`` order (m·12,)."""
        kin = self.kinematics(q)
        k, rot, d = self.row_entry, self.row_rot, self.row_dir
        out = np.zeros((self.n_rows, 12))
        out[~rot, 3:6] = -np.einsum("mi,mij->mj", d[~rot], kin.Ra[k[~rot]])
        out[~rot, 9:12] = np.einsum("mi,mij->mj", d[~rot], kin.Rb[k[~rot]])
        nT = np.einsum("mi,mij->mj", d[rot], kin.Tinv[k[rot]])
        out[rot, 0:3] = -np.einsum("mj,mlj->ml", nT, kin.Q[k[rot]])  # nᵀT⁻¹Qᵀ
        out[rot, 6:9] = np.einsum("mj,mjl->ml", nT, self.C0[k[rot]])
        return out.ravel()

    def evaluate(self, q: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(Φ (m,), B entries (m, 12)) in one compiled pass (``frames._compiled.joint_eval``; equal to ``phi`` and
        ``jacobian_data`` to round-off); q (n_nodes, 7) C-contiguous."""
        from ._compiled import joint_eval

        return joint_eval(q, self.ia, self.ib, self.c0, self.row_entry, self.row_rot, self.row_dir)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ forces
    def _resultants(self, lam: FloatArray | None) -> tuple[FloatArray, FloatArray]:
        """(m, f) (k, 3): Σ n λ over the rotation rows (a's body frame), Σ d λ over the translation rows."""
        m = np.zeros((self.n_joints, 3))
        f = np.zeros((self.n_joints, 3))
        if lam is not None:
            lam = np.asarray(lam, dtype=float)
            rot = self.row_rot
            np.add.at(m, self.row_entry[rot], self.row_dir[rot] * lam[rot, None])
            np.add.at(f, self.row_entry[~rot], self.row_dir[~rot] * lam[~rot, None])
        return m, f

    def _generalised(self, kin: JointKinematics, m: FloatArray, f: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Body generalised forces (k, 6) at nodes a and b of [Bᵀλ + spring] for the moments m and forces f."""
        u = np.einsum("kji,kj->ki", kin.Tinv, m)
        ga = np.concatenate([-np.einsum("kij,kj->ki", kin.Q, u), -np.einsum("kji,kj->ki", kin.Ra, f)], axis=1)
        gb = np.concatenate([np.einsum("kji,kj->ki", self.C0, u), np.einsum("kji,kj->ki", kin.Rb, f)], axis=1)
        return ga, gb

    def _scatter(self, ga: FloatArray, gb: FloatArray) -> FloatArray:
        out = np.zeros((self.n_nodes, 6))
        np.add.at(out, self.ia, ga)
        np.add.at(out, self.ib, gb)
        return out

    def spring_forces(self, q: FloatArray) -> FloatArray:
        """Spring part of g, (n_nodes, 6)."""
        if not self.has_springs:
            return np.zeros((self.n_nodes, 6))
        kin = self.kinematics(q)
        ms = np.einsum("kij,kj->ki", self.S, kin.psi)
        return self._scatter(*self._generalised(kin, ms, np.zeros_like(ms)))

    def constraint_forces(self, q: FloatArray, lam: FloatArray) -> FloatArray:
        """B_jᵀ λ_j of the joint rows, (n_nodes, 6)."""
        kin = self.kinematics(q)
        return self._scatter(*self._generalised(kin, *self._resultants(lam)))

    def spring_energy(self, q: FloatArray) -> float:
        if not self.has_springs:
            return 0.0
        psi = self.kinematics(q).psi
        return 0.5 * float(np.einsum("ki,kij,kj->", psi, self.S, psi))

    def reactions(self, q: FloatArray, lam: FloatArray | None) -> FloatArray:
        """Wrench (k, 6) = (M, F) each joint exerts on rod b at node b (spatial, moment about the node), springs
        included; rod a receives the opposite wrench."""
        kin = self.kinematics(q)
        m, f = self._resultants(lam)
        m = m + np.einsum("kij,kj->ki", self.S, kin.psi)
        u = np.einsum("kji,kj->ki", kin.Tinv, m)
        M = -np.einsum("kij,kjl,kl->ki", kin.Rb, np.swapaxes(self.C0, 1, 2), u)
        return np.concatenate([M, -f], axis=1)

    # ------------------------------------------------------------------ tangents
    def _blocks(self, kin: JointKinematics, m: FloatArray, f: FloatArray, spring: bool) -> FloatArray:
        """(k, 12, 12) derivative blocks of the generalised forces at (a, b) for moments m, forces f
        (``spring``: m = Sψ and the T⁻ᵀS term of P, module docstring)."""
        D = dtinv_transpose(kin.psi, m)
        if spring:
            D = D + np.einsum("kji,kjl->kil", kin.Tinv, self.S)
        P = D @ kin.Tinv
        u = np.einsum("kji,kj->ki", kin.Tinv, m)
        L = np.concatenate([-np.swapaxes(kin.Q, 1, 2), self.C0], axis=2)  # (k, 3, 6) on (Ω_a, Ω_b)
        out = np.zeros((self.n_joints, 12, 12))
        top = kin.Q @ (hat3(u) - P) @ L
        bot = np.swapaxes(self.C0, 1, 2) @ P @ L
        out[:, 0:3, 0:3], out[:, 0:3, 6:9] = top[:, :, :3], top[:, :, 3:]
        out[:, 6:9, 0:3], out[:, 6:9, 6:9] = bot[:, :, :3], bot[:, :, 3:]
        out[:, 3:6, 0:3] = -hat3(np.einsum("kji,kj->ki", kin.Ra, f))
        out[:, 9:12, 6:9] = hat3(np.einsum("kji,kj->ki", kin.Rb, f))
        return out

    def constraint_stiffness_blocks(self, q: FloatArray, lam: FloatArray) -> FloatArray:
        """Z blocks (k, 12, 12) = ∂(B_kᵀ λ_k)/∂(q_a, q_b) along left-translated directions."""
        kin = self.kinematics(q)
        return self._blocks(kin, *self._resultants(lam), spring=False)

    def spring_stiffness_blocks(self, q: FloatArray) -> FloatArray:
        """K blocks (k, 12, 12) of the rotational springs."""
        kin = self.kinematics(q)
        ms = np.einsum("kij,kj->ki", self.S, kin.psi)
        return self._blocks(kin, ms, np.zeros_like(ms), spring=True)

    def assemble(self, blocks: FloatArray) -> sp.csr_array:
        """Sum (k, 12, 12) blocks on (node a, node b) into a CSR (6 n_nodes, 6 n_nodes) matrix."""
        n = 6 * self.n_nodes
        dof = np.concatenate([6 * self.ia[:, None] + np.arange(6), 6 * self.ib[:, None] + np.arange(6)], axis=1)
        rows = np.repeat(dof, 12, axis=1).ravel()
        cols = np.tile(dof, (1, 12)).ravel()
        return sp.coo_array((blocks.ravel(), (rows, cols)), shape=(n, n)).tocsr()
