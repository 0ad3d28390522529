"""No wrong "ok", no false alarm, no crash on a blow-up, advice that names the real cause (issue #33 items 2, 5, 6;
reviews/t4/reliability.md §3 and its scripts/reliability/guard.py): one test per finding, with the review's
reproducer (short t_end, few steps).

The independent truths: a conservative system keeps its energy (heavy top, seed bodies, Hamiltonian PDEs); a
loaded or driven rod's energy changes by the work booked on it (E − E₀ = W + ∫λ·Φ_t), the same wherever the
origin is; a focusing NLS plane wave with wavenumber m = amplitude a has H = (m²a² − a⁴) L = 0 exactly; a smaller
step agrees with the larger one where the run is resolved.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lgbeam.apps import load_case
from lgbeam.apps.heavy_top import problem as heavy_top_problem
from lgbeam.cli.main import main
from lgbeam.integrators.base import Status
from lgbeam.integrators.registry import make_method
from lgbeam.io.cases import write_toml
from lgbeam.solve import ConstantStep, integrate
from lgbeam.solve.driver import BLOWUP_STATUSES, DRIFT_FACTOR, INVARIANT_SCALE, Checkpointing, advice

QUICK = ["--quiet", "--no-figures"]
BLOWN = {s.value for s in BLOWUP_STATUSES}
FS_GRAVITY = ["loads.gravity=[0.0,0.0,-9.81]", "model.constraints=none", "time.t_end=0.08", "output.every=0.02"]
SPRING = ['supports.at=[{node=0, kind="free", stiffness=1.0}]', "model.constraints=none", "time.t_end=0.08",
          "output.every=0.02"]
DRIVEN = ["model.constraints=none", "integrator.method=herk4", "time.t_end=0.035", "output.every=0.005"]


def _run(tmp_path: Path, tag: str, case: str, sets: list[str], capsys: Any = None) -> tuple[int, Path, str]:
    """``lgbeam run CASE --set …`` into tmp_path/tag: (exit code, run folder, stderr)."""
    out = tmp_path / tag
    args = ["run", case, "--out", str(out), *QUICK]
    for s in sets:
        args += ["--set", s]
    code = main(args)
    err = capsys.readouterr().err if capsys is not None else ""
    return code, out, err


def _record(out: Path) -> tuple[dict[str, Any], np.ndarray]:
    """(provenance.json, the accepted rows of diagnostics.csv)."""
    prov = json.loads((out / "provenance.json").read_text())
    rows = np.genfromtxt(out / "diagnostics.csv", delimiter=",", names=True)
    return prov, np.atleast_1d(rows)[np.atleast_1d(rows)["accepted"] == 1]


def _assert_stopped(code: int, out: Path, err: str = "") -> dict[str, Any]:
    """Exit 1, a blow-up status in the kept run folder, one status line and no traceback."""
    assert code == 1, err
    prov, _ = _record(out)
    assert prov["status"] in BLOWN, prov["status"]
    assert "Traceback" not in err
    return prov


# ------------------------------------------------------------------------------------ item 2: no wrong "ok"
def test_heavy_top_that_gains_energy_is_stopped(tmp_path, capsys):
    """heavy-top herk4 h = 0.02 to t = 0.28 ended ok with energy 5 436 → 39 912 (a conservative top: h = 1e-4 keeps
    5435.697 to 7 digits). Now it stops, and no accepted state is further from E₀ than 0.25 × the largest energy
    content so far, which bounds a conservative system's gain to a third of its initial content (here T₀ = E₀ −
    V₀ with V measured from V₀: E ≤ 4/3 E₀, against ×7.3 before)."""
    code, out, err = _run(tmp_path, "ht", "heavy-top", ["integrator.method=herk4", "integrator.h=0.02",
                                                       "time.t_end=0.28"], capsys)
    _assert_stopped(code, out, err)
    _, rows = _record(out)
    assert rows["energy"].max() <= 4 / 3 * rows["energy"][0], rows["energy"]


def test_the_check_does_not_depend_on_where_the_origin_is(tmp_path, capsys):
    """The same free rod under gravity at z = 0 and z = 10⁵ m (V₀ = m g z = 9.8e6 J): stopped at the same step
    with h = 0.02 (z = 10⁵ ended ok with 5.7e5 J gained), and at h = 1e-3 both run and book the same energy
    balance (E − E₀ − W relative to the content; gravity's work is in V)."""
    far = ["model.start=[0.0,0.0,1e5]"]
    stops = []
    for tag, extra in (("z0", []), ("z1e5", far)):
        code, out, err = _run(tmp_path, tag, "flying-spaghetti", [*FS_GRAVITY, *extra, "integrator.h=0.02"], capsys)
        prov = _assert_stopped(code, out, err)
        stops.append((prov["status"], prov["summary"]["n_steps"]))
    assert stops[0] == stops[1], stops
    ratios = []
    for tag, extra in (("z0-fine", []), ("z1e5-fine", far)):
        code, out, err = _run(tmp_path, tag, "flying-spaghetti", [*FS_GRAVITY, *extra, "integrator.h=1e-3"], capsys)
        assert code == 0, err
        ratios.append(_record(out)[0]["summary"]["extra"]["energy_check"])
    assert max(abs(r) for r in ratios) < 1e-3, ratios
    assert abs(ratios[0] - ratios[1]) < 1e-4, ratios


@pytest.mark.parametrize(("tag", "case", "sets"), [
    ("driven", "rod-driven", [*DRIVEN, "integrator.h=5e-3"]),  # ended ok with 1.6e5 J (right: 6.6e-8 J)
    ("spring", "flying-spaghetti", [*SPRING, "integrator.h=0.02"]),  # ended ok with 5.65e5 J (right: 0.0116 J)
])
def test_prescribed_motion_and_springs_keep_the_check_on(tmp_path, capsys, tag, case, sets):
    code, out, err = _run(tmp_path, tag, case, sets, capsys)
    _assert_stopped(code, out, err)


@pytest.mark.parametrize(("case", "sets"), [("rod-driven", [*DRIVEN, "integrator.h=5e-4"]),
                                            ("flying-spaghetti", [*SPRING, "integrator.h=1e-3"])])
def test_driven_and_spring_rods_book_their_energy(tmp_path, capsys, case, sets):
    """The resolved runs of the two reproducers: ok, and the energy changes by the booked work to 1e-3 of the
    energy put in (prescribed motion: λ·Φ_t; a spring: in the potential) — the balance, not a loose bound."""
    code, out, err = _run(tmp_path, "fine", case, sets, capsys)
    assert code == 0, err
    prov, rows = _record(out)
    assert rows["energy"].max() > 1e-9  # it moved
    assert abs(prov["summary"]["extra"]["energy_check"]) < 1e-3, prov["summary"]["extra"]["energy_check"]


@pytest.mark.parametrize(("case", "blown", "fine"), [
    ("rigid-body", ["integrator.h=20.0", "time.t_end=400", "output.every=20"], ["time.t_end=20", "output.every=5"]),
    ("spheres", ["integrator.h=2.0", "time.t_end=50", "output.every=2"], ["time.t_end=2", "output.every=1"]),
    ("attitude", ["integrator.method=lie-heun", "integrator.h=1.0", "time.t_end=50"], ["time.t_end=5"]),
])
def test_seed_kinds_stop_on_their_blow_ups(tmp_path, capsys, case, blown, fine):
    """rigid-body ×164, spheres ×3 410, attitude ×41 ended ok (only the 10⁶ factor guarded them); each now stops
    with energy_growth, and the case's own step still runs ok with its energy kept to 1 %."""
    code, out, err = _run(tmp_path, "blown", case, blown, capsys)
    assert _assert_stopped(code, out, err)["status"] == "energy_growth"
    code, out, err = _run(tmp_path, "fine", case, fine, capsys)
    assert code == 0, err
    e = _record(out)[1]["energy"]
    assert np.abs(e - e[0]).max() <= 1e-2 * abs(e[0])


def test_nls_plane_wave_blow_up_is_stopped_and_its_advice_runs(tmp_path, capsys):
    """nls-soliton with initial.kind = plane-wave exited 0 while H grew 113 → 726. Now it stops (energy_growth)
    where |H − H₀| passes 0.5 × the initial content |½⟨y₀,Ay₀⟩| + |U(y₀)| (computed here from the case), and the
    adaptive method its advice names runs from the CLI with the keys it names."""
    from lgbeam.apps.spectral import build
    from lgbeam.integrators.poisson.base import energy_parts

    code, out, err = _run(tmp_path, "pw", "nls-soliton", ["initial.kind=plane-wave"], capsys)
    prov = _assert_stopped(code, out, err)
    assert prov["status"] == "energy_growth"
    system, y0, _ = build(load_case("nls-soliton", ["initial.kind=plane-wave"])[0])
    parts = energy_parts(system, y0)
    e = _record(out)[1]["energy"]
    assert e[0] == pytest.approx(parts["energy"], rel=1e-12)
    bound = DRIFT_FACTOR * INVARIANT_SCALE  # 0.5
    assert np.abs(e - e[0]).max() <= bound * parts["energy_scale"] < 726 - e[0]
    named = re.search(r"integrator\.method = ([\w-]+)", err)
    assert named and "integrator.controller = \"pi\"" in err, err
    code, out, err = _run(tmp_path, "advised", "nls-soliton", [
        f"integrator.method={named.group(1)}", "integrator.controller=pi", "integrator.rtol=1e-6",
        "integrator.atol=1e-8", "time.t_end=0.1"], capsys)
    assert code == 0, err


@pytest.mark.slow  # 935 steps of a 7-stage composition on 401 nodes (~20 s)
def test_kdv_yoshida6_energy_error_is_stopped(tmp_path, capsys):
    """kdv-zk with exp-yoshida6 at h = 0.002 (above its resonance-free step 6.1e-4) ended ok at t = 5 with H
    −0.0501 → −0.0989 (a 100 % energy error; KdV conserves H). It stops with energy_growth once |H − H₀| passes
    0.5 × its content (|H₀|: its two parts have one sign), every accepted H within that bound."""
    code, out, err = _run(tmp_path, "y6", "kdv-zk", ["integrator.method=exp-yoshida6", "integrator.h=0.002"], capsys)
    assert _assert_stopped(code, out, err)["status"] == "energy_growth"
    e = _record(out)[1]["energy"]
    assert np.abs(e - e[0]).max() <= DRIFT_FACTOR * INVARIANT_SCALE * abs(e[0]) * (1 + 1e-9)


def test_a_zero_energy_state_is_no_false_alarm(tmp_path, capsys):
    """Focusing NLS plane wave with m = a = 2 on [0, 2π): H = (m²a² − a⁴) L = 0 exactly. It was stopped as blown
    up (|H| 1.2e-11 > 10 × its first value 1.2e-12); the check now measures H against its parts (|½⟨y,Ay⟩| +
    |U| = 2·a⁴L ≈ 201), so the run is ok and H stays at round-off."""
    code, out, err = _run(tmp_path, "fpw", "nls-plane-wave", [
        "nls.kappa=-1.0", "initial.amplitude=2.0", "initial.wavenumber=2.0", "integrator.method=energy-exp",
        "time.t_end=2"], capsys)
    assert code == 0, err
    e = _record(out)[1]["energy"]
    assert np.abs(e).max() < 1e-9, np.abs(e).max()


# ------------------------------------------------------------------------- item 5: blow-ups are not crashes
@pytest.mark.parametrize(("case", "sets"), [
    ("heavy-top-lie", ["integrator.h=0.5", "time.t_end=1.0", "output.every=0.5"]),  # was a 39-line OverflowError
    ("son-body", ["integrator.h=5.0", "time.t_end=100", "output.every=5"]),  # was an AttributeError traceback
    ("pseudo-rigid", ["integrator.method=lie-heun", "integrator.h=2.0", "time.t_end=40", "output.every=2"]),
])
def test_blow_ups_end_with_a_status_line_not_a_traceback(tmp_path, capsys, case, sets):
    """pseudo-rigid lie-heun h = 2 was exit 2 "Singular matrix" with its run folder deleted."""
    code, out, err = _run(tmp_path, "run", case, sets, capsys)
    _assert_stopped(code, out, err)
    assert (out / "solution.npz").exists() and (out / "diagnostics.csv").exists()
    lines = [ln for ln in err.splitlines() if ln.startswith("lgbeam run:")]
    assert len(lines) == 1 and ("smaller integrator.h" in lines[0] or "reduce integrator.h" in lines[0]), err


class _Raising:
    """A registered method whose step raises ``exc`` from time ``at`` on (what an overflow or a singular
    factorisation inside a blown-up step does)."""

    def __init__(self, name: str, exc: BaseException, at: float) -> None:
        self._inner, self._exc, self._at = make_method(name), exc, at

    def __getattr__(self, key: str) -> Any:
        return getattr(self._inner, key)

    def step(self, system: Any, t: float, h: float, y: Any, cache: Any) -> Any:
        if t >= self._at - 1e-12:
            raise self._exc
        return self._inner.step(system, t, h, y, cache)


@pytest.mark.parametrize(("exc", "status"), [(np.linalg.LinAlgError("Singular matrix"), Status.SINGULAR),
                                             (OverflowError(34, "Numerical result out of range"), Status.NONFINITE),
                                             (ValueError("math domain error"), Status.NONFINITE)])
def test_an_exception_inside_a_step_ends_at_the_last_good_state(exc, status):
    case, _ = load_case("heavy-top", ["integrator.method=herk4"])
    p = heavy_top_problem(case)
    sol = integrate(p.system, _Raising("herk4", exc, 0.02), p.y0, (0.0, 0.05), controller=ConstantStep(0.01))
    assert sol.status is status, sol.message
    assert sol.t[-1] == pytest.approx(0.02) and sol.stats["n_steps"] == 2
    assert type(exc).__name__ in sol.message


def test_a_resumed_run_keeps_the_energy_check():
    """The review's heavy-top blow-up (herk4, h = 0.02) with every check but the energy check off, run whole and
    resumed from a checkpoint taken before it: both stop with energy_growth at the same step (the resumed run
    picks the check's form again; its E₀, content and work come with the loop state)."""
    case, _ = load_case("heavy-top", ["integrator.method=herk4"])
    p = heavy_top_problem(case)
    off = {"energy_growth": None, "constraint_tol": None, "diagnostics": False}
    states = []
    whole = integrate(p.system, "herk4", p.y0, (0.0, 0.5), controller=ConstantStep(0.02),
                      checkpoint=Checkpointing(states.append, steps=2), **off)
    assert whole.status is Status.ENERGY_GROWTH, whole.message
    mid = states[1]
    assert 0 < mid.n_acc < whole.stats["n_steps"]
    rest = integrate(p.system, "herk4", p.y0, (0.0, 0.5), controller=ConstantStep(0.02), resume=mid, **off)
    assert rest.status is Status.ENERGY_GROWTH, rest.message
    assert rest.stats["n_steps"] == whole.stats["n_steps"] and rest.stats["t_final"] == whole.stats["t_final"]


def test_an_input_error_inside_a_step_is_still_an_error():
    case, _ = load_case("heavy-top", ["integrator.method=herk4"])
    p = heavy_top_problem(case)
    with pytest.raises(ValueError, match="wrong input"):
        integrate(p.system, _Raising("herk4", ValueError("wrong input"), 0.0), p.y0, (0.0, 0.05),
                  controller=ConstantStep(0.01))


# ------------------------------------------------------------------------ item 6: advice and keys that mislead
def test_an_element_near_180_degrees_names_the_mesh():
    """The spaghetti under 100× its load stops at t = 0.3236 for h = 2e-4 … 1e-5 alike (an element's relative
    rotation passes 180°): the advice names model.n_elements, not the step. Checked on a rod state with one
    element turned 170° about the normal (and the same rod straight names the step)."""
    from lgbeam.apps.rod import problem as rod_problem
    from lgbeam.groups.so3 import exp_so3

    case, _ = load_case("flying-spaghetti", [])
    p = rod_problem(case)
    rod, y = p.system, p.y0
    method, ctl = make_method("herk4"), ConstantStep(1e-3)
    assert "n_elements" not in advice(Status.CONSTRAINT_DRIFT, method, rod, ctl, y)
    q = np.array(y.q, dtype=float).reshape(rod.n_nodes, 7).copy()  # S³⋉R³ nodes: (quaternion, position)
    turn = exp_so3(np.array([0.0, 0.0, np.radians(170.0)]))
    for i in range(rod.n_nodes // 2, rod.n_nodes):  # the rod's second half turned rigidly: one element kinks
        q[i] = rod.G.from_rotation(turn @ rod.G.rotation(q[i]), q[i, 4:])
    assert np.degrees(rod.element_rotation(q.ravel())) == pytest.approx(170.0, abs=1e-6)
    text = advice(Status.CONSTRAINT_DRIFT, method, rod, ctl, type(y)(q.ravel(), y.v))
    assert "model.n_elements" in text and "170°" in text, text


def test_tolerances_beside_a_fixed_step_are_named_in_one_warning(caplog):
    """steel-cantilever-dynamic has integrator.h: --set integrator.rtol/atol were ignored without a word."""
    with caplog.at_level(logging.WARNING):
        load_case("steel-cantilever-dynamic", ["integrator.rtol=1e-6", "integrator.atol=1e-6"])
    warned = [r.getMessage() for r in caplog.records if "not used" in r.getMessage()]
    assert len(warned) == 1 and "integrator.rtol and integrator.atol" in warned[0], warned
    assert "integrator.controller=pi" in warned[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        load_case("steel-cantilever-dynamic", ["integrator.rtol=1e-6", "integrator.controller=pi"])
    assert not [r for r in caplog.records if "not used" in r.getMessage()]


def test_a_seed_controller_case_runs_a_fixed_step_method_at_the_given_h(tmp_path, capsys):
    """spherical-pendulum (controller "seed") with hs-rkmk4 and integrator.h = 0.01 was refused with "give a
    fixed step (… integrator.h)". It runs, and its end state agrees with the case's own adaptive method."""
    code, out, err = _run(tmp_path, "rkmk4", "spherical-pendulum", [
        "integrator.method=hs-rkmk4", "integrator.h=0.01", "time.t_end=0.2", "output.every=0.1"], capsys)
    assert code == 0, err
    code, ref, err = _run(tmp_path, "ref", "spherical-pendulum", ["time.t_end=0.2", "output.every=0.1"], capsys)
    assert code == 0, err
    with np.load(out / "solution.npz") as a, np.load(ref / "solution.npz") as b:
        assert np.allclose(a["t"], b["t"]) and a["t"][-1] == pytest.approx(0.2)
        assert np.abs(a["positions"][-1] - b["positions"][-1]).max() < 1e-6


def test_frame_modes_without_t_end(tmp_path, capsys):
    """A frame's lgbeam modes needed time.t_end; about the reference it needs no time: the same frequencies
    with and without the [time] table. Buckling (loads at t_end) without it is refused in one line."""
    text = (Path(__file__).parents[1] / "cases" / "l-frame.toml").read_text()
    bare = tmp_path / "l-frame.toml"
    bare.write_text(re.sub(r"\[time\][^\[]*", "", text))
    assert "t_end" not in bare.read_text()
    freqs = []
    for tag, path in (("with", "l-frame"), ("without", str(bare))):
        out = tmp_path / tag
        assert main(["modes", path, "--set", "analysis.richardson=false", "--out", str(out)]) == 0
        capsys.readouterr()
        freqs.append(np.genfromtxt(out / "modes.csv", delimiter=",", names=True)["freq_hz"])
    np.testing.assert_allclose(freqs[1], freqs[0], rtol=1e-8)  # the eigensolver's round-off, nothing else
    assert np.all(freqs[0] > 0)
    assert main(["modes", str(bare), "--buckling", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "time.t_end" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_exp_suzuki4_adaptive_runs_and_resumes_bit_for_bit(tmp_path, capsys):
    """exp-suzuki4-adaptive could not run from the CLI (a 59-line traceback: its cache had no data form). It runs
    adaptively, keeps the soliton's mass to round-off, and a run resumed from its checkpoint ends bit for bit where
    the straight run ends."""
    sets = ["integrator.method=exp-suzuki4-adaptive", "integrator.controller=pi", "integrator.rtol=1e-6",
            "integrator.atol=1e-8", "output.every=0.1", "output.checkpoint_steps=2"]
    code, whole, err = _run(tmp_path, "whole", "nls-soliton", [*sets, "time.t_end=0.4"], capsys)
    assert code == 0, err
    code, part, err = _run(tmp_path, "part", "nls-soliton", [*sets, "time.t_end=0.2"], capsys)
    assert code == 0, err
    case, _ = load_case(str(part / "case.toml"), ["time.t_end=0.4"])
    write_toml(part / "case.toml", case)  # a later t_end continues a finished run (RESUMABLE_KEYS)
    assert main(["run", "--resume", str(part), *QUICK]) == 0, capsys.readouterr().err
    rows = _record(whole)[1]
    assert np.abs(rows["mass"] - rows["mass"][0]).max() < 1e-12 and len(set(np.round(np.diff(rows["t"]), 9))) > 1
    with np.load(whole / "solution.npz") as a, np.load(part / "solution.npz") as b:
        for k in a.files:
            assert np.array_equal(a[k], b[k]), k
