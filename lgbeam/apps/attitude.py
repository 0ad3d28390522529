"""The ``attitude`` case kind: seed 002's free rigid body, integrated by the symmetric integral-preserving methods
(docs/discrete-gradients.md):

``model.kind = "quaternion"`` (§5.1, Fig. 2)
    the attitude q ∈ S³ (unit quaternions, scalar first) with constant spatial angular momentum m₀ = I v₀,
    q' = (0, w_s/2)·q, H(q) = ½ m₀ᵀ R I⁻¹ Rᵀ m₀; methods ``ep2-gonzalez``, ``ep2-avf``, ``ep4``, ``lie-midpoint``,
    ``lie-heun``;
``model.kind = "sphere"`` (Example 1, Fig. 1)
    the body angular momentum p on the unit sphere, p' = p × I⁻¹p, H(p) = ½ Σ p_i²/I_i; methods ``sphere-gonzalez``,
    ``sphere-avf``.

The defaults — quaternions, I = diag(1, 5, 60), v₀ = (1, 0.5, −1), q₀ = (1, 0, 0, 0), EP4 (12-point quadrature) at
h = 1/16 on [0, 50] — are seed 002 Fig. 2 right: the body momentum M = E(q)ᵀm₀ on the sphere |M| = |m₀| =
60.0603862791441 (notes/002.md §8.2: max |H − H₀| 5.0e-13, M₁ ∈ ±1.4715, M₂ ∈ ±3.4079, M₃ ∈ [−60.0424, −59.9636],
error 1.96e-2 at t = 50). With ``model.kind = "sphere"`` and ``sphere-gonzalez`` at h = 0.05 each run is one curve
of Fig. 1 (``initial.p``).

Writes solution.npz (t, the state ``q`` or ``p``, ``body_momentum``, ``energy``), diagnostics.csv (per step: energy,
| |q| − 1 | or | |p| − 1 |, the body momentum components), a ParaView series (quaternion: the body as a vertex at
the origin with its frame d1, d2, d3 and the body momentum; sphere: a line from the origin to p, point data
``momentum``) and figures/attitude.png (the momentum curve of Fig. 2 right / Fig. 1 and the energy error).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from lgbeam.apps import RunSummary
from lgbeam.apps._bodies import energy_summary, method_options, positive, read_run, save, vector
from lgbeam.apps._runner import Problem, index_at_reference_end, run_problem
from lgbeam.groups.base import quat_to_matrix
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.io.vtk import Frame
from lgbeam.models.attitude import FIG2_INERTIA, FIG2_V0, RigidBodyQuaternion, RigidBodySphere
from lgbeam.solve import Solution
from lgbeam.systems import LieGroupFirstIntegral, SphereFirstIntegral

GROUP_METHODS = tuple(methods_for(LieGroupFirstIntegral))
SPHERE_METHODS = tuple(methods_for(SphereFirstIntegral))
SPHERE_INERTIA = (1.0, 2.0, 3.0)  # seed 002 Example 1, Fig. 1
SPHERE_P0 = (1.0, 1.0, 1.0)  # notes/002.md §8.1 (normalised)

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("attitude",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "kind": Key(str, "quaternion", choices=("quaternion", "sphere"),
                    doc="quaternion: attitude on S³ (seed 002 §5.1, Fig. 2); sphere: body momentum on S² (Fig. 1)"),
        "inertia": Key(list, [], doc="principal moments I (empty: (1, 5, 60) for quaternion, (1, 2, 3) for sphere)"),
    },
    "initial": {
        "q": Key(list, [1.0, 0.0, 0.0, 0.0], doc="initial unit quaternion q₀ (quaternion; scalar first)"),
        "v": Key(list, list(FIG2_V0), doc="initial body angular velocity v₀, m₀ = I v₀ (quaternion)"),
        "p": Key(list, list(SPHERE_P0), doc="direction of the initial body momentum p₀, normalised (sphere)"),
    },
    "integrator": integrator_section(
        GROUP_METHODS + SPHERE_METHODS, "ep4", h=0.0625, rtol=None, atol=None,
        quadrature=Key(int, 12, doc="quadrature points of ep4, ep2-avf, sphere-avf (seed 002 Fig. 2: 12 for ep4)"),
        tol=Key(float, None, doc="fixed-point tolerance (omit: the method's 1e-14)"),
        max_iter=Key(int, None, doc="fixed-point iteration cap (omit: the method's 500)")),
    "time": time_section(),
    "output": output_section(0.5),
}


def build(case: dict[str, Any]) -> tuple[RigidBodyQuaternion | RigidBodySphere, np.ndarray]:
    """(body, y0) of a validated case; ValueError for inconsistent data or a method of the other model."""
    m, ini, method = case["model"], case["initial"], case["integrator"]["method"]
    if m["kind"] == "quaternion":
        if method in SPHERE_METHODS:
            raise ValueError(f"integrator.method = {method!r} works on the sphere: set model.kind = 'sphere', or pick "
                             f"one of {', '.join(GROUP_METHODS)} for the quaternion attitude")
        inertia = positive(m["inertia"] or FIG2_INERTIA, "model.inertia")
        q0 = vector(ini["q"], "initial.q", 4)
        if abs(np.linalg.norm(q0) - 1.0) > 1e-10:
            raise ValueError(f"initial.q must be a unit quaternion (| |q| − 1 | = {abs(np.linalg.norm(q0) - 1):.2e}); "
                             "normalise it")
        m0 = inertia * vector(ini["v"], "initial.v")
        body = RigidBodyQuaternion(tuple(inertia), tuple(m0))  # type: ignore[arg-type]
        return body, q0
    if method in GROUP_METHODS:
        raise ValueError(f"integrator.method = {method!r} needs the quaternion attitude: set model.kind = "
                         f"'quaternion', or pick one of {', '.join(SPHERE_METHODS)} for the sphere")
    inertia = positive(m["inertia"] or SPHERE_INERTIA, "model.inertia")
    p = vector(ini["p"], "initial.p")
    if not np.linalg.norm(p) > 0:
        raise ValueError("initial.p must be a nonzero direction (it is normalised onto the unit sphere)")
    return RigidBodySphere(tuple(inertia)), p / np.linalg.norm(p)  # type: ignore[arg-type]


def problem(case: dict[str, Any]) -> Problem:
    """The free rigid body of a validated case as a ``Problem`` for the runner."""
    body, y0 = build(case)
    quat = isinstance(body, RigidBodyQuaternion)

    def momentum(y: np.ndarray) -> np.ndarray:
        return body.body_momentum(y) if isinstance(body, RigidBodyQuaternion) else np.asarray(y)

    def invariants(t: float, y: np.ndarray) -> dict[str, float]:
        M = momentum(y)
        return {"energy": float(body.first_integral(y)), "energy_scale": float(body.first_integral(y)),  # kinetic
                "norm_error": float(abs(np.linalg.norm(y) - 1.0)),
                "M1": float(M[0]), "M2": float(M[1]), "M3": float(M[2])}

    def frame(y: np.ndarray) -> Frame:
        from lgbeam.io.vtk import rigid_body_frame

        if quat:
            return rigid_body_frame(np.zeros((1, 3)), quaternions=(y / np.linalg.norm(y))[None],
                                    point_data={"body_momentum": momentum(y)[None]})
        pts = np.vstack([np.zeros(3), y])
        return Frame(pts, [("line", np.array([[0, 1]]))], {"momentum": pts.copy()}, {})

    def arrays(sol: Solution) -> dict[str, Any]:
        ys = np.asarray(sol.y)
        out = {"t": sol.t, "q" if quat else "p": ys, "body_momentum": momentum(ys),
               "energy": np.asarray(body.first_integral(ys)), "model": "quaternion" if quat else "sphere"}
        if quat:
            out["rotations"] = quat_to_matrix(ys / np.linalg.norm(ys, axis=-1, keepdims=True))[:, None]
        return out

    integ = case["integrator"]
    opts = method_options(integ, quadrature=integ["quadrature"], tol=integ.get("tol"), max_iter=integ.get("max_iter"))
    return Problem(body, y0, frame, arrays, diagnostics=invariants, method_options=opts,
                   summary=lambda sol: energy_summary(sol, "norm_error"))


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the free rigid body; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def figures(run_dir: Path) -> list[Path]:
    """figures/attitude.png: the body momentum at every step as a curve in R³ (seed 002 Fig. 2 right; Fig. 1 on the
    unit sphere) and H − H₀."""
    _, diag = read_run(run_dir)
    fig = Figure(figsize=(10, 4.5))
    ax = fig.add_subplot(1, 2, 1, projection="3d")
    ax.plot(diag["M1"], diag["M2"], diag["M3"], lw=0.6)
    ax.set_title("body momentum M(t)", fontsize=9)
    a2 = fig.add_subplot(1, 2, 2)
    a2.plot(diag["t"], diag["energy"] - diag["energy"][0], lw=0.6)
    a2.set_title("H − H₀", fontsize=9)
    a2.set_xlabel("t")
    return [save(fig, run_dir, "attitude.png")]


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Euclidean error of the state (q in R⁴ up to sign, or p) at the reference's final time (seed 002 Fig. 2 left)."""
    k = index_at_reference_end(solution, reference)
    key = "q" if "q" in reference else "p"
    y, yr = np.asarray(solution[key])[k], np.asarray(reference[key])[-1]
    return {key: float(min(np.linalg.norm(y - yr), np.linalg.norm(y + yr)) if key == "q" else np.linalg.norm(y - yr))}
