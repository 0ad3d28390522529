"""Type aliases shared across lgbeam."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
ComplexArray = npt.NDArray[np.complex128]
# a dense real or complex state (Poisson systems): arithmetic type-checks
Array = npt.NDArray[np.inexact[Any]]
Matrix = np.ndarray | sp.csr_array | sp.csr_matrix | sp.sparray
