"""The pieces that have one home (issue 36): the 3-vector cross product (``lgbeam.groups.base.cross``, used by the
groups, the rigid-body integrators and the models) and the log–log slope fits (``lgbeam.diagnostics``: strict
``observed_order``, tolerant ``fitted_order``, which the study tables and plots use)."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.diagnostics import fitted_order, observed_order
from lgbeam.groups.base import cross


@pytest.mark.parametrize("sa, sb", [((3,), (3,)), ((5, 3), (5, 3)), ((3,), (5, 3)), ((1, 3), (3, 3)),
                                    ((4, 2, 3), (2, 3))])
def test_cross_is_numpys_cross_with_broadcasting(sa, sb):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    c = cross(a, b)
    assert c.shape == np.broadcast_shapes(sa, sb)
    assert np.allclose(c, np.cross(a, b), rtol=0, atol=1e-15)
    assert np.allclose(np.sum(c * a, axis=-1), 0.0, atol=1e-14)  # orthogonal to both factors
    e1, e2, e3 = np.eye(3)
    assert np.array_equal(cross(e1, e2), e3) and np.array_equal(cross(e2, e1), -e3)


def test_the_other_modules_use_the_one_cross():
    from lgbeam.groups import homogeneous
    from lgbeam.integrators import lgvi, rigid
    from lgbeam.models import heavy_top_lie, pendulum_chain, quadrotors

    for mod in (homogeneous, rigid, lgvi, heavy_top_lie, pendulum_chain, quadrotors):
        assert mod.cross is cross


def test_fitted_order_leaves_out_what_has_no_log_and_observed_order_refuses_it():
    h = np.array([0.1, 0.05, 0.025, 0.0125])
    e = 3.0 * h**2.5
    assert observed_order(h, e) == pytest.approx(2.5, abs=1e-12)  # exact power law: round-off only
    assert fitted_order(h, e) == observed_order(h, e)
    dirty_h, dirty_e = np.append(h, [0.2, -1.0, 0.3]), np.append(e, [0.0, 1.0, np.nan])
    assert fitted_order(dirty_h, dirty_e) == observed_order(h, e)  # the three bad pairs left out
    with pytest.raises(ValueError, match="finite, positive"):
        observed_order(dirty_h, dirty_e)
    assert np.isnan(fitted_order([1.0, 2.0], [0.0, 1.0]))  # one usable pair: no slope


def test_the_study_tables_and_plots_use_the_one_tolerant_fit():
    from lgbeam.io import plots
    from lgbeam.studies import refinement

    assert refinement.fitted_order is fitted_order
    h, e = [0.2, 0.1, 0.05, 0.025], [0.0, 4e-3, 1e-3, 2.5e-4]
    assert plots.fit_order(h, e) == fitted_order(h, e) == pytest.approx(2.0, abs=1e-12)


def test_check_keys_is_one_line_naming_the_key_and_the_valid_ones():
    from lgbeam._tables import check_keys

    check_keys({"E": 1.0, "rho": 2.0}, ("E", "G", "nu", "rho"), "members.a.material")  # all known: nothing
    with pytest.raises(ValueError, match=r"^members\.a\.material: unknown key 'x'; valid keys: E, G, nu, rho$"):
        check_keys({"x": 1, "E": 1.0}, ("E", "G", "nu", "rho"), "members.a.material")
    with pytest.raises(ValueError, match=r"^unknown key 'd' for shape 'I'; its keys: h, b$"):
        check_keys({"shape": "I", "d": 1, "zz": 2}, ("shape", "h", "b"), of=" for shape 'I'", hint="its keys: h, b")
    with pytest.raises(ValueError, match=r"^unknown motion key\(s\) omega, zz; valid keys: velocity$"):
        check_keys({"zz": 1, "omega": 2}, ("velocity",), noun="motion key", every=True)


def test_the_nested_case_tables_are_checked_by_check_keys():
    """Each reader of a nested case table refuses an unknown key with the one message shape (the section's,
    the material's, the member's and the support's own words kept)."""
    from lgbeam.discretisations.rods import sections as sec
    from lgbeam.discretisations.rods.supports import PrescribedMotion

    with pytest.raises(ValueError, match="unknown prescribed-motion key\\(s\\) omega; valid keys: angular_velocity"):
        PrescribedMotion.from_dict({"omega": [0.0, 0.0, 1.0]})
    with pytest.raises(ValueError, match="m: unknown key 'x'; valid keys: E, G, nu, rho"):
        sec.grade({"E": 2e11, "rho": 7850.0, "nu": 0.3, "x": 1}, "m")
    with pytest.raises(ValueError, match="unknown key 'd' for shape 'I'; its keys: h, b, tw, tf, r"):
        sec.section({"shape": "I", "h": 0.3, "b": 0.15, "tw": 0.01, "tf": 0.02, "d": 1.0}, "s")
    with pytest.raises(ValueError, match="unknown key 'Ix'; give shape \\+ dimensions, or A, Iy, Iz, It"):
        sec.section({"A": 1e-3, "Ix": 1.0}, "s")
