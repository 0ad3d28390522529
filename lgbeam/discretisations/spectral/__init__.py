"""Fourier pseudospectral discretisations: NLS and KdV as semilinear Poisson systems (seed 003 ch. 2)."""

from lgbeam.discretisations.spectral.fourier import FourierGrid, phi_symbol
from lgbeam.discretisations.spectral.kdv import KdV, kdv_multisoliton, kdv_soliton
from lgbeam.discretisations.spectral.nls import (
    NLS,
    akhmediev_period,
    nls_akhmediev,
    nls_bound_state,
    nls_plane_wave,
    nls_soliton,
)

SpectralPDE = NLS | KdV
"""The Fourier pseudospectral systems (for code that takes either)."""

__all__ = ["NLS", "FourierGrid", "KdV", "SpectralPDE", "akhmediev_period", "kdv_multisoliton", "kdv_soliton",
           "nls_akhmediev", "nls_bound_state", "nls_plane_wave", "nls_soliton", "phi_symbol"]
