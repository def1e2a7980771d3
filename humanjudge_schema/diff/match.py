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
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from itertools import compress, repeat
from operator import eq, is_not, ne, not_, or_
from typing import Any

from ..judgments.view import Batch, JudgmentCounts, hashable
from .model import Example, Kind, Named, moved, shown

Key = tuple[Any, ...]  # (question, item, rater, option)
# A stored aggregate's value, file, pointer, line and ordinal (as a row's, `Where`)
Stored = tuple[Any, str, str, "int | None", Any]
# file, pointer, line, and the row's ordinal, which grows with the version's rows: the examples
# shown are the first of their kind in the version's order, however matching came upon them
RowSource = tuple[str, str, "int | None", Any]

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
        # the key of each row, a column per part: slices of rows are compared a column at a time,
        # and a row's key is made a tuple only where the versions part (`key`, `index`)
        self.questions: list[str] = []
        self.items: list[Any] = []
        self.raters: list[Any] = []
        self.options: list[Any] = []
        self.values: list[Any] = []
        self.files: list[str] = []
        self.pointers: list[str] = []
        self.lines: list[int | None] = []
        self.ordinals: list[Any] = []
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
        for column in self._columns():
            del column[:n]
        start, window, places = self._window
        self._window = (start - n, window, places) if start >= n else (0, [], {})

    def __len__(self) -> int:
        return len(self.questions)

    def _columns(self) -> tuple[list[Any], ...]:
        return (
            self.questions,
            self.items,
            self.raters,
            self.options,
            self.values,
            self.files,
            self.pointers,
            self.lines,
            self.ordinals,
        )

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
        role = batch.same.get("role")
        if role is None:
            individual = list(map(eq, batch.lists["role"], repeat("individual")))  # in C
            if not all(individual):
                self._aggregates(batch, list(map(not_, individual)))
                if not any(individual):
                    return
                batch = batch.kept(individual)
        elif role != "individual":
            self._aggregates(batch, None)
            return
        questions = list(batch.rows("question"))
        items, raters = batch.rows("item"), batch.rows("rater")
        self.questions.extend(questions)
        self.items.extend(items)
        self.raters.extend(raters)
        self.options.extend(batch.rows("option"))
        self.values.extend(batch.rows("value"))
        self.files.extend(batch.rows("file"))
        self.pointers.extend(batch.rows("pointer"))
        self.lines.extend(batch.rows("line"))
        self.ordinals.extend(self._ordinals(batch.rows("item"), len(questions)))
        sets = [("item", items, self.item_set)]
        if self.places is None or self.after:  # else the tallies count them
            self.counts.update(questions)
            sets.append(("rater", raters, self.rater_set))
        # a column the whole batch shares (one rater's scores, one item's answers) is one value
        names = batch.same.get("question")
        many = dict.fromkeys(questions) if names is None else (names,)
        for name, column, found in sets:
            if name in batch.same:
                found.update((q, batch.same[name]) for q in many)
            elif names is not None:
                found.update(zip(repeat(names), column))
            else:
                found.update(zip(questions, column, strict=True))

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

    def _aggregates(self, batch: Batch, mask: list[bool] | None) -> None:
        def col(name: str) -> list[Any]:
            values = batch.rows(name)
            return list(values) if mask is None else list(compress(values, mask))

        pointers = col("pointer")
        names = [p.rpartition("/")[2] for p in pointers]
        items = col("item")
        keys = zip(col("question"), items, col("option"), names, strict=True)
        ordinals = self._ordinals(items, len(items))
        found = zip(col("value"), col("file"), pointers, col("line"), ordinals, strict=True)
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
        self.counts: dict[str, dict[Kind, int]] = {}
        self._found: dict[str, dict[Kind, list[tuple[Any, Example]]]] = {}  # (ordinal, example)
        # per (kind, question), a sum of the hashes of what was removed or added, whatever the
        # order: a question removed whole and one added whole with the same sum were renamed
        self.sums: Counter[tuple[Kind, str]] = Counter()
        self.summed = True  # False once a version had no rows at all: nothing can be renamed
        # per question, the items where answers that name options by their place (model.Named)
        # were read against options that differ (the note on options changed)
        self.moved: dict[str, set[Any]] = {}

    def count(self, question: str, kind: Kind, n: int = 1) -> None:
        counts = self.counts.get(question)
        if counts is None:
            counts = self.counts[question] = {"removed": 0, "changed": 0, "added": 0}
        counts[kind] += n
        if kind == "changed":
            self.changed += n

    @property
    def examples(self) -> dict[str, dict[Kind, list[Example]]]:
        """question -> kind -> its examples, in the order of the version they are shown in."""
        return {
            question: {kind: [e for _, e in sorted(found, key=_first)] for kind, found in kinds.items()}
            for question, kinds in self._found.items()
        }

    def wants(self, question: str, kind: Kind, at: Any = None) -> bool:
        """Whether a judgment of this kind would be an example: fewer than the limit are kept, or
        it comes before one of them (its ordinal `at`; None: it comes after them)."""
        found = self._found.get(question, {}).get(kind, ())
        if len(found) < self.limit:
            return True
        return at is not None and bool(found) and at < max(found, key=_first)[0]

    def note(
        self, kind: Kind, key: Key, old: Any, new: Any, where: RowSource, old_where: RowSource | None = None
    ) -> None:
        question = key[0]
        self.count(question, kind)
        if kind != "changed" and self.summed:
            self.sums[kind, question] += _hash(key, old if kind == "removed" else new)
        at = where[3]
        if self.wants(question, kind, at):
            old, new = shown(old, new)
            side: Any = "old" if kind == "removed" else "new"
            extra = old_where[:3] if old_where is not None else (None, None, None)
            example = Example(kind, key[1], key[2], key[3], old, new, *where[:3], side, *extra)
            found = self._found.setdefault(question, {}).setdefault(kind, [])
            if len(found) >= self.limit:
                found.remove(max(found, key=_first))
            found.append((at, example))

    def options_moved(self, key: Key) -> None:
        """Answers of this judgment's question and item were read against options that differ."""
        self.moved.setdefault(key[0], set()).add(key[1])


Kept = dict[Key, list[tuple[Any, RowSource]]]


class Matcher:
    """Match two versions' individual judgments (see the module's docstring)."""

    def __init__(self, old: Side, new: Side, changes: Changes, stop: Callable[[], bool] | None = None) -> None:
        """`stop`, asked at each step, ends the matching early (`stopped`): what was found
        so far is then no answer."""
        self.old, self.new, self.changes = old, new, changes
        self.kept_old: Kept = {}
        self.kept_new: Kept = {}
        self.stop = stop
        self.stopped = False

    def run(self) -> None:
        old, new = self.old, self.new
        i = j = 0
        span = CHUNK
        while True:
            if self.stop is not None and self.stop():
                self.stopped = True
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
            m = _first_difference(a, b)
            self._values(i, j, m)
            i, j = i + m, j + m
            i, j = self._resync(i, j)
            span = SPAN
        self.changes.summed = bool(old.counts) and bool(new.counts)
        self._drain(old, i, self.kept_new, "removed")
        self._drain(new, j, self.kept_old, "added")
        for kept, kind in ((self.kept_old, "removed"), (self.kept_new, "added")):
            for key, entries in kept.items():
                for value, where in entries:
                    old_value, new_value = (value, None) if kind == "removed" else (None, value)
                    self.changes.note(kind, key, old_value, new_value, where)  # type: ignore[arg-type]
        self.kept_old, self.kept_new = {}, {}

    def _values(self, i: int, j: int, n: int) -> None:
        """Compare the values of n rows whose keys match: in C first, then the rows that differ
        by == or by type one by one (1 and 1.0, NaN and NaN are the same)."""
        if not n:
            return
        va, vb = self.old.values[i : i + n], self.new.values[j : j + n]
        if Named in set(map(type, va)):  # answers that name options by place: did they change?
            for k in compress(range(n), map(moved, va, vb)):
                self.changes.options_moved(self.new.key(j + k))
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
                self._keep_old(k)
            return ahead_old, j
        if ahead_new is not None:
            for k in range(j, ahead_new):
                self._keep_new(k)
            return i, ahead_new
        # Neither is near. Where one version has passed the other's row already (its partner
        # waits, kept aside), only the other moves on: after a long stretch removed or added, the
        # versions come back in step instead of matching every later row through what is kept.
        if old.key(i) in self.kept_new:
            self._keep_old(i)
            return i + 1, j
        if new.key(j) in self.kept_old:
            self._keep_new(j)
            return i, j + 1
        self._keep_old(i)
        self._keep_new(j)
        return i + 1, j + 1

    def _keep_old(self, i: int) -> None:
        key, value, where = self.old.key(i), self.old.values[i], self.old.where(i)
        found = self.kept_new.get(key)
        if found:
            new_value, new_where = found.pop(0)
            if not found:
                del self.kept_new[key]
            if moved(value, new_value):
                self.changes.options_moved(key)
            if not same(value, new_value):
                self.changes.note("changed", key, value, new_value, new_where, where)
            return
        self.kept_old.setdefault(key, []).append((value, where))

    def _keep_new(self, j: int) -> None:
        key, value, where = self.new.key(j), self.new.values[j], self.new.where(j)
        found = self.kept_old.get(key)
        if found:
            old_value, old_where = found.pop(0)
            if not found:
                del self.kept_old[key]
            if moved(old_value, value):
                self.changes.options_moved(key)
            if not same(old_value, value):
                self.changes.note("changed", key, old_value, value, where, old_where)
            return
        self.kept_new.setdefault(key, []).append((value, where))

    def _drain(self, side: Side, start: int, partners: Kept, kind: Kind) -> None:
        """The rest of one version once the other has ended: each row is matched with what was
        kept aside of the other, else it was removed (or added). Counted in C where nothing is
        kept aside and every question of the run has its examples."""
        keep = self._keep_old if kind == "removed" else self._keep_new
        changes = self.changes
        while True:
            side.fill(start + CHUNK)
            end = min(len(side), start + CHUNK)
            if start >= end:
                return
            if partners:
                for k in range(start, end):
                    keep(k)
            else:
                keys = side.questions[start:end]
                questions = set(keys)
                first = min(side.ordinals[start:end])  # rows made item by item come out of order
                if any(changes.wants(q, kind, first) for q in questions):
                    for k in range(start, end):
                        key = side.key(k)
                        if changes.wants(key[0], kind, side.ordinals[k]):
                            value = side.values[k]
                            old, new = (value, None) if kind == "removed" else (None, value)
                            changes.note(kind, key, old, new, side.where(k))
                        else:
                            changes.count(key[0], kind)
                else:
                    for question, n in Counter(keys).items():
                        changes.count(question, kind, n)
                    if changes.summed:
                        for k in range(start, end):
                            changes.sums[kind, keys[k - start]] += _hash(side.key(k), side.values[k])
            side.drop(end)
            start = 0


def _first(found: tuple[Any, Example]) -> Any:
    return found[0]


def _hash(key: Key, value: Any) -> int:
    return hash((key[1:], hashable(value))) & 0xFFFFFFFFFFFFFFFF


def _first_difference(a: tuple[list[Any], ...], b: tuple[list[Any], ...]) -> int:
    """The first row at which two slices of the same key columns differ (they are not equal):
    each column that differs is scanned in C up to its first difference."""
    return min(next(compress(range(len(x)), map(ne, x, y))) for x, y in zip(a, b, strict=True) if x != y)


def aggregate_changes(
    old: dict[Key, Stored], new: dict[Key, Stored]
) -> Iterator[tuple[Kind, Key, Stored | None, Stored | None]]:
    """The stored aggregates removed, changed and added, in that order, each kind in the order of
    the version it is shown in (the old one for what was removed)."""
    removed = [(key, was) for key, was in old.items() if key not in new]
    changed = [(key, old[key], now) for key, now in new.items() if key in old and not same(old[key][0], now[0])]
    added = [(key, now) for key, now in new.items() if key not in old]
    for key, was in sorted(removed, key=_stored_at):
        yield "removed", key, was, None
    for key, was, now in sorted(changed, key=lambda found: found[2][4]):
        yield "changed", key, was, now
    for key, now in sorted(added, key=_stored_at):
        yield "added", key, None, now


def _stored_at(found: tuple[Key, Stored]) -> Any:
    return found[1][4]
