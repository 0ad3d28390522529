"""The cheaper transform calls of the spectral systems (``fourier.rfft/irfft/fft/ifft``) and ``etd35``'s fused
capability (``spectral_nonlinear``, ``spectral_quadratic``): the same bits as ``numpy.fft`` and the generic forms,
the quadratic part of H equal to the nodal ½⟨y, Ay⟩ (Parseval) to round-off."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.discretisations.spectral import NLS, FourierGrid, KdV, fourier
from lgbeam.integrators.poisson.base import energy_parts
from lgbeam.integrators.registry import make_method


@pytest.mark.parametrize("n", [3, 63, 255, 511])
@pytest.mark.parametrize("forward", [True, False])
def test_transforms_are_numpy_fft_bit_for_bit(n, forward):
    rng = np.random.default_rng(n)
    norm = "forward" if forward else "backward"
    for shape in ((n,), (3, n)):
        y = rng.standard_normal(shape)
        z = y + 1j * rng.standard_normal(shape)
        v = np.fft.rfft(y, norm=norm)
        assert np.array_equal(fourier.rfft(y, forward), v)
        assert np.array_equal(fourier.rfft(np.asfortranarray(y), forward), v)  # a strided input
        assert np.array_equal(fourier.irfft(v, n, forward), np.fft.irfft(v, n=n, norm=norm))
        assert np.array_equal(fourier.fft(z, forward), np.fft.fft(z, norm=norm))
        assert np.array_equal(fourier.ifft(z, forward), np.fft.ifft(z, norm=norm))


def _systems():
    grid = FourierGrid(63, 20.0)
    x = grid.x
    kdv = KdV(grid, nu=1.0)
    yield kdv, 3.0 / np.cosh(x - 10.0) ** 2 + 0.1 * np.sin(2 * np.pi * x / 20.0)
    for form in ("complex", "real"):
        nls = NLS(grid, kappa=-1.0, form=form)
        yield nls, nls.from_field(np.exp(1j * x) / np.cosh(x - 8.0) + 0.2)


@pytest.mark.parametrize("k", range(3))
def test_fused_nonlinear_term_is_the_generic_one_and_parseval_gives_the_quadratic_part(k):
    system, y = list(_systems())[k]
    v = system.to_spectral(y)
    sigma = system.spectral_symbols()[1]
    generic = sigma * system.to_spectral(system.grad_potential(system.from_spectral(v)))
    assert np.array_equal(system.spectral_nonlinear(v), generic)
    assert np.array_equal(system.spectral_nonlinear_nodal(y), sigma * system.to_spectral(system.grad_potential(y)))
    quad = 0.5 * system.inner(y, system.apply_A(y))
    assert abs(system.spectral_quadratic(v) - quad) <= 1e-12 * abs(quad)


@pytest.mark.parametrize("k", range(3))
def test_etd35_blowup_check_energy_equals_the_nodal_one(k):
    system, y = list(_systems())[k]
    method = make_method("etd35")
    _, run = method.init(system, 0.0, y)
    st = method.step(system, 0.0, 1e-3, y, run)
    got = method.blowup_invariants(system, 1e-3, st.y, st.cache)
    want = energy_parts(system, st.y)
    assert st.y is st.cache.y and st.cache.fused is system  # the fast path (this state's coefficients) runs
    assert abs(got["energy"] - want["energy"]) <= 1e-12 * want["energy_scale"]
    assert abs(got["energy_scale"] - want["energy_scale"]) <= 1e-12 * want["energy_scale"]
    assert got["mass"] == system.l2_mass(st.y)
