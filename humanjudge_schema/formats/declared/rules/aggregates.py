"""Stored aggregates against the individual judgments they are computed from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....engine import Hit
from ....numbers import fmt_number, same_value
from ....registry import rule
from ..aggregates import distribution, majority, mean, number, ranked, soft_label_mismatch
from ..fields import Known
from ..model import Model, Stored


def _of(model: Model, kind: str) -> Iterator[tuple[Stored, list[Any], list[Any]]]:
    """Each stored aggregate of a kind, with the raters and values of its item's judgments."""
    for stored in model.stored:
        if stored.block.recompute != kind:
            continue
        judgments = model.judged.get(stored.question, {}).get(stored.item)
        if judgments:
            yield stored, [j[0] for j in judgments], [j[1] for j in judgments]


@rule(
    "declared/mean",
    "a stored mean that is not the mean of the item's judgments",
    why="A stored mean (an MQM segment score, SQuALITY's overall ratings) must recompute from the "
    "individual judgments it summarises, as the file rounds it; one that does not was computed "
    "from other data, or went stale when the judgments changed.",
    bad="ratings 10, 20, 30    overall 30.0",
    good="ratings 10, 20, 30    overall 20.0",
    scope="dataset",
)
def stored_mean(model: Model) -> Iterator[Hit]:
    for stored, _raters, values in _of(model, "mean"):
        if stored.value is None:  # no mean stored (null)
            continue
        kept = number(stored.value)
        numbers = [number(v) for v in values]
        of = f"the {len(values)} judgments of {stored.question} for item {stored.item!r}"
        if kept is None:
            yield stored.doc, stored.pointer, f"{stored.value!r} is stored where the mean of {of} is: not a number"
        elif None in numbers:
            odd = next(v for v, n in zip(values, numbers, strict=True) if n is None)
            yield (
                stored.doc,
                stored.pointer,
                f"{fmt_number(kept)} is stored, and {of} are not all numbers ({odd!r}): no mean to compare it with",
            )
        elif not same_value(kept, exact := mean(numbers), model.tolerance):  # type: ignore[arg-type]
            yield stored.doc, stored.pointer, f"{fmt_number(kept)} is stored, the mean of {of} is {fmt_number(exact)}"


@rule(
    "declared/majority",
    "a stored majority that is not the most frequent answer",
    why="A stored majority label must be the answer most raters gave, with ties resolved as the "
    "declaration says (`tie`: any of the tied values, the lowest, the highest, or none stored).",
    bad="answers 1, 1, 0    majority 0",
    good="answers 1, 1, 0    majority 1",
    scope="dataset",
)
def stored_majority(model: Model) -> Iterator[Hit]:
    for stored, _raters, values in _of(model, "majority"):
        top = majority(values)
        tie = stored.block.tie
        if len(top) > 1 and tie == "none":
            if stored.value is not None:  # null: no value stored, as the declaration says
                said = ", ".join(map(repr, top))
                yield stored.doc, stored.pointer, f'{stored.value!r} is stored where {said} tie (tie = "none")'
            continue
        if tie in ("lowest", "highest") and len(top) > 1:
            order = ranked(top, model.decl.question(stored.question).values)
            top = [order[0] if tie == "lowest" else order[-1]]
        if stored.value not in Known(top):
            said = " or ".join(map(repr, top))
            yield (
                stored.doc,
                stored.pointer,
                f"{stored.value!r} is stored, the majority of {len(values)} judgments of {stored.question} is {said}",
            )


@rule(
    "declared/soft-label",
    "a stored distribution that is not the judgments' proportions",
    why='A soft label (`{"0.0": 0.4, "1.0": 0.6}`) is the share of the item\'s raters who gave each '
    "answer; a key with no answer, an answer with no key, or a share that does not recompute says "
    "another set of judgments.",
    bad='annotations {"Ann0": "0", "Ann1": "1"}    soft_label {"0.0": 0.4, "1.0": 0.6}',
    good='annotations {"Ann0": "0", "Ann1": "1"}    soft_label {"0.0": 0.5, "1.0": 0.5}',
    scope="dataset",
)
def stored_soft_label(model: Model) -> Iterator[Hit]:
    for stored, _raters, values in _of(model, "soft-label"):
        if not isinstance(stored.value, dict):
            continue
        wrong = soft_label_mismatch(stored.value, distribution(values), model.tolerance)
        if wrong is not None:
            yield (
                stored.doc,
                stored.pointer,
                f"{wrong} ({len(values)} judgments of {stored.question} for item {stored.item!r})",
            )


@rule(
    "declared/count",
    "a stored count that is not the number of the item's judgments",
    why="A stored number of annotations must count the item's judgments; another number says "
    "judgments were added or lost after it was written.",
    bad='"number of annotations": 5, and four annotations',
    good='"number of annotations": 4, and four annotations',
    scope="dataset",
)
def stored_count(model: Model) -> Iterator[Hit]:
    for stored, _raters, values in _of(model, "count"):
        if stored.value is not None and number(stored.value) != len(values):
            yield (
                stored.doc,
                stored.pointer,
                f"{stored.value!r} is stored, item {stored.item!r} has {len(values)} judgments of {stored.question}",
            )


@rule(
    "declared/raters",
    "a stored list of raters that is not the item's raters",
    why="A stored list of an item's annotators must name the raters whose judgments the item has, each once.",
    bad='"annotators": "Ann0,Ann2", annotations by Ann0 and Ann1',
    good='"annotators": "Ann0,Ann1", annotations by Ann0 and Ann1',
    scope="dataset",
)
def stored_raters(model: Model) -> Iterator[Hit]:
    for stored, raters, _values in _of(model, "raters"):
        listed = stored.value if isinstance(stored.value, list) else [stored.value]
        if sorted(map(str, listed)) != sorted(map(str, raters)):
            extra = sorted(set(map(str, listed)) - set(map(str, raters)))
            lacking = sorted(set(map(str, raters)) - set(map(str, listed)))
            said = (
                "; ".join(
                    part
                    for part in (
                        f"listed without a judgment: {', '.join(extra)}" if extra else "",
                        f"judged but not listed: {', '.join(lacking)}" if lacking else "",
                    )
                    if part
                )
                or "some rater is listed twice"
            )
            yield stored.doc, stored.pointer, f"the stored raters of item {stored.item!r} are not its raters ({said})"


@rule(
    "declared/aggregate-without-judgments",
    "a stored aggregate of an item with no judgments",
    why="An aggregate that recomputes from judgments needs them: a stored value for an item no "
    "rater judged was computed from data the dataset does not hold (a renamed item, a lost file).",
    bad="scores: ref-A 1 -2.0, and no judgment of item ref-A/1",
    good='item = [{field = "system", map = {"ref-A" = "ref"}}, "seg_id"]',
    scope="dataset",
)
def without_judgments(model: Model) -> Iterator[Hit]:
    for stored in model.stored:
        if stored.block.recompute in (None, "none"):
            continue
        if not model.judged.get(stored.question, {}).get(stored.item):
            yield (
                stored.doc,
                stored.pointer,
                f"item {stored.item!r} has no judgment of {stored.question} to recompute the stored value from",
            )
