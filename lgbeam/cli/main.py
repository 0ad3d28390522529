"""The ``lgbeam`` command line: ``lgbeam <command> ...``; one module per command in ``lgbeam.cli``.

Each command module provides ``add_parser(subparsers)`` (which registers the sub-parser and sets
``func``) and returns an exit code from ``func(args)``. Errors a user can fix are reported as one
line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import signal
import sys
import threading
from typing import Any

from lgbeam._version import __version__

COMMANDS = ("list", "run", "study", "sweep", "render", "modes", "spectrum", "bench", "keys")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only`` (a name of ``COMMANDS``) just that command's subparser, so
    ``lgbeam run ...`` does not import the modules of ``study``, ``modes`` and the rest (issue 34)."""
    parser = argparse.ArgumentParser(
        prog="lgbeam",
        description="Geometric simulation of flexible beams and stiff Hamiltonian PDEs.",
        epilog="example: lgbeam run flying-spaghetti --out outputs/fs   (then open outputs/fs/paraview/*.pvd)",
    )
    parser.add_argument("--version", action="version", version=f"lgbeam {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        try:
            module = importlib.import_module(f"lgbeam.cli.cmd_{name}")
        except ModuleNotFoundError as exc:  # a command not built yet must not break the others
            if exc.name != f"lgbeam.cli.cmd_{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


class Terminated(KeyboardInterrupt):
    """SIGTERM outside the integration loop (the driver records it itself inside the loop)."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit code. SIGINT and SIGTERM outside a run's step loop (loading, building, writing)
    end the command with one line and 130/143; a full disk with one line and 2 (free space, then resume)."""
    previous = signal.signal(signal.SIGTERM, _terminate) if threading.current_thread() is threading.main_thread() \
        else None
    command = "lgbeam"
    try:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
        # the command is the first word that is not an option (no top-level option takes a value)
        first = next((w for w in (sys.argv[1:] if argv is None else argv) if not w.startswith("-")), None)
        parser = build_parser(first if first in COMMANDS else None)
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        command = f"lgbeam {args.command}"
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, PermissionError, FileExistsError) as exc:
        print(f"{command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if exc.errno not in _NO_SPACE:
            raise
        print(f"{command}: error: {exc.strerror} writing {exc.filename or 'the output'}; everything written before "
              "is valid: free space, then continue a run with `lgbeam run --resume RUN_DIR`", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        term = isinstance(exc, Terminated)
        print(f"{command}: interrupted by {'SIGTERM' if term else 'SIGINT'} before or after a run's steps; nothing "
              "half-written is left", file=sys.stderr)
        return EXIT_TERMINATED if term else EXIT_INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    raise SystemExit(main())
