"""Write a valid TextJudge dataset of many small questions: what `report` draws a plot for each of.

    python benchmarks/gen_questions.py OUT.json --questions 1000
    python benchmarks/gen_questions.py OUT.json --questions 3000 --instances 5 --raters 3

The questions are metrics graded 1-5, labelled yes/no/maybe and continuous 1-5, in turn (the
shape of `tests/test_judgments_bounds.py`'s report rows), each scored by --raters raters on the
same --instances instances, drawn from a seeded generator: the same arguments, the same bytes.
Each graded and continuous score list has its exact mean, each labelled one its majority, so
that the dataset is valid and the report's page is drawn for every question.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

CATEGORIES = ("graded", "categorical", "continuous")
LABELS = ["yes", "no", "maybe"]


def dataset(questions: int, instances: int = 5, raters: int = 3, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    metrics: list[dict[str, Any]] = []
    for m in range(questions):
        category = CATEGORIES[m % 3]
        metric: dict[str, Any] = {"metric": f"metric {m}", "category": category, "prompt": "Rate {{ instance }}"}
        metric |= {"labels_list": LABELS} if category == "categorical" else {"worst": 1, "best": 5}
        metrics.append(metric)

    def scores(category: str) -> dict[str, Any]:
        if category == "categorical":
            given: list[Any] = [rng.choice(LABELS) for _ in range(raters)]
            counts = Counter(given)
            top = max(counts.values())
            return {"individual_human_scores": given, "majority_human": next(v for v in given if counts[v] == top)}
        given = [rng.randint(1, 5) if category == "graded" else round(rng.uniform(1, 5), 2) for _ in range(raters)]
        return {"individual_human_scores": given, "mean_human": sum(given) / len(given)}

    rows = [
        {"id": str(i), "instance": f"text {i}", "annotations": {m["metric"]: scores(m["category"]) for m in metrics}}
        for i in range(instances)
    ]
    head = {"dataset": "Generated", "dataset_url": "https://example.org", "expert_annotator": "false"}
    return head | {"original_prompt": False, "annotations": metrics, "instances": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--instances", type=int, default=5)
    ap.add_argument("--raters", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    made = dataset(args.questions, args.instances, args.raters, args.seed)
    args.out.write_text(json.dumps(made, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
