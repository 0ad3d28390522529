"""A method asked of a system that lacks what it needs: one line naming the method, the system and the
missing operator, exit 2 (the driver's contract check, reached from a case file)."""

from __future__ import annotations

from lgbeam.cli.main import main


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_mechanical_method_on_a_pde_case_names_method_system_and_missing_members(tmp_path, capsys):
    rc = main(["run", "nls-table", "--out", str(tmp_path / "r"), "--quiet", "--set", "integrator.method=hedop5"])
    err = _one_line(capsys)
    assert rc == 2
    for part in ("'hedop5'", "ConstrainedMechanicalSystem", "NLS lacks", "constraint_jacobian", "energy-exp"):
        assert part in err, err


def test_pde_method_on_a_mechanical_case(tmp_path, capsys):
    rc = main(["run", "heavy-top", "--out", str(tmp_path / "r"), "--quiet", "--set", "integrator.method=disex"])
    err = _one_line(capsys)
    assert rc == 2 and "'disex'" in err and "HeavyTop lacks" in err and "apply_S" in err and "hedop5" in err


def test_missing_capability_is_named(tmp_path, capsys):
    """energy-exp needs a discrete gradient: a KdV without one is refused naming ``discrete_gradient``."""
    import numpy as np
    import pytest

    from lgbeam.discretisations.spectral import FourierGrid, KdV
    from lgbeam.solve import ConstantStep, IncompatibleSystem, integrate

    class NoGradient:
        def __init__(self, kdv):
            self._k = kdv

        def apply_S(self, y):
            return self._k.apply_S(y)

        def apply_A(self, y):
            return self._k.apply_A(y)

        def grad_potential(self, y):
            return self._k.grad_potential(y)

        def hamiltonian(self, y):
            return self._k.hamiltonian(y)

        def phi(self, k, h, y):
            return self._k.phi(k, h, y)

    sys_ = NoGradient(KdV(FourierGrid(31), nu=1e-3))
    with pytest.raises(IncompatibleSystem, match=r"'energy-exp'.*NoGradient lacks discrete_gradient"):
        integrate(sys_, "energy-exp", np.cos(np.linspace(0, 6, 31)), (0.0, 0.1), controller=ConstantStep(0.01))


def test_unknown_method_lists_the_known_ones(tmp_path, capsys):
    rc = main(["run", "heavy-top", "--out", str(tmp_path / "r"), "--quiet", "--set", "integrator.method=nope"])
    err = _one_line(capsys)
    assert rc == 2 and "unknown integrator method 'nope'" in err and "hedop5" in err
