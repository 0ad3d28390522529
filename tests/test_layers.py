"""The layer map (docs/architecture.md), enforced on every module of the package by parsing its imports:

    _typing, _version, _numba, _sparse, _tables, diagnostics,
    _newton_kernels                                               (no lgbeam imports above them)
    groups → systems → integrators → solve
    groups, systems → discretisations, models, estimation
    solve, ... → io → apps → studies → bench → cli → __main__

A layer may import only the layers listed for it in ``ALLOWED``; a private module (``pkg/_name.py``) is
imported only from inside its own package, and a private name (``from lgbeam.x.y import _name``) only from inside
its own top-level package; and the import graph has no cycle, neither at module level nor closed by an import
inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "lgbeam"
BASE = {"_typing", "_numba", "_sparse", "_tables", "_version", "diagnostics", "_newton_kernels"}
ALLOWED: dict[str, set[str]] = {
    "_typing": set(), "_version": set(), "_numba": {"_typing"}, "_sparse": {"_typing"}, "_tables": set(),
    "diagnostics": {"_typing"}, "_newton_kernels": {"_typing", "_numba"},
    "groups": BASE,
    "systems": BASE | {"groups"},
    "integrators": BASE | {"groups", "systems"},
    "solve": BASE | {"groups", "systems", "integrators"},
    "discretisations": BASE | {"groups", "systems"},
    "models": BASE | {"groups", "systems"},
    "estimation": BASE | {"groups", "systems"},
    "io": BASE | {"groups", "systems", "integrators", "solve"},
    "apps": BASE | {"groups", "systems", "integrators", "solve", "discretisations", "models", "estimation", "io"},
    "studies": BASE | {"groups", "systems", "integrators", "solve", "discretisations", "models", "estimation", "io",
                       "apps"},
    "bench": BASE | {"groups", "systems", "integrators", "solve", "discretisations", "models", "estimation", "io",
                     "apps", "studies"},
}
ALLOWED["cli"] = set().union(*ALLOWED.values()) | set(ALLOWED)
ALLOWED["__main__"] = {"cli"}
ALLOWED["__init__"] = set(ALLOWED) - {"cli", "__main__", "__init__"}


def _modules() -> dict[str, Path]:
    out = {}
    for f in sorted(PKG.rglob("*.py")):
        parts = f.relative_to(PKG).with_suffix("").parts
        name = "lgbeam." + ".".join(p for p in parts if p != "__init__") if parts != ("__init__",) else "lgbeam"
        out[name.rstrip(".")] = f
    return out


MODULES = _modules()


def _imports(path: Path, top_level_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{a.name}" for a in node.names} & set(MODULES)
            names |= subs or {node.module}  # `from pkg import submodule` depends on the submodule
            if len(subs) < len(node.names):
                names.add(node.module)
    return {n for n in names if n == "lgbeam" or n.startswith("lgbeam.")}


def _layer(path: Path) -> str:
    return path.relative_to(PKG).parts[0].removesuffix(".py")


def test_every_layer_is_mapped():
    layers = {_layer(f) for f in MODULES.values()} - {"py.typed"}
    assert layers <= set(ALLOWED), f"modules in layers without a rule: {sorted(layers - set(ALLOWED))}"


@pytest.mark.parametrize("layer", sorted(set(ALLOWED) - {"__init__"}))
def test_layer_imports(layer):
    files = [f for f in MODULES.values() if _layer(f) == layer]
    if layer not in {_layer(f) for f in MODULES.values()}:
        pytest.fail(f"no modules in lgbeam/{layer}: remove it from ALLOWED")
    bad = []
    for f in files:
        for m in _imports(f):
            target = m.split(".")[1] if "." in m else "__init__"
            if target != layer and target not in ALLOWED[layer] and m in MODULES | {"lgbeam." + target: None}:
                bad.append((str(f.relative_to(PKG)), m))
    assert not bad, f"layer violations: {bad}"


def test_private_modules_stay_in_their_package():
    bad = []
    for f in MODULES.values():
        rel = f.relative_to(PKG).parts
        for m in _imports(f):
            parts = m.split(".")[1:]
            for i, comp in enumerate(parts[:-1] if m not in MODULES else parts):
                owner = tuple(parts[:i])
                if comp.startswith("_") and comp != "__init__" and owner and rel[: len(owner)] != owner:
                    bad.append((str(f.relative_to(PKG)), m))
    assert not bad, f"private modules imported from outside their package: {bad}"


def test_no_private_name_is_imported_across_top_level_packages():
    """``from lgbeam.<pkg>... import _name`` only inside ``lgbeam/<pkg>/`` (the base modules ``_typing``, ``_numba``,
    … are shared by every layer, but their private names are not)."""
    bad = []
    for f in MODULES.values():
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                    and node.module.startswith("lgbeam")):
                continue
            owner = node.module.split(".")[1] if "." in node.module else ""
            private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
            if private and owner != _layer(f):
                bad.append((str(f.relative_to(PKG)), node.module, private))
    assert not bad, f"private names imported from another top-level package: {bad}"


@pytest.mark.parametrize("top_level_only", [True, False], ids=["module-level", "with-function-level"])
def test_no_import_cycles(top_level_only):
    graph = {name: {m for m in _imports(f, top_level_only=top_level_only) if m in MODULES and m != name}
             for name, f in MODULES.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for d in sorted(graph[n]):
            if state.get(d) == 1:
                pytest.fail(f"import cycle: {' -> '.join(stack[stack.index(d):] + [d])}")
            if d not in state:
                visit(d)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)
