"""Coefficient sets for DISEX / DISRK (seed 003 Table 2.1, eq. (2.10), Theorem 13).

DISRK (Hairer–Lubich–Wanner GNI Thm VI.4.4): a_ii = b_i/2, a_ij = b_j (j < i),
c_i = b_1 + … + b_{i−1} + b_i/2. It is the composition of midpoint steps of sizes b_i h; composition
order conditions: Σ b_i = 1, Σ b_i³ = 0 (order 3, hence 4 by symmetry), Σ b_i⁵ = 0 (and one more
condition for order 5/6, see Hairer–Lubich–Wanner II.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from lgbeam._typing import FloatArray


@dataclass(frozen=True)
class DisexCoefficients:
    """A DISRK/DISEX coefficient vector b (any length s ≥ 1) with its nodes c and tableau a."""

    name: str
    b: tuple[float, ...]
    order: int
    reference: str = ""

    def __post_init__(self) -> None:
        b = np.asarray(self.b, dtype=float)
        if b.ndim != 1 or b.size == 0 or not np.all(np.isfinite(b)):
            raise ValueError(f"DISEX coefficients {self.name!r}: b must be a non-empty finite vector")
        if abs(b.sum() - 1.0) > 1e-13:
            raise ValueError(
                f"DISEX coefficients {self.name!r}: sum(b) = {b.sum():.17g}, must be 1 (consistency)"
            )
        if np.any(b == 0.0):
            raise ValueError(f"DISEX coefficients {self.name!r}: zero sub-step b_i = 0 is not allowed")

    @cached_property
    def b_array(self) -> FloatArray:
        return np.asarray(self.b, dtype=float)

    @cached_property
    def c(self) -> FloatArray:
        """c_i = b_1 + … + b_{i−1} + b_i/2 (Table 2.1)."""
        b = self.b_array
        return np.cumsum(b) - 0.5 * b

    @cached_property
    def a(self) -> FloatArray:
        """Lower-triangular DISRK tableau: a_ii = b_i/2, a_ij = b_j for j < i (Table 2.1)."""
        b = self.b_array
        return np.tril(np.broadcast_to(b, (b.size, b.size)), -1) + np.diag(0.5 * b)


DISEX1 = DisexCoefficients("midpoint", (1.0,), 2, "s = 1: DISEX reduces to the exponential midpoint rule")

# Kalogiratou & Monovasilis, Appl. Math. Inf. Sci. 9(1L):11-17 (2015), as printed in seed 003 §2.5
# (digits verbatim; their sum is 1 - 9e-16, i.e. 1 to the printed precision).
_B6 = (0.5080048194000274, 1.360107162294827, 2.019293359181722, 0.5685658926458250,
       -1.459852049586439, -1.996119183935963)
DISEX6 = DisexCoefficients(
    "disex6", _B6, 5,
    "6-stage order-5 DISRK of Kalogiratou & Monovasilis (2015), seed 003 §2.5.1 (Shen & Leok 2019)",
)
