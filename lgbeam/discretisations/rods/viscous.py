"""Damping by ratio: a constant linear viscous damping C acting on the body velocities, force −C v (enters g
as +C v), for dynamic runs of frames (``[damping]``, docs/dynamics.md).

Rayleigh: C = a₀ M + a₁ K₀, with K₀ = K_int(q_ref) the tangent about the reference (``modal.tangent``). The
ratio of mode k is ζ_k = a₀/(2ω_k) + a₁ω_k/2, and a₀, a₁ solve it exactly at the two chosen modes i, j:

    [1/(2ω_i)  ω_i/2] [a₀]   [ζ_i]          (equal ζ: a₀ = 2ζ ω_i ω_j/(ω_i + ω_j), a₁ = 2ζ/(ω_i + ω_j))
    [1/(2ω_j)  ω_j/2] [a₁] = [ζ_j]

K₀ is linearised about the reference (not the current tangent): structural damping is a small-strain
idealisation, and a constant C keeps g linear in v with a constant ∂g/∂v, so the implicit methods' iteration
matrix needs no re-assembly for it; C has the pattern of K, so the sparse/banded solvers are unchanged.

Modal: C = M Φ diag(2ζ_k ω_k) Φᵀ M over the m computed modes (φᵀMφ = 1; ``modal.modes``), stored as the factor
MΦ (n × m) and applied as MΦ (c ⊙ (MΦ)ᵀ v). On ker B, ΦᵀCΦ = diag(2ζ_k ω_k): mode k decays with exactly ζ_k;
every motion outside the span of the m modes (the higher modes) is undamped. Its matrix is dense (n × n), so
the implicit methods' iteration matrix becomes dense in the damped block: keep m and the mesh moderate with
them.

References: Chopra, Dynamics of Structures (2012) §11.4 (Rayleigh damping), §11.5 (modal damping, eq. 11.5.3);
Clough & Penzien (2003) §12-3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from lgbeam._typing import FloatArray

from . import modal
from .tangents import SplitTangents

KINDS = ("none", "rayleigh", "modal")
DEFAULT_MODAL = 12  # modes damped by kind = "modal" unless n_modes says (at most the case's free modes)


@dataclass(frozen=True)
class ViscousDamping:
    """C = a₀M + a₁K₀ (``matrix`` sparse) or MΦ diag(c) (MΦ)ᵀ (``factor``, ``c``); ``omega`` the computed
    ω_k of the case (rad/s), ``a0`` (1/s), ``a1`` (s) for Rayleigh."""

    kind: str
    omega: FloatArray
    C: sp.csr_array | None = None
    factor: FloatArray | None = None
    c: FloatArray | None = None
    a0: float = 0.0
    a1: float = 0.0

    def force(self, v: FloatArray) -> FloatArray:
        """C v (the contribution to g)."""
        v = np.asarray(v, dtype=float).ravel()
        if self.C is not None:
            return np.asarray(self.C @ v)
        assert self.factor is not None and self.c is not None
        return np.asarray(self.factor @ (self.c * (self.factor.T @ v)))

    def matrix(self) -> sp.csr_array:
        """C as a sparse matrix (modal: its dense n × n product; only the implicit methods ask for it)."""
        if self.C is not None:
            return self.C
        return self._modal_matrix

    @property
    def _modal_matrix(self) -> sp.csr_array:
        cached = self.__dict__.get("_cache")
        if cached is None:
            assert self.factor is not None and self.c is not None
            cached = sp.csr_array((self.factor * self.c) @ self.factor.T)
            object.__setattr__(self, "_cache", cached)
        return cached

    def ratios(self, omega: FloatArray) -> FloatArray:
        """ζ at the frequencies ω (Rayleigh: a₀/(2ω) + a₁ω/2; modal: the given ratio of each computed
        mode)."""
        w = np.asarray(omega, dtype=float)
        if self.kind == "rayleigh":
            return self.a0 / (2.0 * w) + self.a1 * w / 2.0
        assert self.c is not None
        return self.c[: len(w)] / (2.0 * self.omega[: len(w)])


def rayleigh_coefficients(w_i: float, w_j: float, z_i: float, z_j: float) -> tuple[float, float]:
    """(a₀, a₁) with ζ exact at ω_i and ω_j (module docstring)."""
    A = np.array([[1.0 / (2.0 * w_i), w_i / 2.0], [1.0 / (2.0 * w_j), w_j / 2.0]])
    a0, a1 = np.linalg.solve(A, np.array([z_i, z_j]))
    return float(a0), float(a1)


def _ratios(ratio: Any, n: int, where: str) -> FloatArray:
    """ζ per mode from a number or a list of n numbers, each in [0, 1)."""
    z = np.atleast_1d(np.asarray(ratio, dtype=float))
    if z.size == 1:
        z = np.full(n, float(z[0]))
    if z.size != n:
        raise ValueError(f"damping.ratio must be one number or {n} numbers ({where}), got {len(z)}")
    if np.any(~np.isfinite(z)) or np.any(z < 0.0) or np.any(z >= 1.0):
        raise ValueError(
            f"damping.ratio must lie in [0, 1) (a fraction of critical: 0.05 is 5 %), got {ratio!r}"
        )
    return z


def build(system: SplitTangents, spec: dict[str, Any]) -> ViscousDamping | None:
    """The damping of a case's ``[damping]`` table (kind, ratio, modes, n_modes); None for kind = "none"."""
    kind = spec.get("kind", "none")
    if kind not in KINDS:
        raise ValueError(f"damping.kind = {kind!r} is not one of {', '.join(KINDS)}")
    if kind == "none":
        return None
    n_free = system.n_dofs - system.n_constraints - 2
    if kind == "rayleigh":
        pair = spec.get("modes", [1, 2])
        if (len(pair) != 2 or not all(isinstance(k, int) and not isinstance(k, bool) for k in pair)
                or not 1 <= min(pair) or max(pair) > n_free or pair[0] == pair[1]):
            raise ValueError(
                f"damping.modes must be two different mode numbers in [1, {n_free}], got {pair!r}"
            )
        z = _ratios(spec.get("ratio", 0.05), 2, "one per mode of damping.modes")
        res = modal.modes(system, max(pair))
        w = _positive(res.omega, "damping.modes")
        a0, a1 = rayleigh_coefficients(w[pair[0] - 1], w[pair[1] - 1], z[0], z[1])
        K0 = modal.tangent(system, system.q_ref, None, 0.0)
        M = sp.csr_array(system.mass(system.q_ref))
        return ViscousDamping("rayleigh", w, C=sp.csr_array(a0 * M + a1 * K0), a0=a0, a1=a1)
    n = spec.get("n_modes")
    n = min(DEFAULT_MODAL, n_free) if n is None else n
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= n_free:
        raise ValueError(f"damping.n_modes must be an integer in [1, {n_free}] for this case, got {n!r}")
    z = _ratios(spec.get("ratio", 0.05), n, "one per mode, damping.n_modes of them")
    res = modal.modes(system, n)
    w = _positive(res.omega, "damping.n_modes")
    M = system.mass(system.q_ref)
    factor = np.asarray(M @ res.shapes.reshape(n, -1).T)
    return ViscousDamping("modal", w, factor=factor, c=2.0 * z * w)


def _positive(omega: FloatArray, key: str) -> FloatArray:
    w = np.asarray(omega, dtype=float)
    if np.any(w <= 1e-9 * np.max(np.abs(w))):
        raise ValueError(
            f"{key}: a mode of the case has ω ≈ 0 or ω² < 0 (a mechanism or an unstable reference); "
            "damping by ratio needs the case's modes about a stable reference"
        )
    return w


def summary_lines(d: ViscousDamping, shown: int = 6) -> list[str]:
    """The coefficients and ζ at the first few modes, for the run's printout."""
    k = min(shown, len(d.omega))
    z = d.ratios(d.omega[:k])
    zs = ", ".join(f"{100 * x:.3g}" for x in z)
    fs = ", ".join(f"{x / (2 * np.pi):.4g}" for x in d.omega[:k])
    if d.kind == "rayleigh":
        head = f"damping: Rayleigh C = a0 M + a1 K0, a0 = {d.a0:.6g} 1/s, a1 = {d.a1:.6g} s"
    else:
        head = f"damping: modal, C = M Φ diag(2ζω) Φᵀ M over {len(d.omega)} modes (modes above them undamped)"
    return [f"{head}; ζ [%] at modes 1–{k} ({fs} Hz): {zs}"]
