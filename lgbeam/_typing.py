"""Type aliases shared across lgbeam."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Array = npt.NDArray[np.generic]
Matrix = np.ndarray | sp.csr_array | sp.csr_matrix | sp.sparray
