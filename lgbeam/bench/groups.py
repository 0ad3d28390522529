"""``lgbeam bench groups``: exp, log, compose of 10⁵ elements (SO3, S3, S3R3) and S3R3 tangent_inv,
side by side with scipy's compiled ``Rotation.from_rotvec`` / ``as_rotvec`` / ``*`` in the same run.

Target (issue 2): S3 exp/log/compose within 2× of scipy's time. Best of ``repeats`` wall-clock runs.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from lgbeam.bench import best_of
from lgbeam.groups import S3, S3R3, SO3, Product

logger = logging.getLogger(__name__)


def run(out_dir: Path, quick: bool = False) -> list[dict[str, object]]:
    """Time the group maps, print a table, write ``out_dir/groups.csv``; returns the rows."""
    n = 10_000 if quick else 100_000
    repeats = 3 if quick else 7
    rng = np.random.default_rng(0)
    d = rng.normal(size=(n, 3))
    w = d / np.linalg.norm(d, axis=1, keepdims=True) * rng.uniform(0.0, np.pi - 1e-6, (n, 1))
    xi = np.concatenate([w, rng.normal(size=(n, 3))], axis=1)
    r1, r2 = Rotation.from_rotvec(w), Rotation.from_rotvec(w[::-1])
    so3, s3, s3r3 = SO3(), S3(), S3R3()
    R1, R2 = so3.exp(w), so3.exp(w[::-1])
    p1, p2 = s3.exp(w), s3.exp(w[::-1])
    a1, a2 = s3r3.exp(xi), s3r3.exp(xi[::-1])
    prod = Product(s3r3, n)
    flat_xi, flat_v = xi.ravel(), rng.normal(size=6 * n)

    sc = {
        "exp": 1e3 * best_of(lambda: Rotation.from_rotvec(w), repeats, warm_up=True),
        "log": 1e3 * best_of(lambda: r1.as_rotvec(), repeats, warm_up=True),
        "compose": 1e3 * best_of(lambda: r1 * r2, repeats, warm_up=True),
    }
    cases: list[tuple[str, str, Callable[[], object], str]] = [
        ("exp", "SO3", lambda: so3.exp(w), "exp"),
        ("log", "SO3", lambda: so3.log(R1), "log"),
        ("compose", "SO3", lambda: so3.compose(R1, R2), "compose"),
        ("exp", "S3", lambda: s3.exp(w), "exp"),
        ("log", "S3", lambda: s3.log(p1), "log"),
        ("compose", "S3", lambda: s3.compose(p1, p2), "compose"),
        ("exp", "S3R3", lambda: s3r3.exp(xi), "exp"),
        ("log", "S3R3", lambda: s3r3.log(a1), "log"),
        ("compose", "S3R3", lambda: s3r3.compose(a1, a2), "compose"),
        ("tangent_inv (6x6 blocks)", "S3R3", lambda: s3r3.tangent_inv(xi), ""),
        ("tangent_inv_apply (flat)", f"S3R3^{n}", lambda: prod.tangent_inv_apply(flat_xi, flat_v), ""),
    ]
    rows: list[dict[str, object]] = []
    for op, group, fn, ref in cases:
        ours = 1e3 * best_of(fn, repeats, warm_up=True)
        scipy_ms = sc[ref] if ref else float("nan")
        rows.append({"op": op, "group": group, "n": n, "ours_ms": round(ours, 3),
                     "scipy_ms": round(scipy_ms, 3) if ref else "",
                     "ratio": round(ours / scipy_ms, 2) if ref else ""})

    print(f"lgbeam bench groups: n = {n}, best of {repeats}; scipy = Rotation.from_rotvec / as_rotvec / *")
    print(f"{'op':26s} {'group':12s} {'ours [ms]':>10s} {'scipy [ms]':>11s} {'ratio':>6s}")
    for r in rows:
        print(f"{r['op']!s:26s} {r['group']!s:12s} {r['ours_ms']!s:>10s} {r['scipy_ms']!s:>11s} {r['ratio']!s:>6s}")
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "groups.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows
