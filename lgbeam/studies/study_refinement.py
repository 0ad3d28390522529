"""The refinement analysis of a study's ``--quantity`` values (``lgbeam study``): along the first ``--vary`` key,
for every combination of the other keys, ``lgbeam.studies.refinement.refinement_table`` gives the errors against
the reference run and against Richardson's estimate, the pairwise and fitted orders (positive for h- and for
N-refinement: counts become spacings 1/N), the three-grid observed order, the Richardson estimate and the
grid-convergence index (Roache) of the two finest runs. Written to the study folder:

    refinement.csv          one row per quantity and run: the key, the spacing h, the value (numbers), the errors
                            against the reference, Richardson and the exact value (``--exact``), and the pairwise
                            order of each run with the next coarser one
    refinement-summary.csv  one row per quantity (and combination of the other keys): observed order
                            (``three_grid_order``; with two runs there is none: ``formal_order``, the assumed order,
                            instead), Richardson estimate, GCI of the fine and the coarse pair (relative), asymptotic
                            ratio ≈ 1, fitted orders, the finest and the reference value
    refinement.png          errors against the chosen target (``--against``) with fitted slopes
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.studies.plan import StudyPlan, point_label, write_csv
from lgbeam.studies.refinement import field_norm, pairwise_orders, refinement_table, spacing

__all__ = ["analyse"]


def _num(x: Any) -> float | None:
    v = float(x)
    return v if math.isfinite(v) else None


def _scalar(v: np.ndarray) -> float | str:
    """A number as itself; a small array written out (12 digits), a larger one described (errors: RMS norms)."""
    a = np.asarray(v, dtype=float)
    if a.ndim == 0:
        return float(a)
    if a.size <= 6:
        return "[" + ", ".join(f"{x:.12g}" for x in a.ravel()) + "]"
    return f"field of {a.size} values (RMS norms)"


def _one(plan: StudyPlan, qtext: str, key: str, labelled: list[tuple[Any, np.ndarray]],
         ref: np.ndarray | None, exact: np.ndarray | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The per-run rows and the summary of one quantity along ``key`` (runs given as (value, quantity))."""
    vals = [v for v, _ in labelled]
    h = spacing(key, vals)
    order = np.argsort(-h, kind="stable")  # coarse → fine, as refinement_table sorts them
    sorted_sols = [labelled[i][1] for i in order]
    summary: dict[str, Any] = {"quantity": qtext, "key": key, "runs": len(vals)}
    if len(vals) >= 3 or (len(vals) == 2 and plan.formal_order is not None):
        t = refinement_table(key, vals, [s for _, s in labelled], reference=ref, exact=exact,
                             formal_order=plan.formal_order)
    else:  # two runs and no assumed order: errors against the reference and the exact value only
        t = {"h": h[order], "values": np.asarray(vals, dtype=float)[order]}
        for name, truth in (("reference", ref), ("exact", exact)):
            if truth is not None:
                e = np.array([field_norm(np.asarray(s) - truth) for s in sorted_sols])
                t[f"error_vs_{name}"], t[f"pairwise_{name}"] = e, pairwise_orders(t["h"], e)
    rows = []
    for i, (hv, kv) in enumerate(zip(t["h"], t["values"], strict=True)):
        row: dict[str, Any] = {"quantity": qtext, key: kv, "h": float(hv), "value": _scalar(sorted_sols[i])}
        for target in ("reference", "richardson", "exact"):
            if f"error_vs_{target}" in t:
                row[f"error_vs_{target}"] = float(t[f"error_vs_{target}"][i])
                p = t[f"pairwise_{target}"]
                row[f"order_vs_{target}"] = float(p[i - 1]) if i >= 1 and i - 1 < p.size else float("nan")
        rows.append(row)
    for k in ("three_grid_order", "formal_order", "order_used", "gci_fine", "gci_coarse", "asymptotic_ratio",
              "fitted_reference", "fitted_richardson", "fitted_exact"):
        if k in t:
            summary[k] = _num(t[k])
    if "formal_order" in t:
        summary["note"] = "two grids: the order is assumed (--formal-order), not observed; GCI with F_s = 3"
    elif "three_grid_order" in t and not math.isfinite(t["three_grid_order"]):
        summary["note"] = "the runs agree to round-off: no observed order, no Richardson estimate"
    elif "three_grid_order" in t and not 0.0 < t["three_grid_order"] < 20.0:
        summary["note"] = "observed order out of range: not in the asymptotic range (refine further)"
    if "richardson" in t:
        summary["richardson"] = _scalar(t["richardson"])
    summary["finest"] = _scalar(sorted_sols[-1])
    if ref is not None:
        summary["reference"] = _scalar(ref)
    if exact is not None:
        summary["exact"] = _scalar(exact)
    return rows, summary


def analyse(plan: StudyPlan, study_dir: Path, values: dict[str, dict[str, np.ndarray]]) -> list[dict[str, Any]]:
    """Write refinement.csv, refinement-summary.csv and refinement.png from the quantities' ``values``
    (label → quantity text → value, ok runs only); return the summary rows."""
    from lgbeam.io.plots import plot_study

    key, key_values = plan.varies[0]
    if len(key_values) < 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in key_values):
        return []
    others = [k for k, _ in plan.varies[1:]]
    ref_vals = values.get(plan.reference, {}) if plan.reference is not None else {}
    groups: dict[str, list[str]] = {}
    for label, point, _ in plan.points:
        if label in values:
            groups.setdefault(point_label({k: point[k] for k in others}), []).append(label)
    points = {label: point for label, point, _ in plan.points}
    all_rows: list[dict[str, Any]] = []
    summaries: list[dict[str, Any]] = []
    plot_rows: dict[str, dict[Any, dict[str, Any]]] = {}  # combination → key value → {key, quantity: error}
    assumed: set[str] = set()  # combinations whose plotted slopes are the assumed order, not an observed one
    for q in plan.quantities:
        for combo, labels in groups.items():
            if len(labels) < 2:
                continue
            if len(labels) == 2 and plan.against == "richardson" and plan.formal_order is not None:
                assumed.add(combo)  # Richardson's estimate from two runs uses --formal-order: so does the slope
            labelled = [(points[lb][key], values[lb][q.text]) for lb in labels]
            ref = ref_vals.get(q.text)
            rows, summary = _one(plan, q.text, key, labelled, ref, plan.exact.get(q.text))
            extra = {k: points[labels[0]][k] for k in others}
            rows = [{**extra, **r} for r in rows]
            summaries.append({**({"group": combo} if combo else {}), **summary})
            all_rows += rows
            target = f"error_vs_{plan.against}"
            for r in rows:
                if target in r:
                    plot_rows.setdefault(combo, {}).setdefault(r[key], {key: r[key]})[q.text] = r[target]
    if not all_rows:
        return []
    write_csv(study_dir / "refinement.csv", all_rows)
    write_csv(study_dir / "refinement-summary.csv", summaries)
    method = plan.points[0][2].get("integrator", {}).get("method", "")
    for combo, by_value in plot_rows.items():
        prows = list(by_value.values())
        names = [k for k in dict.fromkeys(k for r in prows for k in r) if k != key]
        png = study_dir / ("refinement.png" if not combo else f"refinement-{combo}.png")
        title = f"{plan.name}: {method}" + (f" ({combo})" if combo else "")
        if combo in assumed:
            title += f"\ntwo runs: the slope is the assumed order {plan.formal_order:g}, not observed"
        plot_study(prows, key, names, png, title=title,
                   ylabel="error against " + {"richardson": "Richardson's estimate", "exact": "the exact value",
                                              "reference": "the reference run"}[plan.against])
    return summaries
