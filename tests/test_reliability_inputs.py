"""Issue 23, findings 7, 11, 12 (reviews/t3/reliability.md §F, §B): sizes refused before anything is built,
messages that name the real cause, and options of another method ignored when the case file sets them.
Each test runs the review's reproducer through the in-process command line."""

from __future__ import annotations

import time

import numpy as np
import pytest

from lgbeam.apps import frame as frame_app
from lgbeam.apps import load_case
from lgbeam.cli.main import main
from lgbeam.discretisations.rods import stability
from lgbeam.discretisations.rods.statics import _Equations


def lgbeam_run(capsys, tmp_path, case, *sets, name="run"):
    capsys.readouterr()
    out = tmp_path / name
    args = ["run", case, "--out", str(out), "--quiet", "--no-figures"]
    for s in sets:
        args += ["--set", s]
    rc = main(args)
    cap = capsys.readouterr()
    return rc, cap.err, out


def refused(rc, err, out):
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("WARNING:")]
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("lgbeam run: error: "), err
    assert not out.exists()
    return lines[0]


# ------------------------------------------------------------------ finding 7: sizes before allocation
def test_portal_frame_of_ten_million_elements_is_refused_at_once(capsys, tmp_path):
    start = time.perf_counter()
    line = refused(*lgbeam_run(capsys, tmp_path, "portal-frame", "model.n_elements=10000000"))
    assert "a frame of 30000003 nodes needs about" in line and "output.max_memory_gb = 8" in line
    assert time.perf_counter() - start < 60  # before: no answer after 300 s (the structure was being built)


def test_portal_frame_of_1e5_elements_is_estimated_not_a_traceback(capsys, tmp_path):
    """Before: a 39-line traceback allocating a dense 900024 × 900024 matrix (5.89 TiB). The estimate is
    20 kB a node (measured); under a 1 GiB limit the run is refused before the structure is built."""
    line = refused(*lgbeam_run(capsys, tmp_path, "portal-frame", "model.n_elements=100000",
                               "output.max_memory_gb=1"))
    assert "a frame of 300003 nodes needs about 5.59 GiB" in line


@pytest.mark.parametrize(("case", "sets", "what"), [
    ("cantilever-tip-load", ["analysis.kind=static", "model.n_elements=10000000"], "a rod of 10000001 nodes"),
    ("spherical-pendulum", ["model.n=100000000"], "a chain of 100000000 links"),
    ("nls-soliton", ["grid.n=1000000001"], "a grid of 1000000001 nodes"),
    ("ekf-circle", ["trajectory.laps=1000"], "a run of 400000 steps"),
])
def test_every_kind_estimates_before_it_allocates(capsys, tmp_path, case, sets, what):
    line = refused(*lgbeam_run(capsys, tmp_path, case, *sets))
    assert what in line and "GiB of memory, above output.max_memory_gb" in line


def _kkt_bandwidth(n_elements):
    case, _ = load_case("portal-frame", [f"model.n_elements={n_elements}"])
    frame = frame_app.build(case)
    K, B = _Equations(frame, 1.0).tangent(frame.q_ref, np.zeros(frame.n_constraints), 0.0)
    A, perm = stability.kkt_matrix(K, B)
    coo = A.tocsr()[perm][:, perm].tocoo()
    return int(np.max(np.abs(coo.row - coo.col))), frame


def test_frame_kkt_matrix_is_banded_independently_of_the_mesh():
    """The joints couple the end of one rod to another rod's far end; in the natural node order the band of the
    inertia's LDLᵀ was a whole rod wide (O(N²) memory, O(N³) work). The reverse Cuthill–McKee order keeps it
    fixed, and the inertia is unchanged (Sylvester's law: the count of negative eigenvalues equals the dense one)."""
    (w16, f16), (w64, _) = _kkt_bandwidth(16), _kkt_bandwidth(64)
    assert w16 == w64 <= 48
    K, B = _Equations(f16, 1.0).tangent(f16.q_ref, np.zeros(f16.n_constraints), 1.0)
    neg, _ = stability.negative_count(K, B)
    A = stability.kkt_matrix(K, B)[0].toarray()
    eig = np.linalg.eigvalsh(0.5 * (A + A.T))
    assert neg == int(np.sum(eig < 0.0)) - B.shape[0]


def test_rigid_motion_check_needs_no_rows_by_rows_matrix():
    """free_rigid_motions on 10⁶ constraint rows: the economy SVD (a full one needs 7 TiB)."""
    from lgbeam.groups import S3R3

    q = np.tile(S3R3().identity(), (2, 1))
    q[1, 4] = 1.0
    rows = 1_000_002
    B = __import__("scipy.sparse", fromlist=["csr_array"]).csr_array(
        (np.ones(rows), (np.arange(rows), np.arange(rows) % 12)), shape=(rows, 12))
    assert stability.free_rigid_motions(S3R3(), q, B) == []


# ------------------------------------------------------------------ finding 11: messages naming the cause
def test_loose_frame_member_is_named_with_its_free_motions(capsys, tmp_path):
    line = refused(*lgbeam_run(capsys, tmp_path, "portal-frame", "model.joints=[]"))
    assert "rod 'beam' is joined to no support" in line and "all six rigid motions" in line
    assert "limit point" not in line and "arc-length" not in line


def test_a_huge_load_is_named_as_a_magnitude_not_a_limit_point(capsys, tmp_path):
    rc, err, _ = lgbeam_run(capsys, tmp_path, "portal-frame",
                            'loads.nodal=[{rod="left", node="end", force=[1e30, 0.0, 0.0]}]')
    assert rc == 1 and "linear deflection is 4.0" in err and "e+22 times its size" in err
    assert "limit point (use" not in err


@pytest.mark.parametrize("case", ["portal-frame", "cantilever-tip-load"])
def test_nan_anywhere_in_a_case_is_refused_naming_the_key(capsys, tmp_path, case):
    load = ('{rod="left", node="end", force=[10e3, 0.0, 0.0], scale=nan}' if case == "portal-frame"
            else '{node="end", force=[0.0, 0.0, -1.0], scale=nan}')
    line = refused(*lgbeam_run(capsys, tmp_path, case, f"loads.nodal=[{load}]"))
    assert "case key 'loads.nodal[0].scale' must be a finite number, got nan" in line


def test_non_numbers_in_a_vector_are_refused_naming_the_key(capsys, tmp_path):
    line = refused(*lgbeam_run(capsys, tmp_path, "cantilever-tip-load", 'model.direction=["a","b","c"]'))
    assert "case key 'model.direction' must be 3 numbers, got ['a', 'b', 'c']" in line
    line = refused(*lgbeam_run(capsys, tmp_path, "cantilever-tip-load",
                               'loads.nodal=[{node="end", force=[0.0, 0.0, -1.0], scale="x"}]'))
    assert "loads.nodal[0].scale must be a number, got 'x'" in line


@pytest.mark.slow
def test_rattle_with_a_too_large_step_blames_the_step(capsys, tmp_path):
    rc, err, _ = lgbeam_run(capsys, tmp_path, "steel-cantilever-dynamic", "integrator.method=rattle-lgvi",
                            "integrator.h=1e-2", "output.vtk=false")
    assert rc == 1 and "singular" in err and "is likely too large" in err


# ------------------------------------------------------------------ finding 12: options of another method
def test_case_file_option_of_another_method_is_ignored_with_a_note(capsys, tmp_path, caplog):
    """docs/cases.md's own command: the case file's integrator.rho_inf (gen-alpha) does not block rattle-lgvi."""
    rc, err, _ = lgbeam_run(capsys, tmp_path, "steel-cantilever-dynamic", "integrator.method=rattle-lgvi",
                            "time.t_end=0.002", "output.vtk=false")
    assert rc == 0, err
    assert any("integrator.rho_inf = 0.9 of the case file applies to method 'gen-alpha' only; ignored for "
               "'rattle-lgvi'" in r.getMessage() for r in caplog.records)


def test_option_of_another_method_given_with_set_is_refused(capsys, tmp_path):
    line = refused(*lgbeam_run(capsys, tmp_path, "steel-cantilever-dynamic", "integrator.method=rattle-lgvi",
                               "integrator.rho_inf=0.5", "time.t_end=0.002"))
    assert "--set integrator.rho_inf applies to method 'gen-alpha' only, not 'rattle-lgvi'" in line


def test_overridden_keys_are_recorded_but_not_part_of_the_case():
    case, _ = load_case("steel-cantilever-dynamic", ["integrator.h=2e-3", "time={t_end = 0.1}"])
    assert case.overridden == {"integrator.h", "time"}
    assert case.was_set("integrator.h") and case.was_set("time.t_end") and not case.was_set("integrator.rho_inf")
    assert dict(case) == case and "overridden" not in case


# ------------------------------------------------------------------ what test_case_fuzz.py found
@pytest.mark.parametrize(("case", "sets", "message"), [
    ("nls-soliton", ["initial.amplitude=1e300"], "the initial data overflow"),
    ("portal-frame", ["loads.gravity=[{a = 1}]"], "gravity acceleration must be 3 finite numbers"),
    ("cantilever-tip-load", ['loads.nodal=[{node="end", force=[0.0, 0.0, -1.0], scale=["a", "b", "c"]}]'],
     "loads.nodal[0].scale must be a number"),
    ("heavy-top", ["output.every=-0.01"], "output.every must be a time interval > 0 (or 0: every accepted step)"),
])
def test_fuzz_findings_are_one_line_refusals(capsys, tmp_path, case, sets, message):
    assert message in refused(*lgbeam_run(capsys, tmp_path, case, *sets))
