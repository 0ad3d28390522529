"""Case loading: lookup by name and path, --set overrides as TOML literals, schema validation
messages, and the TOML writer (checked against tomllib, the independent reader)."""

from __future__ import annotations

import math
import tomllib

import fake_app
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lgbeam.apps import load_case
from lgbeam.io.cases import apply_override, dumps_toml, parse_value, write_toml
from lgbeam.io.schema import CaseError


@pytest.fixture
def cases(monkeypatch, tmp_path):
    return fake_app.install(monkeypatch, tmp_path)


_keys = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8)
_scalars = (st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False) | st.booleans()
            | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
_tables = st.recursive(st.dictionaries(_keys, _values, max_size=4),
                       lambda inner: st.dictionaries(_keys, inner | _values, max_size=3), max_leaves=8)


@given(_tables)
def test_toml_writer_round_trips_through_tomllib(data):
    assert tomllib.loads(dumps_toml(data)) == data


def test_toml_writer_special_floats_and_errors(tmp_path):
    text = dumps_toml({"a": {"x": math.inf, "y": -math.inf, "z": 1e-300}})
    back = tomllib.loads(text)["a"]
    assert back["x"] == math.inf and back["y"] == -math.inf and back["z"] == 1e-300
    assert math.isnan(tomllib.loads(dumps_toml({"n": math.nan}))["n"])
    with pytest.raises(ValueError, match="cannot write"):
        dumps_toml({"a": object()})
    write_toml(tmp_path / "c.toml", {"k": 1}, header="line one\nline two")
    assert tomllib.loads((tmp_path / "c.toml").read_text()) == {"k": 1}


@pytest.mark.parametrize("text, value", [("1e-3", 1e-3), ("42", 42), ("true", True), ("hedop5", "hedop5"),
                                         ('"a b"', "a b"), ("[1, 2.5]", [1, 2.5]), ("{a = 1}", {"a": 1}),
                                         ("1e-3x", "1e-3x")])
def test_parse_value_is_toml_literal_or_string(text, value):
    assert parse_value(text) == value


def test_load_by_name_and_path_fills_defaults(cases):
    case, path = load_case("pend", [])
    assert path == cases / "pend.toml"
    assert case["name"] == "pend" and case["integrator"] == {"method": "euler", "h": 0.01}
    assert case["time"] == {"t0": 0.0, "t_end": 1.0}  # defaults from fake_app.SCHEMA
    assert load_case(str(cases / "pend.toml"))[0] == case


def test_overrides_are_validated_like_the_file(cases):
    case, _ = load_case("pend", ["integrator.h=2e-3", "model.n_nodes=9", "integrator.method=midpoint"])
    assert case["integrator"] == {"method": "midpoint", "h": 2e-3} and case["model"]["n_nodes"] == 9
    with pytest.raises(CaseError, match=r"'model\.n_nodes' must be a integer, got 'nine'"):
        load_case("pend", ["model.n_nodes=nine"])
    with pytest.raises(CaseError, match=r"unknown case key 'integrator\.rtol'.*valid keys: h, method"):
        load_case("pend", ["integrator.rtol=1e-6"])
    with pytest.raises(CaseError, match="KEY=VALUE"):
        load_case("pend", ["integrator.h"])
    with pytest.raises(CaseError, match="is a value, not a table"):
        apply_override({"a": 1}, "a.b=2")


@pytest.mark.parametrize(
    "text, match",
    [
        ('kind = "fake"\nbogus = 1\n', r"unknown case key 'bogus' in the top level; valid keys: debug, description"),
        ('kind = "fake"\n[time]\nt_end = "long"\n', r"'time\.t_end' must be a number"),
        ('kind = "fake"\n[integrator]\nmethod = "rk4"\n', r"not one of euler, midpoint"),
        ('kind = "fake"\n[integrator\n', r"malformed case file .*bad\.toml"),
        ('name = "x"\n', r"needs a top-level string key 'kind'"),
        ('kind = "warp-drive"\n', r"unknown case kind 'warp-drive'; known kinds:"),
    ],
)
def test_bad_case_files_name_the_problem(cases, text, match):
    (cases / "bad.toml").write_text(text)
    with pytest.raises(CaseError, match=match):
        load_case("bad", [])


def test_missing_required_key(cases, monkeypatch):
    monkeypatch.setitem(fake_app.SCHEMA["model"], "mass", fake_app.Key(float, doc="rod mass"))
    with pytest.raises(CaseError, match=r"missing required case key 'model\.mass' \(a number\)"):
        load_case("pend", [])


def test_unknown_case_lists_available(cases):
    with pytest.raises(CaseError, match=r"unknown case 'pendulum'; available cases: .*pend"):
        load_case("pendulum", [])
    with pytest.raises(CaseError, match="does not exist"):
        load_case(str(cases / "nope.toml"), [])
    (cases / "latin1.toml").write_bytes(b'kind = "fake"\ndescription = "caf\xe9"\n')
    with pytest.raises(CaseError, match="not UTF-8"):
        load_case("latin1", [])
