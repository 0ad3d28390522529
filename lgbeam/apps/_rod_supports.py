"""Case syntax of rod supports and the support reactions in the run's output (``lgbeam.apps.rod``).

``supports.start``/``supports.end`` (+ ``start_motion``/``end_motion``) keep working; any number of supports
anywhere go in a list of tables::

    [[supports.at]]
    s = 0.0                        # or node = 0 | -1 | "end"
    fix = ["x", "y", "z", "rz"]    # or kind = "clamped" | "pinned" | "hinge" | "roller" | "guided" | "free" | "prescribed"
    frame = "local"                # "global" | "local" (reference directors d1 d2 d3) | [[x-axis], [vector in x–y plane]]
    name = "pin"

    [[supports.at]]
    s = 1.0
    kind = "roller"                # slides along axis, rotations free
    axis = "z"
    frame = "local"
    stiffness = [0.0, 5e3, 0.0]    # optional springs on free directions (N/m); rotational_stiffness (N m/rad)

Output: solution.npz ``reactions`` (n_t, n_supports, 6) = (moment, force) each support exerts on the rod, spatial
components, moment about the support's node; ``support_names``, ``support_nodes``; provenance.json summarises
the reactions at the last time, their sum with the applied loads, and any load acting on a fixed degree of freedom.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from lgbeam._tables import check_keys
from lgbeam.discretisations.rods import CosseratRod, RodMesh, Support
from lgbeam.discretisations.rods.supports import resolve_node

logger = logging.getLogger(__name__)

AT_KEYS = ("node", "s", "kind", "fix", "axis", "frame", "stiffness", "rotational_stiffness", "motion", "name")
AT_DOC = ("list of support tables [[supports.at]] with node or s, kind or fix, axis, frame, stiffness, "
          "rotational_stiffness, motion, name (docs/supports.md)")


def case_supports(sec: dict[str, Any], mesh: RodMesh) -> tuple[Support, ...]:
    """Supports of a validated ``supports`` section: start, end, then every ``[[supports.at]]`` table (each one's
    node checked on ``mesh``, so an error names its table)."""
    out = [Support(end, sec[end], dict(sec[f"{end}_motion"]) if sec[end] == "prescribed" else None)
           for end in ("start", "end") if sec[end] != "free"]
    for k, spec in enumerate(sec.get("at", [])):
        where = f"supports.at[{k}]"
        if not isinstance(spec, dict):
            raise ValueError(  # noqa: TRY004 - a case-file error: the CLI maps ValueError to exit 2
                f"{where} must be a table ([[supports.at]]) with keys {', '.join(AT_KEYS)}")
        check_keys(spec, AT_KEYS, where)
        kw = dict(spec)
        if "fix" in kw:
            kw["fix"] = tuple(kw["fix"]) if isinstance(kw["fix"], list) else kw["fix"]
        try:
            out.append(Support(kw.pop("node", None), kw.pop("kind", None), kw.pop("motion", None), **kw))
            resolve_node(out[-1], mesh)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    return tuple(out)


def check_start(rod: CosseratRod, t0: float, q0: np.ndarray) -> None:
    """A dynamic run starts on the constraints: a prescribed displacement/rotation must be zero at t0 (a ramp)."""
    sr = rod.support_rows
    if not sr.rheonomic:
        return
    phi = sr.phi(t0, np.asarray(q0).reshape(rod.n_nodes, 7))
    r = int(np.argmax(np.abs(phi)))
    if abs(phi[r]) > 1e-12 * max(1.0, rod.mesh.length):
        name = sr.labels[sr.row_entry[r]]
        raise ValueError(f"support {name!r}: its prescribed motion has already moved the base at t0 = {t0:g} "
                         f"(|Φ| = {abs(phi[r]):.3g}); give motion.ramp > 0 so a dynamic run starts from the reference, "
                         "or use analysis.kind = 'static' for a settlement")


def reaction_arrays(rod: CosseratRod, t: np.ndarray, q: np.ndarray, lam: np.ndarray) -> dict[str, Any]:
    """solution.npz entries: ``reactions`` (n_t, n_supports, 6) = (M, F) spatial, ``support_names``, ``support_nodes``."""
    sr = rod.support_rows
    R = np.zeros((len(t), sr.n_supports, 6))
    for j in range(len(t)):  # one evaluation per saved time (vectorised over supports)
        R[j] = rod.support_reactions(float(t[j]), q[j], lam[j])
    return {"reactions": R, "support_names": np.array(sr.labels, dtype=str), "support_nodes": sr.nodes.copy()}


def section_arrays(rod: CosseratRod, q: np.ndarray, lam: np.ndarray, v: np.ndarray | None = None) -> dict[str, Any]:
    """solution.npz entries: ``section_moment``, ``section_force`` (n_t, n_edges, 3), spatial, at the edge
    midpoints, constraint forces included (``rods.resultants.section_resultants``, as in the ``-edges.pvd`` cells
    and a frame run's solution.npz)."""
    from lgbeam.discretisations.rods.resultants import section_resultants

    n_t = len(q)
    sec = np.zeros((n_t, rod.n_nodes - 1, 6))
    for j in range(n_t):  # one evaluation per saved time (vectorised over edges)
        sec[j] = section_resultants(rod, q[j], lam[j], None if v is None else v[j]).edge_spatial
    return {"section_moment": sec[:, :, :3], "section_force": sec[:, :, 3:]}


def reaction_summary(rod: CosseratRod, t: float, q: np.ndarray, lam: np.ndarray) -> dict[str, Any]:
    """provenance.json entries at time t: each support's force and moment, and the balance with the applied loads
    (ΣF, ΣM about the origin; zero for a static state, the momentum rate for a dynamic one)."""
    sr = rod.support_rows
    if not sr.n_supports:
        return {}
    q = np.asarray(q).reshape(rod.n_nodes, 7)
    R = rod.support_reactions(t, q, lam)
    G = rod.G
    x, Rot = G.translation(q), G.rotation(q)
    f = rod.external_forces(t, q).reshape(-1, 6)
    F_app, M_app = np.einsum("nij,nj->ni", Rot, f[:, 3:]), np.einsum("nij,nj->ni", Rot, f[:, :3])
    xs = x[sr.nodes]
    total_F = R[:, 3:].sum(0) + F_app.sum(0)
    total_M = (np.cross(xs, R[:, 3:]) + R[:, :3]).sum(0) + (np.cross(x, F_app) + M_app).sum(0)
    return {
        "reactions": {name: {"node": int(i), "force": R[k, 3:].tolist(), "moment": R[k, :3].tolist()}
                      for k, (name, i) in enumerate(zip(sr.labels, sr.nodes, strict=True))},
        "reactions_frame": "spatial; force and moment on the rod, moment about the support node",
        "reactions_plus_loads": {"force": total_F.tolist(), "moment_about_origin": total_M.tolist(), "t": t},
    }


def support_notes(rod: CosseratRod) -> list[str]:
    """Loads that act on fixed degrees of freedom (they go into the reactions); each also logged as a warning."""
    notes = rod.support_rows.loads_on_fixed_dofs(rod.loads, rod.mesh.node_index, rod.q_ref)
    for line in notes:
        logger.warning(line)
    return notes
