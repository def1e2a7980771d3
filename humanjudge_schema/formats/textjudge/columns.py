"""A TextJudge dataset's scores as one column per declared metric, and the bulk checks that tell
each score rule which score objects it needs to look at.

The score rules (rules/scores.py, rules/aggregates.py) are written for one score object at a time: that code says
what a finding is. Run over every object of a 100,000-instance dataset with 30 labels each,
those Python loops took 2 s. The checks here run over whole columns with built-in functions
(map, compress, set.issuperset, list.count, math.fsum: loops in C, no bytecode per score) and
keep only the objects where a rule could find something; the rule then looks at those exactly
as it would have looked at all of them.

Every check is a sufficient condition for "this rule finds nothing in this object", nothing
more: when in doubt (an unusual type, an exception) a check keeps the object.
tests/test_textjudge_stream.py runs each rule over all objects and over the kept ones, on
generated datasets, and asserts the same findings.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property
from itertools import chain, compress, count, repeat
from operator import add, and_, contains, getitem, is_not, itemgetter, lt, ne, not_, truediv
from typing import Any

try:  # the loop in C behind Counter.update, without Counter's checks per call
    from _collections import _count_elements  # type: ignore[import-not-found]
except ImportError:  # another implementation of Python

    def _count_elements(mapping: dict[Any, int], iterable: Iterable[Any]) -> None:
        for x in iterable:
            mapping[x] = mapping.get(x, 0) + 1


NUMBER_TYPES = frozenset({int, float})
_FLOAT = frozenset({float})
_NOTHING = {object(): 0}  # what every tally starts from, so that an empty list's top count is 0
COUNTED_LABELS = 4  # up to this many labels, scores are counted label by label (see label_counts)
_SCORES = itemgetter("individual_human_scores")


def positions(flags: Iterable[Any]) -> list[int]:
    """The positions of the true flags."""
    return list(compress(count(), flags))


class MetricColumn:
    """The score objects of one declared metric, in instance order."""

    def __init__(self, metric: str, decl: dict[str, Any], rows: list[int] | range, objs: list[dict[str, Any]]):
        self.metric = metric
        self.decl = decl
        self.category: str = decl["category"]
        self.rows = rows  # the instance index of each score object
        self.objs = objs

    def __len__(self) -> int:
        return len(self.objs)

    # --- the columns ----------------------------------------------------------------------

    @cached_property
    def lists(self) -> list[list[Any]]:
        return list(map(_SCORES, self.objs))

    @cached_property
    def lengths(self) -> list[int]:
        return list(map(len, self.lists))

    @cached_property
    def majorities(self) -> list[Any]:
        return list(map(dict.get, self.objs, repeat("majority_human")))

    @cached_property
    def means(self) -> list[Any]:
        return list(map(dict.get, self.objs, repeat("mean_human")))

    @cached_property
    def distinct(self) -> set[Any] | list[Any]:
        """Every distinct individual score of the column (1 and 1.0 are one): usually a few
        dozen values, which the questions below ask about instead of millions of scores."""
        try:
            return set(chain.from_iterable(self.lists))
        except TypeError:  # an unhashable score: the schema keeps them out, but never guess
            return list(chain.from_iterable(self.lists))

    @cached_property
    def score_types(self) -> frozenset[type]:
        """The types of the column's scores, enough to tell numbers from strings: a float equal
        to an integer score may show as int only (it is a whole number either way)."""
        return frozenset(map(type, self.distinct))

    @cached_property
    def labels(self) -> frozenset[Any]:
        labels = self.decl.get("labels_list")
        return frozenset(labels) if isinstance(labels, list) else frozenset()

    # --- which objects ---------------------------------------------------------------------

    def everything(self) -> list[int]:
        """Every object: what a check keeps when it cannot decide."""
        return list(range(len(self.objs)))

    @cached_property
    def empty(self) -> list[int]:
        """Objects without individual scores."""
        return positions(map(not_, self.lengths))

    @cached_property
    def label_counts(self) -> dict[Any, list[int]] | None:
        """label -> its count in each object's scores, for a short labels_list (None for a long
        one: one pass over the scores per label would cost more than hashing every score)."""
        labels = dict.fromkeys(self.decl.get("labels_list") or ())
        if not labels or len(labels) > COUNTED_LABELS:
            return None
        return {label: list(map(list.count, self.lists, repeat(label))) for label in labels}

    @cached_property
    def label_tallies(self) -> list[dict[Any, int]] | None:
        """Each object's scores counted into a dict that starts with every label of a long
        labels_list at 0 (None for a short or no labels_list): one pass over the scores answers
        both which objects hold a score that is no label (their dict grew) and how often the
        most frequent score of each occurs."""
        labels = dict.fromkeys(self.decl.get("labels_list") or (), 0)
        if len(labels) <= COUNTED_LABELS:
            return None
        tallies = list(map(dict.copy, repeat(labels, len(self.lists))))
        deque(map(_count_elements, tallies, self.lists), 0)
        return tallies

    @cached_property
    def unlabelled(self) -> list[int]:
        """Objects with an individual score that is not exactly one of labels_list."""
        counts = self.label_counts
        if counts is not None:  # labels counted: the others are what the counts leave over
            total: Iterable[int] = repeat(0)
            for row in counts.values():
                total = map(add, total, row)
            return positions(map(ne, total, self.lengths))
        try:
            tallies = self.label_tallies
            if tallies is not None:
                return positions(map(ne, map(len, tallies), repeat(len(self.labels))))
            return positions(map(not_, map(self.labels.issuperset, self.lists)))
        except TypeError:  # an unhashable score: the schema keeps them out, but never guess
            return self.everything()

    @cached_property
    def odd_majority(self) -> list[int]:
        """Objects with a majority_human that is neither null nor exactly one of labels_list."""
        allowed = self.labels | {None}
        try:
            return positions(map(not_, map(allowed.__contains__, self.majorities)))
        except TypeError:
            return self.everything()

    def not_only(self, types: frozenset[type]) -> list[int]:
        """Objects with an individual score of a type outside `types`."""
        if self.score_types <= types:
            return []
        return positions(map(not_, map(types.issuperset, map(frozenset, map(map, repeat(type), self.lists)))))

    def fractional(self) -> list[int]:
        """Objects with a float among their scores, when the column has a score that is not a
        whole number (a float equal to an integer is one, so only floats can be hidden by it)."""
        if not any(isinstance(x, float) and not x.is_integer() for x in self.distinct):
            return []
        return positions(map(not_, map(_FLOAT.isdisjoint, map(map, repeat(type), self.lists))))

    def majority_of(self, types: frozenset[type]) -> list[int]:
        """Objects whose majority_human is of one of `types`."""
        return positions(map(types.__contains__, map(type, self.majorities)))

    def having(self, key: str) -> list[int]:
        return positions(map(contains, self.objs, repeat(key)))

    def lacking(self, key: str) -> list[int]:
        return positions(map(not_, map(contains, self.objs, repeat(key))))

    def outside(self, lo: Any, hi: Any) -> list[int]:
        """Objects with a number outside [lo, hi] among their scores, or with anything but
        numbers (every object when the column holds anything but numbers)."""
        if not self.score_types <= NUMBER_TYPES:
            return self.everything()
        scores = self.distinct
        if not scores or (lo <= min(scores) and max(scores) <= hi):
            return []
        return positions(map(ne, map(_within, self.lists, repeat(lo), repeat(hi)), repeat(True)))

    def inexact_means(self) -> list[int]:
        """Objects whose mean_human is not exactly the mean of their scores computed as the rule
        computes it, or whose scores cannot be averaged here (empty, not numbers)."""
        if self.empty or not self.score_types <= NUMBER_TYPES:
            return self.everything()
        try:
            exact = map(truediv, map(math.fsum, self.lists), self.lengths)
            return positions(map(ne, exact, self.means))
        except (OverflowError, ValueError, TypeError):
            return self.everything()

    def outvoted(self) -> list[int]:
        """Objects with a majority_human (not null) that fewer of their scores give than some
        other score, and perhaps others (scores that are not labels). Scores are grouped by
        equality, as the majority rule groups them: 1 and 1.0 are one score."""
        try:
            return self._outvoted()
        except TypeError:  # an unhashable score or majority: the schema keeps them out
            return self.everything()

    def _outvoted(self) -> list[int]:
        given = list(map(is_not, self.majorities, repeat(None)))
        tallies = self.label_tallies
        if tallies is not None:  # every score counted already
            own: Iterable[int] = map(dict.get, tallies, self.majorities, repeat(0))
            return positions(map(and_, given, map(lt, own, map(max, map(dict.values, tallies)))))
        counts = self.label_counts
        if counts is not None:  # labels counted already: the other scores are in unlabelled
            rows = list(counts.values())
            top = map(max, *rows) if len(rows) > 1 else rows[0]
            # a majority that is no label is odd_majority's, and given by no label's count
            zeros = [0] * len(self.lists)
            own = map(getitem, map(counts.get, self.majorities, repeat(zeros)), range(len(self.lists)))
            return union(positions(map(and_, given, map(lt, own, top))), self.unlabelled)
        return self._outvoted_weak(given)

    def _outvoted_weak(self, given: list[bool]) -> list[int]:
        lists = self.lists
        own = list(map(list.count, lists, self.majorities))
        # Given by at least half of the scores, the majority is a most frequent one: the rest
        # cannot outnumber it. Only the others need every score counted.
        weak = positions(map(and_, given, map(lt, map(add, own, own), self.lengths)))
        if not weak:
            return []
        pick = itemgetter(*weak) if len(weak) > 1 else (lambda seq: (seq[weak[0]],))
        # Each tally starts with every score of the column at 0: counting then never grows it.
        start = dict.fromkeys(self.distinct, 0) if len(self.distinct) <= 256 else _NOTHING
        top = _top_counts(pick(lists), start or _NOTHING)
        return [weak[j] for j in positions(map(lt, pick(own), top))]


def _top_counts(lists: Sequence[list[Any]], start: dict[Any, int]) -> list[int]:
    """How often the most frequent score of each list occurs, each counted into a copy of
    `start` (a dict of zeros, not empty: the top count of an empty list is 0)."""
    tallies = list(map(dict.copy, repeat(start, len(lists))))
    deque(map(_count_elements, tallies, lists), 0)
    return list(map(max, map(dict.values, tallies)))


def _within(scores: list[Any], lo: Any, hi: Any) -> bool:
    return not scores or (lo <= min(scores) and max(scores) <= hi)


def union(*groups: Iterable[int]) -> list[int]:
    """Positions in any of the groups, in order."""
    out: set[int] = set()
    for g in groups:
        out.update(g)
    return sorted(out)


def columns(metrics: dict[str, dict[str, Any]], instances: list[dict[str, Any]], offset: int = 0) -> list[MetricColumn]:
    """One column per declared metric, of the instances scored on it; `offset` is the index of
    the first instance in the dataset."""
    annotations = list(map(itemgetter("annotations"), instances))
    out = []
    for metric, decl in metrics.items():
        found: list[Any] = list(map(dict.get, annotations, repeat(metric)))
        if None in found:  # not every instance is scored on it
            where = positions(map(is_not, found, repeat(None)))
            out.append(MetricColumn(metric, decl, [k + offset for k in where], [found[k] for k in where]))
        else:
            out.append(MetricColumn(metric, decl, range(offset, offset + len(found)), found))
    return out


Screen = Callable[[MetricColumn], Iterable[int]]


def kept(cols: list[MetricColumn], screen: Screen) -> Iterator[tuple[int, str, dict[str, Any], dict[str, Any]]]:
    """(instance index, metric, declaration, score object) of every object the screen keeps."""
    for col in cols:
        for k in screen(col):
            yield col.rows[k], col.metric, col.decl, col.objs[k]
