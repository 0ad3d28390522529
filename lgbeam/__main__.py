"""``python -m lgbeam`` is the same as the ``lgbeam`` console script."""

from lgbeam.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
