"""Contracts checked at the door: a method states the protocol it integrates (``system_type``) and the
optional capabilities it needs (``requires``); ``check_compatible`` refuses a mismatch before the first
step, naming the method, the system and the missing members.

The test is ``isinstance`` on the runtime-checkable protocols of ``lgbeam.systems`` (through ``supports``,
memoised per class), the same protocols the methods' ``system`` parameters are annotated with, so the
run-time check and mypy agree (``tests/test_registry_types.py``); ``missing_members`` only words the message.
"""

from __future__ import annotations

from typing import Any

from lgbeam.integrators.base import Integrator
from lgbeam.integrators.registry import all_methods
from lgbeam.systems import missing_members, supports


class IncompatibleSystem(ValueError):
    """A method asked of a system that lacks what the method needs (a configuration error: exit 2)."""


def _what(protocol: type) -> str:
    doc = (protocol.__doc__ or "").strip().splitlines()
    return f"{protocol.__name__} ({doc[0].rstrip('.')})" if doc else protocol.__name__


def _meets(system: object, protocols: tuple[type, ...]) -> bool:
    return all(supports(system, p) for p in protocols)


def compatible_methods(system: object) -> list[str]:
    """Registered methods whose protocol and capabilities ``system`` provides (every family imported)."""
    return [e.name for e in all_methods().values() if _meets(system, (e.needs, *e.requires))]


def check_compatible(method: Integrator[Any, Any, Any], system: object) -> None:
    """Raise ``IncompatibleSystem`` (one line) when ``system`` is not an instance of a protocol ``method``
    needs (its ``system_type`` and each of its ``requires``)."""
    name, sysname = getattr(method, "name", type(method).__name__), type(system).__name__
    for protocol in (method.system_type, *method.requires):
        if not supports(system, protocol):
            missing = missing_members(system, protocol)
            others = compatible_methods(system)
            hint = f"; methods that can run {sysname}: {', '.join(others)}" if others else ""
            raise IncompatibleSystem(
                f"method {name!r} needs {_what(protocol)}; {sysname} lacks {', '.join(missing)}{hint}"
            )
