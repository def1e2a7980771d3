"""The individual judgments: allowed values, one answer per rater per item, raters per item."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....registry import rule
from ..model import Model


@rule(
    "declared/allowed-value",
    "a value that is not on its question's scale",
    why="A question's `values` are the answers a rater could give; any other value is a typo or a "
    "different scale, and would count as a category of its own in agreement.",
    bad='[questions.label]\nvalues = ["G", "P", "R", "X"]\n\nw1\tsite-1\tQ',
    good="w1\tsite-1\tP",
    scope="dataset",
)
def allowed_value(model: Model) -> Iterator[Hit]:
    for question, value, doc, ptr in model.outside:
        scale = model.decl.question(question).values or ()
        yield doc, ptr, f"{value!r} is not a value of {question} ({', '.join(map(repr, scale))})"


@rule(
    "declared/one-answer",
    "a rater answers a question twice for one item",
    why="A rater's repeated answers to one item count twice in agreement and in any majority; "
    "where the design has no repeats, a repeat is a copied row or a rater id given to two people.",
    bad="w1\tsite-1\tP\nw1\tsite-1\tG",
    good="w1\tsite-1\tP\nw2\tsite-1\tG",
    scope="dataset",
)
def one_answer(model: Model) -> Iterator[Hit]:
    if not model.decl.rules.one_answer:
        return
    for question, item, rater, doc, ptr, first in model.again:
        yield doc, ptr, f"rater {rater!r} answers {question} of item {item!r} again (first at {first})"


@rule(
    "declared/raters-per-item",
    "an item judged by too few or too many raters",
    why="A design fixes how many raters judge each item (three per comparison, at least two for "
    "agreement); an item outside the bounds was lost, duplicated or never finished.",
    bad="[rules]\nraters-per-item = {min = 3}\n\nsite-1 judged by w1 and w2",
    good="site-1 judged by w1, w2 and w3",
    scope="dataset",
)
def raters_per_item(model: Model) -> Iterator[Hit]:
    bounds = model.decl.rules.raters_per_item
    if bounds is None:
        return
    low, high = bounds
    for (question, item), raters in model.raters.items():
        n = len(raters)
        if (low is not None and n < low) or (high is not None and n > high):
            wanted = f"at least {low}" if high is None else f"at most {high}" if low is None else f"{low} to {high}"
            doc, ptr = next(iter(raters.values()))
            yield doc, ptr, f"item {item!r} has {n} rater{'s' if n != 1 else ''} of {question}, {wanted} expected"
