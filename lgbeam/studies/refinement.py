"""Refinement analysis an analyst can trust: pure functions of (parameters, solutions) → orders, Richardson
extrapolation and the grid-convergence index, for mesh (N) and step (h) refinement alike.

Conventions. Every parameter is turned into a *spacing* h that shrinks under refinement: h itself for step
sizes and tolerances, 1/N for element counts (``spacing``), so every order is **positive** for a converging
sequence. Solutions are scalars (a tip displacement, a reaction, a frequency, an energy) or whole fields
sampled at common points (arrays of one shape; errors are RMS norms over the field, ``field_norm``).

    pairwise order       p_i = log(e_i / e_{i+1}) / log(h_i / h_{i+1})                (errors e against a target)
    fitted order         slope of log e against log h (least squares)
    three-grid order     Celik et al. (2008) eqs. (3)–(5): from f₃, f₂, f₁ (coarse → fine) alone,
                         p = |ln|ε₃₂/ε₂₁| + q(p)| / ln r₂₁, q(p) = ln((r₂₁ᵖ − s)/(r₃₂ᵖ − s)), s = sign(ε₃₂/ε₂₁)
    Richardson           f_ext = (r₂₁ᵖ f₁ − f₂)/(r₂₁ᵖ − 1)                         (Richardson 1911)
    GCI (fine grid)      GCI₂₁ = F_s |(f₁ − f₂)/f₁| / (r₂₁ᵖ − 1), F_s = 1.25 for three or more grids (Roache 1994, 1998)
    asymptotic range     GCI₃₂ / (r₂₁ᵖ GCI₂₁) ≈ 1

Targets: a reference run (biased by the reference's own error), the finest run, or the Richardson estimate;
``refinement_table`` gives the errors and orders against each of them.

References
----------
Roache P.J. (1994) J. Fluids Eng. 116, 405–413 (GCI); Roache (1998) *Verification and Validation in
Computational Science and Engineering* ch. 5; Celik I.B. et al. (2008) J. Fluids Eng. 130, 078001 (procedure
for the estimation and reporting of discretisation error); Richardson L.F. (1911) Phil. Trans. R. Soc. A 210.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.diagnostics import fitted_order

logger = logging.getLogger(__name__)

FS_THREE_GRIDS = 1.25  # Roache's factor of safety with an observed order (three or more grids)
FS_TWO_GRIDS = 3.0     # with an assumed order (two grids)

__all__ = [
    "field_norm",
    "fitted_order",
    "gci",
    "pairwise_orders",
    "refinement_table",
    "richardson",
    "spacing",
    "three_grid_order",
]


def spacing(key: str, values: Sequence[float]) -> FloatArray:
    """The spacing h of each parameter value: 1/N for counts (a key naming ``n_elements``, ``n_nodes``, ``n``,
    ``points`` or an integer-valued sequence that grows), else the value (step sizes, tolerances)."""
    v = np.asarray(values, dtype=float)
    if np.any(~np.isfinite(v)) or np.any(v <= 0):
        raise ValueError(f"{key}: refinement parameters must be positive numbers, got {list(values)}")
    leaf = key.rsplit(".", 1)[-1]
    count = leaf in ("n_elements", "n_nodes", "n", "n_points", "points", "N") or leaf.startswith("n_")
    return 1.0 / v if count else v


def field_norm(a: Any) -> float:
    """RMS norm of a scalar or a field (any shape); for a field error pass the difference."""
    x = np.asarray(a, dtype=float)
    return float(np.sqrt(np.mean(x * x))) if x.size else 0.0


def _diff(a: Any, b: Any) -> float:
    return field_norm(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))


def pairwise_orders(h: Sequence[float] | FloatArray, errors: Sequence[float] | FloatArray) -> FloatArray:
    """p_i = log(e_i/e_{i+1}) / log(h_i/h_{i+1}) for consecutive pairs (nan where an error is not positive)."""
    h, e = np.asarray(h, dtype=float), np.asarray(errors, dtype=float)
    if h.size != e.size or h.size < 2:
        raise ValueError(f"pairwise_orders needs two or more (h, error) pairs of equal length, got {h.size}, {e.size}")
    ok = (e[:-1] > 0) & (e[1:] > 0) & np.isfinite(e[:-1]) & np.isfinite(e[1:])
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.log(np.where(ok, e[:-1], 1.0) / np.where(ok, e[1:], 1.0)) / np.log(h[:-1] / h[1:])
    return np.where(ok, p, np.nan)


def three_grid_order(h: Sequence[float] | FloatArray, f: Sequence[Any], *, max_iter: int = 100,
                     tol: float = 1e-12) -> float:
    """Observed order from three solutions (h coarse → fine, any ratios) without a reference (Celik et al. 2008
    eqs. (3)–(5)); fields use signed RMS differences. nan when the differences vanish (converged to round-off)."""
    h3, h2, h1 = (float(x) for x in h)
    f3, f2, f1 = (np.asarray(x, dtype=float) for x in f)
    r21, r32 = h2 / h1, h3 / h2
    if not (r21 > 1.0 and r32 > 1.0):
        raise ValueError(f"three_grid_order needs h decreasing (coarse → fine), got {list(h)}")
    e32, e21 = f3 - f2, f2 - f1
    n32, n21 = field_norm(e32), field_norm(e21)
    if n32 == 0.0 or n21 == 0.0:
        return float("nan")
    dot = float(np.sum(e32 * e21))
    s = 1.0 if dot >= 0.0 else -1.0  # oscillatory convergence: s = −1
    ratio = n32 / n21
    p = abs(math.log(ratio)) / math.log(r21)
    for _ in range(max_iter):
        q = math.log((r21**p - s) / (r32**p - s)) if (r21**p - s) > 0 and (r32**p - s) > 0 else 0.0
        p_new = abs(math.log(ratio) + q) / math.log(r21)
        if abs(p_new - p) < tol:
            return p_new
        p = p_new
    return p


def richardson(h_coarse: float, h_fine: float, f_coarse: Any, f_fine: Any, p: float) -> Any:
    """Richardson's extrapolation f_ext = (rᵖ f_fine − f_coarse)/(rᵖ − 1), r = h_coarse/h_fine (fields too)."""
    r = float(h_coarse) / float(h_fine)
    rp = r**p
    return (rp * np.asarray(f_fine, dtype=float) - np.asarray(f_coarse, dtype=float)) / (rp - 1.0)


def gci(h_coarse: float, h_fine: float, f_coarse: Any, f_fine: Any, p: float, fs: float = FS_THREE_GRIDS) -> float:
    """Grid-convergence index of the fine solution, relative: F_s |(f_fine − f_coarse)/f_fine| / (rᵖ − 1)
    (Roache 1994; fields: RMS norms)."""
    r = float(h_coarse) / float(h_fine)
    denom = field_norm(f_fine)
    if denom == 0.0:
        raise ValueError("gci: the fine solution is zero; GCI is relative: use the absolute error bound instead")
    return float(fs * _diff(f_fine, f_coarse) / denom / (r**p - 1.0))


def refinement_table(key: str, values: Sequence[float], solutions: Sequence[Any], *, reference: Any = None,
                     exact: Any = None, formal_order: float | None = None) -> dict[str, Any]:
    """The whole analysis of one refinement sequence (values in any order; sorted coarse → fine).

    Returns a dict: ``h``, ``values``; errors ``error_vs_finest``, ``error_vs_richardson`` and, when given,
    ``error_vs_reference`` / ``error_vs_exact`` (RMS norms for fields); for each target its ``pairwise_*`` and
    ``fitted_*`` orders (the finest run is left out of the fit against itself); ``three_grid_order`` (the last
    three runs), ``richardson`` (value or field), ``gci_fine`` and ``gci_coarse`` (relative, factor of safety ``fs`` = 1.25),
    ``asymptotic_ratio`` = GCI_coarse/(rᵖ GCI_fine) (≈ 1 in the asymptotic range). With two runs no order can be
    observed: there is no ``three_grid_order``, the order is ``formal_order`` (needed, assumed), F_s = 3, and the
    orders against Richardson's estimate (which would return the assumed order) are nan / absent.
    """
    if len(values) != len(solutions) or len(values) < 2:
        raise ValueError(f"refinement_table needs two or more runs with their solutions, got {len(values)} "
                         f"values and {len(solutions)} solutions")
    h = spacing(key, values)
    order = np.argsort(-h, kind="stable")
    h = h[order]
    if np.any(np.diff(h) >= 0):
        raise ValueError(f"{key}: the runs must have distinct parameters, got {list(values)}")
    sols = [np.asarray(solutions[i], dtype=float) for i in order]
    out: dict[str, Any] = {"key": key, "h": h, "values": np.asarray(values, dtype=float)[order]}
    if len(sols) >= 3:
        p = three_grid_order(h[-3:], sols[-3:])
        fs = FS_THREE_GRIDS
        out["three_grid_order"] = p
    else:
        if formal_order is None:
            raise ValueError("two runs give no observed order: pass formal_order (the method's order)")
        p, fs = float(formal_order), FS_TWO_GRIDS
        out["formal_order"] = p  # assumed, not observed
    out["fs"] = fs
    p_use = p if math.isfinite(p) and p > 0 else (formal_order if formal_order is not None else float("nan"))
    out["order_used"] = p_use
    ext = richardson(h[-2], h[-1], sols[-2], sols[-1], p_use) if math.isfinite(p_use) else np.full_like(sols[-1], np.nan)
    out["richardson"] = ext
    targets: dict[str, Any] = {"finest": sols[-1], "richardson": ext}
    if reference is not None:
        targets["reference"] = np.asarray(reference, dtype=float)
    if exact is not None:
        targets["exact"] = np.asarray(exact, dtype=float)
    for name, target in targets.items():
        errs = np.array([_diff(s, target) for s in sols])
        keep = slice(None, -1) if name == "finest" else slice(None)
        out[f"error_vs_{name}"] = errs
        if name == "richardson" and len(sols) < 3:  # extrapolated with the assumed order: its orders are that order
            out["pairwise_richardson"] = np.full(1, np.nan)
            continue
        out[f"pairwise_{name}"] = pairwise_orders(h[keep], errs[keep]) if errs[keep].size >= 2 else np.array([])
        out[f"fitted_{name}"] = fitted_order(h[keep], errs[keep])
    if math.isfinite(p_use):
        out["gci_fine"] = gci(h[-2], h[-1], sols[-2], sols[-1], p_use, fs)
        if len(sols) >= 3:
            out["gci_coarse"] = gci(h[-3], h[-2], sols[-3], sols[-2], p_use, fs)
            out["asymptotic_ratio"] = out["gci_coarse"] / ((h[-2] / h[-1]) ** p_use * out["gci_fine"])
    return out
