"""Geometrically exact Cosserat/Kirchhoff rod on (S³⋉R³)^(N+1) (seed 004 §4); see docs/rod.md."""

from __future__ import annotations

from .geometry import arc, constant_strain, helix, minimal_rotation, polyline, straight
from .loads import DistributedLoad, Gravity, NodalLoad, PointMass, TimeFunction
from .material import Material
from .mesh import RodMesh
from .rod import CosseratRod
from .supports import Support

__all__ = [
    "CosseratRod", "DistributedLoad", "Gravity", "Material", "NodalLoad", "PointMass", "RodMesh", "Support",
    "TimeFunction", "arc", "constant_strain", "helix", "minimal_rotation", "polyline", "straight",
]
