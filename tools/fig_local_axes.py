"""docs/img/frame-local-axes.png: a member's local axes (docs/frames.md "Nodes and members").

x along the member (first node to second), z the part of ``orientation`` normal to x (the web of an I-section),
y = z × x (the flanges); I_y is about y (the strong axis). Usage: python tools/fig_local_axes.py
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from lgbeam.apps._frame_members import local_axes

OUT = Path(__file__).resolve().parents[1] / "docs" / "img" / "frame-local-axes.png"


def main() -> None:
    a, b = np.array([0.0, 0.0, 0.0]), np.array([4.0, 1.5, 0.6])
    v = np.array([0.0, 0.0, 1.0])  # orientation (the default of a non-vertical member)
    R = local_axes(b - a, v.tolist(), "figure")
    y, z, x = R[:, 0], R[:, 1], R[:, 2]
    h, w, tf, tw = 1.2, 0.4, 0.1, 0.05  # an I-section at the first node: web along z, flanges along y

    def outline(c):
        pts = [(-w, h), (w, h), (w, h - tf), (tw, h - tf), (tw, -h + tf), (w, -h + tf), (w, -h), (-w, -h),
               (-w, -h + tf), (-tw, -h + tf), (-tw, h - tf), (-w, h - tf), (-w, h)]
        return np.array([c + p[0] * y + p[1] * z / 1.0 * 0.5 for p in pts])

    fig = plt.figure(figsize=(7.0, 4.6))
    ax = fig.add_subplot(projection="3d")
    for c in (a, b):
        o = outline(c)
        ax.plot(*o.T, color="0.35", lw=1.2)
    for s in (-1, 1):
        for t in (-1, 1):
            p = s * w * y + t * 0.5 * h * z
            ax.plot(*np.array([a + p, b + p]).T, color="0.75", lw=0.8)
    ax.plot(*np.array([a, b]).T, color="k", lw=1.5, ls="--")
    L = 1.3
    for vec, lab, col in ((x, "x (along the member)", "tab:red"), (y, "y = z × x (flanges): I_y, strong", "tab:green"),
                          (z, "z (web)", "tab:blue")):
        ax.quiver(*a, *(L * vec), color=col, lw=2, arrow_length_ratio=0.12)
        ax.text(*(a + 1.12 * L * vec), lab, color=col, fontsize=9)
    ax.quiver(*b, *(1.0 * v), color="tab:purple", lw=1.5, arrow_length_ratio=0.15)
    ax.text(*(b + 1.08 * v), "orientation v", color="tab:purple", fontsize=9)
    ax.text(*(a - 0.35 * z - 0.25 * x), "node 1", fontsize=9)
    ax.text(*(b - 0.35 * z + 0.1 * x), "node 2", fontsize=9)
    ax.set_box_aspect((4.5, 2.5, 2.0))
    ax.set_xlim(-0.6, 4.6)
    ax.set_ylim(-0.8, 2.2)
    ax.set_zlim(-0.8, 1.8)
    ax.set_xlabel("X [m]")
    ax.set_ylabel("Y [m]")
    ax.set_zlabel("Z [m]")
    ax.view_init(elev=18, azim=-125)
    ax.set_title("member local axes: x along it, z in the plane of x and v, y = z × x\n"
                 "directors d₁ = y, d₂ = z, d₃ = x; EI = (E I_y, E I_z)", fontsize=10)
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
