"""Write lgbeam/discretisations/rods/data/steel_sections.csv from the profile tables of the structuralcodes package.

Usage: python tools/gen_steel_sections.py PATH/TO/structuralcodes   (the package folder of structuralcodes 0.7.2,
e.g. from ``pip download --no-deps structuralcodes==0.7.2`` unzipped). The tables (the ``parameters`` dicts of
``geometry/profiles/_ipe.py`` and ``_he.py``) are read with ``ast`` (no import: structuralcodes needs shapely).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "lgbeam" / "discretisations" / "rods" / "data" / "steel_sections.csv"
HEADER = """# European rolled I and H sections: IPE (Euronorm 19-57), HE A / HE B / HE M (Euronorm 53-62); dimensions in mm.
# Source: the profile tables of the structuralcodes package 0.7.2 (fib-international/structuralcodes, Apache-2.0),
# structuralcodes/geometry/profiles/_ipe.py and _he.py, extracted by tools/gen_steel_sections.py. Properties
# (A, Iy, Iz, It, ...) are computed from these dimensions in lgbeam.discretisations.rods.sections.
name,h,b,tw,tf,r
"""


def tables(pkg: Path) -> list[tuple[str, dict[str, float]]]:
    rows = []
    for fn in ("_ipe.py", "_he.py"):
        tree = ast.parse((pkg / "geometry" / "profiles" / fn).read_text())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
                    and getattr(node.targets[0], "id", None) == "parameters"):
                rows += list(ast.literal_eval(node.value).items())
    return rows


def main(pkg: str) -> None:
    lines = [",".join([name] + [f"{d[k]:g}" for k in ("h", "b", "tw", "tf", "r")]) for name, d in tables(Path(pkg))]
    OUT.write_text(HEADER + "\n".join(lines) + "\n")
    print(f"wrote {OUT} ({len(lines)} sections)")


if __name__ == "__main__":
    main(sys.argv[1])
