"""The one registry of time-integration methods: name → family, factory, order, the protocol it needs.

Every family has the same entry shape, so the CLI's method list, the order tests
(``tests/test_orders.py``, generated from this table) and the driver's contract check read one place.
A method added here without a reference problem for its protocol fails the order tests.

``make_method(name, **options)`` builds a method; options are the family's documented knobs (unknown
ones are refused, listing the valid ones):

- half-explicit: ``project_steps``, ``project_initial``, ``consistency_tol``;
- rkmk: none;
- poisson: ``tol``, ``max_iter`` (the fixed-point solver) and, for exp-midpoint, disex and energy-exp,
  ``predictor``; exp-midpoint, disex and the Fourier-space compositions (exp-suzuki4, …) also ``stage``
  ("fixed-point" | "newton" | "exact" | "auto", ``lgbeam.integrators.poisson.stage``);
- implicit: gen-alpha ``rho_inf``, ``index`` ("3" | "2-stabilised"), ``tol``, ``max_iter``, ``reuse``;
  rattle-lgvi ``quadrature`` ("midpoint" | "trapezoidal"), ``tol``, ``max_iter``; both ``project_initial``,
  ``consistency_tol``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from lgbeam.integrators.base import Integrator
from lgbeam.integrators.generalized_alpha import GeneralizedAlpha
from lgbeam.integrators.half_explicit import HalfExplicitRK
from lgbeam.integrators.integral_preserving import ENTRIES as INTEGRAL_PRESERVING
from lgbeam.integrators.lgvi import LGVI_METHODS, LGVI_OPTIONS, LGVI_SUMMARIES
from lgbeam.integrators.lie import ENTRIES as LIE_ACTION
from lgbeam.integrators.poisson.adaptive import ENTRY as ADAPTIVE_POISSON
from lgbeam.integrators.poisson.baselines import (
    DiscreteGradientMethod,
    ImplicitMidpoint,
    ImplicitMidpointNewton,
)
from lgbeam.integrators.poisson.etd import ENTRY as ETD35_POISSON
from lgbeam.integrators.poisson.exponential import (
    Disex,
    EnergyPreservingExponential,
    ExponentialEuler,
    ExponentialMidpoint,
)
from lgbeam.integrators.poisson.solver import FixedPoint
from lgbeam.integrators.poisson.spectral import ENTRIES as SPECTRAL_POISSON
from lgbeam.integrators.rigid import RIGID_METHODS, RIGID_OPTIONS, RIGID_SUMMARIES
from lgbeam.integrators.rkmk import RKMK, RKMK_TABLEAUX
from lgbeam.integrators.spheres import SPHERES_METHODS, SPHERES_OPTIONS, SPHERES_SUMMARIES
from lgbeam.integrators.tableaux import HALF_EXPLICIT_TABLEAUX
from lgbeam.integrators.variational import RattleLGVI


@dataclass(frozen=True)
class MethodEntry:
    """One registered method: its family, a factory taking the family's options, and a one-line summary."""

    name: str
    family: str
    factory: Callable[..., Integrator[Any, Any, Any]]
    summary: str
    options: tuple[str, ...] = ()
    _probe: Integrator[Any, Any, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_probe", self.factory())

    @property
    def order(self) -> int:
        return int(self._probe.order)

    @property
    def needs(self) -> type:
        """The system protocol (``lgbeam.systems``) the method integrates."""
        return self._probe.system_type

    @property
    def requires(self) -> tuple[type, ...]:
        """Optional capabilities the system must also have."""
        return tuple(self._probe.requires)

    @property
    def adaptive(self) -> bool:
        """True when the method has an embedded error estimate (``AdaptiveStep`` allowed)."""
        return self._probe.error_order is not None

    def make(self, **options: Any) -> Integrator[Any, Any, Any]:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            valid = ", ".join(self.options) or "none"
            raise ValueError(
                f"method {self.name!r} has no option {', '.join(map(repr, unknown))}; valid options: {valid}"
            )
        return self.factory(**options)


def _poisson(cls: type, *, tol: float = 1e-14, max_iter: int = 100, **predictor: Any) -> Any:
    """A Poisson method with its fixed-point solver (``tol``, ``max_iter``) and, if it has one,
    ``predictor``."""
    return cls(solver=FixedPoint(tol=tol, max_iter=max_iter), **predictor)


_HERK_OPTIONS = ("project_steps", "project_initial", "consistency_tol")
_SOLVER_OPTIONS = ("tol", "max_iter")


def _entries() -> dict[str, MethodEntry]:
    out: list[MethodEntry] = []
    for name, tab in HALF_EXPLICIT_TABLEAUX.items():
        emb = " with an embedded error estimate (adaptive)" if tab.b_hat is not None else ""
        out.append(
            MethodEntry(
                name,
                "half-explicit",
                partial(HalfExplicitRK, tableau=tab),
                f"half-explicit RK Lie group method, order {tab.order}{emb} (seed 004 Table 1)",
                _HERK_OPTIONS,
            )
        )
    for name, tab in RKMK_TABLEAUX.items():
        out.append(
            MethodEntry(
                name,
                "rkmk",
                partial(RKMK, tableau=tab, name=name),
                f"Runge–Kutta–Munthe-Kaas, tableau {tab.name}, order {tab.order} (seed 000 §2)",
            )
        )
    poisson = (
        ("exp-midpoint", ExponentialMidpoint, True, "exponential midpoint, a Poisson map (seed 003 (2.7))"),
        ("disex", Disex, True, "DISEX, composed exponential midpoints, order 5 (seed 003 (2.10), Thm 13)"),
        ("energy-exp", EnergyPreservingExponential, True, "energy-preserving exponential (seed 003 (2.14))"),
        ("midpoint", ImplicitMidpoint, False, "implicit midpoint, fixed point (seed 003 (1.37))"),
        (
            "midpoint-newton",
            ImplicitMidpointNewton,
            False,
            "implicit midpoint, quasi-Newton (seed 003 §2.5.1)",
        ),
        ("discrete-gradient", DiscreteGradientMethod, False, "discrete-gradient method (seed 003 (2.25))"),
    )
    for name, cls, predicting, summary in poisson:
        opts = _SOLVER_OPTIONS + (("predictor",) if predicting else ())
        opts += ("stage",) if name in ("exp-midpoint", "disex") else ()  # stage solver (issue 18)
        out.append(MethodEntry(name, "poisson", partial(_poisson, cls), summary, opts))
    out.append(
        MethodEntry("exp-euler", "poisson", ExponentialEuler, "exponential Euler, explicit (seed 003 (2.4))")
    )
    out.extend(MethodEntry(*row) for row in (*SPECTRAL_POISSON, ADAPTIVE_POISSON, ETD35_POISSON))  # issue 18
    out.append(
        MethodEntry(
            "gen-alpha",
            "implicit",
            GeneralizedAlpha,
            "Lie group generalized-α, order 2, implicit, ρ∞-controlled damping (Brüls, Cardona & Arnold 2012)",
            ("rho_inf", "index", "tol", "max_iter", "reuse", "project_initial", "consistency_tol"),
        )
    )
    out.append(
        MethodEntry(
            "rattle-lgvi",
            "implicit",
            RattleLGVI,
            "Lie group variational integrator (RATTLE/SHAKE), symplectic, order 2 (Marsden & West 2001)",
            ("quadrature", "tol", "max_iter", "project_initial", "consistency_tol"),
        )
    )
    out.extend(MethodEntry(*row) for row in INTEGRAL_PRESERVING)  # seeds 002, 003 ch. 4
    out.extend(MethodEntry(*row) for row in LIE_ACTION)  # seed 000: homogeneous spaces (issue 14)
    out += [
        MethodEntry(n, "rigid-body", f, RIGID_SUMMARIES[n], RIGID_OPTIONS) for n, f in RIGID_METHODS.items()
    ]
    out += [
        MethodEntry(n, "spheres", f, SPHERES_SUMMARIES[n], SPHERES_OPTIONS)
        for n, f in SPHERES_METHODS.items()
    ]
    out += [MethodEntry(n, "lgvi", f, LGVI_SUMMARIES[n], LGVI_OPTIONS[n]) for n, f in LGVI_METHODS.items()]
    return {e.name: e for e in out}


METHODS: dict[str, MethodEntry] = _entries()


def method_entry(name: str) -> MethodEntry:
    """The registry entry of ``name``; an unknown name lists the known ones by family."""
    try:
        return METHODS[name]
    except KeyError:
        families: dict[str, list[str]] = {}
        for e in METHODS.values():
            families.setdefault(e.family, []).append(e.name)
        known = "; ".join(f"{fam}: {', '.join(names)}" for fam, names in families.items())
        raise ValueError(f"unknown integrator method {name!r}; known methods — {known}") from None


def make_method(name: str, **options: Any) -> Integrator[Any, Any, Any]:
    """Build the registered method ``name`` with the family's options (see the module docstring)."""
    return method_entry(name).make(**options)


def methods_for(protocol: type) -> list[str]:
    """Names of the registered methods whose ``needs`` is ``protocol``."""
    return [e.name for e in METHODS.values() if e.needs is protocol]


__all__ = ["METHODS", "MethodEntry", "make_method", "method_entry", "methods_for"]
