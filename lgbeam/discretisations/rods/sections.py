"""Cross-sections and steel grades for frame members: section properties (A, I_y, I_z, I_t, shear areas) of
standard European shapes and of shapes given by their dimensions, and the rod's sectional data from them.

Axes (docs/frames.md "Members"): x along the member, z in the plane of x and the member's ``orientation`` (an
I-section's web), y = z × x (its flanges); I_y is the second moment about y (the strong axis of an I-section as in
the tables), I_z about z. The rod's directors are d₁ = y, d₂ = z, d₃ = x, so EI = (E I_y, E I_z), GA = (G A_vy,
G A_vz), ρJ = (ρ I_y, ρ I_z, ρ(I_y + I_z)) (``Material.from_sectional``).

Shapes, all in closed form (exact for the idealised geometry):

* ``i_section(h, b, tw, tf, r)`` — a doubly symmetric I or H with root fillets of radius r (the tables' model):
  A = 2b t_f + (h − 2t_f) t_w + (4 − π) r²; I_y, I_z: the three rectangles plus the four fillet spandrels
  (area (1 − π/4) r², first and second moments about their corner r³(5/6 − π/4), r⁴(1 − 5π/16));
  I_t: the formula of the European (ArcelorMittal) tables, after El Darwish & Johnston (1965): 2/3 (b − 0.63 t_f)
  t_f³ + 1/3 (h − 2t_f) t_w³ + 2 (t_w/t_f)(0.145 + 0.1 r/t_f) D⁴ with D = ((t_f + r)² + t_w (r + t_w/4))/(2r + t_f)
  (the inscribed circle of a flange–web junction); A_vz = A − 2b t_f + (t_w + 2r) t_f (EN 1993-1-1
  §6.2.6(3)a), A_vy = A − (h − 2t_f) t_w.
* ``rectangle(b, h)`` (b along y, h along z; I_t: Roark Table 10.7), ``circle(d)``, ``tube(d, t)`` (CHS:
  A_v = 2A/π, EN 1993-1-1 §6.2.6(3)g), ``box(h, b, t)`` (RHS/SHS with EN 10219-2 corner radii: outer
  r_o = 2t (t ≤ 6 mm), 2.5t (t ≤ 10 mm), 3t, inner r_i = r_o − t; I_t = t³ h_m/3 + 2K A_m, EN 10219-2 Annex B).
* ``channel(h, b, tw, tf, r1, r2, slope, tf_at)`` — a channel (UPN, DIN 1026-1) whose flanges' inner faces slope by
  ``slope``, t_f being their thickness at the distance ``tf_at`` from the web's back (UPN: 8 % and b/2 for h ≤ 300 mm,
  5 % and (b + t_w)/2 above), root fillets r1, toe fillets r2. Drawn with the web's back on y = 0 and the flanges
  toward +y (``channel_outline``). A, I_y, I_z and the centroid y_c (``Section.centroid``: from the web's back) are
  exact for this outline (``polygon_sections``: a polygon with circular-arc corners, in closed form). With t_m the
  flanges' mean thickness over their outstand, b' = b − t_w/2 and h' = h − t_m (centre lines): the shear centre by
  thin-walled theory, e = 3b'²t_m/(6b't_m + h't_w) behind the web's mid-plane (``Section.shear_centre``, from the
  centroid: t_w/2 − e − y_c; derivation in docs/frames.md); I_t = 1.12 (2b t_m³ + (h − 2t_m) t_w³)/3, the thin-walled
  Σ b t³/3 of the three plates with Föppl's factor 1.12 for rolled channels (the fillets and junctions); A_vz = A − 2b t_f
  + (t_w + r1) t_f (EN 1993-1-1 §6.2.6(3)b), A_vy = A − (h − 2t_f) t_w. Against finite elements on the same outline
  (``sectionproperties``, UPN 50 … 400): A, I_y, I_z, y_c to 1e-4; I_t within 5 % (−4.7 … +2.6 %); the thin-walled
  shear centre 6–14 % farther from the centroid than the elastic one (9.3 % for UPN 200: −42.3 mm against −38.7 mm). The rod puts
  the shear centre at the centroid (``Section.note``, ``CHANNEL_NOTE``): a load along z (parallel to the web) through
  the centroid of a channel also twists it in reality, which the rod does not model; channels suit axial members,
  bracing, loads along y, and strong-axis bending with the load through the shear centre or the twist prevented.

Library names (``library``, dimensions in mm): ``IPE300`` / ``IPE 300``, ``HEA``/``HEB``/``HEM`` + height
class (dimensions from data/steel_sections.csv, the tables of the structuralcodes package, Euronorm 19-57 and
53-62), ``UPN50`` … ``UPN400`` / ``UPN 200`` (data/steel_channels.csv, the same source, DIN 1026-1),
``CHS 168.3x6.3``, ``RHS 200x100x6.3`` (h × b × t), ``SHS 100x5``. Grades (``GRADES``): S235, S275, S355 with
E = 210 GPa, G = 81 GPa (EN 1993-1-1 §3.2.6) and ρ = 7850 kg/m³ (EN 1991-1-1 Table A.4).
Checked against the ArcelorMittal/EN 10365 tables (tests/test_frame_members.py: IPE 300, HEB 200, … to their
printed digits) and against ``sectionproperties`` (finite elements on the same geometry) when it is installed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam._tables import check_keys
from lgbeam._typing import FloatArray
from lgbeam.discretisations.rods import polygon_sections

DATA = Path(__file__).with_name("data") / "steel_sections.csv"
DATA_CHANNELS = DATA.with_name("steel_channels.csv")


@dataclass(frozen=True)
class Section:
    """Section properties in SI units (m², m⁴) about the centroidal axes y (I_y) and z (I_z); ``centroid``: its (y, z)
    in the shape's own drawing (a channel: from the web's back at mid-height; otherwise the centre of symmetry),
    ``shear_centre``: the shear centre's (y, z) from the centroid (m), ``note``: what the rod does not model."""

    name: str
    A: float
    Iy: float
    Iz: float
    It: float
    Avy: float
    Avz: float
    centroid: tuple[float, float] = (0.0, 0.0)
    shear_centre: tuple[float, float] = (0.0, 0.0)
    note: str = ""

    def __post_init__(self) -> None:
        for k in ("A", "Iy", "Iz", "It", "Avy", "Avz"):
            v = getattr(self, k)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0.0):
                raise ValueError(f"section {self.name!r}: {k} must be a positive number, got {v!r}")


@dataclass(frozen=True)
class Grade:
    """An elastic material: Young's modulus E, shear modulus G (Pa), density ρ (kg/m³), yield strength f_y (Pa)."""

    name: str
    E: float
    G: float
    rho: float
    fy: float = float("nan")


CHANNEL_NOTE = ("a channel's shear centre lies behind its web, off the centroid: a load along z (parallel to the web) "
                "through the centroid also twists it, which the rod (shear centre at the centroid) does not model")

GRADES = {g.name: g for g in (Grade("S235", 210e9, 81e9, 7850.0, 235e6), Grade("S275", 210e9, 81e9, 7850.0, 275e6),
                              Grade("S355", 210e9, 81e9, 7850.0, 355e6))}


def _spandrel(r: float) -> tuple[float, float, float]:
    """Area, first and second moment about one edge line through its corner of the spandrel between an r × r
    square and the quarter disc of radius r centred at the opposite corner."""
    return r * r * (1.0 - math.pi / 4.0), r**3 * (5.0 / 6.0 - math.pi / 4.0), r**4 * (1.0 - 5.0 * math.pi / 16.0)


def _positive(name: str, **dims: float) -> None:
    for k, v in dims.items():
        if not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0.0):
            raise ValueError(f"section {name!r}: {k} must be a positive number, got {v!r}")


def i_section(h: float, b: float, tw: float, tf: float, r: float = 0.0, name: str = "I") -> Section:
    """A doubly symmetric I/H section with root fillets (module docstring); lengths in metres."""
    _positive(name, h=h, b=b, tw=tw, tf=tf)
    if r < 0.0 or 2.0 * tf >= h or tw >= b or tw + 2.0 * r > b or 2.0 * (tf + r) > h:
        raise ValueError(f"section {name!r}: inconsistent dimensions h={h}, b={b}, tw={tw}, tf={tf}, r={r}")
    As, S, Iu = _spandrel(r)
    d = h - 2.0 * tf
    A = 2.0 * b * tf + d * tw + 4.0 * As
    z0, y0 = h / 2.0 - tf, tw / 2.0
    Iy = (b * h**3 - (b - tw) * d**3) / 12.0 + 4.0 * (z0 * z0 * As - 2.0 * z0 * S + Iu)
    Iz = (2.0 * tf * b**3 + d * tw**3) / 12.0 + 4.0 * (y0 * y0 * As + 2.0 * y0 * S + Iu)
    It = 2.0 / 3.0 * (b - 0.63 * tf) * tf**3 + d * tw**3 / 3.0  # flanges (with their free-end loss) and web
    if r > 0.0:  # the two flange–web junctions with their fillets (the tables' formula, module docstring)
        D = ((tf + r) ** 2 + tw * (r + tw / 4.0)) / (2.0 * r + tf)
        It += 2.0 * (tw / tf) * (0.145 + 0.1 * r / tf) * D**4
    return Section(name, A, Iy, Iz, It, Avy=A - d * tw, Avz=A - 2.0 * b * tf + (tw + 2.0 * r) * tf)


def channel_outline(h: float, b: float, tw: float, tf: float, r1: float = 0.0, r2: float = 0.0, slope: float = 0.0,
                    tf_at: float | None = None) -> tuple[FloatArray, FloatArray]:
    """The channel's outline (counter-clockwise vertices in y–z, the web's back on y = 0, flanges toward +y, z = 0 at
    mid-height) and its corner radii: toe fillets r2, root fillets r1; the flanges' inner faces slope by ``slope``,
    the flange thickness being tf at the distance ``tf_at`` from the web's back (default b/2)."""
    at = b / 2.0 if tf_at is None else tf_at
    t_toe, t_root = tf - slope * (b - at), tf + slope * (at - tw)
    yz = np.array([(0.0, -h / 2), (b, -h / 2), (b, -h / 2 + t_toe), (tw, -h / 2 + t_root), (tw, h / 2 - t_root),
                   (b, h / 2 - t_toe), (b, h / 2), (0.0, h / 2)])
    return yz, np.array([0.0, 0.0, r2, r1, r1, r2, 0.0, 0.0])


def channel(h: float, b: float, tw: float, tf: float, r1: float = 0.0, r2: float = 0.0, slope: float = 0.0,
            tf_at: float | None = None, name: str = "channel") -> Section:
    """A channel (UPN) with tapered flanges and root/toe fillets (module docstring); lengths in metres."""
    _positive(name, h=h, b=b, tw=tw, tf=tf)
    at = b / 2.0 if tf_at is None else tf_at
    t_toe, t_root = tf - slope * (b - at), tf + slope * (at - tw)
    if (min(r1, r2, slope) < 0.0 or not 0.0 <= at <= b or tw >= b or t_toe <= 0.0 or 2.0 * t_root >= h
            or r1 + r2 > b - tw or 2.0 * (t_root + r1) > h):
        raise ValueError(f"section {name!r}: inconsistent dimensions h={h}, b={b}, tw={tw}, tf={tf}, r1={r1}, "
                         f"r2={r2}, slope={slope}, tf_at={tf_at}")
    A, yc, _, Iy, Iz, _ = polygon_sections.centroidal(*channel_outline(h, b, tw, tf, r1, r2, slope, at))
    tm = tf - slope * (b + tw - 2.0 * at) / 2.0  # the flanges' mean thickness over their outstand b − t_w
    hw, bw = h - tm, b - tw / 2.0  # centre-line web height and flange width
    e = 3.0 * bw * bw * tm / (6.0 * bw * tm + hw * tw)  # shear centre behind the web's mid-plane (thin-walled)
    It = 1.12 * (2.0 * b * tm**3 + (h - 2.0 * tm) * tw**3) / 3.0  # Föppl's factor for rolled channels
    return Section(name, A, Iy, Iz, It, Avy=A - (h - 2.0 * tf) * tw, Avz=A - 2.0 * b * tf + (tw + r1) * tf,
                   centroid=(yc, 0.0), shear_centre=(tw / 2.0 - e - yc, 0.0), note=CHANNEL_NOTE)


def rectangle(b: float, h: float, name: str = "rectangle") -> Section:
    """A solid rectangle, width b along y, height h along z; shear areas 5A/6."""
    _positive(name, b=b, h=h)
    a, c = max(b, h), min(b, h)
    It = a * c**3 * (1.0 / 3.0 - 0.21 * c / a * (1.0 - c**4 / (12.0 * a**4)))  # Roark, Table 10.7
    A = b * h
    return Section(name, A, b * h**3 / 12.0, h * b**3 / 12.0, It, 5.0 / 6.0 * A, 5.0 / 6.0 * A)


def circle(d: float, name: str = "circle") -> Section:
    """A solid circle of diameter d; shear areas 6A/7 (Cowper)."""
    _positive(name, d=d)
    A, Ic = math.pi * d * d / 4.0, math.pi * d**4 / 64.0
    return Section(name, A, Ic, Ic, 2.0 * Ic, 6.0 / 7.0 * A, 6.0 / 7.0 * A)


def tube(d: float, t: float, name: str = "tube") -> Section:
    """A circular hollow section (CHS) of outer diameter d and wall t; A_v = 2A/π."""
    _positive(name, d=d, t=t)
    if 2.0 * t >= d:
        raise ValueError(f"section {name!r}: the wall t = {t} must be less than half the diameter d = {d}")
    di = d - 2.0 * t
    A, Ic = math.pi * (d * d - di * di) / 4.0, math.pi * (d**4 - di**4) / 64.0
    return Section(name, A, Ic, Ic, 2.0 * Ic, 2.0 * A / math.pi, 2.0 * A / math.pi)


def en10219_radii(t: float) -> tuple[float, float]:
    """Outer and inner corner radii of a cold-formed hollow section (EN 10219-2, for t in metres)."""
    ro = (2.0 if t <= 6e-3 + 1e-12 else 2.5 if t <= 10e-3 + 1e-12 else 3.0) * t
    return ro, ro - t


def box(h: float, b: float, t: float, ro: float | None = None, ri: float | None = None, name: str = "box") -> Section:
    """A rectangular hollow section, height h along z, width b along y, wall t, corner radii (default EN 10219)."""
    _positive(name, h=h, b=b, t=t)
    if 2.0 * t >= min(b, h):
        raise ValueError(f"section {name!r}: the wall t = {t} must be less than half of b = {b} and h = {h}")
    r_o, r_i = en10219_radii(t) if ro is None else (ro, ri if ri is not None else max(ro - t, 0.0))
    if r_o < 0.0 or r_i < 0.0 or r_o > min(b, h) / 2.0:
        raise ValueError(f"section {name!r}: corner radii ro = {r_o}, ri = {r_i} do not fit b = {b}, h = {h}")
    Ao, So, Io = _spandrel(r_o)
    Ai, Si, Ii = _spandrel(r_i)
    bi, hi = b - 2.0 * t, h - 2.0 * t

    def second(B: float, H: float, Bi: float, Hi: float) -> float:  # about the axis parallel to B
        outer = B * H**3 / 12.0 - 4.0 * ((H / 2) ** 2 * Ao - H * So + Io)
        inner = Bi * Hi**3 / 12.0 - 4.0 * ((Hi / 2) ** 2 * Ai - Hi * Si + Ii)
        return outer - inner

    A = b * h - 4.0 * Ao - (bi * hi - 4.0 * Ai)
    rc = 0.5 * (r_o + r_i)
    hm = 2.0 * ((b - t) + (h - t)) - 2.0 * rc * (4.0 - math.pi)
    Am = (b - t) * (h - t) - rc * rc * (4.0 - math.pi)
    It = t**3 * hm / 3.0 + 2.0 * (2.0 * Am * t / hm) * Am
    return Section(name, A, second(b, h, bi, hi), second(h, b, hi, bi), It, A * b / (b + h), A * h / (b + h))


def _read(path: Path) -> dict[str, tuple[float, ...]]:
    out = {}
    for line in path.read_text().splitlines():
        if line.startswith(("#", "name,")) or not line.strip():
            continue
        name, *vals = line.split(",")
        out[name] = tuple(float(v) for v in vals)
    return out


@cache
def _table() -> dict[str, tuple[float, ...]]:
    return _read(DATA)


@cache
def _channels() -> dict[str, tuple[float, ...]]:
    return _read(DATA_CHANNELS)


_HOLLOW = re.compile(r"^(CHS|RHS|SHS)\s*([0-9.]+(?:\s*[xX×]\s*[0-9.]+)*)$")


def library_names() -> list[str]:
    """The rolled shapes of the table (the hollow sections are named by their dimensions)."""
    return list(_table()) + list(_channels())


def dimensions(name: str) -> tuple[float, ...]:
    """The table row of a rolled shape, mm: I/H (h, b, tw, tf, r), UPN (h, b, tw, tf, r1, r2, slope, tf_at)."""
    key = re.sub(r"\s+", "", str(name)).upper()
    row = _table().get(key) or _channels().get(key)
    if row is None:
        raise ValueError(f"unknown rolled shape {name!r}; one of {', '.join(library_names())}")
    return row


def library(name: str) -> Section:
    """A library section by name (module docstring); ValueError naming the families otherwise."""
    key = re.sub(r"\s+", "", str(name)).upper()
    if key in _table():
        h, b, tw, tf, r = (v * 1e-3 for v in _table()[key])
        return i_section(h, b, tw, tf, r, name=key)
    if key in _channels():
        h, b, tw, tf, r1, r2, slope, at = _channels()[key]
        mm = 1e-3
        return channel(h * mm, b * mm, tw * mm, tf * mm, r1 * mm, r2 * mm, slope=slope, tf_at=at * mm, name=key)
    m = _HOLLOW.match(str(name).strip().upper())
    if m:
        dims = [float(v) * 1e-3 for v in re.split(r"\s*[xX×]\s*", m.group(2))]
        kind, n = m.group(1), len(dims)
        if kind == "CHS" and n == 2:
            return tube(dims[0], dims[1], name=str(name))
        if kind == "RHS" and n == 3:
            return box(dims[0], dims[1], dims[2], name=str(name))
        if kind == "SHS" and n == 2:
            return box(dims[0], dims[0], dims[1], name=str(name))
        raise ValueError(f"section {name!r}: give CHS DxT, RHS HxBxT or SHS BxT in mm, e.g. 'RHS 200x100x6.3'")
    fam = sorted({re.match(r"[A-Z]+", k).group(0) for k in library_names()})  # type: ignore[union-attr]
    raise ValueError(f"unknown section {name!r}; use a rolled shape ({', '.join(fam)} + size, e.g. 'IPE300', "
                     "'HEB200', 'UPN200'), 'CHS 168.3x6.3', 'RHS 200x100x6.3', 'SHS 100x5', or a table of dimensions or "
                     "properties (docs/frames.md)")


SHAPE_KEYS = {"I": ("h", "b", "tw", "tf", "r"), "rectangle": ("b", "h"), "circle": ("d",), "tube": ("d", "t"),
              "box": ("h", "b", "t", "ro", "ri"), "channel": ("h", "b", "tw", "tf", "r1", "r2", "slope", "tf_at")}
OPTIONAL_KEYS = ("r", "ro", "ri", "r1", "r2", "slope", "tf_at")
PROPERTY_KEYS = ("A", "Iy", "Iz", "It", "Avy", "Avz")


def section(spec: Any, where: str = "section") -> Section:
    """A section from a library name or a table: ``{shape = "I" | "rectangle" | "circle" | "tube" | "box" |
    "channel", <its dimensions in m>}`` or ``{A, Iy, Iz, It[, Avy, Avz]}`` (m², m⁴; shear areas default to A)."""
    if isinstance(spec, str):
        try:
            return library(spec)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    if not isinstance(spec, dict):
        raise ValueError(f"{where} must be a section name or a table (shape + dimensions, or A, Iy, Iz, It), "  # noqa: TRY004 - exit 2
                         f"got {spec!r}")
    try:
        if "shape" in spec:
            shape = spec["shape"]
            if shape not in SHAPE_KEYS:
                raise ValueError(f"unknown shape {shape!r}; use one of {', '.join(SHAPE_KEYS)}")
            keys = SHAPE_KEYS[shape]
            check_keys(spec, ("shape", *keys), of=f" for shape {shape!r}", hint=f"its keys: {', '.join(keys)}")
            need = [k for k in keys if k not in spec and k not in OPTIONAL_KEYS]
            if need:
                raise ValueError(f"shape {shape!r} needs {', '.join(need)} (metres)")
            dims = {k: float(spec[k]) for k in keys if k in spec}
            build = {"I": i_section, "rectangle": rectangle, "circle": circle, "tube": tube, "box": box,
                     "channel": channel}[shape]
            return build(**dims, name=shape)  # type: ignore[operator]
        check_keys(spec, PROPERTY_KEYS, hint=f"give shape + dimensions, or {', '.join(PROPERTY_KEYS)}")
        need = [k for k in ("A", "Iy", "Iz", "It") if k not in spec]
        if need:
            raise ValueError(f"a section by properties needs {', '.join(need)} (m², m⁴)")
        A = float(spec["A"])
        return Section("properties", A, float(spec["Iy"]), float(spec["Iz"]), float(spec["It"]),
                       float(spec.get("Avy", A)), float(spec.get("Avz", A)))
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: {err}") from None


def grade(spec: Any, where: str = "material") -> Grade:
    """A grade by name (``GRADES``) or a table {E, G (or nu), rho} (Pa, kg/m³)."""
    if isinstance(spec, str):
        g = GRADES.get(spec.replace(" ", "").upper())
        if g is None:
            raise ValueError(f"{where}: unknown material {spec!r}; use one of {', '.join(GRADES)} or a table "
                             "{E, G (or nu), rho}")
        return g
    if not isinstance(spec, dict):
        raise ValueError(f"{where} must be a grade name or a table {{E, G (or nu), rho}}, got {spec!r}")  # noqa: TRY004
    check_keys(spec, ("E", "G", "nu", "rho"), where)
    if "E" not in spec or "rho" not in spec or ("G" in spec) == ("nu" in spec):
        raise ValueError(f"{where}: give E, rho and one of G or nu")
    E, rho = float(spec["E"]), float(spec["rho"])
    G = float(spec["G"]) if "G" in spec else E / (2.0 * (1.0 + float(spec["nu"])))
    if not all(math.isfinite(v) and v > 0.0 for v in (E, G, rho)):
        raise ValueError(f"{where}: E, G and rho must be positive numbers, got E={E}, G={G}, rho={rho}")
    return Grade("custom", E, G, rho)


def sectional(sec: Section, mat: Grade) -> dict[str, Any]:
    """The rod's sectional data (``Material.from_sectional`` keys) in director order d₁ = y, d₂ = z."""
    E, G, rho = mat.E, mat.G, mat.rho
    return {"EA": E * sec.A, "GA": [G * sec.Avy, G * sec.Avz], "EI": [E * sec.Iy, E * sec.Iz], "GJ": G * sec.It,
            "rhoA": rho * sec.A, "rhoJ": [rho * sec.Iy, rho * sec.Iz, rho * (sec.Iy + sec.Iz)]}
