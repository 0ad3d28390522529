"""Write lgbeam/discretisations/rods/data/steel_sections.csv (I and H sections) and steel_channels.csv (UPN channels)
from the profile tables of the structuralcodes package.

Usage: python tools/gen_steel_sections.py PATH/TO/structuralcodes   (the package folder of structuralcodes 0.7.2,
e.g. from ``pip download --no-deps structuralcodes==0.7.2`` unzipped). The tables (the ``parameters`` dicts of
``geometry/profiles/_ipe.py``, ``_he.py`` and ``_upn.py``) are read with ``ast`` (no import: structuralcodes needs
shapely). The UPN flange slope and the place where t_f is measured are the rule of ``UPN.get_polygon`` there (and of
DIN 1026-1): h ≤ 300 mm: slope 8 %, t_f at b/2 from the web's back; h > 300 mm: slope 5 %, t_f at the middle of the
flange's outstand, (b + t_w)/2 from the web's back. (The class docstring's "14% slope" is not what its code draws.)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "lgbeam" / "discretisations" / "rods" / "data"
OUT = DATA / "steel_sections.csv"
OUT_U = DATA / "steel_channels.csv"
HEADER = """# European rolled I and H sections: IPE (Euronorm 19-57), HE A / HE B / HE M (Euronorm 53-62); dimensions in mm.
# Source: the profile tables of the structuralcodes package 0.7.2 (fib-international/structuralcodes, Apache-2.0),
# structuralcodes/geometry/profiles/_ipe.py and _he.py, extracted by tools/gen_steel_sections.py. Properties
# (A, Iy, Iz, It, ...) are computed from these dimensions in lgbeam.discretisations.rods.sections.
name,h,b,tw,tf,r
"""
HEADER_U = """# European channels with tapered flanges: UPN 50 ... 400 (EN 10365, DIN 1026-1); dimensions in mm.
# Source: the profile table of the structuralcodes package 0.7.2 (fib-international/structuralcodes, Apache-2.0),
# structuralcodes/geometry/profiles/_upn.py (h, b, tw, tf, r1 root radius, r2 toe radius), extracted by
# tools/gen_steel_sections.py; slope (of the flanges' inner faces) and tf_at (distance from the web's back where tf
# is measured) from the rule of UPN.get_polygon there: 8 % and b/2 for h <= 300, 5 % and (b + tw)/2 above.
# Properties are computed from these dimensions in lgbeam.discretisations.rods.sections (channel).
name,h,b,tw,tf,r1,r2,slope,tf_at
"""


def tables(pkg: Path, files: tuple[str, ...] = ("_ipe.py", "_he.py")) -> list[tuple[str, dict[str, float]]]:
    rows = []
    for fn in files:
        tree = ast.parse((pkg / "geometry" / "profiles" / fn).read_text())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
                    and getattr(node.targets[0], "id", None) == "parameters"):
                rows += list(ast.literal_eval(node.value).items())
    return rows


def channel_row(name: str, d: dict[str, float]) -> str:
    slope, at = (0.08, d["b"] / 2.0) if d["h"] <= 300.0 else (0.05, (d["b"] + d["tw"]) / 2.0)
    return ",".join([name] + [f"{d[k]:g}" for k in ("h", "b", "tw", "tf", "r1", "r2")] + [f"{slope:g}", f"{at:g}"])


def main(pkg: str) -> None:
    lines = [",".join([name] + [f"{d[k]:g}" for k in ("h", "b", "tw", "tf", "r")]) for name, d in tables(Path(pkg))]
    OUT.write_text(HEADER + "\n".join(lines) + "\n")
    print(f"wrote {OUT} ({len(lines)} sections)")
    lines = [channel_row(name, d) for name, d in tables(Path(pkg), ("_upn.py",))]
    OUT_U.write_text(HEADER_U + "\n".join(lines) + "\n")
    print(f"wrote {OUT_U} ({len(lines)} sections)")


if __name__ == "__main__":
    main(sys.argv[1])
