"""Engineering accuracy at the default elements per member: the frame's statics, modes and buckling on three
nested meshes and Richardson's extrapolation (``analysis.richardson``, docs/frames.md "Accuracy per member").

The rods are second order in the element length (error ≈ C/N² with N elements per member; docs/frames.md
"How many elements per member"). With the case's mesh N, its halving N/2 and its doubling 2N (every member
alike, so the nodes of N/2 are nodes of N and of 2N), a nodal quantity f (displacement, rotation, reaction,
joint force, frequency, buckling factor) gives

    value           f_R = f(2N) + (f(2N) − f(N)) / 3                 Richardson (1911), order 2, ratio 2
    error estimate  e = |f_R − f_R'| / 3,   f_R' = f(N) + (f(N) − f(N/2)) / 3

e bounds the error of f_R when what remains after the N⁻² term falls at least as fast as N⁻² (measured on
``steel-frame-2storey``: it falls as N⁻⁴, so e overestimates about fivefold). Each row of richardson.csv says
which estimate it has (``basis``):

- "three meshes": the observed order p = ln|(f(N) − f(N/2)) / (f(2N) − f(N))| / ln 2 (Celik et al. 2008
  eq. (3) at a constant ratio) lies in [1.5, 2.5] and the three values are monotone: e as above;
- "not asymptotic": otherwise (a mesh too coarse for the asymptotic range): e = |f(2N) − f(N)|, the change
  under refinement itself;
- "two meshes": the case mesh N (or a member's) is odd, so there is no N/2: e = |f(2N) − f(N)| / 3,
  Richardson's estimate of the error of f(2N);
- "unchanged": |f(2N) − f(N)| is round-off (below 1e-9 of the largest value of its unit): the value is f(2N)
  (a statically determinate reaction, the tip rotation of a cantilever under a tip load).

The corotational element (``model.element = "corotational"``, the frame default) has no one order: nodal
displacements of a linear problem are exact to round-off ("unchanged"), frequencies converge as N⁻⁴, a limit
load as N⁻². Its quantities are extrapolated with their observed order p (``order=None``, ``element_order``):

    value           f_R = f(2N) + (f(2N) − f(N)) / (2^p − 1)       p observed, in OBSERVED_RANGE = [1.5, 4.5]
    error estimate  e = |f(2N) − f(N)| / (2^p − 1) = |f_R − f(2N)|, the correction itself

(with p from the same three values, |f_R − f_R'| is zero by construction, so the correction is the estimate: it
bounds the error of f_R while the correction improves on f(2N) at all). Outside that range or non-monotone:
"not asymptotic", value f(2N), e = |f(2N) − f(N)|; with two meshes the order is unknown: value f(2N),
e = |f(2N) − f(N)| (the bound for any order ≥ 1).

Integer node indices of the rods form (``[[supports]] node = 4``) are scaled with the mesh, so a support or load
stays at the same point; one that does not fall on a node of N/2 leaves the estimate with two meshes.
"""

from __future__ import annotations

import copy
import csv
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.discretisations.frames.model import FrameModel, scale_node
from lgbeam.discretisations.frames.nested import (
    RATIO,
    common_nodes,
    match_modes,
    named_nodes,
    prolong,
    static_quantities,
)
from lgbeam.io.atomic import atomic_write

logger = logging.getLogger(__name__)
__all__ = ["OBSERVED_RANGE", "ORDER", "RATIO", "built_family", "common_nodes", "eigen_rows", "element_order",
           "extrapolate", "family", "match_modes",
           "meshes_label", "named_nodes", "prolong", "refined", "richardson", "rows", "static_correction",
           "static_quantities", "static_table", "worst", "write_rows"]

ORDER = 2.0
ORDER_RANGE = (1.5, 2.5)   # the observed order that counts as the asymptotic range of an order-2 scheme
OBSERVED_RANGE = (1.5, 4.5)  # the observed order used by an element of no one order (the corotational beam)
ZERO = 1e-9                # a change below this fraction of its family's scale is round-off ("unchanged")


def _scale_count(n: Any, factor: float) -> Any:
    if isinstance(n, bool) or not isinstance(n, int):
        return n
    scaled = n * factor
    return int(scaled) if float(scaled).is_integer() and scaled >= 1 else None


def refined(case: dict[str, Any], factor: float) -> dict[str, Any] | None:
    """A copy of the frame case with every member's elements times ``factor`` (2 or 1/2) and the integer node
    indices of the rods form scaled with them; None when a count or an index does not scale to an integer."""
    out = copy.deepcopy(case)
    mod = out["model"]
    failed = False

    def count(spec: dict[str, Any], key: str = "n_elements") -> None:
        nonlocal failed
        if isinstance(spec, dict) and key in spec:
            n = _scale_count(spec[key], factor)
            failed = failed or n is None
            spec[key] = n

    def node(spec: Any, key: str = "node") -> None:
        nonlocal failed
        if isinstance(spec, dict) and "rod" in spec and key in spec:
            k = scale_node(spec[key], factor)
            failed = failed or k is None
            spec[key] = k

    count(mod)
    for spec in [*mod.get("rods", []), *mod.get("members", [])]:
        count(spec)
    loads = out.get("loads", {})
    for spec in [*out.get("supports", []), *mod.get("masses", []), *loads.get("nodal", []),
                 *(s for c in loads.get("cases", []) if isinstance(c, dict) for s in c.get("nodal", []))]:
        node(spec)
    for spec in mod.get("joints", []):
        for end in ("a", "b"):
            if isinstance(spec, dict) and isinstance(spec.get(end), list | tuple) and len(spec[end]) == 2:
                k = scale_node(spec[end][1], factor)
                failed = failed or k is None
                spec[end] = [spec[end][0], k]
    return None if failed else out


def family(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The meshes of the extrapolation, coarse → fine: [N/2, N, 2N], or [N, 2N] when N/2 does not exist."""
    fine = refined(case, RATIO)
    assert fine is not None  # doubling scales every count and index to an integer
    coarse = refined(case, 1.0 / RATIO)
    return [case, fine] if coarse is None else [coarse, case, fine]


def built_family(model: FrameModel, structure: Any, check: Callable[[FrameModel], None] | None = None
                 ) -> tuple[list[FrameModel], list[Any]]:
    """The meshes [N/2, N, 2N] of the frame ``model`` (``FrameModel.refined``: the case is not translated again)
    and their structures (``structure``: the model's own, already built; ``check``: the size check run before each
    other mesh is built). A halved mesh that does not exist or cannot be built (a support at an arc length or a
    "mid" node that is no node of N/2) is dropped, leaving two meshes; a doubled one that cannot (or fails
    ``check``) raises ValueError saying so: the caller reports the mesh alone."""
    fine = model.refined(RATIO)
    assert fine is not None  # doubling scales every count and index to an integer
    coarse = model.refined(1.0 / RATIO)
    models = [model, fine] if coarse is None else [coarse, model, fine]
    out_m, out_s = [], []
    for m in models:
        if m is model:
            out_m.append(m)
            out_s.append(structure)
            continue
        try:
            if check is not None:
                check(m)
            st = m.structure()
        except ValueError as err:
            if m is models[0] and len(models) == 3:
                continue
            raise ValueError(f"analysis.richardson: the mesh with twice the elements: {err}; set "
                             "analysis.richardson = false") from None
        out_m.append(m)
        out_s.append(st)
    return out_m, out_s


def element_order(element: str) -> float | None:
    """The order Richardson assumes for a frame ``element``: ORDER for the Cosserat rod, None (the observed order
    of each quantity, module docstring) for the corotational beam."""
    return ORDER if element == "cosserat" else None


def richardson(coarse: Any, fine: Any, order: float | None = ORDER) -> np.ndarray:
    """f(2N) + (f(2N) − f(N)) / (2^p − 1): Richardson's value of order ``order`` at the ratio RATIO; with
    ``order=None`` (an element of no one order, two meshes) f(2N) itself."""
    fine = np.asarray(fine, dtype=float)
    if order is None:
        return fine.copy()
    return fine + (fine - np.asarray(coarse, dtype=float)) / (RATIO**order - 1.0)


def _observed(f: list[np.ndarray], exact: np.ndarray, lo: float, hi: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """The observed order p = |ln|(f(N) − f(N/2)) / (f(2N) − f(N))|| / ln 2 of three meshes (nan where the change
    is round-off or p is not finite) and whether it lies in [lo, hi] with monotone values (the asymptotic range)."""
    d1, d2 = f[1] - f[0], f[2] - f[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        order = np.abs(np.log(np.abs(d1 / d2))) / math.log(RATIO)
    order = np.where(exact | ~np.isfinite(order), np.nan, order)
    return order, (order >= lo) & (order <= hi) & (d1 * d2 > 0)


def extrapolate(values: list[np.ndarray], scale: np.ndarray | float | None = None,
                order: float | None = ORDER) -> dict[str, np.ndarray]:
    """Richardson's value and error estimate of quantities computed on the meshes of ``family`` (arrays of one
    shape, coarse → fine; module docstring). ``scale``: the size of the quantity's family (round-off below
    ZERO × scale counts as exact); ``order``: the element's order (ORDER), or None for the observed order of each
    quantity in OBSERVED_RANGE (``element_order``). Returns value, error, order (observed; nan with two meshes) and
    basis ("three meshes" | "two meshes" | "not asymptotic" | "unchanged": the change under refinement is
    round-off, the value is the finest mesh's)."""
    f = [np.asarray(v, dtype=float) for v in values]
    fc, ff = f[-2], f[-1]
    value = richardson(fc, ff, order)
    change = np.abs(ff - fc)
    sc = np.abs(ff) if scale is None else np.broadcast_to(np.asarray(scale, dtype=float), ff.shape)
    exact = change <= ZERO * np.maximum(sc, np.finfo(float).tiny)
    basis = np.full(ff.shape, "two meshes", dtype=object)
    obs = np.full(ff.shape, np.nan)
    error = change if order is None else change / (RATIO**order - 1.0)
    if len(f) == 3 and order is not None:
        prev = richardson(f[0], fc, order)
        obs, asym = _observed(f, exact, *ORDER_RANGE)
        error = np.where(asym, np.abs(value - prev) / (RATIO**order - 1.0), change)
    elif len(f) == 3:
        obs, asym = _observed(f, exact, *OBSERVED_RANGE)
        with np.errstate(divide="ignore", invalid="ignore"):
            corr = np.where(asym, (ff - fc) / (RATIO ** np.where(asym, obs, 1.0) - 1.0), 0.0)
        value = ff + corr
        error = np.where(asym, np.abs(corr), change)
    if len(f) == 3:
        basis[:] = "three meshes"
        basis[~asym] = "not asymptotic"
    basis[exact] = "unchanged"
    error = np.where(exact, change, error)
    value = np.where(exact, ff, value)
    return {"value": value, "error": error, "order": obs, "basis": basis}


def meshes_label(meshes: list[Any]) -> str:
    """"4/8/16": model.n_elements of each mesh (frame models or cases)."""
    return "/".join(str(c["model"]["n_elements"] if isinstance(c, dict) else c.n_default) for c in meshes)


ROW_KEYS = ("quantity", "unit", "value", "error_estimate", "observed_order", "basis", "coarse", "case_mesh", "fine")


def rows(names: list[str], unit: str | list[str], values: list[np.ndarray], scale: float,
         order: float | None = ORDER) -> list[dict[str, Any]]:
    """richardson.csv rows of scalar quantities ``names`` computed on each mesh (values[k][j]: mesh k, quantity j;
    ``order``: ``extrapolate``'s)."""
    ex = extrapolate(values, scale, order)
    units = [unit] * len(names) if isinstance(unit, str) else unit
    three = len(values) == 3
    return [{"quantity": nm, "unit": units[j], "value": float(ex["value"][j]), "error_estimate": float(ex["error"][j]),
             "observed_order": float(ex["order"][j]), "basis": str(ex["basis"][j]),
             "coarse": float(values[0][j]) if three else math.nan, "case_mesh": float(values[-2][j]),
             "fine": float(values[-1][j])} for j, nm in enumerate(names)]


def write_rows(path: Path, table: list[dict[str, Any]]) -> None:
    """richardson.csv (floats with 17 significant digits; nan where a mesh is absent)."""
    with atomic_write(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(ROW_KEYS))
        w.writeheader()
        for r in table:
            w.writerow({k: (f"{v:.17g}" if isinstance(v, float) else v) for k, v in r.items()})


def worst(table: list[dict[str, Any]], scales: dict[str, float]) -> dict[str, Any]:
    """The row with the largest error estimate relative to its value, or to 1e-3 of its family's scale for values
    smaller than that (a moment that is nearly zero is judged against the moments of the structure)."""
    def rel(r: dict[str, Any]) -> float:
        e = float(r["error_estimate"])
        if math.isnan(e):
            return 0.0
        return e / max(abs(float(r["value"])), 1e-3 * scales.get(r["unit"], 0.0), np.finfo(float).tiny)

    best = max(table, key=rel)
    return {"quantity": best["quantity"], "value": best["value"], "error_estimate": best["error_estimate"],
            "relative": rel(best)}


def static_table(results: list[dict[str, Any]], order: float | None = ORDER
                 ) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """richardson.csv rows of static results on each mesh (``static_quantities``, coarse → fine) and the scale
    of each unit's family (``order``: ``extrapolate``'s)."""
    last = results[-1]
    table: list[dict[str, Any]] = []
    scales = {"m": float(np.max(np.abs(last["u"]), initial=0.0)), "rad": float(np.max(np.abs(last["theta"]), initial=0.0)),
              "N": float(max(np.max(np.abs(last["reactions"][:, 3:]), initial=0.0),
                             np.max(np.abs(last["joint_forces"][:, 3:]), initial=0.0))),
              "N m": float(max(np.max(np.abs(last["reactions"][:, :3]), initial=0.0),
                               np.max(np.abs(last["joint_forces"][:, :3]), initial=0.0)))}

    def add(fmt: str, names: list[str], key: str, cols: slice, unit: str, axes: str = "xyz") -> None:
        labels = [fmt.format(n=n, a=a) for n in names for a in axes]
        table.extend(rows(labels, unit, [np.asarray(r[key])[:, cols].ravel() for r in results], scales[unit], order))

    add("displacement(node={n})[{a}]", last["nodes"], "u", slice(0, 3), "m")
    add("rotation(node={n})[{a}]", last["nodes"], "theta", slice(0, 3), "rad")
    add("reaction(support={n})[F{a}]", last["supports"], "reactions", slice(3, 6), "N")
    add("reaction(support={n})[M{a}]", last["supports"], "reactions", slice(0, 3), "N m")
    add("joint_force(joint={n})[F{a}]", last["joints"], "joint_forces", slice(3, 6), "N")
    add("joint_force(joint={n})[M{a}]", last["joints"], "joint_forces", slice(0, 3), "N m")
    comps = ("N", "V_y", "V_z", "T", "M_y", "M_z")
    for e, end in enumerate(("start", "end")):
        labels = [f"member_{end}(member={m})[{c}]" for m in last["members"] for c in comps]
        units = [("N" if k < 3 else "N m") for _ in last["members"] for k in range(6)]
        vals = [np.asarray(r["ends"])[:, e, :].ravel() for r in results]
        table.extend(rows(labels, units, vals, max(scales["N"], scales["N m"]), order))
    n_lim = min(len(r.get("limits", [])) for r in results)  # the limit points every mesh found, in path order
    if n_lim:
        vals = [np.asarray(r["limits"][:n_lim], dtype=float) for r in results]
        scales["load factor"] = float(np.max(np.abs(vals[-1])))
        table.extend(rows([f"limit_load(k={k + 1})" for k in range(n_lim)], "load factor", vals, scales["load factor"],
                          order))
    return table, scales


def eigen_rows(key: str, unit: str, values: list[np.ndarray], match: list[np.ndarray], n: int,
               order: float | None = ORDER) -> list[dict[str, Any]]:
    """The extrapolated eigenvalue-like quantities (frequencies in Hz, buckling factors) of the case mesh's n modes
    (``order``: ``extrapolate``'s).
    A mode matched on the case mesh and the doubled one but not on the halved one is extrapolated from those two
    (basis "two meshes"); one not matched on the doubled mesh keeps the case mesh's value with a nan estimate
    (basis "no match")."""
    picked = [np.where(m >= 0, np.asarray(v)[np.where(m >= 0, m, 0)], np.nan) for v, m in zip(values, match, strict=True)]
    names = [f"{key}(mode={k + 1})" for k in range(n)]
    table = rows(names, unit, picked, 0.0, order)
    if len(values) == 3:
        two = rows(names, unit, picked[1:], 0.0, order)
        for k in np.flatnonzero((match[0] < 0) & (match[2] >= 0)):
            table[k] = {**two[k], "coarse": math.nan}
    for k in np.flatnonzero(match[-1] < 0):
        table[k].update(value=float(np.asarray(values[-2])[k]), error_estimate=math.nan, basis="no match")
    return table


def static_correction(case: dict[str, Any], model: FrameModel, frame: Any, path: Any, run_dir: Path,
                      check: Callable[[FrameModel], None]) -> tuple[dict[str, Any], np.ndarray | None, list[str]]:
    """Solve the static path again with half and twice the elements per member and write richardson.csv.
    Returns the summary entry, the extrapolated displacement of every node of the case's mesh at the final state
    (None when the doubled mesh did not converge) and the lines to print."""
    from lgbeam.apps._frame_diagrams import member_forces
    from lgbeam.apps.rod_static import settings
    from lgbeam.discretisations.rods.statics import solve_static

    t1 = float(case["time"]["t_end"])
    try:
        models, structures = built_family(model, frame, check)
    except ValueError as err:
        logger.warning("%s", err)
        return {"skipped": str(err)}, None, [f"no Richardson correction: {err}"]
    results, finals = [], []
    for m, fr_m in zip(models, structures, strict=True):
        p = path if m is model else solve_static(fr_m, t=t1, **settings(case))
        if p.status != "ok":  # the case's own path is "ok" here
            msg = (f"the {meshes_label([m])}-element mesh's static path ended {p.status} ({p.message}); no "
                   "Richardson correction")
            logger.warning(msg)
            return {"skipped": msg}, None, [msg]
        st = p.final
        finals.append((fr_m, st))
        ends = {mf.name: mf.values[[0, -1]] for mf in member_forces(fr_m, m.member_rods(), st.q, st.lam, t=t1,
                                                                     load_factor=st.load_factor)}
        results.append(static_quantities(fr_m, named_nodes(fr_m, m.node_ids()), st.q, st.lam, t1, ends,
                                         [e.load_factor for e in p.events if e.kind == "limit point"]))
    order = element_order(model.element)
    table, scales = static_table(results, order)
    write_rows(run_dir / "richardson.csv", table)
    (fc, sc), (ff, sf) = finals[-2], finals[-1]
    common = common_nodes([fc, ff])
    G = frame.G
    u_c = G.translation(fc._q(sc.q))[common[0]] - G.translation(fc._q(fc.q_ref))[common[0]]
    u_f = G.translation(ff._q(sf.q))[common[1]] - G.translation(ff._q(ff.q_ref))[common[1]]
    big = max((r for r in table if r["unit"] == "m"), key=lambda r: abs(r["value"]))
    w = worst(table, scales)
    label = meshes_label(models)
    entry = {"meshes": label, "file": "richardson.csv", "largest_displacement": {k: big[k] for k in (
        "quantity", "value", "error_estimate")}, "largest_relative_error_estimate": w}
    lines = [(f"Richardson ({label} elements per member; richardson.csv): {big['quantity']} = {big['value']:.6g} m "
              f"± {big['error_estimate']:.2g}; largest relative error estimate {w['relative']:.1e} ({w['quantity']})")]
    return entry, richardson(u_c, u_f, order), lines
