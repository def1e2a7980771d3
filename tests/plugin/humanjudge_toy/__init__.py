"""Toy ratings: a folder with ratings.jsonl (one rating a line) and items.json (the items rated).

The declaration is all humanjudge reads to know the format; the check is imported only when a
dataset of it is checked or its rules are listed.
"""

from __future__ import annotations

from dataclasses import replace

from humanjudge_schema.catalog import Aggregation, DatasetFile, Format, Option

FORMAT = Format(
    name="toy",
    title="Toy ratings",
    intro="A folder with `ratings.jsonl`, one rating a line, and `items.json`, the items rated.",
    check="humanjudge_toy.check:check",
    files=(
        DatasetFile(
            "ratings.jsonl",
            "toy/v1/rating",
            "each line",
            required=True,
            without="nothing could be checked against the ratings",
        ),
        DatasetFile("items.json", "toy/v1/items", "the whole file", without="ratings were not matched with items"),
    ),
    options=(Option("max-rating", int, 5, "the top of the rating scale"),),
    schemas="humanjudge_toy:schemas",
    aggregation=Aggregation(
        "humanjudge_toy.extras:aggregate", what="a toy ratings folder", plural="toy ratings folders", folder=True
    ),
    commands=("humanjudge_toy.extras:count",),
)

# The same format with a view of its judgments (tests/test_plugins.py installs one or the other).
WITH_JUDGMENTS = replace(FORMAT, judgments="humanjudge_toy.judgments:judgments")
