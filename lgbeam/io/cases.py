"""Case files: find, read, override (``--set a.b=VALUE``), validate and write back as TOML.

A CASE is either a name of a ``<name>.toml`` in a cases folder or a path to a TOML file. Cases
folders are searched in order: each entry of the environment variable ``LGBEAM_CASES``
(``os.pathsep``-separated), then the repository's ``cases/`` folder next to the package.

``--set`` values are parsed as TOML literals (``1e-3``, ``true``, ``"hem5"``, ``[1, 2]``) and fall
back to a plain string (``--set integrator.method=hedop5``). The merged case is validated against
the ``SCHEMA`` of the app its ``kind`` selects, so an override gets the same checks as the file.

``dumps_toml`` is a small TOML writer (``tomllib`` only reads) for the resolved ``case.toml``.
"""

from __future__ import annotations

import logging
import math
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from lgbeam._version import PACKAGE_DIR
from lgbeam.io.run import check_name
from lgbeam.io.schema import CaseError, validate

logger = logging.getLogger(__name__)

__all__ = ["Case", "apply_override", "case_dirs", "dumps_toml", "find_case", "list_cases", "load_case_with",
           "parse_value", "read_toml", "source_dir", "was_set", "write_toml"]


def case_dirs() -> list[Path]:
    """Folders searched for case names: ``$LGBEAM_CASES`` entries, then the repository's ``cases/``."""
    dirs = [Path(p) for p in os.environ.get("LGBEAM_CASES", "").split(os.pathsep) if p]
    dirs.append(PACKAGE_DIR.parent / "cases")
    return dirs


def list_cases() -> dict[str, Path]:
    """Every case name found in ``case_dirs()`` (earlier folders win) mapped to its file."""
    found: dict[str, Path] = {}
    for d in case_dirs():
        if d.is_dir():
            for p in sorted(d.glob("*.toml")):
                found.setdefault(p.stem, p)
    return dict(sorted(found.items()))


def find_case(name_or_path: str | os.PathLike[str]) -> Path:
    """Resolve a case name or path to an existing TOML file; unknown names list the available cases."""
    text = os.fspath(name_or_path)
    path = Path(text)
    looks_like_path = text.endswith(".toml") or os.sep in text or (os.altsep is not None and os.altsep in text)
    if path.is_file():
        return path
    if looks_like_path:
        if path.is_dir():
            raise CaseError(f"case path {path} is a folder; give a .toml file or a case name")
        raise CaseError(f"case file {path} does not exist; check the path or run `lgbeam list`")
    cases = list_cases()
    if text in cases:
        return cases[text]
    avail = ", ".join(cases) or "(none found)"
    where = ", ".join(str(d) for d in case_dirs())
    raise CaseError(f"unknown case {text!r}; available cases: {avail} (searched {where})")


def read_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file; unreadable or malformed files raise ``CaseError`` naming the file and line."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise CaseError(f"malformed case file {path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise CaseError(f"case file {path} is not UTF-8 text: {exc.reason}") from exc
    except OSError as exc:
        raise CaseError(f"cannot read case file {path}: {exc.strerror or exc}") from exc


def parse_value(text: str) -> Any:
    """A ``--set`` value as a TOML literal (number, boolean, string, array, inline table), else a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


_KEY_RE = re.compile(r"[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*")  # fullmatch ("$" passes a final newline)


def apply_override(case: dict[str, Any], override: str) -> None:
    """Apply one ``a.b=VALUE`` override to ``case`` in place (tables are created as needed)."""
    key, sep, text = override.partition("=")
    key = key.strip()
    if not sep or not _KEY_RE.fullmatch(key):
        raise CaseError(f"--set expects KEY=VALUE with a dotted key such as integrator.h=1e-3, got {override!r}")
    *parents, leaf = key.split(".")
    node = case
    for i, part in enumerate(parents):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise CaseError(f"--set {key}: '{'.'.join(parents[: i + 1])}' is a value, not a table")
        node = child
    node[leaf] = parse_value(text.strip())


class Case(dict):  # type: ignore[type-arg]
    """A resolved case: a plain ``dict`` of its keys (written, compared and digested as one) that also knows
    ``overridden``, the dotted keys given on the command line (``--set``). An option that does not apply to
    the chosen method is ignored with a note when it comes from the case file and refused when it was set
    (``lgbeam.apps.rod.method_options``)."""

    overridden: frozenset[str] = frozenset()
    source_dir: Path | None = None  # the case file's folder (files a case names, e.g. a ground record, are in it)

    def was_set(self, dotted: str) -> bool:
        """Whether ``dotted`` (or a table above it, e.g. ``--set integrator={...}``) came from ``--set``."""
        parts = dotted.split(".")
        return any(".".join(parts[:k]) in self.overridden for k in range(1, len(parts) + 1))


def source_dir(case: dict[str, Any]) -> Path:
    """The folder of the case's file (``Case.source_dir``); the working folder for a plain dict."""
    found = getattr(case, "source_dir", None)
    return Path(found) if found is not None else Path.cwd()


def was_set(case: dict[str, Any], dotted: str) -> bool:
    """``Case.was_set`` for any case dict (a plain dict: nothing came from ``--set``)."""
    return isinstance(case, Case) and case.was_set(dotted)


def load_case_with(name_or_path: str | os.PathLike[str], overrides: list[str] | None,
                   get_app: Any) -> tuple[dict[str, Any], Path]:
    """Find, read, override and validate a case; return ``(resolved case, source path)``; the case is a
    ``Case`` (a dict) that records which keys ``overrides`` set.

    The ``kind`` key selects the app (``get_app(kind)``, e.g. ``lgbeam.apps.get_app``) whose ``SCHEMA``
    validates the case; a missing ``name`` defaults to the file's stem when the schema has a ``name`` key.
    ``lgbeam.apps.load_case`` is this with the registered apps (io imports nothing above itself).
    """
    path = find_case(name_or_path)
    case = read_toml(path)
    for ov in overrides or []:
        apply_override(case, ov)
    kind = case.get("kind")
    if not isinstance(kind, str):
        raise CaseError(f"case file {path} needs a top-level string key 'kind' (e.g. kind = \"rod\"), got {kind!r}")
    try:
        app = get_app(kind)
    except ValueError as exc:
        raise CaseError(f"{path}: {exc}") from exc
    schema = getattr(app, "SCHEMA", None)
    if not isinstance(schema, dict):
        raise CaseError(f"app for kind {kind!r} ({app.__name__}) has no SCHEMA dict")
    if "name" in schema and "name" not in case:
        case["name"] = path.stem
    try:
        resolved = Case(validate(case, schema))
        if "name" in resolved:
            check_name(resolved["name"])
    except (CaseError, ValueError) as exc:
        raise CaseError(f"{path}: {exc}") from exc
    resolved.overridden = frozenset(ov.partition("=")[0].strip() for ov in overrides or [])
    resolved.source_dir = path.parent
    return resolved, path


# ---------------------------------------------------------------------------------------- writer
_BARE = re.compile(r"[A-Za-z0-9_\-]+")


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(s: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters (incl. DEL) escaped."""
    out = (_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in s)
    return '"' + "".join(out) + '"'


def _key(k: str) -> str:
    if not isinstance(k, str):
        raise ValueError(f"TOML keys must be strings, got {k!r}")  # noqa: TRY004 - a user error: the CLI maps ValueError to exit 2
    return k if _BARE.fullmatch(k) else _string(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"
    if hasattr(v, "item") and getattr(v, "ndim", None) == 0:  # numpy scalar
        return _value(v.item())
    raise ValueError(f"cannot write {type(v).__name__} value {v!r} to TOML; use str, int, float, bool, list or dict")


def _table(d: dict[str, Any], prefix: tuple[str, ...], out: list[str]) -> None:
    scalars = {k: v for k, v in d.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in d.items() if isinstance(v, dict)}
    if prefix and (scalars or not tables):
        out.append(f"[{'.'.join(_key(p) for p in prefix)}]")
    out.extend(f"{_key(k)} = {_value(v)}" for k, v in scalars.items())
    if scalars or (prefix and not tables):
        out.append("")
    for k, v in tables.items():
        _table(v, (*prefix, k), out)


def dumps_toml(data: dict[str, Any]) -> str:
    """Serialise a nested dict to TOML (tables as ``[a.b]`` sections); ``tomllib.loads`` inverts it."""
    out: list[str] = []
    _table(data, (), out)
    return "\n".join(out).rstrip("\n") + "\n"


def write_toml(path: Path, data: dict[str, Any], header: str = "") -> None:
    """Write ``data`` as TOML to ``path`` (optionally after ``#`` comment lines from ``header``)."""
    text = "".join(f"# {line}\n" for line in header.splitlines()) + dumps_toml(data)
    from lgbeam.io.atomic import atomic_write_text

    atomic_write_text(path, text)
