#!/bin/bash
# Usage: put the old tree (git archive e99601a lgbeam cases pyproject.toml) in outputs/baseline_src and, on a
# machine without network, the wheels of the missing dependencies in outputs/devwheels; then
#   OUT=/tmp/out bash tools/bench_before_after.sh herk ""
# Benchmarks on the idle device machine: baseline (e99601a) and this tree side by side, interleaved.
cd "$(dirname "$0")/.."
REPO=$PWD
python3 -m pip install -q --no-index --no-deps outputs/devwheels/*.whl 2>&1 | tail -2
export OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
lscpu | grep -E "Model name|^CPU\(s\)" > $OUT/machine.txt
for r in 1 2; do
  (cd outputs/baseline_src && PYTHONPATH=$PWD timeout 110 python3 -m lgbeam bench $1 $2 --out $OUT/base-$1-$r > $OUT/base-$1-$r.txt 2>&1)
  (PYTHONPATH=$REPO timeout 110 python3 -m lgbeam bench $1 $2 --out $OUT/new-$1-$r > $OUT/new-$1-$r.txt 2>&1)
done
