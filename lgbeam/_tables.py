"""The one "unknown key" check of the tables a case nests where its schema cannot reach (``lgbeam.io.schema``
validates the top-level keys; a table inside a list — ``[[supports.at]]``, a member, a section, a material, a
prescribed motion — is checked by the code that reads it, through this function).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["check_keys"]


def check_keys(table: Mapping[str, Any], valid: Iterable[str], where: str = "", *, of: str = "",
               hint: str | None = None, noun: str = "key", every: bool = False) -> None:
    """ValueError when ``table`` has a key outside ``valid``, in one line:
    ``"{where}: unknown key 'k'{of}; valid keys: a, b"`` (``hint`` replaces "valid keys: …"; ``noun`` replaces
    "key"; ``every`` names all the unknown keys, "unknown key(s) k, l"). Unknown keys are reported sorted, ``valid``
    in its own order."""
    valid = list(valid)
    bad = sorted(set(table) - set(valid))
    if not bad:
        return
    what = f"unknown {noun}(s) {', '.join(bad)}" if every else f"unknown {noun} {bad[0]!r}"
    raise ValueError(f"{where + ': ' if where else ''}{what}{of}; {hint or 'valid keys: ' + ', '.join(valid)}")
