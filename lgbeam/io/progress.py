"""A progress bar over simulated time for long runs (tqdm), silent when not on a terminal.

The whole API an app needs::

    from lgbeam.io.progress import Progress
    bar = Progress(t0, t_end, enabled=progress)   # progress: the flag app.run() receives
    ...
    bar.update(t, h, n_accepted, n_rejected)      # after each step (cheap; throttled)
    bar.close()

``Progress`` is also a context manager. It shows the simulated time ``t`` out of ``t_end``, the
current step size, accepted/rejected steps and tqdm's ETA. It draws nothing when ``enabled`` is
false (``--quiet``) or when stderr is not a terminal (pipes, CI, log files).
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Self

__all__ = ["Progress"]


class Progress:
    """Progress over simulated time ``[t0, t_end]``; see the module docstring."""

    def __init__(self, t0: float, t_end: float, enabled: bool = True, *, desc: str = "t", min_interval: float = 0.2):
        if not t_end > t0:
            raise ValueError(f"need t_end > t0, got t0 = {t0}, t_end = {t_end}; set time.t_end larger than time.t0")
        self.t0, self.t_end = float(t0), float(t_end)
        self.enabled = bool(enabled) and sys.stderr.isatty()
        self._bar = None
        self._last = 0.0
        self._min_interval = min_interval
        if self.enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=self.t_end - self.t0, desc=desc, unit="s(sim)", file=sys.stderr,
                             bar_format="{desc} {n:.4g}/{total:.4g} |{bar}| {postfix} [{elapsed}<{remaining}]",
                             dynamic_ncols=True, leave=True)

    def update(self, t: float, h: float, n_accepted: int, n_rejected: int = 0) -> None:
        """Report that the integration has reached time ``t`` with step size ``h``."""
        if self._bar is None:
            return
        now = time.monotonic()
        if now - self._last < self._min_interval and t < self.t_end:
            return
        self._last = now
        self._bar.n = min(max(float(t) - self.t0, 0.0), self.t_end - self.t0)
        self._bar.set_postfix_str(f"h={h:.3g} acc={n_accepted} rej={n_rejected}", refresh=False)
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
