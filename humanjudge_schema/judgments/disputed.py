"""The items of a question whose judgments agree least, and where they are: what a curator asks
first of a report. An item's agreement is alpha's for that item alone (`agreement.item_agreement`:
1 - the mean distance between its own judgments over the question's expected one), so the items
are ranked by what alpha measures, and alpha is their mean weighted by their judgments.

Ranking costs a few numpy calls a question. Where each item's first answer is, is not kept by the
statistics' pass (it needs no pointers, docs/performance.md): it is looked up by one more reading
of the dataset, item by item where the view gives its items (rows made for the wanted items only),
else row by row (`Gathered.locate`), ended once every item is found; made only where the
dataset's files are at most LOCATED_BYTES, so that the lookup stays a small part of any report.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any

from ..gcpause import paused
from .agreement import item_agreement
from .gather import AnswerSource, Gathered, GatheredQuestion, Key
from .summary import Disputed, DisputedItem, QuestionStats
from .view import FIELDS

__all__ = ["LOCATED_BYTES", "disputed", "ranked"]

# Files of a dataset up to this size are read once more to locate its disputed items (a fraction
# of a second); a larger dataset's items are listed by their names alone.
LOCATED_BYTES = 16 << 20


def ranked(q: GatheredQuestion, n: int) -> tuple[list[tuple[int, float]], int, int] | None:
    """The n items of a question with the lowest agreement, lowest first and ties in the order
    the items first come, as (their index in the tally's units, agreement); how many items have
    two judgments or more, and how many of them agree less than chance. None where the question
    has no alpha."""
    import numpy as np

    if q.level is None:
        return None
    try:
        found = item_agreement(q.tally, q.level)
    except ValueError:  # values that do not suit the level: the statistics say so
        return None
    if found is None:
        return None
    units, agreement = found
    order = np.argsort(agreement, kind="stable")[:n]
    chosen = list(zip(units[order].tolist(), agreement[order].tolist(), strict=True))
    return chosen, len(units), int((agreement < 0).sum())


def disputed(
    gathered: Gathered, questions: tuple[QuestionStats, ...], n: int, size: int | None
) -> tuple[QuestionStats, ...]:
    """The questions, each with alpha given its `n` most disputed items (`Disputed`), located
    where the dataset's files (`size` bytes; None: unknown) are at most LOCATED_BYTES."""
    found: dict[str, tuple[list[tuple[Hashable, Hashable, float, tuple[tuple[Hashable, int], ...]]], int, int]] = {}
    for q in questions:
        gq = gathered.questions.get(q.question)
        if q.alpha is None or gq is None:
            continue
        chosen = ranked(gq, n)
        if chosen is None:
            continue
        c = gq.tally.counts()
        items = []
        for unit, agreement in chosen[0]:
            place: Any = c.units[unit]  # (item, option)
            item, option = place
            items.append((item, option, agreement, _answers(c, unit, gq.level == "nominal")))
        found[q.question] = (items, chosen[1], chosen[2])
    located = size is not None and size <= LOCATED_BYTES
    places: dict[Key, AnswerSource] = {}
    if located and found:
        keys = [("item", name, (item, option)) for name, (items, _, _) in found.items() for item, option, _, _ in items]
        places = _located(gathered, keys)
    note = None if located else f"not located: the dataset's files are over {LOCATED_BYTES >> 20} MB"
    out = []
    for q in questions:
        if q.question not in found:
            out.append(q)
            continue
        items, of, below = found[q.question]
        shown = []
        for item, option, agreement, answers in items:
            where = places.get(("item", q.question, (item, option)))
            at = (where.file, where.pointer, where.line) if where is not None else (None, "", None)
            shown.append(DisputedItem(item, option, agreement, answers, *at))
        out.append(replace(q, disputed=Disputed(tuple(shown), of, below, note)))
    return tuple(out)


def _located(gathered: Gathered, keys: list[Key]) -> dict[Key, AnswerSource]:
    """Where the first answer to each item is: read item by item where the view gives its items
    (`Judgments.items`: rows are made for the wanted items only), else by a pass over its rows
    (`Gathered.locate`); either ends once every item is found."""
    view = gathered.view
    wanted = set(keys)
    try:
        names = {key[2][0] for key in wanted}
    except TypeError:  # an item that is no key
        names = None
    if view.items is None or names is None:
        return gathered.locate(keys)
    found: dict[Key, AnswerSource] = {}
    at = {
        name: FIELDS.index(name) for name in ("item", "question", "option", "value", "file", "pointer", "line", "role")
    }
    with paused():
        for run in view.by_item().runs:
            for k in [k for k, item in enumerate(run.items) if item in names]:
                for batch in run.rows(k, k + 1):
                    for row in batch.tuples():
                        key = ("item", row[at["question"]], (row[at["item"]], row[at["option"]]))
                        if row[at["role"]] != "individual" or row[at["value"]] is None or key not in wanted:
                            continue
                        if key not in found:
                            found[key] = AnswerSource(row[at["file"]], row[at["pointer"]], row[at["line"]], key[1])
            if len(found) == len(wanted):
                break
    return found


def _answers(c: Any, unit: int, nominal: bool) -> tuple[tuple[Hashable, int], ...]:
    """An item's answers and how often each was given: the most frequent first for labels, in
    the values' order otherwise (as they come where they have none)."""
    start = int(c.starts[unit])
    stop = int(c.starts[unit + 1]) if unit + 1 < len(c.starts) else len(c.unit)
    pairs = [(c.values[v], k) for v, k in zip(c.value[start:stop].tolist(), c.count[start:stop].tolist(), strict=True)]
    if nominal:
        return tuple(sorted(pairs, key=lambda vn: -vn[1]))
    try:
        return tuple(sorted(pairs, key=lambda vn: vn[0]))
    except TypeError:
        return tuple(pairs)
