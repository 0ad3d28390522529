"""Layering (docs/architecture.md): groups → systems → integrators → solve → io/apps/cli/studies, and
groups/systems → discretisations/models; integrators and discretisations never import each other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "lgbeam"
FORBIDDEN = {
    "groups": ("lgbeam.systems", "lgbeam.integrators", "lgbeam.solve", "lgbeam.discretisations", "lgbeam.models",
               "lgbeam.io", "lgbeam.apps", "lgbeam.cli", "lgbeam.studies"),
    "integrators": ("lgbeam.discretisations", "lgbeam.models", "lgbeam.io", "lgbeam.apps", "lgbeam.cli",
                    "lgbeam.studies", "lgbeam.solve"),
    "discretisations": ("lgbeam.integrators", "lgbeam.solve", "lgbeam.io", "lgbeam.apps", "lgbeam.cli", "lgbeam.studies"),
    "models": ("lgbeam.integrators", "lgbeam.solve", "lgbeam.io", "lgbeam.apps", "lgbeam.cli", "lgbeam.studies"),
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports(layer):
    files = sorted((PKG / layer).rglob("*.py"))
    assert files, f"no modules in lgbeam/{layer}"
    bad = [(f.relative_to(PKG), m) for f in files for m in _imports(f) if m.startswith(FORBIDDEN[layer])]
    assert not bad, f"layer violations: {bad}"
