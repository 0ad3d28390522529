"""Response-spectrum analysis of a rod or frame case (``lgbeam spectrum``; docs/dynamics.md).

The modes φ_k (φᵀMφ = 1) and ω_k of the case about its reference (``rods.modal.modes``, exact tangent, the
case's mass: lumped for the rods, consistent for the corotational element by default, ker B); a uniform base excitation along the unit vector e (x, y or z) excites mode k with the factor
Γ_k = φ_kᵀ M r_e (``rods.modal.participation``). With S_a,k = Sa(T_k), T_k = 2π/ω_k, its peak response is

    u_k = Γ_k S_a,k / ω_k² φ_k             (modal displacement; body (Ω, U) turned spatial per node)
    f_k = M φ_k Γ_k S_a,k                   (equivalent static forces)
    V_k,d = r_dᵀ f_k = L_k,d Γ_k S_a,k       (base shear along axis d; V_k,e = m_eff,k S_a,k)

combined over the modes by SRSS and CQC (``rods.spectra``). Modes are taken until the cumulative effective mass
along e reaches ``TARGET_FRACTION`` of the total mass (EN 1998-1 §4.3.3.3.1) unless their number is given.
Outputs: spectrum.csv (one row per mode: mode, period_s, omega_rad_s, sa, effective_mass_x/y/z (kg),
base_shear_x/y/z (N, signed), then rows SRSS and CQC with the combined |values| of the base shears) and
displacements.csv (one row per node: the SRSS and CQC combined spatial displacements ux, uy, uz (m) and
rotations rx, ry, rz (rad), each component combined separately).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.discretisations.rods import modal, spectra
from lgbeam.io.atomic import atomic_write_rows

TARGET_FRACTION = 0.9
FIRST_TRY = 12  # modes computed first when --n is not given (then doubled until the target fraction)
AXES = "xyz"
PRINT_FRACTION = 0.01  # modes with a smaller effective mass along the direction are left out of the printed table


@dataclass(frozen=True)
class SpectrumResult:
    """Per mode k: ω (rad/s), T (s), Sa (m/s²), effective masses (n, 3) kg, base shears (n, 3) N, modal spatial
    displacements (n, n_nodes, 6) = (rotation, translation); the cumulative fraction along e and the total mass."""

    omega: np.ndarray
    period: np.ndarray
    sa: np.ndarray
    effective_mass: np.ndarray
    base_shear: np.ndarray
    displacement: np.ndarray
    fraction: float
    total_mass: float
    direction: int


def system_of(case: dict[str, Any]) -> modal.RodSystem:
    """The rod of a rod case or the structure of a frame case."""
    if case.get("kind") == "frame":
        from lgbeam.apps.frame import check_size, model_of

        model = model_of(case)
        check_size(case, model)
        return model.structure()
    if case.get("kind") == "rod":
        from lgbeam.apps.rod import build as build_rod

        return build_rod(case)[0]
    raise ValueError(f"lgbeam spectrum works on rod and frame cases, not kind {case.get('kind')!r}")


def select_modes(system: modal.RodSystem, direction: int, n: int | None) -> modal.RodModes:
    """``n`` modes, or the fewest whose cumulative effective mass along ``direction`` reaches TARGET_FRACTION
    (computed FIRST_TRY, then doubled, up to every mode ARPACK can give)."""
    n_max = system.n_dofs - system.n_constraints - 2
    if n is not None:
        if not 1 <= n <= n_max:
            raise ValueError(f"--n must lie in [1, {n_max}] for this case, got {n}")
        return modal.modes(system, n)
    k = min(FIRST_TRY, n_max)
    while True:
        res = modal.modes(system, k)
        cum = modal.participation(system, res.shapes, res.q).cumulative_fraction[:, direction]
        hit = np.flatnonzero(cum >= TARGET_FRACTION)
        if hit.size:
            m = int(hit[0]) + 1
            return modal.RodModes(omega2=res.omega2[:m], shapes=res.shapes[:m], q=res.q)
        if k >= n_max:
            return res
        k = min(2 * k, n_max)


def analyse(system: modal.RodSystem, spectrum: spectra.Spectrum, direction: int, n: int | None = None) -> SpectrumResult:
    """Peak modal responses of the modes (module docstring)."""
    res = select_modes(system, direction, n)
    w2 = np.asarray(res.omega2, dtype=float)
    if np.any(w2 <= 0.0):
        k = int(np.flatnonzero(w2 <= 0.0)[0]) + 1
        raise ValueError(f"mode {k} has ω² = {w2[k - 1]:.3g} ≤ 0 (a mechanism or an unstable reference): a response "
                         "spectrum needs a stable structure with no free motion; add supports")
    w = np.sqrt(w2)
    T = 2.0 * np.pi / w
    sa = spectrum(T, "mode")
    part = modal.participation(system, res.shapes, res.q)
    phi = res.shapes.reshape(len(res.shapes), -1)
    mm = np.einsum("ki,ik->k", phi, system.mass(res.q) @ phi.T)  # φᵀMφ, the full M (consistent or lumped); 1 normalised
    L = part.gamma * mm[:, None]  # φᵀ M r_d
    gamma_e = part.gamma[:, direction]
    base = L * (gamma_e * sa)[:, None]
    R = system.G.rotation(res.q)
    amp = gamma_e * sa / w2
    disp = np.concatenate([np.einsum("nij,knj->kni", R, res.shapes[:, :, :3]),
                           np.einsum("nij,knj->kni", R, res.shapes[:, :, 3:])], axis=2) * amp[:, None, None]
    frac = float(part.cumulative_fraction[-1, direction])
    return SpectrumResult(w, T, sa, part.effective_mass, base, disp, frac, part.total_mass, direction)


def spectrum_rows(r: SpectrumResult, ratio: float) -> list[dict[str, Any]]:
    """The rows of spectrum.csv: one per mode, then SRSS and CQC (combined base shears, sums of the masses)."""
    rows: list[dict[str, Any]] = []
    for k in range(len(r.omega)):
        row: dict[str, Any] = {"mode": k + 1, "period_s": float(r.period[k]), "omega_rad_s": float(r.omega[k]),
                               "sa": float(r.sa[k])}
        row |= {f"effective_mass_{a}": float(r.effective_mass[k, j]) for j, a in enumerate(AXES)}
        row |= {f"base_shear_{a}": float(r.base_shear[k, j]) for j, a in enumerate(AXES)}
        rows.append(row)
    for how in ("srss", "cqc"):
        v = spectra.combine(r.base_shear, r.omega, how, ratio)
        row = {"mode": how.upper(), "period_s": "", "omega_rad_s": "", "sa": ""}
        row |= {f"effective_mass_{a}": float(r.effective_mass[:, j].sum()) for j, a in enumerate(AXES)}
        row |= {f"base_shear_{a}": float(v[j]) for j, a in enumerate(AXES)}
        rows.append(row)
    return rows


def node_labels(case: dict[str, Any], system: modal.RodSystem) -> list[tuple[str, int, str]]:
    """(rod, node on the rod, name) of every node of the system (name: a named node of a nodes + members case)."""
    from lgbeam.discretisations.frames import Structure

    if not isinstance(system, Structure):
        return [("rod", i, "") for i in range(system.n_nodes)]
    from lgbeam.apps.frame import node_ids

    names = {i: nm for nm, i in node_ids(case, system).items()}
    o = system.node_offsets
    return [(rod, i - int(o[k]), names.get(i, "")) for k, rod in enumerate(system.names)
            for i in range(int(o[k]), int(o[k + 1]))]


def displacement_rows(case: dict[str, Any], system: modal.RodSystem, r: SpectrumResult, ratio: float) -> list[dict[str, Any]]:
    """The rows of displacements.csv (module docstring)."""
    x = system.G.translation(system._q(system.q_ref))
    comb = {how: spectra.combine(r.displacement, r.omega, how, ratio) for how in ("srss", "cqc")}  # (n_nodes, 6)
    rows = []
    for i, (rod, j, name) in enumerate(node_labels(case, system)):
        row: dict[str, Any] = {"node": i, "rod": rod, "rod_node": j, "name": name,
                               "x": float(x[i, 0]), "y": float(x[i, 1]), "z": float(x[i, 2])}
        for how, c in comb.items():
            row |= {f"u{a}_{how}": float(c[i, 3 + j2]) for j2, a in enumerate(AXES)}
            row |= {f"r{a}_{how}": float(c[i, j2]) for j2, a in enumerate(AXES)}
        rows.append(row)
    return rows


def report(case: dict[str, Any], name: str, spectrum: spectra.Spectrum, *, direction: str, n: int | None,
           ratio: float, combination: str, out: Path) -> str:
    """Analyse, write spectrum.csv and displacements.csv, and return the table to print."""
    if direction not in AXES:
        raise ValueError(f"--direction must be x, y or z, got {direction!r}")
    if not (np.isfinite(ratio) and 0.0 < ratio < 1.0):
        raise ValueError(f"--ratio (the modal damping ratio of CQC) must lie in (0, 1), got {ratio:g}")
    system = system_of(case)
    d = AXES.index(direction)
    r = analyse(system, spectrum, d, n)
    rows = spectrum_rows(r, ratio)
    atomic_write_rows(out / "spectrum.csv", rows)
    atomic_write_rows(out / "displacements.csv", displacement_rows(case, system, r, ratio))
    chosen = "given by --n" if n is not None else f"until {TARGET_FRACTION:.0%} of the mass along {direction}"
    lines = [(f"{name}: response spectrum along {direction} ({spectrum.label}); {len(r.omega)} modes ({chosen}): "
             f"cumulative effective mass {r.fraction:.4f} of {r.total_mass:.6g} kg"),
             (f"{'mode':>5}  {'T [s]':>10}  {'Sa [m/s²]':>10}  {'m_eff ' + direction + ' [kg]':>14}  "
             f"{'V_x [N]':>12}  {'V_y [N]':>12}  {'V_z [N]':>12}")]
    small = PRINT_FRACTION * r.total_mass
    hidden = [row for row in rows if isinstance(row["mode"], int) and row["effective_mass_" + direction] < small]
    for row in rows:
        if isinstance(row["mode"], int) and row["effective_mass_" + direction] < small:
            continue
        head = (f"{row['mode']:>5}  {row['period_s']:10.5g}  {row['sa']:10.5g}" if isinstance(row["mode"], int)
                else f"{row['mode']:>5}  {'':>10}  {'':>10}")
        lines.append(f"{head}  {row['effective_mass_' + direction]:14.6g}  "
                     + "  ".join(f"{row['base_shear_' + a]:12.6g}" for a in AXES))
    if hidden:
        lines.append(f"{len(hidden)} modes with less than {PRINT_FRACTION:.0%} of the mass along {direction} not printed "
                     "(they are in spectrum.csv and in the combinations)")
    if n is None and r.fraction < TARGET_FRACTION:
        lines.append(f"note: every mode computed reaches only {r.fraction:.4f} of the mass along {direction} (the "
                     "supports hold the rest, or the mesh has too few free degrees of freedom)")
    best = next(row for row in rows if row["mode"] == combination.upper())
    lines.append(f"{combination.upper()} (ζ = {ratio:g} for CQC) base shear along {direction}: "
                 f"{best['base_shear_' + direction]:.6g} N; wrote {out / 'spectrum.csv'} and {out / 'displacements.csv'}")
    return "\n".join(lines)
