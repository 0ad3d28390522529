"""``Solution``: the saved states of a run, its per-step record, and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.integrators.base import Status
from lgbeam.systems import MechanicalState


@dataclass(frozen=True)
class Solution:
    """What ``integrate`` returns.

    ``t`` (n_save,) and ``y`` the saved states, stacked along a leading axis: an array (n_save, ...) for
    flat states, a ``MechanicalState`` of stacked q, v, λ for mechanical systems (also ``sol.q``,
    ``sol.v``, ``sol.lam``). ``steps`` holds one row per attempted step (row 0: the initial state):
    t, h, err, accepted (0/1), iterations and the method's diagnostics (mechanical: phi, bv, energy;
    Poisson: energy); rejected rows have NaN diagnostics. ``status`` says why the run stopped, ``message``
    what happened and what to change; ``stats`` counts steps, rejections, evaluations, iterations, wall
    time, and the step sizes actually taken (``h_first``, ``h_last``, ``h_smallest``, ``h_largest``).
    ``summary`` holds running statistics of every column of ``steps`` over the accepted rows (first, last,
    min, max, sum, n) — also when the rows were streamed to a file (``steps`` is then empty); ``state`` is
    the driver's final ``LoopState`` (what a checkpoint holds).
    """

    t: FloatArray
    y: Any
    steps: dict[str, FloatArray]
    status: Status = Status.OK
    message: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, dict[str, float]] = field(default_factory=dict)
    state: Any = field(default=None, repr=False, compare=False)

    def _mech(self) -> MechanicalState:
        if not isinstance(self.y, MechanicalState):
            raise AttributeError("q, v and lam exist for mechanical systems only; use Solution.y")  # noqa: TRY004
        return self.y

    @property
    def q(self) -> FloatArray:
        return self._mech().q

    @property
    def v(self) -> FloatArray:
        return self._mech().v

    @property
    def lam(self) -> FloatArray:
        lam = self._mech().lam
        assert lam is not None
        return lam

    @property
    def accepted(self) -> FloatArray:
        """Boolean mask of the accepted rows of ``steps`` (row 0, the initial state, included)."""
        return np.asarray(self.steps["accepted"], dtype=bool)

    @property
    def iterations(self) -> FloatArray:
        """Nonlinear-solver iterations of each accepted step (the initial row excluded)."""
        return np.asarray(self.steps["iterations"])[self.accepted][1:]

    @property
    def n_steps(self) -> int:
        return int(self.stats.get("n_steps", 0))

    @property
    def final(self) -> Any:
        """The last saved state (a ``MechanicalState`` or an array)."""
        if isinstance(self.y, MechanicalState):
            lam = None if self.y.lam is None else self.y.lam[-1]
            return MechanicalState(self.y.q[-1], self.y.v[-1], lam)
        return self.y[-1]
