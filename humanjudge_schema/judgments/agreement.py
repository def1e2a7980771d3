"""Counts, value distributions and Krippendorff's alpha for the judgments of one question.

Everything is computed from per-item value counts, the input of the coincidence matrix in
Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", never from a raters x items
table: a streamed dataset needs memory in proportion to its distinct (item, value) pairs.

>>> tally = Tally()
>>> for item, value in [("a", 1), ("a", 1), ("b", 2), ("b", 2), ("c", 1), ("c", 2)]:
...     tally.add(item, value)
>>> round(alpha(tally, "nominal"), 3)
0.444
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import accumulate, compress, pairwise, repeat
from operator import mul, sub
from typing import Any, Literal, TypedDict

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")


class NumericSummary(TypedDict):
    mean: float
    sd: float | None  # sample standard deviation; None for a single judgment, or beyond the largest double
    min: float
    max: float


def _number(value: Hashable) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Tally:
    """The judgments of one question, fed one at a time: per item, how often each value was
    given. None (and a float NaN) is a missing judgment and is not counted. Equal values are one
    value, as in a dict: 1, 1.0 and True are the same."""

    def __init__(self) -> None:
        self._items: dict[Hashable, Counter[Hashable]] = {}
        self._judgments = 0
        # what is computed from the counts (the distribution, the pairable values at a level), made
        # once for every statistic and check that reads it, dropped when a judgment is added
        self._derived: dict[tuple[Any, ...], Any] = {}

    def add(self, item: Hashable, value: Hashable, times: int = 1) -> None:
        """Count one judgment of `item` (or `times` equal ones)."""
        self.add_counts(((item, value, times),))

    def add_counts(self, counted: Iterable[tuple[Hashable, Hashable, int]]) -> int:
        """Count (item, value, times) judgments at once; returns how many were None (missing),
        which are not counted, as a float NaN is not."""
        missing = 0
        items = self._items
        for item, value, times in counted:
            if value is None:
                missing += times
                continue
            if isinstance(value, float) and math.isnan(value):
                continue
            counts = items.get(item)
            if counts is None:
                counts = items[item] = Counter()
            counts[value] += times
            self._judgments += times
        self._derived.clear()
        return missing

    def per_item(self) -> dict[Hashable, Counter[Hashable]]:
        """item -> how often each value was given to it (the tally's own counts: do not change)."""
        return self._items

    @property
    def items(self) -> int:
        """The items with at least one judgment."""
        return len(self._items)

    @property
    def judgments(self) -> int:
        return self._judgments

    def raters_per_item(self) -> tuple[int, float, int] | None:
        """(min, median, max) of the judgments per item; the median of an even number of items
        is the mean of the middle two, a float. None without items."""
        sizes = sorted(Counter(sum(counts.values()) for counts in self._items.values()).items())
        if not sizes:
            return None
        k = len(self._items)
        low, high = _nth(sizes, (k - 1) // 2), _nth(sizes, k // 2)
        median: float = low if k % 2 else (low + high) / 2
        return sizes[0][0], median, sizes[-1][0]

    def distribution(self) -> dict[Hashable, int]:
        """How often each value was given, in the values' order when they have one (the tally's
        own dict, made once: do not change)."""
        found: dict[Hashable, int] | None = self._derived.get(("distribution",))
        if found is None:
            found = self._derived[("distribution",)] = self._distribution()
        return found

    def _distribution(self) -> dict[Hashable, int]:
        total: Counter[Any] = Counter()
        for counts in self._items.values():
            total.update(counts)
        try:
            keys = sorted(total)
        except TypeError:
            keys = sorted(total, key=lambda v: (type(v).__name__, repr(v)))
        return {key: total[key] for key in keys}

    def numeric_summary(self) -> NumericSummary | None:
        """Mean, sample standard deviation, min and max when every value is a number (bools are
        not); None otherwise or without judgments."""
        total: dict[Any, int] = self.distribution()
        if not total or not all(_number(v) for v in total):
            return None
        n = self._judgments
        e = _exponent(total)  # values near the largest double: computed halved (see _scaled)
        xs = _scaled(list(total))
        mean = math.fsum(x * k for x, k in zip(xs, total.values(), strict=True)) / n
        sd = None
        if n > 1:
            sd = math.sqrt(math.fsum(k * (x - mean) ** 2 for x, k in zip(xs, total.values(), strict=True)) / (n - 1))
        # the mean lies between the least and the largest value: back at their scale, it is a double
        return {"mean": math.ldexp(mean, e), "sd": _unscaled(sd, e), "min": min(total), "max": max(total)}


def _nth(sizes: list[tuple[int, int]], index: int) -> int:
    """The element at `index` (from 0) of the sorted list that the (value, count) pairs stand for."""
    seen = 0
    for size, count in sizes:
        seen += count
        if seen > index:
            return size
    raise IndexError(index)


def alpha(tally: Tally, level: Level, *, order: Sequence[Hashable] | None = None) -> float | None:
    """Krippendorff's alpha of the tally at one level of measurement, computed as in Krippendorff
    (2011): only the values of items with at least two values are pairable. "nominal" takes any
    values; "ordinal" ranks the values in their natural order, or in `order` (for labels such as
    "low" < "mid" < "high"); "interval" and "ratio" take numbers, "ratio" non-negative ones. None
    when there are fewer than two pairable values or only one distinct value (no disagreement can
    be expected). Raises ValueError when the values do not suit the level."""
    pairable = _pairable(tally, level, order)
    return pairable.estimate(pairable.weights)


def _pairable(tally: Tally, level: Level, order: Sequence[Hashable] | None) -> _Pairable:
    """The tally's pairable values at a level, gathered once for every statistic asked of them."""
    key = (level, None if order is None else tuple(order))
    found: _Pairable | None = tally._derived.get(key)
    if found is None:
        found = tally._derived[key] = _Pairable(tally, level, order)
    return found


def bootstrap(
    tally: Tally,
    level: Level,
    *,
    order: Sequence[Hashable] | None = None,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    each: Callable[[list[int]], object] | None = None,
) -> tuple[float, float] | None:
    """A percentile bootstrap interval (lo, hi) for `alpha(tally, level, order=order)`.

    Each sample draws as many items as have at least two values, with replacement, from those
    items in the order they were first added, with `random.Random(seed).choices`; the interval
    is the linearly interpolated percentiles of the samples' alphas that exist (None ones are left
    out). Krippendorff's own bootstrap resamples pairable values instead; resampling items keeps
    the judgments of one item together, as they are not independent, and anyone can redo it from
    the data alone. A sample costs one draw per pairable item plus work in proportion to the
    distinct value-count patterns of the items (items with the same counts of the same values
    are computed once), to the distinct values, and for "ratio" to their square. None when no
    sample has an alpha. `each` is given every sample's items per profile (profiles numbered by
    their first item), so that another statistic shares the draws (coefficients.py)."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie between 0 and 1, got {confidence!r}")
    pairable = _pairable(tally, level, order)
    if not pairable.population:
        return None
    rng = random.Random(seed)
    estimates = []
    # A few items have few distinct resamples: each is computed once (a question of five items
    # has 126, drawn a thousand times).
    alike: dict[tuple[int, ...], float | None] | None = {} if len(pairable.weights) <= _FEW else None
    for _ in range(samples):
        weights = pairable.draw(rng)
        if each is not None:
            each(weights)
        if alike is None:
            estimate = pairable.estimate(weights)
        elif (key := tuple(weights)) in alike:
            estimate = alike[key]
        else:
            estimate = alike[key] = pairable.estimate(weights)
        if estimate is not None:
            estimates.append(estimate)
    if not estimates:
        return None
    estimates.sort()
    tail = (1 - confidence) / 2
    return _quantile(estimates, tail), _quantile(estimates, 1 - tail)


# Profiles (or items) up to which a bootstrap remembers the alpha of each resample, and a resample
# is counted without a Counter.
_FEW = 16


def _quantile(ordered: list[float], q: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default, R's type 7)."""
    h = (len(ordered) - 1) * q
    low = math.floor(h)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (h - low) * (ordered[high] - ordered[low])


def profiles(tally: Tally) -> tuple[list[Counter[Hashable]], list[int]]:
    """The distinct value counts (profiles) of the items of two values or more, and each such item's
    profile: what a sample draws; alpha and Gwet's AC share it, so AC is computed from alpha's draws."""
    found: dict[frozenset[tuple[Hashable, int]], int] = {}
    shapes: list[Counter[Hashable]] = []
    population: list[int] = []
    for counts in tally.per_item().values():
        if sum(counts.values()) < 2:
            continue
        key = frozenset(counts.items())
        profile = found.get(key)
        if profile is None:
            profile = found[key] = len(shapes)
            shapes.append(counts.copy())
        population.append(profile)
    return shapes, population


class _Pairable:
    """The items with at least two values, grouped by their value counts (a profile): the items
    of one profile add the same amount to the coincidence matrix. A sample is a number of items
    per profile; its alpha comes from sums over the profiles that hold each value (the marginals)
    and over the profiles' disagreements, taken with `map` so that the loops run in C where they
    can."""

    def __init__(self, tally: Tally, level: Level, order: Sequence[Hashable] | None) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
        if order is not None and level != "ordinal":
            raise ValueError(f"an order applies to the ordinal level only, not to {level!r}")
        self.level = level
        shapes, self.population = profiles(tally)
        self.weights = [0] * len(shapes)
        for profile in self.population:
            self.weights[profile] += 1
        self.values = _domain([v for shape in shapes for v in shape], level, order)
        index = {v: i for i, v in enumerate(self.values)}
        # Per profile, its values and counts; for the marginals of a sample, running sums over
        # them (`_running_sums`), or at the interval level its moments (`_moments`).
        # Nothing is kept per pair of values: an item with a hundred distinct slider values has
        # five thousand pairs, and a file has thousands of such items. The disagreement within a
        # profile has a closed form instead (below).
        self.entries: list[tuple[list[int], list[int], int]] = []  # (value indices, counts, m)
        for shape in shapes:
            entries = sorted((index[v], n) for v, n in shape.items())
            self.entries.append(([i for i, _ in entries], [n for _, n in entries], sum(shape.values())))
        self.sizes = [m for _, _, m in self.entries]
        # Interval and ratio alpha do not change when every value is multiplied by one number:
        # values near the largest double are computed halved enough times that no square, sum or
        # difference of them overflows (`_scaled`); other values are computed as they are.
        self.numbers = _scaled(self.values) if level in ("interval", "ratio") else self.values
        # At every level but ordinal, the distance between two values does not depend on the
        # data, so the disagreement of each profile is one number.
        self.observed = [] if level == "ordinal" else [self._observed(p) for p in range(len(shapes))]
        if level == "interval":
            self._moments()
        elif level == "nominal":
            self._shared_sums()
        else:
            self._running_sums(range(len(self.values)))

    def _running_sums(self, kept: Iterable[int]) -> None:
        """Every (value, count, profile) of the profiles sorted by value, for the values `kept`
        (indices, in order), so that a sample's marginals of them are differences of one running
        sum, made in C."""
        kept = list(kept)
        wanted = set(kept)
        flat = sorted((i, n, p) for p, (idx, ns, _) in enumerate(self.entries) for i, n in zip(idx, ns) if i in wanted)  # noqa: B905
        self.flat_counts = [n for _, n, _ in flat]
        self.flat_profiles = [p for _, _, p in flat]
        ends = Counter(i for i, _, _ in flat)
        self.bounds = list(pairwise(accumulate((ends[i] for i in kept), initial=0)))
        self.starts = [start for start, _ in self.bounds]
        self.ends = [end for _, end in self.bounds]

    def _shared_sums(self) -> None:
        """Nominal: a sample's expected disagreement needs its number of values and the sum of
        their squared marginals. A value that only one profile holds has the marginal w_p n, so
        such values are summed per profile (`private_squares`, `private_values`) and only the
        values several profiles share go through the running sums: a sample costs work in
        proportion to the profiles and the shared entries, not to the distinct values (100,000
        labels, each of one item, are 100,000 values and far fewer profiles)."""
        holders = Counter(i for idx, _, _ in self.entries for i in idx)
        self._running_sums(i for i in range(len(self.values)) if holders[i] > 1)
        self.private_squares = [
            sum(n * n for i, n in zip(idx, ns, strict=True) if holders[i] == 1) for idx, ns, _ in self.entries
        ]
        self.private_values = [sum(holders[i] == 1 for i in idx) for idx, _, _ in self.entries]

    def _moments(self) -> None:
        """Interval: the expected disagreement of a sample needs only its number of values and
        their first two moments, which are sums over profiles: per profile its size, its sum of
        values and of squared values, taken about the mean of all pairable values so that the
        difference of the two sums loses no precision. A sample then costs a few sums over the
        profiles, not one over every (profile, value). Also kept: whether a profile holds two
        values or more, else its one value, to tell a sample of one value (no alpha)."""
        profiles = [([self.numbers[i] for i in idx], ns, m) for idx, ns, m in self.entries]
        total = sum(map(mul, self.weights, self.sizes))
        weighted = (w * n * x for w, (xs, ns, _) in zip(self.weights, profiles, strict=True) for x, n in zip(xs, ns))  # noqa: B905
        centre = math.fsum(weighted) / total if total else 0.0
        self.sums = [math.fsum(n * (x - centre) for x, n in zip(xs, ns, strict=True)) for xs, ns, _ in profiles]
        self.squares = [math.fsum(n * (x - centre) ** 2 for x, n in zip(xs, ns, strict=True)) for xs, ns, _ in profiles]
        self.several = [len(idx) > 1 for idx, _, _ in self.entries]
        self.single = [idx[0] if len(idx) == 1 else -1 for idx, _, _ in self.entries]

    def _observed(self, profile: int) -> float:
        """The sum over the profile's pairs of values c != k of n_c n_k delta_ck, over m - 1: its
        part of n D_o. Nominal: m^2 - sum n_c^2; interval: 2 m sum n_c (c - mean)^2."""
        idx, ns, m = self.entries[profile]
        if self.level == "nominal":
            return (m * m - sum(n * n for n in ns)) / (m - 1)
        xs = [self.numbers[i] for i in idx]
        if self.level == "interval":
            mean = math.fsum(map(mul, xs, ns)) / m
            return 2 * m * math.fsum(n * (x - mean) ** 2 for x, n in zip(xs, ns, strict=True)) / (m - 1)
        pairs = (
            2 * nc * nk * _ratio(c, k)
            for a, (c, nc) in enumerate(zip(xs, ns, strict=True))
            for k, nk in zip(xs[a + 1 :], ns[a + 1 :], strict=True)
        )
        return math.fsum(pairs) / (m - 1)

    def draw(self, rng: random.Random) -> list[int]:
        """How many items of each profile a resample of the items holds (many counted in C)."""
        drawn = rng.choices(self.population, k=len(self.population))
        if len(drawn) > _FEW:
            counted = Counter(drawn)
            return list(map(counted.get, range(len(self.weights)), repeat(0)))
        weights = [0] * len(self.weights)
        for profile in drawn:
            weights[profile] += 1
        return weights

    def estimate(self, weights: list[int]) -> float | None:
        """Alpha of a sample that holds `weights[p]` items of profile p."""
        if self.level == "interval":
            return self._interval(weights)
        marginals = self._marginals(weights)
        if self.level == "nominal":
            return self._nominal(weights, marginals)
        present = [(x, n) for x, n in zip(self.numbers, marginals, strict=True) if n]
        if len(present) < 2:
            return None
        total = sum(marginals)
        if self.level == "ordinal":
            # delta_ck = (n_c + ... + n_k - (n_c + n_k) / 2)^2 is the squared distance between the
            # midranks g_c = n_1 + ... + n_(c-1) + n_c / 2, whose mean is total / 2.
            below = 0
            ranks = []
            for n in marginals:
                ranks.append(below + n / 2)
                below += n
            observed = math.fsum(self._ordinal_observed(p, w, ranks) for p, w in enumerate(weights) if w)
            expected = 2 * total * math.fsum(n * (g - total / 2) ** 2 for g, n in zip(ranks, marginals, strict=True))
        else:
            observed = math.fsum(map(mul, weights, self.observed))
            expected = _expected(self.level, present, total)
        if expected <= 0:
            return None
        return 1 - (total - 1) * observed / expected

    def _marginals(self, weights: list[int]) -> list[int]:
        """How often a sample holds each value of the running sums (`_running_sums`)."""
        picked = map(weights.__getitem__, self.flat_profiles)
        running: list[int] = list(accumulate(map(mul, picked, self.flat_counts), initial=0))
        return list(map(sub, map(running.__getitem__, self.ends), map(running.__getitem__, self.starts)))

    def _nominal(self, weights: list[int], shared: list[int]) -> float | None:
        """Nominal alpha of a sample from the marginals of the shared values and the private
        sums of its profiles (`_shared_sums`): n(n-1)D_e = n^2 - sum n_c^2, in integers."""
        present = len(shared) - shared.count(0) + sum(compress(self.private_values, weights))
        if present < 2:
            return None
        total = sum(map(mul, weights, self.sizes))
        squares = sum(map(mul, shared, shared)) + sum(map(mul, map(mul, weights, weights), self.private_squares))
        expected = float(total * total - squares)
        if expected <= 0:
            return None
        observed = math.fsum(map(mul, weights, self.observed))
        return float(1 - (total - 1) * observed / expected)

    def _interval(self, weights: list[int]) -> float | None:
        """Interval alpha from the moments (`_moments`): n(n-1)D_e = 2 (n sum x^2 - (sum x)^2)."""
        if not any(compress(self.several, weights)) and len(set(compress(self.single, weights))) < 2:
            return None  # one value in the whole sample
        total = sum(map(mul, weights, self.sizes))
        first, second = math.fsum(map(mul, weights, self.sums)), math.fsum(map(mul, weights, self.squares))
        expected = 2 * (total * second - first * first)
        if expected <= 0:
            return None
        observed = math.fsum(map(mul, weights, self.observed))
        return float(1 - (total - 1) * observed / expected)

    def _ordinal_observed(self, profile: int, weight: int, ranks: list[float]) -> float:
        """`weight` items of a profile: the sum over its pairs of values of n_c n_k times the
        squared distance of their midranks, over m - 1: 2 m sum n_c (g_c - mean)^2 / (m - 1)."""
        idx, ns, m = self.entries[profile]
        g = [ranks[i] for i in idx]
        mean = math.fsum(map(mul, ns, g)) / m  # centred: ranks run to the number of values
        spread = m * math.fsum(n * (x - mean) ** 2 for n, x in zip(ns, g, strict=True))
        return weight * 2 * spread / (m - 1)


def _expected(level: Level, present: list[tuple[Any, int]], total: int) -> float:
    """Ratio: the sum over values c, k of n_c n_k delta_ck, that is n (n - 1) D_e (the other
    levels have closed forms: `_nominal`, `_interval`, the ordinal midranks)."""
    return 2 * math.fsum(nc * nk * _ratio(c, k) for a, (c, nc) in enumerate(present) for k, nk in present[a + 1 :])


def _ratio(c: Any, k: Any) -> float:
    return float(((c - k) / (c + k)) ** 2) if c + k else 0.0


# Numbers up to this magnitude are computed as they are: their squares, times any count of
# judgments, stay far below the largest double (about 2 ** 1024).
_LARGE = 2.0**400


def _exponent(values: Iterable[Any]) -> int:
    """0 when every value is at most _LARGE in magnitude; else the power of two that brings the
    largest below 1 (halving by a power of two is exact, so the values keep their digits)."""
    largest = max(map(abs, values), default=0)
    if largest <= _LARGE:
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


def _scaled(values: list[Any]) -> list[Any]:
    """The values halved by `_exponent`, or the values themselves when they are not too large."""
    e = _exponent(values)
    return values if not e else [math.ldexp(float(v), -e) for v in values]


def _domain(values: list[Any], level: Level, order: Sequence[Hashable] | None) -> list[Any]:
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
            raise ValueError(f"values missing from the order: {', '.join(map(repr, unknown[:5]))}")
        return sorted(distinct, key=rank.__getitem__)
    if level != "ordinal":
        wrong = [v for v in distinct if not _number(v)]
        if wrong:
            raise ValueError(f"{level} values must be numbers, got {', '.join(map(repr, wrong[:5]))}")
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


__all__ = ["LEVELS", "Level", "NumericSummary", "Tally", "alpha", "bootstrap"]
