"""Benchmarks: one module per target with ``run(out_dir, quick)`` printing a table and writing CSV."""
