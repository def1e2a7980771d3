"""Pausing Python's cyclic garbage collector while millions of containers are made.

The package makes no reference cycles: reference counting frees everything it allocates. The
cyclic collector, though, runs whenever enough containers have been allocated and walks every
container still alive, so on a parsed 50 MB dataset (millions of lists and dicts) or a pass over
millions of judgments it would walk the same tree again and again: two to three times the parse
itself, half of a statistics pass.

What such a block leaves alive (the parsed files a view reads again, the columns of a pass) is
still young to the collector: the first collections after it walk all of it once, and again as
it ages. The console command, which owns its process, asks (`freeze_kept`) that what is alive at
the end of a block be frozen instead (`gc.freeze`): never walked, still freed by reference
counting. On CogGym's 52 MB data, 0.04 s after the parse, 0.05 s and 0.03 s in `stats`
(docs/performance.md). A program that imports the library keeps its own collector as it was.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Set by the console command only (`freeze_kept`).
_FREEZE = [False]


def freeze_kept() -> None:
    """From now on, what a paused block leaves alive is frozen at its end (the console's choice:
    the package makes no reference cycles, and the process ends with the command)."""
    _FREEZE[0] = True


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector is left as it was found (and, in the
    console, what the block leaves alive frozen: `freeze_kept`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if _FREEZE[0]:
                gc.freeze()
            gc.enable()
