"""Integral-preserving and symplectic Lie group methods: discrete gradients on Lie groups and spheres, EP
collocation (seed 002), and the polar-decomposition variational integrators on SO(n) (seed 003 ch. 4).
Docs: docs/discrete-gradients.md, docs/polar-symplectic.md.

``ENTRIES`` are this family's rows of the method registry (``lgbeam.integrators.registry``): (name,
family, factory, summary, options). Options: ``tol``, ``max_iter`` (fixed-point solver) for every implicit
method, ``quadrature`` (Gauss points) for the AVF and collocation methods, ``solver`` ("fixed-point" |
"newton") for the polar methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lgbeam.integrators.integral_preserving.collocation import EPCollocation
from lgbeam.integrators.integral_preserving.differentials import (
    SphereAVF,
    SphereGonzalez,
    TrivialisedAVF,
    TrivialisedGonzalez,
)
from lgbeam.integrators.integral_preserving.methods import (
    LieDiscreteGradient,
    LieHeun,
    LieMidpoint,
    SphereRetractionMethod,
)
from lgbeam.integrators.integral_preserving.polar import GL_TABLEAUX, PolarLiePoisson, PolarVI
from lgbeam.integrators.poisson.solver import FixedPoint


def _fp(tol: float, max_iter: int) -> FixedPoint:
    return FixedPoint(tol=tol, max_iter=max_iter)


def _ep2(kind: str, *, tol: float = 1e-14, max_iter: int = 500, quadrature: int = 4) -> LieDiscreteGradient:
    diff = TrivialisedGonzalez() if kind == "gonzalez" else TrivialisedAVF(quadrature)
    return LieDiscreteGradient(diff, _fp(tol, max_iter), name=f"ep2-{kind}")


def _midpoint(*, tol: float = 1e-14, max_iter: int = 500) -> LieMidpoint:
    return LieMidpoint(_fp(tol, max_iter))


def _ep4(*, tol: float = 1e-14, max_iter: int = 500, quadrature: int = 8) -> EPCollocation:
    return EPCollocation(stages=2, quadrature=quadrature, solver=_fp(tol, max_iter), name="ep4")


def _sphere(kind: str, *, tol: float = 1e-14, max_iter: int = 500, quadrature: int = 8) -> SphereRetractionMethod:
    diff = SphereGonzalez() if kind == "gonzalez" else SphereAVF(quadrature)
    return SphereRetractionMethod(diff, _fp(tol, max_iter), name=f"sphere-{kind}")


def _polar(tab: str, reduced: bool, *, tol: float = 1e-14, max_iter: int = 200, solver: str = "fixed-point") -> PolarVI:
    cls = PolarLiePoisson if reduced else PolarVI
    return cls(GL_TABLEAUX[tab], tol=tol, max_iter=max_iter, solver=solver)


def _partial(fn: Callable[..., Any], *args: Any) -> Callable[..., Any]:
    return lambda **options: fn(*args, **options)


_SOLVER = ("tol", "max_iter")
ENTRIES: list[tuple[str, str, Callable[..., Any], str, tuple[str, ...]]] = [
    ("ep2-gonzalez", "integral-preserving", _partial(_ep2, "gonzalez"),
     "symmetric Lie group discrete-gradient method, Gonzalez differential, keeps H exactly, order 2 (seed 002 (13), (15))",
     _SOLVER),
    ("ep2-avf", "integral-preserving", _partial(_ep2, "avf"),
     ("symmetric Lie group discrete-gradient method, AVF differential, keeps H to quadrature accuracy, order 2 "
     "(seed 002 (13), (14))"), _SOLVER + ("quadrature",)),
    ("lie-midpoint", "integral-preserving", _midpoint,
     "symmetric Lie group midpoint x1 = exp(h xi(exp(eta/2) x0)) x0, order 2 (seed 002 §5.2, alpha = 0)", _SOLVER),
    ("lie-heun", "integral-preserving", LieHeun, "explicit Lie group Heun, order 2 (seed 002 §5 baseline)", ()),
    ("ep4", "integral-preserving", _ep4,
     "energy-preserving Lie group collocation, 2 Gauss nodes, order 4 (seed 002 §4, Example 2)",
     _SOLVER + ("quadrature",)),
    ("sphere-gonzalez", "integral-preserving", _partial(_sphere, "gonzalez"),
     "retraction discrete-gradient method on S^(n-1), Gonzalez, order 2 (seed 002 (16), (19))", _SOLVER),
    ("sphere-avf", "integral-preserving", _partial(_sphere, "avf"),
     "retraction discrete-gradient method on S^(n-1), AVF, order 2 (seed 002 (16), (18))", _SOLVER + ("quadrature",)),
]
for _s in (1, 2, 3):
    ENTRIES.append((f"polar-gl{_s}", "polar-symplectic", _partial(_polar, f"gl{_s}", False),
                    (f"polar-decomposition symplectic method on SO(n), Hamiltonian form, GL{_s}, order {2 * _s} "
                    "(seed 003 (4.26))"), _SOLVER + ("solver",)))
    ENTRIES.append((f"polar-lp-gl{_s}", "polar-symplectic", _partial(_polar, f"gl{_s}", True),
                    f"polar-decomposition Lie–Poisson method on SO(n), GL{_s}, order {2 * _s} (seed 003 (4.27))",
                    _SOLVER + ("solver",)))

__all__ = ["ENTRIES"]
