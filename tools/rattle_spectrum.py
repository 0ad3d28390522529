"""Largest eigenvalue of the linearised rattle-lgvi one-step map (q, v) ↦ (q₁, v₁) at a state of the steel
cantilever, by central differences of the step (docs/implicit.md "rattle-lgvi: large steps and cost").

The state is gen-alpha's at time T (h = 1 ms); the map is rattle-lgvi's with step H, Newton tolerance 1e-12.
2·dim evaluations of the step (N = 16: ~25 s). Extra arguments are case overrides (key=value).

    python tools/rattle_spectrum.py N T H [key=value ...]
"""

import sys

import numpy as np

from lgbeam.apps import load_case
from lgbeam.apps.rod import build
from lgbeam.integrators.variational import RattleLGVI
from lgbeam.solve import ConstantStep, MechanicalState, SaveAt, integrate


def main() -> None:
    n_el, t, h = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    case, _ = load_case("cases/steel-cantilever-dynamic.toml", [f"model.n_elements={n_el}", *sys.argv[4:]])
    rod, q0, v0 = build(case)
    G = rod.group
    sol = integrate(rod, "gen-alpha", MechanicalState(q0, v0), (0.0, t), controller=ConstantStep(1e-3),
                    save=SaveAt(times=[t]), diagnostics=False)
    method = RattleLGVI(tol=1e-12, max_iter=60)
    y, cache = method.init(rod, t, MechanicalState(np.asarray(sol.q[-1]), np.asarray(sol.v[-1])))
    n = y.v.size
    base = method.step(rod, t, h, y, cache).y

    def step(dq: np.ndarray, dv: np.ndarray) -> np.ndarray:
        out = method.step(rod, t, h, MechanicalState(G.retract(y.q, dq), y.v + dv, y.lam), cache)
        assert out.status == "ok", out.detail
        return np.concatenate([G.log(G.compose(G.inverse(base.q), out.y.q)), out.y.v])

    J = np.empty((2 * n, 2 * n))
    for j in range(2 * n):
        e = np.zeros(2 * n)
        eps = 1e-7 if j < n else 1e-5
        e[j] = eps
        J[:, j] = (step(e[:n], e[n:]) - step(-e[:n], -e[n:])) / (2 * eps)
    w, V = np.linalg.eig(J)
    i = int(np.argmax(np.abs(w)))
    top = np.argsort(np.abs(V[:, i]))[::-1][:4]
    where = ", ".join(f"node {(k % n) // 6} {'qv'[k // n]}[{k % 6}]" for k in top)
    print(f"N = {n_el}, t = {t}, h = {h}: largest |eigenvalue| {abs(w[i]):.5f} (λ = {w[i]:.4f}); eigenvector mostly {where}")


if __name__ == "__main__":
    main()
