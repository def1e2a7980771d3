"""The worker processes of `--jobs` (validate, export): one way to start them and to make them
leave Ctrl-C and termination to the main process."""

from __future__ import annotations

import signal
import sys
from typing import Any


def pool(workers: int) -> Any:
    """A multiprocessing pool of `workers` processes. Forked workers start in milliseconds, where
    spawned ones import the package again (about a third of a second each). Fork only from a
    process with no other thread (a program calling the library may run its own), and on Linux
    only: macOS forbids forking a process that has used some system frameworks."""
    import multiprocessing
    import threading

    alone = threading.active_count() == 1
    method = "fork" if alone and sys.platform.startswith("linux") else "spawn"
    return multiprocessing.get_context(method).Pool(workers, initializer=_in_worker)


def _in_worker() -> None:
    # Ctrl-C reaches the whole process group: the main process alone answers it (one line, and
    # the pool is terminated), instead of a traceback from every worker. Terminating the pool
    # (SIGTERM) ends a worker at once: a forked worker would otherwise run the handler that the
    # main process's atomic writing installed (writing.py).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
