"""Projection of a step onto the level set of the PDE's first integrals (issue 35: invariants bounded on long
runs of a non-conservative method).

The standard projection method (Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2nd ed., §IV.4,
Algorithm 4.2): after a step ỹ, find y = ỹ + G μ with G = [∇I₁(ỹ), …, ∇I_m(ỹ)] (gradients in the system's
``inner``) such that I(y) = I(y₀), by simplified Newton on μ with the fixed matrix GᵀG:

    μ_{k+1} = μ_k − (GᵀG)⁻¹ (I(ỹ + G μ_k) − I(y₀)).

The projection keeps the method's order (ỹ − y = O(local error)) and holds every projected integral at its
initial value to the solve's tolerance, so none can drift. It is not a Poisson map: the phase error still
grows, and invariants other than the projected ones are not kept.
"""

from __future__ import annotations

import numpy as np

from lgbeam._typing import Array, FloatArray
from lgbeam.systems import HasSpectralInvariants

MAX_ITER = 4
SMALL = 1e-14  # a Newton correction below SMALL·‖y‖ is round-off: stop
FAR = 1e-8  # still above FAR·‖y‖ after MAX_ITER: the step is far off the level set


def project(system: HasSpectralInvariants, y: Array, v: Array, target: dict[str, float]
            ) -> tuple[Array, Array, int]:
    """(y, v = its coefficients) projected onto {I = target} along the gradients at y, and the simplified
    Newton iterations taken.

    Each iterate is y + Gμ and v + Ĝμ (the transform is linear), so its integrals need no transform: the
    projection costs the gradients' two or three transforms. ``target`` names the integrals to keep. The
    defect after one iteration is O(‖ỹ − y‖²), so one or two iterations reach round-off; raises
    ``ArithmeticError`` when the correction is still above FAR·‖y‖ after ``MAX_ITER`` iterations (the driver
    then ends the run at the last good state)."""
    names = tuple(target)
    grads = system.spectral_invariant_gradients(y, v)
    G = np.array([grads[k][0] for k in names])  # (m, n) rows: one matrix–vector product per iterate
    G_hat = np.array([grads[k][1] for k in names])
    m = len(names)
    gram: FloatArray = np.empty((m, m))
    for i in range(m):  # m ≤ 3 integrals: six inner products
        for j in range(i, m):
            gram[i, j] = gram[j, i] = system.inner(G[i], G[j])
    inv = _gram_inverse(gram)
    goal = np.array([target[k] for k in names])
    size = float(np.sqrt(abs(system.inner(y, y))))
    mu = np.zeros(len(names))
    out, out_hat, change = y, v, np.inf
    for it in range(1, MAX_ITER + 1):
        now = system.spectral_invariants(out, out_hat)
        dmu = inv @ (np.array([now[k] for k in names]) - goal)
        mu -= dmu
        change = float(np.sqrt(abs(dmu @ gram @ dmu)))  # ‖G dμ‖ in the system's inner product
        out, out_hat = y + mu @ G, v + mu @ G_hat
        if change <= SMALL * size:
            return out, out_hat, it
    if change > FAR * size:
        raise ArithmeticError(
            f"projection onto {names} did not converge in {MAX_ITER} iterations (last correction "
            f"{change / size:.2e} of |y|): the step left the level set too far; take a smaller step or tolerance"
        )
    return out, out_hat, MAX_ITER


def _gram_inverse(gram: FloatArray) -> FloatArray:
    """(GᵀG)⁻¹, or its pseudo-inverse where the gradients are (nearly) dependent — a plane wave has ∇mass ∥
    ∇momentum, the same constraint twice; the least-norm μ then projects onto the lower-dimensional level set.
    Dependence is judged on the unit-diagonal (correlation) form, whose determinant is 1 for orthogonal
    gradients and 0 for dependent ones."""
    d = np.sqrt(np.maximum(np.diag(gram), np.finfo(float).tiny))
    corr = gram / np.outer(d, d)
    if np.linalg.det(corr) > 1e-10:
        return np.asarray(np.linalg.inv(gram), dtype=float)
    return np.asarray(np.linalg.pinv(gram, rcond=1e-12, hermitian=True), dtype=float)


__all__ = ["project"]
