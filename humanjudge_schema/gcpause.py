"""Pausing Python's cyclic garbage collector while millions of containers are made.

The package makes no reference cycles: reference counting frees everything it allocates. The
cyclic collector, though, runs whenever enough containers have been allocated and walks every
container still alive, so on a parsed 50 MB dataset (millions of lists and dicts) or a pass over
millions of judgments it would walk the same tree again and again: two to three times the parse
itself, half of a statistics pass.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector is left as it was found."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
