"""Timing and memory of whole commands, each in a fresh process, and the shapes every benchmark
runs over.

A benchmark (bench_<format>.py) names its shapes: data sets of one format that differ in how
they are made up (many small records or a few large ones, short or long label lists, ...), each
written by benchmarks/gen_<format>.py with a preset into benchmarks/data/<format>-<shape>/ (git
ignores benchmarks/data/), and regenerated when the generator or its arguments change. On each
shape it times, side by side and in alternation:

- `humanjudge validate` (best of --repeat runs);
- the floor: benchmarks/floor.py, parsing the same files and validating them with jsonschema-rs
  against the same schemas, nothing else (best of --repeat runs);
- the parse alone: floor.py --parse-only (best of --repeat runs);
- check-jsonschema with the same schemas on the same files (--cj-repeat runs, 1 by default: it
  takes tens of seconds), or on the same records written as one JSON array when the files are
  JSON Lines or CSV, which it cannot read;

and prints one row per shape: the times (best wall time, and peak memory of humanjudge), the
ratios, and whether each target holds: humanjudge within TARGET_FLOOR times the floor, and at
least TARGET_CJ times faster than check-jsonschema.

Every command is single-threaded, so on a quiet machine its CPU time (user + system) is its
wall time. On a shared one the wall time of a run depends on what else runs (a check-jsonschema
run of a minute meets other load than a humanjudge run of a second), while the CPU time hardly
does: the ratios are given both ways, and the targets are judged on CPU time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
TARGET_FLOOR = 2.0  # humanjudge validate at most this many times the floor
TARGET_CJ = 30.0  # and at least this many times faster than check-jsonschema

# Runs one command and reports its wall time, peak resident memory and CPU time (user + system):
# ru_maxrss of RUSAGE_CHILDREN is the largest child of *this* process, so each measurement needs
# a process of its own.
_PROBE = """
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
wall = time.perf_counter() - t
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, use.ru_maxrss, rc, use.ru_utime + use.ru_stime)
"""


def options(doc: str | None, data: Path | None, repeat: int) -> argparse.ArgumentParser:
    """The options every benchmark takes; add others before parsing."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=data, help="validate this instead of the generated shapes")
    ap.add_argument("--repeat", type=int, default=repeat, help="runs of humanjudge and the floors (best is kept)")
    ap.add_argument("--json", help="also write the figures to this file")
    return ap


def shape_options(doc: str | None, shapes: Sequence[str], repeat: int = 3) -> argparse.ArgumentParser:
    ap = options(doc, None, repeat)
    ap.add_argument(
        "--shape", action="append", choices=list(shapes), help="run this shape (repeatable; all by default)"
    )
    ap.add_argument("--cj-repeat", type=int, default=1, help="runs of check-jsonschema per shape")
    ap.add_argument("--no-cj", action="store_true", help="leave check-jsonschema out (a quick run)")
    ap.add_argument("--regenerate", action="store_true", help="write the data again even if it is there")
    return ap


def tool(name: str) -> str:
    """Path of a command of the bench environment, or exit with how to install it."""
    found = shutil.which(name)
    if found is None:
        sys.exit(f"{name} is not installed (pip install -e '.[bench]')")
    return found


# --- generated data ---------------------------------------------------------------------------


def generate(script: str, out: Path, made: Path, *args: str, force: bool = False) -> None:
    """Run benchmarks/<script> OUT ARGS... to write `out`, unless `made` (a file it writes) is
    there from the same generator with the same arguments (a stamp next to `out` records them)."""
    source = (HERE / script).read_bytes()
    stamp = {"script": script, "args": list(args), "sha256": hashlib.sha256(source).hexdigest()}
    stamp_file = out.parent / f".{out.name}.generated.json"
    same = not stamp_file.exists() or json.loads(stamp_file.read_text()) == stamp
    if not force and made.exists() and same:
        return  # (no stamp: written by hand or by an older harness, and left alone)
    subprocess.run([sys.executable, str(HERE / script), str(out), *args], check=True)
    stamp_file.write_text(json.dumps(stamp) + "\n")


def jsonl_as_json(src: Path, dst: Path) -> Path:
    """The records of a JSON Lines file (gzip too) as one JSON array, for check-jsonschema."""
    import gzip

    if dst.exists() and dst.stat().st_mtime >= src.stat().st_mtime:
        return dst
    opener = gzip.open if src.suffix == ".gz" else open
    dst.parent.mkdir(parents=True, exist_ok=True)
    with opener(src, "rb") as f, open(dst, "wb") as out:  # type: ignore[operator]
        out.write(b"[")
        first = True
        for line in f:
            if line.strip():
                out.write(line.rstrip() if first else b"," + line.rstrip())
                first = False
        out.write(b"]\n")
    return dst


def array_schema(schema: Path, dst: Path) -> Path:
    """A schema for a JSON array whose every item is valid against `schema` (by reference)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    wrapper = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "items": {"$ref": schema.resolve().as_uri()},
    }
    dst.write_text(json.dumps(wrapper, indent=1) + "\n")
    return dst


# --- measuring --------------------------------------------------------------------------------


@dataclass
class Figures:
    """Best wall and CPU seconds, peak memory in MB and exit code of a command over its runs (of
    several commands run one after the other, such as check-jsonschema once per file: the sums
    of their best times, the largest peak)."""

    wall: float = float("inf")
    cpu: float = float("inf")
    mb: float = 0.0
    rc: int = 0
    runs: int = 0
    walls: list[float] = field(default_factory=list)

    def add(self, wall: float, cpu: float, mb: float, rc: int) -> None:
        self.wall, self.cpu, self.mb = min(self.wall, wall), min(self.cpu, cpu), max(self.mb, mb)
        self.rc = rc or self.rc
        self.runs += 1
        self.walls.append(round(wall, 4))


def probe(cmd: Sequence[str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak RSS in MB, exit code) of one run of a command."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *cmd], capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), float(out[3]), int(out[1]) / 1024, int(out[2])


def measure(cmd: Sequence[str], repeat: int = 3) -> tuple[float, float, int]:
    """(best wall seconds, peak RSS in MB, exit code) of a command."""
    f = Figures()
    for _ in range(repeat):
        f.add(*probe(cmd))
    return f.wall, f.mb, f.rc


def side_by_side(commands: dict[str, tuple[list[list[str]], int]]) -> dict[str, Figures]:
    """Run each command (label -> (the command lines it runs one after the other, runs)) in
    rounds, one run of each per round, so that a change of load on the machine falls on all of
    them alike."""
    parts: dict[str, list[Figures]] = {label: [Figures() for _ in cmds] for label, (cmds, _) in commands.items()}
    for r in range(max(n for _, n in commands.values())):
        for label, (cmds, n) in commands.items():
            if r < n:
                for cmd, f in zip(cmds, parts[label], strict=True):
                    f.add(*probe(cmd))
    out = {}
    for label, figs in parts.items():
        total = Figures(
            wall=sum(f.wall for f in figs),
            cpu=sum(f.cpu for f in figs),
            mb=max(f.mb for f in figs),
            rc=max(f.rc for f in figs),
            runs=min(f.runs for f in figs),
        )
        total.walls = [round(sum(w), 4) for w in zip(*(f.walls for f in figs), strict=True)]
        out[label] = total
    return out


# --- one row per shape ------------------------------------------------------------------------


@dataclass
class Shape:
    """A data set to validate and how to compare: `humanjudge` is the command line of the
    validation, `floor` the arguments of floor.py, `cj` the check-jsonschema command lines
    (run one after the other, their times summed); `prepare` writes the data when needed."""

    name: str
    what: str
    path: Path
    humanjudge: list[str]
    floor: list[str]
    cj: Callable[[], list[list[str]]]
    prepare: Callable[[bool], None] = lambda force: None
    others: Callable[[], dict[str, list[list[str]]]] = dict  # more tools to compare, run as often as ours


HEADER = (
    f"{'shape':<20} {'MB':>6} {'humanjudge':>10} {'MB':>5} {'floor':>6} {'parse':>6} {'check-js':>8}"
    f" {'x floor':>7} {'vs cj':>6} {'cpu:':>5} {'x floor':>7} {'vs cj':>6}  {'<=2x floor':<10} {'>=30x cj':<8}"
)
LEGEND = """
MB: the files on disk; humanjudge: seconds (best wall time) and peak MB; floor: parse +
jsonschema-rs validation, nothing else (benchmarks/floor.py); parse: the parse alone;
check-js: check-jsonschema with the same schemas; x floor: humanjudge / floor; vs cj:
check-jsonschema / humanjudge, by wall time, then (cpu:) by CPU time (user + system), which
depends less on the load of the machine. Targets, judged on CPU time: at most {floor:g}x the
floor, at least {cj:g}x faster than check-jsonschema."""


def size_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1e6
    return sum(p.stat().st_size for p in path.iterdir() if p.is_file()) / 1e6


def _verdict(ok: bool | None) -> str:
    return "-" if ok is None else "yes" if ok else "NO"


def run_shapes(fmt: str, shapes: list[Shape], args: argparse.Namespace) -> dict[str, object]:
    """Measure every shape and print its row; returns the figures (also written to --json)."""
    floor_script = [sys.executable, str(HERE / "floor.py")]
    cj_repeat = 0 if getattr(args, "no_cj", False) else getattr(args, "cj_repeat", 1)
    for shape in shapes:  # first, so that the generators' messages come before the table
        shape.prepare(getattr(args, "regenerate", False))
    print(f"\n{fmt}: best of {args.repeat} runs (check-jsonschema: {cj_repeat or 'left out'})\n")
    print(HEADER)
    results: dict[str, object] = {}
    started = time.perf_counter()
    for shape in shapes:
        commands: dict[str, tuple[list[list[str]], int]] = {
            "humanjudge": ([shape.humanjudge], args.repeat),
            "floor": ([[*floor_script, *shape.floor]], args.repeat),
            "parse": ([[*floor_script, *shape.floor, "--parse-only"]], args.repeat),
        }
        if cj_repeat:
            commands["check-jsonschema"] = (shape.cj(), cj_repeat)
        others = shape.others()
        for label, cmds in others.items():
            commands[label] = (cmds, args.repeat)
        got = side_by_side(commands)
        ours, floor, parse = got["humanjudge"], got["floor"], got["parse"]
        cj = got.get("check-jsonschema")
        row: dict[str, object] = {"what": shape.what, "mb": size_mb(shape.path)}
        for label, f in got.items():
            row[label] = asdict(f)
        row["ratio_floor"] = ratio = ours.wall / floor.wall
        row["ratio_floor_cpu"] = ratio_cpu = ours.cpu / floor.cpu
        row["ratio_parse"] = ours.wall / parse.wall
        speedup = speedup_cpu = None
        if cj is not None:
            row["speedup_cj"] = speedup = cj.wall / ours.wall
            row["speedup_cj_cpu"] = speedup_cpu = cj.cpu / ours.cpu
        ok_floor = ratio_cpu <= TARGET_FLOOR
        ok_cj = None if speedup_cpu is None else speedup_cpu >= TARGET_CJ
        row["targets"] = {"floor": ok_floor, "check_jsonschema": ok_cj}
        print(
            f"{shape.name:<20} {row['mb']:>6.1f} {ours.wall:>10.3f} {ours.mb:>5.0f} {floor.wall:>6.3f}"
            f" {parse.wall:>6.3f} {'-' if cj is None else f'{cj.wall:.1f}':>8} {ratio:>7.2f}"
            f" {'-' if speedup is None else f'{speedup:.1f}':>6} {'':>5} {ratio_cpu:>7.2f}"
            f" {'-' if speedup_cpu is None else f'{speedup_cpu:.1f}':>6}"
            f"  {_verdict(ok_floor):<10} {_verdict(ok_cj):<8}",
            flush=True,
        )
        failed = [f"{label} exited {f.rc}" for label, f in got.items() if f.rc != 0]
        if failed:
            print(f"{'':<20} {', '.join(failed)}")
        for label in others:
            f = got[label]
            row[f"speedup_{label}"] = f.wall / ours.wall
            print(f"{'':<20} {label}: {f.wall:.3f} s, {f.mb:.0f} MB: {f.wall / ours.wall:.1f}x humanjudge")
        results[shape.name] = row
    took = time.perf_counter() - started
    print(LEGEND.format(floor=TARGET_FLOOR, cj=TARGET_CJ))
    print(f"{len(shapes)} shapes in {took:.0f} s")
    return results


def pick(shapes: dict[str, Shape], args: argparse.Namespace) -> list[Shape]:
    return [shapes[name] for name in (args.shape or shapes)]


def report(results: dict[str, object], path: str | None) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")


def row(label: str, seconds: float, rss_mb: float, extra: str = "") -> str:
    return f"{label:<44} {seconds:>9.3f} s {rss_mb:>8.1f} MB  {extra}"


def timed(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best
