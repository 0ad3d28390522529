"""Contracts checked at the door: a method states the protocol it integrates (``system_type``) and the
optional capabilities it needs (``requires``); ``check_compatible`` refuses a mismatch before the first
step, naming the method, the system and the missing members."""

from __future__ import annotations

from typing import Any

from lgbeam.integrators.registry import METHODS
from lgbeam.systems import missing_members


class IncompatibleSystem(ValueError):
    """A method asked of a system that lacks what the method needs (a configuration error: exit 2)."""


def _what(protocol: type) -> str:
    doc = (protocol.__doc__ or "").strip().splitlines()
    return f"{protocol.__name__} ({doc[0].rstrip('.')})" if doc else protocol.__name__


def compatible_methods(system: Any) -> list[str]:
    """Registered methods whose protocol and capabilities ``system`` provides."""
    return [e.name for e in METHODS.values()
            if not missing_members(system, e.needs) and not any(missing_members(system, c) for c in e.requires)]


def check_compatible(method: Any, system: Any) -> None:
    """Raise ``IncompatibleSystem`` (one line) when ``system`` lacks a member ``method`` needs."""
    name, sysname = getattr(method, "name", type(method).__name__), type(system).__name__
    for protocol in (method.system_type, *method.requires):
        missing = missing_members(system, protocol)
        if missing:
            others = compatible_methods(system)
            hint = f"; methods that can run {sysname}: {', '.join(others)}" if others else ""
            raise IncompatibleSystem(
                f"method {name!r} needs {_what(protocol)}; {sysname} lacks {', '.join(missing)}{hint}"
            )
