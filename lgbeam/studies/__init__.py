"""Reproducible studies behind the seeds' figures (top layer, like ``lgbeam.apps``: may import
integrators, discretisations and the driver).

Modules
-------
rod_dynamics
    Seed 004 Figs. 9–12 for the rod: temporal orders against a fine-step reference, the local error
    estimate at fixed h, adaptive HEDOP5 err/h histories, the roll-up settling.
rod_linear
    Spatial refinement of the rod (static tip, fitted order) and the linear regime: small-amplitude
    frequencies and static deflection against scikit-fem Euler–Bernoulli and closed forms.
rod_figures
    ``python -m lgbeam.studies.rod_figures``: runs the studies, writes ``outputs/summary/rod-*``
    (CSV + PNG).
"""
