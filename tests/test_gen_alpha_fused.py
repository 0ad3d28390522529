"""Generalized-α on a compiled rod through its fused step core (issue #34) against the protocol path.

The fused path evaluates a Newton iterate in one compiled call (``CosseratRod.ga_evaluator``), solves and updates
in one (``_compiled.ga_solve_update``) and assembles the iteration matrix straight into band storage from the
rod's tangent blocks (``CosseratRod.chain_tangent_blocks``, ``_compiled.ga_band_matrix``). The protocol path builds
the same quantities from ``newton_residual``, the sparse ``stiffness``/``constraint_stiffness``/``damping`` and
``KKTFactor``; the two must agree to round-off, step by step."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp

from lgbeam.discretisations.rods.rod import CosseratRod
from lgbeam.integrators.mechanics import residuals


def _rod(case: str, sets: list[str], compiled: bool = True):  # type: ignore[no-untyped-def]
    from lgbeam.apps import load_case
    from lgbeam.apps.rod import build
    from lgbeam.solve import MechanicalState

    c, _ = load_case(case, sets)
    rod, q0, v0 = build(c)
    return dataclasses.replace(rod, compiled=compiled), MechanicalState(q0, v0)


def _run(rod, y0, h: float, t_end: float):  # type: ignore[no-untyped-def]
    from lgbeam.solve import ConstantStep, integrate

    return integrate(rod, "gen-alpha", y0, (0.0, t_end), controller=ConstantStep(h), diagnostics=False)


def _state(rod, y0, seed: int):  # type: ignore[no-untyped-def]
    """A deformed, moving state and multipliers of the rod (rotations ~0.05 rad per node)."""
    rng = np.random.default_rng(seed)
    q = rod.group.retract(y0.q, 0.05 * rng.normal(size=y0.v.size))
    return q, rng.normal(size=y0.v.size), rng.normal(size=rod.n_constraints)


def _off(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Switch off the rod's fused capabilities ``names`` (the integrator then takes the protocol path)."""
    off = {"ga_evaluator": lambda self, t, q: None, "chain_tangent_blocks": lambda self, t, q, v, lam: None}
    for name in names:
        monkeypatch.setattr(CosseratRod, name, off[name])


def _cantilever():  # type: ignore[no-untyped-def]
    rod, y0 = _rod("steel-cantilever-dynamic", ["model.n_elements=16"])
    assert rod.ga_evaluator(0.0, y0.q) is not None  # the fused path is there to be taken
    assert rod.chain_tangent_blocks(0.0, y0.q, y0.v, np.zeros(rod.n_constraints)) is not None
    return rod, y0


def test_fused_iteration_is_bit_identical_to_the_protocol_iteration(monkeypatch: pytest.MonkeyPatch) -> None:
    """Steel cantilever, 16 elements, h = 5 ms, 30 steps, the same (sparse) iteration matrix: one compiled call per
    evaluation and one per correction give exactly the states of ``newton_residual`` + ``ga_rhs`` + ``KKTFactor.solve``
    + ``ga_update`` (the same operations in the same order)."""
    rod, y0 = _cantilever()
    _off(monkeypatch, "chain_tangent_blocks")
    fast = _run(rod, y0, 5e-3, 0.15)
    _off(monkeypatch, "ga_evaluator")
    slow = _run(rod, y0, 5e-3, 0.15)
    assert fast.status == slow.status == "ok" and fast.stats["n_steps"] == 30
    for k in ("q", "v", "lam"):
        np.testing.assert_array_equal(np.asarray(getattr(fast, k)), np.asarray(getattr(slow, k)))
    assert np.abs(np.asarray(slow.q)[-1] - np.asarray(slow.q)[0]).max() > 1e-6  # the tip has moved


@pytest.mark.parametrize("h", [5e-3, 1e-3])
def test_fused_gen_alpha_equals_the_protocol_path_on_the_cantilever(h: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole fused path (also the band-storage matrix, whose sums run in another order) against the protocol
    path over 30 steps: q to 1e-12 relative (measured 8e-15), v to 1e-10 of its size (round-off of θ amplified by
    γ/(βh) ≈ 400 at 5 ms; measured 2.5e-11), λ to 1e-7 relative (round-off of the scaled solve amplified by
    β' = 1/(βh²) ≈ 1e5; measured 3.5e-9), the same Newton iterations."""
    rod, y0 = _cantilever()
    fast = _run(rod, y0, h, 30 * h)
    _off(monkeypatch, "ga_evaluator", "chain_tangent_blocks")
    slow = _run(rod, y0, h, 30 * h)
    assert fast.status == slow.status == "ok"
    assert fast.stats["n_iterations"] == slow.stats["n_iterations"]
    assert fast.stats["n_steps"] == slow.stats["n_steps"] == 30
    for k, rtol in (("q", 1e-12), ("v", 1e-10), ("lam", 1e-7)):
        a, b = np.asarray(getattr(fast, k)), np.asarray(getattr(slow, k))
        assert np.abs(a - b).max() <= rtol * np.abs(b).max(), k
    assert np.abs(np.asarray(slow.q)[-1] - np.asarray(slow.q)[0]).max() > 1e-6


@pytest.mark.parametrize("case", ["steel-cantilever-dynamic", "roll-up"])
def test_chain_tangent_blocks_assemble_to_the_sparse_tangents(case: str) -> None:
    """The edge and node blocks of K + Z and C, summed into the node chain, equal ``stiffness`` +
    ``constraint_stiffness`` and ``damping`` (the numpy rod's sparse matrices); the T(θ) blocks equal the group's."""
    rod, y0 = _rod(case, ["model.n_elements=9"])
    ref = dataclasses.replace(rod, compiled=False)
    q, v, lam = _state(rod, y0, 3)
    blocks = rod.chain_tangent_blocks(0.37, q, v, lam)
    assert blocks is not None
    Eq, Nq, Ed, Nd = blocks
    n = 6 * rod.n_nodes

    def chain(node: np.ndarray, edge: np.ndarray) -> np.ndarray:
        out = np.zeros((n, n))
        for i in range(rod.n_nodes):
            out[6 * i:6 * i + 6, 6 * i:6 * i + 6] += node[i]
        for e in range(rod.n_nodes - 1):
            out[6 * e:6 * e + 12, 6 * e:6 * e + 12] += edge[e]
        return out

    K = sp.csr_array(ref.stiffness(0.37, q, v) + ref.constraint_stiffness(0.37, q, lam)).toarray()
    C = sp.csr_array(ref.damping(0.37, q, v)).toarray()
    assert np.abs(K).max() > 0 and np.abs(C).max() > 0
    np.testing.assert_allclose(chain(Nq, Eq), K, rtol=0, atol=1e-12 * np.abs(K).max())
    np.testing.assert_allclose(chain(Nd, Ed), C, rtol=0, atol=1e-12 * np.abs(C).max())
    theta = 0.3 * np.random.default_rng(4).normal(size=n)
    np.testing.assert_allclose(rod.node_tangent_blocks(theta), ref.group.tangent(theta), rtol=0, atol=1e-13)


@pytest.mark.parametrize("case", ["steel-cantilever-dynamic", "roll-up"])
def test_step_invariants_equal_the_generic_residuals(case: str) -> None:
    """The rod's one-pass (‖Φ‖, energy) with supports against the driver's generic evaluation on the numpy rod
    (Φ from ``constraints_t``, energy from ``energy``); the numpy rod declines."""
    rod, y0 = _rod(case, ["model.n_elements=9"])
    ref = dataclasses.replace(rod, compiled=False)
    q, v, _ = _state(rod, y0, 5)
    fused = rod.step_invariants(0.2, q, v)
    assert fused is not None and ref.step_invariants(0.2, q, v) is None
    want = residuals(ref, 0.2, q, v, velocity=False)
    assert want["phi"] > 0.0
    np.testing.assert_allclose(fused, (want["phi"], want["energy"]), rtol=1e-12)
