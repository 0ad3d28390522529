"""Start-up cost (issue 34 item 4, issue 36): ``lgbeam --help`` and ``lgbeam list`` import neither numba, dask nor
scikit-fem, and importing a constant of ``lgbeam.integrators`` does not build the method registry; the lazy
package still resolves every public name to the object of its defining submodule."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lgbeam

ROOT = Path(lgbeam.__file__).resolve().parent.parent
HEAVY = ("numba", "dask", "skfem", "lgbeam.integrators.registry")

PROBE = f"""
import contextlib, io, json, sys
from lgbeam.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:  # argparse's --help
        code = exc.code
print(json.dumps({{"code": code, "loaded": [m for m in {HEAVY!r} if m in sys.modules]}}))
"""


def _probe(*args: str) -> dict:
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True, env=env,
                         cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [["--help"], ["list"]])
def test_help_and_list_import_no_heavy_package(args):
    rep = _probe(*args)
    assert rep["code"] == 0
    assert rep["loaded"] == []


def test_a_constant_of_the_integrators_package_does_not_build_the_registry():
    code = ("import sys; from lgbeam.integrators.controllers import PI_BETA; from lgbeam.io.schema import Key; "
            f"print([m for m in {HEAVY!r} if m in sys.modules])")
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_lazy_names_are_the_defining_modules_objects():
    pkg = importlib.import_module("lgbeam.integrators")
    for name in pkg.__all__:
        value = getattr(pkg, name)
        assert value is getattr(importlib.import_module(f"lgbeam.integrators.{pkg._API[name]}"), name)
        assert name in dir(pkg)
    from lgbeam.integrators import METHODS, registry

    assert METHODS is registry.METHODS and len(METHODS) > 0
    with pytest.raises(AttributeError, match="no attribute 'not_a_method'"):
        _ = pkg.not_a_method


def test_a_rod_run_imports_neither_scikit_fem_nor_meshio():
    """The rod app and its runner (what ``lgbeam run steel-cantilever-dynamic`` imports) build their meshes and
    VTP frames without scikit-fem and meshio; ``RodMesh.uniform`` gives scikit-fem's ``MeshLine`` nodes."""
    code = ("import sys; import lgbeam.apps.rod, lgbeam.apps._runner, lgbeam.cli.cmd_run; "
            "from lgbeam.discretisations.rods.mesh import RodMesh; m = RodMesh.uniform(2.5, 7); "
            "print([k for k in ('skfem', 'meshio', 'matplotlib') if k in sys.modules])")
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT)
    assert out.stdout.strip() == "[]"
    from skfem import MeshLine

    from lgbeam.discretisations.rods.mesh import RodMesh

    for length, n in ((2.5, 7), (1.0, 16), (0.3, 1000)):
        ref = np.sort(MeshLine(np.linspace(0.0, length, n + 1)).p[0])
        assert np.array_equal(RodMesh.uniform(length, n).s, ref)


def test_the_summary_is_reported_before_the_figures(tmp_path):
    """``run_case(report=...)`` hands the summary over once the run's files are complete and before figures/ is
    written (the command line prints its line there); the figures follow."""
    from lgbeam.apps import load_case
    from lgbeam.cli.cmd_run import run_case

    case, source = load_case("steel-cantilever-dynamic", ["time.t_end=0.01", "output.vtk=false"])
    seen = []

    def report(summary):
        seen.append((summary.status, (tmp_path / "solution.npz").is_file(), (tmp_path / "figures").exists()))

    run_case(case, source, tmp_path, progress=False, report=report)
    assert seen == [("ok", True, False)]
    assert (tmp_path / "figures" / "tip_trajectory.png").is_file()


FAMILIES_NOT_ASKED = ("lgbeam.integrators.poisson", "lgbeam.integrators.rigid", "lgbeam.integrators.spheres",
                      "lgbeam.integrators.lgvi", "lgbeam.integrators.lie", "lgbeam.integrators.integral_preserving",
                      "lgbeam.integrators.rkmk")


def test_a_gen_alpha_run_imports_only_the_families_it_asks_for(tmp_path):
    """``lgbeam run`` of a gen-alpha rod case (its schema lists the methods of a constrained mechanical system)
    loads the half-explicit and implicit families only: neither the Poisson/spectral, rigid-body, spheres, LGVI,
    Lie-action, integral-preserving nor RKMK methods (issue 34 item 4)."""
    code = ("import contextlib, io, sys; from lgbeam.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main(['run', 'steel-cantilever-dynamic', '--quiet', '--no-figures', '--out', {str(tmp_path / 'r')!r},"
            " '--set', 'time.t_end=0.004', '--set', 'output.vtk=false'])\n"
            f"print(code, [m for m in {FAMILIES_NOT_ASKED!r} if m in sys.modules], "
            "'lgbeam.integrators.generalized_alpha' in sys.modules)")
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "0 [] True"


def test_the_family_index_is_what_the_families_register():
    """``registry._FAMILIES`` (names and protocols known before a family is imported) against the entries each
    loader builds; ``METHODS`` holds every family's entries in the index's order; ``method_entry`` and
    ``methods_for`` answer as from the full registry."""
    from lgbeam.integrators import registry

    seen: list[str] = []
    for key, fam in registry._FAMILIES.items():
        entries = fam.load()
        assert tuple(e.name for e in entries) == fam.names, key
        assert {e.needs.__name__ for e in entries} == set(fam.protocols), key
        seen += fam.names
    assert len(seen) == len(set(seen))
    methods = registry.METHODS
    assert list(methods) == seen
    for name in ("gen-alpha", "exp-suzuki4", "eln", "spheres-rattle", "slgi"):
        assert registry.method_entry(name) is methods[name]
    for protocol in {e.needs for e in methods.values()}:
        assert registry.methods_for(protocol) == [e.name for e in methods.values() if e.needs is protocol]
    with pytest.raises(ValueError, match="unknown integrator method 'nope'; known methods — half-explicit: herk1"):
        registry.method_entry("nope")


def test_a_figure_saved_without_the_extra_layout_draw_is_the_same_png(tmp_path):
    """``plots._save`` drops the place-holder layout engine that ``tight_layout`` leaves (for which ``savefig``
    draws the figure twice): the PNG is byte for byte the one matplotlib's default path writes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from lgbeam.io.plots import _plain_log_ticks, _save

    def draw() -> Figure:
        fig = Figure(figsize=(4, 2.5))
        ax = fig.add_subplot()
        t = np.linspace(0.0, 1.0, 200)
        ax.semilogy(t, 1e-9 + t**3, ".-", ms=2, label="accepted")
        ax.set_title("step size")
        ax.set_ylabel("h  [s]")
        ax.legend()
        return fig

    ours = _save(draw(), tmp_path / "ours.png")
    fig = draw()
    FigureCanvasAgg(fig)
    _plain_log_ticks(fig)
    fig.tight_layout()
    assert fig.get_layout_engine() is not None  # what made savefig draw twice
    fig.savefig(tmp_path / "default.png", dpi=110, pil_kwargs={"compress_level": 1})
    assert ours.read_bytes() == (tmp_path / "default.png").read_bytes()
