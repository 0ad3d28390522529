"""The console script answers --help and --version, also as ``python -m lgbeam``."""

from __future__ import annotations

import subprocess
import sys

import lgbeam


def test_version_and_help():
    out = subprocess.run([sys.executable, "-m", "lgbeam", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"lgbeam {lgbeam.__version__}"
    out = subprocess.run([sys.executable, "-m", "lgbeam", "--help"], capture_output=True, text=True, check=True)
    assert "usage: lgbeam" in out.stdout
