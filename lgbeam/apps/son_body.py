"""The ``son-body`` case kind: seed 003 ch. 4's free rigid body and heavy top on SO(n), integrated by the
polar-decomposition variational integrators (``polar-gl1/2/3``: Hamiltonian form (4.26); ``polar-lp-gl1/2/3``:
Lie–Poisson form (4.27), free body only; docs/polar-methods.md).

Defaults: seed 003 §4.5 (Figs 4.1–4.2): J = diag(1, 2, 3), μ₀ = (0.5, −0.5, 0.5), g₀ = I, polar-lp-gl2,
h = 0.2 on [0, 100]. Notes C.8 (an independent re-implementation): max |H − H₀| = 2.72e-8, |m − m_ref| at
t = 100 = 6.21e-5 (tests/test_seed_cases_lie.py checks both).

Writes solution.npz (t; g (n_t, n, n), mu (n_t, n, n); for n = 3 also m, positions (the body's origin),
rotations; the trajectory errors against a DOP853 reference at the saved times: m_error = ‖μ − μ_ref‖_F/√2
(= |m − m_ref| for n = 3), g_error = max |g − g_ref|; energy, casimir ‖μ‖_F/√2, and for the heavy top the
vertical momentum e·(g m)), diagnostics.csv (the method's per-step energy, Casimir, ‖gᵀg − I‖, iterations),
a ParaView series (the body as a vertex at the origin carrying its frame g e₁, g e₂, g e₃ (first three
columns and rows for n > 3) and the spatial momentum) and figures/son-body.png (Fig. 4.1 energy error and
Fig. 4.2 trajectory error).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.apps._figures import load_run, new_figure, save
from lgbeam.apps._runner import Problem, index_at_reference_end, run_problem
from lgbeam.groups.base import vee3
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.models.son_bodies import FreeRigidBodySOn, HeavyTopSOn, from_inertia
from lgbeam.solve import Solution
from lgbeam.systems import HamiltonianSOn, LiePoissonSOn

METHODS = tuple(dict.fromkeys((*methods_for(LiePoissonSOn), *methods_for(HamiltonianSOn))))

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("son-body",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "body": Key(str, "free", doc="free: the free rigid body (every polar-* method); heavy-top: adds V(g) = eᵀ g χ "
                    "(polar-gl* only: no Lie–Poisson form)", choices=("free", "heavy-top")),
        "inertia": Key(list, [1.0, 2.0, 3.0], doc="n = 3 principal moments J (seed 003 §4.5: 1, 2, 3)"),
        "d": Key(list, [], doc="the generalised body's n mass-matrix eigenvalues d_i (Ω_ij = μ_ij/(d_i + d_j)); "
                 "given, it replaces model.inertia and sets n"),
        "chi": Key(list, [0.3, 0.2, 1.0], doc="heavy top: the body vector χ of V(g) = eᵀ g χ (notes C.8)"),
    },
    "initial": {
        "mu": Key(list, [0.5, -0.5, 0.5], doc="initial body momentum: a 3-vector m (n = 3, μ = hat(m)) or an n × n "
                  "skew matrix"),
        "g": Key(list, [], doc="initial attitude g₀ ∈ SO(n) as an n × n list (empty: the identity)"),
    },
    "integrator": integrator_section(METHODS, "polar-lp-gl2", h=0.2, rtol=None, atol=None),
    "time": time_section(100.0),
    "output": output_section(0.4),
}


def build(case: dict[str, Any]) -> tuple[FreeRigidBodySOn | HeavyTopSOn, np.ndarray]:
    """(body, y0) of a validated case; ValueError (exit 2) for inconsistent data."""
    m, ini = case["model"], case["initial"]
    try:
        if m["d"]:
            d = tuple(float(v) for v in m["d"])
        else:
            inertia = np.asarray(m["inertia"], dtype=float)
            if inertia.shape != (3,) or np.any(inertia <= 0) or not np.all(np.isfinite(inertia)):
                raise ValueError(f"model.inertia must be 3 positive moments, got {m['inertia']!r}")
            d = from_inertia(tuple(inertia))  # type: ignore[arg-type]
        body: FreeRigidBodySOn | HeavyTopSOn
        if m["body"] == "free":
            body = FreeRigidBodySOn(d)
        else:
            body = HeavyTopSOn(d, chi=tuple(float(v) for v in m["chi"]))
        g0 = np.asarray(ini["g"], dtype=float) if ini["g"] else None
        if g0 is not None and (g0.shape != (body.n, body.n) or np.abs(g0.T @ g0 - np.eye(body.n)).max() > 1e-12
                               or np.linalg.det(g0) < 0):
            raise ValueError(f"initial.g must be a rotation ({body.n} × {body.n}, gᵀg = I to 1e-12, det 1), got "
                             f"{ini['g']!r}")
        y0 = body.initial_state(np.asarray(ini["mu"], dtype=float), g0)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"son-body case: {exc}") from None
    return body, y0


def _check_method(case: dict[str, Any]) -> None:
    name = case["integrator"]["method"]
    if case["model"]["body"] == "heavy-top" and name.startswith("polar-lp"):
        raise ValueError(f"integrator.method = {name!r} is the Lie–Poisson form (4.27), which needs a left-invariant "
                         "Hamiltonian; the heavy top has none: use polar-gl1, polar-gl2 or polar-gl3")


def problem(case: dict[str, Any]) -> Problem:
    """The body of a validated case as a ``Problem`` for the runner."""
    _check_method(case)
    body, y0 = build(case)
    n = body.n
    heavy = isinstance(body, HeavyTopSOn)

    def axes(g: np.ndarray) -> np.ndarray:
        return np.asarray(g)[:3, :3]

    def frame(y: np.ndarray):  # type: ignore[no-untyped-def]
        from lgbeam.io.vtk import rigid_body_frame

        g, mu = y[0], y[1]
        pd = {"spatial_momentum": vee3(g @ mu @ g.T)[None]} if n == 3 else {}
        return rigid_body_frame(np.zeros((1, 3)), _orthonormal(axes(g))[None], point_data=pd)

    def arrays(sol: Solution) -> dict[str, Any]:
        ys = np.asarray(sol.y)
        t = np.asarray(sol.t)
        ref = body.reference(t, y0)
        out: dict[str, Any] = {
            "t": t, "g": ys[:, 0], "mu": ys[:, 1],
            "m_error": np.linalg.norm(ys[:, 1] - ref[:, 1], axis=(1, 2)) / np.sqrt(2),
            "g_error": np.abs(ys[:, 0] - ref[:, 0]).max(axis=(1, 2)),
            "energy": np.array([body.hamiltonian(y) for y in ys]),
            "casimir": np.linalg.norm(ys[:, 1], axis=(1, 2)) / np.sqrt(2),
            "n": n, "body": case["model"]["body"],
        }
        if n == 3:
            out |= {"m": vee3(ys[:, 1]), "positions": np.zeros((len(t), 1, 3)), "rotations": ys[:, None, 0]}
            if heavy:
                out["vertical_momentum"] = np.array([body.vertical_momentum(y) for y in ys])  # type: ignore[union-attr]
        return out

    def summary(sol: Solution) -> dict[str, Any]:
        e = sol.summary["energy"]
        return {"energy_error_max": float(max(e["max"] - e["first"], e["first"] - e["min"])),
                "orthogonality_max": float(sol.summary["orthogonality"]["max"])}

    return Problem(body, y0, frame, arrays, summary=summary)


def _orthonormal(a: np.ndarray) -> np.ndarray:
    """The nearest rotation to a 3 × 3 block (the block itself for n = 3; for n > 3 the projected frame)."""
    u, _, vt = np.linalg.svd(a)
    r = u @ vt
    return r if np.linalg.det(r) > 0 else u @ np.diag([1.0, 1.0, -1.0]) @ vt


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the body; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def figures(run_dir: Path) -> list[Path]:
    """figures/son-body.png: energy error per step (seed 003 Fig. 4.1) and the trajectory error against the
    DOP853 reference at the saved times (Fig. 4.2), with the Casimir drift."""
    sol, diag = load_run(run_dir)
    fig = new_figure(11, 3.6)
    a1, a2, a3 = (fig.add_subplot(1, 3, k) for k in (1, 2, 3))
    a1.plot(diag["t"], diag["energy"] - diag["energy"][0], lw=0.7)
    a1.set(xlabel="t", ylabel="H − H₀", title="Fig. 4.1: energy error")
    a2.plot(sol["t"], sol["m_error"], label="‖μ − μ_ref‖ (|m − m_ref| for n = 3)")
    a2.plot(sol["t"], sol["g_error"], label="max |g − g_ref|")
    a2.set(xlabel="t", title="Fig. 4.2: trajectory error")
    a2.legend(fontsize=7)
    a3.plot(diag["t"], diag["casimir"] - diag["casimir"][0], lw=0.7, label="Casimir")
    a3.plot(diag["t"], diag["orthogonality"], lw=0.7, label="‖gᵀg − I‖")
    a3.set(xlabel="t", title="invariants")
    a3.legend(fontsize=7)
    return [save(fig, run_dir, "son-body.png")]


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Momentum (‖μ − μ_ref‖_F/√2) and attitude (max entry) errors at the reference's final time."""
    k = index_at_reference_end(solution, reference)
    mu, mu_ref = np.asarray(solution["mu"])[k], np.asarray(reference["mu"])[-1]
    return {"momentum": float(np.linalg.norm(mu - mu_ref) / np.sqrt(2)),
            "attitude": float(np.abs(np.asarray(solution["g"])[k] - np.asarray(reference["g"])[-1]).max())}
