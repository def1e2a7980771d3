"""Write a large, valid TextJudge dataset: by default 100,000 instances, about 50 MB.

    python benchmarks/gen_textjudge.py benchmarks/data/textjudge-large.json [--instances 100000] [--seed 1]

Every instance is an object (source and translation) with a categorical metric of 20-40 labels
per instance and its majority, and a graded metric of 3-7 integer grades and their exact mean, so
the validator recomputes both aggregates and renders the templates on every instance.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

LABELS = ["Yes", "No", "Unsure"]
WORDS = [
    "the",
    "a",
    "cat",
    "dog",
    "house",
    "river",
    "morning",
    "evening",
    "light",
    "small",
    "large",
    "green",
    "quiet",
    "city",
    "road",
    "book",
    "window",
    "table",
    "garden",
    "friend",
    "letter",
    "music",
    "water",
    "bread",
    "summer",
    "winter",
    "station",
]


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--instances", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    instances = []
    for i in range(args.instances):
        labels = rng.choices(LABELS, weights=(5, 4, 1), k=rng.randint(20, 40))
        counts = Counter(labels)
        top = max(counts.values())
        majority = rng.choice([label for label in counts if counts[label] == top])  # ties: any of them
        grades = [rng.randint(1, 5) for _ in range(rng.randint(3, 7))]
        instances.append(
            {
                "id": i,
                "instance": {
                    "source": sentence(rng, rng.randint(5, 11)),
                    "translation": sentence(rng, rng.randint(5, 11)),
                },
                "annotations": {
                    "adequate": {"majority_human": majority, "individual_human_scores": labels},
                    # the sum of integers is exact; one division gives the correctly rounded mean
                    "fluency": {"mean_human": sum(grades) / len(grades), "individual_human_scores": grades},
                },
            }
        )
    dataset = {
        "dataset": "Generated benchmark translations (synthetic)",
        "dataset_url": "https://example.org/textjudge-benchmark",
        "expert_annotator": "false",
        "original_prompt": False,
        "annotations": [
            {
                "metric": "adequate",
                "category": "categorical",
                "prompt": "Does the translation convey the meaning of the source? Answer Yes, No or Unsure.\n\n"
                "Source: {{ source }}\nTranslation: {{ translation }}\n",
                "labels_list": LABELS,
            },
            {
                "metric": "fluency",
                "category": "graded",
                "prompt": "On a scale of 1 (incomprehensible) to 5 (native), how fluent is this translation?\n\n"
                "{{ translation }}\n",
                "worst": 1,
                "best": 5,
            },
        ],
        "instances": instances,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(dataset) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB, {args.instances} instances)")


if __name__ == "__main__":
    main()
