"""Low-level sparse helpers shared by discretisations and integrators."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from lgbeam._typing import FloatArray


def csr_like(template: sp.csr_array, data: FloatArray) -> sp.csr_array:
    """A CSR array with ``template``'s structure (shared ``indices``/``indptr``) and entries ``data``.

    Skips scipy's constructor checks (index dtype, format; ~40 µs a call), which ``template`` passed
    once, by copying the template's instance state; sharing the index arrays also lets the stage solver
    reuse its cached product pattern. Falls back to the public constructor if the instance layout of
    scipy's CSR arrays ever changes (checked by tests/test_sparse.py against the constructor).
    """
    data = np.ascontiguousarray(data, dtype=float)
    if data.shape != (template.nnz,):
        raise ValueError(f"csr_like: need {template.nnz} entries, got shape {data.shape}")
    try:
        out = sp.csr_array.__new__(sp.csr_array)
        out.__dict__.update(template.__dict__)
        out.data = data
        if out.shape == template.shape and out.indices is template.indices:
            return out
    except (AttributeError, TypeError):  # pragma: no cover - a future scipy layout
        pass
    return sp.csr_array((data, template.indices, template.indptr), shape=template.shape)  # pragma: no cover


def arpack_start(n: int) -> FloatArray:
    """ARPACK's starting vector, the same on every call and machine (``v0`` of ``eigsh``/``eigs``): without it
    scipy draws one from the operating system's entropy, so eigenvectors of (nearly) equal eigenvalues, and
    which of them a truncated iteration returns, vary from run to run."""
    return np.random.default_rng(20261207).uniform(-1.0, 1.0, n)
