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

Each family is imported only when asked for (issue 34: a gen-alpha run imports neither the Poisson, spectral,
rigid-body nor spheres methods): ``_FAMILIES`` names every method and protocol of each family without importing
it, ``method_entry(name)`` loads the family of ``name`` and ``methods_for(protocol)`` the families that integrate
``protocol``; ``METHODS`` (every entry, in the order of ``_FAMILIES``) loads all of them on first use.
``tests/test_startup.py`` checks the index against the loaded entries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from lgbeam.integrators.base import Integrator

if TYPE_CHECKING:  # a module attribute built on first use (``__getattr__``): every family imported then
    METHODS: dict[str, MethodEntry]


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
    from lgbeam.integrators.poisson.solver import FixedPoint

    return cls(solver=FixedPoint(tol=tol, max_iter=max_iter), **predictor)


_HERK_OPTIONS = ("project_steps", "project_initial", "consistency_tol")
_SOLVER_OPTIONS = ("tol", "max_iter")


def _half_explicit() -> list[MethodEntry]:
    from lgbeam.integrators.half_explicit import HalfExplicitRK
    from lgbeam.integrators.tableaux import HALF_EXPLICIT_TABLEAUX

    out = []
    for name, tab in HALF_EXPLICIT_TABLEAUX.items():
        emb = " with an embedded error estimate (adaptive)" if tab.b_hat is not None else ""
        out.append(MethodEntry(name, "half-explicit", partial(HalfExplicitRK, tableau=tab),
                               f"half-explicit RK Lie group method, order {tab.order}{emb} (seed 004 Table 1)",
                               _HERK_OPTIONS))
    return out


def _rkmk() -> list[MethodEntry]:
    from lgbeam.integrators.rkmk import RKMK, RKMK_TABLEAUX

    return [MethodEntry(name, "rkmk", partial(RKMK, tableau=tab, name=name),
                        f"Runge–Kutta–Munthe-Kaas, tableau {tab.name}, order {tab.order} (seed 000 §2)")
            for name, tab in RKMK_TABLEAUX.items()]


def _poisson_family() -> list[MethodEntry]:
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
    from lgbeam.integrators.poisson.spectral import ENTRIES as SPECTRAL_POISSON

    poisson = (
        ("exp-midpoint", ExponentialMidpoint, True, "exponential midpoint, a Poisson map (seed 003 (2.7))"),
        ("disex", Disex, True, "DISEX, composed exponential midpoints, order 5 (seed 003 (2.10), Thm 13)"),
        ("energy-exp", EnergyPreservingExponential, True, "energy-preserving exponential (seed 003 (2.14))"),
        ("midpoint", ImplicitMidpoint, False, "implicit midpoint, fixed point (seed 003 (1.37))"),
        ("midpoint-newton", ImplicitMidpointNewton, False, "implicit midpoint, quasi-Newton (seed 003 §2.5.1)"),
        ("discrete-gradient", DiscreteGradientMethod, False, "discrete-gradient method (seed 003 (2.25))"),
    )
    out = []
    for name, cls, predicting, summary in poisson:
        opts = _SOLVER_OPTIONS + (("predictor",) if predicting else ())
        opts += ("stage",) if name in ("exp-midpoint", "disex") else ()  # stage solver (issue 18)
        out.append(MethodEntry(name, "poisson", partial(_poisson, cls), summary, opts))
    out.append(MethodEntry("exp-euler", "poisson", ExponentialEuler, "exponential Euler, explicit (seed 003 (2.4))"))
    out.extend(MethodEntry(*row) for row in (*SPECTRAL_POISSON, ADAPTIVE_POISSON, ETD35_POISSON))  # issue 18
    return out


def _implicit() -> list[MethodEntry]:
    from lgbeam.integrators.generalized_alpha import GeneralizedAlpha
    from lgbeam.integrators.variational import RattleLGVI

    return [
        MethodEntry("gen-alpha", "implicit", GeneralizedAlpha,
                    "Lie group generalized-α, order 2, implicit, ρ∞-controlled damping (Brüls, Cardona & Arnold 2012)",
                    ("rho_inf", "index", "tol", "max_iter", "reuse", "project_initial", "consistency_tol")),
        MethodEntry("rattle-lgvi", "implicit", RattleLGVI,
                    "Lie group variational integrator (RATTLE/SHAKE), symplectic, order 2 (Marsden & West 2001)",
                    ("quadrature", "tol", "max_iter", "project_initial", "consistency_tol")),
    ]


def _integral_preserving() -> list[MethodEntry]:
    from lgbeam.integrators.integral_preserving import ENTRIES

    return [MethodEntry(*row) for row in ENTRIES]  # seeds 002, 003 ch. 4


def _lie() -> list[MethodEntry]:
    from lgbeam.integrators.lie import ENTRIES

    return [MethodEntry(*row) for row in ENTRIES]  # seed 000: homogeneous spaces (issue 14)


def _rigid() -> list[MethodEntry]:
    from lgbeam.integrators.rigid import RIGID_METHODS, RIGID_OPTIONS, RIGID_SUMMARIES

    return [MethodEntry(n, "rigid-body", f, RIGID_SUMMARIES[n], RIGID_OPTIONS) for n, f in RIGID_METHODS.items()]


def _spheres() -> list[MethodEntry]:
    from lgbeam.integrators.spheres import SPHERES_METHODS, SPHERES_OPTIONS, SPHERES_SUMMARIES

    return [MethodEntry(n, "spheres", f, SPHERES_SUMMARIES[n], SPHERES_OPTIONS) for n, f in SPHERES_METHODS.items()]


def _lgvi() -> list[MethodEntry]:
    from lgbeam.integrators.lgvi import LGVI_METHODS, LGVI_OPTIONS, LGVI_SUMMARIES

    return [MethodEntry(n, "lgvi", f, LGVI_SUMMARIES[n], LGVI_OPTIONS[n]) for n, f in LGVI_METHODS.items()]


@dataclass(frozen=True)
class _Family:
    """What the registry knows of a family before importing it: its loader, the protocols (``lgbeam.systems``
    class names) its methods integrate and its method names, in the loader's order."""

    load: Callable[[], list[MethodEntry]]
    protocols: tuple[str, ...]
    names: tuple[str, ...]


_FAMILIES: dict[str, _Family] = {  # the registry's order; checked against the loaders by tests/test_startup.py
    "half-explicit": _Family(_half_explicit, ("ConstrainedMechanicalSystem",), (
        "herk1", "herk2-midpoint", "herk2-heun", "herk2-c2", "herk3", "herk4", "hedop5")),
    "rkmk": _Family(_rkmk, ("LieGroupODE",), (
        "rkmk4", "rkmk5", "rkmk-herk1", "rkmk-herk2-midpoint", "rkmk-herk2-heun", "rkmk-herk2-c2", "rkmk-herk3",
        "rkmk-herk4", "rkmk-hedop5")),
    "poisson": _Family(_poisson_family, ("SemilinearPoissonSystem", "SpectralPoissonSystem"), (
        "exp-midpoint", "disex", "energy-exp", "midpoint", "midpoint-newton", "discrete-gradient", "exp-euler",
        "exp-triple-jump4", "exp-suzuki4", "exp-yoshida6", "exp-kahan-li6", "exp-kahan-li8", "exp-disex", "energy-exp4",
        "exp-suzuki4-adaptive", "etd35")),
    "implicit": _Family(_implicit, ("ConstrainedMechanicalSystem",), ("gen-alpha", "rattle-lgvi")),
    "integral-preserving": _Family(_integral_preserving, (
        "LieGroupFirstIntegral", "SphereFirstIntegral", "HamiltonianSOn", "LiePoissonSOn"), (
        "ep2-gonzalez", "ep2-avf", "lie-midpoint", "lie-heun", "ep4", "sphere-gonzalez", "sphere-avf", "polar-gl1",
        "polar-lp-gl1", "polar-gl2", "polar-lp-gl2", "polar-gl3", "polar-lp-gl3")),
    "lie": _Family(_lie, ("HomogeneousSpaceODE", "CotangentHamiltonian"), (
        "hs-lie-euler", "hs-heun", "hs-rkmk3", "hs-rkmk4", "hs-rkmk5", "hs-rkmk4-2c", "cf4", "cf3a", "cf3b", "cf43",
        "cg3", "ambient-rk4", "ambient-dopri5", "slgi", "slgi-0", "slgi-1")),
    "rigid-body": _Family(_rigid, ("RigidBodySO3",), ("eln", "tln", "liemid", "prk", "mcg", "new3", "vlv")),
    "spheres": _Family(_spheres, ("ProductOfSpheres",), (
        "spheres-eln", "spheres-rkmk4", "spheres-rkmkgl4", "spheres-rattle")),
    "lgvi": _Family(_lgvi, ("RigidBodyInField",), ("lgvi", "rattle-so3", "shake-quat", "lg-stormer-verlet")),
}
_FAMILY_OF = {name: key for key, fam in _FAMILIES.items() for name in fam.names}
_ENTRIES: dict[str, MethodEntry] = {}  # the entries loaded so far; once every family is, ``METHODS`` itself
_LOADED: set[str] = set()


def _load(key: str) -> None:
    """Import the family ``key`` and add its entries (once)."""
    if key in _LOADED:
        return
    _ENTRIES.update((e.name, e) for e in _FAMILIES[key].load())
    _LOADED.add(key)


def __getattr__(name: str) -> Any:
    """``METHODS``: every family loaded, the entries in the registry's order (then cached as the module's)."""
    if name != "METHODS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for key in _FAMILIES:
        _load(key)
    extra = {k: v for k, v in _ENTRIES.items() if k not in _FAMILY_OF}  # added at run time (tests)
    ordered = [(n, _ENTRIES[n]) for fam in _FAMILIES.values() for n in fam.names if n in _ENTRIES]
    _ENTRIES.clear()
    _ENTRIES.update([*ordered, *extra.items()])
    globals()["METHODS"] = _ENTRIES
    return _ENTRIES


def method_entry(name: str) -> MethodEntry:
    """The registry entry of ``name``; an unknown name lists the known ones by family."""
    if name in _FAMILY_OF:
        _load(_FAMILY_OF[name])
    try:
        return _ENTRIES[name]
    except KeyError:
        families: dict[str, list[str]] = {}
        for e in __getattr__("METHODS").values():
            families.setdefault(e.family, []).append(e.name)
        known = "; ".join(f"{fam}: {', '.join(names)}" for fam, names in families.items())
        raise ValueError(f"unknown integrator method {name!r}; known methods — {known}") from None


def make_method(name: str, **options: Any) -> Integrator[Any, Any, Any]:
    """Build the registered method ``name`` with the family's options (see the module docstring)."""
    return method_entry(name).make(**options)


def methods_for(protocol: type) -> list[str]:
    """Names of the registered methods whose ``needs`` is ``protocol`` (only the families that integrate a
    protocol of that name are imported), in the registry's order."""
    keys = [k for k, fam in _FAMILIES.items() if protocol.__name__ in fam.protocols]
    for key in keys:
        _load(key)
    return [n for k in keys for n in _FAMILIES[k].names if _ENTRIES[n].needs is protocol]


def all_methods() -> dict[str, MethodEntry]:
    """``METHODS``: every registered method (all families imported)."""
    methods: dict[str, MethodEntry] = __getattr__("METHODS")  # the module's own PEP 562 hook
    return methods


__all__ = ["METHODS", "MethodEntry", "all_methods", "make_method", "method_entry", "methods_for"]
