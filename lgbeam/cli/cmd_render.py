"""``lgbeam render RUN_DIR``: off-screen pictures (PNG per chosen frame, optional GIF) of a run folder."""

from __future__ import annotations

import argparse
import re
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "render",
        help="render a run folder's ParaView series off-screen into RUN_DIR/figures (PNG, GIF)",
        description="Render the rod as a tube with director glyphs (rigid bodies as frames, PDE fields "
        "as line plots) for chosen frames, and optionally an animated GIF, into RUN_DIR/figures.",
        epilog="example: lgbeam render outputs/fs --frames 0,10,-1 --gif\nexample: lgbeam render outputs/portal-frame --scale 100",
    )
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a folder made by `lgbeam run`")
    p.add_argument("--frames", default=None, metavar="I,J,...",
                   help="frame indices, negative from the end (default: first, middle, last)")
    p.add_argument("--gif", action="store_true", help="also write an animated GIF of the motion")
    p.add_argument("--overlay", action="store_true",
                   help="rods: draw the chosen frames (default 24 evenly spaced) in one picture, coloured by time")
    p.add_argument("--scale", type=float, default=1.0, metavar="FACTOR",
                   help="rods and frames: draw the displacements from the first frame times FACTOR, e.g. 10 "
                   "for a small sway (default 1: true scale)")
    p.add_argument("--size", default="800x600", metavar="WxH", help="image size in pixels (default 800x600)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from lgbeam.io.render import parse_frames, render_run

    m = re.fullmatch(r"(\d+)x(\d+)", args.size)
    if not m or min(int(m[1]), int(m[2])) < 16:
        raise ValueError(f"--size expects WIDTHxHEIGHT in pixels (at least 16), e.g. 800x600, got {args.size!r}")
    files = render_run(args.run_dir, parse_frames(args.frames), gif=args.gif, size=(int(m[1]), int(m[2])),
                        overlay=args.overlay, scale=args.scale)
    for f in files:
        print(f)
    return 0
