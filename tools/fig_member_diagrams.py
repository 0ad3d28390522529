"""docs/img/frame-diagrams.png: the N, V, M diagrams of ``steel-frame-2storey`` (load case "wind"), as
``lgbeam run steel-frame-2storey`` writes them to diagrams.png, at a smaller resolution (docs/frames.md "Member
forces and diagrams"). Usage: PYTHONPATH=. python tools/fig_member_diagrams.py
"""

from __future__ import annotations

from pathlib import Path

from lgbeam.apps import frame as frame_app
from lgbeam.apps import load_case
from lgbeam.apps._frame_diagrams import member_forces, plot_diagrams
from lgbeam.discretisations.rods.statics import solve_static

OUT = Path(__file__).resolve().parents[1] / "docs" / "img" / "frame-diagrams.png"


def main() -> None:
    case, _ = load_case("steel-frame-2storey")
    frame = frame_app.build(case)
    st = solve_static(frame, t=float(case["time"]["t_end"]), load_steps=1).final
    forces = member_forces(frame, frame_app.member_rods(case, frame), st.q, st.lam)
    info = plot_diagrams(forces, OUT, "steel-frame-2storey (load case wind): member forces", dpi=90)
    print(f"{OUT}: {OUT.stat().st_size / 1e3:.0f} kB, view {info['view']}, {len(info['labels'])} labels")


if __name__ == "__main__":
    main()
