"""A frame on nested meshes (every member with N/2, N and 2N elements; ``FrameModel.refined``): the nodal
results an engineer reads of a static state (``static_quantities``), the nodes the meshes share
(``common_nodes``) and the pairing of mode shapes across meshes (``match_modes``), for Richardson's
extrapolation (``apps.frame_richardson``, docs/frames.md "Accuracy per member").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

RATIO = 2  # the refinement ratio of the nested meshes


def static_quantities(frame: Any, nodes: dict[str, int], q: np.ndarray, lam: np.ndarray, t: float,
                      ends: dict[str, np.ndarray] | None = None, limits: list[float] | None = None) -> dict[str, Any]:
    """The nodal results of a static frame state an engineer reads: displacement and rotation (rotation vector
    of R R_refᵀ, spatial) of the named nodes (rod ends without names), the support reactions, the joint
    forces, ``ends``: member name -> (2, 6) N, V_y, V_z, T, M_y, M_z at its start and end (local axes), and
    ``limits``: the load factors of the path's limit points, in path order (``PathEvent`` located by
    ``_Path.limit``)."""
    from lgbeam.groups import SO3

    G = frame.G
    qq, qr = frame._q(q), frame._q(frame.q_ref)
    idx = np.array(list(nodes.values()), dtype=np.int64)
    u = G.translation(qq)[idx] - G.translation(qr)[idx]
    Rr = G.rotation(qq)[idx] @ np.swapaxes(G.rotation(qr)[idx], -1, -2)
    th = SO3().log(Rr)
    sup_names, sup = frame.support_reactions(t, q, lam)
    joints = frame.joint_reactions(q, lam)
    ends = ends or {}
    return {"nodes": list(nodes), "u": u, "theta": th, "supports": list(sup_names), "reactions": sup,
            "joints": list(frame.joint_rows.labels), "joint_forces": joints, "members": list(ends),
            "ends": np.array([ends[m] for m in ends]).reshape(len(ends), 2, 6), "limits": list(limits or [])}


def named_nodes(frame: Any, ids: dict[str, int]) -> dict[str, int]:
    """The named nodes of a nodes + members case, else every rod's two ends as ROD:start / ROD:end."""
    if ids:
        return ids
    o = frame.node_offsets
    return {f"{nm}:{end}": int(o[k]) + (0 if end == "start" else frame.members[k].n_nodes - 1)
            for k, nm in enumerate(frame.names) for end in ("start", "end")}


# The least modal assurance criterion that counts as the same mode on another mesh. Above 1/2 the pairing is
# unique (a shape's MACs with M-orthonormal modes sum to at most 1); 0.8 (shapes 27° apart) asks that the coarser
# mesh resolve the mode at all: a steel frame's sway on one element per member reaches 0.73 at 10× the frequency.
MAC_MIN = 0.8
CLUSTER = 1e-6  # eigenvalues this close (relative) span one eigenspace: their shapes are matched as a whole


def _clusters(values: np.ndarray) -> np.ndarray:
    """A label per eigenvalue (ascending input not required): equal labels for values within CLUSTER of each
    other (relative), chained in sorted order. Degenerate modes (a symmetric section's two bending planes)
    have no individual shapes, only a shared eigenspace."""
    v = np.asarray(values, dtype=float)
    order = np.argsort(v, kind="stable")
    gap = np.abs(np.diff(v[order])) > CLUSTER * np.maximum(np.abs(v[order][1:]), np.abs(v[order][:-1]))
    labels = np.empty(len(v), dtype=int)
    labels[order] = np.concatenate([[0], np.cumsum(gap)]) if len(v) else []
    return labels


def prolong(coarse: Any, fine: Any, shapes: np.ndarray) -> np.ndarray:
    """Shapes (k, coarse nodes, 6) of a mesh interpolated onto the nodes of its doubling (every member twice
    the elements, nested): a node of both keeps its value, a new midpoint node takes the mean of its two
    neighbours (linear interpolation of the node tangent vectors, which at the reference share their member's
    frame)."""
    ia, ib = [], []
    for j, rod in enumerate(coarse.members):
        local = np.arange(RATIO * (rod.n_nodes - 1) + 1)
        off = int(coarse.node_offsets[j])
        ia.append(off + local // RATIO)
        ib.append(off + (local + RATIO - 1) // RATIO)
    a, b = np.concatenate(ia), np.concatenate(ib)
    if len(a) != fine.n_nodes:
        raise ValueError(f"meshes not nested: {len(a)} interpolated nodes for {fine.n_nodes}")
    S = np.asarray(shapes)
    return 0.5 * (S[:, a, :] + S[:, b, :])


def _metric(fine: Any, length: float) -> Callable[[np.ndarray], np.ndarray]:
    """x ↦ W x for the inner product the fine mesh's modes are orthogonal in: its mass matrix (modes are
    M-orthonormal, so a vector's MACs with them sum to at most 1 and at most one exceeds 1/2); without a mass
    (a bare description of the nodes) the Euclidean product with rotations × ``length``."""
    if hasattr(fine, "mass"):
        M = fine.mass(fine.q_ref)
        if float(M.diagonal().sum()) > 0.0:
            return lambda x: (M @ x.T).T
    w = np.tile(np.r_[np.full(3, length**2), np.ones(3)], fine.n_nodes)
    return lambda x: x * w


def match_modes(shapes: list[np.ndarray], frames: list[Any], n: int, length: float = 1.0,
                values: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """For each mesh (coarse → fine, the case's mesh ``shapes[-2]``), the index of the mode that is mode k of
    the case's mesh; -1 where none is.

    Of each pair of meshes the coarser one's shapes are interpolated onto the finer one's nodes (``prolong``:
    comparing on the coarse nodes alone would alias, e.g. a cantilever's second and third torsion modes agree
    on every other node) and compared with the finer one's shapes by the modal assurance criterion in the
    finer mesh's mass metric. Eigenvalues within CLUSTER of each other (``values``, per mesh) count as one
    eigenspace: a shape's MAC with it is the sum over the cluster. Modes are paired one to one, the pairing
    that maximises the summed MAC (``scipy.optimize.linear_sum_assignment``), a pair counting from MAC_MIN;
    inside a cluster the pairs are taken in index order, so the result does not depend on how round-off picked
    the cluster's basis."""
    from scipy.optimize import linear_sum_assignment

    case = len(shapes) - 2
    vals = values if values is not None else [np.arange(len(s), dtype=float) for s in shapes]
    out = []
    for k, S in enumerate(shapes):
        if k == case:
            out.append(np.arange(n))
            continue
        lo, hi = (k, case) if k < case else (case, k)
        W = _metric(frames[hi], length)
        u = prolong(frames[lo], frames[hi], shapes[lo]).reshape(len(shapes[lo]), -1)
        phi = np.asarray(shapes[hi]).reshape(len(shapes[hi]), -1)
        if hi == case:
            phi = phi[:n]
        else:
            u = u[:n]
        Wphi = W(phi)
        num = (u @ Wphi.T) ** 2
        den = np.outer(np.einsum("ij,ij->i", u, W(u)), np.einsum("ij,ij->i", phi, Wphi))
        mac = num / np.maximum(den, np.finfo(float).tiny)            # (coarse modes, fine modes)
        lab = {j: _clusters(np.asarray(vals[j], dtype=float)[: n if j == case else len(shapes[j])]) for j in (k, case)}
        mac = mac @ (lab[hi][:, None] == lab[hi][None, :])             # MAC with the fine mode's eigenspace
        sim = mac.T if hi == case else mac                             # (case modes, other modes)
        rows, cols = linear_sum_assignment(-sim)
        keep = sim[rows, cols] >= MAC_MIN
        got = np.full(n, -1)
        got[rows[keep]] = cols[keep]
        out.append(_in_cluster_order(got, lab[case], lab[k]))
    return out


def _in_cluster_order(got: np.ndarray, mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """The pairs (case mode i ↔ other mode got[i]) re-paired in index order inside each cluster of either mesh
    (``mine``, ``theirs``: cluster labels): there the assignment is round-off and the values agree to CLUSTER."""
    got = got.copy()
    for labels, of in ((mine, lambda i: mine[i]), (theirs, lambda i: theirs[got[i]])):
        matched = np.flatnonzero(got >= 0)
        key = of(matched)
        for c in np.unique(key):
            idx = matched[key == c]
            got[idx] = np.sort(got[idx])
    return got


def common_nodes(frames: list[Any]) -> list[np.ndarray]:
    """The nodes of the coarsest mesh in each mesh of ``frames`` (coarse → fine; nested, ratio 2)."""
    c = frames[0]
    local = [np.arange(r.n_nodes) for r in c.members]
    out = []
    for k, fr in enumerate(frames):
        step = RATIO**k
        out.append(np.concatenate([int(fr.node_offsets[j]) + step * local[j] for j in range(len(local))]))
    return out
