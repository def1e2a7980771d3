"""Counts, value distributions and Krippendorff's alpha for the judgments of one question.

Everything is computed from per-item value counts, the input of the coincidence matrix in
Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", never from a raters x items
table: a dataset needs memory in proportion to its distinct (item, value) pairs. The counts are
kept as integer columns (`Counts`) and the statistics computed from them with numpy, imported
when first needed (validation never imports it).

>>> tally = Tally()
>>> for item, value in [("a", 1), ("a", 1), ("b", 2), ("b", 2), ("c", 1), ("c", 2)]:
...     tally.add(item, value)
>>> round(alpha(tally, "nominal"), 3)
0.444
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import suppress
from functools import cached_property
from itertools import repeat
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from .columns import Counts, Profiles, Sparse, counts_of, profiles_of
from .summary import NumericSummary, quoted_value
from .view import NO_ANSWER, Level

T = TypeVar("T")
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")


def _number(value: Hashable) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Tally:
    """The judgments of one question: per item, how often each value was given. Fed one at a
    time (`add`), or made from integer columns at once (`of_counts`, what a pass over a dataset
    gives). None (and a float NaN) is a missing judgment and is not counted. Equal values are one
    value, as in a dict: 1, 1.0 and True are the same."""

    def __init__(self) -> None:
        self._items: dict[Hashable, Counter[Hashable]] | None = {}
        self._counts: Counts | None = None
        self.judgments = 0  # how many were counted
        # what is computed from the counts (the distribution, the pairable values at a level), made
        # once for every statistic and check that reads it, dropped when a judgment is added
        self._derived: dict[tuple[Any, ...], Any] = {}

    @classmethod
    def of_counts(cls, counts: Counts) -> Tally:
        """A tally of the value counts of `counts` (its items in their order)."""
        tally = cls()
        tally._items, tally._counts = None, counts
        tally.judgments = int(counts.count.sum())
        return tally

    def add(self, item: Hashable, value: Hashable, times: int = 1) -> None:
        """Count one judgment of `item` (or `times` equal ones); no answer (view.NO_ANSWER:
        missing) and a float NaN are not counted."""
        if value in NO_ANSWER or (isinstance(value, float) and math.isnan(value)):
            return
        items = self.per_item()
        self._counts = None
        items.setdefault(item, Counter())[value] += times
        self.judgments += times
        self._derived.clear()

    def per_item(self) -> dict[Hashable, Counter[Hashable]]:
        """item -> how often each value was given to it (the tally's own counts: do not change)."""
        if self._items is None:
            c = self.counts()
            values, ends = c.values, [*c.starts[1:].tolist(), len(c.unit)][: len(c.starts)]
            codes, times = c.value.tolist(), c.count.tolist()
            self._items = {
                unit: Counter(dict(zip(map(values.__getitem__, codes[a:b]), times[a:b], strict=True)))
                for unit, a, b in zip(c.units, c.starts.tolist(), ends, strict=True)
            }
        return self._items

    def counts(self) -> Counts:
        """The value counts as integer columns (made once)."""
        if self._counts is None:
            assert self._items is not None
            self._counts = counts_of(self._items)
        return self._counts

    def profiles(self) -> Profiles:
        """The distinct value counts (profiles) of the items of two values or more, numbered by
        their first item: what a bootstrap sample draws; alpha and Gwet's AC share them."""
        return self.derived(("profiles",), lambda: profiles_of(self.counts()))

    @property
    def items(self) -> int:
        """The items with at least one judgment."""
        return len(self._items) if self._items is not None else len(self.counts().units)

    def raters_per_item(self) -> tuple[int, float, int] | None:
        """(min, median, max) of the judgments per item; the median of an even number of items
        is the mean of the middle two, a float. None without items."""
        import numpy as np

        sizes = np.sort(self.counts().sizes)
        k = len(sizes)
        if not k:
            return None
        low, high = int(sizes[(k - 1) // 2]), int(sizes[k // 2])
        median: float = low if k % 2 else (low + high) / 2
        return int(sizes[0]), median, int(sizes[-1])

    def distribution(self) -> dict[Hashable, int]:
        """How often each value was given, in the values' order when they have one (the tally's
        own dict, made once: do not change)."""
        return self.derived(("distribution",), self._distribution)

    def _distribution(self) -> dict[Hashable, int]:
        import numpy as np

        c = self.counts()
        numbers = self.numbers()
        if numbers is not None:  # in the order sorted() gives them, without comparing Python objects
            return dict(zip(map(c.values.__getitem__, numbers.codes.tolist()), numbers.counts.tolist(), strict=True))
        totals = np.bincount(c.value, weights=c.count, minlength=len(c.values)).tolist()
        total: dict[Any, int] = {v: int(n) for v, n in zip(c.values, totals, strict=True) if n}
        try:
            keys = sorted(total)
        except TypeError:
            keys = sorted(total, key=lambda v: (type(v).__name__, repr(v)))
        return {key: total[key] for key in keys}

    def derived(self, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        """What is computed from the tally once and asked for again (a level's pairable values,
        AC's terms), by key: `make()` the first time, kept until the tally changes."""
        if key not in self._derived:
            self._derived[key] = make()
        return self._derived[key]  # type: ignore[no-any-return]

    def numbers(self) -> Numbers | None:
        """The values given, where every value of the tally is a number that numpy orders and
        computes with as Python does (`_as_floats`): their codes, the values as float64 and how
        often each was given, in the values' order. None otherwise (made once)."""
        return self.derived(("numbers",), self._numbers)

    def _numbers(self) -> Numbers | None:
        import numpy as np

        c = self.counts()
        x = _as_floats(c.values)
        if x is None:
            return None
        totals = np.bincount(c.value, weights=c.count, minlength=len(c.values)).astype(np.int64)
        given = np.flatnonzero(totals)
        order = given[np.argsort(x[given])]
        ranked = x[order]
        if not (ranked[1:] > ranked[:-1]).all():  # two values equal
            return None
        return Numbers(order, ranked, totals[order])

    def numeric_summary(self) -> NumericSummary | None:
        """Mean, sample standard deviation, min and max when every value is a number (bools are
        not); None otherwise or without judgments."""
        import numpy as np

        numbers = self.numbers()
        n = self.judgments
        if numbers is not None and len(numbers.codes) and float(np.abs(numbers.values).max()) <= LARGE:
            # as over Python values below: each product and difference is the one Python makes of
            # the same numbers, each square Python's own (pow may round otherwise than a product)
            x, k = numbers.values, numbers.counts.astype(np.float64)
            mean = math.fsum((x * k).tolist()) / n
            sd = None
            if n > 1:
                squares = np.asarray(list(map(pow, (x - mean).tolist(), repeat(2))), dtype=np.float64)
                sd = math.sqrt(math.fsum((k * squares).tolist()) / (n - 1))
            values = self.counts().values  # the least and the largest as given
            return {"mean": mean, "sd": sd, "min": values[numbers.codes[0]], "max": values[numbers.codes[-1]]}
        total: dict[Any, int] = self.distribution()
        if not total or not all(_number(v) for v in total):
            return None
        e = _exponent(total)  # values near the largest double: computed halved (see floats)
        xs = _scaled(list(total), e)
        mean = math.fsum(x * k for x, k in zip(xs, total.values(), strict=True)) / n
        sd = None
        if n > 1:
            sd = math.sqrt(math.fsum(k * (x - mean) ** 2 for x, k in zip(xs, total.values(), strict=True)) / (n - 1))
        # the mean lies between the least and the largest value: back at their scale, it is a double
        return {"mean": math.ldexp(mean, e), "sd": _unscaled(sd, e), "min": min(total), "max": max(total)}


class Numbers(NamedTuple):
    """A tally's values given, where all are numbers (`Tally.numbers`), in their order."""

    codes: Any  # each value's code (its place in `Counts.values`)
    values: Any  # float64
    counts: Any  # how often each was given


def alpha(tally: Tally, level: Level, *, order: Sequence[Hashable] | None = None) -> float | None:
    """Krippendorff's alpha of the tally at one level of measurement, computed as in Krippendorff
    (2011): only the values of items with at least two values are pairable. "nominal" takes any
    values; "ordinal" ranks the values in their natural order, or in `order` (for labels such as
    "low" < "mid" < "high"); "interval" and "ratio" take numbers, "ratio" non-negative ones. None
    when there are fewer than two pairable values or only one distinct value (no disagreement can
    be expected). Raises ValueError when the values do not suit the level."""
    pairable = _pairable(tally, level, order)
    return pairable.estimate(pairable.weights)


def item_agreement(tally: Tally, level: Level, *, order: Sequence[Hashable] | None = None) -> tuple[Any, Any] | None:
    """Each item's agreement at a level: 1 - D_u / D_e, where D_u is the mean distance between
    the pairs of the item's own judgments and D_e the question's expected disagreement (the mean
    distance between any two of its pairable values), with alpha's distance at that level
    (nominal: 0 for the same value, 1 for another; D_u is then the share of the item's pairs
    that differ). 1 where the item's judgments agree, 0 where they differ as much as values
    paired at random, below 0 more; alpha is the mean of the items' agreement weighted by their
    judgments. Returns the items of two judgments or more, as their indices in the tally's
    units (`Tally.counts`), in order, and their agreement (both numpy arrays); None where alpha
    is None. Raises ValueError when the values do not suit the level."""
    import numpy as np

    pairable = _pairable(tally, level, order)
    found = pairable.profile_agreement() if pairable.population else None
    if found is None:
        return None
    units = np.flatnonzero(tally.counts().sizes >= 2)
    return units, found[pairable.items]


def _pairable(tally: Tally, level: Level, order: Sequence[Hashable] | None) -> _Pairable:
    """The tally's pairable values at a level, gathered once for every statistic asked of them."""
    key = (level, None if order is None else tuple(order))
    return tally.derived(key, lambda: _Pairable(tally, level, order))


def draws(tally: Tally, samples: int, seed: int) -> Iterator[Any]:
    """The bootstrap's resamples of the items of two values or more: each a row of how many
    items of each profile it holds (as float64), drawn as the items are, with replacement: an exact
    multinomial draw (as many items as there are, each profile with its share of them), given
    in blocks of rows of at most _BATCH numbers per profile, value or item. One seed, the same
    rows.

    Two ways give that draw, chosen by the data's shape alone (so one seed still gives one
    result): where items are few beside their profiles (most items their own profile), the
    items themselves, `numpy.random.Generator(seed).integers`, counted per profile, a few
    nanoseconds an item; where many items share few profiles, `Generator(seed).multinomial`,
    a binomial draw per profile, some forty nanoseconds each (docs/performance.md)."""
    import numpy as np

    found = tally.profiles()
    n = int(found.weights.sum())
    k = len(found.weights)
    rng = np.random.default_rng(seed)
    by_item = n <= _ITEMS * k
    # samples x entries, in blocks: drawn item by item, a block holds three arrays of its items
    # (the draw, the draw's profiles, their counts), so as many numbers as one of profiles
    width = max(3 * n if by_item else k, len(tally.counts().values), 1)
    rows = max(1, _BATCH // width)
    population, shares = found.population, found.weights / n
    for start in range(0, samples, rows):
        size = min(rows, samples - start)
        if not by_item:
            yield rng.multinomial(n, shares, size=size).astype(np.float64)
            continue
        # each sample's items, numbered by their profile (where every item is a profile of its
        # own, profile i is item i), then counted per row
        drawn = rng.integers(0, n, size=(size, n))
        yield _counted(drawn if k == n else population[drawn], k)


# Profiles from which a sample's items are counted row by row: a row's counts then stay in the
# cache, where a block's are scattered over all of its rows (docs/performance.md).
_ROW_COUNTS = 1 << 12


def _counted(drawn: Any, k: int) -> Any:
    """Per row of `drawn` (profile numbers, a new array), how often each of the k profiles is
    in it, as float64 (what the statistics compute with)."""
    import numpy as np

    size = len(drawn)
    if k >= _ROW_COUNTS:
        out = np.empty((size, k))
        for r in range(size):
            out[r] = np.bincount(drawn[r], minlength=k)
        return out
    drawn += np.arange(0, size * k, k)[:, None]
    return np.bincount(drawn.ravel(), minlength=size * k).reshape(size, k).astype(np.float64)


# Items per profile up to which a sample is drawn item by item (`draws`): a bounded integer and a
# count cost some 7 ns an item, a binomial some 40 ns a profile (measured: 700 items of 700
# profiles 5 ms per 1,000 samples against 34 ms; 700 of 100, 6 against 8; 700 of 20, 6 against 2).
_ITEMS = 4


def bootstrap(
    tally: Tally,
    level: Level,
    *,
    order: Sequence[Hashable] | None = None,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    each: Callable[[Any], object] | None = None,
) -> tuple[float, float] | None:
    """A percentile bootstrap interval (lo, hi) for `alpha(tally, level, order=order)`.

    A sample holds as many items as have at least two values, drawn with replacement: how many
    items of each profile (items of the same counts of the same values) it holds is an exact
    multinomial draw (`draws`: the items drawn one by one where they are few beside their
    profiles, else a draw per profile). The interval is the linearly interpolated percentiles of the
    samples' alphas that exist (None ones are left out). Krippendorff's own bootstrap resamples
    pairable values instead; resampling items keeps the judgments of one item together, as they
    are not independent, and anyone can redo it from the data alone. None when no sample has an
    alpha. `each` is given every block of samples (rows of items per profile, `draws`), so that
    another statistic shares the draws (coefficients.py)."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples!r}")
    pairable = _pairable(tally, level, order)
    found = Resamples(pairable, confidence)
    return found.draw(tally, samples, seed, each) if pairable.population else None


# The numbers a block of samples may hold at once (samples x the larger of profiles and values):
# about 32 MB of float64 per array.
_BATCH = 1 << 22


def percentiles(estimates: list[float], confidence: float) -> tuple[float, float] | None:
    """The interval of the middle `confidence` of the estimates, each end interpolated linearly
    between the closest ranks (numpy's default, R's type 7); None without estimates."""
    ordered = sorted(estimates)
    if not ordered:
        return None

    def quantile(q: float) -> float:
        h = (len(ordered) - 1) * q
        low = math.floor(h)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (h - low) * (ordered[high] - ordered[low])

    tail = (1 - confidence) / 2
    return quantile(tail), quantile(1 - tail)


class Statistic(Protocol):
    """What a bootstrap computes of each sample: a row of how many items of each profile of two
    values or more it holds (`draws`), the statistic (NaN where it has none)."""

    def estimates(self, samples: Any) -> Any: ...


S = TypeVar("S", bound=Statistic)


class Resamples(Generic[S]):
    """A statistic of bootstrap samples, added a block at a time (`add`: rows of items per
    profile, as `draws` gives them; a sample alone is one row), and their percentile interval.
    One draw of samples can feed several statistics (alpha's bootstrap gives each block to
    `each`). `statistic` None: none to compute (values that do not suit the level), the samples
    are only counted."""

    def __init__(self, statistic: S | None, confidence: float = 0.95) -> None:
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must lie between 0 and 1, got {confidence!r}")
        self.statistic = statistic
        self.confidence = confidence
        self.estimates: list[float] = []
        self.drawn = 0

    def add(self, samples: Any) -> None:
        import numpy as np

        rows = np.atleast_2d(np.asarray(samples, dtype=np.float64))
        self.drawn += len(rows)
        if self.statistic is None:
            return
        found = self.statistic.estimates(rows)
        self.estimates.extend(found[~np.isnan(found)].tolist())

    def draw(
        self, tally: Tally, samples: int, seed: int, each: Callable[[Any], object] | None = None
    ) -> tuple[float, float] | None:
        """Add `samples` samples of the tally's items (`draws`), each block given to `each` too;
        the interval."""
        for drawn in draws(tally, samples, seed):
            if each is not None:
                each(drawn)
            self.add(drawn)
        return self.interval()

    def interval(self) -> tuple[float, float] | None:
        return percentiles(self.estimates, self.confidence)


class _Pairable:
    """The items with at least two values, grouped by their value counts (a profile): the items
    of one profile add the same amount to the coincidence matrix. A sample is a number of items
    per profile (a row of `weights`); its alpha comes from its marginals (the sample's count of
    each value: its row times the profiles x values matrix of counts) and from each profile's
    disagreement, computed for many samples at once with numpy."""

    def __init__(self, tally: Tally, level: Level, order: Sequence[Hashable] | None) -> None:
        import numpy as np

        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
        if order is not None and level != "ordinal":
            raise ValueError(f"an order applies to the ordinal level only, not to {level!r}")
        self.level = level
        found, c = tally.profiles(), tally.counts()
        self.weights = found.weights
        self.items = found.population  # the profile of each item, in item order
        self.population = len(found.population)
        codes = np.flatnonzero(np.bincount(found.value, minlength=len(c.values)))  # the values paired
        self.given = c.values  # the tally's values, by code
        self.domain, place, self.numbers = ranked(tally, codes, level, order)
        self.profile, self.value, self.count = found.profile, place[found.value], found.count.astype(np.float64)
        self.sizes = found.sizes.astype(np.float64)
        self.starts = found.starts
        self.several = np.diff(np.append(found.starts, len(found.count))) > 1
        self.distinct = len(self.domain)
        # At every level but ordinal, the distance between two values does not depend on the
        # data, so the disagreement of each profile is one number (its part of n D_o).
        self.observed: Any = None if level == "ordinal" else self._observed()
        # a profile's one value, where it has one, to tell a sample of one value (no alpha)
        self.single = np.where(self.several, -1, self.value[self.starts] if len(self.starts) else 0)
        if level == "interval":
            # the expected disagreement of a sample needs only its number of values and their
            # first two moments, which are sums over profiles: per profile its sum of values and
            # of squared values, taken about the mean of all pairable values so that the
            # difference of the two sums loses no precision
            given = self.numbers[self.value]
            total = float(self.weights @ self.sizes)
            centre = float((self.weights[self.profile] * self.count * given).sum()) / total if total else 0.0
            self.sums = self._sum(self.count * (given - centre))
            self.squares = self._sum(self.count * (given - centre) ** 2)

    @cached_property
    def values(self) -> list[Any]:
        """The distinct values paired, in their order (nominal: as first given); made when read
        (a list of a question's every value, where each judgment is a value of its own, costs
        more than its alpha)."""
        if isinstance(self.domain, list):
            return self.domain
        return list(map(self.given.__getitem__, self.domain.tolist()))

    @cached_property
    def matrix(self) -> Sparse:
        """The profiles x values matrix of counts (made when a level first needs it: interval
        alpha needs only its moments)."""
        return Sparse(self.profile, self.value, self.count, (len(self.sizes), self.distinct))

    def _sum(self, per_entry: Any) -> Any:
        """Per profile, the sum of a number per entry."""
        import numpy as np

        return np.add.reduceat(per_entry, self.starts) if len(self.starts) else np.zeros(0)

    def _observed(self) -> Any:
        """The sum over the profile's pairs of values c != k of n_c n_k delta_ck, over m - 1.
        Nominal: m^2 - sum n_c^2; interval: 2 m sum n_c (c - mean)^2; ratio: pair by pair."""

        m, n = self.sizes, self.count
        if self.level == "nominal":
            return (m * m - self._sum(n * n)) / (m - 1)
        x = self.numbers[self.value]
        if self.level == "interval":
            mean = self._sum(n * x) / m
            return 2 * m * self._sum(n * (x - mean[self.profile]) ** 2) / (m - 1)
        return ratio_pairs(x, n, self.starts) / (m - 1)

    def estimate(self, weights: Sequence[int] | Any) -> float | None:
        """Alpha of a sample that holds `weights[p]` items of profile p."""
        import numpy as np

        found = float(self.estimates(np.asarray(weights, dtype=np.float64).reshape(1, -1))[0])
        return None if math.isnan(found) else found

    def estimates(self, samples: Any) -> Any:
        """Alpha of each sample (a row of items per profile), NaN where it has none."""
        import numpy as np

        w = np.asarray(samples, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            parts, expected, total = self._disagreement(w)
            observed = (w * parts).sum(axis=1) if self.level == "ordinal" else w @ parts
            found = 1 - (total - 1) * observed / expected
        found[~self._two_values(w, total) | ~(expected > 0)] = np.nan
        return found

    def profile_agreement(self) -> Any:
        """The agreement of an item of each profile (`item_agreement`), over all the items: the
        profile's part of n D_o is sum n_c n_k delta_ck / (m - 1), so its D_u is that over m;
        D_e is n (n - 1) D_e (`expected`) over n (n - 1). None where no disagreement is expected
        (one value only: alpha is None)."""
        import numpy as np

        parts, expected, total = self._disagreement(np.asarray(self.weights, dtype=np.float64).reshape(1, -1))
        observed = parts[0] if self.level == "ordinal" else parts
        n, chance = float(total[0]), float(expected[0])
        if not chance > 0:
            return None
        return 1 - n * (n - 1) * observed / (self.sizes * chance)

    def _disagreement(self, w: Any) -> tuple[Any, Any, Any]:
        """Of samples `w`: each profile's part of n D_o (`observed`; ordinal: per sample, as the
        distances depend on the sample), n (n - 1) D_e and n, the sample's judgments.

        Ordinal: delta_ck = (n_c + ... + n_k - (n_c + n_k) / 2)^2 is the squared distance between
        the midranks g_c = n_1 + ... + n_(c-1) + n_c / 2, whose mean is total / 2: a profile's part
        is 2 m sum n_c (g_c - its mean)^2 / (m - 1) = 2 (m sum n_c g_c^2 - (sum n_c g_c)^2) / (m - 1),
        with the ranks taken about total / 2 (which changes no difference of them)."""
        import numpy as np

        total = w @ self.sizes
        if self.level == "interval":
            first, second = w @ self.sums, w @ self.squares
            return self.observed, 2 * (total * second - first * first), total
        if self.level == "nominal":  # n(n-1)D_e = n^2 - sum n_c^2
            return self.observed, total * total - self.matrix.squares(w), total
        marginals = self.matrix.times(w)
        if self.level == "ratio":  # the sum over values c, k of n_c n_k delta_ck, a block of values at a time
            expected = np.zeros(len(marginals))
            for start in range(0, self.distinct, _BLOCK):
                block = slice(start, start + _BLOCK)
                expected += ((marginals @ ratios(self.numbers, self.numbers[block])) * marginals[:, block]).sum(axis=1)
            return self.observed, expected, total
        g = np.cumsum(marginals, axis=1) - marginals / 2 - (total / 2)[:, None]
        expected = 2 * total * (marginals * g * g).sum(axis=1)
        linear, square = self.matrix.times_t(g), self.matrix.times_t(g * g)
        spread = np.where(self.several, self.sizes * square - linear * linear, 0.0)
        return 2 * spread / (self.sizes - 1), expected, total

    def _two_values(self, w: Any, total: Any) -> Any:
        """Whether each sample (of `total` judgments) holds two values or more: an item of two
        values, or items of one value each whose values differ."""
        import numpy as np

        if self.several.all():  # every item is of two values or more
            return total > 0
        # counts of items are whole numbers: their sums are exact, and positive where any is
        paired = w @ self.several.astype(np.float64) > 0
        single = np.where(w[:, ~self.several] > 0, self.single[~self.several], -1)
        lowest = np.where(single >= 0, single, self.distinct).min(axis=1, initial=self.distinct)
        return paired | (single.max(axis=1, initial=-1) > lowest)


# Values per block of the ratio level's distance matrix (values x this many).
_BLOCK = 512


def ratio_pairs(x: Any, n: Any, starts: Any) -> Any:
    """Per run of entries from each of `starts` (values x, each given n times): the sum over its
    pairs of values c, k of n_c n_k ((c - k) / (c + k))^2, pair by pair."""
    import numpy as np

    out = np.zeros(len(starts))
    ends = np.append(starts[1:], len(n))
    for p in np.flatnonzero(ends - starts > 1).tolist():
        a, b = starts[p], ends[p]
        out[p] = (np.outer(n[a:b], n[a:b]) * ratios(x[a:b], x[a:b])).sum()
    return out


def ratios(xs: Any, ks: Any) -> Any:
    """((c - k) / (c + k))^2 of every value c of xs (rows) and k of ks (columns), 0 where c + k is 0."""
    import numpy as np

    c, k = xs[:, None], ks[None, :]
    both = c + k
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(both != 0, ((c - k) / both) ** 2, 0.0)


# Numbers up to this magnitude are computed as they are: their squares, times any count of
# judgments, stay far below the largest double (about 2 ** 1024).
LARGE = 2.0**400


def _exponent(values: Iterable[Any]) -> int:
    """0 when every value is at most LARGE in magnitude; else the power of two that brings the
    largest below 1 (halving by a power of two is exact, so the values keep their digits)."""
    largest = max(map(abs, values), default=0)
    if largest <= LARGE:
        return 0
    try:
        return math.frexp(float(largest))[1]
    except OverflowError:  # an integer beyond any double, from the Python API
        raise ValueError("values too large to compare: beyond the largest double") from None


def _unscaled(value: float | None, e: int) -> float | None:
    """A figure of values halved by `_exponent`, at their scale; None beyond the largest double."""
    try:
        return value if value is None or not e else math.ldexp(value, e)
    except OverflowError:  # a spread of values near the largest double can be
        return None


def _scaled(values: list[Any], e: int) -> list[Any]:
    """The values halved by `_exponent`'s e (none where e is 0)."""
    return [math.ldexp(float(v), -e) for v in values] if e else values


def floats(values: list[Any]) -> Any:
    """Numbers as a float64 array, halved by `_exponent` when some are too large to square (the
    distances of the interval and ratio levels are then computed at that scale)."""
    import numpy as np

    return np.asarray(_scaled(values, _exponent(values)), dtype=np.float64)


# Integers below this magnitude are floats exactly: numpy then orders and sums them as Python does.
_EXACT = 2.0**53
_NUMBER_TYPES = frozenset({int, float})


def _as_floats(values: list[Any]) -> Any:
    """The values as a float64 array where each is an int or a float that a float64 holds exactly
    (integers below 2**53 in magnitude), none a NaN: then numpy orders them as sorted() does and
    computes with them as Python does. Else None."""
    import numpy as np

    kinds = set(map(type, values))
    if not kinds <= _NUMBER_TYPES:
        return None
    try:
        x = np.asarray(values, dtype=np.float64)
    except OverflowError:  # an integer beyond the largest double
        return None
    if np.isnan(x).any() or (int in kinds and len(x) and np.abs(x).max() >= _EXACT):
        return None
    return x


def ranked(
    tally: Tally, codes: Any, level: Level, order: Sequence[Hashable] | None = None, declared: Sequence[Any] = ()
) -> tuple[Any, Any, Any]:
    """The domain of the values of these codes (the tally's; nominal: in the order of `codes`,
    else rising), each code's place in it (by code) and, at the interval and ratio levels, the
    domain as float64 (halved where too large: `floats`). Numbers (`Tally.numbers`) are placed
    in numpy's order: the domain is then the codes of its values, in its order. Other values are
    placed by `domain`, looked up one by one: the domain is then the list it gives. With
    `declared` values (a scale's points, a list of labels) and one value given, the declared
    values are in the domain too (none of another kind than the value)."""
    import numpy as np

    c = tally.counts()
    place = np.zeros(len(c.values), dtype=np.int64)
    numbers = None if level == "nominal" or order is not None else tally.numbers()
    metric = level in ("interval", "ratio")
    if numbers is not None and not (declared and len(codes) == 1):
        paired = np.zeros(len(c.values), dtype=bool)
        paired[codes] = True
        kept = paired[numbers.codes]
        found, x = numbers.codes[kept], numbers.values[kept]
        if level == "ratio" and len(x) and x[0] < 0:
            raise ValueError("ratio values must not be negative")
        place[found] = np.arange(len(found))
        # interval and ratio figures do not change when every value is multiplied by one number
        if metric and float(np.abs(x).max(initial=0.0)) > LARGE:
            x = floats(list(map(c.values.__getitem__, found.tolist())))
        return found, place, x if metric else None
    values = list(map(c.values.__getitem__, np.asarray(codes).tolist()))
    found = domain(values, level, order)
    if declared and len(found) == 1:
        with suppress(ValueError):  # declared values of another kind than the answers: not added
            found = domain([*declared, *found], level, None)
    index = {v: i for i, v in enumerate(found)}
    place[codes] = [index[v] for v in values]
    return found, place, floats(found) if metric else None


def domain(values: list[Any], level: Level, order: Sequence[Hashable] | None) -> list[Any]:
    """The distinct values: first seen first for nominal, in their order for the other levels."""
    distinct = list(dict.fromkeys(values))
    if level == "nominal":
        return distinct
    if order is not None:
        rank = {v: i for i, v in enumerate(order)}
        if len(rank) != len(order):
            raise ValueError("the order lists a value twice")
        unknown = [v for v in distinct if v not in rank]
        if unknown:
            raise ValueError(f"values missing from the order: {', '.join(map(quoted_value, unknown[:5]))}")
        return sorted(distinct, key=rank.__getitem__)
    if level != "ordinal":
        wrong = [v for v in distinct if not _number(v)]
        if wrong:
            raise ValueError(f"{level} values must be numbers, got {', '.join(map(quoted_value, wrong[:5]))}")
        if level == "ratio" and any(v < 0 for v in distinct):
            raise ValueError("ratio values must not be negative")
    try:
        return sorted(distinct)
    except TypeError:
        kinds: dict[str, Any] = {}  # the first value of each kind
        for v in distinct:
            kinds.setdefault("number" if _number(v) else type(v).__name__, v)
        mixed = ", ".join(f"{kind} {value!r}" for kind, value in sorted(kinds.items()))
        raise ValueError(f"the values mix kinds that have no common order ({mixed})") from None


__all__ = [
    "LEVELS",
    "Counts",
    "Level",
    "Numbers",
    "Profiles",
    "Resamples",
    "Tally",
    "alpha",
    "bootstrap",
    "draws",
]
