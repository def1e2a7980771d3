"""Agreement statistics from per-item value counts: Krippendorff's alpha equals the `krippendorff`
package on random reliability data and the worked example of Krippendorff (2011); the counts
equal plain computations over the same judgments; the bootstrap is the documented resampling of
items, redone here from scratch."""

from __future__ import annotations

import ast
import math
import random
import statistics
import warnings
from collections import Counter
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest

from humanjudge_schema.judgments import agreement
from humanjudge_schema.judgments.agreement import LEVELS, Level, Tally, alpha, bootstrap

from .helpers import profile_counts, resample

Matrix = list[list[Any]]  # raters x items, None where a rater gave no value

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers, 12
# units, values 1-5, missing data. The paper gives alpha = .743 nominal, .815 ordinal, .849
# interval and .797 ratio.
PAPER: Matrix = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def _tally(matrix: Matrix) -> Tally:
    tally = Tally()
    for row in matrix:
        for item, value in enumerate(row):
            tally.add(item, value)
    return tally


def _package(matrix: Matrix, level: Level, domain: Sequence[Hashable] | None = None) -> float | None:
    """The `krippendorff` package's alpha, None where it has none (it refuses data with one value
    or no pairable unit, and divides 0 by 0 when the pairable values are all one value)."""
    data = [[math.nan if v is None else v for v in row] for row in matrix]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=domain))
    except ValueError:
        return None
    return None if math.isnan(value) else value


def _random_matrix(rng: random.Random, domain: Sequence[Any]) -> Matrix:
    """Raters x items: each item has a value most raters agree on, with a rate of agreement and
    of missing values drawn per data set."""
    items, raters = rng.randint(5, 300), rng.randint(2, 12)
    agree, missing = rng.random(), rng.choice([0.0, 0.1, 0.4, 0.8])
    truths = [rng.choice(domain) for _ in range(items)]
    return [
        [None if rng.random() < missing else t if rng.random() < agree else rng.choice(domain) for t in truths]
        for _ in range(raters)
    ]


def _domain(rng: random.Random, kind: str) -> list[Any]:
    k = rng.randint(2, 40)
    if kind == "str":
        return [f"label {i}" for i in rng.sample(range(1000), k)]
    if kind == "int":
        return rng.sample(range(-100, 100), k)
    if kind == "float":
        return [round(x / 7, 3) for x in rng.sample(range(-500, 500), k)]
    return [round(x / 7, 3) for x in rng.sample(range(500), k)]  # non-negative, 0 included at times


# (level, kind of values, whether the package is given the order of the values)
VARIANTS = [
    ("nominal", "int", False),
    ("nominal", "str", False),
    ("ordinal", "int", False),
    ("ordinal", "str", True),
    ("interval", "float", False),
    ("interval", "int", False),
    ("ratio", "nonnegative", False),
]


@pytest.mark.parametrize(("level", "kind", "ordered"), VARIANTS, ids=[f"{v[0]}-{v[1]}" for v in VARIANTS])
def test_alpha_equals_the_krippendorff_package(level: Level, kind: str, ordered: bool) -> None:
    mismatches, compared = [], 0
    for seed in range(60):
        rng = random.Random(f"{level}-{kind}-{seed}")
        domain = _domain(rng, kind)
        matrix = _random_matrix(rng, domain)
        # string labels have no natural order: the package ranks them by `value_domain`, ours
        # by `order`, both the same shuffled list
        order = rng.sample(domain, len(domain)) if ordered else None
        ours = alpha(_tally(matrix), level, order=order)
        theirs = _package(matrix, level, order)
        if ours is None or theirs is None:
            if ours is not theirs:
                mismatches.append((seed, ours, theirs))
        else:
            compared += 1
            if abs(ours - theirs) > 1e-9:
                mismatches.append((seed, ours, theirs))
    assert mismatches == []
    assert compared >= 50  # the comparison compares numbers, not only Nones


@pytest.mark.parametrize("level", LEVELS)
def test_the_worked_example_of_krippendorff_2011(level: Level) -> None:
    expected = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}[level]
    ours = alpha(_tally(PAPER), level)
    assert ours is not None
    assert round(ours, 3) == expected
    assert ours == pytest.approx(_package(PAPER, level), abs=1e-12)


def test_the_worked_example_exactly() -> None:
    # 40 pairable values (unit 12 has one); sum of n_c^2 is 9^2 + 13^2 + 10^2 + 5^2 + 3^2 = 384,
    # and the disagreeing coincidences sum to 4 + 4/3 + 4/3 + 2/3 + 2/3 = 8.
    assert alpha(_tally(PAPER), "nominal") == pytest.approx(1 - 39 * 8 / (40 * 40 - 384), abs=1e-15)
    labels = [[None if v is None else "abcde"[v - 1] for v in row] for row in PAPER]
    assert alpha(_tally(labels), "nominal") == alpha(_tally(PAPER), "nominal")
    assert alpha(_tally(labels), "ordinal", order="abcde") == alpha(_tally(PAPER), "ordinal")


@pytest.mark.parametrize("level", LEVELS)
def test_perfect_agreement_is_one(level: Level) -> None:
    assert alpha(_tally([[1, 2, 3, 2], [1, 2, 3, 2], [1, None, 3, 2]]), level) == 1.0


@pytest.mark.parametrize("level", LEVELS)
def test_one_value_only_has_no_alpha(level: Level) -> None:
    assert alpha(_tally([[4, 4, 4], [4, 4, None]]), level) is None
    # two values, but one of them only in an item of one value: nothing to expect a disagreement from
    assert alpha(_tally([[4, 4, 5], [4, 4, None]]), level) is None


@pytest.mark.parametrize("level", LEVELS)
def test_items_of_one_value_are_left_out(level: Level) -> None:
    base = _tally(PAPER)
    more = _tally(PAPER)
    for item, value in enumerate([5, 1, 2, 7, 0, 3]):
        more.add(("single", item), value)
    assert alpha(more, level) == alpha(base, level)


@pytest.mark.parametrize("level", LEVELS)
def test_no_item_with_two_values_has_no_alpha(level: Level) -> None:
    tally = Tally()
    for item, value in enumerate([1, 2, 3, 1, 2]):
        tally.add(item, value)
    assert alpha(tally, level) is None
    assert alpha(Tally(), level) is None


def test_missing_values_are_not_counted() -> None:
    tally = Tally()
    for value in [1, None, 2, math.nan, 2]:
        tally.add("a", value)
    assert (tally.items, tally.judgments) == (1, 3)
    assert tally.distribution() == {1: 1, 2: 2}
    tally.add("b", None)
    assert tally.items == 1


@pytest.mark.parametrize(
    ("matrix", "level", "order"),
    [
        ([["a", "b"], ["a", "b"]], "interval", None),
        ([[True, False], [True, True]], "interval", None),
        ([[1, -2], [1, -2]], "ratio", None),
        ([["a", 1], ["a", 1]], "ordinal", None),
        ([["low", "high"], ["low", "mid"]], "ordinal", ["low", "high"]),
        ([["low", "high"], ["low", "high"]], "ordinal", ["low", "high", "low"]),
        ([[1, 2], [1, 2]], "nominal", [1, 2]),
        ([[1, 2], [1, 2]], "cardinal", None),
    ],
)
def test_values_that_do_not_suit_the_level(matrix: Matrix, level: Level, order: list[Any] | None) -> None:
    with pytest.raises(ValueError):
        alpha(_tally(matrix), level, order=order)


def _judgments(seed: int) -> list[tuple[int, Any]]:
    rng = random.Random(seed)
    domain = [rng.choice([rng.randint(-5, 5), round(rng.uniform(0, 10), 2)]) for _ in range(rng.randint(1, 8))]
    return [(rng.randrange(rng.randint(1, 50)), rng.choice(domain)) for _ in range(rng.randint(1, 400))]


@pytest.mark.parametrize("seed", range(20))
def test_tally_counts_equal_plain_computations(seed: int) -> None:
    judgments = _judgments(seed)
    tally = Tally()
    for item, value in judgments:
        tally.add(item, value)
    per_item = Counter(item for item, _ in judgments)
    sizes = list(per_item.values())
    values = [v for _, v in judgments]
    assert tally.items == len(per_item)
    assert tally.judgments == len(judgments)
    assert tally.raters_per_item() == (min(sizes), statistics.median(sizes), max(sizes))
    assert tally.distribution() == dict(sorted(Counter(values).items()))
    assert list(tally.distribution()) == sorted(set(values))
    summary = tally.numeric_summary()
    assert summary is not None
    assert summary["mean"] == pytest.approx(statistics.mean(values), rel=1e-12, abs=1e-12)
    if len(values) > 1:
        assert summary["sd"] == pytest.approx(statistics.stdev(values), rel=1e-9, abs=1e-12)
    else:
        assert summary["sd"] is None
    assert (summary["min"], summary["max"]) == (min(values), max(values))


def test_the_median_of_an_even_number_of_items_is_a_float() -> None:
    tally = Tally()
    for item, value in [("a", 1), ("a", 2), ("b", 1), ("b", 1), ("b", 3)]:
        tally.add(item, value)
    assert tally.raters_per_item() == (2, 2.5, 3)
    tally.add("c", 1)
    tally.add("c", 1)
    tally.add("d", 1)
    low, median, high = tally.raters_per_item() or (0, 0, 0)
    assert (low, median, high) == (1, 2.0, 3)
    assert isinstance(median, float)
    tally.add("e", 1)
    assert tally.raters_per_item() == (1, 2, 3)
    assert isinstance((tally.raters_per_item() or (0, 0.0, 0))[1], int)


def test_categorical_values_have_a_distribution_and_no_numeric_summary() -> None:
    tally = _tally([["yes", "no", "yes"], ["yes", None, "maybe"]])
    assert tally.distribution() == {"maybe": 1, "no": 1, "yes": 3}
    assert tally.numeric_summary() is None
    assert _tally([[True, False], [True, True]]).numeric_summary() is None
    mixed = _tally([[1, "a"], [2, None]])
    assert mixed.distribution() == {1: 1, 2: 1, "a": 1}
    assert mixed.numeric_summary() is None


def test_an_empty_tally() -> None:
    tally = Tally()
    assert (tally.items, tally.judgments) == (0, 0)
    assert tally.raters_per_item() is None
    assert tally.distribution() == {}
    assert tally.numeric_summary() is None


def test_one_judgment_has_no_standard_deviation() -> None:
    tally = Tally()
    tally.add("a", 3)
    assert tally.numeric_summary() == {"mean": 3.0, "sd": None, "min": 3, "max": 3}


def _typical(seed: int = 7, items: int = 120) -> Matrix:
    rng = random.Random(seed)
    truths = [rng.randint(1, 5) for _ in range(items)]
    return [
        [None if rng.random() < 0.2 else t if rng.random() < 0.7 else rng.randint(1, 5) for t in truths]
        for _ in range(4)
    ]


def _few_profiles(seed: int = 5, items: int = 90) -> Matrix:
    """Many items sharing few profiles (three raters, two values): drawn profile by profile."""
    rng = random.Random(seed)
    return [[None if rng.random() < 0.1 else rng.choice((1, 1, 2)) for _ in range(items)] for _ in range(3)]


def _naive_bootstrap(matrix: Matrix, level: Level, samples: int, seed: int) -> tuple[float, float]:
    """The documented procedure, item by item: the items of two or more values, grouped by their
    value counts (profiles, numbered by their first item); where there are at most four items per
    profile, each sample's items drawn one by one with replacement (numpy's Generator(seed)
    .integers), else how many items of each profile a sample holds is one multinomial draw of
    Generator(seed); each sample's items tallied afresh, one by one; the 2.5th and 97.5th
    percentiles (R's type 7)."""
    # items in the order the tally first saw them: rater by rater, as _tally adds them
    order = dict.fromkeys(u for row in matrix for u, value in enumerate(row) if value is not None)
    items = [[row[u] for row in matrix if row[u] is not None] for u in order]
    pairable = [values for values in items if len(values) > 1]
    numbered: dict[frozenset[tuple[Any, int]], int] = {}
    of = [numbered.setdefault(frozenset(Counter(values).items()), len(numbered)) for values in pairable]
    rng = np.random.default_rng(seed)
    if len(of) <= 4 * len(numbered):
        samples_of = [[pairable[i] for i in row] for row in rng.integers(0, len(of), size=(samples, len(of))).tolist()]
    else:
        first = {p: pairable[of.index(p)] for p in range(len(numbered))}
        shares = [of.count(p) / len(of) for p in range(len(numbered))]
        drawn = rng.multinomial(len(of), shares, size=samples)
        samples_of = [[first[p] for p, times in enumerate(row) for _ in range(times)] for row in drawn.tolist()]
    alphas = []
    for chosen in samples_of:
        tally = Tally()
        assert len(chosen) == len(pairable)
        for u, values in enumerate(chosen):
            for value in values:
                tally.add(u, value)
        a = alpha(tally, level)
        if a is not None:
            alphas.append(a)
    cuts = statistics.quantiles(alphas, n=40, method="inclusive")
    return cuts[0], cuts[-1]


@pytest.mark.parametrize("matrix", [_typical(items=40), _few_profiles()], ids=["by-item", "by-profile"])
def test_a_profile_is_drawn_as_often_as_its_items_are(matrix: Matrix) -> None:
    """The draw is the resampling of items: over many samples, a profile's share of a sample's
    items is its share of the items (3 of the first shape's 40 items have one profile)."""
    tally = _tally(matrix)
    counted = sum(np.asarray(block, dtype=float).sum(axis=0) for block in agreement.draws(tally, 4000, 0))
    weights = tally.profiles().weights
    assert counted.sum() == 4000 * weights.sum()
    assert np.allclose(counted / counted.sum(), weights / weights.sum(), atol=0.005)


@pytest.mark.parametrize("wide", [False, True], ids=["counts-in-one-integer", "entries-as-bytes"])
def test_profiles_are_the_items_alike_in_order(wide: bool) -> None:
    """Tally.profiles: two items of two values or more are one profile when each value was given
    as often to both; profiles numbered in the order their first item comes. Few values with
    small counts are told apart as one integer each; many values (70) as their entries' bytes."""
    rng = random.Random(11)
    for _ in range(60):
        tally = Tally()
        pool = list(range(70)) if wide else ["a", "b", "c"]
        matrix = []
        for u in range(rng.randint(1, 40)):
            chosen = [rng.choice(pool[: rng.randint(1, len(pool))]) for _ in range(rng.randint(1, 5))]
            matrix.append(chosen)
            for value in chosen:
                tally.add(u, value)
        codes = {v: k for k, v in enumerate(tally.counts().values)}
        found = tally.profiles()
        seen: dict[tuple[tuple[int, int], ...], int] = {}
        want = [
            seen.setdefault(tuple(sorted(Counter(codes[v] for v in chosen).items())), len(seen))
            for chosen in matrix
            if len(chosen) >= 2
        ]
        assert found.population.tolist() == want
        assert found.weights.tolist() == [want.count(k) for k in range(len(seen))]


def test_the_draw_follows_the_shape() -> None:
    """Items drawn one by one where profiles hold at most four each, else profile by profile."""
    by_item, by_profile = _tally(_typical(items=40)).profiles(), _tally(_few_profiles()).profiles()
    assert by_item.weights.sum() <= agreement._ITEMS * len(by_item.weights)
    assert by_profile.weights.sum() > agreement._ITEMS * len(by_profile.weights)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("matrix", [_typical(items=40), _few_profiles()], ids=["by-item", "by-profile"])
def test_bootstrap_is_the_resampling_of_items(level: Level, matrix: Matrix) -> None:
    ours = bootstrap(_tally(matrix), level, samples=200, seed=3)
    assert ours == pytest.approx(_naive_bootstrap(matrix, level, 200, 3), abs=1e-9)


@pytest.mark.parametrize("level", LEVELS)
def test_bootstrap_interval_holds_the_estimate(level: Level) -> None:
    tally = _tally(_typical())
    point = alpha(tally, level)
    interval = bootstrap(tally, level, samples=500)
    assert point is not None and interval is not None
    lo, hi = interval
    assert lo < point < hi
    assert 0.02 < hi - lo < 0.5


def test_bootstrap_is_reproducible() -> None:
    tally = _tally(_typical())
    first = bootstrap(tally, "ordinal", samples=300, seed=11)
    assert first is not None
    assert bootstrap(tally, "ordinal", samples=300, seed=11) == first
    assert bootstrap(tally, "ordinal", samples=300, seed=12) != first
    assert bootstrap(tally, "ordinal", samples=300, seed=11, confidence=0.5) != first


def test_bootstrap_without_disagreement_or_pairs() -> None:
    assert bootstrap(_tally([[1, 2, 3], [1, 2, 3]]), "nominal", samples=50) == (1.0, 1.0)
    assert bootstrap(_tally([[1, 1], [1, 1]]), "nominal", samples=50) is None
    assert bootstrap(_tally([[1, 2, 3]]), "interval", samples=50) is None


@pytest.mark.parametrize(("samples", "confidence"), [(0, 0.95), (100, 0.0), (100, 1.0), (100, 95)])
def test_bootstrap_settings_out_of_range(samples: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        bootstrap(_tally(PAPER), "nominal", samples=samples, confidence=confidence)


def test_numpy_is_imported_only_inside_functions() -> None:
    """The judgments' quality rules are imported by validation (for their codes), which never
    imports numpy: the modules of the statistics import it inside the functions that use it."""
    for name in ("agreement", "coefficients", "columns", "gather", "parts", "raters", "quality", "stats"):
        path = Path(agreement.__file__).with_name(f"{name}.py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
        imported = {alias.name.split(".")[0] for node in top if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module.split(".")[0] for node in top if isinstance(node, ast.ImportFrom) and node.module}
        assert "numpy" not in imported, name


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_every_bootstrap_sample_is_the_alpha_of_its_items(level: Level) -> None:
    """A sample's alpha comes from sums over item profiles (per value, or for interval, moments):
    each must be the `krippendorff` package's alpha of the items drawn, item by item, including
    the samples of one value only (no alpha) and the items drawn many times."""
    rng = random.Random(17)
    compared = undefined = 0
    for _ in range(40):
        domain = [0, 1, 2.5, 4, 10][: rng.randint(2, 5)]
        items = [[rng.choice(domain) for _ in range(rng.randint(2, 4))] for _ in range(rng.randint(2, 6))]
        items += [[v] * rng.randint(2, 3) for v in rng.sample(domain, 2)]  # items of one value
        tally = Tally()
        for u, values in enumerate(items):
            for v in values:
                tally.add(u, v)
        pairable = agreement._pairable(tally, level, None)
        draws = random.Random(rng.random())
        for _ in range(30):
            weights = resample(pairable, draws)
            drawn = [values for p, w in enumerate(weights) for values in [_profile_values(pairable, p)] * w]
            width = max(map(len, drawn))
            matrix = [[values[r] if r < len(values) else None for values in drawn] for r in range(width)]
            want, got = _package(matrix, level), pairable.estimate(weights)
            if want is None:
                assert got is None, (items, weights)
                undefined += 1
            else:
                assert got == pytest.approx(want, abs=1e-9), (items, weights)
                compared += 1
    assert compared > 300 and undefined > 5


def _profile_values(pairable: Any, profile: int) -> list[Any]:
    return [v for v, n in profile_counts(pairable, profile) for _ in range(n)]
