"""CPU (user+sys of the child process, from getrusage) of lgbeam's start-up and of one whole default run.

Interleaved rounds, best of N per command; one thread each; bytecode written and read as in an installed package
(``PYTHONDONTWRITEBYTECODE`` dropped, one warm-up round). Run from the repository root:

    PYTHONPATH=. python tools/startup_cpu.py [N] [--run] [--against DIR]

``--run`` adds ``lgbeam run steel-cantilever-dynamic`` (default output: 101 frames × 2 VTK series, 4 PNG figures),
the same with ``--no-figures --set output.vtk=false``, the floor of any run (``import numpy, scipy.sparse, numba``)
and the integration alone in one process (``tools/rod_integrate_cpu.py``); the ratios to it are #34's target.
``--against DIR`` runs the lgbeam commands also with another tree on ``PYTHONPATH`` (e.g. ``git archive`` of an
earlier commit unpacked in DIR), interleaved with this one's, so both see the same load.
"""

from __future__ import annotations

import os
import re
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


def _cpu(cmd: list[str], env: dict[str, str], cwd: str | None = None) -> float:
    """User+sys CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    n = int(next((a for a in sys.argv[1:] if a.isdigit()), "3"))
    env = os.environ | {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmds = dict(START)
    out = tempfile.mkdtemp()
    if "--run" in sys.argv:
        run = [PY, "-m", "lgbeam", "run", "steel-cantilever-dynamic", "--quiet", "--out"]
        cmds["run steel-cantilever-dynamic"] = [*run, os.path.join(out, "a")]
        cmds["run ... --no-figures --set output.vtk=false"] = [*run, os.path.join(out, "b"), "--no-figures",
                                                               "--set", "output.vtk=false"]
        cmds["import numpy, scipy.sparse, numba"] = [PY, "-c", "import numpy, scipy.sparse, numba"]
        cmds["... and one cached lgbeam kernel called"] = [  # numba's first call sets up its typing context
            PY, "-c", ("import numpy as np, scipy.sparse; from lgbeam.groups._compiled import quat_to_matrix; "
                       "quat_to_matrix(np.ones((2, 4)))")]
    where = {k: (env, None) for k in cmds}
    if "--against" in sys.argv:
        other = os.path.abspath(sys.argv[sys.argv.index("--against") + 1])
        for k in [k for k in cmds if "lgbeam" in k or k.startswith("run")]:
            twin = [os.path.join(out, "c") if c == os.path.join(out, "a") else
                    os.path.join(out, "d") if c == os.path.join(out, "b") else c for c in cmds[k]]
            cmds[f"{k} [{os.path.basename(other)}]"] = twin
            where[f"{k} [{os.path.basename(other)}]"] = (env | {"PYTHONPATH": other}, other)
    best = {k: float("inf") for k in cmds}
    for k, cmd in cmds.items():  # warm-up: bytecode and numba caches written
        subprocess.run(cmd, env=where[k][0], cwd=where[k][1], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
    for _ in range(n):
        for k, cmd in cmds.items():
            shutil.rmtree(out, ignore_errors=True)
            best[k] = min(best[k], _cpu(cmd, *where[k]))
    shutil.rmtree(out, ignore_errors=True)
    ref = best["import numpy, scipy.sparse"]
    for k, v in best.items():
        print(f"{k:50s} {v:6.3f} s CPU  {v / ref:5.2f}x numpy+scipy.sparse")
    if "--run" in sys.argv:
        tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rod_integrate_cpu.py")
        line = subprocess.run([PY, tool, str(n)], env=env, capture_output=True, text=True, check=True).stdout
        integ = float(re.search(r"integration ([0-9.]+) s CPU", line).group(1))  # type: ignore[union-attr]
        print(line.strip())
        for k in ("run steel-cantilever-dynamic", "run ... --no-figures --set output.vtk=false",
                  "import numpy, scipy.sparse, numba", "... and one cached lgbeam kernel called"):
            print(f"{k:50s} {best[k] / integ:5.2f}x the integration")


if __name__ == "__main__":
    main()
