"""Geometrically exact Cosserat/Kirchhoff rod on (S³⋉R³)^(N+1) (seed 004 §4); see docs/rod.md."""

from __future__ import annotations

# the compiled (numba) step core; public for the compiled kernels built on it (frames)
from . import _compiled as compiled_kernels
from .geometry import arc, constant_strain, helix, minimal_rotation, polyline, straight
from .loads import DistributedLoad, Gravity, NodalLoad, PointMass, TimeFunction
from .material import Material
from .mesh import RodMesh
from .rod import CosseratRod
from .supports import Support

__all__ = [
    "CosseratRod", "DistributedLoad", "Gravity", "Material", "NodalLoad", "PointMass", "RodMesh", "Support",
    "TimeFunction", "arc", "compiled_kernels", "constant_strain", "helix", "minimal_rotation", "polyline", "straight",
]
