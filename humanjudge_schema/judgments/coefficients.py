"""Agreement beside Krippendorff's alpha: the observed agreement, Gwet's AC1 (nominal) and AC2
(the level's weights), and whether one answer dominates a question.

Gwet's coefficients are computed as in Gwet (2014), "Handbook of Inter-Rater Reliability", for r
raters and items rated by varying numbers of them, as irrCAC's `CAC.gwet()` computes them. With
r_ik the ratings of item i in category k, r_i those of item i, q the categories (every distinct
value of the question, in their order; where every answer is one value, the categories the
question declares, as irrCAC's `categories`) and w_kl the weights of the level (`WEIGHTS`):

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
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

from .agreement import Level, Resamples, Tally, ranked, ratio_pairs
from .summary import Agreement, quoted_value

# The weights of each level, by the names irrCAC gives them: "quadratic" are the interval weights.
WEIGHTS: dict[Level, str] = {"nominal": "identity", "ordinal": "ordinal", "interval": "quadratic", "ratio": "ratio"}
# One answer dominates a question when the spread of its answers at least doubles alpha's distance
# from 1: when the prevalence index is at least this (`dominant`).
PREVALENCE = 0.5
# Below this alpha (Krippendorff's lowest bar, for tentative conclusions), a question where one
# answer dominates is said to be one.
LOW_ALPHA = 0.667


def observed(tally: Tally) -> float | None:
    """The observed agreement: over the items with two ratings or more, the mean share of the
    pairs of an item's ratings that are the same value (each item counts once, however many
    raters it has: Gwet's p_a without weights, irrCAC's `pa` of AC1). None without such items."""
    import numpy as np

    found = tally.profiles()
    if not len(found.weights):
        return None
    m = found.sizes.astype(np.float64)
    same = np.add.reduceat(found.count.astype(np.float64) ** 2, found.starts)
    shares = (same - m) / (m * (m - 1))
    return math.fsum((found.weights * shares).tolist()) / int(found.weights.sum())


def gwet(tally: Tally, level: Level, *, categories: Sequence[Any] | None = None) -> float | None:
    """Gwet's AC1 at the nominal level, AC2 with the level's weights (`WEIGHTS`) at the others.
    None without an item of two ratings, or with a single value where `categories` (the values
    the question declares: a scale's points, a list of labels) do not add a second one: with
    them, one answer everywhere is AC 1. Raises ValueError when the values do not suit the level,
    as `alpha` does."""
    return _gwet(tally, level, categories).estimate()


def _gwet(tally: Tally, level: Level, categories: Sequence[Any] | None = None) -> _Gwet:
    """The tally's AC at a level, made once for every statistic asked of it."""
    key = ("gwet", level, None if categories is None else tuple(categories))
    return tally.derived(key, lambda: _Gwet(tally, level, categories or ()))


def gwet_bootstrap(
    tally: Tally,
    level: Level,
    *,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    categories: Sequence[Any] | None = None,
) -> tuple[float, float] | None:
    """A percentile bootstrap interval (lo, hi) for `gwet(tally, level)`, over items.

    The items with two ratings or more are drawn as `agreement.bootstrap` draws them (with one
    seed, the same samples). The items with one rating count only in the chance agreement,
    through each answer's share, and are kept as they are in every sample: drawing them would
    cost a draw per item and sample where alpha draws none. The categories and weights stay those
    of the whole question. A sample is a sum over the drawn items' counts. None without an AC."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples!r}")
    found = gwet_resamples(tally, level, confidence=confidence, categories=categories)
    if found.statistic is None or found.statistic.estimate() is None:
        return None
    return found.draw(tally, samples, seed)


def gwet_resamples(
    tally: Tally, level: Level, *, confidence: float = 0.95, categories: Sequence[Any] | None = None
) -> Resamples[_Gwet]:
    """Gwet's AC of bootstrap samples, to be added as `agreement.bootstrap` draws them (its
    `each`); with no statistic where the values do not suit the level. `categories` as `gwet`
    takes them."""
    try:
        found: _Gwet | None = _gwet(tally, level, categories)
    except ValueError:
        found = None
    return Resamples(found, confidence)


def dominant(tally: Tally, level: Level, alpha: float | None, known: Agreement | None = None) -> str | None:
    """Why alpha is low while the raters agree, when that is so: alpha is below LOW_ALPHA, AC is
    above 0, and the spread of the answers at least doubles alpha's distance from 1. Then alpha is
    low because chance agreement is high (the prevalence paradox), not because the raters
    disagree. None otherwise. `known`: the question's `figures`, when the caller has them (not
    computed again).

    With p_o the observed agreement, p_e = sum_k pi_k^2 the agreement of two answers drawn at
    random from the question's (pi_k: the share of answers that are value k) and q the values
    given, the chance-corrected agreement 1 - (1 - p_o) / (1 - p_e) splits, as Byrt, Bishop and
    Carlin (1993) split kappa, into the raters' part and the spread's part:

        1 - (1 - p_o) / (1 - p_e) = 1 - (1 - BP) / (1 - P)
        BP = (q p_o - 1) / (q - 1)   agreement beyond an even spread over the q values
        P  = (q p_e - 1) / (q - 1)   the prevalence index: 0 for an even spread, 1 for one value

    The raters' disagreement puts the coefficient 1 - BP below 1, and the prevalence multiplies
    that by 1 / (1 - P): from P = PREVALENCE on, at least twice, so that the prevalence takes it
    further from 1 than the raters' disagreement does. Exact matches, what one answer means:
    alpha's small-sample correction and its distances at the other levels change how far."""
    if alpha is None or not math.isfinite(alpha) or alpha >= LOW_ALPHA:
        return None
    counts, value = _given(tally)
    q = len(counts)
    if q < 2 or tally.judgments == 0:
        return None
    chance = _chance(counts, tally.judgments)
    if (q * chance - 1) / (q - 1) < PREVALENCE:
        return None
    agree = observed(tally) if known is None else known.observed
    if agree is None:
        return None
    try:
        ac = gwet(tally, level) if known is None else known.ac
    except ValueError:
        return None
    if ac is None or not math.isfinite(ac) or ac <= 0:
        return None
    n = max(counts)
    top = value(counts.index(n))  # the first of the most frequent, in the values' order
    share = n / tally.judgments
    return (
        f"one answer dominates: {quoted_value(top)} is {n} of {tally.judgments} answers ({share:.0%}); the raters give "
        f"the same answer in {agree:.0%} of pairs and AC is {ac:.3f}, so alpha ({alpha:.3f}) is low "
        "because chance agreement is high, not because the raters disagree"
    )


def _chance(counts: list[int], judgments: int) -> float:
    """The sum over values of (n / judgments) ** 2, as math.fsum gives it (the exact sum of the
    terms, correctly rounded): equal counts are one term times how many, summed exactly as
    fractions (a question of thousands of values has few distinct counts)."""
    return float(sum(Fraction((n / judgments) ** 2) * times for n, times in Counter(counts).items()))


def _given(tally: Tally) -> tuple[list[int], Callable[[int], Hashable]]:
    """How often each value was given, in the distribution's order, and the value at a place of
    it; where the values are numbers, without making the distribution's dict."""
    numbers = tally.numbers()
    if numbers is None:
        distribution = tally.distribution()
        return list(distribution.values()), list(distribution).__getitem__
    values, codes = tally.counts().values, numbers.codes
    return numbers.counts.tolist(), lambda k: values[codes[k]]


class _Gwet:
    """What Gwet's AC of any resample of a question's items needs: per profile of two ratings or
    more (numbered as `Tally.profiles` numbers them), its agreement and its share of each
    category (r_ik / r_i, a sparse profiles x categories matrix); the categories of the items of
    one rating; and the weights' constant. A sample's marginals are its row of items per profile
    times the shares, plus the items of one rating, for many samples at once."""

    def __init__(self, tally: Tally, level: Level, declared: Sequence[Any] = ()) -> None:
        import numpy as np

        from .columns import Sparse

        if level not in WEIGHTS:
            raise ValueError(f"level must be one of {', '.join(WEIGHTS)}, got {level!r}")
        self.weights = WEIGHTS[level]
        c, found = tally.counts(), tally.profiles()
        # the categories: every value given, in the distribution's order (that of numbers)
        given = tally.numbers()
        if given is not None:
            codes: Any = given.codes
        else:
            code_of = {v: k for k, v in enumerate(c.values)}
            codes = [code_of[v] for v in tally.distribution()]
        categories, category, numbers = ranked(tally, codes, level, None, declared)
        self.q = q = len(categories)
        self.population = found.weights
        kinds = category[found.value]
        sizes = found.sizes.astype(np.float64)
        self.agree = (_weighted_pairs(found.profile, kinds, found.count, sizes, self.weights, numbers, q) - sizes) / (
            sizes * (sizes - 1)
        )
        # sum_kl w_kl: the weighted agreement of one rating in every category, without the - r
        self.constant = 0.0
        if q >= 2:
            every = (np.zeros(q, dtype=np.int64), np.arange(q), np.ones(q), np.asarray([float(q)]))
            self.constant = float(_weighted_pairs(*every, self.weights, numbers, q)[0]) / (q * (q - 1))
        self.singles = len(found.singles)
        self.alone = np.bincount(category[found.singles], minlength=q).astype(np.float64)
        self.shares = Sparse(found.profile, kinds, found.count, (len(sizes), q), per_row=sizes)
        # sum_k m_k^2 of a sample, m = w S + a: w S S' w + 2 w (S a) + a a (`Sparse.squares`)
        self.with_alone = self.shares.times_t(self.alone[None, :])[0]
        self.alone_squared = float(self.alone @ self.alone)

    def estimate(self) -> float | None:
        """AC of the data: every item of two ratings or more, and the items of one rating."""
        found = self.estimates(self.population.reshape(1, len(self.agree)))
        return None if math.isnan(found[0]) else float(found[0])

    def estimates(self, samples: Any) -> Any:
        """AC of each sample (a row of items per profile), as a numpy array, NaN where AC is not
        defined: p_a from each profile's agreement, p_e from the sample's sum of squared
        marginals (sum_k pi_k (1 - pi_k) = 1 - sum_k pi_k^2, the marginals adding up to n)."""
        import numpy as np

        w = np.asarray(samples, dtype=np.float64).reshape(len(samples), len(self.agree))
        pairable = w.sum(axis=1)
        if self.q < 2:
            return np.full(len(w), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            p_a = (w @ self.agree) / pairable
            squares = self.shares.squares(w) + 2 * (w @ self.with_alone) + self.alone_squared
            n = pairable + self.singles
            p_e = self.constant * (1 - squares / (n * n))
            found = (p_a - p_e) / (1 - p_e)
        found[(pairable == 0) | (p_e >= 1)] = np.nan
        return found


def _weighted_pairs(profile: Any, kind: Any, count: Any, sizes: Any, weights: str, numbers: Any, q: int) -> Any:
    """Per profile, sum_kl r_k r_l w_kl over its entries (profile, category, count; sorted by
    profile), in closed form where the weights have one (identity, ordinal and quadratic)."""
    import numpy as np

    n = np.asarray(count, dtype=np.float64)
    if not len(sizes):
        return np.zeros(0)
    starts = np.flatnonzero(np.r_[True, profile[1:] != profile[:-1]])

    def per(x: Any) -> Any:
        return np.add.reduceat(x, starts)

    if weights == "identity" or q < 2:
        return per(n * n)
    r = sizes
    if weights == "ordinal":
        # w_kl = 1 - d (d + 1) / (q (q - 1)), d = |rank k - rank l|: the sums of n_k n_l d^2
        # (r sum n i^2 - (sum n i)^2) and n_k n_l d (from running sums) over the pairs
        order = np.lexsort((kind, profile))
        i, n, p = kind[order].astype(np.float64), n[order], profile[order]
        linear = per(n * i)
        far = r * per(n * i * i) - linear * linear
        before = np.cumsum(n) - n
        below = np.cumsum(n * i) - n * i
        first = np.searchsorted(p, p)  # each entry's profile's first entry
        near = per(n * (i * (before - before[first]) - (below - below[first])))
        return r * r - 2 * (far + near) / (q * (q - 1))
    x = numbers[kind]
    spread = numbers[-1] - numbers[0]
    if weights == "quadratic":  # w_kl = 1 - ((x_k - x_l) / (max - min))^2
        mean = per(n * x) / r
        return r * r - 2 * r * per(n * ((x - mean[profile]) / spread) ** 2)
    # ratio: w_kl = 1 - ((x_k - x_l) / (x_k + x_l))^2 / ((max - min) / (max + min))^2
    scale = (spread / (numbers[-1] + numbers[0])) ** 2
    return r * r - ratio_pairs(x, n, starts) / scale


def figures(
    tally: Tally,
    level: Level | None,
    *,
    resamples: Resamples[_Gwet] | None = None,
    samples: int = 1000,
    seed: int = 0,
    categories: Sequence[Any] | None = None,
) -> Agreement:
    """The question's agreement beside alpha: observed agreement, AC, its interval and weights,
    each None where not defined (no level, values that do not suit it, a figure that is not
    finite). `resamples`: the AC of the samples alpha's bootstrap drew (`gwet_resamples`), when it
    drew them; `categories`: the values the question declares, as `gwet` takes them."""
    if level is None:
        return Agreement()
    found = resamples or gwet_resamples(tally, level, categories=categories)
    if found.statistic is None:
        return Agreement()
    ac = _finite(found.statistic.estimate())
    ci = None
    if ac is not None:
        if found.drawn:  # alpha's bootstrap drew the samples
            ci = found.interval()
        else:
            ci = gwet_bootstrap(tally, level, samples=samples, seed=seed, categories=categories)
        ci = ci if ci is not None and all(map(math.isfinite, ci)) else None
    return Agreement(_finite(observed(tally)), ac, ci, found.statistic.weights)


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


__all__ = [
    "LOW_ALPHA",
    "PREVALENCE",
    "WEIGHTS",
    "dominant",
    "figures",
    "gwet",
    "gwet_bootstrap",
    "gwet_resamples",
    "observed",
]
