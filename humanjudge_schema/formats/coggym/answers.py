"""Questions about one tag's answers, answered the fast way.

A large individual-data file holds millions of answers, and a rule that builds a pointer per
answer costs seconds. Each question here is first put to what the interpreter gathers in C (the
set of the answers' types, their distinct values, their minimum and maximum), and the answers are
walked one by one, positions built, only when that says something is wrong. The test a rule
gives is the only statement of what is wrong: the quick look and the walk both apply it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain, compress, count
from operator import itemgetter
from typing import Any, TypeVar

from ...finding import pointer
from .parts import clicks_of

_LIST = frozenset({list})
_NUMBER = frozenset({int, float})


@dataclass(frozen=True)
class Shape:
    """The answer a query type stores: its JSON types and, for some types, a test of what it
    holds."""

    expected: str  # in words, for the message
    types: frozenset[type]
    holds: Callable[[Any], bool] | None = None

    def fits_all(self, arrays: list[list[Any]]) -> bool:
        """Whether every answer of every array has the shape: the set of their types, then the
        test (if any) mapped over them, without a position built."""
        if self.holds is None:
            return set(map(type, chain.from_iterable(arrays))) <= self.types
        answers = list(chain.from_iterable(arrays))
        return set(map(type, answers)) <= self.types and all(map(self.holds, answers))

    def misfits(self, answers: list[Any]) -> Iterator[int]:
        """Positions of the answers that do not have the shape. Parsed JSON has exact types, so
        the set of the answers' types decides a shape that is only types."""
        if self.holds is None and set(map(type, answers)) <= self.types:
            return
        for k, answer in enumerate(answers):
            if type(answer) not in self.types or (self.holds is not None and not self.holds(answer)):
                yield k


def _ranked(answer: list[Any]) -> bool:
    return all(isinstance(x, dict) and "rank" in x for x in answer)


_SHAPES = {
    "single-slider": Shape("a number", frozenset({int, float, type(None)})),
    "multi-choice": Shape("{idx, option_text}", frozenset({dict, int})),
    "multi-select": Shape("a row of 0/1 per option", _LIST),
    "multi-slider": Shape("{label: [values]}", frozenset({dict}), lambda answer: "idx" not in answer),
    "textbox": Shape("text", frozenset({str, type(None)})),
    "ranking": Shape("a list of {idx, option_text, rank}", _LIST, _ranked),
}


def shape_of(kind: str, clicks: int) -> Shape | None:
    """The shape of an answer to a query of this type (a single-slider with num_clicks above 1
    stores a list of clicks); None for a type whose answers have no shape to check."""
    if kind == "single-slider" and clicks > 1:
        return Shape(f"a list of {clicks} values (num_clicks)", _LIST)
    return _SHAPES.get(kind)


_IDX = itemgetter("idx")
_IDX_TEXT = itemgetter("idx", "option_text")
_INT = frozenset({int})


@dataclass
class Choices:
    """The choices of one tag's answers: each answer of a multi-choice (an {idx, option_text}
    object or a bare index), each ranked item of a ranking."""

    sid: str
    tag: str
    query: dict[str, Any]
    answers: list[Any]

    @functools.cached_property
    def distinct(self) -> set[tuple[int, Any]] | None:
        """The distinct (idx, option_text) of a multi-choice whose every answer is such an object
        with an integer idx, gathered in C; None otherwise. (An idx of 1.0 equals 1 in a set, but
        it is no index: it would hide the answers that have 1, or stand for them.)"""
        if self.query["type"] != "multi-choice":
            return None
        try:
            if set(map(type, map(_IDX, self.answers))) <= _INT:
                return set(map(_IDX_TEXT, self.answers))
        except (TypeError, KeyError):
            pass
        return None

    def bare(self) -> list[int]:
        """Positions of the answers that are a bare index instead of {idx, option_text}."""
        if self.distinct is not None:
            return []
        return [k for k, r in enumerate(self.answers) if isinstance(r, int) and not isinstance(r, bool)]

    def where(self, wrong: Callable[[Any, list[Any]], bool], options: list[Any]) -> Iterator[tuple[str, Any]]:
        """(pointer, choice) of every choice for which wrong(choice, options) holds. The test reads
        a choice's idx and option_text, so when every answer is an {idx, option_text} object it is
        put to each distinct pair only, and the answers whose pair is wrong are found in C."""
        distinct = self.distinct
        if distinct is None:
            for ptr, choice in self._each():
                if wrong(choice, options):
                    yield ptr, choice
            return
        bad = wrong_pairs(distinct, wrong, options)
        if bad:
            for k, pair in enumerate(map(_IDX_TEXT, self.answers)):
                if pair in bad:
                    yield pointer(self.sid, self.tag, k), self.answers[k]

    def _each(self) -> Iterator[tuple[str, Any]]:
        sid, tag = self.sid, self.tag
        if self.query["type"] == "ranking":
            for k, r in enumerate(self.answers):
                if isinstance(r, list):
                    for j, x in enumerate(r):
                        yield f"{pointer(sid, tag, k)}/{j}", x
        else:
            for k, r in enumerate(self.answers):
                yield pointer(sid, tag, k), r


def wrong_pairs(
    pairs: set[tuple[int, Any]], wrong: Callable[[Any, list[Any]], bool], options: list[Any]
) -> set[tuple[int, Any]]:
    """The (idx, option_text) pairs for whose choice wrong(choice, options) holds."""
    return {(i, t) for i, t in pairs if wrong({"idx": i, "option_text": t}, options)}


def choice_pairs(arrays: list[list[Any]]) -> set[tuple[int, Any]] | None:
    """The distinct (idx, option_text) of many multi-choice tags' answers, when every answer is
    such an object with an integer idx (see Choices.distinct); None otherwise."""
    answers = list(chain.from_iterable(arrays))
    try:
        if set(map(type, map(_IDX, answers))) <= _INT:
            return set(map(_IDX_TEXT, answers))
    except (TypeError, KeyError):
        pass
    return None


def rows_where(
    answers: list[Any], problem: Callable[[Any, int], str | None], n: int, fine: set[tuple[Any, ...]]
) -> Iterator[tuple[int, str]]:
    """(position, problem) of every answer that is a list (a row) and of which problem(row, n)
    says something. When every answer is a row of numbers, only its distinct rows (as tuples)
    that are not known to be fine are put to the test, and the rows that are wrong are found in
    C; `fine` is where the caller keeps the rows found fine, from one array to the next."""
    if set(map(type, answers)) <= _LIST:
        try:
            distinct = set(map(tuple, answers))
        except TypeError:  # a row holding an object: each row on its own
            pass
        else:
            bad = {row for row in distinct - fine if problem(row, n)}
            fine |= distinct - bad
            if bad:
                for k in compress(count(), map(bad.__contains__, map(tuple, answers))):
                    said = problem(answers[k], n)  # the list says what its tuple said
                    if said:
                        yield k, said
            return
    for k, row in enumerate(answers):
        if isinstance(row, list):
            said = problem(row, n)
            if said:
                yield k, said


def slider_arrays(kind: str, answers: list[Any]) -> Iterator[tuple[tuple[object, ...], list[Any]]]:
    """(path below the tag, list of values) of every array of slider values of one tag: each
    label's values of a multi-slider; each participant's clicks and the single values of a
    single-slider."""
    if kind == "multi-slider":
        for k, r in enumerate(answers):
            if isinstance(r, dict):
                for label, values in r.items():
                    if isinstance(values, list):
                        yield (k, label), values
        return
    if list not in set(map(type, answers)):
        yield (), answers
        return
    for k, r in enumerate(answers):
        if isinstance(r, list):
            yield (k,), r
    yield (), [r for r in answers if not isinstance(r, list)]


def outside(values: list[Any], lo: float, hi: float) -> list[int]:
    """Positions of the numbers (a bool or null is none) outside [lo, hi]. The minimum and the
    maximum decide the common case; values that do not compare (a string among numbers) are the
    schema's or coggym/response-shape's finding, and none is reported here."""
    numbers = [v for v in values if v is not None] if None in values else values
    try:
        if not numbers or (lo <= min(numbers) and max(numbers) <= hi):
            return []
    except TypeError:
        return []
    return [j for j, v in enumerate(values) if type(v) in _NUMBER and not lo <= v <= hi]


T = TypeVar("T")
Tag = tuple[str, str, dict[str, Any], Any]  # (stimulus id, tag, query, its answers): model.Response
# a query's type, num_clicks (1 but for sliders), slider range, number of options (None: unread)
Facts = tuple[str, int | None, Any, int | None]


def unsettled(
    tags: list[Tag], groups: dict[Facts, list[Tag]], settled: Callable[[Facts, list[Any]], bool]
) -> list[Tag]:
    """The tags, in their order, that a rule must look at one by one. `groups` are the same
    tags by the facts of their query (Experiment.alike); a group of which settled(facts, their
    answer arrays) says that every answer is fine is left out whole. An experiment of 10,000
    stimuli has 50,000 tags: a look at each costs a microsecond per rule per tag, the look at a
    group a few nanoseconds per answer."""
    left = [g for k, g in groups.items() if not settled(k, [t[3] for t in g])]
    return tags if len(left) == len(groups) else in_order(tags, chain.from_iterable(left))


def in_order(items: list[T], chosen: Iterable[T]) -> list[T]:
    """The chosen items (the same objects, found by identity), in the order of `items`."""
    wanted = set(map(id, chosen))
    return [x for x in items if id(x) in wanted] if wanted else []


# --- the ratings of one tag, as judgment_count counts them -----------------------------------


def ratings_of(query: dict[str, Any], responses: Any, broken: bool) -> int | None:
    """The number of individual ratings in one tag's responses, as judgment_count counts them:
    one per answer (nulls included), one per click when num_clicks > 1, one per multi-select row,
    and one per label value for multi-slider. `broken`: the array has a schema error inside.
    None when the number cannot be known: not an array, or a count inside the elements
    (num_clicks, the labels of a multi-slider) whose containers are not there; one per element
    holds even when an element breaks the schema."""
    if not isinstance(responses, list):
        return None
    kind = query["type"]
    if kind == "multi-slider":
        if broken and not all(
            isinstance(r, dict) and r and all(isinstance(v, list) for v in r.values()) for r in responses
        ):
            return None
        return sum(len(v) for r in responses if isinstance(r, dict) for v in r.values() if isinstance(v, list))
    if kind == "single-slider":
        clicks = clicks_of(query)
        if clicks is None or (clicks != 1 and broken and any(isinstance(r, dict) for r in responses)):
            return None
        if clicks > 1:
            return sum(len(r) if isinstance(r, list) else 1 for r in responses)
    return len(responses)
