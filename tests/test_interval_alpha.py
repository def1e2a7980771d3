"""Questions whose values are as many as their judgments (a continuous metric: distinct floats):
alpha at the interval and ratio levels equals its definition, the coincidences of the values
paired within an item (Krippendorff 2011), for the data and for every bootstrap sample, on
generated data and on the corpus; and each fast path the statistics take for such questions
gives what the plain computation gives: numbers ordered and summed by numpy (`Tally.numbers`)
the same bytes as Python values compared one by one, the sum of a sample's squared marginals
from the entries (`Sparse.squares_apart`) the sum of the squares of its marginals, counts of
drawn items made row by row the counts made for a block, and the chance agreement summed by
equal counts the sum of every value's term."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humanjudge_schema.commands.common import judged
from humanjudge_schema.judgments import agreement, coefficients, datasets
from humanjudge_schema.judgments.agreement import Level, Tally, alpha, bootstrap
from humanjudge_schema.judgments.coefficients import dominant, figures, gwet_resamples
from humanjudge_schema.judgments.columns import Sparse
from humanjudge_schema.judgments.gather import _CHUNK, Gathered
from humanjudge_schema.progress import views

from .conftest import corpus
from .helpers import profile_counts, resample

Items = list[list[Any]]  # per item, the values its raters gave


# --- the definition ----------------------------------------------------------------------------


def _distance(level: str, c: float, k: float, marginals: dict[Any, float], order: list[Any]) -> float:
    """Krippendorff's squared distance between two values at a level."""
    if level == "nominal":
        return float(c != k)
    if level == "interval":
        return float((c - k) ** 2)
    if level == "ratio":
        return float(((c - k) / (c + k)) ** 2) if c + k else 0.0
    i, j = sorted((order.index(c), order.index(k)))
    between = math.fsum(marginals[v] for v in order[i : j + 1])
    return (between - (marginals[c] + marginals[k]) / 2) ** 2


def _definition(items: Items, level: str) -> float | None:
    """Alpha as Krippendorff (2011) defines it: each ordered pair of values of an item of m values
    adds 1 / (m - 1) to their coincidence (n_c (n_k - [c = k]) / (m - 1) for values given n_c and
    n_k times); D_o sums the coincidences times the distance, D_e the products of the values'
    marginals times the distance over n - 1. None without two values."""
    coincidences: Counter[tuple[Any, Any]] = Counter()
    for values in items:
        if len(values) < 2:
            continue
        given = Counter(values)
        for c, n_c in given.items():
            for k, n_k in given.items():
                coincidences[c, k] += n_c * (n_k - (c == k)) / (len(values) - 1)
    marginals: dict[Any, float] = {}
    for (c, _), x in coincidences.items():
        marginals[c] = marginals.get(c, 0.0) + x
    order = sorted(marginals)
    n = math.fsum(marginals.values())
    if len(order) < 2:
        return None
    observed = math.fsum(x * _distance(level, c, k, marginals, order) for (c, k), x in coincidences.items())
    expected = math.fsum(
        marginals[c] * marginals[k] * _distance(level, c, k, marginals, order) for c in order for k in order
    )
    if expected <= 0:
        return None
    return 1 - (n - 1) * observed / expected


def _tally(items: Items) -> Tally:
    tally = Tally()
    for u, values in enumerate(items):
        for value in values:
            tally.add(u, value)
    return tally


def _close(got: float | None, want: float | None) -> bool:
    if got is None or want is None:
        return got is want
    return abs(got - want) <= 1e-9 * max(1.0, abs(want))


# --- generated data ----------------------------------------------------------------------------

# values of a continuous metric: floats of full precision (as many as the judgments), floats of
# one decimal (shared between items), small integers, and mixes of them
_full = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
_short = st.integers(min_value=0, max_value=1000).map(lambda k: k / 10)
_whole = st.integers(min_value=-20, max_value=20)
_value = st.one_of(_full, _short, _whole)


@st.composite
def _items(draw: st.DrawFn, values: st.SearchStrategy[Any] = _value) -> Items:
    """Items of one to six values each; one of them, at times, of a single rating."""
    found = draw(st.lists(st.lists(values, min_size=2, max_size=6), min_size=1, max_size=30))
    if draw(st.booleans()):
        found.append([draw(values)])
    return found


def _nonnegative(items: Items) -> Items:
    return [[abs(v) for v in values] for values in items]


@given(items=_items(), level=st.sampled_from(["interval", "ratio"]))
@settings(max_examples=200, deadline=None)
def test_alpha_is_its_definition(items: Items, level: Level) -> None:
    items = _nonnegative(items) if level == "ratio" else items
    assert _close(alpha(_tally(items), level), _definition(items, level))


@given(items=_items(), level=st.sampled_from(["interval", "ratio"]), seed=st.integers(0, 2**32))
@settings(max_examples=100, deadline=None)
def test_every_sample_is_the_alpha_of_its_items(items: Items, level: Level, seed: int) -> None:
    """A bootstrap sample's alpha, from its profiles' sums, is the definition over the items it
    holds (each drawn item as often as it is drawn): within 1e-9 at the ratio level; at the
    interval level within the rounding of the sums it is computed from, which are taken about
    the mean of all the data's values (`_Pairable._moments`), so that a sample far from that
    mean beside its own spread keeps fewer digits (`_rounding`)."""
    items = _nonnegative(items) if level == "ratio" else items
    tally = _tally(items)
    pairable = agreement._pairable(tally, level, None)
    centre = math.fsum(v for values in items if len(values) > 1 for v in values)
    centre /= sum(len(values) for values in items if len(values) > 1)
    rng = random.Random(seed)
    for _ in range(5):
        weights = resample(pairable, rng)
        drawn = [v for p, w in enumerate(weights) for v in [_values(pairable, p)] * w]
        got, want = pairable.estimate(weights), _definition(drawn, level)
        lost = 0.0 if level == "ratio" else _rounding(drawn, centre)
        if lost < 1e-6 or want is None:
            assert _close(got, want)
        elif got is not None:  # where the spread is lost in the rounding, it may read as none
            assert abs(got - want) <= 1e-9 * max(1.0, abs(want)) + abs(1 - want) * lost


def _rounding(items: Items, centre: float) -> float:
    """The relative rounding of a sample's expected disagreement, 2 (N S2 - S1^2) with S1 and S2
    the sums of its values less `centre` and of their squares: some 1e-12 of N S2 + S1^2 beside
    their difference."""
    xs = [v - centre for values in items for v in values]
    n, s1, s2 = len(xs), math.fsum(xs), math.fsum(x * x for x in xs)
    spread = n * s2 - s1 * s1
    return math.inf if spread <= 0 else 1e-12 * (n * s2 + s1 * s1) / spread


def _values(pairable: Any, profile: int) -> list[Any]:
    return [v for v, n in profile_counts(pairable, profile) for _ in range(n)]


# --- the fast paths beside the plain ones -------------------------------------------------------


def _figures(tally: Tally, level: Level, samples: int = 60) -> dict[str, Any]:
    """What `stats` computes of a question from its tally (stats._question's calls)."""
    out: dict[str, Any] = {
        "distribution": list(tally.distribution().items()),
        "types": [type(v).__name__ for v in tally.distribution()],
        "summary": tally.numeric_summary(),
    }
    try:
        out["alpha"] = alpha(tally, level)
    except ValueError as exc:
        return out | {"note": str(exc)}
    resamples = gwet_resamples(tally, level)
    out["alpha_ci"] = bootstrap(tally, level, samples=samples, seed=1, each=resamples.add)
    out["agreement"] = figures(tally, level, resamples=resamples)
    out["dominant"] = dominant(tally, level, out["alpha"], out["agreement"])
    return out


def _plain(tally_of: Callable[[], Tally], level: Level, samples: int = 60) -> dict[str, Any]:
    """`_figures` with every value compared as a Python value: no `Tally.numbers`."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(Tally, "numbers", lambda self: None)
        return _figures(tally_of(), level, samples)


def _same(fast: Any, plain: Any) -> bool:
    """Equal to the bit (repr tells 0.1 + 0.2 from 0.3, and -0.0 from 0.0), of the same types."""
    return repr(fast) == repr(plain)


@given(
    items=_items(st.one_of(_full, _short, _whole, st.just(2**53 + 1), st.just(2.0**500), st.just(True))),
    level=st.sampled_from(["nominal", "ordinal", "interval", "ratio"]),
)
@settings(max_examples=150, deadline=None)
def test_numbers_by_numpy_give_the_bytes_of_python_values(items: Items, level: Level) -> None:
    """Distributions, summaries, alpha, its interval, AC and the note of a dominant answer are
    the same bits whether the values are ordered and summed by numpy or compared one by one;
    integers beyond 2**53, values near the largest double and booleans take the plain way."""
    fast = _figures(_tally(items), level)
    assert _same(fast, _plain(lambda: _tally(items), level))


def test_the_numbers_way_is_taken_for_numbers_only() -> None:
    assert _tally([[0.5, 2], [2.25, 3, None]]).numbers() is not None
    for odd in (True, "a", 2**53 + 1):  # (True is a value of its own where no 1 comes first)
        assert _tally([[0.5, 2], [2.25, odd]]).numbers() is None


def _matrix(draw: st.DrawFn) -> tuple[Sparse, Any]:
    """A profiles x values matrix of lone and shared columns, and samples of weights."""
    profiles = draw(st.integers(1, 40))
    values = draw(st.integers(1, 60))
    cells = draw(st.sets(st.tuples(st.integers(0, profiles - 1), st.integers(0, values - 1)), min_size=1, max_size=200))
    rows, cols = (np.asarray(x, dtype=np.int64) for x in zip(*sorted(cells), strict=True))
    counts = np.asarray([draw(st.integers(1, 9)) for _ in range(len(rows))], dtype=np.float64)
    sizes = np.bincount(rows, weights=counts, minlength=profiles) + draw(st.integers(0, 3))
    per_row = sizes if draw(st.booleans()) else None
    samples = np.asarray(
        draw(st.lists(st.lists(st.integers(0, 50), min_size=profiles, max_size=profiles), min_size=1, max_size=8)),
        dtype=np.float64,
    )
    return Sparse(rows, cols, counts, (profiles, values), per_row=per_row), samples


@given(data=st.data())
@settings(max_examples=200, deadline=None)
def test_squares_from_the_entries_are_the_squares_of_the_marginals(data: st.DataObject) -> None:
    matrix, w = _matrix(data.draw)
    marginals = _marginals(matrix, w)
    want = (marginals * marginals).sum(axis=1)
    assert np.allclose(matrix.squares_apart(w), want, rtol=1e-12, atol=0)


def _marginals(matrix: Sparse, w: Any) -> Any:
    """w times the matrix, entry by entry."""
    out = np.zeros((len(w), matrix.shape[1]))
    for r, c, x in zip(matrix.rows.tolist(), matrix.cols.tolist(), matrix.data.tolist(), strict=True):
        out[:, c] += w[:, r] * x
    return out


def _continuous(items: int, raters: int = 4, seed: int = 3) -> Tally:
    """A continuous metric: every judgment a float of its own."""
    rng = random.Random(seed)
    return _tally([[rng.uniform(0, 100) for _ in range(raters)] for _ in range(items)])


def test_a_large_sparse_matrix_is_summed_from_its_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    """AC of 3,000 items of distinct floats: profiles x values too large to keep whole, and too
    many profiles for their Gram matrix. Its chance agreement never makes a sample's marginals
    (samples x values), and its interval is the one the marginals give."""
    tally = _continuous(3000)
    found = coefficients._gwet(tally, "interval")
    assert found.shares.dense is None and found.shares.shape[0] ** 2 > 1 << 22
    drawn = list(agreement.draws(tally, 40, 0))
    plain = np.concatenate([_plain_estimates(found, w) for w in drawn])

    def refused(*args: Any) -> None:
        raise AssertionError("a sample's marginals were made")

    monkeypatch.setattr(Sparse, "times", refused)
    fast = np.concatenate([found.estimates(w) for w in drawn])
    assert np.allclose(fast, plain, rtol=1e-12, atol=1e-15)


def _plain_estimates(found: Any, w: Any) -> Any:
    """`_Gwet.estimates` with the squared marginals made whole."""
    marginals = found.shares.times(w)
    squares = (marginals * marginals).sum(axis=1) + 2 * (w @ found.with_alone) + found.alone_squared
    pairable = w.sum(axis=1)
    n = pairable + found.singles
    p_e = found.constant * (1 - squares / (n * n))
    return ((w @ found.agree) / pairable - p_e) / (1 - p_e)


def test_interval_alpha_makes_no_list_of_the_values() -> None:
    """Alpha and its interval over 2,000 items of distinct floats read the values as numbers:
    the list of every value paired is made only when asked for."""
    tally = _continuous(2000)
    assert bootstrap(tally, "interval", samples=20) is not None
    pairable = agreement._pairable(tally, "interval", None)
    assert "values" not in vars(pairable) and "matrix" not in vars(pairable)
    assert pairable.values == sorted(tally.distribution())


@pytest.mark.parametrize("items", [3000, 40], ids=["row-by-row", "block"])
def test_drawn_items_counted_row_by_row_are_the_counts_of_a_block(items: int, monkeypatch: pytest.MonkeyPatch) -> None:
    tally = _continuous(items)
    rows = list(agreement.draws(tally, 30, 5))
    monkeypatch.setattr(agreement, "_ROW_COUNTS", 1 << 62)  # always a block at once
    blocks = list(agreement.draws(tally, 30, 5))
    assert all(np.array_equal(a, b) for a, b in zip(rows, blocks, strict=True))
    assert all(a.dtype == np.float64 for a in rows)


@given(counts=st.lists(st.integers(1, 10**6), min_size=1, max_size=400), more=st.integers(0, 1000))
@settings(max_examples=300, deadline=None)
def test_chance_by_equal_counts_is_the_sum_of_every_term(counts: list[int], more: int) -> None:
    judgments = sum(counts) + more
    assert coefficients._chance(counts, judgments) == math.fsum((n / judgments) ** 2 for n in counts)


def _continuous_dataset(path: Path, instances: int, seed: int = 2) -> None:
    """A TextJudge dataset of one continuous metric, four distinct floats an instance."""
    rng = random.Random(seed)
    rows = []
    for i in range(instances):
        scores = [rng.uniform(0, 100) for _ in range(4)]
        rows.append({"id": i, "instance": f"text {i}", "annotations": {"overall": _scored(scores)}})
    declaration = {"metric": "overall", "category": "continuous", "prompt": "{{ instance }}", "worst": 0, "best": 100}
    top = {"dataset": "floats", "dataset_url": "https://example.org", "expert_annotator": "false"}
    path.write_text(json.dumps(top | {"original_prompt": False, "annotations": [declaration], "instances": rows}))


def _scored(scores: list[float]) -> dict[str, Any]:
    return {"mean_human": math.fsum(scores) / len(scores), "individual_human_scores": scores}


def test_distinct_floats_are_coded_as_the_rows_give_them(tmp_path: Path) -> None:
    """The statistics' pass numbers a chunk of values none of which it has seen at once: over
    several chunks of distinct floats (24,000 judgments), each item's counts are its rows'."""
    path = tmp_path / "floats.json"
    _continuous_dataset(path, 6000)
    (view,) = datasets([path], kind="textjudge")
    rows: dict[Any, Counter[Any]] = {}
    for row in view.rows():
        if row.role == "individual":
            rows.setdefault(row.item, Counter())[row.value] += 1
    tally = Gathered.of(view).questions["overall"].tally
    assert tally.judgments == 24_000 > _CHUNK
    assert [dict(c) for c in tally.per_item().values()] == [dict(c) for c in rows.values()]
    assert list(tally.distribution()) == sorted(v for c in rows.values() for v in c)


# --- the corpus --------------------------------------------------------------------------------

CORPUS_FOLDERS = ["coggym", "halie", "judgebench", "study1"]


def _questions(name: str) -> Iterator[tuple[str, Level, Any]]:
    """(question, level, value counts) of every question of numbers with a level in a corpus folder."""
    for view in views(judged((corpus(name),), None, skip_unknown=True), None):
        for question, q in Gathered.of(view).questions.items():
            values = list(q.tally.distribution())
            if q.level is not None and values and all(agreement._number(v) for v in values):
                yield question, q.level, q.tally.counts()


def _items_of(counts: Any) -> Items:
    ends = [*counts.starts[1:].tolist(), len(counts.unit)]
    value, times = counts.value.tolist(), counts.count.tolist()
    return [
        [counts.values[value[e]] for e in range(a, b) for _ in range(times[e])]
        for a, b in zip(counts.starts.tolist(), ends, strict=True)
    ]


@pytest.mark.parametrize("name", CORPUS_FOLDERS)
def test_the_corpus_numbers_equal_the_definition_and_the_plain_way(name: str) -> None:
    compared = 0
    for question, level, counts in _questions(name):
        fast = _figures(Tally.of_counts(counts), level, samples=20)
        assert _same(fast, _plain(lambda c=counts: Tally.of_counts(c), level, 20)), question
        if len(counts.values) <= 400:
            assert _close(fast.get("alpha"), _definition(_items_of(counts), level)), question
            compared += 1
    assert compared > 0
