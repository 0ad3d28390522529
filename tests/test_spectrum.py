"""Response-spectrum analysis (issue 32, ``lgbeam spectrum``). Independent truths: the EN 1998-1 §3.2.2.5 formulas
written out at a point in each branch and at the corner periods; Der Kiureghian's correlation coefficient in its
general (unequal damping) form; SRSS base shear against √Σ(m_eff,k Sa(T_k))² from the modes.csv of ``lgbeam
modes``; a cantilever with a heavy tip mass (one mode carries the mass): base shear m Sa(T₁) and top displacement
Sa/ω₁² with ω₁² = 3EI/(m L³)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from lgbeam.cli.main import main
from lgbeam.discretisations.rods import spectra

G0 = 9.80665


def _ec8_point(T, ag, S, TB, TC, TD, q, beta=0.2):
    """EN 1998-1 eqs. (3.13)-(3.16), branch by branch (scalar)."""
    if T <= TB:
        return ag * S * (2 / 3 + T / TB * (2.5 / q - 2 / 3))
    if T <= TC:
        return ag * S * 2.5 / q
    if T <= TD:
        return max(ag * S * 2.5 / q * TC / T, beta * ag)
    return max(ag * S * 2.5 / q * TC * TD / T**2, beta * ag)


@pytest.mark.parametrize(("typ", "ground", "S", "TB", "TC", "TD"), [
    (1, "A", 1.0, 0.15, 0.4, 2.0), (1, "B", 1.2, 0.15, 0.5, 2.0), (1, "C", 1.15, 0.2, 0.6, 2.0),
    (1, "D", 1.35, 0.2, 0.8, 2.0), (1, "E", 1.4, 0.15, 0.5, 2.0), (2, "A", 1.0, 0.05, 0.25, 1.2),
    (2, "B", 1.35, 0.05, 0.25, 1.2), (2, "C", 1.5, 0.1, 0.25, 1.2), (2, "D", 1.8, 0.1, 0.3, 1.2),
    (2, "E", 1.6, 0.05, 0.25, 1.2)])
def test_ec8_design_spectrum_branches(typ, ground, S, TB, TC, TD):
    sp = spectra.parse(f"ec8:type={typ},ground={ground},ag=0.25,q=1.5")
    ag = 0.25 * G0
    T = np.array([0.0, TB / 2, TB, (TB + TC) / 2, TC, (TC + TD) / 2, TD, 1.5 * TD, 4.0])
    expected = np.array([_ec8_point(t, ag, S, TB, TC, TD, 1.5) for t in T])
    assert np.allclose(sp(T), expected, rtol=1e-14, atol=0)
    assert sp(np.array([0.0]))[0] == pytest.approx(ag * S * 2 / 3, rel=1e-14)  # T = 0: 2/3 a_g S (q > 1)
    assert sp(np.array([TB]))[0] == pytest.approx(ag * S * 2.5 / 1.5, rel=1e-14)  # the plateau from T_B on
    # a large q brings the lower bound β a_g into play in both descending branches
    low = spectra.parse(f"ec8:type={typ},ground={ground},ag=0.25,q=6")
    assert low(np.array([TD * 0.999, 4.0])) == pytest.approx([max(ag * S * 2.5 / 6 * TC / (TD * 0.999), 0.2 * ag),
                                                               0.2 * ag], rel=1e-14)


@pytest.mark.parametrize("bad", ["ec8:type=3,ag=0.2", "ec8:ground=F,ag=0.2", "ec8:type=1", "ec8:ag=-0.1",
                                 "ec8:ag=0.2,q=0.5", "ec8:ag=0.2,soil=B", "ec8:ag=x"])
def test_ec8_bad_parameters_refused(bad):
    with pytest.raises(ValueError, match="ec8"):
        spectra.parse(bad)


def test_table_spectrum(tmp_path):
    f = tmp_path / "sa.csv"
    f.write_text("T [s], Sa [m/s2]\n0.05, 2.0\n0.5, 5.0\n2.0 1.0\n")
    sp = spectra.parse(str(f))
    assert sp(np.array([0.05, 0.275, 1.25, 2.0])) == pytest.approx([2.0, 3.5, 3.0, 1.0], rel=1e-14)
    with pytest.raises(ValueError, match=r"mode 2: T = 3 s lies outside"):
        sp(np.array([1.0, 3.0]), "mode")
    (tmp_path / "dec.csv").write_text("0 1\n0.5 2\n0.4 3\n")
    with pytest.raises(ValueError, match="strictly increasing"):
        spectra.parse(str(tmp_path / "dec.csv"))


def _rho_general(wi, wj, zi, zj):
    """Der Kiureghian (1981), unequal damping ratios (Chopra eq. 13.7.10's general form)."""
    r = wj / wi
    num = 8 * np.sqrt(zi * zj) * (zi + r * zj) * r**1.5
    den = (1 - r**2) ** 2 + 4 * zi * zj * r * (1 + r**2) + 4 * (zi**2 + zj**2) * r**2
    return num / den


def test_cqc_close_modes_hand_formula_and_separated_modes_srss():
    w = np.array([10.0, 10.5])
    R = np.array([3.0, -2.0])
    rho = _rho_general(10.0, 10.5, 0.05, 0.05)
    assert spectra.cqc_correlation(w, 0.05)[0, 1] == pytest.approx(rho, rel=1e-13)
    assert 0.5 < rho < 1.0  # close modes: strongly correlated
    hand = np.sqrt(R[0] ** 2 + R[1] ** 2 + 2 * rho * R[0] * R[1])
    assert spectra.combine(R, w, "cqc", 0.05) == pytest.approx(hand, rel=1e-13)
    assert spectra.combine(R, w, "srss") == pytest.approx(np.sqrt(13.0), rel=1e-14)
    ws = np.array([2.0, 20.0, 200.0])  # frequency ratios 10: ρ < 1e-3, CQC within 0.1 % of SRSS
    Rs = np.array([[1.0, 0.5], [-0.8, 0.3], [0.6, -0.2]])
    srss, cqc = spectra.combine(Rs, ws, "srss"), spectra.combine(Rs, ws, "cqc", 0.05)
    assert np.allclose(cqc, srss, rtol=1e-3)
    assert not np.allclose(cqc, srss, rtol=1e-6)  # ... but not identical


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_cli_srss_base_shear_from_modes_csv(tmp_path, capsys):
    f = tmp_path / "sa.txt"
    f.write_text("# period, acceleration\n0.0 3.0\n0.2 6.0\n1.0 4.0\n5.0 1.0\n")
    common = ["--set", "model.n_elements=6", "--set", "analysis.richardson=false"]
    assert main(["modes", "portal-frame", "--n", "5", *common, "--out", str(tmp_path / "m")]) == 0
    assert main(["spectrum", "portal-frame", "--spectrum", str(f), "--direction", "x", "--n", "5", *common,
                 "--combination", "srss", "--out", str(tmp_path / "s")]) == 0
    modes = _rows(tmp_path / "m" / "modes.csv")
    T = np.array([float(r["period_s"]) for r in modes])
    me = np.array([float(r["effective_mass_x"]) for r in modes])
    hand = np.sqrt(np.sum((me * np.interp(T, [0, 0.2, 1, 5], [3, 6, 4, 1])) ** 2))
    rows = _rows(tmp_path / "s" / "spectrum.csv")
    srss = next(r for r in rows if r["mode"] == "SRSS")
    assert float(srss["base_shear_x"]) == pytest.approx(hand, rel=1e-3)
    w = 2 * np.pi / T  # CQC by hand: Σ_ij ρ_ij V_i V_j, ρ of Der Kiureghian at ζ = 0.05 from modes.csv's periods
    V = me * np.interp(T, [0, 0.2, 1, 5], [3, 6, 4, 1])
    rho = np.array([[1.0 if i == j else _rho_general(w[i], w[j], 0.05, 0.05) for j in range(5)] for i in range(5)])
    cqc = next(r for r in rows if r["mode"] == "CQC")
    assert float(cqc["base_shear_x"]) == pytest.approx(np.sqrt(V @ rho @ V), rel=1e-3)
    assert [r["mode"] for r in rows] == ["1", "2", "3", "4", "5", "SRSS", "CQC"]
    per_mode = np.array([float(r["base_shear_x"]) for r in rows[:5]])
    assert per_mode == pytest.approx(me * np.array([float(r["sa"]) for r in rows[:5]]), rel=1e-9)
    disp = _rows(tmp_path / "s" / "displacements.csv")
    assert len(disp) == 3 * 7 and {"ux_srss", "uz_cqc", "ry_cqc"} <= set(disp[0])
    out = capsys.readouterr().out
    assert "SRSS (ζ = 0.05 for CQC) base shear along x" in out


def test_cli_refuses_periods_outside_the_table(tmp_path, capsys):
    f = tmp_path / "sa.csv"
    f.write_text("T,Sa\n0.5,1\n2,1\n")
    rc = main(["spectrum", "portal-frame", "--spectrum", str(f), "--direction", "x", "--n", "3",
               "--set", "model.n_elements=4", "--out", str(tmp_path / "s")])
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert "lies outside the spectrum's periods" in err and "\n" not in err
    assert not (tmp_path / "s" / "spectrum.csv").exists()


L, EI, M_TIP = 3.0, 2.0e6, 5000.0


def tip_mass_column(path, *, n=8, extra=""):
    """A cantilever column (clamped base, L along z, light section) with a heavy point mass at the top."""
    path.write_text(f"""kind = "frame"
name = "tip-mass-column"
[model]
n_elements = {n}
constraints = "kirchhoff+inextensible"
[model.material]
EA = 1e10
GA = [1e10, 1e10]
EI = [{EI}, {4 * EI}]
GJ = 1e6
rhoA = 0.5
rhoJ = [1e-4, 1e-4, 2e-4]
[[model.rods]]
name = "col"
start = [0.0, 0.0, 0.0]
end = [0.0, 0.0, {L}]
[[model.masses]]
rod = "col"
node = "end"
mass = {M_TIP}
[[supports]]
rod = "col"
node = "start"
kind = "clamped"
[time]
t_end = 1.0
{extra}
""")
    return path


def test_single_mode_cantilever_base_shear_is_m_eff_sa(tmp_path):
    case = tip_mass_column(tmp_path / "col.toml", n=16)
    f = tmp_path / "sa.csv"
    f.write_text("0.01,2.0\n2.0,8.0\n")
    assert main(["spectrum", str(case), "--spectrum", str(f), "--direction", "y", "--n", "1",
                 "--out", str(tmp_path / "s")]) == 0
    row = _rows(tmp_path / "s" / "spectrum.csv")[0]
    T, sa, me = float(row["period_s"]), float(row["sa"]), float(row["effective_mass_y"])
    assert float(row["base_shear_y"]) == pytest.approx(me * sa, rel=1e-12)
    # the weak axis EI (the stiff one is 4 EI) bends along y
    w1 = np.sqrt(3 * EI / (M_TIP * L**3))  # the column's own mass 1.5 kg is 3e-4 of the tip mass
    assert T == pytest.approx(2 * np.pi / w1, rel=1e-3)
    assert me == pytest.approx(M_TIP, rel=1e-3)
    assert sa == pytest.approx(np.interp(T, [0.01, 2.0], [2.0, 8.0]), rel=1e-12)
    top = _rows(tmp_path / "s" / "displacements.csv")[-1]
    assert float(top["uy_srss"]) == pytest.approx(sa / w1**2, rel=2e-3)
    assert float(top["uy_cqc"]) == pytest.approx(float(top["uy_srss"]), rel=1e-14)  # one mode: both the same


def test_a_rod_case_runs_and_its_first_mode_is_the_euler_bernoulli_cantilevers(tmp_path):
    """``lgbeam spectrum`` on a rod case (it failed with an AttributeError: the rod had no n_dofs). The steel
    cantilever's first bending mode against the Euler–Bernoulli continuum: ω₁ = β₁² √(EI/(ρA L⁴)), β₁ = 1.8751…,
    effective mass (∫φ)²/∫φ² ρA (φ the clamped-free mode shape integrated on a fine grid), base shear m_eff Sa."""
    assert main(["spectrum", "steel-cantilever-dynamic", "--spectrum", "ec8:type=1,ground=B,ag=0.25,q=1.5",
                 "--direction", "z", "--n", "1", "--set", "model.n_elements=32", "--out", str(tmp_path / "s")]) == 0
    row = _rows(tmp_path / "s" / "spectrum.csv")[0]
    EI, rhoA, L = 210e9 * 0.04 * 0.01**3 / 12, 7850.0 * 0.04 * 0.01, 4.0
    b = 1.8751040687119611 / L
    x = np.linspace(0.0, L, 200_001)
    s = (np.cosh(b * L) + np.cos(b * L)) / (np.sinh(b * L) + np.sin(b * L))
    phi = np.cosh(b * x) - np.cos(b * x) - s * (np.sinh(b * x) - np.sin(b * x))
    m_eff = rhoA * np.trapezoid(phi, x) ** 2 / np.trapezoid(phi**2, x)
    assert float(row["period_s"]) == pytest.approx(2 * np.pi / (b**2 * np.sqrt(EI / rhoA)), rel=1e-3)
    assert float(row["effective_mass_z"]) == pytest.approx(m_eff, rel=2e-3)
    assert float(row["base_shear_z"]) == pytest.approx(float(row["effective_mass_z"]) * float(row["sa"]), rel=1e-12)
