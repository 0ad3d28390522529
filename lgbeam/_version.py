"""The package version and root folder (importable from every layer without importing the package's API)."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"
PACKAGE_DIR = Path(__file__).resolve().parent
