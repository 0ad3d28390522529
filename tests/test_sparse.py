"""The fast CSR constructor agrees with scipy's public one (guards the instance-state shortcut)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from lgbeam._sparse import csr_like


def test_csr_like_equals_the_public_constructor(rng):
    template = sp.random_array((30, 40), density=0.2, format="csr", rng=rng)
    data = rng.standard_normal(template.nnz)
    before = template.data.copy()
    fast = csr_like(template, data)
    slow = sp.csr_array((data, template.indices, template.indptr), shape=template.shape)
    x = rng.standard_normal(40)
    assert isinstance(fast, sp.csr_array) and fast.shape == (30, 40)
    assert np.array_equal(fast.toarray(), slow.toarray())
    assert np.allclose(fast @ x, slow @ x, rtol=0, atol=1e-14)
    assert np.allclose((fast @ fast.T).toarray(), (slow @ slow.T).toarray(), rtol=0, atol=1e-13)
    assert np.array_equal(template.data, before)  # the template keeps its own entries
    with pytest.raises(ValueError, match="need"):
        csr_like(template, data[:-1])
