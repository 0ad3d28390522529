"""``lgbeam keys KIND``: every case key of a kind (from its app's ``SCHEMA``) with its type, default, unit and doc;
``--markdown``: the same as the Markdown page docs/case-keys.md (one section per kind; ``lgbeam keys --markdown``
writes the whole page, which tests/test_cli_keys.py checks is current); ``--template``: a commented TOML skeleton
of a case of that kind (required keys first, SI units stated)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from lgbeam.apps import APPS, get_app
from lgbeam.io.schema import REQUIRED, Key

SI_KINDS = ("rod", "frame")  # the kinds whose keys are in SI units (the others: their seeds' nondimensional units)

UNITS_NOTE = ("Units: the `rod` and `frame` kinds are SI throughout — lengths in m, masses in kg, times in s, forces "
              "in N, moments in N m, moduli and stresses in Pa, densities in kg/m³, angles in rad; the unit column "
              "names the unit of each key that has one. The other kinds are in the nondimensional units of their "
              "seeds (a time is a time of the model, not seconds).")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "keys",
        help="list every case key of a kind with its type, default, unit and doc",
        description="List the case keys of a case kind (from its SCHEMA): dotted key, type, default, unit, doc. "
        "Without KIND: the kinds.",
        epilog="example: lgbeam keys frame\n         lgbeam keys rod --template > my-rod.toml\n"
        "         lgbeam keys --markdown > docs/case-keys.md",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("kind", nargs="?", help="case kind (lgbeam keys: the list)")
    p.add_argument("--markdown", action="store_true", help="print Markdown (without KIND: the whole docs page)")
    p.add_argument("--template", action="store_true", help="print a commented TOML case skeleton of KIND")
    p.set_defaults(func=_run)


def flatten(schema: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Key]]:
    """(dotted key, Key) of every key of a schema, in its declared order (sections depth first)."""
    for name, spec in schema.items():
        if isinstance(spec, dict):
            yield from flatten(spec, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", spec


def default_text(key: Key) -> str:
    """The default as TOML would spell it; "required" for a key without one, "—" for an optional one left out."""
    if key.default is REQUIRED:
        return "required"
    if key.default is None:
        return "—"
    return _toml_value(key.default)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return repr(v)


def doc_text(key: Key) -> str:
    """The doc with the choices, when the key has a closed set of values."""
    if key.choices is None:
        return key.doc
    return f"{key.doc} (one of: {', '.join(map(str, key.choices))})".lstrip()


def _schema(kind: str) -> dict[str, Any]:
    return dict(get_app(kind).SCHEMA)  # unknown kind: ValueError naming the known ones (exit 2)


def text(kind: str) -> str:
    """The terminal table of a kind: key, type, default, unit, then the doc indented under it."""
    rows = list(flatten(_schema(kind)))
    cols = [(k, key.type_name(), default_text(key), key.unit) for k, key in rows]
    w = [max(len(c[i]) for c in [("key", "type", "default", "unit"), *cols]) for i in range(3)]
    lines = [f"{'key':<{w[0]}}  {'type':<{w[1]}}  {'default':<{w[2]}}  unit",
             f"({'SI units' if kind in SI_KINDS else 'nondimensional units of the seed'}; docs/case-keys.md)"]
    for (k, t, d, u), (_, key) in zip(cols, rows, strict=True):
        lines.append(f"{k:<{w[0]}}  {t:<{w[1]}}  {d:<{w[2]}}  {u}".rstrip())
        if doc := doc_text(key):
            lines.append(f"    {doc}")
    return "\n".join(lines)


def _cell(s: str) -> str:
    return s.replace("|", "\\|") if s else ""


def markdown_section(kind: str) -> str:
    """The docs page's section of one kind: a table key | type | default | unit | doc."""
    units = "" if kind in SI_KINDS else " (nondimensional units)"
    lines = [f"## `{kind}`", "", f"`lgbeam keys {kind}`; module `{APPS[kind]}`{units}.", "",
             "| key | type | default | unit | doc |", "|---|---|---|---|---|"]
    for k, key in flatten(_schema(kind)):
        lines.append(f"| `{k}` | {key.type_name()} | `{_cell(default_text(key))}` | {_cell(key.unit)} | "
                     f"{_cell(doc_text(key))} |")
    return "\n".join(lines) + "\n"


def markdown() -> str:
    """The whole docs/case-keys.md page (generated; `lgbeam keys --markdown > docs/case-keys.md`)."""
    head = ["# Case keys", "",
            ("<!-- generated by `lgbeam keys --markdown > docs/case-keys.md`; tests/test_cli_keys.py checks it is "
             "current: edit the SCHEMA, not this page -->"), "",
            ("Every key of every case kind, from the `SCHEMA` of its app (`lgbeam/apps/<kind>.py`): its type, its "
             "default (`required`: no default; `—`: optional, off when left out), its unit and what it does. "
             "`lgbeam keys KIND` prints the same in the terminal, `lgbeam keys KIND --template` a commented case "
             "skeleton. Any key can be set on the command line with `--set KEY=VALUE`; an unknown key is an error "
             "that lists the valid ones."), "", UNITS_NOTE, "",
            "Kinds: " + ", ".join(f"[`{k}`](#{k})" for k in APPS) + ".", ""]
    return "\n".join(head) + "\n" + "\n".join(markdown_section(k) for k in APPS)


def template(kind: str) -> str:
    """A commented TOML skeleton of a case of ``kind``: required keys to fill in, the others commented out at their
    defaults; a header states the units."""
    units = "SI units: m, kg, s, N, N m, Pa, kg/m³, rad" if kind in SI_KINDS else \
        "nondimensional units of the seed"
    out = [f"# a case of kind {kind!r} ({units}); every key: lgbeam keys {kind}, docs/case-keys.md",
           "# uncomment a key to change its default; fill in the keys marked REQUIRED", ""]
    sections: dict[str, list[tuple[str, Key]]] = {"": []}  # top-level keys first: TOML cannot return to them
    for k, key in flatten(_schema(kind)):
        sec, _, name = k.rpartition(".")
        sections.setdefault(sec, []).append((name, key))
    for sec, items in sections.items():
        if sec:
            out += ["", f"[{sec}]"]
        out += [_template_line(kind, sec, name, key) for name, key in items]
    return "\n".join(out) + "\n"


def _template_line(kind: str, sec: str, name: str, key: Key) -> str:
    unit = f" [{key.unit}]" if key.unit else ""
    doc = doc_text(key).replace("\n", " ")
    if not sec and name == "kind":
        return f'kind = "{kind}"'
    if key.default is REQUIRED:
        return f"# {name} =   # REQUIRED ({key.type_name()}){unit}: {doc}"
    value = "" if key.default is None else _toml_value(key.default)
    return f"# {name} = {value}  #{unit} {doc}"


def _run(args: argparse.Namespace) -> int:
    if args.kind is None:
        if args.template:
            raise ValueError("--template needs a KIND: lgbeam keys KIND --template; kinds: " + ", ".join(APPS))
        if args.markdown:
            print(markdown(), end="")
        else:
            print("case kinds (lgbeam keys KIND for their keys): " + ", ".join(APPS))
        return 0
    if args.kind not in APPS:
        raise ValueError(f"unknown case kind {args.kind!r}; known kinds: {', '.join(APPS)}")
    if args.template:
        print(template(args.kind), end="")
    elif args.markdown:
        print(markdown_section(args.kind), end="")
    else:
        print(text(args.kind))
    return 0
