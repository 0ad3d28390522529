"""Optional numba compilation, shared by the ``_compiled`` modules beside their numpy references.

``ENABLED`` is False when numba is missing or the environment sets ``LGBEAM_JIT=0``; it is only the
default of the ``compiled=None`` options (``S3R3``, ``CosseratRod``, ``HeavyTop``, ``SaddlePointSolver``),
read once when such an object is built. Kernels are compiled on first use and cached on disk.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from lgbeam._typing import FloatArray


def _import_numba() -> ModuleType | None:
    """The numba module, or None where it is not installed."""
    try:  # pragma: no cover - exercised by the environment, not by a test
        import numba
    except ImportError:  # pragma: no cover
        return None
    return numba


numba = _import_numba()

AVAILABLE = numba is not None  # numba is installed (``ENABLED`` also honours LGBEAM_JIT=0)
ENABLED = numba is not None and os.environ.get("LGBEAM_JIT", "1").strip().lower() not in ("0", "false", "no", "off")


def resolve(compiled: bool | None) -> bool:
    """The implementation an object uses: ``compiled``, or ``ENABLED`` when it is None."""
    return ENABLED if compiled is None else bool(compiled)


def njit(fn):  # type: ignore[no-untyped-def]
    """numba.njit(cache=True, nogil=True, error_model="numpy"); the plain function without numba."""
    if numba is None:  # pragma: no cover
        return fn
    return numba.njit(cache=True, nogil=True, error_model="numpy")(fn)


def fast_rows(a: object, width: int) -> FloatArray | None:
    """``a`` viewed as (K, width) rows when it is a C-contiguous float64 ndarray whose last axis has
    ``width`` entries (the integrator's hot path, where checked conversions cost more than the kernels),
    else None."""
    if (type(a) is np.ndarray and a.dtype.char == "d" and a.flags.c_contiguous and a.ndim
            and a.shape[-1] == width):
        return a.reshape(-1, width)
    return None


def as_rows(a: FloatArray, width: int) -> FloatArray:
    """``a`` as a C-contiguous float (K, width) array (a view when it already is one)."""
    return np.ascontiguousarray(a, dtype=float).reshape(-1, width)


class Twin(NamedTuple):
    """A compiled kernel, the numpy code it mirrors and a sample of arguments (``tests/test_jit.py``
    checks that both give the same values, to ``rtol``, on ``sample(rng)``)."""

    name: str
    compiled: Callable[..., Any]
    reference: Callable[..., Any]
    sample: Callable[[np.random.Generator], tuple[Any, ...]]
    rtol: float = 1e-13
