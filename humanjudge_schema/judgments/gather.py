"""One pass over a dataset's judgments, kept per question: what `stats` and the quality checks
both read (the value counts of each item, who answered what). Where a judgment is, which only a
finding needs, is looked up afterwards for the few judgments findings are about (`locate`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from itertools import compress, groupby, repeat
from operator import is_, is_not
from typing import Any, NamedTuple

from ..gcpause import paused
from .agreement import Tally
from .view import Batch, Judgments, Level

Place = tuple[Any, Any]  # (item, option): what raters judged together
# A judgment a finding is about, to be located: the first judgment of a question
# ("question", name), the first answer to an item ("item", name, place), or a rater's first
# answer ("rater", name, rater), or a rater's first answer to an item ("answer", name, rater, place).
# Answers are judgments that are not None.
Key = tuple[Any, ...]


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
    tally: Tally = field(default_factory=Tally)
    missing: int = 0  # answers the format counts but that say nothing (None)
    # Each rater's answer to each unit, keyed (rater, unit) as they come: a batch's answers are
    # added with one dict.update in C; `by_rater` groups them by rater when first asked.
    answers: dict[tuple[Hashable, Place], Hashable] = field(default_factory=dict)
    # The question's aggregate rows (stored means, majorities, proportions): a question with
    # aggregates and no individual judgment has them only, and no agreement can be computed.
    aggregates: int = 0
    _grouped: dict[Hashable, dict[Place, Hashable]] | None = field(default=None, repr=False)

    @property
    def by_rater(self) -> dict[Hashable, dict[Place, Hashable]]:
        """rater -> unit -> value, raters in the order of their first answer (built once, after
        the pass)."""
        if self._grouped is None:
            grouped: dict[Hashable, dict[Place, Hashable]] = {}
            for (rater, unit), value in self.answers.items():
                mine = grouped.get(rater)
                if mine is None:
                    grouped[rater] = {unit: value}
                else:
                    mine[unit] = value
            self._grouped = grouped
        return self._grouped


class Repeat(NamedTuple):
    """A rater's second (or later) answer to an item, where raters are persons: left out of the
    question's figures. `where` is the repeat; the first answer is located by its Key."""

    question: str
    rater: Hashable
    place: Place
    where: Where


@dataclass
class Gathered:
    """One pass over a dataset's judgments: per question, the facts every check needs. An item is
    the row's item and option together (a multi-slider label, a click), as in the statistics."""

    view: Judgments
    questions: dict[str, Question] = field(default_factory=dict)
    repeats: list[Repeat] = field(default_factory=list)
    _unanswered: set[tuple[str, Hashable, Place]] = field(default_factory=set, repr=False)  # None answers

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
        agree; only the raters' answers are read row by row, where raters are persons."""
        for name in dict.fromkeys(batch.column("question")):  # in the order the questions first come
            self._question(name)
        mine, aggregates = _individual(batch)
        for name, n in Counter(aggregates).items():
            self.questions[name].aggregates += n
        if mine is None:
            return
        batch = mine
        names = list(batch.column("question"))
        values = _values(batch)
        units = list(zip(batch.column("item"), batch.column("option"), strict=True))
        if self.view.persons:
            names, units, values = self._firsts_only(batch, names, units, values)
        counted = Counter(zip(names, units, values, strict=True))
        for name, triples in groupby(counted.items(), key=_question_of):  # runs of one question
            q = self.questions[name]
            q.missing += q.tally.add_counts((unit, value, times) for (_, unit, value), times in triples)

    def _question(self, name: str) -> Question:
        q = self.questions.get(name)
        if q is None:
            declared = self.view.questions.get(name)
            q = self.questions[name] = Question(declared.level if declared else None)
        return q

    def _firsts_only(
        self, batch: Batch, names: list[str], units: list[Place], values: list[Any]
    ) -> tuple[list[str], list[Place], list[Any]]:
        """The rows that are each rater's first answer to an item (a rater's later answers are
        noted as repeats), and each rater's answers kept. A rater's answers are the record of
        what they answered; the few missing answers (None) are kept apart. A run of one question
        whose raters all have a name, whose answers all say something and whose (rater, unit)
        pairs are new is added in C (the common case: one array of answers); the others row by row."""
        raters = list(batch.column("rater"))
        keep: list[bool] = []
        start = 0
        for name, run in groupby(names):
            end = start + sum(1 for _ in run)
            q = self.questions[name]
            keys = list(zip(raters[start:end], units[start:end], strict=True))
            answered = values[start:end]
            new = len(set(keys)) == len(keys) and q.answers.keys().isdisjoint(keys)
            if new and "" not in raters[start:end] and None not in answered and not self._unanswered_in(name):
                q.answers.update(zip(keys, answered, strict=True))
                q._grouped = None
                keep.extend(repeat(True, end - start))
            else:
                keep.extend(self._one_by_one(batch, names, keys, answered, start))
            start = end
        if all(keep):
            return names, units, values
        return list(compress(names, keep)), list(compress(units, keep)), list(compress(values, keep))

    def _unanswered_in(self, name: str) -> bool:
        return bool(self._unanswered) and any(key[0] == name for key in self._unanswered)

    def _one_by_one(
        self, batch: Batch, names: list[str], keys: list[tuple[Hashable, Place]], values: list[Any], start: int
    ) -> list[bool]:
        """Which rows of a run of one question to keep, looked at one by one."""
        unanswered, keep = self._unanswered, []
        q = self.questions[names[start]]
        q._grouped = None
        for i, (key, value) in enumerate(zip(keys, values, strict=True), start):
            rater, unit = key
            if rater == "":
                keep.append(True)
                continue
            if key in q.answers or (unanswered and (names[i], rater, unit) in unanswered):
                keep.append(False)
                self.repeats.append(Repeat(names[i], rater, unit, _where(batch, names, i)))
                continue
            keep.append(True)
            if value is None:
                unanswered.add((names[i], rater, unit))
            else:
                q.answers[key] = value
        return keep

    def locate(self, keys: Iterable[Key]) -> dict[Key, Where]:
        """Where each judgment a finding is about is (see Key): one more pass over the judgments,
        made only when there are findings, and ended as soon as every key is found."""
        wanted = set(keys)
        found: dict[Key, Where] = {}
        with paused():
            for batch in self.view.in_batches():
                if batch.size:
                    found.update(_firsts(batch, wanted - found.keys(), self.view.persons))
                if len(found) == len(wanted):
                    break
        return found


def _individual(batch: Batch) -> tuple[Batch | None, list[str]]:
    """The batch's individual judgments (None: it has none), and the question of each of its
    aggregate rows."""
    role = batch.same.get("role")
    if role == "individual":
        return batch, []
    if role is not None:
        return None, list(batch.column("question"))
    mine = [r == "individual" for r in batch.lists["role"]]
    names = list(batch.column("question"))
    aggregates = [name for name, m in zip(names, mine, strict=True) if not m]
    if not aggregates:
        return batch, []
    if not any(mine):
        return None, aggregates
    lists = {name: list(compress(column, mine)) for name, column in batch.lists.items()}
    return Batch(batch.same, lists), aggregates


def _values(batch: Batch) -> list[Any]:
    """A batch's values, lists made tuples (they are compared whole)."""
    values = list(batch.column("value"))
    for i in compress(range(batch.size), map(is_, map(type, values), repeat(list))):
        values[i] = _hashable(values[i])
    return values


def _question_of(entry: tuple[tuple[str, Place, Any], int]) -> str:
    return entry[0][0]


def _firsts(batch: Batch, wanted: set[Key], raters: bool) -> dict[Key, Where]:
    """Where in the batch each wanted key first is, among its individual judgments."""
    mine, _ = _individual(batch)
    if mine is None:
        return {}
    batch = mine
    names = list(batch.column("question"))
    rows: dict[Key, int] = {}
    if any(key[0] == "question" for key in wanted):
        rows.update(_first_rows(zip(repeat("question"), names), range(batch.size)))
    given = list(map(is_not, batch.column("value"), repeat(None)))
    if any(key[0] == "item" for key in wanted):
        places = zip(batch.column("item"), batch.column("option"), strict=True)
        rows.update(_first_rows(zip(repeat("item"), names, places), range(batch.size), given))
    if raters and any(key[0] == "rater" for key in wanted):
        known = list(map(is_not, batch.column("rater"), repeat("")))
        keep = list(map(bool.__and__, given, known))
        rows.update(_first_rows(zip(repeat("rater"), names, batch.column("rater")), range(batch.size), keep))
    if raters and any(key[0] == "answer" for key in wanted):
        places = zip(batch.column("item"), batch.column("option"), strict=True)
        answers = zip(repeat("answer"), names, batch.column("rater"), places)
        rows.update(_first_rows(answers, range(batch.size)))
    return {key: _where(batch, names, rows[key]) for key in wanted if key in rows}


def _first_rows(keys: Iterable[Key], indices: Iterable[int], keep: list[bool] | None = None) -> dict[Key, int]:
    """Each key -> the index of its first row (of the rows kept), built in C: the dict of the
    reversed rows keeps each key's first index."""
    keys, indices = list(keys), list(indices)
    if keep is not None:
        keys, indices = list(compress(keys, keep)), list(compress(indices, keep))
    return dict(zip(reversed(keys), reversed(indices), strict=True))


def _where(batch: Batch, names: list[str], i: int) -> Where:
    def cell(name: str) -> Any:
        column = batch.lists.get(name)
        return batch.same[name] if column is None else column[i]

    return Where(cell("file"), cell("pointer"), cell("line"), names[i])
