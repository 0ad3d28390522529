"""The registry's contract check and the methods' annotations agree (issue 36).

Each method class declares the protocol it integrates once (``system_type``, plus optional ``requires``);
the driver checks a system against them with ``isinstance`` on the runtime-checkable protocols
(``lgbeam.solve.contracts``), and mypy checks each method body against the protocol its ``system``
parameter is annotated with. These tests tie the two together: the annotation of ``init``/``step``/
``diagnostics`` must be ``system_type`` (or a protocol composed of it and ``requires``, or a union with such
a member), so a system the registry accepts is one mypy accepts, and ``supports`` (the memoised check)
answers exactly as ``isinstance``.
"""

from __future__ import annotations

import inspect
import types
import typing

import numpy as np
import pytest

from lgbeam import systems
from lgbeam.integrators.registry import METHODS
from lgbeam.solve.contracts import IncompatibleSystem, check_compatible, compatible_methods
from lgbeam.systems import ConstrainedMechanicalSystem, HasEnergyBudget, missing_members, supports

# Every registered method, the Poisson family included (generic bases, ``PoissonMethod[SysT]``, resolved below).
TYPED = sorted(METHODS)


def _typevar_bindings(cls: type) -> dict[object, object]:
    """TypeVar → argument along the generic bases of ``cls``, the most derived binding first
    (``class M(Base[P])`` with ``Base(Generic[SysT])``: SysT → P)."""
    env: dict[object, object] = {}

    def walk(klass: type, outer: dict[object, object]) -> None:
        for base in getattr(klass, "__orig_bases__", ()):
            origin = typing.get_origin(base)
            if not isinstance(origin, type):
                continue
            args = [outer.get(a, a) for a in typing.get_args(base)]
            inner = dict(zip(getattr(origin, "__parameters__", ()), args, strict=False))
            for tv, arg in inner.items():
                env.setdefault(tv, arg)
            walk(origin, inner)

    walk(cls, {})
    return env


def _system_annotation(cls: type, name: str) -> object:
    fn = getattr(cls, name)
    param = list(inspect.signature(fn).parameters)[1]  # (self, system, ...)
    ann = typing.get_type_hints(fn)[param]
    return _typevar_bindings(cls).get(ann, ann) if isinstance(ann, typing.TypeVar) else ann


def _members(annotation: object) -> tuple[object, ...]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)


@pytest.mark.parametrize("name", TYPED)
def test_system_annotation_is_the_registered_protocol(name: str) -> None:
    entry = METHODS[name]
    cls = type(entry.make())
    needed = (entry.needs, *entry.requires)
    for fn in ("init", "step", "diagnostics"):
        ann = _system_annotation(cls, fn)
        members = _members(ann)
        assert ann is not typing.Any, f"{name}.{fn}: system is typed Any"
        runtime = all(getattr(m, "_is_runtime_protocol", False) for m in members)
        assert runtime, f"{name}.{fn}: {ann} is not a runtime-checkable protocol"
        # some member of the annotation is (a composition of) exactly what the registry checks
        assert any(all(p in getattr(m, "__mro__", ()) for p in needed) for m in members), (
            f"{name}.{fn} annotates system as {ann}, the registry checks {[p.__name__ for p in needed]}")


def test_the_typed_list_covers_every_family() -> None:
    families = {METHODS[n].family for n in TYPED}
    assert "poisson" in families and families == {e.family for e in METHODS.values()}


class _Budget:
    """A system whose data member is set per instance (only an instance check can tell)."""

    def __init__(self, with_length: bool) -> None:
        if with_length:
            self.length_scale = 1.0

    def kinetic_energy(self, v: np.ndarray) -> float:
        return 0.0

    def external_power(self, t: float, q: np.ndarray, v: np.ndarray) -> float | None:
        return None


def _samples() -> list[object]:
    from lgbeam import NLS, FourierGrid, HeavyTop

    return [HeavyTop("S3R3"), NLS(FourierGrid(17, 4.0), kappa=-1.0), _Budget(True), _Budget(False), object()]


def test_supports_answers_as_isinstance_for_every_protocol() -> None:
    protocols = [p for p in vars(systems).values()
                 if isinstance(p, type) and getattr(p, "_is_runtime_protocol", False)]
    assert len(protocols) > 20  # every runtime protocol of lgbeam.systems
    for obj in _samples():
        for p in protocols:
            assert supports(obj, p) == isinstance(obj, p), (type(obj).__name__, p.__name__)
            assert supports(obj, p) == (not missing_members(obj, p)), (type(obj).__name__, p.__name__)


def test_instance_data_member_decides() -> None:
    assert supports(_Budget(True), HasEnergyBudget) and not supports(_Budget(False), HasEnergyBudget)


def test_refusal_names_the_protocol_and_the_missing_members() -> None:
    from lgbeam import NLS, FourierGrid

    nls = NLS(FourierGrid(17, 4.0), kappa=-1.0)
    with pytest.raises(IncompatibleSystem) as info:
        check_compatible(METHODS["gen-alpha"].make(), nls)
    msg = str(info.value)
    missing = missing_members(nls, ConstrainedMechanicalSystem)
    assert "\n" not in msg and "'gen-alpha' needs ConstrainedMechanicalSystem" in msg
    assert f"NLS lacks {', '.join(missing)}" in msg and "energy-exp" in msg  # what can run it instead
    assert "gen-alpha" not in compatible_methods(nls) and "energy-exp" in compatible_methods(nls)
