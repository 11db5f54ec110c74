"""Where a recall's time goes, stage by stage, when a benchmark asks; off otherwise."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

# In the order a recall runs them. The query embedding runs on a worker thread while the
# text searches run: "embed wait" is what the recall still waited for it, "embedding" its
# own time (which overlaps the stages before the wait).
STAGES = (
    "query",
    "lexical",
    "embed wait",
    "dense",
    "candidates",
    "assemble",
    "embedding",
)
_TOTALS: ContextVar[dict[str, float] | None] = ContextVar("recall_stages", default=None)


@contextlib.contextmanager
def stage_times() -> Iterator[dict[str, float]]:
    """Within the block, recalls on this thread add the seconds each stage took to the
    yielded dict (keys from :data:`STAGES`)."""
    totals: dict[str, float] = {}
    token = _TOTALS.set(totals)
    try:
        yield totals
    finally:
        _TOTALS.reset(token)


class Clock:
    """Laps of one recall, added to the totals of :func:`stage_times` when it is on."""

    __slots__ = ("_last", "_totals")

    def __init__(self) -> None:
        self._totals = _TOTALS.get()
        self._last = time.perf_counter() if self._totals is not None else 0.0

    def lap(self, stage: str) -> None:
        """The time since the last lap goes to ``stage``."""
        if self._totals is not None:
            now = time.perf_counter()
            self._totals[stage] = self._totals.get(stage, 0.0) + now - self._last
            self._last = now

    def add(self, stage: str, seconds: float) -> None:
        """Time measured elsewhere (on another thread) goes to ``stage``."""
        if self._totals is not None:
            self._totals[stage] = self._totals.get(stage, 0.0) + seconds
