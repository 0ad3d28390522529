"""Spatial refinement and the linear regime of the rod (issue 4, "what must be shown").

* ``static_tips``: static tip position of a rod case for several N by the Lie group Newton solver
  (``rods.statics.static_equilibrium``) — the settled state of the damped dynamic case without the
  time integration (the explicit step shrinks like Δs at fixed rotary inertia, so N = 256 by
  dynamics is out of reach; see docs/rod.md "Studies").
* ``linear_modes``: small-amplitude frequencies of the rod about its stress-free reference
  configuration: the constrained eigenproblem

      [ K   Bᵀ ] [φ]        [ M  0 ] [φ]
      [ B   0  ] [μ]  = ω²  [ 0  0 ] [μ],

  i.e. K φ = ω² M φ on ker B, with K the exact tangent stiffness of the forces g(t, q∘exp(εη), 0)
  along left-translated directions (``rods.tangents``, block-tridiagonal sparse),
  M the lumped mass and B the constraint Jacobian at the reference. Solved sparse with ARPACK in
  shift-invert mode (σ = 0; the singular right-hand matrix only adds infinite eigenvalues).
  At a stress-free reference with λ = 0 the linearisation has no geometric stiffness.

Symbols: N (edges), K, M, B as above, ω (rad/s), EI, ρA, L (Euler–Bernoulli data of the case).

References
----------
Seed 004 §4 eq. (23) (strains), (25) (Kirchhoff constraints); Timoshenko, Young & Weaver (1990)
§5.3 (cantilever β_n L, δ = PL³/3EI); Golub & Van Loan (2013) §8.7 (constrained symmetric pencils).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lgbeam._sparse import arpack_start
from lgbeam._typing import FloatArray, IntArray
from lgbeam.apps import load_case
from lgbeam.apps.rod import build, linear_beam_data
from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.fem.euler_bernoulli import EulerBernoulliBeam
from lgbeam.discretisations.rods import tangents
from lgbeam.discretisations.rods.statics import static_equilibrium

logger = logging.getLogger(__name__)


def case_with(name: str, n_elements: int, overrides: Sequence[str] = ()) -> dict[str, Any]:
    """A rod case with ``model.n_elements`` set (validated like ``--set``)."""
    if not (isinstance(n_elements, (int, np.integer)) and n_elements >= 1):
        raise ValueError(f"n_elements must be an integer >= 1, got {n_elements!r}")
    case, _ = load_case(name, [*overrides, f"model.n_elements={int(n_elements)}"])
    if case["kind"] != "rod":
        raise ValueError(f"case {name!r} has kind {case['kind']!r}; the rod studies need a 'rod' case")
    return case


def static_tip(case: dict[str, Any], *, n_load_steps: int = 1) -> FloatArray:
    """Static tip position (3,) of a rod case under its loads at ``time.t_end``."""
    rod, _, _ = build(case)
    q, _ = static_equilibrium(rod, t=float(case["time"]["t_end"]), n_load_steps=n_load_steps)
    return rod.G.translation(q[-1])


def static_tips(name: str, ns: Sequence[int] | IntArray, overrides: Sequence[str] = ()) -> FloatArray:
    """Static tip positions (len(ns), 3) of case ``name`` for N in ``ns``."""
    return np.array([static_tip(case_with(name, n, overrides)) for n in ns])


def spatial_order(ns: Sequence[int] | IntArray, tips: FloatArray,
                  tip_ref: FloatArray) -> tuple[FloatArray, float]:
    """Tip errors |x_N − x_ref| and the fitted order −slope of log(error) against log(N)."""
    errs = np.linalg.norm(np.asarray(tips) - np.asarray(tip_ref), axis=-1)
    return errs, -observed_order(ns, errs)


def tangent_stiffness(rod: Any, q: FloatArray, t: float = 0.0) -> sp.csr_array:
    """Unloaded tangent stiffness K = ∂g_int/∂η at q (v = 0, loads off), sparse (6(N+1), 6(N+1)).

    The rod's exact tangent (``rods.tangents.internal_stiffness``: elastic forces and spring supports through
    the derivatives of the group maps), symmetrised (symmetric at a stress-free reference)."""
    K = tangents.internal_stiffness(rod, q, t=t)
    return ((K + K.T) * 0.5).tocsr()


@dataclass(frozen=True)
class RodModes:
    """Linearised modes: ω (rad/s) ascending, body-frame nodal displacement shapes (n, N+1, 6)."""

    omega: FloatArray
    shapes: FloatArray


def linear_modes(rod: Any, n_modes: int, q: FloatArray | None = None) -> RodModes:
    """The ``n_modes`` lowest frequencies of K φ = ω² M φ on ker B(q) (module docstring)."""
    q = rod.q_ref if q is None else np.asarray(q, float)
    n_dof, m = 6 * rod.n_nodes, rod.n_constraints
    if not (isinstance(n_modes, (int, np.integer)) and 1 <= n_modes < n_dof - m - 1):
        raise ValueError(f"n_modes must be an integer in [1, {n_dof - m - 2}] for this rod, got {n_modes!r}")
    K, M, B = tangent_stiffness(rod, q), sp.csr_array(rod.mass(q)), sp.csr_array(rod.constraint_jacobian(q))
    A = sp.block_array([[K, B.T], [B, None]], format="csc")
    Mb = sp.block_diag([M, sp.csr_array((m, m))], format="csc")
    lam, vec = spla.eigsh(A, k=n_modes, M=Mb, sigma=0.0, which="LM", v0=arpack_start(A.shape[0]))
    order = np.argsort(lam)
    lam, vec = lam[order], vec[:n_dof, order]
    if np.any(lam <= 0):
        raise ValueError(f"rod has zero or negative stiffness modes (ω² = {lam.min():.3g}); constrain the rigid motion")
    return RodModes(omega=np.sqrt(lam), shapes=vec.T.reshape(n_modes, rod.n_nodes, 6))


def transverse_frequencies(case: dict[str, Any], n_bending: int, *, rotary_inertia_scale: float = 1.0) -> FloatArray:
    """Rod frequencies of the bending modes that deflect along ``model.transverse`` (d1 or d2).

    Modes are classified by their body-frame nodal displacements: a mode counts if its largest
    translational component is along the case's transverse director. ``rotary_inertia_scale``
    multiplies ρJ: the rod is a Rayleigh beam (rotary inertia ρI), whose frequencies lie below the
    Euler–Bernoulli ones by about ½(β_n r)² relative (r² = I/A); a small scale isolates the
    discretisation error from this model difference.
    """
    rod, _, _ = build(case)
    if rotary_inertia_scale != 1.0:
        if not rotary_inertia_scale > 0:
            raise ValueError(f"rotary_inertia_scale must be positive, got {rotary_inertia_scale}")
        mat = dataclasses.replace(rod.material, rhoJ=rod.material.rhoJ * rotary_inertia_scale)
        rod = dataclasses.replace(rod, material=mat)
    k = 0 if case["model"]["transverse"] == "d1" else 1
    n_try = min(4 * n_bending + 4, 6 * rod.n_nodes - rod.n_constraints - 2)
    modes = linear_modes(rod, n_try)
    U = np.abs(modes.shapes[..., 3:]).max(axis=1)  # (n_modes, 3): largest |U_j| per component
    sel = modes.omega[np.argmax(U, axis=1) == k]
    if sel.size < n_bending:
        raise ValueError(f"found only {sel.size} bending modes along the transverse director with N = "
                         f"{rod.mesh.n_elements}; refine the mesh or ask for fewer modes")
    return sel[:n_bending]


def euler_bernoulli_reference(case: dict[str, Any], n_modes: int, n_elements: int = 64) -> dict[str, Any]:
    """scikit-fem Euler–Bernoulli values of a straight rod case: ω_n, static tip compliance δ/P,
    and the closed forms (β_n L)² √(EI/ρA L⁴) and L³/3EI (cantilever)."""
    data = linear_beam_data(case)
    beam = EulerBernoulliBeam(length=data["length"], EI=data["EI"], rhoA=data["rhoA"], n_elements=n_elements,
                              left=data["left"], right=data["right"])
    out: dict[str, Any] = {"omega_fem": beam.modes(n_modes).omega, "omega_exact": beam.closed_form_omega(n_modes)}
    if data["left"] == "clamped" and data["right"] == "free":
        out["compliance_fem"] = beam.static(tip_force=1.0).tip
        out["compliance_exact"] = data["length"] ** 3 / (3.0 * data["EI"])
    return out
