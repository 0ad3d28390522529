"""Shared fixtures: floating-point errors raise (a NaN from a small-angle branch fails at its
source), a seeded random generator, and a hypothesis profile that suits CI."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("PYVISTA_OFF_SCREEN", "true")
os.environ.setdefault("MPLBACKEND", "Agg")

settings.register_profile(
    "lgbeam", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("lgbeam")


@pytest.fixture(autouse=True)
def _raise_on_fp_errors():
    with np.errstate(divide="raise", invalid="raise", over="raise"):
        yield


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261122)
