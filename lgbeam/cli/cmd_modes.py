"""``lgbeam modes CASE``: natural frequencies (and static tip deflection) of the linear
Euler–Bernoulli beam that matches a rod case, computed with scikit-fem cubic Hermite elements.

The rod app provides ``lgbeam.apps.rod.linear_beam_data(case) -> dict(length, EI, rhoA,
n_elements, left, right)`` (optionally ``tip_force``, ``distributed``); this command prints
the first N frequencies next to the closed-form values (β_n L)² √(EI/(ρA L⁴)) and writes
``modes.csv`` (columns: mode, omega_rad_s, freq_hz, omega_exact_rad_s, rel_error).
"""

from __future__ import annotations

import argparse
import csv
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.discretisations.fem.euler_bernoulli import EulerBernoulliBeam, n_rigid_modes

logger = logging.getLogger(__name__)

REQUIRED_KEYS = ("length", "EI", "rhoA", "n_elements", "left", "right")


@dataclass(frozen=True)
class ModesReport:
    """What ``lgbeam modes`` prints and writes."""

    beam: EulerBernoulliBeam
    omega: np.ndarray  # (n,) rad/s
    omega_exact: np.ndarray | None  # (n,) closed form, or None
    tip_force: float
    distributed: float
    tip_deflection: float | None  # static tip deflection under the case's loads, or None
    static_note: str = ""  # why there is no static deflection although the case has loads

    @property
    def rows(self) -> list[dict[str, float]]:
        out = []
        for i, w in enumerate(self.omega):
            ex = float(self.omega_exact[i]) if self.omega_exact is not None else float("nan")
            rel = abs(w / ex - 1.0) if self.omega_exact is not None else float("nan")
            out.append({"mode": i + 1, "omega_rad_s": float(w), "freq_hz": float(w / (2 * np.pi)),
                        "omega_exact_rad_s": ex, "rel_error": rel})
        return out


def beam_from_data(data: dict[str, Any], n_elements: int | None = None) -> EulerBernoulliBeam:
    """Build the Hermite beam from ``linear_beam_data`` output; ``n_elements`` overrides the case's."""
    if not isinstance(data, dict):
        raise ValueError(f"linear_beam_data must return a dict with keys {', '.join(REQUIRED_KEYS)}, got {type(data).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise ValueError(f"linear beam data lacks {', '.join(missing)} (needs {', '.join(REQUIRED_KEYS)})")
    ne = int(data["n_elements"]) if n_elements is None else n_elements
    return EulerBernoulliBeam(float(data["length"]), float(data["EI"]), float(data["rhoA"]), ne,
                              left=str(data["left"]), right=str(data["right"]))


def compute_modes(data: dict[str, Any], n: int, n_elements: int | None = None) -> ModesReport:
    """Frequencies of the first ``n`` elastic modes, closed-form values, and the static tip deflection."""
    if n < 1:
        raise ValueError(f"--n must be a positive number of modes, got {n}")
    if n_elements is not None and n_elements < 1:
        raise ValueError(f"--elements must be a positive number of elements, got {n_elements}")
    beam = beam_from_data(data, n_elements)
    res = beam.modes(n)
    tip = float(data.get("tip_force", 0.0) or 0.0)
    dist = float(data.get("distributed", 0.0) or 0.0)
    tip_defl, note = None, ""
    if tip != 0.0 or dist != 0.0:
        if n_rigid_modes(beam.left, beam.right):
            note = f"no static deflection: a {beam.left}–{beam.right} beam moves as a rigid body under load"
        elif tip != 0.0 and beam.right != "free":
            note = f"no static deflection: the tip force acts on the {beam.right} right end (its support carries it)"
        else:
            tip_defl = beam.static(tip_force=tip, distributed=dist).tip
    return ModesReport(beam, res.omega, beam.closed_form_omega(n), tip, dist, tip_defl, note)


def format_report(rep: ModesReport, name: str) -> str:
    """The table printed by ``lgbeam modes``."""
    b = rep.beam
    lines = [
        f"{name}: linear Euler–Bernoulli beam, L={b.length:g}, EI={b.EI:g}, rhoA={b.rhoA:g}, "
        f"{b.left}–{b.right}, {b.n_elements} cubic Hermite elements (scikit-fem)",
        f"{'mode':>4}  {'omega [rad/s]':>15}  {'f [Hz]':>13}  {'closed form':>15}  {'rel. error':>10}",
    ]
    for r in rep.rows:
        ex = f"{r['omega_exact_rad_s']:15.8g}" if np.isfinite(r["omega_exact_rad_s"]) else f"{'-':>15}"
        er = f"{r['rel_error']:10.2e}" if np.isfinite(r["rel_error"]) else f"{'-':>10}"
        lines.append(f"{r['mode']:>4d}  {r['omega_rad_s']:15.8g}  {r['freq_hz']:13.6g}  {ex}  {er}")
    if rep.tip_deflection is not None:
        line = f"static tip deflection (tip force {rep.tip_force:g}, distributed {rep.distributed:g}): {rep.tip_deflection:.8g}"
        if b.left == "clamped" and b.right == "free":
            exact = rep.tip_force * b.length**3 / (3 * b.EI) + rep.distributed * b.length**4 / (8 * b.EI)
            line += f"  (PL³/3EI + qL⁴/8EI = {exact:.8g})"
        lines.append(line)
    elif rep.static_note:
        lines.append(rep.static_note)
    return "\n".join(lines)


def write_csv(rep: ModesReport, path: Path) -> None:
    """Write ``modes.csv`` (one row per mode)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["mode", "omega_rad_s", "freq_hz", "omega_exact_rad_s", "rel_error"])
        writer.writeheader()
        for r in rep.rows:
            writer.writerow({k: (f"{v:.17g}" if isinstance(v, float) else v) for k, v in r.items()})


def load_case(name_or_path: str, overrides: list[str]) -> tuple[dict[str, Any], Path]:
    """``lgbeam.apps.load_case`` (imported lazily so that ``lgbeam --help`` stays light)."""
    from lgbeam.apps import load_case as _load

    return _load(name_or_path, overrides)


def linear_beam_data(case: dict[str, Any]) -> dict[str, Any]:
    """``lgbeam.apps.rod.linear_beam_data`` (the rod app's linearisation of a rod case)."""
    try:
        from lgbeam.apps.rod import linear_beam_data as _data
    except ImportError as exc:
        raise ValueError(f"lgbeam modes needs lgbeam.apps.rod.linear_beam_data, which is not available ({exc})") from exc
    return _data(case)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "modes",
        help="natural frequencies of the linear Euler–Bernoulli beam matching a rod case (writes modes.csv)",
        description="Print the first N natural frequencies of the linear Euler–Bernoulli beam with the "
        "rod case's length, EI, rhoA and supports (scikit-fem cubic Hermite elements) next to the "
        "closed-form values, and the static tip deflection under the case's tip load; write modes.csv.",
        epilog="example: lgbeam modes cantilever --n 6 --elements 64",
    )
    p.add_argument("case", metavar="CASE", help="rod case name (see `lgbeam list`) or path to a .toml file")
    p.add_argument("--n", type=int, default=6, help="number of modes (default 6)")
    p.add_argument("--elements", type=int, default=None, metavar="NE",
                   help="number of beam elements (default: the case's n_elements)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a case key, e.g. --set rod.EI=100 (repeatable; TOML literal)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="folder for modes.csv (default: outputs/<case name>)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    case, source = load_case(args.case, list(args.overrides))
    if case.get("kind") != "rod":
        raise ValueError(f"lgbeam modes works on rod cases; {source} has kind {case.get('kind')!r}")
    rep = compute_modes(linear_beam_data(case), args.n, args.elements)
    name = str(case.get("name") or Path(str(source)).stem)
    print(format_report(rep, name))
    out = (args.out if args.out is not None else Path("outputs") / name) / "modes.csv"
    write_csv(rep, out)
    print(f"wrote {out}")
    return 0
