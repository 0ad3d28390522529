"""Finite-element references built with scikit-fem: Euler–Bernoulli beam (cubic Hermite) and FE NLS
(P1/P2)."""

from __future__ import annotations

from lgbeam.discretisations.fem.euler_bernoulli import EulerBernoulliBeam, closed_form_beta_l
from lgbeam.discretisations.fem.nls_fem import FENLS

__all__ = ["FENLS", "EulerBernoulliBeam", "closed_form_beta_l"]
