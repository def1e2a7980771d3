"""The worker processes of `--jobs` (validate, export, stats, report): how many, one way to start
them and to make them leave Ctrl-C and termination to the main process, and the order to hand
datasets out in (largest first, so that the last one started is not the longest)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .kinds import Unit


def jobs_of(jobs: int) -> int:
    """--jobs N: N processes, 0 one per CPU core."""
    return (os.cpu_count() or 1) if jobs <= 0 else jobs


def size_of(unit: Unit) -> int:
    """The bytes of a dataset's files (a file that cannot be read counts nothing)."""
    total = 0
    for f in unit.files:
        with contextlib.suppress(OSError):
            total += f.stat().st_size
    return total


def pool(workers: int) -> Any:
    """A multiprocessing pool of `workers` processes. Forked workers start in milliseconds, where
    spawned ones import the package again (about a third of a second each). Fork only from a
    process with no other thread (a program calling the library may run its own), and on Linux
    only: macOS forbids forking a process that has used some system frameworks."""
    import multiprocessing
    import threading

    alone = threading.active_count() == 1
    method = "fork" if alone and sys.platform.startswith("linux") else "spawn"
    # A Ctrl-C while a worker starts reaches it before it can ignore Ctrl-C (_in_worker): Python
    # code a new process runs first (threading's after-fork hook) would print a traceback. The
    # workers are started with Ctrl-C held back, and take it up once they ignore it; the main
    # process gets one that came meanwhile as soon as they have started.
    held = hasattr(signal, "pthread_sigmask")
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if held else None
    try:
        return multiprocessing.get_context(method).Pool(workers, initializer=_in_worker)
    finally:
        if before is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _in_worker() -> None:
    # Ctrl-C reaches the whole process group: the main process alone answers it (one line, and
    # the pool is terminated), instead of a traceback from every worker. Terminating the pool
    # (SIGTERM) ends a worker at once: a forked worker would otherwise run the handler that the
    # main process's atomic writing installed (writing.py).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held back while it started (pool)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
