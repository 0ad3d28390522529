"""Runge–Kutta tableaux as data: half-explicit (with multiplier weights d) and classical.

Symbols (seed 004 §2.2, eqs. (12)–(15)): ``A`` has s̄+1 rows and s̄ columns (row i uses stages
j < i); row s+1 is the weight vector b of the propagated solution; rows s+2 … s̄+1 only place the
constraint that determines the last multipliers (the auxiliary row); ``d`` combines the stage
multipliers into λ_{n+1} = Σ d_i Λ_i; ``b_hat`` are embedded weights (error estimate).

References
----------
Seed 004, Table 1 (recovered in shared/notes/beam-reference-data.md §2); Arnold (1998) for the
order-3 and order-4 half-explicit methods; Dormand & Prince (1980) for DOPRI5 and its embedded
4th-order weights; Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.1 for the order conditions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction as F

import numpy as np

from lgbeam._typing import FloatArray

# Order conditions up to order 5 (HNW I, Table II.2.1): (order, function of (b, A, c), value).
_ORDER_CONDITIONS = (
    (1, lambda b, A, c: b.sum(), 1.0),
    (2, lambda b, A, c: b @ c, 1 / 2),
    (3, lambda b, A, c: b @ c**2, 1 / 3),
    (3, lambda b, A, c: b @ A @ c, 1 / 6),
    (4, lambda b, A, c: b @ c**3, 1 / 4),
    (4, lambda b, A, c: (b * c) @ A @ c, 1 / 8),
    (4, lambda b, A, c: b @ A @ c**2, 1 / 12),
    (4, lambda b, A, c: b @ A @ A @ c, 1 / 24),
    (5, lambda b, A, c: b @ c**4, 1 / 5),
    (5, lambda b, A, c: (b * c**2) @ A @ c, 1 / 10),
    (5, lambda b, A, c: (b * c) @ A @ c**2, 1 / 15),
    (5, lambda b, A, c: (b * c) @ A @ A @ c, 1 / 30),
    (5, lambda b, A, c: b @ (A @ c) ** 2, 1 / 20),
    (5, lambda b, A, c: b @ A @ c**3, 1 / 20),
    (5, lambda b, A, c: b @ A @ (c * (A @ c)), 1 / 40),
    (5, lambda b, A, c: b @ A @ A @ c**2, 1 / 60),
    (5, lambda b, A, c: b @ A @ A @ A @ c, 1 / 120),
)


def classical_order(b: FloatArray, A: FloatArray, c: FloatArray, tol: float = 1e-12) -> int:
    """Highest p ≤ 5 such that all order conditions up to p hold (HNW I, §II.2)."""
    order = 0
    for p in range(1, 6):
        if all(abs(fn(b, A, c) - val) <= tol for q, fn, val in _ORDER_CONDITIONS if q == p):
            order = p
        else:
            break
    return order


def _arr(rows: list[list[F | int | float]], width: int) -> FloatArray:
    out = np.zeros((len(rows), width))
    for i, row in enumerate(rows):
        out[i, : len(row)] = [float(x) for x in row]
    return out


@dataclass(frozen=True)
class HalfExplicitTableau:
    """Half-explicit RK tableau with explicit first stage (seed 004 eqs. (12)–(15), Table 1).

    Parameters
    ----------
    name : registry name.
    A : (s̄+1, s̄) strictly lower-triangular coefficients; row s+1 is b.
    c : (s̄+1,) nodes, ``c[i] = Σ_j A[i, j]``.
    s : number of stages of the propagated solution.
    d : (s̄,) multiplier weights, ``Σ d = 1``.
    order : nominal order p (checked against the classical conditions of b, A, c).
    b_hat, order_hat : optional embedded weights (s̄,) and their order.
    """

    name: str
    A: FloatArray
    c: FloatArray
    s: int
    d: FloatArray
    order: int
    b_hat: FloatArray | None = None
    order_hat: int | None = None
    references: str = ""
    fsal: bool = field(init=False)

    def __post_init__(self) -> None:
        A, c, sbar = self.A, self.c, self.A.shape[1]
        problems = []
        if A.shape != (sbar + 1, sbar) or c.shape != (sbar + 1,) or self.d.shape != (sbar,):
            problems.append(f"shapes A {A.shape}, c {c.shape}, d {self.d.shape} do not fit s̄ = {sbar}")
        elif np.any(np.triu(A[:sbar], 0) != 0) or np.any(A[sbar, sbar:] != 0):
            problems.append("A is not strictly lower triangular (the method would be implicit)")
        else:
            if not np.allclose(A.sum(axis=1), c, rtol=0, atol=1e-14):
                problems.append(f"row sums of A {A.sum(axis=1)} differ from c {c}")
            if not 1 <= self.s <= sbar:
                problems.append(f"s = {self.s} must lie in 1..s̄ = {sbar}")
            if abs(self.d.sum() - 1) > 1e-14:
                problems.append(f"multiplier weights d sum to {self.d.sum()}, not 1")
            if self.b_hat is not None and abs(self.b_hat.sum() - 1) > 1e-14:
                problems.append(f"embedded weights sum to {self.b_hat.sum()}, not 1")
            if not problems and classical_order(self.b, A[:sbar], c[:sbar]) < self.order:
                problems.append(f"b, A, c satisfy only the conditions of order {classical_order(self.b, A[:sbar], c[:sbar])}")
            if self.b_hat is not None and self.order_hat is not None:
                got = classical_order(self.b_hat, A[:sbar], c[:sbar])
                if got < self.order_hat:
                    problems.append(f"embedded weights have order {got} < {self.order_hat}")
        if problems:
            raise ValueError(f"tableau {self.name!r} is inconsistent: " + "; ".join(problems))
        last = np.zeros(sbar)
        last[-1] = 1.0
        # FSAL: the last stage is evaluated at (q_{n+1}, v_{n+1}) and its multiplier is λ_{n+1}, so its
        # V̇ equals the explicit first stage of the next step.
        fsal = sbar == self.s + 1 and c[self.s] == 1.0 and np.array_equal(self.d, last)
        object.__setattr__(self, "fsal", bool(fsal))

    @property
    def stages(self) -> int:
        """s̄, the number of stages (= number of columns of A)."""
        return int(self.A.shape[1])

    @property
    def b(self) -> FloatArray:
        """Weights of the propagated solution, padded to s̄ entries (row s+1 of A)."""
        return self.A[self.s]

    @property
    def error_order(self) -> int | None:
        """min(p, p̂): the exponent of the step-size rule (22), or None without embedded weights."""
        return None if self.order_hat is None else min(self.order, self.order_hat)


def _hrk(name, rows, s, d, order, b_hat=None, order_hat=None, references="") -> HalfExplicitTableau:
    sbar = len(rows) - 1
    A = _arr(rows, sbar)
    c = np.array([float(sum(F(x) for x in row)) for row in rows])
    return HalfExplicitTableau(
        name=name, A=A, c=c, s=s, d=np.array([float(x) for x in d]), order=order,
        b_hat=None if b_hat is None else np.array([float(x) for x in b_hat]), order_hat=order_hat,
        references=references,
    )


SQ3 = np.sqrt(3.0)

HERK1 = _hrk(
    "herk1", [[0], [1], [0, 1]], s=2, d=[0, 1], order=1,
    references="order-1 member of the explicit-first-stage family: A = [0 0; 1 0; 0 1], d = (0, 1) "
    "(shared/notes/beam-reference-data.md §2, 'Order 1', checked here by its observed order)",
)
HERK2_MIDPOINT = _hrk(
    "herk2-midpoint", [[0], [F(1, 2)], [0, 1]], s=2, d=[0, 1], order=2,
    references="seed 004 Table 1, order 2 (a)",
)
HERK2_HEUN = _hrk(
    "herk2-heun", [[0], [1], [F(1, 2), F(1, 2)]], s=2, d=[F(1, 2), F(1, 2)], order=2,
    b_hat=[0, 1], order_hat=1, references="seed 004 Table 1, order 2 (b), used for the roll-up",
)
HERK2_C2 = _hrk(
    "herk2-c2", [[0], [2], [F(3, 4), F(1, 4)]], s=2, d=[F(3, 4), F(1, 4)], order=2,
    references="seed 004 Table 1, order 2 (c), c2 = 2",
)
HERK3 = _hrk(
    "herk3", [[0], [F(1, 2)], [F(2, 9), F(4, 9)], [F(1, 4), 0, F(3, 4)]], s=3, d=[0, -2, 3], order=3,
    references="seed 004 Table 1, order 3 (Arnold 1998)",
)
HERK4 = HalfExplicitTableau(
    name="herk4",
    A=np.array([
        [0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [3 / 8, 1 / 8, 0, 0, 0],
        [-1 / 2, -1 / 2, 2, 0, 0],
        [1 / 6, 0, 2 / 3, 1 / 6, 0],
        [1 / 6 - SQ3 / 108, 0, 1 / 3 - 4 * SQ3 / 27, -7 * SQ3 / 108, SQ3 / 18],
    ]),
    c=np.array([0, 1, 1 / 2, 1, 1, (3 - SQ3) / 6]),
    s=4, d=np.array([0, 0, 0, 0, 1.0]), order=4,
    references="seed 004 Table 1, order 4 'only for constrained problems' (Arnold 1998); aux row c6 = (3−√3)/6",
)
_DOPRI_ROWS = [
    [0],
    [F(1, 5)],
    [F(3, 40), F(9, 40)],
    [F(44, 45), F(-56, 15), F(32, 9)],
    [F(19372, 6561), F(-25360, 2187), F(64448, 6561), F(-212, 729)],
    [F(9017, 3168), F(-355, 33), F(46732, 5247), F(49, 176), F(-5103, 18656)],
    [F(35, 384), 0, F(500, 1113), F(125, 192), F(-2187, 6784), F(11, 84)],
]
_DOPRI_BHAT = [F(5179, 57600), 0, F(7571, 16695), F(393, 640), F(-92097, 339200), F(187, 2100), F(1, 40)]
HEDOP5 = _hrk(
    "hedop5",
    _DOPRI_ROWS + [[
        F(-18611506045861, 19738176307200), F(59332529, 14479296), F(-2509441598627, 893904224850),
        F(2763523204159, 3289696051200), F(-41262869588913, 116235927142400),
        F(46310205821, 287848404480), F(-3280, 75413),
    ]],
    s=6, d=[0, 0, 0, 0, 0, 0, 1], order=5, b_hat=_DOPRI_BHAT, order_hat=4,
    references="seed 004 Table 1 and §3: DOPRI5 rows + auxiliary row at c8 = 19/20; embedded weights of "
    "Dormand & Prince (1980)",
)

# Classical explicit tableaux for the unconstrained Lie group RK (RKMK) family: row s+1 = b, no aux row.
RK4 = _hrk(
    "rk4", [[0], [F(1, 2)], [0, F(1, 2)], [0, 0, 1], [F(1, 6), F(1, 3), F(1, 3), F(1, 6)]],
    s=4, d=[0, 0, 0, 1], order=4, references="classical RK4 (seed 004 notes: 'only for unconstrained problems')",
)
DOPRI5 = _hrk(
    "dopri5", _DOPRI_ROWS + [_DOPRI_ROWS[-1]], s=6, d=[0, 0, 0, 0, 0, 0, 1], order=5,
    b_hat=_DOPRI_BHAT, order_hat=4, references="Dormand & Prince (1980)",
)

HALF_EXPLICIT_TABLEAUX: dict[str, HalfExplicitTableau] = {
    t.name: t for t in (HERK1, HERK2_MIDPOINT, HERK2_HEUN, HERK2_C2, HERK3, HERK4, HEDOP5)
}
CLASSICAL_TABLEAUX: dict[str, HalfExplicitTableau] = {t.name: t for t in (RK4, DOPRI5)}
