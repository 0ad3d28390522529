"""CPU (user+sys of the child process, from getrusage) of lgbeam's start-up and of one whole default run.

Interleaved rounds, best of N per command; one thread each. Run from the repository root:

    PYTHONPATH=. python tools/startup_cpu.py [N] [--run]

``--run`` adds ``lgbeam run steel-cantilever-dynamic`` (default output: 101 frames × 2 VTK series, 4 PNG figures)
and the same with ``--no-figures --set output.vtk=false``; the integration's own CPU comes from
``tools/rod_integrate_cpu.py``.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile

PY = sys.executable
START = {
    "import numpy, scipy.sparse": [PY, "-c", "import numpy, scipy.sparse"],
    "lgbeam --help": [PY, "-m", "lgbeam", "--help"],
    "lgbeam list": [PY, "-m", "lgbeam", "list"],
}


def _cpu(cmd: list[str], env: dict[str, str]) -> float:
    """User+sys CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    n = int(next((a for a in sys.argv[1:] if a.isdigit()), "3"))
    env = os.environ | {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    cmds = dict(START)
    out = tempfile.mkdtemp()
    if "--run" in sys.argv:
        run = [PY, "-m", "lgbeam", "run", "steel-cantilever-dynamic", "--quiet", "--out"]
        cmds["run steel-cantilever-dynamic"] = [*run, os.path.join(out, "a")]
        cmds["run ... --no-figures --set output.vtk=false"] = [*run, os.path.join(out, "b"), "--no-figures",
                                                               "--set", "output.vtk=false"]
    best = {k: float("inf") for k in cmds}
    for _ in range(n):
        for k, cmd in cmds.items():
            shutil.rmtree(out, ignore_errors=True)
            best[k] = min(best[k], _cpu(cmd, env))
    shutil.rmtree(out, ignore_errors=True)
    ref = best["import numpy, scipy.sparse"]
    for k, v in best.items():
        print(f"{k:48s} {v:6.3f} s CPU  {v / ref:5.2f}x numpy+scipy.sparse")


if __name__ == "__main__":
    main()
