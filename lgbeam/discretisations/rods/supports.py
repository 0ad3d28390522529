"""Supports of a rod as constraint rows (nothing overwrites state values).

    clamped  Φ = log(q_ref⁻¹ q_i) ∈ R⁶,    B = T(Φ)⁻¹ on node i   (position and orientation fixed)
    pinned   Φ = x_i − x_ref ∈ R³,         B = [0, R_i] on node i  (position fixed, free rotation)
    free     no rows
q_ref is the node's initial frame. Both B blocks are the exact derivatives along q_i ∘ exp(ε η)
(docs/architecture.md convention; x_i ∘ exp(εη) moves by ε R_i U).
"""

from __future__ import annotations

from dataclasses import dataclass

SUPPORT_KINDS = ("clamped", "pinned", "free")
SUPPORT_ROWS = {"clamped": 6, "pinned": 3, "free": 0}


@dataclass(frozen=True)
class Support:
    """A support at ``node`` (index, negative from the end, or "start"/"end") of kind clamped|pinned|free."""

    node: int | str
    kind: str

    def __post_init__(self) -> None:
        if self.kind not in SUPPORT_KINDS:
            raise ValueError(
                f"unknown support kind {self.kind!r} at node {self.node!r}; use one of {', '.join(SUPPORT_KINDS)}"
            )

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
