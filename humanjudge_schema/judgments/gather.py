"""One pass over a dataset's judgments, kept per question: what `stats` and the quality checks
both read (the value counts of each item, who answered what, where each first was)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import is_not
from typing import Any, NamedTuple

from ..gcpause import paused
from .agreement import Tally
from .view import Batch, Judgments, Level

Place = tuple[Any, Any]  # (item, option): what raters judged together


class Where(NamedTuple):
    """A judgment a finding is about: where it is, and its question."""

    file: str
    pointer: str
    line: int | None
    question: str


def _hashable(value: Any) -> Hashable:
    return tuple(map(_hashable, value)) if isinstance(value, list) else value


@dataclass
class Question:
    """What the checks keep of one question's judgments."""

    level: Level | None
    first: Where
    tally: Tally = field(default_factory=Tally)
    missing: int = 0  # answers the format counts but that say nothing (None)
    unit_first: dict[Place, Where] = field(default_factory=dict)
    by_rater: dict[Hashable, dict[Place, Hashable]] = field(default_factory=dict)  # rater -> unit -> value
    rater_first: dict[Hashable, Where] = field(default_factory=dict)


@dataclass
class Gathered:
    """One pass over a dataset's judgments: per question, the facts every check needs. An item is
    the row's item and option together (a multi-slider label, a click), as in the statistics."""

    view: Judgments
    questions: dict[str, Question] = field(default_factory=dict)

    @classmethod
    def of(cls, view: Judgments) -> Gathered:
        out = cls(view)
        with paused():  # the facts kept are millions of containers (gcpause.py)
            for batch in view.in_batches():
                if batch.size:
                    out._add(batch)
        return out

    def sizes(self, question: str) -> dict[Place, int]:
        """item -> its judgments, of one question."""
        per_item = self.questions[question].tally.per_item()
        return {unit: sum(c.values()) for unit, c in per_item.items()}  # type: ignore[misc]  # units are Places

    def _add(self, batch: Batch) -> None:
        """Add a batch, column by column: the value counts of (question, item, value) are counted
        in C, then added once per distinct triple, which is far fewer than the rows where raters
        agree; only the raters' answers are read row by row, where the format names raters."""
        n = batch.size
        names = list(batch.column("question"))
        values: list[Any] = list(batch.column("value"))
        if list in set(map(type, values)):
            values = list(map(_hashable, values))
        units = list(zip(batch.column("item"), batch.column("option"), strict=True))
        where = _Rows(batch, names)
        for name, i in _firsts(names, range(n)).items():  # in the order the questions first come
            if name not in self.questions:
                declared = self.view.questions.get(name)
                self.questions[name] = Question(declared.level if declared else None, where(i))
        given = list(map(is_not, values, repeat(None)))
        for (name, unit), i in _firsts(zip(names, units, strict=True), range(n), given).items():
            self.questions[name].unit_first.setdefault(unit, where(i))
        for (name, unit, value), times in Counter(zip(names, units, values, strict=True)).items():
            q = self.questions[name]
            if value is None:
                q.missing += times
            else:
                q.tally.add(unit, value, times)
        if self.view.raters:
            self._add_raters(batch, names, units, values, where)

    def _add_raters(self, batch: Batch, names: list[str], units: list[Place], values: list[Any], where: _Rows) -> None:
        """Each rater's first answer to each item, and where the rater first answered."""
        rows = zip(names, batch.column("rater"), units, values, strict=True)
        for i, (name, rater, unit, value) in enumerate(rows):
            if value is None or rater == "":
                continue
            q = self.questions[name]
            answers = q.by_rater.get(rater)
            if answers is None:
                answers = q.by_rater[rater] = {}
                q.rater_first[rater] = where(i)
            answers.setdefault(unit, value)


def _firsts(keys: Iterable[Hashable], indices: Iterable[int], keep: list[bool] | None = None) -> dict[Any, int]:
    """Each key -> the index of its first row (of the rows kept), keys in the order they first
    come; built in C: the dict of the reversed rows keeps each key's first index, and the order
    of first appearance is read from the keys in order."""
    keys, indices = list(keys), list(indices)
    if keep is not None:
        keys, indices = list(compress(keys, keep)), list(compress(indices, keep))
    first = dict(zip(reversed(keys), reversed(indices), strict=True))
    return {key: first[key] for key in dict.fromkeys(keys)}


class _Rows:
    """The place of a batch's row i, made when a fact needs it."""

    def __init__(self, batch: Batch, names: list[str]) -> None:
        self.batch, self.names = batch, names

    def __call__(self, i: int) -> Where:
        return Where(self._cell("file", i), self._cell("pointer", i), self._cell("line", i), self.names[i])

    def _cell(self, name: str, i: int) -> Any:
        column = self.batch.lists.get(name)
        return self.batch.same[name] if column is None else column[i]
