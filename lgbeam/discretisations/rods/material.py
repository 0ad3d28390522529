"""Rod material and cross-section data: stiffness C = diag(C_K, C_Γ), damping, inertia per length.

Ordering follows the strain w = (K, Γ) of seed 004 eq. (23): C_K = diag(EI₁, EI₂, GJ),
C_Γ = diag(GA₁, GA₂, EA); inertia per length ρA and ρJ = diag(ρI₁, ρI₂, ρJ₃).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lgbeam._typing import FloatArray


def _positive_vector(name: str, value: object, *, allow_zero: bool = False) -> FloatArray:
    a = np.asarray(value, dtype=float)
    if a.ndim == 0:
        a = np.full(3, float(a))
    if a.shape != (3,):
        raise ValueError(f"rod material {name} must be a number or 3 numbers, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"rod material {name} must be finite, got {a.tolist()}")
    bad = a < 0.0 if allow_zero else a <= 0.0
    if np.any(bad):
        need = "non-negative" if allow_zero else "positive"
        raise ValueError(f"rod material {name} must be {need}, got {a.tolist()}; fix the case's model.material")
    return a


@dataclass(frozen=True, kw_only=True)
class Material:
    """Sectional stiffness, Kelvin–Voigt damping and inertia per unit length of a rod.

    Parameters
    ----------
    C_K : (3,) bending and torsion stiffness (EI₁, EI₂, GJ).
    C_Gamma : (3,) shear and axial stiffness (GA₁, GA₂, EA).
    rhoA : mass per length ρA.
    rhoJ : (3,) rotary inertia per length (ρI₁, ρI₂, ρ(I₁+I₂)).
    C_K_d, C_Gamma_d : (3,) Kelvin–Voigt damping on the strain rates (stress C_d·ẇ), ≥ 0.

    References
    ----------
    Seed 004 §4, Table 3 (values in /work/shared/notes/beam-reference-data.md §4).
    """

    C_K: FloatArray = field(repr=False)
    C_Gamma: FloatArray = field(repr=False)
    rhoA: float
    rhoJ: FloatArray = field(repr=False)
    C_K_d: FloatArray = field(default_factory=lambda: np.zeros(3), repr=False)
    C_Gamma_d: FloatArray = field(default_factory=lambda: np.zeros(3), repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "C_K", _positive_vector("stiffness C_K (EI1, EI2, GJ)", self.C_K))
        object.__setattr__(self, "C_Gamma", _positive_vector("stiffness C_Gamma (GA1, GA2, EA)", self.C_Gamma))
        object.__setattr__(self, "rhoJ", _positive_vector("density rhoJ", self.rhoJ))
        object.__setattr__(self, "C_K_d", _positive_vector("damping C_K_d", self.C_K_d, allow_zero=True))
        object.__setattr__(
            self, "C_Gamma_d", _positive_vector("damping C_Gamma_d", self.C_Gamma_d, allow_zero=True)
        )
        rhoA = float(self.rhoA)
        if not np.isfinite(rhoA) or rhoA <= 0.0:
            raise ValueError(f"rod material density rhoA must be positive, got {self.rhoA!r}")
        object.__setattr__(self, "rhoA", rhoA)

    @classmethod
    def from_sectional(
        cls,
        *,
        EA: float,
        GA: float | tuple[float, float],
        EI: float | tuple[float, float],
        GJ: float,
        rhoA: float,
        rhoJ: float | tuple[float, float, float],
        damping: float = 0.0,
    ) -> Material:
        """From sectional stiffnesses (EA, GA, EI₁, EI₂, GJ) and inertia (ρA, ρJ); equal damping on all strains."""
        GA2 = np.broadcast_to(np.asarray(GA, dtype=float), (2,))
        EI2 = np.broadcast_to(np.asarray(EI, dtype=float), (2,))
        return cls(
            C_K=np.array([EI2[0], EI2[1], GJ], dtype=float),
            C_Gamma=np.array([GA2[0], GA2[1], EA], dtype=float),
            rhoA=rhoA,
            rhoJ=np.broadcast_to(np.asarray(rhoJ, dtype=float), (3,)).copy(),
            C_K_d=np.full(3, float(damping)),
            C_Gamma_d=np.full(3, float(damping)),
        )

    @classmethod
    def from_section(
        cls,
        *,
        E: float,
        G: float,
        rho: float,
        section: str,
        radius: float | None = None,
        width: float | None = None,
        height: float | None = None,
        shear_factor: float | None = None,
        damping: float = 0.0,
    ) -> Material:
        """From (E, G, ρ) and a ``"circle"`` (radius) or ``"rectangle"`` (width along d₁, height along d₂).

        Shear correction factors default to 6/7 (circle) and 5/6 (rectangle) (Cowper 1966).
        """
        for name, val in (("E", E), ("G", G), ("rho", rho)):
            if not np.isfinite(val) or val <= 0.0:
                raise ValueError(f"rod material {name} must be positive, got {val!r}")
        if section == "circle":
            if radius is None or radius <= 0.0:
                raise ValueError(f"a circular section needs radius > 0, got {radius!r}")
            A = np.pi * radius**2
            I1 = I2 = np.pi * radius**4 / 4.0
            J = I1 + I2
            k = 6.0 / 7.0 if shear_factor is None else shear_factor
        elif section == "rectangle":
            if width is None or height is None or width <= 0.0 or height <= 0.0:
                raise ValueError(f"a rectangular section needs width, height > 0, got {width!r}, {height!r}")
            A = width * height
            I1 = width * height**3 / 12.0  # bending about d1 (deflection along d2)
            I2 = height * width**3 / 12.0
            a, b = max(width, height), min(width, height)
            J = a * b**3 * (1.0 / 3.0 - 0.21 * b / a * (1.0 - b**4 / (12.0 * a**4)))  # Roark, Table 10.7
            k = 5.0 / 6.0 if shear_factor is None else shear_factor
        else:
            raise ValueError(f"unknown cross-section {section!r}; use 'circle' or 'rectangle'")
        return cls(
            C_K=np.array([E * I1, E * I2, G * J]),
            C_Gamma=np.array([k * G * A, k * G * A, E * A]),
            rhoA=rho * A,
            rhoJ=np.array([rho * I1, rho * I2, rho * (I1 + I2)]),
            C_K_d=np.full(3, float(damping)),
            C_Gamma_d=np.full(3, float(damping)),
        )

    @property
    def stiffness(self) -> FloatArray:
        """diag(C_K, C_Γ) as a (6,) vector (ordering (K, Γ))."""
        return np.concatenate([self.C_K, self.C_Gamma])

    @property
    def damping(self) -> FloatArray:
        """diag(C_K,d, C_Γ,d) as a (6,) vector."""
        return np.concatenate([self.C_K_d, self.C_Gamma_d])

    @property
    def has_damping(self) -> bool:
        return bool(np.any(self.damping > 0.0))
