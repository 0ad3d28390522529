"""``write_vtp`` (lgbeam's one-pass VTK XML PolyData writer) and ``read_vtp`` (its light reader) against VTK
itself: every array written is what ``vtkXMLPolyDataReader`` reads, bit for bit, with its type and component count
(numbers, booleans, strings, empty arrays; plain and zlib); ``read_vtp`` reads what VTK's own XML writer writes
(binary + zlib with UInt32 headers, as lgbeam wrote before, and ascii)."""

from __future__ import annotations

import numpy as np
import pytest
from vtkmodules.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray, vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader, vtkXMLPolyDataWriter

from lgbeam.io.vtk import PolyFrame, read_vtp, write_vtp

N = 13


@pytest.fixture
def frame(rng):
    return PolyFrame(
        rng.normal(size=(N, 3)), [np.arange(7), np.arange(6, N)],
        {"a": rng.normal(size=N), "R": rng.normal(size=(N, 3, 3)), "i": np.arange(N), "b": rng.random(N) > 0.5,
         "f32": rng.normal(size=(N, 2)).astype(np.float32)},
        {"rod_id": np.array([0, 1]), "c": rng.normal(size=(2, 6))},
        {"names": ["α rod", 'b&<"x'], "none": [], "num": 3.5, "re": rng.normal(size=(1, 6)), "z": np.zeros(0)})


def _vtk_read(path):
    r = vtkXMLPolyDataReader()
    r.SetFileName(str(path))
    r.Update()
    return r.GetOutput()


def _arrays(data):
    out = {}
    for i in range(data.GetNumberOfArrays()):
        a = data.GetAbstractArray(i)
        if a.IsA("vtkStringArray"):
            out[a.GetName()] = [a.GetValue(j) for j in range(a.GetNumberOfValues())]
        else:
            out[a.GetName()] = (vtk_to_numpy(a), a.GetNumberOfComponents())
    return out


def _expected(a):
    if isinstance(a, list):
        return a
    v = np.atleast_1d(np.asarray(a))
    v = v.astype(np.int8) if v.dtype == bool else v
    comps = int(np.prod(v.shape[1:])) if v.ndim > 1 and v.size else 1
    return v.reshape(-1, comps) if comps > 1 else v.ravel(), comps


def _same(got, want):
    if isinstance(want, list):
        return got == want
    return got[1] == want[1] and got[0].dtype == want[0].dtype and np.array_equal(got[0], want[0])


@pytest.mark.parametrize("compress", [False, True])
def test_vtk_reads_every_array_of_write_vtp_bit_for_bit(tmp_path, frame, compress):
    path = tmp_path / "f.vtp"
    write_vtp(path, frame, compress=compress)
    poly = _vtk_read(path)
    assert np.array_equal(vtk_to_numpy(poly.GetPoints().GetData()), frame.points)
    lines = poly.GetLines()
    assert vtk_to_numpy(lines.GetOffsetsArray()).tolist() == [0, 7, N + 1]
    assert vtk_to_numpy(lines.GetConnectivityArray()).tolist() == [*range(7), *range(6, N)]
    for data, want in ((poly.GetPointData(), frame.point_data), (poly.GetCellData(), frame.cell_data),
                       (poly.GetFieldData(), frame.field_data)):
        got = _arrays(data)
        assert got.keys() == want.keys()
        for name, a in want.items():
            assert _same(got[name], _expected(a)), name


@pytest.mark.parametrize("mode", ["binary", "ascii"])
def test_read_vtp_reads_vtks_own_writer(tmp_path, frame, mode):
    """VTK's XML writer (binary + zlib, UInt32 headers: the files of earlier lgbeam; or ascii) → read_vtp."""
    poly = vtkPolyData()
    pts = vtkPoints()
    pts.SetData(numpy_to_vtk(frame.points, deep=True))
    poly.SetPoints(pts)
    cells = vtkCellArray()
    cells.SetData(numpy_to_vtkIdTypeArray(np.array([0, N]), deep=True), numpy_to_vtkIdTypeArray(np.arange(N),
                                                                                                 deep=True))
    poly.SetLines(cells)
    for name in ("a", "R", "i"):
        v = np.ascontiguousarray(frame.point_data[name])
        arr = numpy_to_vtk(v.reshape(N, -1) if v.ndim > 1 else v, deep=True)
        arr.SetName(name)
        poly.GetPointData().AddArray(arr)
    w = vtkXMLPolyDataWriter()
    w.SetFileName(str(tmp_path / "v.vtp"))
    w.SetInputData(poly)
    if mode == "binary":
        w.SetDataModeToBinary()
        w.SetCompressorTypeToZLib()
    else:
        w.SetDataModeToAscii()
    assert w.Write()
    x, arrays = read_vtp(tmp_path / "v.vtp")
    assert np.array_equal(x, frame.points) if mode == "binary" else np.allclose(x, frame.points, rtol=1e-6)
    for name in ("a", "R", "i"):
        want = _expected(frame.point_data[name])[0]
        assert arrays[name].shape == want.shape, name
        assert np.array_equal(arrays[name], want) if mode == "binary" else np.allclose(arrays[name], want, rtol=1e-6)


@pytest.mark.parametrize("compress", [False, True])
def test_read_vtp_round_trip(tmp_path, frame, compress):
    write_vtp(tmp_path / "f.vtp", frame, compress=compress)
    x, arrays = read_vtp(tmp_path / "f.vtp")
    assert np.array_equal(x, frame.points)
    assert arrays.keys() == frame.point_data.keys()
    for name, a in frame.point_data.items():
        got, want = arrays[name], _expected(a)[0]
        assert got.dtype == want.dtype and np.array_equal(got, want), name


def test_bad_input_is_one_clear_error(tmp_path, frame):
    with pytest.raises(ValueError, match="dtype complex128"):
        write_vtp(tmp_path / "c.vtp", PolyFrame(frame.points, frame.lines, {"z": np.ones(N, complex)}))
    (tmp_path / "x.vtp").write_text("<VTKFile type='UnstructuredGrid'><UnstructuredGrid/></VTKFile>")
    with pytest.raises(ValueError, match="not VTK XML PolyData"):
        read_vtp(tmp_path / "x.vtp")
    (tmp_path / "y.vtp").write_text("not xml")
    with pytest.raises(ValueError, match="not a VTK XML file"):
        read_vtp(tmp_path / "y.vtp")
