"""Filtering on SE(2) (seed 003 ch. 5): EKF-SLAM, the first-estimates EKF and the reduced EKF.

A layer of its own beside the integrators; it uses ``lgbeam.groups`` (SE(2)) and nothing else of lgbeam.

Modules
-------
kalman
    Kalman / information-filter steps, SPD checks, the reduced update (5.24).
planar
    The planar robot-plus-landmark model in classical ``(p, θ, p_i^f)`` and reduced ``(p, θ, z_i)``
    coordinates: propagation, transition matrices (5.11)/(5.20), measurement Jacobians, the
    unobservable directions (5.7)/(5.17), the SE(2) action (5.8), the change of coordinates (5.23).
observability
    Observability matrix and Gramian, null space, chain property.
simulate
    Trajectories (line, circle, spline), odometry, stereo camera, landmark fields, realisations.
filters
    ``run_filter("ekf" | "fej" | "reduced", dataset)``.
montecarlo
    Realisation specs, per-run metrics, aggregation; the thesis's Tables 5.1–5.6.
"""

from __future__ import annotations
