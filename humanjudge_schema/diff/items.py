"""Two versions of a dataset compared item by item before their rows are made.

A format that gives its judgments item by item (`Judgments.items`: TextJudge's instances,
CogGym's stimuli) lets the diff compare the two versions' items in step, in C (list ==): an item
equal in both, with the same content, gives the same rows in both, so none are made; what they
add up to (judgments per question, the raters of each question) is counted from the content
(`ItemRun.tally`) and handed to both sides in its place. Only the items that differ become rows,
and the matcher (match.py) matches those as it matches every row otherwise. A pull request that
edits a few judgments therefore costs a comparison of the parsed items, not a row per judgment.

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
from operator import ne, or_

import orjson

from ..judgments.view import Batch, ByItem, ItemRun, Tally

AHEAD = 256  # how many items ahead an item's partner is looked for
# Items compared at a step: doubled while they are equal, back to the least at a difference,
# so that long equal stretches cost few steps and scattered differences short slices.
LEAST, MOST = 64, 1 << 16


class Duplicates(Exception):
    """A version names an item twice: skipping equal items could pair the wrong ones."""


class Lockstep:
    """The two versions' items read in step; `side(0)` and `side(1)` give what each version's
    matcher side takes in: the batches of the items that differ and the tallies of those that do
    not, in the order of the version's rows."""

    def __init__(self, old: ByItem, new: ByItem) -> None:
        self.cursors = (_Cursor(old.runs), _Cursor(new.runs))
        self.rest = (old.rest, new.rest)
        self.queues: tuple[deque[Iterable[Batch | Tally]], ...] = (deque(), deque())
        self.done = False
        self.window = LEAST

    def side(self, k: int) -> Iterator[Batch | Tally]:
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
        if a is None or b is None:  # one version has ended: the other's items are rows
            for cursor, queue, rest in zip(self.cursors, self.queues, self.rest, strict=True):
                while (run := cursor.current()) is not None:
                    queue.append(run.rows(cursor.at, len(run.items)))
                    cursor.at = len(run.items)
                queue.append(rest)
            self.done = True
            return
        i, j = old.at, new.at
        m = min(len(a.items) - i, len(b.items) - j, self.window)
        items_a, items_b = a.items[i : i + m], b.items[j : j + m]
        content_a, content_b = a.content[i : i + m], b.content[j : j + m]
        if items_a == items_b and content_a == content_b:  # the usual case: all equal, in C
            k = m
        else:
            k = min(_first(items_a, items_b), _first(content_a, content_b))
        self.window = min(2 * self.window, MOST) if k == m else LEAST
        if k:
            if _strict(content_a[:k], content_b[:k]):
                tally = a.tally(i, i + k)
                self.queues[0].append((tally,))
                self.queues[1].append((tally,))
                old.at, new.at = i + k, j + k
            else:
                self._rows(k, k)
            return
        if a.items[i] == b.items[j]:  # the same items, changed: up to the next equal pair
            changed = map(or_, map(ne, items_a, items_b), map(_equal, content_a, content_b))
            n = next(compress(range(m), changed), m)
            self._rows(n, n)
            return
        # an item that is not the other's next: removed, added or moved; its partner looked for
        # a few items ahead, else the items of both, up to AHEAD, made into rows
        ahead_old = _index(a.items, b.items[j], i + 1, min(len(a.items), i + AHEAD))
        ahead_new = _index(b.items, a.items[i], j + 1, min(len(b.items), j + AHEAD))
        if ahead_old is not None and (ahead_new is None or ahead_old - i <= ahead_new - j):
            self._rows(ahead_old - i, 0)
        elif ahead_new is not None:
            self._rows(0, ahead_new - j)
        else:
            n = min(m, AHEAD)
            self._rows(n, n)

    def _rows(self, n_old: int, n_new: int) -> None:
        """The next n items of each version made into rows."""
        for cursor, queue, n in zip(self.cursors, self.queues, (n_old, n_new), strict=True):
            if n:
                run = cursor.current()
                assert run is not None
                queue.append(run.rows(cursor.at, cursor.at + n))
                cursor.at += n


class _Cursor:
    """Where a version's items are read: its current run, and the item in it."""

    def __init__(self, runs: Iterator[ItemRun]) -> None:
        self.runs = runs
        self.run: ItemRun | None = None
        self.at = 0
        self.seen: set[object] = set()

    def current(self) -> ItemRun | None:
        """The run holding the next item (None at the end), checking that a new run's items are
        named nowhere before."""
        while self.run is None or self.at >= len(self.run.items):
            self.run = next(self.runs, None)
            self.at = 0
            if self.run is None:
                return None
            before = len(self.seen)
            self.seen.update(self.run.items)
            if len(self.seen) - before != len(self.run.items):
                raise Duplicates
        return self.run


def _first(a: list[object], b: list[object]) -> int:
    """The first place at which two lists of one length differ (their length if nowhere)."""
    return next(compress(range(len(a)), map(ne, a, b)), len(a))


def _equal(a: object, b: object) -> bool:
    return bool(a == b)


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
