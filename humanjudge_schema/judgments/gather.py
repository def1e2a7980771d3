"""One pass over a dataset's judgments, kept per question: what `stats` and the quality checks
both read (the value counts of each item, who answered what, where each first was)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .agreement import Tally
from .view import Judgment, Judgments, Level

Place = tuple[Any, Any]  # (item, option): what raters judged together


class Where(NamedTuple):
    """A judgment a finding is about: where it is, and its question."""

    file: str
    pointer: str
    line: int | None
    question: str


def _where(row: Judgment) -> Where:
    return Where(row.file, row.pointer, row.line, row.question)


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
        for row in view.rows():
            out._add(row)
        return out

    def sizes(self, question: str) -> dict[Place, int]:
        """item -> its judgments, of one question."""
        per_item = self.questions[question].tally.per_item()
        return {unit: sum(c.values()) for unit, c in per_item.items()}  # type: ignore[misc]  # units are Places

    def _add(self, row: Judgment) -> None:
        q = self.questions.get(row.question)
        if q is None:
            declared = self.view.questions.get(row.question)
            q = self.questions[row.question] = Question(declared.level if declared else None, _where(row))
        if row.value is None:
            q.missing += 1
            return
        unit = (row.item, row.option)
        value = _hashable(row.value)
        q.tally.add(unit, value)
        if unit not in q.unit_first:
            q.unit_first[unit] = _where(row)
        if self.view.raters and row.rater != "":
            answers = q.by_rater.setdefault(row.rater, {})
            answers.setdefault(unit, value)
            if row.rater not in q.rater_first:
                q.rater_first[row.rater] = _where(row)
