"""What the judgments commands cost beside `humanjudge validate`, on the large generated data of
every format (the baseline shape of each format's benchmark; study 1: the published files when
the corpus is beside the checkout):

    pip install -e '.[bench,test]'
    python benchmarks/bench_judgments.py              # every format
    python benchmarks/bench_judgments.py --format coggym --repeat 1

Per data set, best of --repeat runs, in alternation: validate; export to CSV and to JSON Lines
(into a file); stats (with --samples 200); report (with --samples 200). Printed: seconds, peak
MB, the number of judgments exported, and each command's time as a multiple of validate's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import bench_coggym
import bench_halie
import bench_textjudge
from harness import DATA, ROOT, side_by_side, tool

STUDY1 = ROOT.parent / "shared" / "corpus" / "study1" / "raw"


def data_sets(hj: str, cj: str) -> dict[str, Path]:
    """format -> the folder or file to run on, written first when missing."""
    out: dict[str, Path] = {}
    tj = bench_textjudge.shape("baseline", DATA / "textjudge-baseline" / "dataset.json", "", hj, cj, preset="baseline")
    tj.prepare(False)
    out["textjudge"] = tj.path
    cg = bench_coggym.shape("baseline", DATA / "coggym-baseline", "", hj, cj, preset="baseline")
    cg.prepare(False)
    out["coggym"] = cg.path
    ha = bench_halie.shape("baseline", DATA / "halie-baseline", "", hj, cj, None, "crossword", preset="baseline")
    ha.prepare(False)
    out["halie"] = ha.path
    if STUDY1.is_dir():
        out["study1"] = STUDY1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", action="append", choices=["textjudge", "coggym", "halie", "study1"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    hj, cj = tool("humanjudge"), tool("check-jsonschema")
    sets = data_sets(hj, cj)
    out = Path(tempfile.mkdtemp())
    print(f"{'format':<10} {'command':<14} {'seconds':>8} {'MB':>6} {'x validate':>10}")
    for fmt, path in sets.items():
        if args.format and fmt not in args.format:
            continue
        commands = {
            "validate": [hj, "validate", str(path)],
            "export csv": [hj, "export", str(path), "-o", str(out / "rows.csv"), "--force"],
            "export jsonl": [hj, "export", str(path), "--to", "jsonl", "-o", str(out / "rows.jsonl"), "--force"],
            "stats": [hj, "stats", str(path), "--samples", "200", "--format", "json"],
            "report": [hj, "report", str(path), "--samples", "200", "-o", str(out / "report.html"), "--force"],
        }
        figures = side_by_side({label: ([cmd], args.repeat) for label, cmd in commands.items()})
        base = figures["validate"].cpu
        for label, f in figures.items():
            print(f"{fmt:<10} {label:<14} {f.wall:>8.2f} {f.mb:>6.0f} {f.cpu / base:>10.1f}")
        rows = sum(1 for _ in (out / "rows.csv").open()) - 1
        print(f"{fmt:<10} {'(rows)':<14} {rows:>8,}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
