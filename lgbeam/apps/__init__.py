"""Applications: the glue that turns a validated case into a run (the only layer that knows both
discretisations and integrators, together with ``lgbeam.cli``).

Each app module (registered by its case ``kind`` in ``APPS``) provides

``SCHEMA``
    the valid keys of its case files (``lgbeam.io.schema.Key`` objects), including the common
    top-level keys ``kind``, ``name``, ``description``;
``run(case, run_dir, *, progress=False) -> RunSummary``
    integrate the validated case and write ``run_dir/solution.npz``, ``run_dir/diagnostics.csv``
    and ``run_dir/paraview/<name>.pvd`` (+ VTU frames); must leave every written file valid if
    interrupted (KeyboardInterrupt propagates after the files are closed);
``errors(solution, reference) -> dict[str, float]``
    error norms of one ``solution.npz`` (as a dict of arrays) against a reference one, compared at
    the reference's final time (used by ``lgbeam study``).
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

CHECKPOINT = "checkpoint.npz"  # a run folder's checkpoint (lgbeam.apps._runner; data only, never a pickle)

APPS: dict[str, str] = {
    "heavy-top": "lgbeam.apps.heavy_top",
    "spherical-pendulum": "lgbeam.apps.pendulum_chain",
    "rod": "lgbeam.apps.rod",
    "frame": "lgbeam.apps.frame",
    "nls": "lgbeam.apps.spectral",
    "kdv": "lgbeam.apps.spectral",
    "ekf": "lgbeam.apps.ekf",
    "rigid-body": "lgbeam.apps.rigid_body",
    "spheres": "lgbeam.apps.spheres",
    "attitude": "lgbeam.apps.attitude",
    "pseudo-rigid": "lgbeam.apps.pseudo_rigid",
    "son-body": "lgbeam.apps.son_body",
    "balls-orbit": "lgbeam.apps.balls_orbit",
    "quadrotors": "lgbeam.apps.quadrotors",
    "heavy-top-lie": "lgbeam.apps.heavy_top_lie",
}


@dataclass
class RunSummary:
    """What a run reports back to the command line (also written to ``provenance.json``)."""

    status: str  # "ok", "interrupted", "failed: ..."
    message: str = ""
    n_steps: int = 0
    n_rejected: int = 0
    t_final: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def get_app(kind: str) -> ModuleType:
    """Import the app module for a case ``kind``; unknown kinds list the known ones."""
    if kind not in APPS:
        raise ValueError(f"unknown case kind {kind!r}; known kinds: {', '.join(sorted(APPS))}")
    return importlib.import_module(APPS[kind])


def load_case(name_or_path: Any, overrides: list[str] | None = None) -> tuple[dict[str, Any], Any]:
    """Find, read, override and validate a case against its kind's ``SCHEMA``; (resolved case, path)."""
    from lgbeam.io.cases import load_case_with

    case, path = load_case_with(name_or_path, overrides, lambda kind: get_app(kind))
    _warn_unused_tolerances(case, overrides or [])
    return case, path


def _warn_unused_tolerances(case: dict[str, Any], overrides: list[str]) -> None:
    """One warning when ``--set integrator.rtol/atol`` cannot act: the case's ``integrator.h`` with the ``auto`` (or
    ``constant``) controller makes the steps constant, and the tolerances are then not used."""
    integ = case.get("integrator")
    keys = [k for k in ("integrator.rtol", "integrator.atol")
            if any(str(o).split("=", 1)[0].strip() == k for o in overrides)]
    if not keys or not isinstance(integ, dict) or integ.get("h") is None \
            or integ.get("controller", "auto") not in ("auto", "constant"):
        return
    logging.getLogger(__name__).warning(
        "%s not used: integrator.h = %g with integrator.controller = %r takes constant steps; add --set "
        "integrator.controller=pi for steps that follow the tolerances", " and ".join(keys), integ["h"],
        integ.get("controller", "auto"))
