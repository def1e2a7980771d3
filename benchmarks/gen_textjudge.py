"""Write a large, valid TextJudge dataset of a given shape.

    python benchmarks/gen_textjudge.py OUT.json [--preset baseline]
    python benchmarks/gen_textjudge.py OUT.json --instances 20000 --labels 60 --vocab 3
    python benchmarks/gen_textjudge.py --list        # the presets

The shape: how many instances; how many labels each instance's labelled metric has (a number, or
a range such as 20-40); how many distinct labels there are (--vocab); whether the labels are
strings (a categorical metric with that labels_list and its majority) or integers (a graded
metric on a scale of that many grades, 1 to V, with its exact mean and its majority); whether
instances are strings (`{{ instance }}` in the prompt) or objects with source and translation
(`{{ source }}`, `{{ translation }}`); optionally a second, graded metric of a few integer
grades and their exact mean (--graded 3-7); and optionally a continuous metric scored 0 to 100
(--continuous 4: scores per instance), each score a float drawn uniformly (all distinct: the
worst case for statistics over values, every item its own profile), or kept to a few decimals
(--decimals 1: 1,001 values, shared between items), with its exact mean. Labels are drawn with
falling weights (the first label most often), a majority is any of the most frequent labels,
and means are exact, so the dataset is valid and the validator recomputes every aggregate and
renders the templates on every instance.

The presets are the shapes benchmarks/bench_textjudge.py runs; `baseline` is the dataset the
benchmark used before it had shapes (100,000 object instances, 20-40 of 3 string labels and 3-7
grades: 53 MB). The presets of `CONTINUOUS` (mixed-cont4, cont20-40, cont4-dec1) add the
continuous metric: the shapes benchmarks/bench_judgments.py runs beside the baseline, where a
question's values are as many as its judgments.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

# name -> (instances, labels per instance, vocabulary, label type, instance type, graded grades)
PRESETS: dict[str, dict[str, Any]] = {
    "baseline": dict(instances=100_000, labels="20-40", vocab=3, label_type="str", instance="object", graded="3-7"),
    "lab60-voc3": dict(instances=20_000, labels="60", vocab=3, label_type="str", instance="object", graded="0"),
    "lab3-voc2-text": dict(instances=300_000, labels="3", vocab=2, label_type="str", instance="string", graded="0"),
    "lab20-voc10": dict(instances=100_000, labels="20", vocab=10, label_type="str", instance="object", graded="0"),
    "lab100-voc40-text": dict(
        instances=40_000, labels="100", vocab=40, label_type="str", instance="string", graded="0"
    ),
    "lab20-voc10-int": dict(instances=100_000, labels="20", vocab=10, label_type="int", instance="object", graded="0"),
    "lab60-voc40-int-text": dict(
        instances=50_000, labels="60", vocab=40, label_type="int", instance="string", graded="0"
    ),
    "lab100-voc2-int": dict(instances=40_000, labels="100", vocab=2, label_type="int", instance="object", graded="0"),
}
# The shapes benchmarks/bench_judgments.py adds for a continuous metric: a question whose values
# are as many as its judgments (four raters an instance, beside a categorical and a graded
# metric; 20-40 raters an instance), and one whose values are shared (one decimal kept).
CONTINUOUS: dict[str, dict[str, Any]] = {
    "mixed-cont4": dict(PRESETS["lab20-voc10"], instances=60_000, labels="4", vocab=3, graded="4", continuous="4"),
    "cont20-40": dict(PRESETS["lab3-voc2-text"], instances=10_000, continuous="20-40"),
    "cont4-dec1": dict(PRESETS["lab20-voc10"], labels="4", vocab=3, continuous="4", decimals=1),
}

CATEGORIES = [
    "admiration", "amusement", "anger", "annoyance", "approval", "caring", "confusion", "curiosity",
    "desire", "disappointment", "disapproval", "disgust", "embarrassment", "excitement", "fear",
    "gratitude", "grief", "joy", "love", "nervousness", "optimism", "pride", "realization", "relief",
    "remorse", "sadness", "surprise", "neutral", "boredom", "calm", "contempt", "doubt", "envy",
    "guilt", "hope", "interest", "jealousy", "loneliness", "nostalgia", "shame",
]  # fmt: skip
WORDS = [
    "the", "a", "cat", "dog", "house", "river", "morning", "evening", "light", "small", "large",
    "green", "quiet", "city", "road", "book", "window", "table", "garden", "friend", "letter",
    "music", "water", "bread", "summer", "winter", "station",
]  # fmt: skip


def string_labels(vocab: int) -> list[str]:
    if vocab == 2:
        return ["Yes", "No"]
    if vocab == 3:
        return ["Yes", "No", "Unsure"]
    if vocab > len(CATEGORIES):
        return [f"label {k}" for k in range(vocab)]
    return CATEGORIES[:vocab]


def span(text: str) -> tuple[int, int]:
    """'20-40' -> (20, 40); '60' -> (60, 60)."""
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def majority(rng: random.Random, scores: list[Any]) -> Any:
    counts = Counter(scores)
    top = max(counts.values())
    return rng.choice([x for x in counts if counts[x] == top])  # ties: any of them


def dataset(
    instances: int,
    labels: str,
    vocab: int,
    label_type: str,
    instance: str,
    graded: str,
    continuous: str = "0",
    decimals: int | None = None,
    seed: int = 1,
) -> dict[str, Any]:
    rng = random.Random(seed)
    lo, hi = span(labels)
    glo, ghi = span(graded)
    clo, chi = span(continuous)
    values: list[Any] = string_labels(vocab) if label_type == "str" else list(range(1, vocab + 1))
    # falling weights: the first label is the most frequent (5:4:1 for three, as before shapes)
    weights = [5, 4, 1] if vocab == 3 else [1 / (k + 1) for k in range(vocab)]
    if instance == "object":
        text, short = "Source: {{ source }}\nTranslation: {{ translation }}\n", "{{ translation }}\n"
    else:
        text = short = "{{ instance }}\n"
    declarations: list[dict[str, Any]] = []
    if label_type == "str":
        answer = ", ".join(values[:-1]) + " or " + values[-1] if vocab <= 3 else "with one of the labels"
        declarations.append(
            {
                "metric": "adequate",
                "category": "categorical",
                "prompt": f"Does the translation convey the meaning of the source? Answer {answer}.\n\n{text}",
                "labels_list": values,
            }
        )
    else:
        declarations.append(
            {
                "metric": "adequate",
                "category": "graded",
                "prompt": f"On a scale of 1 to {vocab}, how well does the translation convey the meaning?\n\n{text}",
                "worst": 1,
                "best": vocab,
            }
        )
    if ghi:
        declarations.append(
            {
                "metric": "fluency",
                "category": "graded",
                "prompt": "On a scale of 1 (incomprehensible) to 5 (native), how fluent is this translation?\n\n"
                + short,
                "worst": 1,
                "best": 5,
            }
        )
    if chi:
        declarations.append(
            {
                "metric": "overall",
                "category": "continuous",
                "prompt": "From 0 (useless) to 100 (perfect), how good is this translation overall?\n\n" + short,
                "worst": 0,
                "best": 100,
            }
        )
    rows = []
    for i in range(instances):
        scores = rng.choices(values, weights=weights, k=rng.randint(lo, hi))
        score: dict[str, Any] = {"majority_human": majority(rng, scores), "individual_human_scores": scores}
        if label_type == "int":
            # the sum of integers is exact; one division gives the correctly rounded mean
            score = {"mean_human": sum(scores) / len(scores), **score}
        annotations = {"adequate": score}
        if ghi:
            grades = [rng.randint(1, 5) for _ in range(rng.randint(glo, ghi))]
            annotations["fluency"] = {"mean_human": sum(grades) / len(grades), "individual_human_scores": grades}
        if chi:
            floats = [rng.uniform(0, 100) for _ in range(rng.randint(clo, chi))]
            if decimals is not None:
                floats = [round(x, decimals) for x in floats]
            # the mean the validator recomputes: the exact sum, divided once
            annotations["overall"] = {"mean_human": math.fsum(floats) / len(floats), "individual_human_scores": floats}
        if instance == "object":
            item: Any = {
                "source": sentence(rng, rng.randint(5, 11)),
                "translation": sentence(rng, rng.randint(5, 11)),
            }
        else:
            item = sentence(rng, rng.randint(8, 20))
        rows.append({"id": i, "instance": item, "annotations": annotations})
    return {
        "dataset": "Generated benchmark translations (synthetic)",
        "dataset_url": "https://example.org/textjudge-benchmark",
        "expert_annotator": "false",
        "original_prompt": False,
        "annotations": declarations,
        "instances": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, nargs="?")
    ap.add_argument("--preset", choices=[*PRESETS, *CONTINUOUS], default="baseline", help="the shape to start from")
    ap.add_argument("--list", action="store_true", help="print the presets and exit")
    ap.add_argument("--instances", type=int)
    ap.add_argument("--labels", help="labels per instance: a number or a range such as 20-40")
    ap.add_argument("--vocab", type=int, help="distinct labels (or grades, for integer labels)")
    ap.add_argument("--label-type", choices=("str", "int"))
    ap.add_argument("--instance", choices=("object", "string"), help="instances: objects or strings")
    ap.add_argument("--graded", help="grades per instance of a second, graded metric (a range; 0: none)")
    ap.add_argument("--continuous", help="scores per instance of a continuous metric (a range; 0: none)")
    ap.add_argument("--decimals", type=int, help="decimals the continuous scores keep (default: all)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.list:
        for name, shape in (PRESETS | CONTINUOUS).items():
            print(f"{name:<22} " + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in shape.items()))
        return
    if args.out is None:
        ap.error("give the file to write")
    shape = dict((PRESETS | CONTINUOUS)[args.preset])
    for key in (*PRESETS["baseline"], "continuous", "decimals"):  # PRESETS name no continuous metric
        if getattr(args, key) is not None:
            shape[key] = getattr(args, key)
    data = dataset(**shape, seed=args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data) + "\n")
    n = sum(len(i["annotations"]["adequate"]["individual_human_scores"]) for i in data["instances"])
    scores = sum(len(i["annotations"].get("overall", {}).get("individual_human_scores", ())) for i in data["instances"])
    more = f", {scores} continuous scores" if scores else ""
    size = args.out.stat().st_size / 1e6
    print(f"wrote {args.out} ({size:.1f} MB, {shape['instances']} instances, {n} labels{more})")


if __name__ == "__main__":
    main()
