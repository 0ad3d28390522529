"""Print the mass matrix of one Exudyn ObjectBeamGeometricallyExact element (L = 1, ρA = 1, ρJ = 10 I, Euler-parameter
nodes) to see which mass Exudyn uses (docs/rod.md "Spatial accuracy"). Needs ``pip install exudyn``.

    python tools/exudyn_element_mass.py
"""
import exudyn as exu
import numpy as np
from exudyn.utilities import NodeRigidBodyEP, ObjectBeamGeometricallyExact, eulerParameters0

SC = exu.SystemContainer()
mbs = SC.AddSystem()
bs = exu.BeamSection()
bs.massPerLength = 1.0
bs.inertia = np.diag([10.0, 10.0, 10.0])
bs.stiffnessMatrix = np.diag([1e4, 1e8, 1e8, 500.0, 500.0, 500.0])
n0 = mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=[0, 0, 0, *eulerParameters0]))
n1 = mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=[1, 0, 0, *eulerParameters0]))
mbs.AddObject(ObjectBeamGeometricallyExact(nodeNumbers=[n0, n1], physicsLength=1.0, sectionData=bs))
mbs.Assemble()
solver = exu.MainSolverImplicitSecondOrder()
solver.InitializeSolver(mbs, exu.SimulationSettings())
solver.ComputeMassMatrix(mbs)
np.set_printoptions(precision=4, suppress=True, linewidth=200)
print(f"exudyn {exu.__version__}; coordinates per node: x, y, z, 4 Euler parameters")
print(np.array(solver.GetSystemMassMatrix()))
