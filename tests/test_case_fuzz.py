"""Fuzzing the case values (issue 23): a random schema key of a few cases set to a random wrong, extreme or
empty value through ``lgbeam run --set`` either runs (exit 0, or 1 with a run status such as ``failed`` or
``energy_growth``) or is refused in one line with exit 2 and no run folder left — never a Python traceback.

The runs are in-process (``lgbeam.cli.main.main``) and tiny (a few steps, no ParaView output, no figures);
the examples are derandomised so the default suite is deterministic. ``pytest -m slow -k fuzz`` draws fresh
random examples, more of them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lgbeam.apps import get_app
from lgbeam.cli.main import main
from lgbeam.io.cases import find_case, read_toml
from lgbeam.io.schema import Key

# each case with the overrides that keep a run tiny (the fuzzed --set comes last and wins)
CASES: dict[str, list[str]] = {
    "heavy-top": ["time.t_end=0.004", "integrator.max_steps=50"],
    "portal-frame": ["model.n_elements=4", "analysis.max_steps=20"],
    "nls-soliton": ["time.t_end=0.025", "output.every=0.0125", "grid.n=65", "integrator.max_steps=50"],
    "cantilever-tip-load": ["model.n_elements=4", "analysis.max_steps=20", "time.t_end=0.001",
                            "integrator.max_steps=50"],
}
COMMON = ["output.vtk=false", "output.checkpoint_seconds=0"]

# wrong types, signs, zero, non-finite, huge, tiny, empty strings, lists, tables (TOML literals for --set)
VALUES = ("-1", "0", "1", "-1.0", "0.0", "nan", "inf", "-inf", "1e300", "-1e300", "1e-300", "1000000000000",
          '""', '"x"', '"../x"', "[]", "[1, 2]", '["a", "b", "c"]', "[nan, 0.0, 0.0]", "[1e300, 0.0, 0.0]",
          "true", "false", "{a = 1}", "[{a = 1}]", "[[1, 2], [3]]", '"static"', '"dynamic"', '"rattle-lgvi"',
          '"gen-alpha"')

# values inside the tables of a case (loads, supports, joints): the finite-value and key checks must descend
NESTED = {
    "portal-frame": ['loads.nodal=[{{rod = "left", node = "end", force = [10e3, 0.0, 0.0], scale = {v}}}]',
                     'loads.nodal=[{{rod = "left", node = {v}, force = [10e3, 0.0, 0.0]}}]',
                     'loads.nodal=[{{rod = "left", node = "end", force = {v}}}]',
                     'model.joints=[{{a = ["left", "end"], b = ["beam", "start"], kind = {v}}}]',
                     'supports=[{{rod = "left", node = "start", kind = {v}}}]'],
    "cantilever-tip-load": ['loads.nodal=[{{node = "end", force = [0.0, 0.0, -1.0], scale = {v}}}]',
                            'loads.nodal=[{{node = "end", force = {v}}}]',
                            'loads.nodal=[{{node = {v}, force = [0.0, 0.0, -1.0]}}]',
                            ('loads.nodal=[{{node = "end", force = [0.0, 0.0, -1.0], time = "table", times = {v}, '
                             'values = [1.0, 2.0]}}]')],
}


def _keys(schema: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for name, spec in schema.items():
        if isinstance(spec, dict):
            out += _keys(spec, f"{prefix}{name}.")
        elif isinstance(spec, Key) and name != "kind":
            out.append(f"{prefix}{name}")
    return out


def _targets() -> list[tuple[str, str]]:
    """(case, '--set' template with {v}) for every schema key of every case, and the nested tables."""
    out = []
    for case in CASES:
        kind = read_toml(find_case(case))["kind"]
        out += [(case, f"{key}={{v}}") for key in _keys(get_app(kind).SCHEMA)]
        out += [(case, t) for t in NESTED.get(case, [])]
    return out


TARGETS = _targets()


def run_one(capsys: pytest.CaptureFixture[str], case: str, override: str) -> tuple[int, str, Path]:
    capsys.readouterr()
    out = Path(tempfile.mkdtemp(prefix="lgbeam-fuzz-")) / "run"
    args = ["run", case, "--out", str(out), "--quiet", "--no-figures"]
    for ov in [*COMMON, *CASES[case], override]:
        args += ["--set", ov]
    try:
        rc = main(args)
    except SystemExit as exc:  # argparse
        rc = int(exc.code or 0)
    return rc, capsys.readouterr().err, out


def check_outcome(rc: int, err: str, out: Path, what: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("WARNING:", "INFO:"))]
    assert "Traceback" not in err, f"{what}: traceback\n{err}"
    assert rc in (0, 1, 2), f"{what}: exit {rc}\n{err}"
    if rc == 2:
        assert len(lines) == 1 and lines[0].startswith("lgbeam run: error: "), f"{what}: not one line\n{err}"
        assert not out.exists(), f"{what}: refused, but left the run folder {out}"
    elif rc == 1:  # the run ended early with a status (the folder says what it was)
        assert len(lines) == 1 and lines[0].startswith("lgbeam run: "), f"{what}: not one line\n{err}"
        assert (out / "provenance.json").is_file()


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(target=st.sampled_from(TARGETS), value=st.sampled_from(VALUES))
def test_fuzzed_case_values_run_or_are_refused_in_one_line(capsys, target, value):
    _fuzz_one(capsys, target, value)


@pytest.mark.slow
@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(target=st.sampled_from(TARGETS), value=st.sampled_from(VALUES))
def test_fuzzed_case_values_random_and_more(capsys, target, value):
    _fuzz_one(capsys, target, value)


def _fuzz_one(capsys, target, value):
    """``lgbeam run`` with one drawn value: it runs, or stops with a status line, or is refused in one line."""
    case, template = target
    override = template.format(v=value)
    rc, err, out = run_one(capsys, case, override)
    check_outcome(rc, err, out, f"lgbeam run {case} --set '{override}'")
