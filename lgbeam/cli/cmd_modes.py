"""``lgbeam modes CASE``: modes and linear buckling of the rod of a rod case, or of the structure of a frame case
(its geometry, supports, joints, material; about the reference or the loaded static state), computed by
``lgbeam.discretisations.rods.modal`` with the exact tangent (``_rod_modes.py``, ``_frame_modes.py``: modes.csv
and paraview/modes.pvd). ``--euler-bernoulli`` keeps the
straight linear Euler–Bernoulli beam with the case's length, EI, rhoA and end supports (scikit-fem cubic
Hermite elements, closed-form (β_n L)² √(EI/(ρA L⁴)), static tip deflection) as a check: the rod app provides
``lgbeam.apps.rod.linear_beam_data(case)``; that mode writes ``modes.csv`` (mode, omega_rad_s, freq_hz,
omega_exact_rad_s, rel_error).
"""

from __future__ import annotations

import argparse
import csv
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from lgbeam.io.atomic import atomic_write

if TYPE_CHECKING:  # scikit-fem is imported by the functions that build the beam, not by `lgbeam --help`
    from lgbeam.discretisations.fem.euler_bernoulli import EulerBernoulliBeam

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
    from lgbeam.discretisations.fem.euler_bernoulli import EulerBernoulliBeam

    if not isinstance(data, dict):
        raise ValueError(f"linear_beam_data must return a dict with keys {', '.join(REQUIRED_KEYS)}, got {type(data).__name__}")  # noqa: TRY004 - a user error: the CLI maps ValueError to exit 2
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise ValueError(f"linear beam data lacks {', '.join(missing)} (needs {', '.join(REQUIRED_KEYS)})")
    ne = int(data["n_elements"]) if n_elements is None else n_elements
    return EulerBernoulliBeam(float(data["length"]), float(data["EI"]), float(data["rhoA"]), ne,
                              left=str(data["left"]), right=str(data["right"]))


def compute_modes(data: dict[str, Any], n: int, n_elements: int | None = None) -> ModesReport:
    """Frequencies of the first ``n`` elastic modes, closed-form values, and the static tip deflection."""
    from lgbeam.discretisations.fem.euler_bernoulli import n_rigid_modes

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
        (f"{name}: linear Euler–Bernoulli beam, L={b.length:g}, EI={b.EI:g}, rhoA={b.rhoA:g}, "
        f"{b.left}–{b.right}, {b.n_elements} cubic Hermite elements (scikit-fem)"),
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
    with atomic_write(path, "w", newline="") as fh:
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


def default_out(name: str, case: dict[str, Any], buckling: bool, about: str) -> Path:
    """outputs/<case>/<analysis>[-<load case>]: modes, modes-static or buckling, so that none overwrites another."""
    what = "buckling" if buckling else "modes-static" if about == "static" else "modes"
    sel = (case.get("analysis") or {}).get("load_case")
    if sel:
        what += "-" + "".join(c if c.isalnum() or c in "-_." else "_" for c in str(sel))
    return Path("outputs") / name / what


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "modes",
        help="modes and buckling of a rod or frame case (writes modes.csv and a ParaView series of the shapes)",
        description="Natural frequencies of the rod of a rod case or the structure of a frame case (its geometry, "
        "supports, joints and material), about the "
        "stress-free reference or about the loaded static state (--about static: pre-stress), or its linear "
        "buckling load factors (--buckling); mode shapes as a ParaView series. --euler-bernoulli gives the "
        "straight Euler–Bernoulli beam with the case's length, EI, rhoA and end supports (scikit-fem) as a check.",
        epilog="examples: lgbeam modes roll-up --n 6;  lgbeam modes prestressed-beam --about static;  "
        "lgbeam modes column-pinned-roller --buckling --n 2;  lgbeam modes portal-frame --buckling;  "
        "lgbeam modes cantilever-elastica --euler-bernoulli",
    )
    p.add_argument("case", metavar="CASE", help="rod or frame case name (see `lgbeam list`) or path to a .toml file")
    p.add_argument("--n", type=int, default=6, help="number of modes (default 6)")
    p.add_argument("--about", choices=("reference", "static"), default="reference",
                   help="linearise about the reference (default) or the static state under the case's loads "
                   "(its analysis.* settings)")
    p.add_argument("--buckling", action="store_true", help="linear buckling load factors of the case's loads (with "
                   "--about static: the modes of the loaded state first, then the buckling factors, each in its folder)")
    p.add_argument("--euler-bernoulli", action="store_true",
                   help="rod cases: the straight Euler–Bernoulli beam check instead of the rod (scikit-fem, closed form)")
    p.add_argument("--elements", type=int, default=None, metavar="NE",
                   help="--euler-bernoulli: number of beam elements (default: the case's n_elements)")
    p.add_argument("--amplitude", type=float, default=0.05, metavar="A",
                   help="largest displacement of the written mode shapes, as a fraction of the rod length (of a "
                   "frame: of its size) (default 0.05)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a case key, e.g. --set model.n_elements=64 (repeatable; TOML literal)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="folder for modes.csv and paraview/ (default: outputs/<case name>/modes, …/modes-static or "
                   "…/buckling, with -<load case> when analysis.load_case is set)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    case, source = load_case(args.case, list(args.overrides))
    kind = case.get("kind")
    if kind not in ("rod", "frame"):
        raise ValueError(f"lgbeam modes works on rod and frame cases; {source} has kind {kind!r}")
    name = str(case.get("name") or Path(str(source)).stem)
    if kind == "frame" and (args.euler_bernoulli or args.elements is not None):
        raise ValueError("--euler-bernoulli and --elements are for rod cases (one straight beam); a frame's modes "
                         "use its rods and joints: refine with --set model.n_elements=N")
    if args.euler_bernoulli:
        rep = compute_modes(linear_beam_data(case), args.n, args.elements)
        print(format_report(rep, name))
        out = (args.out if args.out is not None else Path("outputs") / name) / "modes.csv"
        write_csv(rep, out)
        print(f"wrote {out}")
        return 0
    if args.elements is not None:
        raise ValueError("--elements is for --euler-bernoulli; refine the rod with --set model.n_elements=N")
    if not (np.isfinite(args.amplitude) and args.amplitude > 0.0):
        raise ValueError(f"--amplitude must be a positive fraction of the rod length, got {args.amplitude}")
    if args.n < 1:
        raise ValueError(f"--n must be a positive number of modes, got {args.n}")
    if kind == "frame":
        from lgbeam.cli._frame_modes import frame_modes_report as report
    else:
        from lgbeam.cli._rod_modes import rod_modes_report as report
    # --about static with --buckling: the modes of the loaded state, then the linear buckling factors (about the
    # reference, as linear buckling is); each in its own folder (under --out: modes-static/ and buckling/)
    jobs = [(False, "static"), (True, "reference")] if args.buckling and args.about == "static" else \
        [(args.buckling, args.about)]
    for buckling, about in jobs:
        out = default_out(name, case, buckling, about)
        if args.out is not None:
            out = args.out if len(jobs) == 1 else args.out / out.name
        print(report(case, name, n=args.n, about=about, buckling=buckling, out=out, amplitude=args.amplitude))
    return 0
