"""Raters that are places in arrays (a CogGym participant's place in every response array, a
TextJudge score's place in its list), aligned between two versions of a dataset.

Matched by place, a participant removed from the middle moves every later one up: their answers
read as changed, and the last place as removed. The answers themselves say who is who: each old
place's answers across every (question, item, option) are compared with each new place's, and
the monotone alignment of old places with new ones that explains the change with the fewest
edits is found (an edit distance over places, where aligning two places costs the answers in
which they differ, and removing or adding a place costs its answers). It is used only where it
needs fewer edits than the places as they are.

Bounds: each version is read once more and tabulated (a cell per (question, item, option) and
place, at most `MOST_CELLS`); the places equal at the start and at the end are aligned as they
are (an exchange argument: with these costs, aligning equal places never costs more), and only
the places between go through the edit distance, in a band of offsets (an old place k aligns
with a new place k + d, d at most `BAND` beyond the range from 0 to the difference in the number
of places, which may be at most `MOST_SHIFT`): O(cells x band) comparisons in numpy and
O(places x band) steps of the distance."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import count
from typing import Any, NamedTuple

from ..judgments.view import Batch, Judgments, Needs, hashable

BAND = 8  # how far (in places) an alignment may stray beyond the difference in the number of places
MOST_SHIFT = 32  # places removed less places added (or the reverse) at most
MOST_CELLS = 1 << 24  # (question, item, option) x places tabulated per version at most
# What the tabulating pass reads: no pointers, any order, answers as stored (the matching
# compares an answer that stores an option's place by the option it names, model.Named: making
# those is half the reading, and the matching under the alignment has the last word)
READ = Needs(pointer=False, order=False, positions=True)
_INF = 1 << 50


class Removed(NamedTuple):
    """An old place the alignment removes, as a rater id: equal to no new place."""

    old: int


@dataclass(frozen=True)
class Alignment:
    """Old places aligned with new ones: `new_of[k]`, the new place of old place k (None:
    removed); `places`, how many each version has; `edits`, the judgments removed, changed
    and added under positions and under the alignment (as tabulated)."""

    new_of: tuple[int | None, ...]
    places: tuple[int, int]
    edits: tuple[int, int]

    @property
    def removed(self) -> list[int]:
        return [k for k, j in enumerate(self.new_of) if j is None]

    @property
    def added(self) -> list[int]:
        taken = set(self.new_of)
        return [j for j in range(self.places[1]) if j not in taken]

    def old_of(self) -> dict[int, int]:
        """New place -> the old place aligned with it."""
        return {j: k for k, j in enumerate(self.new_of) if j is not None}

    def moved(self) -> list[tuple[int, int, int]]:
        """The runs of old places that moved by one offset: (first old, last old, first new)."""
        return _runs((k, j) for k, j in enumerate(self.new_of) if j is not None and j != k)

    def said(self, most: int = 8) -> str:
        """In words, in the old places' order: "old 5 removed; old 6..39 -> new 5..38"."""
        parts: list[tuple[float, str]] = []
        for first, last, _ in _runs((k, k) for k in self.removed):
            parts.append((first, f"old {_span(first, last)} removed"))
        for first, last, to in self.moved():
            parts.append((first, f"old {_span(first, last)} -> new {_span(to, to + last - first)}"))
        old_of = self.old_of()
        for first, last, _ in _runs((j, j) for j in self.added):  # after the last old place aligned before them
            before = max((k for j, k in old_of.items() if j < first), default=-1)
            parts.append((before + 0.5, f"new {_span(first, last)} added"))
        parts.sort(key=lambda part: part[0])
        shown = [text for _, text in parts[:most]]
        if len(parts) > most:
            shown.append(f"… ({len(parts) - most:,} more)")
        return "; ".join(shown)

    def to_json(self) -> dict[str, Any]:
        return {
            "raters": list(self.places),
            "removed": self.removed,
            "added": self.added,
            "moved": [{"old": [first, last], "new": [to, to + last - first]} for first, last, to in self.moved()],
            "edits": {"positions": self.edits[0], "aligned": self.edits[1]},
            "said": self.said(),
        }


def _runs(pairs: Iterable[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """Pairs (k, j) in which k and j both step by one, as runs: (first k, last k, first j)."""
    runs: list[tuple[int, int, int]] = []
    for k, j in pairs:
        if runs and runs[-1][1] == k - 1 and runs[-1][2] + (k - runs[-1][0]) == j:
            runs[-1] = (runs[-1][0], k, runs[-1][2])
        else:
            runs.append((k, k, j))
    return runs


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}..{last}"


def find(old: Judgments, new: Judgments) -> Alignment | None:
    """The alignment of the old version's rater places with the new one's that explains the
    change with the fewest edits, where it needs fewer than the places as they are. None where
    the places are best, where a rater id is not a place (a whole number from 0), or where the
    versions are more than the bounds above tabulate."""
    import numpy as np

    keys: defaultdict[tuple[Any, ...], int] = defaultdict(count().__next__)
    values: defaultdict[Any, int] = defaultdict(count().__next__)
    before = _cells(np, old, keys, values)
    after = None if before is None else _cells(np, new, keys, values)
    if before is None or after is None:
        return None
    n, m = (int(raters.max(initial=-1)) + 1 for _, raters, _ in (before, after))
    if not n or not m or abs(n - m) > MOST_SHIFT or len(keys) * max(n, m) > MOST_CELLS:
        return None
    a, b = _table(np, len(keys), n, before), _table(np, len(keys), m, after)
    width = min(n, m)
    positions = int((a[:, :width] != b[:, :width]).sum()) + int((a[:, width:] != -1).sum() + (b[:, width:] != -1).sum())
    if not positions:
        return None
    # the places equal at the start, and at the end, are aligned as they are
    same = (a[:, :width] == b[:, :width]).all(axis=0)
    start = int(np.argmin(same)) if not same.all() else width
    tail = (a[:, n - width + start :] == b[:, m - width + start :]).all(axis=0)[::-1]
    end = int(np.argmin(tail)) if not tail.all() else width - start
    middle = _distance(np, a[:, start : n - end], b[:, start : m - end])
    if middle is None:
        return None
    aligned, pairs = middle
    if aligned >= positions:
        return None
    new_of: list[int | None] = list(range(start)) + [None] * (n - start - end)
    for k, j in pairs:
        new_of[start + k] = start + j
    new_of += range(m - end, m)
    found = Alignment(tuple(new_of), (n, m), (positions, aligned))
    return found if all(_identified(np, a, b, run) for run in found.moved()) else None


def _identified(np: Any, a: Any, b: Any, run: tuple[int, int, int]) -> bool:
    """Whether the answers of a run of old places that moved identify them in their new places:
    they differ there in at most half as many answers as the places they span (old and new) do
    matched by number. Places reordered, or answers edited throughout, do not pass; a place moved
    past a removed one does, its answers the same. The same test either way round."""
    first, last, to = run
    moved = int((a[:, first : last + 1] != b[:, to : to + last - first + 1]).sum())
    low, high = min(first, to), max(last, to + last - first) + 1
    both = min(high, a.shape[1], b.shape[1])
    kept = int((a[:, low:both] != b[:, low:both]).sum())
    kept += int((a[:, max(both, low) : high] != -1).sum()) + int((b[:, max(both, low) : high] != -1).sum())
    return 2 * moved <= kept


Cells = tuple[Any, Any, Any]  # numpy arrays of (key, place, value) codes, one per judgment


def _cells(
    np: Any, view: Judgments, keys: defaultdict[tuple[Any, ...], int], values: defaultdict[Any, int]
) -> Cells | None:
    """A version's individual judgments as (key, place, value) codes; None where a rater id is
    not a place, or where there are more judgments than a table may have cells."""
    at, raters, codes = ([np.zeros(0, np.int32)] for _ in range(3))  # none: three empty arrays
    rows = 0
    for given in view.in_batches(READ):
        batch = given.individual()
        if batch is None:
            continue
        who = list(batch.rows("rater"))
        rows += len(who)
        if not who:
            continue
        if set(map(type, who)) != {int} or min(who) < 0 or max(who) >= MOST_CELLS or rows > MOST_CELLS:
            return None
        raters.append(np.array(who, dtype=np.int32))
        parts = (batch.rows(name) for name in ("question", "item", "option"))
        said = batch.rows("value")
        try:
            at.append(np.fromiter(map(keys.__getitem__, zip(*parts, strict=True)), dtype=np.int32, count=len(who)))
            codes.append(np.fromiter(map(values.__getitem__, map(_token, said)), dtype=np.int32, count=len(who)))
        except TypeError:  # an item, option or answer that is no key: nothing to align by
            return None
    return np.concatenate(at), np.concatenate(raters), np.concatenate(codes)


def _token(value: Any) -> Any:
    """A value as the tabulation tells answers apart: as the matching's `same` does (NaN is NaN),
    but for a boolean inside a list (an estimate: the matching itself decides what changed)."""
    return (bool, value) if type(value) is bool else hashable(value)


def _table(np: Any, rows: int, places: int, cells: Cells) -> Any:
    """The codes as a (question, item, option) x place table, -1 where a place has no answer."""
    table = np.full((rows, places), -1, dtype=np.int32)
    at, raters, codes = cells
    table[at, raters] = codes
    return table


def _distance(np: Any, a: Any, b: Any) -> tuple[int, list[tuple[int, int]]] | None:
    """The least edits that turn the places of `a` into those of `b` (columns of the tables)
    by an alignment within the band, and the pairs of places it aligns (None: none fits)."""
    n, m = a.shape[1], b.shape[1]
    removing = (a != -1).sum(axis=0).astype(np.int64)
    adding = (b != -1).sum(axis=0).astype(np.int64)
    if not n or not m:
        return int(removing.sum() + adding.sum()), []
    low = min(0, m - n) - BAND
    offsets = np.arange(low, max(0, m - n) + BAND + 1)
    width = len(offsets)
    # cost[k, d]: old place k aligned with new place k + offsets[d]
    cost = np.full((n, width), _INF, dtype=np.int64)
    for d, shift in enumerate(offsets.tolist()):
        first, last = max(0, -shift), min(n, m - shift)
        if first < last:
            cost[first:last, d] = (a[:, first:last] != b[:, first + shift : last + shift]).sum(axis=0)
    # best[k, d]: the least edits turning old places 0..k-1 into new places 0..j-1, j = k + offsets[d]
    j = np.arange(n + 1)[:, None] + offsets[None, :]
    inside = (j >= 0) & (j <= m)
    # adding new place j-1 comes from (k, j-1), the offset before: along a row, a running minimum
    # over the sums of what is added (`total`)
    gain = np.where((j >= 1) & inside, adding[np.clip(j - 1, 0, m - 1)], _INF)
    gain[:, 0] = 0
    total = np.cumsum(gain, axis=1)
    best = np.full((n + 1, width), _INF, dtype=np.int64)
    best[0] = np.where(inside[0], np.concatenate(([0], np.cumsum(adding)))[np.clip(j[0], 0, m)], _INF)
    for k in range(1, n + 1):
        before = best[k - 1]
        here = before + cost[k - 1]  # aligned: from (k-1, j-1), the same offset
        np.minimum(here[:-1], before[1:] + removing[k - 1], out=here[:-1])  # removed: from (k-1, j)
        run = np.minimum.accumulate(here - total[k]) + total[k]
        best[k] = np.where(inside[k], np.minimum(run, _INF), _INF)
    end = (m - n) - low
    if best[n, end] >= _INF:
        return None
    # back from the end, by the step that gives each cell its value: aligned first, then removed
    pairs: list[tuple[int, int]] = []
    k, d = n, end
    while k > 0 or k + low + d > 0:
        value = best[k, d]
        if k and best[k - 1, d] + cost[k - 1, d] == value:
            k -= 1
            pairs.append((k, k + low + d))
        elif k and d + 1 < width and best[k - 1, d + 1] + removing[k - 1] == value:
            k, d = k - 1, d + 1
        else:
            d -= 1
    pairs.reverse()
    return int(best[n, end]), pairs


def renamed(batches: Iterator[Batch], alignment: Alignment) -> Iterator[Batch]:
    """The old version's batches with each individual judgment's place named as the alignment
    names it (its new place, or Removed): matched by these, the judgments of a place removed
    are removed, and those of a place that moved are matched with its new place's."""
    names: dict[Any, Any] = {k: Removed(k) if j is None else j for k, j in enumerate(alignment.new_of)}
    return (mapped(batch, "rater", lambda rater: names.get(rater, rater)) for batch in batches)


def mapped(batch: Batch, name: str, f: Callable[[Any], Any]) -> Batch:
    """The batch with each value of one column replaced by f's."""
    if name in batch.same:
        return Batch({**batch.same, name: f(batch.same[name])}, batch.columns)
    return Batch(batch.same, {**batch.columns, name: list(map(f, batch.rows(name)))})
