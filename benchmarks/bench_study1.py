"""Study 1: `humanjudge validate` on the real study-1 files (the writing log is 3.6 MB of gzip,
235 MB of JSON Lines) side by side with the read-and-parse floor: gzip and orjson, one line at a
time, nothing checked.

    pip install -e '.[bench]'
    python benchmarks/bench_study1.py [--data ../shared/corpus/study1/raw]

Targets: within 3x of the floor; peak memory below 150 MB (the log is streamed).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from harness import measure, options, report, row, tool

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = Path(os.environ.get("HUMANJUDGE_CORPUS", ROOT.parent / "shared" / "corpus"))
HUMAN = "study1_responses_human.jsonl.gz"
FILES = ("study1_tasks.jsonl.gz", "study1_retrieval.jsonl.gz", "study1_responses_llm.jsonl.gz", HUMAN)

FLOOR = """
import gc, gzip, sys
import orjson
gc.disable()
n = 0
for path in sys.argv[1:]:
    with gzip.open(path, "rb") as f:
        for line in f:
            orjson.loads(line)
            n += 1
print(n)
"""


def main() -> None:
    args = options(__doc__, CORPUS / "study1" / "raw", 5).parse_args()
    if not (args.data / HUMAN).exists():
        sys.exit(f"no {HUMAN} in {args.data} (give the folder of the study-1 files with --data)")
    hj = tool("humanjudge")
    import gzip

    with gzip.open(args.data / HUMAN, "rb") as f:
        size = sum(len(chunk) for chunk in iter(lambda: f.read(1 << 20), b""))
    mb = size / 1e6
    paths = [str(args.data / name) for name in FILES if (args.data / name).exists()]

    print(f"{HUMAN}: {(args.data / HUMAN).stat().st_size / 1e6:.1f} MB gzip, {mb:.0f} MB of JSON Lines")
    print(f"best of {args.repeat} runs\n")
    floor_log, floor_log_mem, _ = measure([sys.executable, "-c", FLOOR, str(args.data / HUMAN)], args.repeat)
    floor_all, floor_all_mem, _ = measure([sys.executable, "-c", FLOOR, *paths], args.repeat)
    ours, ours_mem, rc = measure([hj, "validate", str(args.data)], args.repeat)
    schema_only, schema_only_mem, _ = measure([hj, "validate", "--select", "parse,schema", str(args.data)], args.repeat)
    print(row("floor: gzip + orjson per line, the log", floor_log, floor_log_mem))
    print(row("floor: gzip + orjson per line, all 4 files", floor_all, floor_all_mem))
    print(row("humanjudge validate <folder> (all rules)", ours, ours_mem, f"exit {rc}, {mb / ours:.0f} MB/s"))
    print(row("humanjudge validate --select parse,schema", schema_only, schema_only_mem))
    print(f"\n  humanjudge / floor (all 4 files): {ours / floor_all:.2f}x (target <= 3)")
    print(f"  peak memory: {ours_mem:.0f} MB (target < 150 MB)")
    report(
        {
            "log_mb": mb,
            "floor_log_s": floor_log,
            "floor_all_s": floor_all,
            "floor_all_mb": floor_all_mem,
            "humanjudge_s": ours,
            "humanjudge_mb": ours_mem,
            "schema_only_s": schema_only,
            "ratio_to_floor": ours / floor_all,
        },
        args.json,
    )


if __name__ == "__main__":
    main()
