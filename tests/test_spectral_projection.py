"""``etd35`` with ``project = true`` (issue 35: invariants bounded on long runs): the spectral invariants and
their gradients against the nodal ``invariants`` and central differences, and runs whose integrals stay at round-off
where the plain method drifts linearly, at the method's order.

Independent truths: the nodal invariants (transforms, not Parseval), central differences of them, the exact
bound state and Akhmediev breather.
"""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.apps.spectral import method_options
from lgbeam.discretisations.spectral import (
    NLS,
    FourierGrid,
    KdV,
    akhmediev_period,
    kdv_soliton,
    nls_akhmediev,
    nls_bound_state,
    nls_plane_wave,
)
from lgbeam.integrators import make_method
from lgbeam.solve import ConstantStep, SaveAt, integrate

RNG = np.random.default_rng(35)


def _systems():
    g = FourierGrid(63, 20.0)
    psi = nls_bound_state(g.x - 10.0, 0.3) + 0.05 * np.exp(2j * np.pi * g.x / 20.0)
    u = kdv_soliton(g.x, 0.0, c=2.0, nu=0.5, x0=8.0) + 0.1 * np.cos(2 * np.pi * g.x / 20.0)
    out = []
    for form in ("complex", "real"):
        s = NLS(g, kappa=-1.0, form=form)
        out.append((s, s.from_field(psi)))
    s = KdV(g, nu=0.5)
    out.append((s, u))
    return out


@pytest.mark.parametrize("k", range(3), ids=["nls-complex", "nls-real", "kdv"])
def test_spectral_invariants_and_gradients_match_the_nodal_ones(k):
    s, y = _systems()[k]
    v = s.to_spectral(y)
    nodal, spectral = s.invariants(y), s.spectral_invariants(y, v)
    assert set(spectral) == set(nodal)
    for name in nodal:
        assert spectral[name] == pytest.approx(nodal[name], rel=1e-12, abs=1e-12 * abs(nodal["energy"]))
    grads = s.spectral_invariant_gradients(y, v)
    d = RNG.standard_normal(y.shape) + (1j * RNG.standard_normal(y.shape) if np.iscomplexobj(y) else 0.0)
    eps = 1e-6
    for name, (g, g_hat) in grads.items():
        fd = (s.invariants(y + eps * d)[name] - s.invariants(y - eps * d)[name]) / (2 * eps)
        assert s.inner(g, d) == pytest.approx(fd, rel=1e-7, abs=1e-9), name
        assert np.allclose(g_hat, s.to_spectral(g), rtol=0, atol=1e-12 * np.abs(g_hat).max())


def _run(s, y0, h, T, project, every=1):
    return integrate(s, make_method("etd35", project=project), y0, (0.0, T), controller=ConstantStep(h),
                     save=SaveAt(steps=every), diagnostics=False)


def test_projection_keeps_the_integrals_where_the_plain_method_drifts():
    L = 40.0 * np.sqrt(2.0)
    s = NLS(FourierGrid(255, L), kappa=-1.0, form="complex")
    x = (s.grid.x + 0.5 * L) % L - 0.5 * L
    y0 = nls_bound_state(x, 0.0)
    I0 = s.invariants(y0)
    drift = {}
    for project in (False, True):
        sol = _run(s, y0, 0.05, 20.0, project, every=40)
        assert str(sol.status) == "ok"
        drift[project] = max(abs(s.invariants(y)["energy"] - I0["energy"]) for y in sol.y) / abs(I0["energy"])
        dmass = max(abs(s.invariants(y)["mass"] - I0["mass"]) for y in sol.y) / I0["mass"]
        dmom = max(abs(s.invariants(y)["momentum"] - I0["momentum"]) for y in sol.y) / I0["mass"]
        if project:
            assert drift[True] < 1e-13 and dmass < 1e-13 and dmom < 1e-13
    assert drift[False] > 1e-5  # the plain ETD35 is no Poisson map: its energy drifts at this step


def test_projected_etd35_keeps_its_order_on_the_breather():
    s = NLS(FourierGrid(63, akhmediev_period(0.25)), kappa=-1.0, form="complex")
    y0, ref = nls_akhmediev(s.grid.x, -1.5, a=0.25), nls_akhmediev(s.grid.x, 1.5, a=0.25)
    hs = (0.1, 0.05, 0.025)
    err = [np.linalg.norm(_run(s, y0, h, 3.0, True).y[-1] - ref) / np.linalg.norm(ref) for h in hs]
    slope = np.polyfit(np.log(hs), np.log(err), 1)[0]
    assert slope > 3.8, (err, slope)  # the plain method's 4.8 on this breather (tests/test_spectral_etd.py)


def test_projection_handles_dependent_gradients_and_kdv():
    s = NLS(FourierGrid(31, 2 * np.pi), kappa=1.0, form="complex")  # plane wave: ∇mass ∥ ∇momentum
    y0 = nls_plane_wave(s.grid.x, 0.0, amplitude=0.7, wavenumber=2.0)
    exact = nls_plane_wave(s.grid.x, 0.5, amplitude=0.7, wavenumber=2.0)
    err = {}
    for project in (False, True):
        sol = _run(s, y0, 0.01, 0.5, project)
        assert str(sol.status) == "ok"
        err[project] = np.linalg.norm(sol.y[-1] - exact) / np.linalg.norm(exact)
        if project:
            assert abs(s.l2_mass(sol.y[-1]) - s.l2_mass(y0)) < 1e-14
    assert err[True] < 1.1 * err[False]  # the method's own error (6e-11), not spoilt by the pseudo-inverse
    k = KdV(FourierGrid(127, 40.0), nu=1.0)
    u0 = kdv_soliton(k.grid.x, 0.0, c=1.0, nu=1.0, x0=15.0, length=40.0)
    out = _run(k, u0, 0.05, 5.0, True, every=10)
    I0 = k.invariants(u0)
    for y in out.y:
        I = k.invariants(y)
        assert all(abs(I[n] - I0[n]) <= 1e-12 * max(1.0, abs(I0[n])) for n in I0)


def test_projection_is_refused_where_it_does_not_apply():
    case = {"method": "exp-suzuki4", "project": True, "stage": "auto", "tol": 1e-14, "max_iter": 100}
    with pytest.raises(ValueError, match="integrator.project = true needs integrator.method = 'etd35'"):
        method_options(case)
    assert method_options({**case, "method": "etd35"}) == {"project": True}
