"""A progress line on standard error for long `--check` runs in a terminal.

Shown only when standard error is a terminal, the output is for people (text or
github format) and the run has already taken `DELAY` seconds, so short runs, pipes,
CI logs and JSON/SARIF consumers never see it. It is one line redrawn in place
(`files done/total`, files per second) and erased when the run ends.
"""

from __future__ import annotations

import time
from typing import Callable, TextIO

# Seconds before the bar first appears, and between redraws.
DELAY = 1.0
INTERVAL = 0.1
HUMAN_FORMATS = ("text", "github")


def wanted(stream: TextIO, output_format: str, quiet: bool = False) -> bool:
    if quiet or output_format not in HUMAN_FORMATS:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class Progress:
    """`advance(n)` as files finish; `close()` erases the line. Never raises on a broken stream."""

    def __init__(self, total: int, stream: TextIO, clock: Callable[[], float] = time.monotonic,
                 delay: float | None = None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.delay = DELAY if delay is None else delay
        self.drawn_at: float | None = None
        self.width = 0

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = self.clock()
        if now - self.started < self.delay:
            return
        if self.drawn_at is not None and now - self.drawn_at < INTERVAL and self.done < self.total:
            return
        self.drawn_at = now
        self._write("\r" + self.line(now).ljust(self.width))

    def line(self, now: float) -> str:
        elapsed = max(now - self.started, 1e-9)
        share = self.done / self.total if self.total else 1.0
        filled = int(share * 24)
        bar = "#" * filled + "-" * (24 - filled)
        line = (f"checking [{bar}] {self.done}/{self.total} files "
                f"{self.done / elapsed:,.0f} files/s")
        self.width = max(self.width, len(line))
        return line

    def close(self) -> None:
        if self.drawn_at is not None:
            self._write("\r" + " " * self.width + "\r")
            self.drawn_at = None

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.delay = float("inf")  # the terminal went away: stop drawing
