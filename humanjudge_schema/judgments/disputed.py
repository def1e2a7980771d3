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
from typing import Any, cast

from ..gcpause import paused
from .agreement import item_agreement
from .gather import AnswerSource, Gathered, GatheredQuestion, Key
from .summary import Disputed, DisputedItem, QuestionStats
from .view import Batch

__all__ = ["LOCATED_BYTES", "disputed", "ranked"]

# Files of a dataset up to this size are read once more to locate its disputed items (a fraction
# of a second); a larger dataset's items are listed by their names alone.
LOCATED_BYTES = 8 << 20


def ranked(q: GatheredQuestion, n: int, note: str | None = None) -> Disputed | None:
    """The n items of a question with the lowest agreement, lowest first and ties in the order
    the items first come, each with its answers, not yet located (`note` says why, where they
    will not be); None where the question has no alpha."""
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
    c = q.tally.counts()
    items = []
    for k in np.argsort(agreement, kind="stable")[:n].tolist():
        unit = int(units[k])
        item, option = cast(tuple[Hashable, Hashable], c.units[unit])
        items.append(DisputedItem(item, option, float(agreement[k]), _answers(c, unit, q.level == "nominal")))
    return Disputed(tuple(items), len(units), int((agreement < 0).sum()), note)


def disputed(gathered: Gathered, questions: tuple[QuestionStats, ...], n: int) -> tuple[QuestionStats, ...]:
    """The questions, each with alpha given its `n` most disputed items (`Disputed`), located
    where the dataset's files are at most LOCATED_BYTES."""
    try:
        located = sum(f.stat().st_size for f in gathered.view.files) <= LOCATED_BYTES
    except OSError:  # a file that cannot be read: its size is not known
        located = False
    note = None if located else f"not located: the dataset's files are over {LOCATED_BYTES >> 20} MB"
    found: dict[str, Disputed] = {}
    with paused():  # a few containers per item, beside the pass's millions (gcpause.py)
        for q in questions:
            gq = gathered.questions.get(q.question)
            if q.alpha is not None and gq is not None and (chosen := ranked(gq, n, note)) is not None:
                found[q.question] = chosen
        if located and found:
            keys = [("item", name, (i.item, i.option)) for name, d in found.items() for i in d.items]
            places = _located(gathered, keys)
            for name, d in found.items():
                items = [_at(i, places.get(("item", name, (i.item, i.option)))) for i in d.items]
                found[name] = replace(d, items=tuple(items))
    return tuple(replace(q, disputed=found[q.question]) if q.question in found else q for q in questions)


def _at(item: DisputedItem, where: AnswerSource | None) -> DisputedItem:
    return item if where is None else replace(item, file=where.file, pointer=where.pointer, line=where.line)


def _located(gathered: Gathered, keys: list[Key]) -> dict[Key, AnswerSource]:
    """Where the first answer to each item is: read item by item where the view gives its items
    (`Judgments.items`: rows are made for the wanted items only, ended once every item is
    found), else row by row (`Gathered.locate`)."""
    view = gathered.view
    if view.items is None:
        return gathered.locate(keys)
    wanted = set(keys)
    names = {key[2][0] for key in wanted}
    found: dict[Key, AnswerSource] = {}
    for run in view.by_item().runs:
        for k in [k for k, item in enumerate(run.items) if item in names]:
            for batch in run.rows(k, k + 1):
                _first(batch, wanted, found)
        if len(found) == len(wanted):
            break
    return found


def _first(batch: Batch, wanted: set[Key], found: dict[Key, AnswerSource]) -> None:
    """Add to `found` each wanted item's first answer in the batch."""

    def cells(name: str) -> Any:  # a column the batch holds as one value: that value in every row
        return [batch.same[name]] * batch.size if name in batch.same else batch.rows(name)

    names = ("item", "question", "option", "value", "file", "pointer", "line", "role")
    item, question, option, value, file, pointer, line, role = map(cells, names)
    for i in range(batch.size):
        key = ("item", question[i], (item[i], option[i]))
        if key in wanted and key not in found and value[i] is not None and role[i] == "individual":
            found[key] = AnswerSource(file[i], pointer[i], line[i], question[i])


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
