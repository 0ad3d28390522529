"""Fourier pseudospectral grid on a periodic interval: nodes, wavenumbers, FFT differentiation.

Symbols (seed 003 §2.4, eqs. (2.19)–(2.22), Theorem 15):
    N            number of nodes (odd), x_j = j L / N, j = 0..N−1
    k            wavenumbers 2π/L · (−(N−1)/2 .. (N−1)/2), in ``numpy.fft`` order
    D1, D2, D3   differentiation matrices; in Fourier space diag(ik), diag(−k²), diag(−ik³)
    f(D_j) y     = F⁻¹[f(λ_j(k)) ŷ]   (Theorem 15): an FFT, a diagonal multiply, an inverse FFT

Everything is O(N log N) per application. Dense matrices (``dense_D1`` …) exist only for checks and
for the quasi-Newton baseline.
"""

from __future__ import annotations

import importlib
import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from lgbeam._typing import Array, FloatArray
from lgbeam.discretisations._phi import phi as phi_symbol  # φ_k(z); public here as spectral.phi_symbol

__all__ = ["FourierGrid", "fft", "ifft", "irfft", "phi_symbol", "rfft", "sech"]

logger = logging.getLogger(__name__)


def _pocketfft() -> Any:
    """scipy's pocketfft binding (the library ``numpy.fft`` also wraps), if it is there and gives the same
    bits as ``numpy.fft`` on a test vector; None otherwise (then ``numpy.fft``). A call costs ≈ 9 µs against
    ≈ 30–50 µs through ``numpy.fft.rfft`` at N = 255 (numpy 2.4's Python and gufunc layers): the transforms of
    a spectral step are mostly that overhead at the bench's sizes."""
    try:  # a private module: checked bit for bit below, and any failure falls back to numpy.fft
        pp = importlib.import_module("scipy.fft._pocketfft.pypocketfft")
        y = np.sin(np.arange(2 * 255, dtype=float).reshape(2, 255)) ** 3
        v = pp.r2c(y, (1,), True, 2, None, 1)
        z = y + 1j * np.cos(y)
        ok = np.array_equal(v, np.fft.rfft(y, norm="forward")) and np.array_equal(
            pp.c2r(v, (1,), 255, False, 0, None, 1), np.fft.irfft(v, n=255, norm="forward")) and np.array_equal(
            pp.c2c(z, (1,), True, 0, None, 1), np.fft.fft(z)) and np.array_equal(
            pp.c2c(z, (1,), False, 2, None, 1), np.fft.ifft(z))
        return pp if ok else None
    except Exception:  # noqa: BLE001 (any failure of the optional fast path means: use numpy.fft)
        return None


_PP: Any = _pocketfft()  # the binding is untyped: its two calls below are typed by their results
_NP_RFFT, _NP_IRFFT, _NP_FFT, _NP_IFFT = np.fft.rfft, np.fft.irfft, np.fft.fft, np.fft.ifft  # a numpy.fft replaced at run time (a transform count, a
# numpy-interface FFT backend) is honoured: the calls then go through it


def rfft(y: Array, forward_norm: bool = True) -> Array:
    """``numpy.fft.rfft(y, axis=-1, norm="forward" if forward_norm else "backward")``, bit for bit, through the
    cheaper binding where there is one (``_pocketfft``) and ``numpy.fft.rfft`` is numpy's own."""
    if _PP is None or np.fft.rfft is not _NP_RFFT:
        return np.fft.rfft(y, axis=-1, norm="forward" if forward_norm else "backward")
    out: Array = _PP.r2c(np.asarray(y, dtype=float), (-1,), True, 2 if forward_norm else 0, None, 1)
    return out


def irfft(v: Array, n: int, forward_norm: bool = True) -> Array:
    """``numpy.fft.irfft(v, n, axis=-1, norm=…)`` for a half spectrum of length n // 2 + 1, bit for bit (as
    ``rfft``)."""
    if _PP is None or np.fft.irfft is not _NP_IRFFT:
        return np.fft.irfft(v, n=n, axis=-1, norm="forward" if forward_norm else "backward")
    out: Array = _PP.c2r(np.asarray(v, dtype=complex), (-1,), n, False, 0 if forward_norm else 2, None, 1)
    return out


def fft(y: Array, forward_norm: bool = False) -> Array:
    """``numpy.fft.fft(y, axis=-1, norm="forward" if forward_norm else "backward")``, bit for bit (as ``rfft``)."""
    if _PP is None or np.fft.fft is not _NP_FFT:
        return np.fft.fft(y, axis=-1, norm="forward" if forward_norm else "backward")
    out: Array = _PP.c2c(np.asarray(y, dtype=complex), (-1,), True, 2 if forward_norm else 0, None, 1)
    return out


def ifft(v: Array, forward_norm: bool = False) -> Array:
    """``numpy.fft.ifft(v, axis=-1, norm=…)``, bit for bit (as ``rfft``)."""
    if _PP is None or np.fft.ifft is not _NP_IFFT:
        return np.fft.ifft(v, axis=-1, norm="forward" if forward_norm else "backward")
    out: Array = _PP.c2c(np.asarray(v, dtype=complex), (-1,), False, 0 if forward_norm else 2, None, 1)
    return out


def sech(z: FloatArray) -> FloatArray:
    """sech z = 2e^{−|z|}/(1 + e^{−2|z|}), without overflow for large |z|."""
    e = np.exp(-np.abs(z))
    return 2.0 * e / (1.0 + e * e)


def _nearest_odd(n: object) -> str:
    """The odd grid sizes >= 3 nearest to ``n`` ("63 or 65" for 64), for the refusal of an even size."""
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 4:
        return f"{n - 1} or {n + 1}" if n % 2 == 0 else str(n)
    return "3"


@dataclass(frozen=True)
class FourierGrid:
    """An odd number of equispaced nodes on the periodic interval [0, length).

    Parameters
    ----------
    n_nodes : int
        Number of nodes N; must be odd (seed 003 §2.4 uses 2n+1 nodes so that the Nyquist mode,
        which has no real skew derivative, never occurs) and at least 3.
    length : float
        Period L > 0 (the thesis uses 2π).

    References
    ----------
    Trefethen, *Spectral Methods in MATLAB* (2000), ch. 3; seed 003 eqs. (2.19), Theorem 15.
    """

    n_nodes: int
    length: float = 2.0 * np.pi
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        n = self.n_nodes
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 3 or n % 2 == 0:
            raise ValueError(
                f"FourierGrid needs an odd number of nodes >= 3, got n_nodes={n!r}; "
                f"use {_nearest_odd(n)} (seed 003 uses 2n+1 nodes)"
            )
        if not (np.isfinite(self.length) and self.length > 0):
            raise ValueError(f"FourierGrid length must be a positive finite number, got {self.length!r}")

    # ------------------------------------------------------------------ structure
    @property
    def dx(self) -> float:
        return self.length / self.n_nodes

    @cached_property
    def x(self) -> FloatArray:
        """Nodes x_j = j L / N, shape (N,)."""
        return np.arange(self.n_nodes, dtype=np.float64) * self.dx  # = arange(N) · dx, bit for bit

    @cached_property
    def k(self) -> FloatArray:
        """Wavenumbers in ``numpy.fft`` order, shape (N,)."""
        k = np.fft.fftfreq(self.n_nodes, d=1.0 / self.n_nodes) * (2.0 * np.pi / self.length)
        return np.asarray(k, dtype=np.float64)  # no copy: numpy's stubs call it floating[Any]

    @property
    def k_max(self) -> float:
        return (self.n_nodes - 1) / 2 * 2.0 * np.pi / self.length

    @property
    def n_rfft(self) -> int:
        return self.n_nodes // 2 + 1

    def symbol(self, order: int) -> Array:
        """Fourier symbol of D_order: (ik)^order, shape (N,) (cached, read-only)."""
        if order not in (1, 2, 3):
            raise ValueError(f"derivative order must be 1, 2 or 3, got {order}")
        return self._symbols[order]

    @cached_property
    def _symbols(self) -> dict[int, Array]:
        out: dict[int, Array] = {
            order: (1j * self.k) ** order if order != 2 else -(self.k**2) for order in (1, 2, 3)
        }
        for arr in out.values():
            arr.setflags(write=False)
        return out

    # ------------------------------------------------------------------ application
    def cached(self, key: tuple, build: Callable[[], Array]) -> Array:
        """``build()`` memoised under ``key`` (a hashable tuple naming the operator, its order and h).

        A pure cache for multipliers (at most 256 entries, then cleared); it never changes a result.
        The arrays are made read-only so that no caller can alter a cached operator.
        """
        out = self._memo.get(key)
        if out is None:
            if len(self._memo) >= 256:
                self._memo.clear()
            out = np.asarray(build())
            out.setflags(write=False)
            self._memo[key] = out
        return out

    def phi_multiplier(self, order: int, h: float, lam: Array, key: str) -> Array:
        """φ_order(h λ) for the symbol ``lam`` (named ``key``), memoised per (key, order, h)."""
        return self.cached((key, order, float(h)), lambda: phi_symbol(order, h * lam))

    def apply(self, multiplier: Array, y: Array) -> Array:
        """F⁻¹[multiplier · F[y]] along the last axis.

        For real ``y`` the multiplier must be the symbol of a real operator (m(−k) = conj m(k));
        a real FFT is used and the result is real. Complex ``y`` uses the complex FFT.
        """
        if np.iscomplexobj(y):
            return ifft(multiplier * fft(y))
        half = multiplier[: self.n_rfft]
        return irfft(half * rfft(y, False), self.n_nodes, False)

    def apply_real(self, half: Array, y: Array) -> Array:
        """F⁻¹[half · F[y]] for real ``y`` with a half-spectrum multiplier (length ``n_rfft``).

        The inner-loop form of ``apply`` for real operators: no type test, no slicing.
        """
        return irfft(half * rfft(y, False), self.n_nodes, False)

    def diff(self, y: Array, order: int = 1) -> Array:
        """D_order y by FFT (O(N log N))."""
        return self.apply(self.symbol(order), y)

    def matrix_function(self, f: Callable[[Array], Array], order: int, y: Array) -> Array:
        """f(D_order) y = F⁻¹[f(λ(k)) ŷ] (seed 003 Theorem 15)."""
        return self.apply(f(self.symbol(order)), y)

    # ------------------------------------------------------------------ dense checks
    def dense_D1(self) -> FloatArray:
        """Dense first-derivative matrix (Trefethen 2000, odd N), scaled to period L."""
        n = self.n_nodes
        d = np.subtract.outer(np.arange(n), np.arange(n))
        off = d != 0
        s = np.sin(np.where(off, d, 1) * np.pi / n)
        D = np.where(off, (-1.0) ** np.abs(d) / (2.0 * s), 0.0)
        return D * (2.0 * np.pi / self.length)

    def dense_D2(self) -> FloatArray:
        """Dense second-derivative matrix (Trefethen 2000, odd N), scaled to period L."""
        n = self.n_nodes
        m = (n - 1) // 2
        d = np.subtract.outer(np.arange(n), np.arange(n))
        off = d != 0
        arg = np.where(off, d, 1) * np.pi / n
        D = np.where(
            off, (-1.0) ** (np.abs(d) + 1) * np.cos(arg) / (2.0 * np.sin(arg) ** 2), -m * (m + 1) / 3.0
        )
        return D * (2.0 * np.pi / self.length) ** 2

    def dense_D3(self) -> FloatArray:
        """D3 = D1 D2 (dense; checks only)."""
        return self.dense_D1() @ self.dense_D2()

    # ------------------------------------------------------------------ sampling
    def sample(self, fn: Callable[[FloatArray], Array], *, name: str = "initial function") -> Array:
        """Evaluate ``fn`` at the nodes; warn if ``fn`` is visibly not L-periodic.

        The check compares fn(0) with fn(L) and the one-sided slopes there; a jump larger than
        1e-8 (relative to max|fn|) means the periodic interpolant has a discontinuity and spectral
        accuracy is lost.
        """
        values = fn(self.x)
        probe = np.array([0.0, self.length, 1e-6 * self.length, (1 - 1e-6) * self.length])
        ends = np.asarray(fn(probe))
        scale = max(1.0, float(np.max(np.abs(values))))
        jump = abs(ends[0] - ends[1])
        slope_jump = abs((ends[2] - ends[0]) - (ends[1] - ends[3])) / (1e-6 * self.length)
        if jump > 1e-8 * scale or slope_jump > 1e-4 * scale * max(1.0, self.k_max):
            msg = (
                f"{name} is not periodic on [0, {self.length:g}): f(0) - f(L) = {jump:.3g}, slope "
                f"mismatch {slope_jump:.3g}; spectral accuracy is lost. Use a periodic function, or a "
                f"longer domain (grid.length) for a localised one."
            )
            warnings.warn(msg, UserWarning, stacklevel=2)
            logger.warning(msg)
        return values
