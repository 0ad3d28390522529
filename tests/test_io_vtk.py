"""PVDSeries and frame builders: files read back with meshio, pyvista and xml.etree; the .pvd survives
SIGKILL of the writer at an arbitrary moment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import meshio
import numpy as np
import pytest
import pyvista as pv
from scipy.spatial.transform import Rotation

from lgbeam.io.vtk import PVDSeries, line_frame, read_pvd, rigid_body_frame, rod_frame


def _random_rotations(rng: np.random.Generator, n: int) -> np.ndarray:
    return Rotation.random(n, random_state=np.random.RandomState(int(rng.integers(2**31)))).as_matrix()


def _rod_series(tmp_path: Path, rng: np.random.Generator, n_nodes: int = 11, n_frames: int = 7):
    times = np.cumsum(rng.uniform(0.01, 0.2, n_frames))
    truth = []
    with PVDSeries(tmp_path / "paraview" / "rod.pvd") as series:
        for t in times:
            x = rng.normal(size=(n_nodes, 3))
            R = _random_rotations(rng, n_nodes)
            v, w = rng.normal(size=(n_nodes, 3)), rng.normal(size=(n_nodes, 3))
            cd = {"K": rng.normal(size=(n_nodes - 1, 3)), "Gamma": rng.normal(size=(n_nodes - 1, 3)),
                  "moment": rng.normal(size=(n_nodes - 1, 3)), "force": rng.normal(size=(n_nodes - 1, 3)),
                  "lam": rng.normal(size=(n_nodes - 1, 3))}
            series.write_frame(t, rod_frame(x, R, radius=0.02, velocity=v, angular_velocity=w, cell_data=cd))
            truth.append((x, R, cd))
    return times, truth


def test_rod_series_reads_back_with_meshio(tmp_path, rng):
    times, truth = _rod_series(tmp_path, rng)
    entries = read_pvd(tmp_path / "paraview" / "rod.pvd")
    assert [e[0] for e in entries] == list(times)  # repr() round-trips floats exactly
    for (t, path), (x, R, cd) in zip(entries, truth):
        assert path.parent == tmp_path / "paraview" / "rod"
        m = meshio.read(path)
        np.testing.assert_allclose(m.points, x, rtol=0, atol=0)  # float64 stored losslessly
        assert m.cells[0].type == "line" and m.cells[0].data.shape == (10, 2)
        shapes = {k: v.shape for k, v in m.point_data.items()}
        assert shapes == {"d1": (11, 3), "d2": (11, 3), "d3": (11, 3), "quaternion": (11, 4),
                          "radius": (11,), "velocity": (11, 3), "angular_velocity": (11, 3)}
        assert {k: v[0].shape for k, v in m.cell_data.items()} == {k: (10, 3) for k in cd}
        D = np.stack([m.point_data["d1"], m.point_data["d2"], m.point_data["d3"]], axis=-1)
        np.testing.assert_allclose(D, R, atol=0)  # the directors are the columns of R
        # directors orthonormal and right-handed: round-off of Rotation.as_matrix, ~1e-15
        np.testing.assert_allclose(np.einsum("nij,nik->njk", D, D), np.broadcast_to(np.eye(3), D.shape), atol=1e-12)
        np.testing.assert_allclose(np.linalg.det(D), 1.0, atol=1e-12)
        # the quaternion encodes the same rotation (q and -q: compare via |<q, q_true>| = 1)
        q_true = Rotation.from_matrix(R).as_quat()[:, [3, 0, 1, 2]]
        np.testing.assert_allclose(np.abs(np.sum(m.point_data["quaternion"] * q_true, axis=1)), 1.0, atol=1e-12)


def test_pvd_structure_and_pyvista_reader(tmp_path, rng):
    times, _ = _rod_series(tmp_path, rng, n_frames=5)
    root = ET.parse(tmp_path / "paraview" / "rod.pvd").getroot()
    assert root.get("type") == "Collection"
    files = [ds.get("file") for ds in root.iter("DataSet")]
    assert files == [f"rod/rod_{i:06d}.vtu" for i in range(5)]  # relative paths
    reader = pv.get_reader(str(tmp_path / "paraview" / "rod.pvd"))
    np.testing.assert_allclose(reader.time_values, times, rtol=1e-15)  # ascii float round trip
    reader.set_active_time_value(reader.time_values[-1])
    mesh = reader.read()[0]
    assert mesh.n_points == 11 and mesh.point_data["radius"].shape == (11,)


def test_rigid_body_and_line_frames(tmp_path, rng):
    R = _random_rotations(rng, 1)
    with PVDSeries(tmp_path / "top.pvd") as s:
        s.write_frame(0.0, rigid_body_frame(np.zeros(3), R))
    m = meshio.read(tmp_path / "top" / "top_000000.vtu")
    assert m.cells[0].type == "vertex" and m.points.shape == (1, 3)
    np.testing.assert_allclose(m.point_data["d3"], R[:, :, 2], atol=0)
    x = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    psi = np.exp(1j * x) / np.cosh(x - np.pi)
    with PVDSeries(tmp_path / "nls.pvd") as s:
        s.write_frame(0.5, line_frame(x, {"psi": psi, "u": np.sin(x)}))
    m = meshio.read(tmp_path / "nls" / "nls_000000.vtu")
    assert set(m.point_data) == {"psi_re", "psi_im", "psi_abs", "u"}
    np.testing.assert_allclose(m.point_data["psi_abs"], np.abs(psi), atol=0)
    np.testing.assert_allclose(m.points[:, 0], x, atol=0)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda s: s.write(0.0, np.zeros((3, 4))), "shape"),
        (lambda s: s.write(np.nan, np.zeros((3, 3))), "finite"),
        (lambda s: s.write(0.0, np.zeros((3, 3)), point_data={"a": np.zeros(4)}), "n_points=3"),
        (lambda s: s.write(0.0, np.zeros((3, 3)), cell_data={"a": np.zeros(3)}), "2 'line' cells"),
        (lambda s: s.write(0.0, np.full((3, 3), np.inf)), "NaN or inf"),
        (lambda s: (s.write(1.0, np.zeros((3, 3))), s.write(0.5, np.zeros((3, 3)))), "must not decrease"),
    ],
)
def test_bad_frames_raise_value_error(tmp_path, call, match):
    with PVDSeries(tmp_path / "x.pvd") as s, pytest.raises(ValueError, match=match):
        call(s)


def test_bad_series_arguments(tmp_path):
    with pytest.raises(ValueError, match=r"\.pvd"):
        PVDSeries(tmp_path / "x.vtu")
    PVDSeries(tmp_path / "x.pvd")
    with pytest.raises(ValueError, match="already exists"):
        PVDSeries(tmp_path / "x.pvd", overwrite=False)
    with pytest.raises(ValueError, match="rotations"):
        rod_frame(np.zeros((3, 3)), radius=0.1)


_WRITER = textwrap.dedent(
    """
    import sys, numpy as np
    from lgbeam.io.vtk import PVDSeries, rod_frame
    n = 200
    R = np.broadcast_to(np.eye(3), (n, 3, 3))
    with PVDSeries(sys.argv[1], pvd_seconds=float(sys.argv[2])) as s:
        for i in range(10**6):
            x = np.stack([np.linspace(0, 1, n), np.sin(i * 0.01 + np.linspace(0, 3, n)), np.zeros(n)], 1)
            s.write_frame(0.01 * i, rod_frame(x, R, radius=0.01, cell_data={"K": np.ones((n - 1, 3))}))
    """
)


@pytest.mark.parametrize(("min_frames", "pvd_seconds"), [(3, 0.0), (17, 0.0), (40, 0.0), (40, 2.0)])
def test_pvd_valid_after_sigkill(tmp_path, min_frames, pvd_seconds):
    """Kill the writer at an arbitrary moment: the .pvd parses and every frame it names is complete; with
    pvd_seconds = 0 it names every frame but the one being written, with the default 2 s at least the first two
    (it lags by at most 2 s of writing)."""
    pvd = tmp_path / "paraview" / "rod.pvd"
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(pvd), str(pvd_seconds)],
                            env=os.environ | {"PYTHONWARNINGS": "ignore"})
    try:
        deadline = time.monotonic() + 600.0  # a guard against a hang only: the test waits for the files
        while time.monotonic() < deadline and proc.poll() is None:
            if pvd.exists() and len(list((tmp_path / "paraview" / "rod").glob("*.vtu"))) >= min_frames:
                break
            time.sleep(0.005)
        else:
            pytest.fail("writer stopped or produced no frames")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    entries = read_pvd(pvd)  # raises if the XML is truncated
    assert len(entries) >= (min_frames - 1 if pvd_seconds == 0 else 2)
    np.testing.assert_allclose([t for t, _ in entries], 0.01 * np.arange(len(entries)), rtol=1e-12)
    for _, path in entries:
        m = meshio.read(path)
        assert m.points.shape == (200, 3) and m.cell_data["K"][0].shape == (199, 3)
