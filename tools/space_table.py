"""Table of the space error of saved end positions (tools/space_error.py) against a Richardson limit.

    python tools/space_table.py PREFIX [--ref PREFIX_REF]    (files outputs/space/PREFIX_N*.npy)
"""
import argparse
import re
from pathlib import Path

import numpy as np


def load(prefix):
    out = {}
    for f in Path("outputs/space").glob(f"{prefix}_N*.npy"):
        m = re.fullmatch(re.escape(prefix) + r"_N(\d+)\.npy", f.name)
        if m:
            out[int(m.group(1))] = np.load(f)
    return dict(sorted(out.items()))


def limit(runs):
    ns = sorted(runs)[-2:]
    a, b = runs[ns[0]], runs[ns[1]]
    return b + (b - a) / ((ns[1] / ns[0]) ** 2 - 1)


def err(x, ref):
    return float(np.max(np.linalg.norm(x - ref, axis=1)))  # worse of the two ends


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix", nargs="+")
    ap.add_argument("--ref", default=None)
    a = ap.parse_args()
    ref = limit(load(a.ref)) if a.ref else None
    for p in a.prefix:
        runs = load(p)
        own = limit(runs)
        r = own if ref is None else ref
        ns = np.array(list(runs))
        e = np.array([err(runs[n], r) for n in ns])
        keep = ns < max(ns) if ref is None else ns > 0
        slope = np.polyfit(np.log(ns[keep]), np.log(e[keep]), 1)[0] if keep.sum() >= 2 else float("nan")
        line = "  ".join(f"N={n}: {x:.3e}" for n, x in zip(ns, e))
        extra = f"  |own limit - ref| = {err(own, ref):.2e}" if ref is not None else ""
        print(f"{p}: {line}  slope={slope:.2f}{extra}")


if __name__ == "__main__":
    main()
