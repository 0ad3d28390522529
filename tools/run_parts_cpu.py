"""CPU of each part of one ``lgbeam run steel-cantilever-dynamic`` (issue #34: what the whole run costs above its
integration): one fresh process per round with ``time.process_time`` around each part, best of N per part, one
BLAS/numba thread; with ``--against DIR`` the same for another tree (e.g. ``git archive`` of an earlier commit
unpacked in DIR), interleaved. Parts: the floor (numpy + scipy.sparse + numba imported; numba's typing context set
up by the first cached kernel), lgbeam's modules, the problem, the integration with the frames and the
diagnostics, the solution and checkpoint, the ParaView state, the figures (matplotlib imported through the command
line's path, then the four PNGs; the PNGs are drawn once more after the run to separate the drawing from the
import). The parts of one process add up to its total only roughly (best of N per part).
Run from the repository root:

    PYTHONPATH=. python tools/run_parts_cpu.py [N] [--against DIR]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

PROBE = r'''
import collections, functools, resource, sys, time
c, T = time.process_time, collections.defaultdict(float)
def wrap(mod, name, label):
    f = getattr(mod, name)
    @functools.wraps(f)
    def g(*a, **k):
        t = c()
        try:
            return f(*a, **k)
        finally:
            T[label] += c() - t
    setattr(mod, name, g)
t = c()
import numpy as np, scipy.sparse, numba
T["1 import numpy, scipy.sparse, numba"] = c() - t
t = c()
from lgbeam.groups._compiled import quat_to_matrix
quat_to_matrix(np.ones((2, 4)))
T["2 numba's typing context (first cached kernel)"] = c() - t
t = c()
import lgbeam.apps._runner as r, lgbeam.apps.paraview_frames as pf, lgbeam.apps.rod as rod
import lgbeam.cli.cmd_run as cr, lgbeam.cli.main as cm, lgbeam.io.vtk as vtk
T["3 lgbeam's modules of a rod run"] = c() - t
wrap(rod, "problem", "4 the problem built")
wrap(r, "integrate", "5 integration + frames + diagnostics.csv")
wrap(pf, "poly_frame", "5a   of which frames built")
wrap(vtk.PVDSeries, "write_frame", "5b   of which VTP files written")
wrap(r, "_write_solution", "6 solution.npz + checkpoint.npz")
wrap(r, "write_data", "6 solution.npz + checkpoint.npz")
wrap(rod, "write_state", "7 ParaView state (.pvsm)")
wrap(cr, "write_figures", "8 figures: matplotlib imported + 4 PNGs")
cm.main(["run", "steel-cantilever-dynamic", "--quiet", "--out", sys.argv[1]])
ru = resource.getrusage(resource.RUSAGE_SELF)
T["9 total CPU of the process"] = ru.ru_utime + ru.ru_stime
from pathlib import Path
t = c()
sys.modules["lgbeam.io.plots"].plot_run(Path(sys.argv[1]))
T["8b   the 4 PNGs drawn again (matplotlib imported)"] = c() - t
for k, v in T.items():
    print(f"{v:.4f} {k}")
'''


def main() -> None:
    n = int(next((a for a in sys.argv[1:] if a.isdigit()), "3"))
    env = os.environ | {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    trees = {"this": os.getcwd()}
    if "--against" in sys.argv:
        other = os.path.abspath(sys.argv[sys.argv.index("--against") + 1])
        trees[os.path.basename(other)] = other
    best: dict[str, dict[str, float]] = {k: {} for k in trees}
    with tempfile.TemporaryDirectory() as out:
        for i in range(n + 1):  # round 0 warms bytecode and numba caches
            for name, tree in trees.items():
                run = subprocess.run([sys.executable, "-c", PROBE, os.path.join(out, f"{name}{i}")], cwd=tree,
                                     env=env | {"PYTHONPATH": tree}, capture_output=True, text=True, check=True)
                for cpu, part in re.findall(r"^([0-9.]+) (.+)$", run.stdout, re.MULTILINE):
                    if i:
                        best[name][part] = min(best[name].get(part, float("inf")), float(cpu))
    parts = sorted({p for b in best.values() for p in b})
    print(f"{'part (best of ' + str(n) + ')':52s}" + "".join(f"{k:>12s}" for k in trees))
    for p in parts:
        print(f"{p:52s}" + "".join(f"{best[k].get(p, float('nan')):12.3f}" for k in trees))


if __name__ == "__main__":
    main()
