"""Commutator-free Lie group methods (Celledoni–Marthinsen–Owren) and Crouch–Grossman, as data.

A stage point and the output are products of exponentials of frozen-field combinations acting on y_n or
on an earlier stage point (seed 000 §2.4; notes/000.md §3.4–§3.5):

    Y_r = exp(h Σ_k α^k_{r,J} f_k) ··· exp(h Σ_k α^k_{r,1} f_k) · Y_start,   f_k = f(t_n + c_k h, Y_k),
    y_{n+1} = exp(h Σ_k β^k_J f_k) ··· exp(h Σ_k β^k_1 f_k) · Y_start,

no brackets and no dexp⁻¹. ``Exponentials(start, factors)`` holds one such product (``start`` −1 for y_n,
r ≥ 0 to reuse the point Y_r; ``factors`` innermost first). The underlying classical tableau has
a_r^k = (a_start)^k + Σ_j α^k_{r,j} and b^k = Σ_j β^k_j; ``CFScheme.__post_init__`` checks explicitness,
c = row sums and the classical order conditions of b (and b̃) up to the stated orders. The conditions
particular to Lie groups (for order ≥ 3 non-commutative ones) are checked by the fitted orders on the
double pendulum (tests/test_orders.py, tests/test_lie_methods.py).

Embedded pairs give two points on M; the estimate is their difference in the embedding space (the chordal
metric d(y, ỹ) = ‖y − ỹ‖₂, one of the metrics seed 000 §4 allows), evaluated lazily.

Schemes:
  CF4 (9)       4 stages, 5 exponentials, Y_4 reuses Y_2 (Celledoni, Marthinsen & Owren 2003)
  CF3(2) A, B   Curry & Owren's pairs ([12]): A reuses Y_2, B reuses Y_3 (B's printed Y_3 lacks a ")")
  CF4(3) (34)   CF4 with a 3rd-order companion on one extra stage Ȳ_3 = exp(¾ h f_2)·y_n (new in seed 000)
  CG3           Crouch & Grossman (1993), 3 stages, one exponential per coefficient (Owren & Marthinsen 1999)

References
----------
Celledoni, Marthinsen & Owren (2003); Curry & Owren (2019), [12] in seed 000; Crouch & Grossman (1993);
Owren & Marthinsen (1999); seed 000 eqs. (9), (34) and §4; notes/000.md §3.4–§3.5.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.integrators.base import Step
from lgbeam.integrators.lie.rkmk import _OnSpace
from lgbeam.integrators.tableaux import classical_order
from lgbeam.systems import HomogeneousSpace, HomogeneousSpaceODE

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Exponentials:
    """exp(h Σ_k factors[J−1][k] f_k) ··· exp(h Σ_k factors[0][k] f_k) · (y_n if start < 0 else Y_start)."""

    start: int
    factors: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class CFScheme:
    """A commutator-free (or Crouch–Grossman) scheme: stage points, output and optional embedded output.

    Parameters
    ----------
    name : registry-style name.
    stages : one ``Exponentials`` per stage; stage 0 is y_n itself (``Exponentials(-1, ())``).
    output : the propagated solution; uses the first ``n_main`` stages only.
    order : classical order conditions that b must satisfy (the Lie order is checked by tests).
    embedded, embedded_order : the companion solution and its order (None without).
    n_main : stages the output needs (the rest are evaluated only for the estimate).
    """

    name: str
    stages: tuple[Exponentials, ...]
    output: Exponentials
    order: int
    embedded: Exponentials | None = None
    embedded_order: int | None = None
    n_main: int = 0
    references: str = ""
    A: FloatArray = field(init=False, repr=False, compare=False)
    c: FloatArray = field(init=False, repr=False, compare=False)
    b: FloatArray = field(init=False, repr=False, compare=False)
    b_hat: FloatArray | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        s = len(self.stages)
        if not self.n_main:
            object.__setattr__(self, "n_main", s)
        problems: list[str] = []
        A = np.zeros((s, s))
        for r, st in enumerate(self.stages):
            problems += self._check_product(f"stage {r + 1}", st, s, limit=r)
            if not problems:
                A[r] = self._effective(st, A)
        if problems:
            raise ValueError(f"commutator-free scheme {self.name!r} is inconsistent: " + "; ".join(problems))
        if self.stages[0].start >= 0 or self.stages[0].factors:
            problems.append("stage 1 must be y_n itself (Exponentials(-1, ()))")
        problems += self._check_product("output", self.output, s, limit=self.n_main)
        b = self._effective(self.output, A) if not problems else np.zeros(s)
        got = classical_order(b, A, A.sum(axis=1))
        if not problems and got < self.order:
            problems.append(
                f"the weights b = {np.round(b, 6).tolist()} have classical order {got} < {self.order}"
            )
        b_hat = None
        if self.embedded is not None:
            problems += self._check_product("embedded output", self.embedded, s, limit=s)
            if not problems:
                b_hat = self._effective(self.embedded, A)
                got = classical_order(b_hat, A, A.sum(axis=1))
                if self.embedded_order is None or got < self.embedded_order:
                    problems.append(f"embedded weights have classical order {got} < {self.embedded_order}")
        if problems:
            raise ValueError(f"commutator-free scheme {self.name!r} is inconsistent: " + "; ".join(problems))
        for key, val in (("A", A), ("c", A.sum(axis=1)), ("b", b), ("b_hat", b_hat)):
            object.__setattr__(self, key, val)

    @staticmethod
    def _check_product(what: str, p: Exponentials, s: int, limit: int) -> list[str]:
        out = []
        if p.start >= limit:
            out.append(f"{what} starts from stage point {p.start + 1}, not yet available")
        for j, row in enumerate(p.factors):
            if len(row) != s:
                out.append(f"{what}, exponential {j + 1}: {len(row)} coefficients for {s} stages")
            elif any(abs(x) > 0 for x in row[limit:]):
                out.append(
                    f"{what}, exponential {j + 1} uses a stage ≥ {limit + 1} (the scheme would be implicit)"
                )
        return out

    @staticmethod
    def _effective(p: Exponentials, A: FloatArray) -> FloatArray:
        base = A[p.start] if p.start >= 0 else np.zeros(A.shape[1])
        return base + np.sum(np.array(p.factors, dtype=float).reshape(-1, A.shape[1]), axis=0)

    @property
    def error_order(self) -> int | None:
        return None if self.embedded_order is None else min(self.order, self.embedded_order)

    @property
    def n_exponentials(self) -> int:
        """Exponentials per step (stages + output), without the embedded solution."""
        return sum(len(st.factors) for st in self.stages[: self.n_main]) + len(self.output.factors)


@dataclass(frozen=True)
class CommutatorFree(_OnSpace):
    """The commutator-free / Crouch–Grossman engine: one class, any ``CFScheme``."""

    scheme: CFScheme
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.scheme.name)

    @property
    def order(self) -> int:
        return self.scheme.order

    @property
    def error_order(self) -> int | None:
        return self.scheme.error_order

    @staticmethod
    def _point(space: HomogeneousSpace, p: Exponentials, h: float, F: FloatArray, y: FloatArray,
               Y: list[FloatArray]) -> FloatArray: 
        m = y if p.start < 0 else Y[p.start]
        for row in p.factors:
            m = space.exp_act(h * (np.asarray(row) @ F), m)
        return m

    def step(self, ode: HomogeneousSpaceODE, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        sc, sp = self.scheme, ode.space
        s = len(sc.stages)
        F = np.zeros((s, sp.dim))
        Y: list[FloatArray] = []

        def evaluate(r: int) -> None:
            Y.append(self._point(sp, sc.stages[r], h, F, y, Y))
            F[r] = ode.algebra_field(t + sc.c[r] * h, Y[r])

        for r in range(sc.n_main):
            evaluate(r)
        y1 = self._point(sp, sc.output, h, F, y, Y)
        if sc.embedded is None:
            return Step(y1, None, evaluations=sc.n_main)
        embedded = sc.embedded

        def estimate() -> tuple[FloatArray, FloatArray]:
            for r in range(sc.n_main, s):
                evaluate(r)
            return y1 - self._point(sp, embedded, h, F, y, Y), np.maximum(np.abs(y), np.abs(y1))

        return Step(y1, None, estimate=estimate, evaluations=sc.n_main)


def _e(start: int, *factors: tuple[float, ...]) -> Exponentials:
    return Exponentials(start, tuple(tuple(float(x) for x in f) for f in factors))


_Y0 = _e(-1)
CF4 = CFScheme(
    "cf4",
    stages=(_Y0, _e(-1, (0.5, 0, 0, 0)), _e(-1, (0, 0.5, 0, 0)), _e(1, (-0.5, 0, 1, 0))),
    output=_e(-1, (3 / 12, 2 / 12, 2 / 12, -1 / 12), (-1 / 12, 2 / 12, 2 / 12, 3 / 12)),
    order=4, references="seed 000 eq. (9); Celledoni, Marthinsen & Owren (2003)",
)
CF3A = CFScheme(
    "cf3a",
    stages=(_Y0, _e(-1, (1 / 3, 0, 0)), _e(-1, (0, 2 / 3, 0))),
    output=_e(1, (-1 / 12, 0, 3 / 4)), order=3,
    embedded=_e(-1, (0, 0.5, 0.5)), embedded_order=2,
    references="seed 000 §4, CF 3(2) variant A (Curry & Owren)",
)
CF3B = CFScheme(
    "cf3b",
    stages=(_Y0, _e(-1, (2 / 3, 0, 0)), _e(-1, (5 / 12, 1 / 4, 0))),
    output=_e(2, (-1 / 6, -1 / 2, 1)), order=3,
    embedded=_e(-1, (1 / 4, 0, 3 / 4)), embedded_order=2,
    references="seed 000 §4, CF 3(2) variant B (Curry & Owren); the extraction drops a ')' in Y_3",
)
CF43 = CFScheme(
    "cf43",
    stages=CF4.stages[:1] + tuple(_e(p.start, *(row + (0.0,) for row in p.factors)) for p in CF4.stages[1:])
    + (_e(-1, (0, 3 / 4, 0, 0, 0)),),
    output=_e(-1, (3 / 12, 2 / 12, 2 / 12, -1 / 12, 0), (-1 / 12, 2 / 12, 2 / 12, 3 / 12, 0)), order=4,
    embedded=_e(-1, (1 / 3, 0, 0, 0, 0), (-1 / 9, 3 / 9, 0, 0, 4 / 9)), embedded_order=3, n_main=4,
    references="seed 000 eq. (34): CF4 with a 3rd-order companion on Ȳ_3 = exp(3/4 h f_2)·y_n",
)
CG3 = CFScheme(
    "cg3",
    stages=(_Y0, _e(-1, (3 / 4, 0, 0)), _e(-1, (119 / 216, 0, 0), (0, 17 / 108, 0))),
    output=_e(-1, (13 / 51, 0, 0), (0, -2 / 3, 0), (0, 0, 24 / 17)), order=3,
    references="Crouch & Grossman (1993), third order; coefficients as in Owren & Marthinsen (1999)",
)
CF_SCHEMES: dict[str, CFScheme] = {s.name: s for s in (CF4, CF3A, CF3B, CF43, CG3)}

__all__ = ["CF3A", "CF3B", "CF4", "CF43", "CF_SCHEMES", "CG3", "CFScheme", "CommutatorFree", "Exponentials"]
