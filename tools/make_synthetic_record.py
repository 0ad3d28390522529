"""Write cases/records/synthetic-kt-0.3g.at2: a SYNTHETIC ground acceleration (not a recorded earthquake), made by a
documented, reproducible procedure (docs/dynamics.md "The shipped record"):

1. white noise w_k ~ N(0, 1), numpy.random.default_rng(SEED), dt = 0.01 s, 12 s;
2. the Kanai–Tajimi filter (Kanai 1957; Tajimi 1960), a ground layer ω_g = 5π rad/s (2.5 Hz), ζ_g = 0.6 (firm
   soil), driven by w: x'' + 2ζ_g ω_g x' + ω_g² x = −w, output a = 2ζ_g ω_g x' + ω_g² x (the layer's absolute
   acceleration), integrated exactly for piecewise-constant w (scipy.signal.cont2discrete, zero-order hold);
3. the Jennings et al. (1968) envelope: (t/1.5)² up to 1.5 s, 1 to 6 s, exp(−0.5 (t − 6)) after;
4. a baseline correction a ← a − (c₀ + c₁ t) with c₀, c₁ making the ground velocity and displacement zero at the
   end (the exact integrals of the piecewise-linear record, ``frames.ground.Component.history``);
5. scaled to a peak ground acceleration of 0.3 g.

Run: PYTHONPATH=. python tools/make_synthetic_record.py (rewrites the file; the same bytes every time).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import signal

from lgbeam.discretisations.frames.ground import Component

SEED, DT, DURATION, PGA_G = 32, 0.01, 12.0, 0.3
WG, ZG = 5.0 * np.pi, 0.6
OUT = Path(__file__).resolve().parents[1] / "cases" / "records" / "synthetic-kt-0.3g.at2"


def record() -> tuple[np.ndarray, np.ndarray]:
    """(t, a [g]) of the module docstring's procedure."""
    n = round(DURATION / DT) + 1
    t = DT * np.arange(n)
    w = np.random.default_rng(SEED).standard_normal(n)
    A = np.array([[0.0, 1.0], [-WG**2, -2 * ZG * WG]])
    Ad, Bd, *_ = signal.cont2discrete((A, np.array([[0.0], [-1.0]]), np.eye(2), np.zeros((2, 1))), DT, method="zoh")
    s = np.zeros(2)
    a = np.empty(n)
    for k in range(n):  # a 2-state recursion over 1 201 samples (a tool, run once)
        a[k] = WG**2 * s[0] + 2 * ZG * WG * s[1]
        s = Ad @ s + Bd[:, 0] * w[k]
    env = np.where(t < 1.5, (t / 1.5) ** 2, np.where(t <= 6.0, 1.0, np.exp(-0.5 * (t - 6.0))))
    a = a * env
    basis = [np.ones(n), t]
    ends = np.array([[h[1][-1], h[2][-1]] for h in (Component(np.array([1.0, 0, 0]), t, b).history(t) for b in basis)])
    a0 = Component(np.array([1.0, 0, 0]), t, a).history(t)
    c = np.linalg.solve(ends.T, np.array([a0[1][-1], a0[2][-1]]))
    a = a - c[0] - c[1] * t
    return t, PGA_G * a / np.max(np.abs(a))


def main() -> None:
    t, a = record()
    head = [
        "SYNTHETIC ground acceleration (NOT a recorded earthquake): Kanai-Tajimi filtered white noise, seed 32,",
        "wg = 2.5 Hz, zg = 0.6, Jennings envelope, baseline corrected, PGA 0.3 g; tools/make_synthetic_record.py",
        "ACCELERATION TIME SERIES IN UNITS OF G",
        f"NPTS= {t.size}, DT= {DT:.4f} SEC",
    ]
    rows = [" ".join(f"{x: .7E}" for x in a[k:k + 5]) for k in range(0, a.size, 5)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(head + rows) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({t.size} samples, PGA {np.max(np.abs(a)):.3f} g)")


if __name__ == "__main__":
    main()
