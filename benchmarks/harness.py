"""Timing and memory of whole commands, each in a fresh process, best of N runs."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Runs one command and reports its peak resident memory: ru_maxrss of RUSAGE_CHILDREN is the
# largest child of *this* process, so each measurement needs a process of its own.
_PROBE = """
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)
"""


def options(doc: str | None, data: Path, repeat: int) -> argparse.ArgumentParser:
    """The options every benchmark takes (--data, --repeat, --json); add others before parsing."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=data)
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument("--json", help="also write the figures to this file")
    return ap


def generate(script: str, out: Path, made: Path) -> None:
    """Run benchmarks/<script> to write `out` unless `made` (a file it writes) is there."""
    if not made.exists():
        subprocess.run([sys.executable, str(HERE / script), str(out)], check=True)


def tool(name: str) -> str:
    """Path of a command of the bench environment, or exit with how to install it."""
    found = shutil.which(name)
    if found is None:
        sys.exit(f"{name} is not installed (pip install -e '.[bench]')")
    return found


def measure(cmd: Sequence[str], repeat: int = 3) -> tuple[float, float, int]:
    """(best wall seconds, peak RSS in MB, exit code) of a command."""
    best, peak, code = float("inf"), 0.0, 0
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, *cmd], capture_output=True, text=True, check=True
        ).stdout.split()
        seconds, rss_kb, code = float(out[0]), int(out[1]), int(out[2])
        best, peak = min(best, seconds), max(peak, rss_kb / 1024)
    return best, peak, code


def row(label: str, seconds: float, rss_mb: float, extra: str = "") -> str:
    return f"{label:<44} {seconds:>9.3f} s {rss_mb:>8.1f} MB  {extra}"


def report(results: dict[str, object], path: str | None) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")


def timed(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best
