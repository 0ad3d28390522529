"""Member forces of a frame state in the members' local axes and the N, V, M diagrams an engineer reads (issue 24
item 7; docs/frames.md "Member forces and diagrams"): ``member_forces.csv``, ``diagrams.png`` and the deflected
shape ``deflected.png`` of a frame run.

A member is the engineer's member of a nodes + members case (its segments are the rods ``<member>.1``, ``<member>.2``,
…, start to end: ``_frame_members.rods_form``'s ``member_rods``) or a rod of a rods + joints case. Along it, rod by
rod, the section resultants of ``rods.resultants.section_resultants``:

    start of a rod   W_a of its first edge + the rod's own load on its first node
    edge midpoints   the edge values (mean of the two end wrenches moved to the midpoint)
    end of a rod     W_b of its last edge − the rod's own load on its last node

An end row is the free-body cut at the rod's end (issue 31 item 2): W_a of the first edge is the cut just past
node 0, so it misses the distributed load and self-weight lumped on that node (q Δs/2, the trapezoidal share of
the half edge next to the end), and W_b of the last edge is the cut just before node N, so it holds the share
of node N; the rod's own load on its end node (``own_end_loads``: distributed loads and the gravity of ρA w_i,
not the joint's point loads or point masses) is added back (start) or taken off (end). The lumped load acts at
the node, so its moment about the node is zero, and the cut's moment is unchanged: the trapezoidal lumping gives
the end moment of a uniform load (qL²/2 of a cantilever) exactly, and the shear is then exact too (qL/2 of a
simply supported beam, qL of a cantilever, to round-off; tests/test_frame_end_forces.py). In a dynamic state the
inertia of the end node's lumped mass is not included (the state carries no acceleration): O(ρA Δs a / 2).

with s accumulating along the member over its rods (reference arc length), so an intermediate node of a
polyline member has two rows at one s (end of one segment, start of the next; a load there is the jump).

Sign convention (the resultants'): the wrench of the part of the member beyond the cut (larger s) on the part
before it, in the material frame at the point, local axes x = d₃ (along the member), y = d₁, z = d₂:

    N = n·d₃ (tension +),  V_y = n·d₁,  V_z = n·d₂,  T = m·d₃,  M_y = m·d₁,  M_z = m·d₂

A positive M_y stretches the +z fibres, a positive M_z the −y fibres: the diagrams draw M_y along +z and M_z
along −y (the tension side), V_y along y, V_z along z, N and T along z.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.discretisations.frames.output import COLUMNS, MemberForces, member_forces, structure_resultants
from lgbeam.io.atomic import atomic_write, write_via

__all__ = ["COLUMNS", "MemberForces", "choose_view", "member_forces", "path_node", "plot_deflected", "plot_diagrams",
           "read_member_forces", "structure_resultants", "write_member_forces"]

PLANE_TOL = 1e-3  # out-of-plane resultants below this fraction of the largest: the plane view loses nothing visible
LABEL_FRACTION = 0.05  # a segment's extreme is labelled when it exceeds this fraction of its panel's largest value
SMALL_PANEL = 0.05  # a panel below this fraction of the largest force (moment) is drawn to scale, not blown up
DIAGRAM_FRACTION = 0.12  # the panel's largest value is drawn this fraction of the structure's size from its member
DEFLECTION_FRACTION = 0.1  # deflected.png draws the largest displacement at about this fraction of the size
BENDING_COLOURS = ("tab:red", "tab:blue")  # bending in the local x-z plane (M_y, V_z); in the x-y plane (M_z, V_y)


def node_label(frame: Any, nodes: dict[str, int], k: int) -> str:
    """The case's name of structure node ``k``: the named node (``nodes``: name -> node) at its reference position
    (any member end there), else "<rod> node <i>" (the i-th node of that rod, 0 at its start)."""
    x0 = frame.G.translation(frame._q(frame.q_ref))
    size = float(np.ptp(x0, axis=0).max()) or 1.0
    for name, i in nodes.items():
        if np.linalg.norm(x0[i] - x0[k]) <= 1e-9 * size:
            return name
    o = frame.node_offsets
    j = int(np.searchsorted(o, k, side="right")) - 1
    return f"{frame.names[j]} node {k - int(o[j])}"


def path_node(frame: Any, nodes: dict[str, int], states: Any, name: str | None) -> tuple[int, str]:
    """(node, label) that path.csv/path.png follow (issue 31 item 5): the named node ``name`` (``output.node``), else
    the node whose displacement is largest over the path's ``states`` (a frame's last rod often ends at a support)."""
    if name is not None:
        return nodes[name], f"node {name}"
    G = frame.G
    x0 = G.translation(frame._q(frame.q_ref))
    u = max((np.linalg.norm(G.translation(frame._q(s.q)) - x0, axis=1) for s in states), key=lambda a: float(a.max()))
    k = int(np.argmax(u))
    label = node_label(frame, nodes, k)
    return k, (f"node {label}" if label in nodes else label)


def write_member_forces(path: Path, forces: list[MemberForces], state: str,
                        envelope: tuple[FloatArray, FloatArray] | None = None) -> None:
    """member_forces.csv: three ``#`` comment lines (the state, the convention, the units), then one row per point;
    ``envelope`` (max, min), rows stacked member after member: then the same rows again with point
    ``<point>/max`` and ``<point>/min`` holding the largest and smallest value of each column over a run."""
    with atomic_write(path, "w", newline="", encoding="utf-8") as fh:
        fh.write(f"# member forces at {state}: section resultants in each member's local axes (x along it = d3, "
                 "y = d1, z = d2; material frame at the point)\n")
        fh.write("# sign: the part beyond the cut (larger s) acting on the part before it; N tension +; M_y > 0 "
                 "stretches the +z fibres, M_z > 0 the -y fibres\n")
        fh.write("# units (SI cases): s and x y z (reference position) m; N V_y V_z N; T M_y M_z N m; point = start | "
                 "mid (edge midpoint) | end of the rod\n")
        w = csv.writer(fh)
        w.writerow(["member", "rod", "point", "s", "x", "y", "z", *COLUMNS])
        for mf in forces:
            for k in range(len(mf.s)):
                w.writerow([mf.name, mf.rods[k], mf.point[k], repr(float(mf.s[k])),
                            *(repr(float(c)) for c in mf.x[k]), *(repr(float(c)) for c in mf.values[k])])
        if envelope is None:
            return
        for which, vals in zip(("max", "min"), envelope, strict=True):
            k0 = 0
            for mf in forces:
                for k in range(len(mf.s)):
                    w.writerow([mf.name, mf.rods[k], f"{mf.point[k]}/{which}", repr(float(mf.s[k])),
                                *(repr(float(c)) for c in mf.x[k]), *(repr(float(c)) for c in vals[k0 + k])])
                k0 += len(mf.s)


def read_member_forces(path: Path, which: str = "state") -> dict[str, dict[str, np.ndarray]]:
    """member_forces.csv back: member -> column -> array (strings for rod and point); ``which``: "state" (the rows
    of the state), "max" or "min" (the envelope rows of a ground-motion run)."""
    out: dict[str, dict[str, list[Any]]] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))
    for row in rows:
        kind = row["point"].partition("/")[2] or "state"
        if kind != which:
            continue
        d = out.setdefault(row["member"], {k: [] for k in row if k != "member"})
        for k, val in row.items():
            if k != "member":
                d[k].append(val if k in ("rod", "point") else float(val))
    return {m: {k: np.asarray(v) for k, v in d.items()} for m, d in out.items()}


# ----------------------------------------------------------------------------------------------------------------
# diagrams.png


def _unit(x: float, moment: bool) -> tuple[float, str]:
    base = "N m" if moment else "N"
    for f, p in ((1e6, "M"), (1e3, "k")):
        if x >= f:
            return f, p + base
    return 1.0, base


def _bending(forces: list[MemberForces]) -> tuple[FloatArray, FloatArray]:
    """(shear force, bending moment) as spatial vectors in the reference local axes, stacked over all points."""
    V = np.concatenate([mf.values[:, 1:2] * mf.axes[:, :, 0] + mf.values[:, 2:3] * mf.axes[:, :, 1] for mf in forces])
    M = np.concatenate([mf.values[:, 4:5] * mf.axes[:, :, 0] + mf.values[:, 5:6] * mf.axes[:, :, 1] for mf in forces])
    return V, M


def choose_view(forces: list[MemberForces]) -> dict[str, Any]:
    """The plane view (``{"view": "plane", "normal", "basis"}``) when the structure lies in a plane (a straight one:
    the plane of its bending) and its out-of-plane shear, bending and torsion are below PLANE_TOL of the largest;
    else a 3-D axonometric projection (``{"view": "3d", "basis"}``: the two screen axes as rows)."""
    X = np.concatenate([mf.x for mf in forces])
    t = np.concatenate([mf.axes[:, :, 2] for mf in forces])
    W = np.concatenate([mf.values for mf in forces])
    V, M = _bending(forces)
    _, sv, Vt = np.linalg.svd(X - X.mean(0))
    n = None
    if sv[2] <= 1e-9 * sv[0]:
        n = Vt[2]
        if sv[1] <= 1e-9 * sv[0]:  # a straight structure: the plane of its bending
            fs, ms = np.abs(W[:, :3]).max(), np.abs(W[:, 3:]).max()
            stack = np.concatenate([M / (ms or 1.0), np.cross(t, V) / (fs or 1.0)])
            n = np.linalg.svd(stack)[2][0] if np.abs(stack).max() > 0 else forces[0].axes[0, :, 0]
    if n is not None:
        f_out = np.abs(V @ n).max()
        m_out = max(np.abs(W[:, 3]).max(), np.abs(M - np.outer(M @ n, n)).max())
        if f_out <= PLANE_TOL * np.abs(W[:, :3]).max() and m_out <= PLANE_TOL * np.abs(W[:, 3:]).max():
            ez = np.array([0.0, 0.0, 1.0])
            if abs(n @ ez) < 0.99:  # a vertical plane: z up
                e2 = ez - (ez @ n) * n
                e2 /= np.linalg.norm(e2)
                e1 = np.cross(e2, n)
                if e1[np.argmax(np.abs(e1))] < 0:
                    e1, n = -e1, -n
            else:  # a horizontal plane: x to the right
                n = n if n @ ez > 0 else -n
                e1 = np.array([1.0, 0.0, 0.0]) - n[0] * n
                e1 /= np.linalg.norm(e1)
                e2 = np.cross(n, e1)
            return {"view": "plane", "normal": n, "basis": np.stack([e1, e2])}
    az, el = np.radians(-60.0), np.radians(25.0)
    right = np.array([-np.sin(az), np.cos(az), 0.0])
    up = np.array([-np.sin(el) * np.cos(az), -np.sin(el) * np.sin(az), np.cos(el)])
    return {"view": "3d", "basis": np.stack([right, up])}


def _components(mf: MemberForces, view: dict[str, Any], panel: str) -> list[tuple[str, str, FloatArray, FloatArray]]:
    """What a panel draws along one member: (name, colour, values (n,), offset directions (n, 3)) per component;
    values are the CSV's (in the plane view the in-plane component, signed as the member's own M_y or M_z)."""
    d1, d2, t = mf.axes[:, :, 0], mf.axes[:, :, 1], mf.axes[:, :, 2]
    N, Vy, Vz, T, My, Mz = mf.values.T
    if panel == "N":
        return [("N", "tab:green", N, d2 if view["view"] == "3d" else np.cross(view["normal"], t))]
    if panel == "T":
        return [("T", "tab:purple", T, d2)]
    if view["view"] == "3d":
        if panel == "V":
            return [("V_z", BENDING_COLOURS[0], Vz, d2), ("V_y", BENDING_COLOURS[1], Vy, d1)]
        return [("M_y", BENDING_COLOURS[0], My, d2), ("M_z", BENDING_COLOURS[1], Mz, -d1)]
    n = view["normal"]
    c1, c2 = d1 @ n, d2 @ n
    about_y = np.abs(c1).sum() >= np.abs(c2).sum()  # the member bends in its local x-z plane
    sign = np.sign(c1 if about_y else c2)  # d₁ (or d₂) = ±n
    v_sp = Vy[:, None] * d1 + Vz[:, None] * d2
    m_sp = My[:, None] * d1 + Mz[:, None] * d2
    nt = np.cross(n, t)
    if panel == "V":  # V_z = n·d₂ with d₂ = ∓(n × t) (about y); V_y = n·d₁ with d₁ = ±(n × t) (about z)
        vp = np.einsum("ij,ij->i", v_sp, nt)
        return [("V_z", BENDING_COLOURS[0], -sign * vp, -sign[:, None] * nt)] if about_y else \
            [("V_y", BENDING_COLOURS[1], sign * vp, sign[:, None] * nt)]
    mn = m_sp @ n  # drawn on the tension side t × (M n)
    return [("M_y" if about_y else "M_z", BENDING_COLOURS[0 if about_y else 1], sign * mn,
             sign[:, None] * np.cross(t, n))]


def _label_points(s: FloatArray, vals: FloatArray, top: float) -> list[int]:
    """The largest positive and most negative value of a segment (one rod of a member) above LABEL_FRACTION of
    ``top``; among equal extremes (a constant diagram: to 1e-3 of ``top``) the one nearest the segment's middle."""
    out = []
    mid = 0.5 * (s[0] + s[-1])
    for sgn in (1.0, -1.0):
        ext = float(np.max(sgn * vals))
        if ext > LABEL_FRACTION * top:
            near = np.flatnonzero(sgn * vals >= ext - 1e-3 * top)
            out.append(int(near[np.argmin(np.abs(s[near] - mid))]))
    return out


def _draw_panel(ax: Any, forces: list[MemberForces], view: dict[str, Any], panel: str, size: float,
                ref: float) -> list[Any]:
    """One panel: the structure, each member's diagram perpendicular to it, the extremes labelled (Text objects
    with ``priority`` and ``record`` attributes, overlaps removed by the caller). ``ref``: the largest force (N, V)
    or moment (M, T) of all panels; a panel whose largest value is below SMALL_PANEL of it is drawn to that
    fraction's scale (smaller, not blown up), a component below PLANE_TOL of the scale is not drawn."""
    P = view["basis"]
    comps = {mf.name: _components(mf, view, panel) for mf in forces}
    top = max((float(np.abs(c[2]).max()) for cs in comps.values() for c in cs), default=0.0)
    f, unit = _unit(top, panel in ("M", "T"))
    denom = max(top, SMALL_PANEL * ref)
    scale = DIAGRAM_FRACTION * size / denom if denom > 0 else 0.0
    texts, names = [], set()
    for mf in forces:
        base = mf.x @ P.T
        ax.plot(base[:, 0], base[:, 1], color="k", lw=1.6, zorder=3)
        for name, colour, vals, dirs in comps[mf.name]:
            if not np.abs(vals).max() > PLANE_TOL * denom:
                continue
            names.add(name)
            tip = (mf.x + scale * vals[:, None] * dirs) @ P.T
            poly = np.concatenate([base, tip[::-1]])
            ax.fill(poly[:, 0], poly[:, 1], color=colour, alpha=0.25, lw=0, zorder=1)
            ax.plot(np.r_[base[0, 0], tip[:, 0], base[-1, 0]], np.r_[base[0, 1], tip[:, 1], base[-1, 1]],
                    color=colour, lw=1.0, zorder=2)
            segments = [np.flatnonzero(mf.rods == r) for r in dict.fromkeys(mf.rods.tolist())]
            for k in (int(seg[j]) for seg in segments for j in _label_points(mf.s[seg], vals[seg], denom)):
                d = (dirs[k] @ P.T) * np.sign(vals[k])
                d = d / (np.linalg.norm(d) or 1.0)
                txt = ax.annotate(f"{vals[k] / f:.3g}", tip[k], xytext=6 * d, textcoords="offset points", fontsize=7.5,
                                  color=colour, ha="left" if d[0] > 0.3 else "right" if d[0] < -0.3 else "center",
                                  va="bottom" if d[1] > 0.3 else "top" if d[1] < -0.3 else "center", zorder=4)
                txt.priority = abs(float(vals[k]))
                txt.record = {"panel": panel, "member": mf.name, "component": name, "s": float(mf.s[k]),
                              "value": float(vals[k])}
                texts.append(txt)
    ax.margins(0.12)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_axis_off()
    what = {"N": "N: axial force, tension +", "T": "T: torsion", "V": "V: shear force", "M": "M: bending moment, "
            "tension side"}[panel]
    used = " / ".join(sorted(names)) if panel in ("V", "M") and names else ""
    ax.set_title(f"{what}{' (' + used + ')' if used else ''} [{unit}]", fontsize=9)
    _triad(ax, P, view["view"] == "3d")
    if view["view"] == "3d" and panel in ("V", "M") and names:
        from matplotlib.lines import Line2D

        lab = {"V_z": "V_z along z", "V_y": "V_y along y", "M_y": "M_y on +z if > 0", "M_z": "M_z on -y if > 0"}
        shown = [(c, lab[nm]) for c, nm in zip(BENDING_COLOURS, ("V_z", "V_y") if panel == "V" else ("M_y", "M_z"),
                                               strict=True) if nm in names]
        ax.legend([Line2D([], [], color=c, lw=2) for c, _ in shown], [t for _, t in shown], fontsize=7,
                  loc="upper right", frameon=False)
    return texts


def _triad(ax: Any, P: FloatArray, three_d: bool) -> None:
    o = np.array([0.05, 0.06])
    for e, name in zip(np.eye(3), "xyz", strict=True):
        d = P @ e
        if np.linalg.norm(d) < 0.2 or (not three_d and np.linalg.norm(d) < 0.99):
            continue
        ax.annotate("", o + 0.07 * d, o, xycoords="axes fraction", arrowprops={"arrowstyle": "->", "lw": 0.8})
        ax.annotate(name, o + 0.09 * d, xycoords="axes fraction", fontsize=7, ha="center", va="center")


def plot_diagrams(forces: list[MemberForces], out: Path, title: str, *, dpi: int = 110) -> dict[str, Any]:
    """diagrams.png: panels N, V, M (and T in a 3-D view when there is torsion) on the undeformed structure, each
    diagram perpendicular to its member at DIAGRAM_FRACTION of the structure's size for the panel's largest value,
    extremes labelled (overlapping labels dropped, the smaller first). Returns the view and the labels drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    view = choose_view(forces)
    X = np.concatenate([mf.x for mf in forces])
    size = max(float(np.ptp(X, axis=0).max()), 1e-12)
    W = np.abs(np.concatenate([mf.values for mf in forces]))
    refs = {"N": W[:, :3].max(), "V": W[:, :3].max(), "M": W[:, 3:].max(), "T": W[:, 3:].max()}
    panels = ["N", "V", "M"]
    if view["view"] == "3d" and W[:, 3].max() > PLANE_TOL * refs["T"]:
        panels.append("T")
    ext = np.ptp(X @ view["basis"].T, axis=0)
    aspect = float(np.clip(ext[1] / max(ext[0], 1e-12), 0.5, 1.6))
    ncol = 2 if len(panels) == 4 else 3
    w = 4.6
    fig = Figure(figsize=(w * ncol, w * aspect * (len(panels) // ncol) + 0.6))
    canvas = FigureCanvasAgg(fig)
    texts = []
    for k, panel in enumerate(panels):
        ax = fig.add_subplot(len(panels) // ncol, ncol, k + 1)
        texts += _draw_panel(ax, forces, view, panel, size, float(refs[panel]))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    canvas.draw()
    renderer = canvas.get_renderer()
    kept: list[Any] = []
    for txt in sorted(texts, key=lambda x: -x.priority):
        box = txt.get_window_extent(renderer)
        if any(box.expanded(1.05, 1.1).overlaps(b) for b, _ in kept):
            txt.remove()
        else:
            txt.record["box"] = tuple(float(c) for c in box.extents)  # pixels (x0, y0, x1, y1)
            kept.append((box, txt))
    write_via(out, lambda p: fig.savefig(p, dpi=dpi))
    return {**{k: v for k, v in view.items() if k != "basis"}, "view": view["view"], "panels": panels,
            "labels": [t.record for _, t in kept], "dropped": len(texts) - len(kept)}


def _nice(x: float) -> float:
    """The largest of 1, 2, 5 × 10^k not above x (a scale factor a reader can take in)."""
    if not x > 0 or not np.isfinite(x):
        return 1.0
    k = np.floor(np.log10(x))
    m = x / 10**k
    return float((5.0 if m >= 5 else 2.0 if m >= 2 else 1.0) * 10**k)


def plot_deflected(frame: Any, q: FloatArray, nodes: dict[str, int], view: dict[str, Any], out: Path, title: str,
                   *, dpi: int = 110) -> dict[str, Any]:
    """deflected.png: the reference (grey, dashed) and the deflected structure, displacements magnified by a round
    factor that draws the largest one at DEFLECTION_FRACTION of the structure's size, in the view of the diagrams;
    the largest displacement labelled with its node (a named node when it is one). Returns the factor and it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    G = frame.G
    x0, x = G.translation(frame._q(frame.q_ref)), G.translation(frame._q(q))
    u = x - x0
    size = max(float(np.ptp(x0, axis=0).max()), 1e-12)
    norms = np.linalg.norm(u, axis=1)
    k = int(np.argmax(norms))
    umax = float(norms[k])
    factor = _nice(DEFLECTION_FRACTION * size / umax) if umax > 0 else 1.0
    P = view["basis"]
    fig = Figure(figsize=(6.0, 5.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    o = frame.node_offsets
    for j in range(len(frame.names)):
        a, b = (x0[o[j]:o[j + 1]] @ P.T), ((x0 + factor * u)[o[j]:o[j + 1]] @ P.T)
        ax.plot(a[:, 0], a[:, 1], color="0.6", lw=1.0, ls="--", zorder=1)
        ax.plot(b[:, 0], b[:, 1], color="tab:blue", lw=1.8, zorder=2)
    where = node_label(frame, nodes, k)
    tip = (x0[k] + factor * u[k]) @ P.T
    mm = umax * 1e3
    ax.plot(*tip, "o", color="tab:blue", ms=4)
    ax.annotate(f"|u| = {mm:.3g} mm ({where})", tip, xytext=(6, 6), textcoords="offset points", fontsize=8,
                color="tab:blue")
    ax.margins(0.12)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_axis_off()
    _triad(ax, P, view["view"] == "3d")
    ax.set_title(f"{title}\ndeflected shape, displacements × {factor:g} (dashed: unloaded)", fontsize=9)
    fig.tight_layout()
    write_via(out, lambda p: fig.savefig(p, dpi=dpi))
    return {"factor": factor, "largest_displacement_m": umax, "at": where}
