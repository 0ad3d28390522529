"""Supports of a rod as constraint rows (nothing overwrites state values).

    clamped  Φ = log(q_ref⁻¹ q_i) ∈ R⁶,    B = T(Φ)⁻¹ on node i   (position and orientation fixed)
    pinned   Φ = x_i − x_ref ∈ R³,         B = [0, R_i] on node i  (position fixed, free rotation)
    free     no rows
    prescribed  Φ(t, q) = log(q_ref(t)⁻¹ q_i) ∈ R⁶, B = T(Φ)⁻¹, Φ_t = −T(−Φ)⁻¹ η(t)  (rheonomic)
             with q_ref(t) = (exp(S(t) ω̂) R₀, x₀ + S(t) u) and its body velocity
             η(t) = s(t) (q_ref(t) rotationᵀ ω, rotationᵀ u); s(t) the ramp factor, S = ∫₀ᵗ s
q_ref is the node's initial frame (for prescribed: its frame at t = 0).
Φ_t: with g = q_ref⁻¹ q = exp(ξ), g' = −η^ g = g (−Ad_{g⁻¹} η)^ and g' = g (T(ξ) ξ')^, so
ξ' = −T(ξ)⁻¹ Ad_{exp(−ξ)} η = −T(−ξ)⁻¹ η  (since Ad_{exp ξ} T(ξ) = T(−ξ)). Both B blocks are the exact derivatives along q_i ∘ exp(ε η)
(docs/architecture.md convention; x_i ∘ exp(εη) moves by ε R_i U).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

SUPPORT_KINDS = ("clamped", "pinned", "free", "prescribed")
SUPPORT_ROWS = {"clamped": 6, "pinned": 3, "free": 0, "prescribed": 6}
MOTION_KEYS = ("angular_velocity", "velocity", "ramp")


@dataclass(frozen=True)
class PrescribedMotion:
    """Rigid motion of a node: constant spatial angular velocity ω about the node and translation
    velocity u, both scaled by a smooth ramp factor s(t) = (1 − cos(π t / ramp))/2 for t < ramp, 1 after
    (ramp = 0: s ≡ 1). Time is absolute (the motion starts at t = 0 from the node's reference frame)."""

    angular_velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    ramp: float = 0.0

    def __post_init__(self) -> None:
        for name in ("angular_velocity", "velocity"):
            val = np.asarray(getattr(self, name), dtype=float)
            if val.shape != (3,) or not np.all(np.isfinite(val)):
                raise ValueError(f"prescribed motion {name} must be 3 finite numbers [x, y, z], got {getattr(self, name)!r}")
            object.__setattr__(self, name, tuple(float(x) for x in val))
        if not (np.isfinite(self.ramp) and self.ramp >= 0.0):
            raise ValueError(f"prescribed motion ramp must be a time >= 0 (0: no ramp), got {self.ramp!r}")

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> PrescribedMotion:
        """From a case table {angular_velocity = [..], velocity = [..], ramp = T}; unknown keys are errors."""
        if not isinstance(spec, dict):
            raise ValueError(f"prescribed motion must be a table with keys {', '.join(MOTION_KEYS)}, got {spec!r}")
        bad = sorted(set(spec) - set(MOTION_KEYS))
        if bad:
            raise ValueError(f"unknown prescribed-motion key(s) {', '.join(bad)}; valid keys: {', '.join(MOTION_KEYS)}")
        return cls(**{k: spec[k] for k in MOTION_KEYS if k in spec})

    def factor(self, t: float) -> tuple[float, float]:
        """(s(t), S(t) = ∫₀ᵗ s): the ramp factor and its integral."""
        T = self.ramp
        if T == 0.0 or t >= T:
            return 1.0, (t - 0.5 * T)
        if t <= 0.0:
            return 0.0, 0.0
        return 0.5 * (1.0 - np.cos(np.pi * t / T)), 0.5 * t - 0.5 * T / np.pi * np.sin(np.pi * t / T)


@dataclass(frozen=True)
class Support:
    """A support at ``node`` (index, negative from the end, or "start"/"end") of kind
    clamped|pinned|free|prescribed; ``motion`` (PrescribedMotion or a dict) only for prescribed."""

    node: int | str
    kind: str
    motion: PrescribedMotion | None = field(default=None)

    def __post_init__(self) -> None:
        if self.kind not in SUPPORT_KINDS:
            raise ValueError(
                f"unknown support kind {self.kind!r} at node {self.node!r}; use one of {', '.join(SUPPORT_KINDS)}"
            )
        if isinstance(self.motion, dict):
            object.__setattr__(self, "motion", PrescribedMotion.from_dict(self.motion))
        if self.kind == "prescribed" and self.motion is None:
            raise ValueError(f"prescribed support at node {self.node!r} needs a motion (angular_velocity, velocity, ramp)")
        if self.kind != "prescribed" and self.motion is not None:
            raise ValueError(f"support at node {self.node!r} is {self.kind!r}: a motion is only for kind 'prescribed'")

    @property
    def n_rows(self) -> int:
        return SUPPORT_ROWS[self.kind]


def resolve_supports(supports: tuple[Support, ...], node_index) -> tuple[tuple[int, str], ...]:  # noqa: ANN001
    """Resolve node references and reject contradictory supports (two supports on one node)."""
    seen: dict[int, str] = {}
    out = []
    for sup in supports:
        i = node_index(sup.node)
        if i in seen:
            raise ValueError(
                f"contradictory supports at node {i}: {seen[i]!r} and {sup.kind!r}; give one support per node"
            )
        seen[i] = sup.kind
        if sup.kind != "free":
            out.append((i, sup.kind))
    return tuple(out)
