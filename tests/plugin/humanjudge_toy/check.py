"""The toy format's model and rules."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from humanjudge_schema.engine import Context, Hit
from humanjudge_schema.kinds import Unit
from humanjudge_schema.readers.jsonfile import BROKEN, JsonDocument, JsonlDocument, load
from humanjudge_schema.registry import rule, rules_of


@dataclass
class Ratings:
    top: int
    doc: JsonlDocument | None = None
    items: set[str] | None = None
    ratings: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (index, valid record)


def check(unit: Unit, ctx: Context) -> None:
    model = Ratings(ctx.config.option("toy", "max-rating"))
    for path in unit.files:
        doc, problems = load(path, ctx.config.max_document_bytes)
        ctx.problems(path, problems, doc)
        if isinstance(doc, JsonlDocument):
            model.doc = doc
            for i, record in enumerate(doc.records):
                if record is not BROKEN and ctx.schema("toy/v1/rating", doc, record, f"/{i}"):
                    model.ratings.append((i, record))
        elif isinstance(doc, JsonDocument) and ctx.schema("toy/v1/items", doc, doc.data):
            model.items = set(doc.data)
    for r in rules_of("toy"):
        ctx.run(r, model)


@rule(
    "toy/rating-range",
    "a rating is at most max-rating",
    why="The scale runs from 1 to the configured max-rating; a larger value was not on it.",
    bad='{"item": "a", "rating": 9}',
    good='{"item": "a", "rating": 4}',
)
def rating_range(model: Ratings) -> Iterator[Hit]:
    for i, record in model.ratings:
        if record["rating"] > model.top:
            yield model.doc, f"/{i}/rating", f"{record['rating']} is above max-rating {model.top}"


@rule(
    "toy/unknown-item",
    "a rating names an item of items.json",
    severity="warning",
    why="A rating of an item nobody listed cannot be interpreted.",
    bad='{"item": "zz", "rating": 3}',
    good='{"item": "a", "rating": 3}',
)
def unknown_item(model: Ratings) -> Iterator[Hit]:
    if model.items is None:
        return
    for i, record in model.ratings:
        if record["item"] not in model.items:
            yield model.doc, f"/{i}/item", f"{record['item']!r} is not in items.json"
