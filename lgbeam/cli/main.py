"""The ``lgbeam`` command line: ``lgbeam <command> ...``; one module per command in ``lgbeam.cli``.

Each command module provides ``add_parser(subparsers)`` (which registers the sub-parser and sets
``func``) and returns an exit code from ``func(args)``. Errors a user can fix are reported as one
line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from lgbeam._version import __version__

COMMANDS = ("list", "run", "study", "sweep", "render", "modes", "bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lgbeam",
        description="Geometric simulation of flexible beams and stiff Hamiltonian PDEs.",
        epilog="example: lgbeam run flying-spaghetti --out outputs/fs   (then open outputs/fs/paraview/*.pvd)",
    )
    parser.add_argument("--version", action="version", version=f"lgbeam {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"lgbeam.cli.cmd_{name}")
        except ModuleNotFoundError as exc:  # a command not built yet must not break the others
            if exc.name != f"lgbeam.cli.cmd_{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, PermissionError, FileExistsError) as exc:
        print(f"lgbeam {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
