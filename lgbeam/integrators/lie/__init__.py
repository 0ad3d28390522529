"""Lie group integrators on homogeneous spaces (seed 000): RKMK with exact or truncated dexp⁻¹, Casas–Owren,
commutator-free and Crouch–Grossman schemes, embedded pairs under the controller (33), ambient baselines.
Docs: docs/lie-group-methods.md.

SLGI(θ) (seed 000 (15)–(17)) integrates a ``CotangentHamiltonian`` on T*G ≅ G ⋉ g*.

``ENTRIES`` are this family's rows of the method registry (``lgbeam.integrators.registry``): (name, family,
factory, summary, options). Option ``dexp_degree`` (RKMK with a tableau): None for the exact dexp⁻¹, else
the highest power of ad kept in the Bernoulli series (8). SLGI: ``solver`` ("newton" | "fixed-point"),
``tol``, ``max_iter``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from lgbeam.integrators.lie.commutator_free import CF_SCHEMES, CommutatorFree
from lgbeam.integrators.lie.control import AbsoluteErrorStep, seed_controller
from lgbeam.integrators.lie.rkmk import HEUN, KUTTA3, LIE_EULER, AmbientRK, CasasOwren4, HomogeneousRKMK
from lgbeam.integrators.lie.slgi import SLGI
from lgbeam.integrators.tableaux import CLASSICAL_TABLEAUX

_RKMK = (
    ("hs-lie-euler", LIE_EULER, "Lie–Euler y1 = exp(h f(y0))·y0, order 1 (seed 000 §2.2)"),
    ("hs-heun", HEUN, "RKMK with Heun's tableau ('Lie–Euler–Heun'), order 2 (seed 000 Fig. 5)"),
    ("hs-rkmk3", KUTTA3, "RKMK with Kutta's third-order tableau, order 3 (seed 000 Fig. 5)"),
    ("hs-rkmk4", CLASSICAL_TABLEAUX["rk4"], "RKMK with classical RK4 on a homogeneous space, order 4 (seed 000 (6))"),
    ("hs-rkmk5", CLASSICAL_TABLEAUX["dopri5"],
     "RKMK(5,4) with DOPRI 5(4), embedded estimate in the algebra (adaptive), order 5 (seed 000 §4)"),
)
ENTRIES: list[tuple[str, str, Callable[..., Any], str, tuple[str, ...]]] = [
    (name, "lie-action", partial(HomogeneousRKMK, tableau=tab, name=name), summary, ("dexp_degree",))
    for name, tab, summary in _RKMK
]
ENTRIES.append(("hs-rkmk4-2c", "lie-action", CasasOwren4,
                "RKMK4 with two commutators, no dexp⁻¹ (Casas–Owren; seed 000 §2.3)", ()))
_CF_SUMMARY = {
    "cf4": "commutator-free 4th order, 5 exponentials (seed 000 eq. (9))",
    "cf3a": "commutator-free 3(2) pair A, embedded on M (adaptive; seed 000 §4)",
    "cf3b": "commutator-free 3(2) pair B, embedded on M (adaptive; seed 000 §4)",
    "cf43": "CF4 with the 3rd-order companion (34), embedded on M (adaptive; seed 000 §4)",
    "cg3": "Crouch–Grossman 3rd order, one exponential per coefficient (Crouch & Grossman 1993)",
}
ENTRIES += [(name, "lie-action", partial(CommutatorFree, scheme=CF_SCHEMES[name]), summary, ())
            for name, summary in _CF_SUMMARY.items()]
ENTRIES += [
    ("ambient-rk4", "lie-action", partial(AmbientRK, tableau=CLASSICAL_TABLEAUX["rk4"], name="ambient-rk4"),
     "classical RK4 in the embedding space (leaves the manifold; seed 000 Figs 6–7 baseline)", ()),
    ("ambient-dopri5", "lie-action", partial(AmbientRK, tableau=CLASSICAL_TABLEAUX["dopri5"], name="ambient-dopri5"),
     "DOPRI 5(4) in the embedding space (adaptive; leaves the manifold; seed 000 ODE45 baseline)", ()),
]

_SLGI_OPTIONS = ("solver", "tol", "max_iter")
ENTRIES += [
    ("slgi", "lie-symplectic", partial(SLGI, theta=0.5, name="slgi"),
     "symplectic Lie group integrator SLGI(θ = ½) on T*G, implicit, order 2 (seed 000 (15)–(17))", _SLGI_OPTIONS),
    ("slgi-0", "lie-symplectic", partial(SLGI, theta=0.0, name="slgi-0"),
     "SLGI(θ = 0) on T*G, symplectic-Euler-like, order 1 (seed 000 (15)–(17))", _SLGI_OPTIONS),
    ("slgi-1", "lie-symplectic", partial(SLGI, theta=1.0, name="slgi-1"),
     "SLGI(θ = 1) on T*G, adjoint of SLGI(0), order 1 (seed 000 (15)–(17))", _SLGI_OPTIONS),
]

__all__ = ["ENTRIES", "SLGI", "AbsoluteErrorStep", "AmbientRK", "CasasOwren4", "CommutatorFree", "HomogeneousRKMK",
           "seed_controller"]
