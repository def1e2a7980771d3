"""Write a large, valid CogGym experiment: by default about 50 MB of individual data.

    python benchmarks/gen_coggym.py benchmarks/data/coggym-large [--trials 700] [--participants 500]

Every trial has two single-sliders, a multi-choice, a three-label multi-slider and a multi-select,
so the validator exercises every response rule on it; the mean file is computed from the data.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from humanjudge_schema.formats.coggym.aggregate import aggregate

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--trials", type=int, default=700)
    ap.add_argument("--participants", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
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
    by_id = {t["id"]: t for t in trials}
    mean = aggregate(by_id, ind)  # type: ignore[arg-type]
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
    (args.out / "human_data_mean.json").write_text(json.dumps(mean, indent=1) + "\n")
    size = (args.out / "human_data_ind.json").stat().st_size
    print(f"wrote {args.out} ({size / 1e6:.1f} MB of individual data)")


if __name__ == "__main__":
    main()
