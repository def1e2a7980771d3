"""A progress bar on stderr for long runs, drawn only for a person at a terminal.

It stays silent when stderr is piped or redirected, in CI (`CI` is set), with `TERM=dumb`, and
for runs shorter than half a second, so a quick check, a pre-commit hook or a log never sees it.
Progress is weighed by bytes, so one large file counts for what it costs. The judgments commands
also count the judgments as they are read (`Bar.read`), so the line moves within one large
dataset, and its bytes move a file at a time.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .kinds import Unit

if TYPE_CHECKING:
    from .judgments.view import Batch, Judgments, Needs


def wanted(stream: TextIO, environ: dict[str, str] | None = None) -> bool:
    """Whether a bar belongs on this stream: a terminal, and not CI."""
    env = os.environ if environ is None else environ
    if env.get("CI") or env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def on_stderr(asked: bool | None, label: str = "") -> Bar | None:
    """A bar on stderr when `--progress` asks for one, or by default when one is `wanted` there;
    none with `--no-progress`."""
    return Bar(sys.stderr, label=label) if asked or (asked is None and wanted(sys.stderr)) else None


def views(
    found: Sequence[Unit],
    bar: Bar | None,
    view_of: Callable[[Unit], Any] | None = None,
    needs: Callable[[Judgments], Needs] | None = None,
) -> Iterator[Judgments]:
    """The judgments of each dataset (`judgments.views`, read for the pass `needs` says), drawn
    on `bar` as they are read: its first pass over the batches counted (a second pass, to locate
    what a finding is about, is not), the dataset done when the next one is asked for."""
    from dataclasses import replace

    from .judgments import views as read

    if bar is None:
        yield from read(found, view_of, needs)
        return
    bar.start(found)
    try:
        for unit in found:
            for view in read([unit], view_of, needs):
                yield replace(view, batches=_Counted(bar, unit, view))
            bar.done(unit)
    finally:
        bar.close()


class _Counted:
    """A view's batches: the first pass drawn on the bar, any other as it is."""

    def __init__(self, bar: Bar, unit: Unit, view: Judgments) -> None:
        self.bar, self.unit, self.view, self.first = bar, unit, view, True

    def __call__(self, needs: Needs | None = None) -> Iterator[Batch]:
        batches = self.view.in_batches() if needs is None else self.view.in_batches(needs)
        if not self.first:
            return batches
        self.first = False
        return self.bar.read(self.unit, batches)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


_SHOWN: list[Bar] = []  # the bars running now, so that a line said meanwhile can clear them first


def clear() -> None:
    """Take the bars off the terminal line before a line of text goes to stderr (they are drawn
    again at their next tick), so that the text starts a line of its own."""
    for bar in _SHOWN:
        with bar._lock:
            if bar.drawn:
                bar.stream.write("\r\x1b[K")
                bar.stream.flush()
                bar.drawn = False


class Bar:
    """Implements the `start` / `done` / `close` calls that `validate(progress=...)` makes, and
    `read`, which counts a dataset's judgments as they pass. `label` goes before the bar (what the
    run is doing, when a command makes more than one pass)."""

    DELAY = 0.5  # seconds before the first drawing: a quick run never shows a bar
    INTERVAL = 0.2

    def __init__(
        self,
        stream: TextIO,
        *,
        delay: float | None = None,
        interval: float | None = None,
        width: int = 24,
        label: str = "",
    ) -> None:
        self.stream = stream
        self.delay = self.DELAY if delay is None else delay
        self.interval = self.INTERVAL if interval is None else interval
        self.width = width
        self.label = label
        self.total = self.units = self.done_bytes = self.done_units = self.judgments = 0
        self.started = self.last_drawn = 0.0
        self.drawn = False
        self._partial = 0  # bytes of the dataset being read, counted before it is done
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
        _SHOWN.append(self)

    def done(self, unit: Unit) -> None:
        with self._lock:
            self.done_units += 1
            self.done_bytes += self._sizes.get(id(unit), 1) - self._partial
            self._partial = 0
        self._draw()

    def read(self, unit: Unit, batches: Iterable[Batch]) -> Iterator[Batch]:
        """The batches of one dataset's judgments, counted as they pass; a file's bytes count as
        done once the batches have moved past it (`done(unit)` counts the rest)."""
        from .readers.files import display_path

        sizes: dict[str | None, int] = {display_path(f): _size(f) for f in unit.files}
        current: str | None = None
        for batch in batches:
            files = {batch.same["file"]} if "file" in batch.same else set(batch.lists["file"])
            last = batch.same["file"] if "file" in batch.same else batch.lists["file"][-1] if batch.size else current
            with self._lock:
                self.judgments += batch.size
                for name in (files | {current}) - {last}:
                    moved = sizes.pop(name, 0)
                    self._partial += moved
                    self.done_bytes += moved
            current = last
            if time.monotonic() - self.last_drawn >= self.interval:
                self._draw()
            yield batch

    def close(self) -> None:
        if self in _SHOWN:
            _SHOWN.remove(self)
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
        read = f"  {self.judgments:,} judgments" if self.judgments else ""
        return (
            f"{self.label}[{bar}] {fraction:4.0%}  {self.done_units}/{self.units} datasets  "
            f"{_mb(self.done_bytes)}/{_mb(self.total)}{read}  {elapsed:.0f}s"
        )

    def _tick(self) -> None:
        while not self._stop.wait(max(self.interval, 0.05)):  # a line redrawn more often is not read
            self._draw()

    def _draw(self) -> None:
        if self._stop.is_set() or time.monotonic() - self.started < self.delay:
            return
        with self._lock:
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.stream.flush()
            self.drawn = True
            self.last_drawn = time.monotonic()


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.0f} kB"
