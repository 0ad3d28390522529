"""Per-step CPU time and profile of the heavy top, old driver (argument "base", run inside the old tree) or
the one driver ("new"): the before/after check of docs/benchmarks.md."""
import cProfile
import io
import pstats
import sys
import time

new = sys.argv[1] == "new"
from lgbeam.models.heavy_top import HeavyTop

if new:
    from lgbeam.solve import ConstantStep, MechanicalState, integrate
    run = lambda top, q0, v0, n: integrate(top, "hedop5", MechanicalState(q0, v0), (0, n*1e-3), controller=ConstantStep(1e-3))
else:
    from lgbeam.solve import integrate
    run = lambda top, q0, v0, n: integrate(top, q0, v0, (0, n*1e-3), "hedop5", h=1e-3)
top = HeavyTop("S3R3"); q0, v0 = top.initial_state()
run(top, q0, v0, 5)
best = 1e9
for _ in range(3):
    t = time.process_time(); run(top, q0, v0, 500); best = min(best, (time.process_time()-t)/500*1e6)
print(sys.argv[1], "us/step", round(best))
pr = cProfile.Profile(); pr.enable(); run(top, q0, v0, 500); pr.disable()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(14); print(s.getvalue()[:2600])
