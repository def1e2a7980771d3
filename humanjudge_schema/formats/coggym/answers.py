"""Questions about one tag's answers, answered the fast way.

A large individual-data file holds millions of answers, and a rule that builds a pointer per
answer costs seconds. Each question here is first put to what the interpreter gathers in C (the
set of the answers' types, their distinct values, their minimum and maximum), and the answers are
walked one by one, positions built, only when that says something is wrong. The test a rule
gives is the only statement of what is wrong: the quick look and the walk both apply it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain, compress, count, repeat
from operator import contains, itemgetter
from typing import Any

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
        """Whether every answer of every array has the shape, decided in C (False: look at each)."""
        if self.holds is None:
            return set(map(type, chain.from_iterable(arrays))) <= self.types
        answers = list(chain.from_iterable(arrays))
        if not set(map(type, answers)) <= self.types:
            return False
        return self.holds is _no_idx and not any(map(contains, answers, repeat("idx")))

    def misfits(self, answers: list[Any]) -> Iterator[int]:
        """Positions of the answers that do not have the shape. Parsed JSON has exact types, so
        the set of the answers' types decides a shape that is only types."""
        if self.holds is None and set(map(type, answers)) <= self.types:
            return
        for k, answer in enumerate(answers):
            if type(answer) not in self.types or (self.holds is not None and not self.holds(answer)):
                yield k


def _no_idx(answer: dict[str, Any]) -> bool:
    return "idx" not in answer


def _ranked(answer: list[Any]) -> bool:
    return all(isinstance(x, dict) and "rank" in x for x in answer)


_SHAPES = {
    "single-slider": Shape("a number", frozenset({int, float, type(None)})),
    "multi-choice": Shape("{idx, option_text}", frozenset({dict, int})),
    "multi-select": Shape("a row of 0/1 per option", _LIST),
    "multi-slider": Shape("{label: [values]}", frozenset({dict}), _no_idx),
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
        bad = {(i, t) for i, t in distinct if wrong({"idx": i, "option_text": t}, options)}
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
    if len(left) == len(groups):
        return tags
    wanted = set(map(id, chain.from_iterable(left)))
    return [t for t in tags if id(t) in wanted] if wanted else []


# --- the ratings of one tag, as judgment_count counts them -----------------------------------


def label_arrays(responses: Any) -> bool:
    """A multi-slider's usual answer: one object, not empty, of arrays only."""
    return (
        type(responses) is list
        and len(responses) == 1
        and type(responses[0]) is dict
        and bool(responses[0])
        and set(map(type, responses[0].values())) <= {list}
    )


# Query types whose answers are counted one each (judgment_count_of), whatever they hold.
_ONE_EACH = frozenset({"multi-choice", "multi-select", "textbox", "ranking"})


def one_each(q: dict[str, Any]) -> bool:
    """Whether every answer to the query is one rating, whatever it holds (a single-slider of
    one click, and the types above)."""
    return q["type"] in _ONE_EACH or (q["type"] == "single-slider" and clicks_of(q) == 1)


def countable(q: dict[str, Any], responses: list[Any], broken: bool) -> bool:
    """Whether judgment_count_of gives the number of ratings of an array. One per element does,
    even when an element breaks the schema; a count inside the elements (num_clicks, the labels of
    a multi-slider) does when the containers it counts are there, whatever their contents."""
    if q["type"] == "single-slider":
        clicks = clicks_of(q)
        return clicks is not None and (clicks == 1 or not broken or not any(isinstance(r, dict) for r in responses))
    if q["type"] == "multi-slider" and broken:
        return all(isinstance(r, dict) and r and all(isinstance(v, list) for v in r.values()) for r in responses)
    return True


def judgment_count_of(query: dict[str, Any], responses: list[Any]) -> int:
    """The number of individual ratings in one tag's responses, as judgment_count counts them:
    one per answer (nulls included), one per click when num_clicks > 1, one per multi-select row,
    and one per label value for multi-slider."""
    if query["type"] == "multi-slider":
        return sum(len(v) for r in responses if isinstance(r, dict) for v in r.values() if isinstance(v, list))
    if query["type"] == "single-slider" and (clicks_of(query) or 1) > 1:
        return sum(len(r) if isinstance(r, list) else 1 for r in responses)
    return len(responses)
