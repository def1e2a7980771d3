"""Matching two versions of a dataset's judgments, read as streams.

Individual judgments are matched by (question, item, rater, option), stored aggregates by
(question, item, option) and what the aggregate is (the last name of its pointer: `mean_human`
beside `majority_human`). Both versions are read in step, a few thousand rows at a time: runs
of rows whose keys are the same in both are compared a slice at a time in C, and where the keys
part, the next row of one version is looked for a few thousand rows ahead in the other (a
judgment removed or added there); what is found nowhere near is kept aside until its partner
comes, or the end. Two versions that differ in a few places therefore cost one reading of each,
and the memory of what differs; versions whose rows are reordered throughout cost the memory of
what is kept aside."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from itertools import compress, repeat
from operator import is_not, itemgetter, ne, or_
from typing import Any

from ..judgments.view import Batch, JudgmentCounts, hashable
from .model import Example, Kind, Named, moved, shown

Key = tuple[Any, ...]  # (question, item, rater, option)
# A stored aggregate's value, file, pointer, line and ordinal (as a row's, `Where`)
Stored = tuple[Any, str, str, "int | None", Any]
# file, pointer, line, and the row's ordinal, which grows with the version's rows: the examples
# shown are the first of their kind in the version's order, however matching came upon them
RowSource = tuple[str, str, "int | None", Any]

COLUMNS = ("question", "item", "rater", "option", "value", "file", "pointer", "line")
CHUNK = 4096  # rows compared at once, at most
AHEAD = 4096  # how far ahead a row's partner is looked for
# Rows compared at once after the versions parted: doubled while they agree, up to CHUNK, so that
# a stretch where they differ throughout costs a short slice per row, not a chunk.
SPAN = 16


def same(a: Any, b: Any) -> bool:
    """Whether two values are the same answer: numbers by value (1 == 1.0), a boolean only as the
    same boolean (true is not 1), lists element by element, NaN the same as NaN."""
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta is float and tb is float and math.isnan(a) and math.isnan(b):
        return True
    if ta is list and tb is list:
        return len(a) == len(b) and all(map(same, a, b))
    return bool(a == b)


class Side:
    """One version's judgments as it is read: the individual rows buffered as parallel lists
    for the matcher, and, on the way, what the figures need (judgments per question, the items
    and raters of each question) and every stored aggregate. Where the versions are compared item
    by item (items.py), every item comes as a JudgmentCounts, what it adds to the judgments per question
    and the raters, and only the items that differ as rows too (an item equal in both can be
    added or removed in neither version, and its rows match)."""

    def __init__(self, batches: Iterator[Batch | JudgmentCounts | Rest], places: dict[Any, int] | None = None) -> None:
        self._batches = batches
        self.done = False
        # Compared item by item: each item's place among the version's items, for the items whose
        # rows are made (they come in the order they were found to differ: a row's ordinal is
        # its item's place, then its arrival)
        self.places = places
        self.after = False  # past the items (Rest)
        # the buffered rows, a list per column (COLUMNS, then the ordinals): slices of rows are
        # compared a column at a time, and a row's key is made a tuple only where the versions
        # part (`key`, `index`)
        self.columns: tuple[list[Any], ...] = tuple([] for _ in range(len(COLUMNS) + 1))
        self.questions, self.items, self.raters, self.options, self.values = self.columns[:5]
        self.files, self.pointers, self.lines, self.ordinals = self.columns[5:]
        self.taken = 0  # rows taken in so far, aggregates included: the next ordinal
        self.counts: Counter[str] = Counter()
        self.item_set: set[tuple[str, Any]] = set()
        self.rater_set: set[tuple[str, Any]] = set()
        # keys made tuples from a row on, and the first place of each among them (index)
        self._window: tuple[int, list[Key], dict[Key, int]] = (0, [], {})
        self.aggregates: dict[Key, Stored] = {}

    def fill(self, size: int) -> None:
        """Read until `size` rows are buffered, or the end."""
        while not self.done and len(self.questions) < size:
            batch = next(self._batches, None)
            if batch is None:
                self.done = True
            elif isinstance(batch, JudgmentCounts):  # a tally of items (items.py)
                self.counts.update(batch.counts)
                self.rater_set.update(batch.raters)
            elif isinstance(batch, Rest):  # the rows that belong to no item: counted as rows
                self.after = True
            elif batch.size:
                self._take(batch)

    def drop(self, n: int) -> None:
        """Forget the first n buffered rows (matched already)."""
        for column in self.columns:
            del column[:n]
        start, window, places = self._window
        self._window = (start - n, window, places) if start >= n else (0, [], {})

    def __len__(self) -> int:
        return len(self.questions)

    def key(self, i: int) -> Key:
        return self.questions[i], self.items[i], self.raters[i], self.options[i]

    def keys(self, start: int, stop: int) -> tuple[list[Any], ...]:
        """The key columns of rows start to stop."""
        return tuple(column[start:stop] for column in (self.questions, self.items, self.raters, self.options))

    def index(self, key: Key, start: int, stop: int) -> int | None:
        """The first row from start to stop whose key is `key`. The keys are made tuples a window of
        rows at a time, with the first place of each key in a dict, kept while the search moves
        within the window: where the versions differ throughout, a row costs a tuple and a dict
        entry, not a scan of the window."""
        first, window, places = self._window
        stop = min(stop, len(self))
        if not (first <= start and stop <= first + len(window)):
            first, window = start, list(zip(*self.keys(start, start + 2 * (stop - start)), strict=True))
            places = dict(zip(reversed(window), range(len(window) - 1, -1, -1), strict=True))  # first place wins
            self._window = (first, window, places)
        at = places.get(key)
        if at is None or at + first >= stop:
            return None
        if at + first >= start:
            return at + first
        try:  # the key is there before start too: a key found twice in a version
            return window.index(key, start - first, stop - first) + first
        except ValueError:
            return None

    def where(self, i: int) -> RowSource:
        return self.files[i], self.pointers[i], self.lines[i], self.ordinals[i]

    def _take(self, batch: Batch) -> None:
        aggregates = batch.size - batch.of_role("individual")
        if aggregates:  # stored aggregates, before the individual rows
            others = None if aggregates == batch.size else list(map(ne, batch.rows("role"), repeat("individual")))
            self._aggregates(batch if others is None else batch.kept(others))
        individual = batch.individual()
        if individual is None:
            return
        questions, items, raters = (individual.rows(name) for name in ("question", "item", "rater"))
        for name, column in zip(COLUMNS, self.columns, strict=False):
            column.extend(individual.rows(name))
        self.ordinals.extend(self._ordinals(items, len(questions)))
        self.item_set.update(zip(questions, items, strict=True))
        if self.places is None or self.after:  # else the tallies count them
            self.counts.update(questions)
            self.rater_set.update(zip(questions, raters, strict=True))

    def _ordinals(self, items: Iterable[Any], n: int) -> Iterable[Any]:
        """The ordinals of the next n rows, whose items are `items`: their place in the version's
        rows, or where the versions are compared item by item, (their item's place, the order
        they came in)."""
        start = self.taken
        self.taken += n
        if self.places is None:
            return range(start, start + n)
        if self.after:
            return zip(repeat(Rest.AFTER), range(start, start + n))
        return zip(map(self.places.__getitem__, items), range(start, start + n), strict=True)

    def _aggregates(self, batch: Batch) -> None:
        pointers, items = batch.rows("pointer"), batch.rows("item")
        names = [p.rpartition("/")[2] for p in pointers]
        keys = zip(batch.rows("question"), items, batch.rows("option"), names, strict=True)
        ordinals = self._ordinals(items, len(items))
        found = zip(batch.rows("value"), batch.rows("file"), pointers, batch.rows("line"), ordinals, strict=True)
        self.aggregates.update(zip(keys, found, strict=True))


class Rest:
    """Said to a Side compared item by item (items.py) before the rows that belong to no item:
    they are counted as rows, and come after every item."""

    AFTER = 1 << 62  # the place of those rows, after every item's


class Changes:
    """What matching found, per question: counts of each kind and the first examples, the
    judgments of each kind that come first in the version they are shown in (the new one, but
    for what was removed), in that order, whichever way matching came upon them."""

    def __init__(self, examples: int) -> None:
        self.limit = examples
        self.changed = 0  # judgments changed so far, every question
        self.stopped = False  # the matching stopped early: no answer (Matcher's stop)
        self.counts: defaultdict[str, Counter[Kind]] = defaultdict(Counter)
        self._found: dict[str, dict[Kind, list[tuple[Any, Example]]]] = {}  # (ordinal, example)
        # per (kind, question), a sum of the hashes of what was removed or added, whatever the
        # order: a question removed whole and one added whole with the same sum were renamed
        self.sums: Counter[tuple[Kind, str]] = Counter()
        self.summed = True  # False once a version had no rows at all: nothing can be renamed
        # per question, the items where answers that name options by their place (model.Named)
        # were read against options that differ (the note on options changed)
        self.moved: defaultdict[str, set[Any]] = defaultdict(set)

    def count(self, question: str, kind: Kind, n: int = 1) -> None:
        self.counts[question][kind] += n
        if kind == "changed":
            self.changed += n

    @property
    def examples(self) -> dict[str, dict[Kind, list[Example]]]:
        """question -> kind -> its examples, in the order of the version they are shown in."""
        return {
            question: {kind: [e for _, e in sorted(found, key=itemgetter(0))] for kind, found in kinds.items()}
            for question, kinds in self._found.items()
        }

    def wants(self, question: str, kind: Kind, at: Any) -> bool:
        """Whether a judgment of this kind would be an example: fewer than the limit are kept, or
        it comes before one of them (its ordinal `at`)."""
        found = self._found.get(question, {}).get(kind, ())
        if len(found) < self.limit:
            return True
        return bool(found) and at < max(found, key=itemgetter(0))[0]

    def note(
        self, kind: Kind, key: Key, old: Any, new: Any, where: RowSource, old_where: RowSource | None = None
    ) -> None:
        question = key[0]
        self.count(question, kind)
        if kind != "changed" and self.summed:
            value = hashable(old if kind == "removed" else new)
            self.sums[kind, question] += hash((key[1:], value)) & 0xFFFFFFFFFFFFFFFF
        at = where[3]
        if self.wants(question, kind, at):
            old, new = shown(old, new)
            side: Any = "old" if kind == "removed" else "new"
            extra = old_where[:3] if old_where is not None else (None, None, None)
            example = Example(kind, key[1], key[2], key[3], old, new, *where[:3], side, *extra)
            found = self._found.setdefault(question, {}).setdefault(kind, [])
            if len(found) >= self.limit:
                found.remove(max(found, key=itemgetter(0)))
            found.append((at, example))


Kept = dict[Key, list[tuple[Any, RowSource]]]
# What a row found in version k only is: removed from the old one (0), added in the new one (1).
ONE_SIDED: tuple[Kind, Kind] = ("removed", "added")


class Matcher:
    """Match two versions' individual judgments (see the module's docstring)."""

    def __init__(self, old: Side, new: Side, changes: Changes, stop: Callable[[], bool] | None = None) -> None:
        """`stop`, asked at each step, ends the matching early (`Changes.stopped`): what was
        found so far is then no answer."""
        self.old, self.new, self.changes = old, new, changes
        self.sides = (old, new)
        self.kept: tuple[Kept, Kept] = ({}, {})  # rows of each version waiting for a partner
        self.stop = stop

    def run(self) -> None:
        old, new = self.old, self.new
        i = j = 0
        span = CHUNK
        while True:
            if self.stop is not None and self.stop():
                self.changes.stopped = True
                return
            if i > 4 * CHUNK:
                old.drop(i)
                i = 0
            if j > 4 * CHUNK:
                new.drop(j)
                j = 0
            old.fill(i + CHUNK + AHEAD)
            new.fill(j + CHUNK + AHEAD)
            n = min(len(old) - i, len(new) - j, span)
            if n <= 0:
                break
            a, b = old.keys(i, i + n), new.keys(j, j + n)
            if a == b:
                self._values(i, j, n)
                i, j = i + n, j + n
                span = min(2 * span, CHUNK)
                continue
            m = first_difference(a, b)
            self._values(i, j, m)
            i, j = i + m, j + m
            i, j = self._resync(i, j)
            span = SPAN
        self.changes.summed = bool(old.counts) and bool(new.counts)
        self._drain(0, i)
        self._drain(1, j)
        for k, kept in enumerate(self.kept):
            for key, entries in kept.items():
                for value, where in entries:
                    self._one_sided(k, key, value, where)
        self.kept = ({}, {})

    def _values(self, i: int, j: int, n: int) -> None:
        """Compare the values of n rows whose keys match: in C first, then the rows that differ
        by == or by type one by one (1 and 1.0, NaN and NaN are the same)."""
        va, vb = self.old.values[i : i + n], self.new.values[j : j + n]
        if Named in set(map(type, va)):  # answers that name options by place: did they change?
            for k in compress(range(n), map(moved, va, vb)):
                self.changes.moved[self.new.questions[j + k]].add(self.new.items[j + k])
        if va == vb and list(map(type, va)) == list(map(type, vb)):
            return
        differ = map(or_, map(ne, va, vb), map(is_not, map(type, va), map(type, vb)))
        for k in compress(range(n), differ):
            if not same(va[k], vb[k]):
                self.changes.note(
                    "changed", self.new.key(j + k), va[k], vb[k], self.new.where(j + k), self.old.where(i + k)
                )

    def _resync(self, i: int, j: int) -> tuple[int, int]:
        """Where the keys part: the rows of one version up to the next row of the other are kept
        aside (the nearer of the two), or, when neither is near, one row of each."""
        old, new = self.old, self.new
        ahead_old = old.index(new.key(j), i + 1, i + AHEAD)
        ahead_new = new.index(old.key(i), j + 1, j + AHEAD)
        if ahead_old is not None and (ahead_new is None or ahead_old - i <= ahead_new - j):
            for k in range(i, ahead_old):
                self._keep(0, k)
            return ahead_old, j
        if ahead_new is not None:
            for k in range(j, ahead_new):
                self._keep(1, k)
            return i, ahead_new
        # Neither is near. Where one version has passed the other's row already (its partner
        # waits, kept aside), only the other moves on: after a long stretch removed or added, the
        # versions come back in step instead of matching every later row through what is kept.
        if old.key(i) in self.kept[1]:
            self._keep(0, i)
            return i + 1, j
        if new.key(j) in self.kept[0]:
            self._keep(1, j)
            return i, j + 1
        self._keep(0, i)
        self._keep(1, j)
        return i + 1, j + 1

    def _keep(self, k: int, i: int) -> None:
        """Row i of version k (0 old, 1 new) matched with the first row of its key kept aside of
        the other version, or else kept aside itself."""
        side = self.sides[k]
        key, row = side.key(i), (side.values[i], side.where(i))
        found = self.kept[1 - k].get(key)
        if not found:
            self.kept[k].setdefault(key, []).append(row)
            return
        partner = found.pop(0)
        if not found:
            del self.kept[1 - k][key]
        (old, old_where), (new, where) = (row, partner) if k == 0 else (partner, row)
        if moved(old, new):
            self.changes.moved[key[0]].add(key[1])
        if not same(old, new):
            self.changes.note("changed", key, old, new, where, old_where)

    def _one_sided(self, k: int, key: Key, value: Any, where: RowSource) -> None:
        """A row of version k found nowhere in the other: removed (old) or added (new)."""
        old, new = (value, None) if k == 0 else (None, value)
        self.changes.note(ONE_SIDED[k], key, old, new, where)

    def _drain(self, k: int, start: int) -> None:
        """The rest of version k once the other has ended: each row is matched with what was
        kept aside of the other, else it was removed (or added). Counted in C where nothing is
        kept aside and no question of the run wants examples (with nothing kept aside, no question
        was removed or added whole, so no sum for a renaming is needed)."""
        side, kind, changes = self.sides[k], ONE_SIDED[k], self.changes
        while True:
            side.fill(start + CHUNK)
            end = min(len(side), start + CHUNK)
            if start >= end:
                return
            questions = side.questions[start:end]
            first = min(side.ordinals[start:end])  # rows made item by item come out of order
            if self.kept[1 - k]:
                for i in range(start, end):
                    self._keep(k, i)
            elif any(changes.wants(q, kind, first) for q in set(questions)):
                for i in range(start, end):
                    self._one_sided(k, side.key(i), side.values[i], side.where(i))
            else:
                for question, n in Counter(questions).items():
                    changes.count(question, kind, n)
            side.drop(end)
            start = 0


def first_difference(a: tuple[list[Any], ...], b: tuple[list[Any], ...]) -> int:
    """The first row at which two slices of the same key columns differ (they are not equal):
    each column that differs is scanned in C up to its first difference."""
    return min(next(compress(range(len(x)), map(ne, x, y))) for x, y in zip(a, b, strict=True) if x != y)
