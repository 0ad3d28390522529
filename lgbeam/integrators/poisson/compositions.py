"""Symmetric composition coefficients as data (issue 18 item 2): y₁ = Φ_{γ_s h} ∘ … ∘ Φ_{γ_1 h}(y₀).

For a symmetric method Φ of order 2 (the exponential midpoint rule, the energy-preserving exponential
integrator) a symmetric composition with Σγ = 1 and the conditions below has the listed order
(Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2nd ed. (2006), §II.4 and §V.3). Every set
is a ``DisexCoefficients`` (the same data type as seed 003's DISEX): the composition of exponential
midpoint steps with sizes b_i h is DISEX with b = γ (seed 003 Theorem 13).

Necessary conditions checked by ``tests/test_compositions.py``: Σγ = 1 (consistency), Σγ³ = 0 (order 4),
Σγ⁵ = 0 (order 6), Σγ⁷ = 0 (order 8), symmetry γ_i = γ_{s+1−i}; the full orders are fitted on the NLS and KdV
solitons (tests/test_orders.py).
"""

from __future__ import annotations

from lgbeam.integrators.poisson.coefficients import DisexCoefficients


def _symmetric(half: tuple[float, ...]) -> tuple[float, ...]:
    """γ_1 … γ_m, then γ_{m−1} … γ_1 (a symmetric composition with an odd number of stages)."""
    return half + half[-2::-1]


_CBRT2 = 2.0 ** (1.0 / 3.0)
_CBRT4 = 4.0 ** (1.0 / 3.0)
_TJ = 1.0 / (2.0 - _CBRT2)
_SZ = 1.0 / (4.0 - _CBRT4)

TRIPLE_JUMP4 = DisexCoefficients(
    "triple-jump4", (_TJ, 1.0 - 2.0 * _TJ, _TJ), 4,
    "Yoshida, Phys. Lett. A 150 (1990); Creutz & Gocksch (1989); Suzuki (1990): γ₁ = γ₃ = 1/(2 − 2^{1/3})",
)
SUZUKI4 = DisexCoefficients(
    "suzuki4", (_SZ, _SZ, 1.0 - 4.0 * _SZ, _SZ, _SZ), 4,
    "Suzuki, Phys. Lett. A 146 (1990) 319, eq. (3.13): γ₁ = γ₂ = γ₄ = γ₅ = 1/(4 − 4^{1/3})",
)
# Yoshida (1990) Table 1, solution A (7 stages); w₀ = 1 − 2(w₁ + w₂ + w₃) so that Σγ = 1 to round-off.
_Y6 = (0.784513610477560, 0.235573213359357, -1.17767998417887)
YOSHIDA6 = DisexCoefficients(
    "yoshida6", _symmetric((*_Y6, 1.0 - 2.0 * sum(_Y6))), 6,
    "Yoshida, Phys. Lett. A 150 (1990) 262, Table 1, solution A (w₃, w₂, w₁, w₀, w₁, w₂, w₃)",
)
KAHAN_LI6 = DisexCoefficients(
    "kahan-li6", _symmetric((0.39216144400731413928, 0.33259913678935943860, -0.70624617255763935981,
                             0.08221359629355080023, 0.79854399093482996340)), 6,
    "Kahan & Li, Math. Comp. 66 (1997) 1089, s9odr6a; Hairer, Lubich & Wanner (2006) §V.3.2 eq. (3.11)",
)
KAHAN_LI8 = DisexCoefficients(
    "kahan-li8", _symmetric((0.13020248308889008088, 0.56116298177510838456, -0.38947496264484728641,
                             0.15884190655515560090, -0.39590389413323757734, 0.18453964097831570709,
                             0.25837438768632204729, 0.29501172360931029887, -0.60550853383003451170)), 8,
    "Kahan & Li, Math. Comp. 66 (1997) 1089, s17odr8a; Hairer, Lubich & Wanner (2006) §V.3.2 eq. (3.12)",
)

COMPOSITIONS: dict[str, DisexCoefficients] = {
    c.name: c for c in (TRIPLE_JUMP4, SUZUKI4, YOSHIDA6, KAHAN_LI6, KAHAN_LI8)
}
"""The known composition coefficient sets by name."""


def composition(name: str | DisexCoefficients) -> DisexCoefficients:
    """The coefficient set ``name`` (or ``name`` itself when it is already one); an unknown name lists the
    known."""
    if isinstance(name, DisexCoefficients):
        return name
    try:
        return COMPOSITIONS[name]
    except KeyError:
        raise ValueError(
            f"unknown composition {name!r}; known compositions: {', '.join(COMPOSITIONS)}"
        ) from None


__all__ = ["COMPOSITIONS", "KAHAN_LI6", "KAHAN_LI8", "SUZUKI4", "TRIPLE_JUMP4", "YOSHIDA6", "composition"]
