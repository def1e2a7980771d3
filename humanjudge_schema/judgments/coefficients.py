"""Agreement beside Krippendorff's alpha: the observed agreement, Gwet's AC1 (nominal) and AC2
(the level's weights), and whether one answer dominates a question.

Gwet's coefficients are computed as in Gwet (2014), "Handbook of Inter-Rater Reliability", for r
raters and items rated by varying numbers of them, as irrCAC's `CAC.gwet()` computes them. With
r_ik the ratings of item i in category k, r_i those of item i, q the categories (every distinct
value of the question, in their order) and w_kl the weights of the level (`WEIGHTS`):

    p_a = mean over the items with two ratings or more of
          sum_k r_ik (sum_l w_kl r_il - 1) / (r_i (r_i - 1))
    pi_k = mean over every rated item of r_ik / r_i
    p_e = (sum_kl w_kl) / (q (q - 1)) * sum_k pi_k (1 - pi_k)
    AC = (p_a - p_e) / (1 - p_e)

Everything is computed from per-item value counts (`Tally`), never from a raters x items table.
Items with the same counts of the same values (a profile) are computed once.

>>> tally = Tally()
>>> for item, value in [("a", 1), ("a", 1), ("b", 2), ("b", 2), ("c", 1), ("c", 2)]:
...     tally.add(item, value)
>>> round(observed(tally), 3), round(gwet(tally, "nominal"), 3)
(0.667, 0.333)
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate, repeat
from operator import mul
from typing import Any

from .agreement import Level, Tally, _quantile, _ratio, profiles

# The weights of each level, by the names irrCAC gives them: "quadratic" are the interval weights.
WEIGHTS: dict[Level, str] = {"nominal": "identity", "ordinal": "ordinal", "interval": "quadratic", "ratio": "ratio"}
# One answer dominates a question when it is at least this share of the answers and the raters
# give the same answer in at least this share of pairs (`dominant`).
DOMINANT = 0.8
# Below this alpha (Krippendorff's lowest bar, for tentative conclusions), a question where one
# answer dominates is said to be one.
LOW_ALPHA = 0.667


def observed(tally: Tally) -> float | None:
    """The observed agreement: over the items with two ratings or more, the mean share of the
    pairs of an item's ratings that are the same value (each item counts once, however many
    raters it has: Gwet's p_a without weights, irrCAC's `pa` of AC1). None without such items."""
    shares: list[float] = []
    for counts in tally.per_item().values():
        r = sum(counts.values())
        if r >= 2:
            shares.append((sum(n * n for n in counts.values()) - r) / (r * (r - 1)))
    return math.fsum(shares) / len(shares) if shares else None


def gwet(tally: Tally, level: Level) -> float | None:
    """Gwet's AC1 at the nominal level, AC2 with the level's weights (`WEIGHTS`) at the others.
    None without an item of two ratings or with a single value. Raises ValueError when the values
    do not suit the level, as `alpha` does."""
    return _Gwet(tally, level).estimate()


def gwet_bootstrap(
    tally: Tally, level: Level, *, samples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> tuple[float, float] | None:
    """A percentile bootstrap interval (lo, hi) for `gwet(tally, level)`, over items.

    The items with two ratings or more are drawn as `agreement.bootstrap` draws them (with one
    seed, the same items: `Resamples` takes them from it). The items with one rating count only
    in the chance agreement, through each answer's share, and are kept as they are in every
    sample: drawing them would cost a draw per item and sample where alpha draws none (a survey
    of 100,000 single answers and a few items rated twice: 10 s instead of 0.2 s). The
    categories and weights stay those of the whole question. A sample is a sum over the drawn
    items' counts. None without an AC."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples!r}")
    found = Resamples(tally, level, confidence=confidence)
    if found.gwet is None or found.gwet.estimate() is None:
        return None
    rng = random.Random(seed)
    population = found.gwet.population
    for _ in range(samples):
        drawn = Counter(rng.choices(population, k=len(population)))
        found.add(list(map(drawn.get, range(len(found.gwet.agree)), repeat(0))))
    return found.interval()


class Resamples:
    """Gwet's AC of bootstrap samples, one per `add(weights)` (weights: how many items of each
    profile of two ratings or more a sample holds, numbered as `agreement.bootstrap` numbers them,
    whose `each` it is), and their interval. `gwet` is None where the values do not suit the level.
    Samples are kept and computed together (`_Gwet.estimates`), a bounded number at a time."""

    def __init__(self, tally: Tally, level: Level, *, confidence: float = 0.95) -> None:
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must lie between 0 and 1, got {confidence!r}")
        try:
            self.gwet: _Gwet | None = _Gwet(tally, level)
        except ValueError:
            self.gwet = None
        self.confidence = confidence
        self._estimates: list[float] = []
        self._pending: list[list[int]] = []
        self.drawn = 0

    def add(self, weights: list[int]) -> None:
        self.drawn += 1
        if self.gwet is None:
            return
        self._pending.append(weights)
        if len(self._pending) * max(len(self.gwet.agree), len(self.gwet.shares)) >= _BATCH:
            self._flush()

    @property
    def estimates(self) -> list[float]:
        """The AC of every sample added so far that has one, in the order they were added."""
        self._flush()
        return self._estimates

    def _flush(self) -> None:
        if self._pending and self.gwet is not None:
            found = self.gwet.estimates(self._pending)
            self._estimates.extend(float(v) for v in found if not math.isnan(v))
        self._pending = []

    def interval(self) -> tuple[float, float] | None:
        if not self.estimates:
            return None
        ordered = sorted(self.estimates)
        tail = (1 - self.confidence) / 2
        return _quantile(ordered, tail), _quantile(ordered, 1 - tail)


# The numbers a batch of samples may hold at once (samples x the larger of profiles and shared
# entries): about 32 MB of float64 per array.
_BATCH = 1 << 22


def dominant(tally: Tally, level: Level, alpha: float | None, known: dict[str, Any] | None = None) -> str | None:
    """Why alpha is low while the raters agree, when that is so: one answer is at least DOMINANT
    of the answers, the raters give the same answer in at least DOMINANT of pairs (`observed`),
    AC is above 0, and alpha is below LOW_ALPHA. Then alpha is low because chance agreement is
    high (the prevalence paradox), not because the raters disagree. None otherwise. `known`:
    the question's `figures`, when the caller has them (not computed again)."""
    if alpha is None or not math.isfinite(alpha) or alpha >= LOW_ALPHA:
        return None
    counts = tally.distribution()
    if not counts or tally.judgments == 0:
        return None
    top, n = max(counts.items(), key=lambda kv: kv[1])
    share = n / tally.judgments
    if share < DOMINANT:
        return None
    agree = observed(tally) if known is None else known["observed"]
    if agree is None or agree < DOMINANT:
        return None
    try:
        ac = gwet(tally, level) if known is None else known["ac"]
    except ValueError:
        return None
    if ac is None or not math.isfinite(ac) or ac <= 0:
        return None
    shown = repr(list(top)) if isinstance(top, tuple) else repr(top)
    return (
        f"one answer dominates: {shown} is {n} of {tally.judgments} answers ({share:.0%}); the raters give "
        f"the same answer in {agree:.0%} of pairs and AC is {ac:.3f}, so alpha ({alpha:.3f}) is low "
        "because chance agreement is high, not because the raters disagree"
    )


class _Gwet:
    """What Gwet's AC of any resample of a question's items needs: per profile of two ratings or
    more (numbered as agreement.py numbers them: the first item of each, in the tally's order),
    its agreement; per category, the profiles that hold it and their share of it (r_ik / r_i);
    the category of each item of one rating; and the weights' constant."""

    def __init__(self, tally: Tally, level: Level) -> None:
        if level not in WEIGHTS:
            raise ValueError(f"level must be one of {', '.join(WEIGHTS)}, got {level!r}")
        self.weights = WEIGHTS[level]
        self.categories = _categories(list(tally.distribution()), level)
        index = {v: i for i, v in enumerate(self.categories)}
        numbers = _numbers(self.categories) if level in ("interval", "ratio") else []
        # the profiles as alpha numbers them (its draws are this AC's samples), and the category
        # of each item of one rating
        counted, self.population = profiles(tally)
        shapes = [sorted((index[v], n) for v, n in counts.items()) for counts in counted]
        self.singles: list[int] = [
            index[v] for counts in tally.per_item().values() if sum(counts.values()) == 1 for v in counts
        ]
        q = len(self.categories)
        self.agree = [_agreement(shape, self.weights, numbers, q) for shape in shapes]
        # sum_kl w_kl: the weighted agreement of one rating in every category, without the - r
        total = _weighted_pairs([(i, 1) for i in range(q)], self.weights, numbers, q) if q >= 2 else 0.0
        self.constant = total / (q * (q - 1)) if q >= 2 else 0.0
        alone = [0] * q
        for i in self.singles:
            alone[i] += 1
        # A sample's sum of squared marginals, sum_k m_k^2, is what chance agreement needs (the
        # marginals add up to the sample's ratings). A category only one profile holds adds
        # (w_p s_pk + a_k)^2: summed once per profile as w_p^2 S2_p + 2 w_p SA_p + sum a_k^2, so
        # that a sample costs work per profile and per shared category, not per category (100,000
        # labels over 1,000 items).
        sizes = [sum(c for _, c in shape) for shape in shapes]  # each profile's ratings, counted once
        entries = sorted((i, n / sizes[p], p) for p, shape in enumerate(shapes) for i, n in shape)
        holders = Counter(i for i, _, _ in entries)
        self.s2, self.sa = [0.0] * len(shapes), [0.0] * len(shapes)
        self.fixed = math.fsum(a * a for i, a in enumerate(alone) if not holders[i])  # held by no profile
        shared = [(i, share, p) for i, share, p in entries if holders[i] > 1]
        for i, share, p in entries:
            if holders[i] == 1:
                self.s2[p] += share * share
                self.sa[p] += share * alone[i]
                self.fixed += alone[i] * alone[i]
        self.profiles = [p for _, _, p in shared]
        self.shares = [s for _, s, _ in shared]
        kinds = sorted({i for i, _, _ in shared})
        bounds = list(accumulate((holders[i] for i in kinds), initial=0))
        self.starts, self.ends = bounds[:-1], bounds[1:]
        self.alone = [alone[i] for i in kinds]  # of the shared categories, in their order
        self.arrays()

    def estimate(self, weights: list[int] | None = None) -> float | None:
        """AC of a sample of `weights[p]` items of profile p (by default: the data) and the items
        of one rating."""
        if weights is None:
            weights = [0] * len(self.agree)
            for p in self.population:
                weights[p] += 1
        found = self.estimates([weights])
        return None if math.isnan(found[0]) else float(found[0])

    def estimates(self, samples: Sequence[Sequence[int]]) -> Any:
        """AC of each sample (a row of items per profile), as a numpy array, NaN where AC is not
        defined. The samples are computed together in native code: a sample's marginals are its
        weights times each profile's shares, summed per category (`numpy.add.reduceat` over the
        entries sorted by category), so a thousand samples of a slider's hundred values over
        thousands of items cost a few matrix passes, not a loop per entry."""
        import numpy as np

        w = np.asarray(samples, dtype=np.float64).reshape(len(samples), len(self.agree))
        pairable = w.sum(axis=1)
        if len(self.categories) < 2:
            return np.full(len(w), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            p_a = (w @ self._agree) / pairable
            squares = (w * (w * self._s2 + 2 * self._sa)).sum(axis=1) + self.fixed
            if len(self._profiles):
                held = np.add.reduceat(w[:, self._profiles] * self._shares, self._starts, axis=1) + self._alone
                squares += (held * held).sum(axis=1)
            n = pairable + len(self.singles)
            # sum_k pi_k (1 - pi_k) = 1 - sum_k pi_k^2, the marginals adding up to n
            p_e = self.constant * (1 - squares / (n * n))
            found = (p_a - p_e) / (1 - p_e)
        found[(pairable == 0) | (p_e >= 1)] = np.nan
        return found

    def arrays(self) -> None:
        """The profile figures as numpy arrays, made once (`estimates` reads them)."""
        import numpy as np

        self._agree = np.asarray(self.agree, dtype=np.float64)
        self._s2, self._sa = np.asarray(self.s2, dtype=np.float64), np.asarray(self.sa, dtype=np.float64)
        self._profiles = np.asarray(self.profiles, dtype=np.intp)
        self._shares = np.asarray(self.shares, dtype=np.float64)
        self._starts = np.asarray(self.starts, dtype=np.intp)
        self._alone = np.asarray(self.alone, dtype=np.float64)


def _categories(values: list[Any], level: Level) -> list[Any]:
    """The question's distinct values in their order; ValueError where they do not suit the level."""
    if level == "nominal":
        return values
    try:
        ordered = sorted(values)
    except TypeError:
        raise ValueError(f"the values mix kinds that have no common order at the {level} level") from None
    if level in ("interval", "ratio"):
        wrong = [v for v in ordered if not isinstance(v, (int, float)) or isinstance(v, bool)]
        if wrong:
            raise ValueError(f"{level} values must be numbers, got {', '.join(map(repr, wrong[:5]))}")
        if level == "ratio" and ordered and ordered[0] < 0:
            raise ValueError("ratio values must not be negative")
    return ordered


def _numbers(values: list[Any]) -> list[float]:
    """The values as floats, halved by a power of two when they are so large that a square of
    their spread would overflow (the weights of both levels do not change with the scale)."""
    largest = max(map(abs, values), default=0)
    e = 0
    if largest > 2.0**400:
        try:
            e = math.frexp(float(largest))[1]
        except OverflowError:
            raise ValueError("values too large to compare: beyond the largest double") from None
    return [math.ldexp(float(v), -e) for v in values]


def _agreement(shape: list[tuple[int, int]], weights: str, numbers: list[float], q: int) -> float:
    """One item's weighted agreement: sum_k r_k (sum_l w_kl r_l - 1) / (r (r - 1))."""
    r = sum(n for _, n in shape)
    return (_weighted_pairs(shape, weights, numbers, q) - r) / (r * (r - 1))


def _weighted_pairs(shape: list[tuple[int, int]], weights: str, numbers: list[float], q: int) -> float:
    """sum_kl r_k r_l w_kl over (category index, count) pairs sorted by index, in closed form
    where the weights have one (identity, ordinal and quadratic cost one pass)."""
    r = sum(n for _, n in shape)
    if weights == "identity" or len(shape) == 1:
        return float(sum(n * n for _, n in shape))
    if weights == "ordinal":
        # w_kl = 1 - d (d + 1) / (q (q - 1)), d = |rank k - rank l|: the sums of n_k n_l d^2 and
        # n_k n_l d over the pairs, from running sums, in integers
        count = linear = square = far = near = 0
        for i, n in shape:
            far += n * (count * i * i - 2 * i * linear + square)
            near += n * (count * i - linear)
            count, linear, square = count + n, linear + n * i, square + n * i * i
        return r * r - 2 * (far + near) / (q * (q - 1))
    xs = [numbers[i] for i, _ in shape]
    ns = [n for _, n in shape]
    spread = numbers[-1] - numbers[0]
    if weights == "quadratic":  # w_kl = 1 - ((x_k - x_l) / (max - min))^2
        mean = math.fsum(map(mul, xs, ns)) / r
        return r * r - 2 * r * math.fsum(n * ((x - mean) / spread) ** 2 for x, n in zip(xs, ns, strict=True))
    # ratio: w_kl = 1 - ((x_k - x_l) / (x_k + x_l))^2 / ((max - min) / (max + min))^2
    scale = (spread / (numbers[-1] + numbers[0])) ** 2
    pairs = (
        2 * nk * nl * _ratio(xk, xl)
        for a, (xk, nk) in enumerate(zip(xs, ns, strict=True))
        for xl, nl in zip(xs[a + 1 :], ns[a + 1 :], strict=True)
    )
    return r * r - math.fsum(pairs) / scale


def figures(
    tally: Tally, level: Level | None, *, resamples: Resamples | None = None, samples: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """The question's `agreement` of `stats --format json`: observed, ac, ac_ci, ac_weights, each
    null where not defined (no level, values that do not suit it, a figure that is not finite).
    `resamples`: the AC of the samples alpha's bootstrap drew (`Resamples`), when it drew them."""
    out: dict[str, Any] = {"observed": None, "ac": None, "ac_ci": None, "ac_weights": None}
    if level is None:
        return out
    found = resamples or Resamples(tally, level)
    if found.gwet is None:
        return out
    out["observed"] = _finite(observed(tally))
    out["ac"] = _finite(found.gwet.estimate())
    out["ac_weights"] = found.gwet.weights
    if out["ac"] is not None:
        shared = resamples is not None and resamples.drawn
        ci = found.interval() if shared else gwet_bootstrap(tally, level, samples=samples, seed=seed)
        if ci is not None and all(map(math.isfinite, ci)):
            out["ac_ci"] = list(ci)
    return out


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


__all__ = ["DOMINANT", "LOW_ALPHA", "WEIGHTS", "Resamples", "dominant", "figures", "gwet", "gwet_bootstrap", "observed"]
