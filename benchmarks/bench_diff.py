"""What `humanjudge diff` costs beside `humanjudge validate`, on the large generated data of
TextJudge and CogGym (the baseline shapes of bench_textjudge.py and bench_coggym.py):

    pip install -e '.[bench,test]'
    python benchmarks/bench_diff.py
    python benchmarks/bench_diff.py --format coggym --repeat 1

Two new versions of each, written into benchmarks/data/ when missing: `few`, a copy of the
baseline with a few changes (three judgments changed, one removed, one stored mean edited: a
usual pull request), in diff-<format>-new/; and `many`, changes spread over the whole file (a
judgment changed in every twentieth item, TextJudge's instances and CogGym's stimuli, and a
hundred instances, five stimuli, removed near the start), in diff-<format>-many/. Per data set,
best of --repeat runs, in alternation: validate of one version; diff of the two (--format json,
into a file). Printed: seconds, peak MB, and diff's CPU time as a multiple of validate's (the
target: at most 3).
"""

from __future__ import annotations

import argparse
import atexit
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import bench_coggym
import bench_textjudge
from harness import DATA, side_by_side, tool

TARGET = 3.0  # diff of two versions at most this many times validate of one


def _textjudge_new(old: Path, new: Path) -> None:
    doc = json.loads((old / "dataset.json").read_text())
    instances = doc["instances"]
    changed = 0
    for inst in instances[1000:]:
        for annotation in inst.get("annotations", {}).values():
            scores = annotation.get("individual_human_scores")
            if isinstance(scores, list) and len(scores) > 1 and isinstance(scores[0], (int, float)):
                scores[0] = scores[0] + 1 if changed < 3 else scores[0]
                if changed == 3:
                    scores.pop()
                if changed == 4 and "mean_human" in annotation:
                    annotation["mean_human"] = -1
                changed += 1
                break
        if changed > 4:
            break
    new.mkdir(parents=True, exist_ok=True)
    (new / "dataset.json").write_text(json.dumps(doc))


def _textjudge_many(old: Path, new: Path) -> None:
    doc = json.loads((old / "dataset.json").read_text())
    instances = doc["instances"]
    for inst in instances[::20]:
        for annotation in inst.get("annotations", {}).values():
            scores = annotation.get("individual_human_scores")
            if isinstance(scores, list) and scores and isinstance(scores[0], (int, float)):
                scores[0] += 1
                break
    del instances[500:600]
    new.mkdir(parents=True, exist_ok=True)
    (new / "dataset.json").write_text(json.dumps(doc))


def _coggym_copy(old: Path, new: Path) -> tuple[dict[str, Any], list[str]]:
    """The old experiment copied into new; its individual data and its stimuli, to edit."""
    new.mkdir(parents=True, exist_ok=True)
    for f in old.iterdir():
        if f.is_file() and not f.name.startswith("."):
            shutil.copy(f, new / f.name)
    ind = json.loads((old / "human_data_ind.json").read_text())
    return ind, [k for k in ind if k.startswith("trial")]


def _nudged(stimulus: dict[str, Any]) -> bool:
    """The first number answered in a stimulus moved by one; whether it had one."""
    for answers in stimulus.values():
        if isinstance(answers, list) and answers and isinstance(answers[0], (int, float)):
            answers[0] = answers[0] + 1 if answers[0] < 50 else answers[0] - 1
            return True
    return False


def _coggym_many(old: Path, new: Path) -> None:
    ind, trials = _coggym_copy(old, new)
    for key in trials[::20]:
        _nudged(ind[key])
    for key in trials[10:15]:
        del ind[key]
    (new / "human_data_ind.json").write_text(json.dumps(ind))


def _coggym_new(old: Path, new: Path) -> None:
    ind, trials = _coggym_copy(old, new)
    changed = 0
    for key in trials[100:]:
        changed += _nudged(ind[key])
        if changed == 3:
            break
    (new / "human_data_ind.json").write_text(json.dumps(ind))
    mean = json.loads((old / "human_data_mean.json").read_text())
    trial = next(k for k in mean if k.startswith("trial"))
    tag = next(t for t, v in mean[trial].items() if isinstance(v, (int, float)))
    mean[trial][tag] = -1
    (new / "human_data_mean.json").write_text(json.dumps(mean))


def data_sets(hj: str, cj: str) -> dict[tuple[str, str], tuple[Path, Path]]:
    """(format, changes) -> (old version, new version), written first when missing."""
    tj = bench_textjudge.shape("baseline", DATA / "textjudge-baseline" / "dataset.json", "", hj, cj, preset="baseline")
    tj.prepare(False)
    cg = bench_coggym.shape("baseline", DATA / "coggym-baseline", "", hj, cj, preset="baseline")
    cg.prepare(False)
    bases = {"textjudge": tj.path.parent, "coggym": cg.path}
    makers = {
        ("textjudge", "few"): _textjudge_new,
        ("textjudge", "many"): _textjudge_many,
        ("coggym", "few"): _coggym_new,
        ("coggym", "many"): _coggym_many,
    }
    out = {}
    for (fmt, changes), make in makers.items():
        new = DATA / f"diff-{fmt}-{'new' if changes == 'few' else changes}"
        if not new.exists():
            make(bases[fmt], new)
        out[fmt, changes] = (bases[fmt], new)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", action="append", choices=["textjudge", "coggym"])
    ap.add_argument("--changes", action="append", choices=["few", "many"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    hj, cj = tool("humanjudge"), tool("check-jsonschema")
    out = Path(tempfile.mkdtemp(prefix="humanjudge-bench-"))
    atexit.register(shutil.rmtree, out, True)  # the outputs are large: gone when the script ends
    print(f"{'data':<15} {'command':<10} {'seconds':>8} {'CPU s':>7} {'MB':>6} {'x validate':>10}")
    for (fmt, changes), (old, new) in data_sets(hj, cj).items():
        if (args.format and fmt not in args.format) or (args.changes and changes not in args.changes):
            continue
        name = f"{fmt} {changes}"
        commands = {
            "validate": [hj, "validate", str(old)],
            "diff": [hj, "diff", str(old), str(new), "--format", "json", "-o", str(out / "diff.json"), "--force"],
        }
        figures = side_by_side({label: ([cmd], args.repeat) for label, cmd in commands.items()})
        base = figures["validate"].cpu
        for label, f in figures.items():
            print(f"{name:<15} {label:<10} {f.wall:>8.2f} {f.cpu:>7.2f} {f.mb:>6.0f} {f.cpu / base:>10.1f}")
        ratio = figures["diff"].cpu / base
        print(f"{name:<15} target: diff at most {TARGET:g}x validate: {'holds' if ratio <= TARGET else 'MISSED'}")
        summary = json.loads((out / "diff.json").read_text())["summary"]
        print(
            f"{name:<15} found: {summary['changed']} changed, {summary['removed']} removed, {summary['added']} added, "
            f"{summary['aggregates_changed']} aggregates changed"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
