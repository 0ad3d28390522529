"""Response spectra and modal combination (response-spectrum analysis, ``lgbeam spectrum``; docs/dynamics.md).

A spectrum is a function Sa(T) [m/s²] of the period T [s]: a two-column table (linear interpolation, periods
outside the table refused), or the Eurocode 8 horizontal design spectrum (EN 1998-1:2004 §3.2.2.5, eqs.
(3.13)–(3.16)) with the recommended soil factors and corner periods of Tables 3.2 (type 1) and 3.3 (type 2):

    0 ≤ T ≤ T_B:    S_d = a_g S [2/3 + T/T_B (2.5/q − 2/3)]
    T_B ≤ T ≤ T_C:  S_d = a_g S 2.5/q
    T_C ≤ T ≤ T_D:  S_d = max(a_g S 2.5/q · T_C/T, β a_g)
    T_D ≤ T:        S_d = max(a_g S 2.5/q · T_C T_D/T², β a_g)

Modal combination of peak modal responses R_k (signed): SRSS R = √(Σ R_k²); CQC R = √(Σ_i Σ_j ρ_ij R_i R_j)
with Der Kiureghian's (1981) correlation coefficient for equal modal damping ratios ζ, r = ω_j/ω_i:

    ρ_ij = 8 ζ² (1 + r) r^{3/2} / ((1 − r²)² + 4 ζ² r (1 + r)²)

(Chopra, Dynamics of Structures, §13.7; ρ_ii = 1, ρ_ij → 0 for well-separated modes: CQC → SRSS).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lgbeam._typing import FloatArray

G_STANDARD = 9.80665  # m/s², a_g is given in units of g

# EN 1998-1 Table 3.2 (type 1) and 3.3 (type 2): ground type -> (S, T_B, T_C, T_D)
EC8_TABLE: dict[int, dict[str, tuple[float, float, float, float]]] = {
    1: {"A": (1.0, 0.15, 0.4, 2.0), "B": (1.2, 0.15, 0.5, 2.0), "C": (1.15, 0.20, 0.6, 2.0),
        "D": (1.35, 0.20, 0.8, 2.0), "E": (1.4, 0.15, 0.5, 2.0)},
    2: {"A": (1.0, 0.05, 0.25, 1.2), "B": (1.35, 0.05, 0.25, 1.2), "C": (1.5, 0.10, 0.25, 1.2),
        "D": (1.8, 0.10, 0.30, 1.2), "E": (1.6, 0.05, 0.25, 1.2)},
}
EC8_KEYS = ("type", "ground", "ag", "q", "beta")


@dataclass(frozen=True)
class Spectrum:
    """Sa(T) [m/s²] on periods [t_min, t_max] (s); ``label`` says where it comes from."""

    sa: Callable[[FloatArray], FloatArray]
    t_min: float
    t_max: float
    label: str

    def __call__(self, periods: FloatArray, what: str = "period") -> FloatArray:
        """Sa at the periods; ValueError naming the first period outside [t_min, t_max]."""
        T = np.atleast_1d(np.asarray(periods, dtype=float))
        bad = np.flatnonzero(~((T >= self.t_min * (1 - 1e-12)) & (T <= self.t_max * (1 + 1e-12))))
        if bad.size:
            k = int(bad[0])
            raise ValueError(f"{what} {k + 1}: T = {T[k]:.6g} s lies outside the spectrum's periods "
                             f"[{self.t_min:g}, {self.t_max:g}] s ({self.label}); extend the table or use fewer modes (--n)")
        return np.asarray(self.sa(np.clip(T, self.t_min, self.t_max)), dtype=float)


def ec8_design(T: FloatArray, *, ag: float, S: float, TB: float, TC: float, TD: float, q: float,
               beta: float = 0.2) -> FloatArray:
    """EN 1998-1 eqs. (3.13)–(3.16): the horizontal design spectrum S_d(T) (units of a_g)."""
    T = np.asarray(T, dtype=float)
    plateau = ag * S * 2.5 / q
    Tl = np.maximum(T, TC)  # the descending branches are used for T > T_C only (no division by 0 elsewhere)
    return np.select(
        [T <= TB, T <= TC, T <= TD],
        [ag * S * (2.0 / 3.0 + T / TB * (2.5 / q - 2.0 / 3.0)), np.full_like(T, plateau),
         np.maximum(plateau * TC / Tl, beta * ag)],
        np.maximum(plateau * TC * TD / Tl**2, beta * ag))


def _ec8(text: str) -> Spectrum:
    """``ec8:type=1,ground=B,ag=0.25,q=1.5[,beta=0.2]`` (a_g in g)."""
    body = text.split(":", 1)[1]
    kv: dict[str, str] = {}
    for item in filter(None, (s.strip() for s in body.split(","))):
        if "=" not in item:
            raise ValueError(f"--spectrum ec8: {item!r} is not key=value; e.g. ec8:type=1,ground=B,ag=0.25,q=1.5")
        k, v = (s.strip() for s in item.split("=", 1))
        if k not in EC8_KEYS:
            raise ValueError(f"--spectrum ec8: unknown key {k!r}; the keys are {', '.join(EC8_KEYS)}")
        kv[k] = v
    if "ag" not in kv:
        raise ValueError("--spectrum ec8 needs ag (design ground acceleration on ground A, in g), e.g. ec8:ag=0.25")
    try:
        typ, ground = int(kv.get("type", "1")), kv.get("ground", "B").upper()
        ag, q, beta = float(kv["ag"]), float(kv.get("q", "1.5")), float(kv.get("beta", "0.2"))
    except ValueError:
        raise ValueError(f"--spectrum ec8: a value is not a number in {body!r}") from None
    if typ not in EC8_TABLE:
        raise ValueError(f"--spectrum ec8: type must be 1 or 2, got {typ}")
    if ground not in EC8_TABLE[typ]:
        raise ValueError(f"--spectrum ec8: ground must be one of A, B, C, D, E, got {kv.get('ground')!r}")
    for name, val, lo in (("ag", ag, 0.0), ("q", q, 1.0), ("beta", beta, 0.0)):
        if not (np.isfinite(val) and val >= lo) or (name == "ag" and val == 0.0):
            raise ValueError(f"--spectrum ec8: {name} = {val:g} must be {'positive' if name == 'ag' else f'>= {lo:g}'}")
    S, TB, TC, TD = EC8_TABLE[typ][ground]
    a = ag * G_STANDARD

    def sa(T: FloatArray) -> FloatArray:
        return ec8_design(T, ag=a, S=S, TB=TB, TC=TC, TD=TD, q=q, beta=beta)

    return Spectrum(sa, 0.0, np.inf, f"EC8 type {typ}, ground {ground}, ag = {ag:g} g, q = {q:g}, beta = {beta:g}")


def _rows(path: Path) -> FloatArray:
    """The numeric rows of a two-column text file (comma, semicolon or blank separated; header lines skipped)."""
    rows: list[list[float]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        s = line.split("#", 1)[0].strip()
        if not s:
            continue
        parts = [p for p in re.split(r"[,;\s]+", s) if p]
        try:
            vals = [float(p) for p in parts]
        except ValueError:
            if rows:
                raise ValueError(f"{path}:{n}: {line.strip()!r} is not two numbers T, Sa") from None
            continue  # a header line before the numbers
        if len(vals) != 2:
            raise ValueError(f"{path}:{n}: expected two columns T [s], Sa [m/s²], got {len(vals)}")
        rows.append(vals)
    if len(rows) < 2:
        raise ValueError(f"{path}: a spectrum table needs at least two rows T [s], Sa [m/s²]")
    return np.array(rows)


def table(path: Path) -> Spectrum:
    """A tabulated spectrum: columns T [s] (strictly increasing, ≥ 0), Sa [m/s²] (≥ 0, finite)."""
    a = _rows(path)
    T, sa = a[:, 0], a[:, 1]
    if not np.all(np.isfinite(a)) or T[0] < 0 or np.any(np.diff(T) <= 0):
        raise ValueError(f"{path}: the periods must be finite, non-negative and strictly increasing")
    if np.any(sa < 0):
        raise ValueError(f"{path}: the spectral accelerations must be non-negative (m/s²)")
    return Spectrum(lambda t: np.interp(t, T, sa), float(T[0]), float(T[-1]), f"table {path.name}")


def parse(text: str, base: Path | None = None) -> Spectrum:
    """``ec8:...`` or the path of a table (relative to ``base`` when not found as given)."""
    if text.lower().startswith("ec8:") or text.lower() == "ec8":
        return _ec8(text if ":" in text else "ec8:")
    p = Path(text)
    if not p.is_file() and base is not None and (base / p).is_file():
        p = base / p
    if not p.is_file():
        raise ValueError(f"--spectrum {text!r}: no such file (give a table T [s], Sa [m/s²] or ec8:type=1,ground=B,"
                         "ag=0.25,q=1.5)")
    return table(p)


def cqc_correlation(omega: FloatArray, zeta: float) -> FloatArray:
    """Der Kiureghian's ρ_ij (module docstring) for modal frequencies ω (rad/s) and one damping ratio ζ."""
    w = np.asarray(omega, dtype=float)
    r = w[None, :] / w[:, None]
    z2 = zeta * zeta
    rho = 8.0 * z2 * (1.0 + r) * r**1.5 / ((1.0 - r * r) ** 2 + 4.0 * z2 * r * (1.0 + r) ** 2)
    np.fill_diagonal(rho, 1.0)
    return rho


def combine(R: FloatArray, omega: FloatArray, method: str, zeta: float = 0.05) -> FloatArray:
    """Combined peak of modal responses R (n_modes, ...) (signed): SRSS or CQC (module docstring)."""
    R = np.asarray(R, dtype=float)
    if method == "srss":
        return np.sqrt(np.sum(R * R, axis=0))
    if method != "cqc":
        raise ValueError(f"combination must be srss or cqc, got {method!r}")
    rho = cqc_correlation(omega, zeta)
    flat = R.reshape(R.shape[0], -1)
    return np.sqrt(np.maximum(np.einsum("i...,ij,j...->...", flat, rho, flat), 0.0)).reshape(R.shape[1:])
