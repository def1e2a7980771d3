"""A declared CSV format against the HALIE path on the same bytes: the HALIE crossword task
folder of benchmarks/gen_halie.py (`baseline`: 25 MB of event blocks), and a copy of its three
files (under other names) declared in a `humanjudge-format.toml` with HALIE's own row schemas (the event blocks' clue
direction and the survey's ratings as judgments, the accuracies a file with none), so that each path
reads the same cells against the same schemas. `validate` and `export` of each, every command in
a fresh process, best of --repeat runs by CPU time.

    python benchmarks/bench_declared.py                 # the baseline shape
    python benchmarks/bench_declared.py --repeat 5

Target: the declared folder costs at most 1.5x the HALIE folder, for validate and for export.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

from harness import DATA, ROOT, Figures, generate, probe, tool

TARGET = 1.5
SCHEMAS = ROOT / "schemas" / "halie" / "v1" / "crossword"
FILES = {"event_blocks.csv": "event-blocks", "survey_responses.csv": "survey-responses", "accuracies.csv": "accuracies"}
# The copies' names: HALIE's own would make the folder a HALIE task folder too.
NAMES = {"event_blocks.csv": "events.csv", "survey_responses.csv": "survey.csv", "accuracies.csv": "scores.csv"}

DECLARATION = """declaration = 1
name = "bench-halie-crossword"

[files.events]
name = "events.csv"
type = "csv"
schema = "event-blocks.schema.json"

[files.survey]
name = "survey.csv"
type = "csv"
schema = "survey-responses.schema.json"

[files.accuracies]
name = "scores.csv"
type = "csv"
schema = "accuracies.schema.json"
required = false

[questions.fluency]
level = "ordinal"
[questions.helpfulness]
level = "ordinal"
[questions.ease]
level = "ordinal"
[questions.joy]
level = "ordinal"

[[judgments]]
file = "events"
item = ["session_id", "order_id"]
rater = "worker_id"
question = "clue_direction"
value = "clue_direction"

[[judgments]]
file = "survey"
item = "session_id"
rater = "worker_id"
questions = { fluency = "fluency", helpfulness = "helpfulness", ease = "ease", joy = "joy" }
"""


def declared_copy(halie: Path, out: Path) -> Path:
    """The HALIE folder's files, hard-linked where they can be, with the declaration and the
    row schemas beside them."""
    out.mkdir(parents=True, exist_ok=True)
    for name, schema in FILES.items():
        target = out / NAMES[name]
        if not target.exists():
            try:
                os.link(halie / name, target)
            except OSError:
                shutil.copy(halie / name, target)
        shutil.copy(SCHEMAS / f"{schema}.schema.json", out / f"{schema}.schema.json")
    (out / "humanjudge-format.toml").write_text(DECLARATION)
    return out


def best(cmd: list[str], repeat: int) -> Figures:
    found = Figures()
    for _ in range(repeat):
        found.add(*probe(cmd))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    halie = DATA / "halie-baseline"
    generate("gen_halie.py", halie, halie / "accuracies.csv", "--preset", "baseline")
    declared = declared_copy(halie, DATA / "declared-halie-baseline")
    hj = tool("humanjudge")
    out = DATA / "declared-bench-export.csv"
    results: dict[str, object] = {}
    print(f"{'':<22} {'HALIE':>10} {'declared':>10} {'ratio':>7}  target {TARGET}x")
    for what, command in (
        ("validate", lambda p: [hj, "validate", str(p)]),
        ("export", lambda p: [hj, "export", "-q", "--force", "-o", str(out), str(p)]),
    ):
        a, b = best(command(halie), args.repeat), best(command(declared), args.repeat)
        ratio = b.cpu / a.cpu
        results[what] = {"halie": a.cpu, "declared": b.cpu, "ratio": ratio, "halie_mb": a.mb, "declared_mb": b.mb}
        verdict = "ok" if ratio <= TARGET else "MISSED"
        print(f"{what + ' (CPU s)':<22} {a.cpu:>10.3f} {b.cpu:>10.3f} {ratio:>6.2f}x  {verdict}")
        print(f"{what + ' (peak MB)':<22} {a.mb:>10.1f} {b.mb:>10.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
