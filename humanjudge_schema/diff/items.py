"""Two versions of a dataset compared item by item before their rows are made.

A format that gives its judgments item by item (`Judgments.items`: TextJudge's instances,
CogGym's stimuli) lets the diff compare the two versions' items in step, in C (list ==): an item
equal in both, with the same content, gives the same rows in both, so none are made. What every
item adds up to (judgments per question, the raters of each question) is counted from its
content (`ItemRun.tally`), in the version's order. Only the items that differ become rows, and
the matcher (match.py) matches those as it matches every row otherwise. An item out of step
(moved, removed, added) waits aside by its id for its partner, and makes no rows if they are
equal: a pull request that edits a few judgments, or sorts the items anew, costs a comparison of
the parsed items, not a row per judgment. The rows of an item kept aside reach the matcher after
later ones; each row's ordinal is its item's place in the version (`places`), so the examples
are still the first in the file.

Skipping equal items gives the same answer as matching every row only where no item is named
twice in a version (the rows of an item are then compared only with the rows of the same item);
a version that names an item twice (invalid, and reported by validation) stops the comparison
(`Duplicates`), and the diff matches every row instead. Equal means equal as the rows compare:
== says 1 == true, so an equal stretch is also compared as JSON text (orjson), where they
differ; a stretch that fails is made into rows, where the matcher tells 1 and 1.0 (the same)
from 1 and true (not)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from itertools import compress
from operator import eq, ne, or_

import orjson

from ..judgments.view import Batch, ByItem, ItemRun, JudgmentCounts
from .match import Rest, first_difference

AHEAD = 256  # how many items ahead an item's partner is looked for
# Items compared at a step: doubled while they are equal, back to the least at a difference,
# so that long equal stretches cost few steps and scattered differences short slices.
LEAST, MOST = 64, 1 << 16


class Duplicates(Exception):
    """A version names an item twice: skipping equal items could pair the wrong ones."""


class Lockstep:
    """The two versions' items read in step; `side(0)` and `side(1)` give what each version's
    matcher side takes in: the tally of every item, in the version's order, and the batches of
    the items that differ. `places[k]` gives the place of each item made into rows among its
    version's items (Side's ordinals): an item out of step (moved, removed, added) waits, kept
    aside by its id, for its partner; found equal, it makes no rows, else the rows of both are
    made then, after later ones."""

    def __init__(self, old: ByItem, new: ByItem) -> None:
        self.cursors = (_Cursor(old.runs), _Cursor(new.runs))
        self.rest = (old.rest, new.rest)
        self.queues: tuple[deque[Iterable[Batch | JudgmentCounts | Rest]], ...] = (deque(), deque())
        self.places: tuple[dict[object, int], dict[object, int]] = ({}, {})
        self.kept: tuple[dict[object, tuple[ItemRun, int, int]], ...] = ({}, {})
        self.done = False
        self.window = LEAST

    def side(self, k: int) -> Iterator[Batch | JudgmentCounts | Rest]:
        queue = self.queues[k]
        while True:
            while not queue and not self.done:
                self._step()
            if not queue:
                return
            yield from queue.popleft()

    def _step(self) -> None:
        old, new = self.cursors
        a, b = old.current(), new.current()
        if a is None or b is None:  # one version has ended: the other's items wait for no one
            for k, cursor in enumerate(self.cursors):
                while (run := cursor.current()) is not None:
                    self._aside(k, run, len(run.items) - cursor.at)
            for k in (0, 1):  # what found no partner was removed (old) or added (new)
                for run, x, place in self.kept[k].values():
                    self._rows(k, run, x, x + 1, place)
                self.kept[k].clear()
                self.queues[k].append((Rest(),))
                self.queues[k].append(self.rest[k])
            self.done = True
            return
        i, j = old.at, new.at
        m = min(len(a.items) - i, len(b.items) - j, self.window)
        items_a, items_b = a.items[i : i + m], b.items[j : j + m]
        content_a, content_b = a.content[i : i + m], b.content[j : j + m]
        equal = items_a == items_b and content_a == content_b  # the usual case, in C
        k = m if equal else first_difference((items_a, content_a), (items_b, content_b))
        self.window = min(2 * self.window, MOST) if k == m else LEAST
        if k:
            if _strict(content_a[:k], content_b[:k]):
                tally = a.tally(i, i + k)
                self.queues[0].append((tally,))
                self.queues[1].append((tally,))
                old.at, new.at = i + k, j + k
            else:
                self._changed(a, b, k)
            return
        if a.items[i] == b.items[j]:  # the same items, changed: up to the next equal pair
            changed = map(or_, map(ne, items_a, items_b), map(eq, content_a, content_b))
            self._changed(a, b, next(compress(range(m), changed), m))
            return
        # an item that is not the other's next: removed, added or moved. Its partner is looked
        # for a few items ahead; the items passed over wait for theirs aside, by their ids
        ahead_old = _index(a.items, b.items[j], i + 1, min(len(a.items), i + AHEAD))
        ahead_new = _index(b.items, a.items[i], j + 1, min(len(b.items), j + AHEAD))
        if ahead_old is not None and (ahead_new is None or ahead_old - i <= ahead_new - j):
            self._aside(0, a, ahead_old - i)
        elif ahead_new is not None:
            self._aside(1, b, ahead_new - j)
        else:
            self._aside(0, a, min(m, AHEAD))
            self._aside(1, b, min(m, AHEAD))

    def _changed(self, a: ItemRun, b: ItemRun, n: int) -> None:
        """The next n items of each version (runs a and b), the same items in both, made into
        rows."""
        for k, run in enumerate((a, b)):
            cursor = self.cursors[k]
            at = cursor.at
            self.queues[k].append((run.tally(at, at + n),))
            self._rows(k, run, at, at + n, cursor.base + at)
            cursor.at = at + n

    def _aside(self, k: int, run: ItemRun, n: int) -> None:
        """The next n items of version k (of its current run), out of step with the other's:
        tallied, then each matched with its partner kept aside earlier, or kept aside itself."""
        cursor = self.cursors[k]
        start, stop, base = cursor.at, cursor.at + n, cursor.base
        cursor.at = stop
        self.queues[k].append((run.tally(start, stop),))
        mine, theirs = self.kept[k], self.kept[1 - k]
        for x in range(start, stop):
            item = run.items[x]
            partner = theirs.pop(item, None)
            if partner is None:
                mine[item] = (run, x, base + x)
                continue
            other, y, place = partner
            if run.content[x] == other.content[y] and _strict(run.content[x : x + 1], other.content[y : y + 1]):
                continue  # moved, not changed: tallied on both sides, no rows
            self._rows(k, run, x, x + 1, base + x)
            self._rows(1 - k, other, y, y + 1, place)

    def _rows(self, k: int, run: ItemRun, start: int, stop: int, place: int) -> None:
        """The rows of items start to stop of a run of version k, the first at `place` among the
        version's items."""
        places = self.places[k]
        for x in range(start, stop):
            places[run.items[x]] = place + x - start
        self.queues[k].append(run.rows(start, stop))


class _Cursor:
    """Where a version's items are read: its current run, and the item in it."""

    def __init__(self, runs: Iterator[ItemRun]) -> None:
        self.runs = runs
        self.run: ItemRun | None = None
        self.at = 0
        self.base = 0  # the place of the run's first item among the version's items
        self.seen: set[object] = set()

    def current(self) -> ItemRun | None:
        """The run holding the next item (None at the end), checking that a new run's items are
        named nowhere before."""
        while self.run is None or self.at >= len(self.run.items):
            if self.run is not None:
                self.base += len(self.run.items)
            self.run = next(self.runs, None)
            self.at = 0
            if self.run is None:
                return None
            before = len(self.seen)
            self.seen.update(self.run.items)
            if len(self.seen) - before != len(self.run.items):
                raise Duplicates
        return self.run


def _index(items: list[object], item: object, start: int, stop: int) -> int | None:
    try:
        return items.index(item, start, stop)
    except ValueError:
        return None


def _strict(a: list[object], b: list[object]) -> bool:
    """Whether two stretches that == calls equal are equal as JSON (true is not 1; 1.0 is not 1,
    which only makes rows the matcher then finds the same)."""
    try:
        return orjson.dumps(a) == orjson.dumps(b)
    except (TypeError, orjson.JSONEncodeError):
        return False
