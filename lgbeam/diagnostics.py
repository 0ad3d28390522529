"""Diagnostics shared by tests, studies and benches: the observed order of convergence.

``observed_order(hs, errs)`` is the least-squares slope of log(err) against log(h) — the one place the
log–log fit is computed, so an order means the same everywhere (tests, ``lgbeam study``, figures). Two contracts:
``observed_order`` refuses data without a logarithm (a test or a seed figure must not fit around a zero error);
``fitted_order`` leaves such pairs out and gives nan when fewer than two remain (a study's table and plots, where
a run may have failed or hit round-off).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def observed_order(hs: Sequence[float] | np.ndarray, errs: Sequence[float] | np.ndarray) -> float:
    """Slope p of the least-squares fit log(err) ≈ p log(h) + c (``np.polyfit`` of degree 1).

    ValueError unless there are at least two pairs of finite, positive values.
    """
    h, e = np.asarray(hs, dtype=float), np.asarray(errs, dtype=float)
    if h.shape != e.shape or h.size < 2:
        raise ValueError(f"observed_order needs two or more (h, error) pairs of equal length, got {h.size} and {e.size}")
    if not (np.all(np.isfinite(h)) and np.all(np.isfinite(e)) and np.all(h > 0) and np.all(e > 0)):
        raise ValueError("observed_order needs finite, positive step sizes and errors (an error of 0 or NaN has no log)")
    return float(np.polyfit(np.log(h), np.log(e), 1)[0])


def fitted_order(hs: Sequence[float] | np.ndarray, errs: Sequence[float] | np.ndarray) -> float:
    """``observed_order`` over the pairs whose h and error are both finite and positive; nan with fewer than two."""
    h, e = np.asarray(hs, dtype=float), np.asarray(errs, dtype=float)
    if h.shape != e.shape:
        raise ValueError(f"fitted_order needs (h, error) pairs of equal length, got {h.size} and {e.size}")
    keep = np.isfinite(h) & np.isfinite(e) & (h > 0) & (e > 0)
    if keep.sum() < 2:
        return float("nan")
    return observed_order(h[keep], e[keep])


__all__ = ["fitted_order", "observed_order"]
