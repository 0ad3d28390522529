"""The h_max study of seed 003 Tables 2.3 (NLS) and 2.4 (KdV): the largest step per method and grid size
that passes the written criterion (``HMAX_CRITERION``), beside the thesis's values and iteration counts
(docs/exponential-integrators.md, docs/spectral.md). ``lgbeam study CASE --hmax`` runs it; so does
``python -m lgbeam.studies.spectral_figures``; ``python -m lgbeam.studies.spectral_hmax CASE --n … --methods …
[--horizon T] [--search round] [--stage S]`` runs it with the options that reproduce the thesis' falling
exp-midpoint/DISEX columns (a fixed time horizon, the largest passing round step; ``HORIZON_NOTE``).
"""

from __future__ import annotations

import csv
import logging
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam._typing import Array
from lgbeam.apps.spectral import build
from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.spectral import NLS, SpectralPDE
from lgbeam.integrators.base import Integrator
from lgbeam.integrators.controllers import ConstantStep
from lgbeam.integrators.registry import make_method, method_entry, methods_for
from lgbeam.solve import SaveAt, integrate
from lgbeam.systems import SemilinearPoissonSystem

logger = logging.getLogger(__name__)

_NLS_N = (11, 21, 41, 61, 81, 121, 161, 201, 401)
_KDV_N = (401, 601, 801, 1001, 1201, 1401)
THESIS_HMAX = {  # seed 003 Tables 2.3 (NLS) and 2.4 (KdV): h_max per method and n
    "nls": {
        "midpoint": {11: .02, 21: .01, 41: 4e-3, 61: 2e-3, 81: 1e-3, 121: 5e-4, 161: 2e-4, 201: 1e-4,
                     401: 4e-5},
        "midpoint-newton": dict.fromkeys(_NLS_N, 0.1),
        "exp-midpoint": {11: .1, 21: .08, 41: .06, 61: .04, 81: .04, 121: .04, 161: .01, 201: 8e-3,
                         401: 5e-3},
        "discrete-gradient": {11: .02, 21: .01, 41: 4e-3, 61: 2e-3, 81: 1e-3, 121: 5e-4, 161: 2e-4, 201: 1e-4,
                              401: 4e-5},
        "energy-exp": dict.fromkeys(_NLS_N, 0.1),
        "disex": {11: .1, 21: .03, 41: .03, 61: .025, 81: .025, 121: .01, 161: .01, 201: 8e-3, 401: 4e-3},
    },
    "kdv": {
        "midpoint": {401: 4e-4, 601: 1e-4, 801: 6e-5, 1001: 3e-5, 1201: 1e-5, 1401: 1e-5},
        "midpoint-newton": {401: 4e-4, 601: 1e-4, 801: 5e-5, 1001: 3e-5, 1201: 1e-5, 1401: 1e-5},
        "exp-midpoint": {401: 8e-4, 601: 6e-4, 801: 6e-4, 1001: 6e-4, 1201: 6e-4, 1401: 6e-4},
        "discrete-gradient": {401: 4e-4, 601: 1e-4, 801: 5e-5, 1001: 3e-5, 1201: 1e-5, 1401: 1e-5},
        "energy-exp": dict.fromkeys(_KDV_N, 0.005),
        "disex": {401: 4e-4, 601: 4e-4, 801: 1e-4, 1001: 1e-4, 1201: 1e-4, 1401: 1e-4},
    },
}
# the same tables' mean iteration counts over the first 1000 steps (DISEX: sum of 6 sub-steps)
THESIS_ITERS = {
    "nls": {"midpoint": dict(zip(_NLS_N, (14.2, 12.9, 7.9, 2.1, 4.1, 13.9, 3.9, 3.08, 2))),
            "midpoint-newton": dict.fromkeys(_NLS_N, 8.3),
            "exp-midpoint": dict(zip(_NLS_N, (12.6, 12.6, 10.9, 8.1, 8.1, 8.1, 5, 4.7, 4.9))),
            "discrete-gradient": dict(zip(_NLS_N, (14, 11.8, 5.8, 4, 3, 3.4, 2, 2, 1))),
            "energy-exp": dict(zip(_NLS_N, (11.9, 12, 12, 12, 12, 12, 12, 12, 12))),
            "disex": dict(zip(_NLS_N, (101.4, 47.7, 49.2, 44.5, 44.6, 43.3, 30.5, 30, 32)))},
    "kdv": {"midpoint": dict(zip(_KDV_N, (17.9, 4.2, 18.5, 7.7, 2, 1))),
            "midpoint-newton": dict(zip(_KDV_N, (25.5, 7.3, 4.4, 11.0, 2, 2))),
            "exp-midpoint": dict(zip(_KDV_N, (8.4, 8.6, 9.4, 10.6, 11.4, 16.1))),
            "discrete-gradient": dict(zip(_KDV_N, (15.4, 3.4, 3.5, 14.9, 1, 1))),
            "energy-exp": dict(zip(_KDV_N, (14.9, 14.8, 14.9, 14.8, 14.8, 14.8))),
            "disex": dict(zip(_KDV_N, (26.9, 48.0, 19, 19, 22, 34)))},
}
HMAX_METHODS = ("midpoint", "midpoint-newton", "exp-midpoint", "discrete-gradient", "energy-exp", "disex")
"""The six columns of Tables 2.3/2.4, in the thesis' order."""


HMAX_CRITERION = (
    "h passes if, over the first 1000 steps from the case's initial data, (i) the fixed-point solver "
    "converges (tol = integrator.tol, at most integrator.max_iter iterations) at every step and (ii) "
    "max_k |H_k - H_0| <= 1e-2 |H_0|; h_max = the largest passing h, found by halving from h_hi "
    "(NLS 4.0, KdV 0.05) and then bisecting in log h to 5 %, such that the 8 steps h_max*2^(-i/8), "
    "i = 1..8 (down to h_max/2), pass too (else the search restarts below the smallest failing one)"
)


HORIZON_NOTE = (
    "Why a fixed time horizon makes the exponential midpoint/DISEX h_max fall like 1/n "
    "(docs/spectral.md, Table 2.3): above the resonance-free step pi/(k_max^2 + L) the linearised "
    "exponential midpoint step is unstable in narrow bands around h(omega_k + omega_j) = 2 pi m; each mode pair's "
    "bands cover a fraction ~ 2 h|c|/pi of the h axis (|c| the coupling), so the k_max pairs leave ~ "
    "exp(-C k_max h) of the steps stable: a step avoids them all only for h ~ 1/k_max. Inside a band the growth rate per unit time is ~ |c|, "
    "independent of n and h, so a round-off seed needs t ~ ln(1/eps)/|c| (tens of time units) to show: a test "
    "over 1000 steps (t = 1000 h) misses every band below h ~ 0.03 and its h_max is flat in n."
)
"""The measured mechanism behind ``horizon`` (tests/test_spectral_hmax_horizon.py)."""


class _EnergyCriterionFailed(Exception):
    """Raised by the h_max monitor at the first step whose energy error exceeds the threshold."""


def method_system(method: str, system: SpectralPDE, y0: Array) -> tuple[SpectralPDE, Array]:
    """The system (and initial state) a method runs on: the quasi-Newton midpoint needs a Jacobian,
    which the NLS has in its real stacked form only (same H, same dynamics); others run unchanged."""
    if method == "midpoint-newton" and isinstance(system, NLS) and system.form != "real":
        real = NLS(system.grid, kappa=system.kappa, form="real")
        return real, real.from_field(system.to_field(y0))
    return system, y0


def passes_hmax_criterion(
    system: SpectralPDE,
    method: Integrator[Any, Any, Any],
    y0: Array,
    h: float,
    *,
    n_steps: int = 1000,
    energy_tol: float = 1e-2,
    horizon: float = 0.0,
) -> tuple[bool, float]:
    """The written h_max criterion (``HMAX_CRITERION``): over the first ``n_steps`` steps of size h,
    (i) the solver converges within its iteration limit at every step and (ii)
    max_k |H_k − H_0| / |H_0| ≤ energy_tol. Returns (passed, mean iterations over the first ``n_steps``).

    ``horizon`` > 0 (the thesis' "long time stability", ``horizon_steps``): (i) and (ii) must hold up to
    t = max(n_steps·h, horizon), not only over the first ``n_steps`` steps; the mean iterations are still
    those of the first ``n_steps`` steps (Table 2.3's "first thousand timesteps").

    A run stops at the first step that violates (ii) (the outcome is the same as checking at the end)."""
    H0 = system.hamiltonian(y0)
    bound = energy_tol * abs(H0)
    steps = horizon_steps(h, n_steps, horizon)

    def monitor(y: Array) -> dict[str, float]:
        H = system.hamiltonian(y)
        if not abs(H - H0) <= bound:  # also catches NaN
            raise _EnergyCriterionFailed
        return {"energy": H}

    try:
        res = integrate(system, method, y0, (0.0, steps * h), controller=ConstantStep(h),
                        save=SaveAt(steps=steps + 1, store=False), diagnostics=lambda t, y: monitor(y))
    except _EnergyCriterionFailed:
        return False, float("nan")
    if res.status != "ok":
        return False, float("nan")
    return True, float(np.asarray(res.iterations)[:n_steps].mean())


def horizon_steps(h: float, n_steps: int, horizon: float) -> int:
    """Steps of the h_max test: ``n_steps`` (Tables 2.3/2.4's first thousand), or as many as reach t =
    ``horizon`` when that is longer (a fixed time, whatever h: ``HORIZON_NOTE``)."""
    if not horizon > 0.0:
        return n_steps
    return max(n_steps, math.ceil(horizon / h - 1e-9))


def _halve_and_bisect(
    system: SpectralPDE,
    method: Integrator[Any, Any, Any],
    y0: Array,
    h_hi: float,
    rel_precision: float,
    *,
    hi_fails: bool = False,
    **crit: Any,
) -> tuple[float, float]:
    """Halve from ``h_hi`` until a step passes, then bisect in log h; (h or 0, mean iterations)."""
    hi, lo, its = h_hi, None, float("nan")
    if not hi_fails:
        ok, it = passes_hmax_criterion(system, method, y0, hi, **crit)
        if ok:
            return hi, it
    while lo is None and hi > 1e-7:
        ok, it = passes_hmax_criterion(system, method, y0, hi / 2, **crit)
        if ok:
            lo, its = hi / 2, it
        else:
            hi = hi / 2
    while lo is not None and hi / lo > 1 + rel_precision:
        mid = math.sqrt(hi * lo)
        ok, it = passes_hmax_criterion(system, method, y0, mid, **crit)
        lo, hi, its = (mid, hi, it) if ok else (lo, mid, its)
    return (lo if lo is not None else 0.0), its


def confirm_below(
    system: SpectralPDE, method: Integrator[Any, Any, Any], y0: Array, h: float, confirm: int = 8, **crit: Any
) -> float | None:
    """Test h·2^(−i/confirm), i = confirm, …, 1 (from h/2 upwards); the first (smallest) failing step, or
    None when all pass."""
    for i in range(confirm, 0, -1):
        g = h * 2.0 ** (-i / confirm)
        if not passes_hmax_criterion(system, method, y0, g, **crit)[0]:
            return g
    return None


def _largest_passing_h(
    system: SpectralPDE,
    method: Integrator[Any, Any, Any],
    y0: Array,
    h_hi: float,
    rel_precision: float,
    confirm: int = 8,
    **crit: Any,
) -> tuple[float, float]:
    """h_max of ``HMAX_CRITERION``: halve and bisect (``_halve_and_bisect``) to a passing h, then require
    the ``confirm`` steps h·2^(−i/confirm) (down to h/2) to pass too; if one fails, search again below
    the smallest failing one. The pass set need not be an interval (KdV exp-midpoint/DISEX at n ≥ 801
    fail and pass alternately as h varies by a few per cent, docs/spectral.md), so an unconfirmed
    bisection could return an isolated passing h. (h_max or 0, mean iterations at h_max)."""
    h, its = _halve_and_bisect(system, method, y0, h_hi, rel_precision, **crit)
    while h > 0 and confirm:
        g = confirm_below(system, method, y0, h, confirm, **crit)
        if g is None:
            break
        h, its = _halve_and_bisect(system, method, y0, g, rel_precision, hi_fails=True, **crit)
    return h, its


ROUND_MANTISSAS = (1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)
"""Every h_max of Tables 2.3/2.4 is m·10^e with m from this set (0.025, 0.06, 8e-3, 3e-5, …)."""


def round_steps(h_hi: float, h_lo: float = 1e-6) -> list[float]:
    """The round steps m·10^e (``ROUND_MANTISSAS``) in [h_lo, h_hi], largest first."""
    e_lo, e_hi = math.floor(math.log10(h_lo)) - 1, math.ceil(math.log10(h_hi)) + 1
    steps = {float(f"{m * 10.0**e:.6g}") for e in range(e_lo, e_hi) for m in ROUND_MANTISSAS}
    return sorted((h for h in steps if h_lo <= h <= h_hi), reverse=True)


def _largest_round_h(
    system: SpectralPDE, method: Integrator[Any, Any, Any], y0: Array, h_hi: float, **crit: Any
) -> tuple[float, float]:
    """The thesis-like search (``search="round"``): the first of ``round_steps(h_hi)``, from the top, that
    passes the criterion; steps below it are not tested (the thesis' tables list such round steps). (h_max
    or 0, mean iterations at h_max)."""
    for h in round_steps(h_hi):
        ok, its = passes_hmax_criterion(system, method, y0, h, **crit)
        if ok:
            return h, its
    return 0.0, float("nan")


def _thesis(table: dict[str, Any], kind: str, name: str, n: int) -> float:
    return float(table.get(kind, {}).get(name, {}).get(int(n), float("nan")))


def hmax_study(case: dict[str, Any], ns: list[int], methods: list[str] | None, out_dir: Path, *,
               n_steps: int = 1000, energy_tol: float = 1e-2, h_hi: float | None = None,
               rel_precision: float = 0.05, confirm: int = 8, horizon: float = 0.0,
               stage: str = "fixed-point", search: str = "confirmed") -> list[dict[str, Any]]:
    """Largest h passing ``passes_hmax_criterion`` for each method and n (seed 003 Tables 2.3/2.4).

    The bracket starts at ``h_hi`` (default 4.0 for NLS, 0.05 for KdV: well above every thesis value,
    so that no h_max is the top of the bracket) and halves until a step passes; then bisects in log h
    to ``rel_precision``, and requires ``confirm`` steps below h_max (down to h_max/2) to pass too
    (``_largest_passing_h``). ``methods`` defaults to the thesis' six columns (``HMAX_METHODS``); the
    quasi-Newton midpoint runs on the real stacked NLS (``method_system``). Writes ``out_dir/hmax.csv``
    and ``out_dir/hmax.md`` (the table beside the thesis numbers, fitted slopes) and returns the rows
    (with ``cpu_s``, the process time of each search).

    ``horizon`` > 0: the stability part of the criterion holds to the fixed time ``horizon`` whatever h
    (``passes_hmax_criterion``; ``HORIZON_NOTE``: with it the exponential midpoint/DISEX columns fall
    like ~1/n, as the thesis'). ``stage``: the stage solver of the methods that have one (default the
    thesis' fixed point; "exact" gives the same steps to round-off, cheaper, for long horizons).
    ``search``: "confirmed" (default, above) or "round", the thesis-like one: the largest passing step of
    ``round_steps(h_hi)`` tried from the top (``_largest_round_h``; ``rel_precision``, ``confirm`` unused).
    """
    if search not in ("confirmed", "round"):
        raise ValueError(f"h_max study: search must be 'confirmed' or 'round', got {search!r}")
    if not horizon >= 0.0:
        raise ValueError(f"h_max study: horizon must be >= 0 (0: the first n_steps steps only), got {horizon}")
    kind = case["kind"]
    methods = methods or list(HMAX_METHODS)
    implicit = [m for m in methods_for(SemilinearPoissonSystem) if m != "exp-euler"]
    unknown = [m for m in methods if m not in implicit]
    if unknown:
        raise ValueError(f"h_max study: unknown or explicit methods {unknown}; choose from "
                         f"{', '.join(implicit)}")
    h_hi = h_hi or (4.0 if kind == "nls" else 0.05)
    rows: list[dict[str, Any]] = []
    for n in ns:
        sub = {**case, "grid": {**case["grid"], "n": int(n)}}
        system, y0, _ = build(sub)
        for name in methods:
            # Tables 2.3/2.4 are about the fixed point: named explicitly (cases default to stage "auto")
            fixed = {"stage": stage} if "stage" in method_entry(name).options else {}
            m = make_method(
                name, tol=case["integrator"]["tol"], max_iter=case["integrator"]["max_iter"], **fixed
            )
            sys_m, y0_m = method_system(name, system, y0)
            t0 = time.process_time()
            crit: dict[str, Any] = {"n_steps": n_steps, "energy_tol": energy_tol, "horizon": horizon}
            h_max, its = (_largest_round_h(sys_m, m, y0_m, h_hi, **crit) if search == "round" else
                          _largest_passing_h(sys_m, m, y0_m, h_hi, rel_precision, confirm, **crit))
            thesis = _thesis(THESIS_HMAX, kind, name, n)
            at_thesis, its_thesis_h = False, float("nan")  # the thesis' h under our criterion
            if not math.isnan(thesis):
                at_thesis, its_thesis_h = ((True, its) if thesis == h_max else passes_hmax_criterion(
                    sys_m, m, y0_m, thesis, **crit))
            row = {"method": name, "n": int(n), "h_max": h_max, "iter_avg": its, "thesis_h_max": thesis,
                   "thesis_iter_avg": _thesis(THESIS_ITERS, kind, name, n),
                   "ratio": float("nan") if math.isnan(thesis) else h_max / thesis,
                   "thesis_h_passes": at_thesis, "iter_avg_at_thesis_h": its_thesis_h,
                   "cpu_s": round(time.process_time() - t0, 2)}
            if horizon > 0.0 or stage != "fixed-point" or search != "confirmed":  # default columns unchanged
                row.update(horizon=horizon, stage=stage, search=search)
            logger.info("h_max %s n=%d: %.3g (thesis %.3g), %.0f s", name, n, h_max, thesis, row["cpu_s"])
            rows.append(row)
            write_hmax(rows, kind, out_dir)  # after every cell: a long study interrupted keeps its rows
    write_hmax(rows, kind, out_dir)
    return rows


def _horizon_clause(rows: list[dict[str, Any]]) -> str:
    """The criterion's change when the rows were searched with a fixed time horizon or another stage."""
    horizons = sorted({float(r.get("horizon") or 0.0) for r in rows})
    stages = sorted({str(r.get("stage") or "fixed-point") for r in rows})
    searches = sorted({str(r.get("search") or "confirmed") for r in rows})
    if horizons == [0.0] and stages == ["fixed-point"] and searches == ["confirmed"]:
        return ""
    parts = []
    if horizons != [0.0]:
        parts.append(f"(i) and (ii) hold up to t = max(1000 h, T), T = {', '.join(f'{x:g}' for x in horizons)} "
                     "(mean iterations still over the first 1000 steps)")
    if searches != ["confirmed"]:
        parts.append("search 'round': h_max = the largest passing step m·10^e, m in "
                     f"{', '.join(f'{m:g}' for m in ROUND_MANTISSAS)}, tried from the top, no steps below it checked")
    parts.append(f"stage solver {', '.join(stages)}")
    return "; CHANGED: " + "; ".join(parts)


def write_hmax(rows: list[dict[str, Any]], kind: str, out_dir: Path) -> None:
    """``out_dir/hmax.csv`` (one row per method and n) and ``out_dir/hmax.md`` (``hmax_markdown``)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "hmax.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["method", "n", "h_max"])
        w.writeheader()
        w.writerows(rows)
    (out_dir / "hmax.md").write_text(hmax_markdown(rows, kind), encoding="utf-8")


def hmax_slopes(rows: list[dict[str, Any]], *, n_min: int = 0) -> dict[str, float]:
    """Least-squares slope of log h_max against log n per method (rows with h_max > 0 and n ≥ n_min;
    NaN with fewer than two n)."""
    out: dict[str, float] = {}
    for name in dict.fromkeys(r["method"] for r in rows):
        pts = sorted(
            (r["n"], r["h_max"]) for r in rows if r["method"] == name and r["h_max"] > 0 and r["n"] >= n_min
        )
        ns, hs = zip(*pts) if len(pts) >= 2 else ((), ())
        out[name] = observed_order(ns, hs) if ns else float("nan")
    return out


def hmax_markdown(rows: list[dict[str, Any]], kind: str) -> str:
    """The h_max table as Markdown: one row per n, one column per method (thesis order first),
    cells "ours (mean iterations) / thesis (its iterations)", then the fitted slopes of both."""
    methods = sorted(dict.fromkeys(r["method"] for r in rows),
                     key=lambda m: HMAX_METHODS.index(m) if m in HMAX_METHODS else len(HMAX_METHODS))
    ns = sorted({r["n"] for r in rows})
    cell = {(r["method"], r["n"]): r for r in rows}

    def its(x: Any) -> str:
        return f" ({float(x):.1f})" if x not in (None, "") and not math.isnan(float(x)) else ""

    def fmt(r: dict[str, Any] | None) -> str:
        if r is None:
            return "—"
        return (f"{r['h_max']:.3g}{its(r['iter_avg'])} / {r['thesis_h_max']:.3g}"
                f"{its(r.get('thesis_iter_avg'))}")

    ours = hmax_slopes(rows)
    thesis_rows = [
        {"method": m, "n": n, "h_max": _thesis(THESIS_HMAX, kind, m, n)}
        for m in methods
        for n in ns
        if (m, n) in cell
    ]
    theirs = hmax_slopes(thesis_rows)
    label = {"nls": "NLS", "kdv": "KdV"}.get(kind, kind)
    head = (f"h_max (mean iterations) / thesis h_max (thesis mean iterations), {label}; "
            f"criterion: {HMAX_CRITERION}{_horizon_clause(rows)}\n\n")
    lines = ["| n | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    lines += [f"| {n} | " + " | ".join(fmt(cell.get((m, n))) for m in methods) + " |" for n in ns]
    lines.append(
        "| slope of log h_max vs log n | "
        + " | ".join("—" if math.isnan(ours[m]) else f"{ours[m]:.2f} / {theirs[m]:.2f}" for m in methods)
        + " |"
    )
    lines.append(
        "\nSlopes are fitted over the n present in each column (ours and the thesis' values at the same n)."
    )

    def at_thesis_h(r: dict[str, Any] | None) -> str:
        if r is None or "thesis_h_passes" not in r:
            return "—"
        passed = str(r["thesis_h_passes"]).lower() in ("true", "1")
        return (f"{float(r['iter_avg_at_thesis_h']):.1f}" if passed else "fails") + its(
            r.get("thesis_iter_avg")
        )

    note = ("Mean iterations over the first 1000 steps at the thesis' h_max: ours (thesis); "
            "\"fails\" = the thesis' h does not pass our criterion.")
    lines += ["", note, "",
              "| n | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    lines += [f"| {n} | " + " | ".join(at_thesis_h(cell.get((m, n))) for m in methods) + " |" for n in ns]
    return head + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m lgbeam.studies.spectral_hmax CASE --n N1,N2,... --methods A,B [--horizon T]
    [--search confirmed|round] [--stage S] [--out DIR]``: ``hmax_study`` with the options ``lgbeam study
    --hmax`` does not expose; writes ``DIR/hmax.csv`` and ``DIR/hmax.md``. Bad input: one line, exit 2."""
    import argparse

    p = argparse.ArgumentParser(description="h_max against grid size (seed 003 Tables 2.3/2.4), with options")
    p.add_argument("case", help="an nls or kdv case (e.g. nls-table)")
    p.add_argument("--n", required=True, help="grid sizes, comma-separated odd integers")
    p.add_argument("--methods", required=True, help="implicit Poisson methods, comma-separated")
    p.add_argument("--horizon", type=float, default=0.0, help="stability checked to this time (0: 1000 steps)")
    p.add_argument("--search", default="confirmed", help="confirmed (default) or round (thesis-like)")
    p.add_argument("--stage", default="fixed-point", help="stage solver (fixed-point, exact, newton, auto)")
    p.add_argument("--out", type=Path, default=Path("outputs/summary/hmax"))
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    quiet, levels = logging.getLogger("lgbeam"), (logging.getLogger("lgbeam").level, logger.level)
    quiet.setLevel(logging.ERROR)  # per-run stable-step and failed-step warnings, for this command only
    logger.setLevel(logging.INFO)  # one progress line per (method, n)
    try:
        return _main(args)
    finally:  # a caller's logging (a test, a notebook) is left as it was
        quiet.setLevel(levels[0])
        logger.setLevel(levels[1])


def _main(args: Any) -> int:
    import sys

    from lgbeam.apps import load_case

    try:
        ns = [int(x) for x in args.n.split(",") if x.strip()]
        case, _ = load_case(args.case, [])
        if case.get("kind") not in ("nls", "kdv"):
            raise ValueError(f"case {args.case!r} is not an nls or kdv case")
        rows = hmax_study(case, ns, [m.strip() for m in args.methods.split(",") if m.strip()], args.out,
                          horizon=args.horizon, stage=args.stage, search=args.search)
    except (ValueError, FileNotFoundError) as exc:
        print(f"spectral_hmax: error: {exc}", file=sys.stderr)
        return 2
    print((args.out / "hmax.md").read_text(encoding="utf-8"))
    print(f"slopes: {hmax_slopes(rows)}")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
