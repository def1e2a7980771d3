"""Judgments as integer columns, for numpy: a column of values coded by the order they first come
(`code`), a question's value counts per item (`Counts`), the profiles of its items (`Profiles`:
items with the same counts of the same values, which add the same amount to every statistic of
agreement), and a sparse profiles x values matrix (`Sparse`). numpy is imported when first needed:
validation imports the judgments' quality rules, and never numpy.
"""

from __future__ import annotations

import math
from array import array as array_of
from collections import Counter
from collections.abc import Hashable
from itertools import chain, pairwise
from typing import Any, NamedTuple

# Above this magnitude a float no longer holds every integer: such numbers are coded as Python
# values are (a dict), so that two different integers are never one code.
_EXACT = 2.0**53
_NUMBERS = {int, float, bool}
# Profiles x values up to which `Sparse` keeps its matrix whole (about 32 MB of float64).
_DENSE = 1 << 22


class Counts(NamedTuple):
    """A question's value counts per item as integer columns: one entry per (item, value) given,
    sorted by item, then value code. `units` are the items in the order of their first judgment
    (their codes index it), `values` the distinct values (each the first of its equals; a value
    may have no entry)."""

    units: list[Hashable]
    values: list[Hashable]
    unit: Any  # per entry: its item's code
    value: Any  # per entry: its value's code
    count: Any  # per entry: how often
    starts: Any  # per item: the index of its first entry
    sizes: Any  # per item: its judgments


class Profiles(NamedTuple):
    """The distinct value counts of the items of two values or more, numbered by their first
    item: one entry per (profile, value), sorted by profile, then value code."""

    profile: Any
    value: Any
    count: Any
    starts: Any  # per profile: the index of its first entry
    sizes: Any  # per profile: its judgments
    weights: Any  # per profile: how many items have it
    singles: Any  # the value code of each item of one judgment, in item order
    population: Any  # the profile of each item of two values or more, in item order


def code(column: list[Any], missing: frozenset[Hashable] = frozenset()) -> tuple[Any, list[Any]]:
    """Integer codes of a column's values, numbered in the order they first come, and the values
    (each the first of its equals, as a dict keeps them): a column of numbers alone is coded by
    numpy (`array`), any other through a dict, in C. The values in `missing` (view.NO_ANSWER: no
    answer given) are coded -1 and are not values; no number may be one. Raises TypeError on an
    unhashable value (a list)."""
    import numpy as np

    n = len(column)
    if not n:
        return np.zeros(0, dtype=np.int64), []
    first, last = column[0], column[-1]
    # one value (identical objects are counted at C speed; the last row, compared first, spares
    # the count where it differs)
    if (last is first or last == first) and column.count(first) == n:
        if missing and first in missing:
            return np.full(n, -1, dtype=np.int64), []
        return np.zeros(n, dtype=np.int64), [first]
    if type(first) in _NUMBERS:
        found = array(column)
        if found is not None:
            return found
    distinct = dict.fromkeys(column)
    for v in missing:
        distinct.pop(v, None)
    index = dict(zip(distinct, range(len(distinct)), strict=True)) | dict.fromkeys(missing, -1)
    return np.fromiter(map(index.__getitem__, column), dtype=np.int64, count=n), list(distinct)


def array(column: list[Any]) -> tuple[Any, list[Any]] | None:
    """`code` of a column that numpy reads as one array of numbers (1-d), or of rows of as many
    integers each (2-d: a multi-select's rows, a ranking's, each coded as one number and given
    back as a tuple); None for any other column."""
    import numpy as np

    try:
        x = _read(column)
    except (ValueError, OverflowError):  # rows of unlike lengths, integers beyond 64 bits
        return None
    if x.ndim == 1 and x.dtype.kind in "iuf":
        x = x.astype(np.float64, copy=False)
        if (np.abs(x) >= _EXACT).any():
            return None
        if (x == np.floor(x)).all():  # integers (no NaN): counted, not sorted
            _, first, codes = unique((x - x.min()).astype(np.int64), index=True, inverse=True)
        else:
            _, first, codes = np.unique(x, return_index=True, return_inverse=True)
        codes, first = _first_order(first, codes)
        return codes, [column[i] for i in first.tolist()]
    if x.ndim != 2 or x.dtype.kind not in "iub" or not x.size:
        return None
    low = x.min()
    base = int(x.max()) - int(low) + 1
    if base ** x.shape[1] >= 1 << 62:
        return None
    rows = (x.astype(np.int64) - low) @ (base ** np.arange(x.shape[1], dtype=np.int64))
    codes, first = _first_order(*unique(rows, index=True, inverse=True)[1:])
    return codes, [tuple(column[i]) for i in first.tolist()]


def _read(column: list[Any]) -> Any:
    """numpy.asarray(column), where the first value says what the column holds (integers,
    floats, rows of integers) read through the array module, which takes such values without
    numpy's look at each one's type and refuses any other (the column is then numpy's)."""
    import numpy as np

    first = column[0]
    try:
        if type(first) is int:
            return np.frombuffer(array_of("q", column), dtype=np.int64)
        if type(first) is float:
            return np.frombuffer(array_of("d", column), dtype=np.float64)
        if type(first) is list and first and type(first[0]) is int and set(map(len, column)) == {len(first)}:
            flat = np.frombuffer(array_of("q", chain.from_iterable(column)), dtype=np.int64)
            return flat.reshape(len(column), len(first))
    except (TypeError, OverflowError):
        pass
    return np.asarray(column)


def _first_order(first: Any, codes: Any) -> tuple[Any, Any]:
    """Codes (numbered in the values' order, `first` the index of each one's first row)
    renumbered in the order the values first come, and the first rows in that order."""
    import numpy as np

    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[codes.reshape(-1)], first[order]


def unique(keys: Any, *, index: bool = False, inverse: bool = False, counts: bool = False) -> Any:
    """`numpy.unique(keys)` and the arrays asked for (each key's first index, each row's code,
    each key's count), for non-negative integer keys: counted with numpy.bincount where their
    range is small (beside their number, or at most _DENSE), else sorted."""
    import numpy as np

    n = len(keys)
    if not n or keys.min() < 0 or keys.max() >= max(4 * n, _DENSE):
        return np.unique(keys, return_index=index, return_inverse=inverse, return_counts=counts)  # type: ignore[call-overload]
    times = np.bincount(keys)
    present = np.flatnonzero(times)
    out = [present]
    if index:
        first = np.full(len(times), n, dtype=np.int64)
        np.minimum.at(first, keys, np.arange(n))
        out.append(first[present])
    if inverse:  # a key's code: how many present keys are below it
        out.append((np.cumsum(times > 0) - 1)[keys])
    if counts:
        out.append(times[present])
    return tuple(out) if len(out) > 1 else present


def renumber(codes: Any) -> tuple[Any, Any]:
    """Codes renumbered by the order they first come (0, 1, ...), and the old code of each new one."""
    codes = codes.reshape(-1)
    _, first, inverse = unique(codes, index=True, inverse=True)
    renumbered, firsts = _first_order(first, inverse)
    return renumbered, codes[firsts]


def counts(units: list[Hashable], values: list[Hashable], unit: Any, value: Any, times: Any = None) -> Counts:
    """The Counts of judgments given as (item code, value code) rows (each `times[i]` judgments,
    by default one), items numbered by their first row (`units[k]` is item k)."""
    import numpy as np

    width = max(len(values), 1)
    if times is None:
        keys, times = unique(unit * width + value, counts=True)
    else:
        keys, inverse = unique(unit * width + value, inverse=True)
        times = np.bincount(inverse.reshape(-1), weights=times, minlength=len(keys)).astype(np.int64)
    eu, ev = keys // width, keys % width
    starts = np.flatnonzero(np.r_[True, eu[1:] != eu[:-1]]) if len(eu) else np.zeros(0, dtype=np.int64)
    sizes = np.add.reduceat(times, starts) if len(starts) else np.zeros(0, dtype=np.int64)
    return Counts(units, values, eu, ev, times, starts, sizes)


def counts_of(items: dict[Hashable, Counter[Hashable]]) -> Counts:
    """The Counts of per-item Counters (a tally fed one judgment at a time)."""
    import numpy as np

    index: dict[Hashable, int] = {}
    given = ((k, v, n) for k, found in enumerate(items.values()) for v, n in found.items())
    rows = [(k, index.setdefault(v, len(index)), n) for k, v, n in given]
    unit, value, times = np.asarray(rows, dtype=np.int64).reshape(-1, 3).T
    return counts(list(items), list(index), unit, value, times)


def profiles_of(c: Counts) -> Profiles:
    """The profiles of the items of two values or more: two items are one profile when their
    entries, (value code, count) sorted by value code, are the same bytes."""
    import numpy as np

    lengths = np.diff(np.append(c.starts, len(c.unit)))
    pairable = c.sizes >= 2
    singles = c.value[c.starts[c.sizes == 1]]
    kept = pairable[c.unit] if len(c.unit) else np.zeros(0, dtype=bool)
    value, count = c.value[kept], c.count[kept]
    sizes = lengths[pairable]
    starts = np.cumsum(sizes) - sizes
    population = _profile_ids(value, count, starts, sizes)
    weights = np.bincount(population)
    _, first = np.unique(population, return_index=True)  # each profile's first item
    length = sizes[first]
    offsets = np.cumsum(length) - length
    within = np.arange(int(length.sum())) - np.repeat(offsets, length)
    where = np.repeat(starts[first], length) + within
    profile = np.repeat(np.arange(len(weights)), length)
    judged = count[where]
    totals = np.add.reduceat(judged, offsets) if len(offsets) else np.zeros(0, dtype=np.int64)
    return Profiles(profile, value[where], judged, offsets, totals, weights, singles, population)


def _profile_ids(value: Any, count: Any, starts: Any, sizes: Any) -> Any:
    """Each item's profile, numbered in the order the profiles first come: an item's entries are
    `sizes[i]` (value code, count) pairs from `starts[i]`, by value code. Where the counts of
    every value fit in one integer (each count a digit of base the largest count + 1, the value
    its place), that integer is the profile; else its entries' bytes are."""
    import numpy as np

    if not len(sizes):
        return np.zeros(0, dtype=np.int64)
    places, base = int(value.max()) + 1, int(count.max()) + 1
    if places * math.log2(base) < 62:
        return renumber(np.add.reduceat(count * base**value, starts))[0]
    data = np.stack([value, count], axis=1).astype("<i8").tobytes()
    ids: dict[bytes, int] = {}
    keys = [data[a * 16 : (a + k) * 16] for a, k in zip(starts.tolist(), sizes.tolist(), strict=True)]
    return np.asarray([ids.setdefault(key, len(ids)) for key in keys], dtype=np.int64)


class Sparse:
    """A profiles x values matrix of numbers given by its entries (profile, value, number, one
    per pair): what many samples (rows of items per profile) hold of each value, `times`, and
    what each profile holds of a number per value, `times_t`. Kept whole where it is small (a
    matrix product), else as its entries, summed with numpy.add.reduceat a block of samples at
    a time."""

    def __init__(self, rows: Any, cols: Any, data: Any, shape: tuple[int, int], per_row: Any = None) -> None:
        """With `per_row`, the matrix's entries are data / per_row[row] (a profile's counts over its
        size: its shares), and its Gram matrix is made from the counts, exactly (`gram`)."""
        import numpy as np

        self.shape = shape
        self.dense = None
        self._gram: Any = None
        self._lone: tuple[Any, Any, Any, Any] | None = None
        self.rows, self.cols, self.counts = rows, cols, np.asarray(data, dtype=np.float64)
        self.per_row = per_row
        self.data = self.counts if per_row is None else self.counts / per_row[rows]
        if shape[0] * shape[1] <= _DENSE:
            self.dense = np.zeros(shape)
            self.dense[rows, cols] = self.data
            return
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        self._by_row = cols, self.data, starts, rows[starts]
        self._by_col: tuple[Any, Any, Any, Any] | None = None

    def times(self, w: Any) -> Any:
        """w (samples x profiles) times the matrix: samples x values."""
        import numpy as np

        if self.dense is not None:
            return w @ self.dense
        if self._by_col is None:  # the entries by column, made when first needed (the Gram matrix does not)
            order = np.argsort(self.cols, kind="stable")
            cols = self.cols[order]
            starts: Any = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
            self._by_col = self.rows[order], self.data[order], starts, cols[starts]
        return _summed(w, *self._by_col, self.shape[1])

    def times_t(self, x: Any) -> Any:
        """x (samples x values) times the matrix's transpose: samples x profiles."""
        if self.dense is not None:
            return x @ self.dense.T
        return _summed(x, *self._by_row, self.shape[0])

    def squares(self, w: Any) -> Any:
        """Per sample (a row of w), the sum of the squares of its row of `times(w)`: w G w with
        G the profiles x profiles matrix of the products of their columns (made once), where
        that is the smaller work, so that a sample costs work per pair of profiles, not per entry;
        a matrix too large to keep whole, by its entries (`squares_apart`)."""
        profiles, values = self.shape
        if profiles * profiles <= _DENSE and (self.dense is None or values > profiles):
            return ((w @ self.gram()) * w).sum(axis=1)
        if self.dense is None:
            return self.squares_apart(w)
        found = self.times(w)
        return (found * found).sum(axis=1)

    def squares_apart(self, w: Any) -> Any:
        """`squares` from the entries, without making `times(w)` (samples x values): a column of
        one entry (a value one profile alone holds) adds the square of that profile's weight
        times the entry, so each profile's lone entries are one number (the sum of their
        squares, made once) times its weight squared; the columns of several entries are summed
        a sample at a time into an array of them alone, which stays in the cache. The sum of the
        squares of `times(w)`, in another order."""
        import numpy as np

        if self._lone is None:
            profiles, values = self.shape
            per_col = np.bincount(self.cols, minlength=values)
            alone = per_col[self.cols] == 1
            lone = np.bincount(self.rows[alone], weights=self.data[alone] ** 2, minlength=profiles)
            shared = ~alone
            numbered = np.cumsum(per_col > 1) - 1  # the columns of several entries, numbered 0, 1, ...
            self._lone = lone, self.rows[shared], numbered[self.cols[shared]], self.data[shared]
        lone, rows, cols, data = self._lone
        out = (w * w) @ lone
        if len(rows):
            width = int(cols.max()) + 1
            for r in range(len(w)):
                found = np.bincount(cols, weights=w[r][rows] * data, minlength=width)
                out[r] += found @ found
        return out

    def gram(self) -> Any:
        """The matrix times its transpose (profiles x profiles), made once. Where the entries
        are counts (integers, their sums of products below 2**53), it is made from them exactly:
        each product and each partial sum is an integer a float holds, so any order of summing
        (a BLAS, blocks, threads) gives the same bits; with `per_row`, each of its cells is then
        divided once by the two rows' numbers. Otherwise from the entries as given."""
        import numpy as np

        if self._gram is None:
            counts = self.counts
            # the largest sum of products is at most the largest row sum, squared
            top = float(np.bincount(self.rows, weights=counts).max()) ** 2 if len(counts) else 0.0
            if not len(counts) or (bool((counts == np.floor(counts)).all()) and counts.min() >= 0 and top < _EXACT):
                kind = np.float32 if top < 1 << 24 else np.float64  # a float32 holds integers below 2**24
                g = _gram(self.rows, self.cols, counts, self.shape, kind)
                self._gram = g if self.per_row is None else g / np.outer(self.per_row, self.per_row)
            else:
                self._gram = _gram(self.rows, self.cols, self.data, self.shape, np.float64)
        return self._gram


def _summed(x: Any, take: Any, data: Any, starts: Any, of: Any, width: int) -> Any:
    """x (samples x n) times a matrix given by its entries grouped by the column of the product
    each adds to (the column of x it takes, its number; where each group starts, and which
    column it makes): samples x width, summed with numpy.add.reduceat a block of samples at a
    time (at most _DENSE products)."""
    import numpy as np

    out = np.zeros((len(x), width))
    step = max(1, _DENSE // len(take))
    for a in range(0, len(x), step):
        out[a : a + step, of] = np.add.reduceat(x[a : a + step][:, take] * data, starts, axis=1)
    return out


# A matrix product on a BLAS costs this many multiply-adds of a whole matrix for one pair of
# entries summed with numpy (measured: some 2,600 on one core; the margin is for slower BLAS).
_PAIR = 1000


def _gram(rows: Any, cols: Any, data: Any, shape: tuple[int, int], kind: Any) -> Any:
    """The Gram matrix (profiles x profiles) of a matrix given by its entries, sorted by row:
    from the columns of two entries or more made whole a block at a time and multiplied by a
    BLAS in `kind` (float32 or float64), where that is the smaller work, else from each
    column's pairs of entries, summed with numpy; the entries alone in their column add to the
    diagonal only."""
    import numpy as np

    profiles, values = shape
    per_col = np.bincount(cols, minlength=values)
    shared = per_col[cols] > 1
    g = np.zeros((profiles, profiles))
    g[np.diag_indices(profiles)] += np.bincount(rows[~shared], weights=data[~shared] ** 2, minlength=profiles)
    pairs = int((per_col * (per_col - 1) // 2).sum())
    rows, cols, data = rows[shared], cols[shared], data[shared]
    used = per_col > 1
    columns = int(used.sum())
    if profiles * profiles * columns <= _PAIR * pairs:
        renumbered = np.cumsum(used) - 1  # the columns of two entries or more, numbered 0, 1, ...
        _by_blas(g, rows, renumbered[cols], data, columns, kind)
    else:
        _by_pairs(g, rows, cols, data)
    return g


def _by_blas(g: Any, rows: Any, cols: Any, data: Any, values: int, kind: Any) -> None:
    """Add to g the Gram matrix of these entries (columns numbered 0..values-1, each holding
    one entry or more), a block of columns made whole at a time (at most _DENSE cells) and
    multiplied in `kind`. Entries are summed into their cells: an entry given twice adds up, as
    the pairs would add it."""
    import numpy as np

    profiles = len(g)
    width = max(1, _DENSE // max(profiles, 1))
    of_block = cols // width
    order = np.argsort(of_block, kind="stable")
    rows, cols, data = rows[order], cols[order], data[order]
    bounds = np.searchsorted(of_block[order], np.arange(-(-values // width) + 1)).tolist()
    for k, (a, b) in enumerate(pairwise(bounds)):
        cells = rows[a:b] * width + (cols[a:b] - k * width)
        block = np.bincount(cells, weights=data[a:b], minlength=profiles * width).astype(kind)
        block = block.reshape(profiles, width)
        g += block @ block.T


def _by_pairs(g: Any, rows: Any, cols: Any, data: Any) -> None:
    """Add to g the Gram matrix of these entries from each column's pairs of entries, each
    unordered pair once (the matrix is symmetric), a bounded number of pairs at a time."""
    import numpy as np

    profiles = len(g)
    order = np.argsort(cols, kind="stable")
    rows, cols, data = rows[order], cols[order], data[order]
    entries = len(rows)
    starts = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
    flat = np.zeros(profiles * profiles)
    # each entry with the entries after it under its column: (its column's end) - (its index) - 1
    ends = np.repeat(np.append(starts[1:], entries), np.diff(np.append(starts, entries)))
    later = ends - np.arange(entries) - 1
    reach = np.cumsum(later)
    a = 0
    while a < entries:
        b = max(a + 1, int(np.searchsorted(reach, reach[a] - later[a] + _DENSE, side="right")))
        hs = later[a:b]
        left = np.repeat(np.arange(a, b), hs)
        right = left + 1 + np.arange(len(left)) - np.repeat(np.cumsum(hs) - hs, hs)
        flat += np.bincount(
            rows[left] * profiles + rows[right], weights=data[left] * data[right], minlength=profiles * profiles
        )
        a = b
    upper = flat.reshape(profiles, profiles)
    g += upper + upper.T
    g[np.diag_indices(profiles)] += np.bincount(rows, weights=data * data, minlength=profiles)
