"""Lie groups and homogeneous spaces of lgbeam, vectorised over leading batch axes.

Conventions (docs/conventions.md): left trivialisation ``q' = q · v^``, updates ``q ∘ exp(Θ)``,
tangent operator ``log(exp(ξ)⁻¹ exp(ξ + εη)) = ε T(ξ) η + O(ε²)`` (seed 004 eq. (11)), tangent
ordering ``(Ω, U)``. Contract: docs/architecture.md, section "Groups"; reference: docs/groups.md.
"""

from __future__ import annotations

# the compiled (numba) twins of the S³⋉R³ maps; public for compiled kernels built on them (rods)
from lgbeam.groups import _compiled as compiled_kernels
from lgbeam.groups.base import UNIT_NORM_TOL
from lgbeam.groups.direct import Rn, S3xR3, SO3xR3
from lgbeam.groups.product import Product
from lgbeam.groups.s3 import S3
from lgbeam.groups.s3r3 import S3R3
from lgbeam.groups.se2 import SE2
from lgbeam.groups.se3 import SE3
from lgbeam.groups.so3 import SO3
from lgbeam.groups.son import SOn
from lgbeam.groups.sphere import S2, TS2

__all__ = [
           "S2",
           "S3",
           "S3R3",
           "SE2",
           "SE3",
           "SO3",
           "TS2",
           "UNIT_NORM_TOL",
           "Product",
           "Rn",
           "S3xR3",
           "SO3xR3",
           "SOn",
           "compiled_kernels",
]
