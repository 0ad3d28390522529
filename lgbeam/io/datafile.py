"""Data-only files of nested Python values: arrays in an ``.npz`` (``allow_pickle=False``), everything else
in one JSON document stored inside it. Reading one never runs code from the file.

What can be written: None, bool, int, float (NaN and ±inf included), complex, str, numpy scalars and arrays
of numeric or boolean dtype, lists, tuples, dicts with string keys, and instances of lgbeam's own dataclasses
whose fields are such values (a method's cache, the driver's loop state, ``MechanicalState``). Anything else
(an LU factor, a function, an object of another package) raises ``TypeError`` on writing, naming its path in
the value, so a method whose cache holds one must give a data form (``HasCheckpoint``).

Reading is lazy and bounded (reviews/t4 reliability §2a): the zip is opened without loading anything, the
document (at most ``DOC_LIMIT`` bytes) first, then only the arrays it refers to; before an array is allocated
its ``.npy`` header (shape, dtype) and the zip's declared size are checked against what the caller allows
(``max_bytes``: ``output.max_memory_gb`` for a checkpoint), so a small forged file cannot make the reader
allocate terabytes (a header declaring 10¹³ floats) or inflate an entry nobody refers to (a zip bomb: such an
entry is refused unread). Whatever a damaged or forged file raises while it is read and rebuilt (``MemoryError``,
``TypeError``, ``RecursionError``, zip errors, a dataclass refusing its fields…) becomes one ``ValueError`` naming
the file.

Reading checks every tag: a dataclass is rebuilt only when its module is inside ``lgbeam`` and the name is
a dataclass there (no other import, no call of anything but that dataclass's constructor with the stored
fields); an array reference must name an array of the file. A file that breaks a rule raises ``ValueError``.

Why npz + JSON and not pickle: run folders are shared and resumed on other machines and by other people;
``pickle.load`` executes whatever the file asks (reviews/t3 reliability S1). Why not HDF5: h5py is not a
dependency, and one ``.npz`` written by a temporary file + rename is as atomic as the pickle it replaces.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import json
import math
import os
import zipfile
from collections.abc import Callable, Mapping
from typing import IO, Any

import numpy as np

from lgbeam.io.atomic import atomic_write

__all__ = ["decode", "encode", "read_data", "write_data"]

META = "__data__.json"  # the JSON document's entry in the npz (a uint8 array)
_KINDS = "biufc"  # numpy dtype kinds that are plain data
GIB = 1024**3
DEFAULT_MAX_BYTES = 8 * GIB  # read_data's cap on the arrays it loads (output.max_memory_gb's default)
DOC_LIMIT = 16 * 1024**2  # the JSON document: a case and the loop state's scalars are kilobytes
MAX_ENTRIES = 100_000
_HEADER = 64 * 1024  # room for an .npy header beside its data in an entry's declared size
_CHUNK = 16 * 1024**2


def encode(value: Any) -> tuple[Any, dict[str, np.ndarray]]:
    """(JSON-able tree, arrays) of ``value``; TypeError naming the path of anything that is not data."""
    arrays: dict[str, np.ndarray] = {}

    def enc(v: Any, path: str) -> Any:
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, (int, np.integer)) and not isinstance(v, np.bool_):
            return int(v)
        if isinstance(v, (float, np.floating)):
            f = float(v)
            return f if math.isfinite(f) else {"float": repr(f)}
        if isinstance(v, (complex, np.complexfloating)):
            return {"complex": [enc(v.real, path), enc(v.imag, path)]}
        if isinstance(v, np.bool_):
            return bool(v)
        if isinstance(v, np.ndarray):
            if v.dtype.kind not in _KINDS or v.dtype.hasobject:
                raise TypeError(f"{path}: an array of dtype {v.dtype} is not plain data")
            key = f"a{len(arrays)}"
            arrays[key] = np.ascontiguousarray(v)
            return {"array": key}
        if isinstance(v, tuple):
            return {"tuple": [enc(x, f"{path}[{i}]") for i, x in enumerate(v)]}
        if isinstance(v, list):
            return [enc(x, f"{path}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, dict):
            bad = [k for k in v if not isinstance(k, str)]
            if bad:
                raise TypeError(f"{path}: dict key {bad[0]!r} is not a string")
            return {"dict": {k: enc(x, f"{path}.{k}") for k, x in v.items()}}
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            cls = type(v)
            if not cls.__module__.startswith("lgbeam."):
                raise TypeError(f"{path}: {cls.__module__}.{cls.__qualname__} is not an lgbeam dataclass")
            fields = {f.name: enc(getattr(v, f.name), f"{path}.{f.name}") for f in dataclasses.fields(v) if f.init}
            return {"dataclass": [cls.__module__, cls.__qualname__], "fields": fields}
        raise TypeError(f"{path}: a {type(v).__module__}.{type(v).__qualname__} is not plain data "
                        "(give the method a data form of its cache: HasCheckpoint)")

    return enc(value, "value"), arrays


def _dataclass(module: Any, name: Any) -> type:
    if not (isinstance(module, str) and isinstance(name, str) and module.startswith("lgbeam.")
            and all(part.isidentifier() for part in module.split(".")) and name.isidentifier()):
        raise ValueError(f"not an lgbeam dataclass: {module!r}.{name!r}")
    try:
        mod = importlib.import_module(module)  # lgbeam's own modules only (checked above)
    except ImportError as exc:
        raise ValueError(f"no lgbeam module {module!r} (a file of another lgbeam version?)") from exc
    cls = getattr(mod, name, None)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == module):
        raise ValueError(f"{module}.{name} is not an lgbeam dataclass (a file of another lgbeam version?)")
    return cls


def decode(tree: Any, arrays: Mapping[str, np.ndarray] | Callable[[str], np.ndarray]) -> Any:
    """The value of ``encode``'s (tree, arrays); ValueError on anything ``encode`` does not write. ``arrays`` may
    be a function of the array's key (``read_data`` loads an array only when the tree refers to it)."""
    get = arrays if callable(arrays) else (lambda key: _entry_of(arrays, key))

    def dec(t: Any) -> Any:
        if t is None or isinstance(t, (bool, int, float, str)):
            return t
        if isinstance(t, list):
            return [dec(x) for x in t]
        if not isinstance(t, dict) or len(t) not in (1, 2):
            raise ValueError(f"unexpected entry {str(t)[:60]!r}")
        if len(t) == 2:
            if set(t) != {"dataclass", "fields"} or not isinstance(t["fields"], dict):
                raise ValueError(f"unexpected entry {str(t)[:60]!r}")
            mod_name = t["dataclass"]
            if not (isinstance(mod_name, list) and len(mod_name) == 2):
                raise ValueError(f"unexpected dataclass tag {mod_name!r}")
            cls = _dataclass(*mod_name)
            names = {f.name for f in dataclasses.fields(cls) if f.init}
            if not set(t["fields"]) <= names:
                raise ValueError(f"{cls.__qualname__} has no field(s) {sorted(set(t['fields']) - names)}")
            return cls(**{k: dec(x) for k, x in t["fields"].items()})
        (tag, body), = t.items()
        if tag == "array":
            if not isinstance(body, str):
                raise ValueError(f"array {body!r} is not in the file")
            return get(body)
        if tag == "float" and body in ("nan", "inf", "-inf"):
            return float(body)
        if tag == "complex" and isinstance(body, list) and len(body) == 2:
            return complex(dec(body[0]), dec(body[1]))
        if tag == "tuple" and isinstance(body, list):
            return tuple(dec(x) for x in body)
        if tag == "dict" and isinstance(body, dict):
            return {k: dec(x) for k, x in body.items()}
        raise ValueError(f"unexpected entry {str(t)[:60]!r}")

    return dec(tree)


def write_data(path: str | os.PathLike[str], value: Any) -> None:
    """Write ``value`` (see the module's list of what can be) to ``path`` atomically as one ``.npz``."""
    tree, arrays = encode(value)
    doc = json.dumps(tree, allow_nan=False, separators=(",", ":")).encode("utf-8")
    buf = io.BytesIO()
    entries: dict[str, Any] = {**arrays, META: np.frombuffer(doc, dtype=np.uint8)}
    np.savez(buf, **entries)
    with atomic_write(path) as fh:
        fh.write(buf.getvalue())


def _entry_of(arrays: Mapping[str, np.ndarray], key: str) -> np.ndarray:
    if key not in arrays:
        raise ValueError(f"array {key!r} is not in the file")
    return arrays[key]


def read_data(path: str | os.PathLike[str], *, max_bytes: float = DEFAULT_MAX_BYTES) -> Any:
    """The value ``write_data`` wrote; ValueError (one line naming the file) when it is not such a file, when it
    holds an entry its document does not refer to, or when its arrays declare more than ``max_bytes`` bytes
    (checked on their headers before anything is allocated). Only data is read; see the module docstring."""
    try:
        with zipfile.ZipFile(path) as zf:
            return _read(zf, float(max_bytes))
    except ValueError as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc
    except Exception as exc:  # whatever a damaged or forged file raises is a refusal of that file
        detail = str(exc).splitlines()[0][:200] if str(exc) else ""
        raise ValueError(f"cannot read {path}: {type(exc).__name__}{': ' + detail if detail else ''}") from exc


def _read(zf: zipfile.ZipFile, max_bytes: float) -> Any:
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise ValueError(f"{len(infos)} entries, more than a data file has")
    entries = {info.filename: info for info in infos}
    if META + ".npy" not in entries:
        raise ValueError("no data document")
    doc = _load_entry(zf, entries[META + ".npy"], min(DOC_LIMIT, max_bytes))
    if doc.dtype != np.uint8 or doc.ndim != 1:
        raise ValueError("the data document is not a byte string")
    tree = json.loads(doc.tobytes().decode("utf-8"))
    loaded: dict[str, np.ndarray] = {}
    left = [max_bytes - doc.nbytes]

    def array(key: str) -> np.ndarray:
        if key not in loaded:
            info = entries.get(key + ".npy") if key != META else None
            if info is None:
                raise ValueError(f"array {key!r} is not in the file")
            loaded[key] = _load_entry(zf, info, left[0])
            left[0] -= loaded[key].nbytes
        return loaded[key]

    value = decode(tree, array)
    extra = sorted(set(entries) - {META + ".npy"} - {k + ".npy" for k in loaded})
    if extra:
        raise ValueError(f"entry {extra[0]!r} is not referred to by the file's document (the file was modified)")
    return value


def _load_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: float) -> np.ndarray:
    """One ``.npy`` entry, its header checked before its data is allocated: a plain-data dtype, at most ``limit``
    bytes, and no more than the zip entry declares (which also bounds what is decompressed)."""
    name = info.filename
    if info.flag_bits & 0x1:
        raise ValueError(f"entry {name!r} is encrypted")
    if info.file_size > limit + _HEADER:
        raise ValueError(f"entry {name!r} declares {info.file_size} bytes, above the {_size(limit)} this file may "
                         "hold (output.max_memory_gb); the file is damaged or forged")
    with zf.open(info) as fh:
        shape, fortran, dtype = _npy_header(fh, name)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > limit:
            raise ValueError(f"entry {name!r} declares an array of shape {shape} and dtype {dtype} ({_size(nbytes)}), "
                             f"above the {_size(limit)} this file may hold (output.max_memory_gb); the file is damaged "
                             "or forged")
        if nbytes > info.file_size:
            raise ValueError(f"entry {name!r} declares {nbytes} bytes of data but holds {info.file_size}")
        buf = bytearray(nbytes)
        got = 0
        while got < nbytes:
            chunk = fh.read(min(_CHUNK, nbytes - got))
            if not chunk:
                raise ValueError(f"entry {name!r} ends after {got} of its {nbytes} bytes")
            buf[got:got + len(chunk)] = chunk
            got += len(chunk)
    flat = np.frombuffer(buf, dtype=dtype) if nbytes else np.empty(0, dtype=dtype)
    return flat.reshape(shape, order="F" if fortran else "C")


def _npy_header(fh: IO[bytes], name: str) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise ValueError(f"entry {name!r}: .npy format {version} is not one numpy writes for plain data")
    if dtype.hasobject or dtype.kind not in _KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise ValueError(f"entry {name!r}: an array of dtype {dtype} is not plain data")
    if any(n < 0 for n in shape):
        raise ValueError(f"entry {name!r}: shape {shape} has a negative size")
    return tuple(int(n) for n in shape), bool(fortran), dtype


def _size(nbytes: float) -> str:
    return f"{nbytes / GIB:.3g} GiB" if nbytes >= 1024**2 else f"{nbytes:.0f} bytes"
