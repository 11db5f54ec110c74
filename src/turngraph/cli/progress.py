"""Progress of a long command (import, copy, remember from a file, bench) on stderr.

On a terminal it is one line, rewritten in place as the work goes on (and ended when the
command ends); otherwise, for a log or a pipe, each report is a line of its own."""

from __future__ import annotations

import atexit
import sys
import time


class Progress:
    """Reports of a long command; ``show(text)`` for each, ``done()`` at the end."""

    def __init__(self) -> None:
        self._live = False
        self._started = time.monotonic()

    def show(self, text: str) -> None:
        stream = sys.stderr
        if not stream.isatty():
            print(text, file=stream, flush=True)
            return
        elapsed = time.monotonic() - self._started
        line = f"{text} ({elapsed:.0f} s)"
        width = max(len(line), 20)
        print(f"\r{line.ljust(width)}", end="", file=stream, flush=True)
        if not self._live:
            self._live = True
            atexit.register(self.done)

    def done(self) -> None:
        """End the line a terminal was shown (nothing to do otherwise)."""
        if self._live:
            print(file=sys.stderr, flush=True)
            self._live = False


PROGRESS = Progress()


def show(text: str) -> None:
    """Report progress of the command that is running."""
    PROGRESS.show(text)
