"""``lgbeam list``: the available cases with their kind and one-line description."""

from __future__ import annotations

import argparse

from lgbeam.io.cases import case_dirs, list_cases, read_toml
from lgbeam.io.schema import CaseError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "list",
        help="list the available cases with one-line descriptions",
        description="List the cases found in $LGBEAM_CASES and the repository's cases/ folder.",
        epilog="example: lgbeam list",
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    cases = list_cases()
    if not cases:
        print(f"no cases found (searched {', '.join(map(str, case_dirs()))})")
        return 0
    width = max(len(n) for n in cases)
    for name, path in cases.items():
        try:
            data = read_toml(path)
            kind, desc = str(data.get("kind", "?")), str(data.get("description", "")).strip()
        except CaseError as exc:
            kind, desc = "?", f"(unreadable: {exc})"
        print(f"{name:<{width}}  {kind:<9}  {desc.splitlines()[0] if desc else ''}")
    return 0
