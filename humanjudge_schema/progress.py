"""A progress bar on stderr for long runs, drawn only for a person at a terminal.

It stays silent when stderr is piped or redirected, in CI (`CI` is set), with `TERM=dumb`, and
for runs shorter than half a second, so a quick check, a pre-commit hook or a log never sees it.
Progress is weighed by bytes, so one large file counts for what it costs.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from .kinds import Unit


def wanted(stream: TextIO, environ: dict[str, str] | None = None) -> bool:
    """Whether a bar belongs on this stream: a terminal, and not CI."""
    env = os.environ if environ is None else environ
    if env.get("CI") or env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


class Bar:
    """Implements the `start` / `done` / `close` calls that `validate(progress=...)` makes."""

    def __init__(self, stream: TextIO, *, delay: float = 0.5, interval: float = 0.2, width: int = 24) -> None:
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.width = width
        self.total = self.units = self.done_bytes = self.done_units = 0
        self.started = 0.0
        self.drawn = False
        self._sizes: dict[int, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, units: Sequence[Unit]) -> None:
        self.units = len(units)
        # every unit weighs at least one byte, so a run of empty files still advances
        self._sizes = {id(u): max(1, sum(_size(f) for f in u.files)) for u in units}
        self.total = sum(self._sizes.values())
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._tick, name="humanjudge-progress", daemon=True)
        self._thread.start()

    def done(self, unit: Unit) -> None:
        with self._lock:
            self.done_units += 1
            self.done_bytes += self._sizes.get(id(unit), 1)
        self._draw()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if self.drawn:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self.drawn = False

    def line(self) -> str:
        fraction = self.done_bytes / self.total if self.total else 1.0
        filled = int(fraction * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = time.monotonic() - self.started
        return (
            f"[{bar}] {fraction:4.0%}  {self.done_units}/{self.units} datasets  "
            f"{_mb(self.done_bytes)}/{_mb(self.total)}  {elapsed:.0f}s"
        )

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._draw()

    def _draw(self) -> None:
        if self._stop.is_set() or time.monotonic() - self.started < self.delay:
            return
        with self._lock:
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.stream.flush()
            self.drawn = True


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.0f} kB"
