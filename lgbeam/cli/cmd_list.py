"""``lgbeam list``: the available cases with their kind and one-line description; ``--methods``: the
registered integration methods (``lgbeam.integrators.registry.METHODS``) with family, order, the system
protocol they need and whether they adapt the step."""

from __future__ import annotations

import argparse

from lgbeam.io.cases import case_dirs, list_cases, read_toml
from lgbeam.io.schema import CaseError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "list",
        help="list the available cases with one-line descriptions",
        description="List the cases found in $LGBEAM_CASES and the repository's cases/ folder.",
        epilog="example: lgbeam list\n         lgbeam list --methods",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--methods", action="store_true", help="list the integration methods instead of the cases")
    p.set_defaults(func=_run)


def _methods() -> int:
    from lgbeam.integrators.registry import METHODS

    width = max(len(n) for n in METHODS)
    print(f"{'method':<{width}}  {'family':<13}  order  adaptive  needs")
    for e in METHODS.values():
        needs = " + ".join(p.__name__ for p in (e.needs, *e.requires))
        print(f"{e.name:<{width}}  {e.family:<13}  {e.order:>5}  {'yes' if e.adaptive else 'no':<8}  {needs}")
        print(f"{'':<{width}}  {e.summary}")
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.methods:
        return _methods()
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
