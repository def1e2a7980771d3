"""The C heap of the console command that writes an export: glibc's malloc asked to keep what a
writer frees for the next slice of rows, instead of giving it back to the system and faulting it
in again.

A writer joins each slice of rows into one bytes object of a few hundred kB and frees it; glibc
gives the top of its heap back when more than 128 kB of it is free (a threshold it raises only
after a large block is freed from its own mapping), and every page asked for again is a fault.
On HALIE's 26 MB data the JSON Lines export took 36,000 page faults where CSV took 8,000 (0.05 s
of system time, a tenth of the run); TextJudge's rows in slices of 2,048 took 7.3 million. With
the heap kept (64 MB at its top, blocks below 32 MB from the heap), 7,200 and 29,000
(docs/performance.md). Only on Linux with glibc, only where the user set none of glibc's own
variables for it, and only by the console command: a program that imports the library keeps its
own heap."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

# glibc's variables for the same settings: the user's choice, which is then left as it is
_VARIABLES = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (malloc.h)


def keep_freed(environ: Mapping[str, str] = os.environ) -> bool:
    """Ask glibc's malloc to keep up to 64 MB free at the top of its heap and to serve blocks
    below 32 MB from the heap; whether it was asked (False elsewhere than glibc, or where the
    user chose)."""
    if not sys.platform.startswith("linux") or any(name in environ for name in _VARIABLES):
        return False
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        return False
    if not libc.startswith("glibc"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    # both set: setting one stops glibc's own raising of the other
    return bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20)) and bool(mallopt(_M_TRIM_THRESHOLD, 64 << 20))
