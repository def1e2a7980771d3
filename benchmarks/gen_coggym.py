"""Write a large, valid CogGym experiment of a given shape: trials (stimuli) x participants.

    python benchmarks/gen_coggym.py OUT_FOLDER [--preset baseline]
    python benchmarks/gen_coggym.py OUT_FOLDER --trials 50 --participants 7000
    python benchmarks/gen_coggym.py --list       # the presets

Every trial has two single-sliders, a multi-choice, a three-label multi-slider and a multi-select,
so the validator exercises every response rule on it; the mean file is computed from the data
(here, independently of the validator's own aggregation). The presets are the shapes
benchmarks/bench_coggym.py runs: `baseline` is the experiment the benchmark used before it had
shapes (700 trials x 500 participants, 50.8 MB of individual data), `few-large` a few stimuli
with many participants each, `many-small` many stimuli with few participants each.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

PRESETS: dict[str, dict[str, int]] = {
    "baseline": {"trials": 700, "participants": 500},
    "few-large": {"trials": 50, "participants": 7000},
    "many-small": {"trials": 10_000, "participants": 20},
}
OPTIONS = ["Reach the red box", "Reach the blue box", "Leave through the exit", "Stay put"]
LABELS = ["It is hungry", "It is lost", "It is curious"]


def trial(i: int) -> dict[str, object]:
    slider = {"min": 0, "max": 100, "labels": [{"value": 0, "label": "No"}, {"value": 100, "label": "Yes"}]}
    return {
        "id": f"trial_{i}",
        "stimuli": [{"input_type": "img", "media_url": [f"https://example.org/stimuli/{i}.png"]}],
        "queries": [
            {"type": "single-slider", "prompt": "How confident?", "tag": "confidence", "slider_config": slider},
            {"type": "single-slider", "prompt": "How surprising?", "tag": "surprise", "slider_config": slider},
            {"type": "multi-choice", "prompt": "Goal?", "tag": "goal", "option": OPTIONS},
            {"type": "multi-slider", "prompt": "Rate each.", "tag": "state", "option": LABELS, "slider_config": slider},
            {"type": "multi-select", "prompt": "Which?", "tag": "seen", "option": OPTIONS},
        ],
    }


def mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def means(trial: dict[str, Any], responses: dict[str, Any]) -> dict[str, Any]:
    """The human_data_mean.json entry of one stimulus: slider means, choice proportions (every
    chosen option), per-label slider means, selection frequencies; keys tag_K, K 1-based."""
    out: dict[str, Any] = {}
    for query in trial["queries"]:
        tag, kind, options = query["tag"], query["type"], query.get("option", [])
        answers = responses[tag]
        if kind == "single-slider":
            out[tag] = mean(answers)
        elif kind == "multi-choice":
            counts = Counter(a["idx"] for a in answers)
            out[tag] = {f"{tag}_{k + 1}": counts[k] / len(answers) for k in sorted(counts)}
        elif kind == "multi-slider":
            out[tag] = {f"{tag}_{k + 1}": mean(answers[0][label]) for k, label in enumerate(options)}
        elif kind == "multi-select":
            out[tag] = {f"{tag}_{k + 1}": sum(row[k] for row in answers) / len(answers) for k in range(len(options))}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, nargs="?")
    ap.add_argument("--preset", choices=PRESETS, default="baseline", help="the shape to start from")
    ap.add_argument("--list", action="store_true", help="print the presets and exit")
    ap.add_argument("--trials", type=int, help="stimuli (one trial each)")
    ap.add_argument("--participants", type=int, help="responses per query")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.list:
        for name, shape in PRESETS.items():
            print(f"{name:<12} --trials {shape['trials']} --participants {shape['participants']}")
        return
    if args.out is None:
        ap.error("give the folder to write")
    for key, value in PRESETS[args.preset].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    rng = random.Random(args.seed)
    n = args.participants
    args.out.mkdir(parents=True, exist_ok=True)
    trials = [trial(i) for i in range(args.trials)]
    ind: dict[str, object] = {
        "participants_info": {"count": n, "age": 34.2, "gender": {"female": n // 2, "male": n - n // 2}},
        "judgment_count": 0,
    }
    for t in trials:
        picks = [rng.randrange(len(OPTIONS)) for _ in range(n)]
        ind[t["id"]] = {  # type: ignore[index]
            "confidence": [rng.randint(0, 100) for _ in range(n)],
            "surprise": [round(rng.uniform(0, 100), 2) for _ in range(n)],
            "goal": [{"idx": k, "option_text": OPTIONS[k]} for k in picks],
            "state": [{label: [rng.randint(0, 100) for _ in range(n)] for label in LABELS}],
            "seen": [[rng.randint(0, 1) for _ in OPTIONS] for _ in range(n)],
        }
    ind["judgment_count"] = args.trials * n * (4 + len(LABELS))
    mean_doc: dict[str, Any] = {"participants_info": ind["participants_info"], "judgment_count": ind["judgment_count"]}
    for t in trials:
        mean_doc[t["id"]] = means(t, ind[t["id"]])  # type: ignore[arg-type]
    config = {
        "experimentName": "Generated benchmark experiment",
        "description": "synthetic",
        "paperDOI": "10.0000/bench",
        "taskType": ["benchmark"],
        "responseType": ["single-slider", "multi-choice", "multi-slider", "multi-select"],
        "contributors": ["benchmarks"],
        "stimuli_count": args.trials,
        "experimentFlow": [{"blocks": [[t["id"] for t in trials]]}],
    }
    (args.out / "trial.jsonl").write_text("".join(json.dumps(t) + "\n" for t in trials))
    (args.out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (args.out / "human_data_ind.json").write_text(json.dumps(ind, indent=1) + "\n")
    (args.out / "human_data_mean.json").write_text(json.dumps(mean_doc, indent=1) + "\n")
    size = (args.out / "human_data_ind.json").stat().st_size
    print(f"wrote {args.out} ({args.trials} trials x {n} participants, {size / 1e6:.1f} MB of individual data)")


if __name__ == "__main__":
    main()
