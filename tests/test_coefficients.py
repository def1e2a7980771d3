"""Observed agreement and Gwet's AC1/AC2 from per-item value counts: they equal a transcription of
Gwet's formulas over a raters x items table with the full weight matrix, the worked example of
Gwet's handbook, and irrCAC's `CAC.gwet()` (when installed) on random tables and on real questions
of four formats; the AC's interval resamples items from the same draws as alpha's; one answer that
dominates a question is said so, and is not reported as agreement below chance."""

from __future__ import annotations

import math
import os
import random
from collections import Counter, defaultdict
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.judgments import datasets
from humanjudge_schema.judgments.agreement import Level, Tally, alpha, bootstrap
from humanjudge_schema.judgments.coefficients import (
    WEIGHTS,
    dominant,
    figures,
    gwet,
    gwet_bootstrap,
    gwet_resamples,
    observed,
)
from humanjudge_schema.judgments.gather import Gathered
from humanjudge_schema.judgments.quality import below_chance
from humanjudge_schema.judgments.stats import describe
from humanjudge_schema.judgments.summary import Agreement, DatasetStats
from humanjudge_schema.judgments.view import Judgment, Judgments, Question

from .conftest import corpus

Table = list[list[Any]]  # items x raters, None where a rater gave no value

# Gwet (2014), "Handbook of Inter-Rater Reliability", 4 raters and 12 units with missing ratings;
# irrCAC ships it as `raw_4raters` and prints AC1 0.77544 and p_a 0.81818 for it.
HANDBOOK: Table = [
    [1, 1, None, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [None, 5, 5, 5],
    [None, None, 1, 1],
    [None, None, 3, None],
]


def _tally(table: Table) -> Tally:
    tally = Tally()
    for item, row in enumerate(table):
        for value in row:
            tally.add(item, value)
    return tally


def _weights(categories: list[Any], kind: str) -> list[list[float]]:
    """Gwet's weight matrices, written from their definitions over the categories in order."""
    q = len(categories)
    spread = categories[-1] - categories[0] if kind in ("quadratic", "ratio") else 0
    out = []
    for k, a in enumerate(categories):
        row = []
        for m, b in enumerate(categories):
            if kind == "identity":
                row.append(1.0 if k == m else 0.0)
            elif kind == "ordinal":
                d = abs(k - m) + 1
                row.append(1 - (d * (d - 1) / 2) / (q * (q - 1) / 2))
            elif kind == "quadratic":
                row.append(1 - ((a - b) / spread) ** 2)
            else:
                most = (spread / (categories[-1] + categories[0])) ** 2
                row.append(1 - (((a - b) / (a + b)) ** 2 if a + b else 0.0) / most)
        out.append(row)
    return out


def _by_hand(table: Table, kind: str) -> tuple[float | None, float | None]:
    """(p_a, AC) from the table, item by item, with the whole weight matrix."""
    rated = [[v for v in row if v is not None] for row in table]
    rated = [row for row in rated if row]
    categories = sorted({v for row in rated for v in row})
    q = len(categories)
    counts = [[row.count(c) for c in categories] for row in rated]
    pairable = [c for c in counts if sum(c) >= 2]
    if not pairable or q < 2:
        return None, None
    w = _weights(categories, kind)
    p_a = sum(
        sum(c[k] * (sum(w[k][m] * c[m] for m in range(q)) - 1) for k in range(q)) / (sum(c) * (sum(c) - 1))
        for c in pairable
    ) / len(pairable)
    pi = [sum(c[k] / sum(c) for c in counts) / len(counts) for k in range(q)]
    p_e = sum(map(sum, w)) / (q * (q - 1)) * sum(p * (1 - p) for p in pi)
    return p_a, (p_a - p_e) / (1 - p_e)


def _random_table(rng: random.Random, values: list[Any]) -> Table:
    """Items x raters: each item has a value most raters give, with missing ratings and items of
    one rating."""
    raters, items = rng.randint(2, 6), rng.randint(3, 30)
    agree, missing = rng.random(), rng.random() * 0.5
    table = []
    for _ in range(items):
        usual = rng.choice(values)
        row = [usual if rng.random() < agree else rng.choice(values) for _ in range(raters)]
        table.append([None if rng.random() < missing else v for v in row])
    return table


def _level(kind: str) -> Level:
    return next(level for level, weights in WEIGHTS.items() if weights == kind)


# --- the figures ------------------------------------------------------------------------------


def test_the_handbook_example() -> None:
    tally = _tally(HANDBOOK)
    assert round(gwet(tally, "nominal"), 5) == 0.77544  # type: ignore[arg-type]
    assert round(observed(tally), 5) == 0.81818  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["identity", "ordinal", "quadratic", "ratio"])
def test_ac_equals_the_formula_with_the_whole_weight_matrix(kind: str) -> None:
    """The closed forms (ordinal and quadratic in one pass over an item) against the matrix."""
    rng = random.Random(kind)
    level = _level(kind)
    for _ in range(200):
        values = sorted(rng.sample(range(1, 12), rng.randint(2, 6)))
        table = _random_table(rng, values)
        p_a, expected = _by_hand(table, kind)
        tally = _tally(table)
        got = gwet(tally, level)
        if expected is None:
            assert got is None
            continue
        assert got is not None and math.isclose(got, expected, abs_tol=1e-9), (table, got, expected)
        raw, _ = _by_hand(table, "identity")
        assert math.isclose(observed(tally), raw, abs_tol=1e-12)  # type: ignore[arg-type]
        if kind == "identity":
            assert math.isclose(observed(tally), p_a, abs_tol=1e-12)  # type: ignore[arg-type]


def test_no_ac_without_an_item_of_two_ratings_or_with_one_value() -> None:
    assert gwet(_tally([[1, None], [2, None]]), "nominal") is None
    assert observed(_tally([[1, None], [2, None]])) is None
    one = _tally([[3, 3], [3, 3, 3]])
    assert gwet(one, "ordinal") is None and observed(one) == 1.0
    assert gwet(one, "ordinal", categories=[3]) is None  # a scale of one value: still nothing to choose


@pytest.mark.parametrize(("level", "scale"), [("ordinal", [1, 2, 3, 4, 5]), ("nominal", ["no", "yes"])])
def test_one_answer_everywhere_on_a_declared_scale_is_ac_1(level: Level, scale: list[Any]) -> None:
    """The raters chose one of the declared values every time: p_a is 1 and AC's chance agreement
    over the declared categories 0, so AC is 1, at any weights, and so is every bootstrap sample."""
    value = scale[-1]
    tally = _tally([[value, value], [value, value, value], [value, None]])
    assert gwet(tally, level, categories=scale) == 1.0
    assert gwet(tally, level) is None  # the values given alone are one category
    found = figures(tally, level, samples=50, categories=scale)
    assert found == Agreement(1.0, 1.0, (1.0, 1.0), WEIGHTS[level])


def test_values_that_do_not_suit_the_level_are_refused() -> None:
    with pytest.raises(ValueError, match="numbers"):
        gwet(_tally([["a", "a"], ["b", "b"]]), "interval")
    with pytest.raises(ValueError, match="negative"):
        gwet(_tally([[-1, 1], [2, 2]]), "ratio")
    with pytest.raises(ValueError, match="order"):
        gwet(_tally([[1, "a"], [2, 2]]), "ordinal")


def test_large_values_are_compared_at_their_scale() -> None:
    small = _tally([[1, 2, 2], [3, 3, 2], [1, 1, 1]])
    large = _tally([[v * 2.0**1000 for v in row] for row in [[1, 2, 2], [3, 3, 2], [1, 1, 1]]])
    for level in ("interval", "ratio"):
        assert math.isclose(gwet(large, level), gwet(small, level), rel_tol=1e-12)  # type: ignore[arg-type]


# --- the interval -----------------------------------------------------------------------------


def test_the_interval_shares_alphas_draws_and_is_seeded() -> None:
    rng = random.Random(3)
    table = [*_random_table(rng, [1, 2, 3, 4]), [2, None, None], [4, None, None]]  # two items of one rating
    tally = _tally(table)
    alone = gwet_bootstrap(tally, "ordinal", samples=300, seed=5)
    shared = gwet_resamples(tally, "ordinal")
    bootstrap(tally, "ordinal", samples=300, seed=5, each=shared.add)
    assert alone is not None and alone == shared.interval()  # the same samples, drawn once
    assert alone == gwet_bootstrap(tally, "ordinal", samples=300, seed=5)
    assert alone != gwet_bootstrap(tally, "ordinal", samples=300, seed=6)
    lo, hi = alone
    assert lo <= gwet(tally, "ordinal") <= hi  # type: ignore[operator]


def test_a_sample_is_the_sum_of_its_items() -> None:
    """Each sample's AC equals Gwet's AC of the table of the items drawn, computed afresh; the
    items of one rating are in every sample as they are."""
    table = [[1, 1, 2], [2, 2, 2], [1, 3, None], [3, 3, 3], [2, None, None], [3, None, None]]
    tally = _tally(table)
    pairable = [row for row in table if sum(v is not None for v in row) >= 2]
    singles = [row for row in table if sum(v is not None for v in row) == 1]
    categories = sorted({v for row in table for v in row if v is not None})
    found = gwet_resamples(tally, "nominal")
    rng = random.Random(1)
    for _ in range(50):
        drawn = rng.choices(range(len(pairable)), k=len(pairable))
        profiles = Counter(drawn)  # every pairable item here is a profile of its own
        found.add([profiles[p] for p in range(len(pairable))])
        expected = _fixed([*(pairable[i] for i in drawn), *singles], categories)
        assert math.isclose(found.estimates[-1], expected, abs_tol=1e-12)
    assert len(set(found.estimates)) > 10


def _fixed(table: Table, categories: list[Any]) -> float:
    """Gwet's AC1 of a table whose categories are those of the whole question."""
    counts = [[row.count(c) for c in categories] for row in table]
    q = len(categories)
    pairable = [c for c in counts if sum(c) >= 2]
    p_a = sum((sum(n * n for n in c) - sum(c)) / (sum(c) * (sum(c) - 1)) for c in pairable) / len(pairable)
    pi = [sum(c[k] / sum(c) for c in counts) / len(counts) for k in range(q)]
    p_e = sum(p * (1 - p) for p in pi) / (q - 1)
    return (p_a - p_e) / (1 - p_e)


def test_figures_are_null_where_not_defined() -> None:
    empty = Agreement(None, None, None, None)
    assert figures(_tally(HANDBOOK), None) == empty
    assert figures(_tally([["a", "b"], ["c", "c"]]), "interval") == empty
    found = figures(_tally(HANDBOOK), "ordinal", samples=100)
    assert found.ac_weights == "ordinal" and found.ac_ci is not None
    assert found.ac == gwet(_tally(HANDBOOK), "ordinal")


# --- one answer dominates ---------------------------------------------------------------------


def _skewed() -> Tally:
    """The shape of JUDGE-BENCH persona_chat `natural`: 60 responses x 3 ratings, 175 of them 3,
    five items with one 2 (alpha -0.023)."""
    return _tally([[3, 3, 3]] * 55 + [[3, 3, 2]] * 5)


def _spread() -> Tally:
    """Ratings from 1 to 5 that agree no better than chance."""
    rng = random.Random(0)
    return _tally([[rng.randint(1, 5) for _ in range(3)] for _ in range(200)])


def test_one_answer_dominates_the_skewed_question() -> None:
    tally = _skewed()
    value = alpha(tally, "ordinal")
    assert value is not None and round(value, 3) == -0.023
    assert round(observed(tally), 3) == 0.944  # type: ignore[arg-type]
    assert gwet(tally, "ordinal") > 0.9  # type: ignore[operator]
    note = dominant(tally, "ordinal", value)
    assert note is not None and note.startswith("one answer dominates: 3 is 175 of 180 answers (97%)")


def test_no_answer_dominates_a_spread_at_chance() -> None:
    tally = _spread()
    value = alpha(tally, "ordinal")
    assert value is not None and value <= 0
    assert dominant(tally, "ordinal", value) is None


def test_a_high_alpha_needs_no_note() -> None:
    tally = _tally([[3, 3, 3]] * 50 + [[1, 1, 1]] * 10)
    assert dominant(tally, "ordinal", alpha(tally, "ordinal")) is None


def _view(tally_rows: list[tuple[str, Any, Hashable]], level: Level) -> Judgments:
    rows = [
        Judgment("textjudge", "d.json", item, rater, question, "", value, "d.json", f"/{item}/{rater}")
        for question, (item, rater), value in ((q, ir, v) for q, ir, v in tally_rows)
    ]
    questions = {name: Question(name, level) for name in dict.fromkeys(r[0] for r in tally_rows)}
    return Judgments("textjudge", "d.json", read=lambda: iter(rows), questions=questions)


def _rows(name: str, table: Table) -> list[tuple[str, Any, Hashable]]:
    return [(name, (item, rater), v) for item, row in enumerate(table) for rater, v in enumerate(row) if v is not None]


def _engaging() -> Table:
    """The shape of JUDGE-BENCH persona_chat `engaging` (1 to 3): 60 responses x 3 ratings, 157 of
    them 3 (87%), the same answer in 75.6% of pairs (alpha -0.096)."""
    return [[3, 3, 3]] * 38 + [[3, 3, 2]] * 10 + [[3, 3, 1]] * 11 + [[3, 2, 2]]


def test_one_answer_dominates_where_the_spread_of_the_answers_makes_alpha_low() -> None:
    """87% of one answer and agreement in 76% of pairs: answers spread so unevenly that two drawn
    at random disagree 0.231 of the time, not even half the 2/3 of an even spread over the three
    values given, so the prevalence takes alpha further from 1 than the raters' disagreement."""
    tally = _tally(_engaging())
    value = alpha(tally, "ordinal")
    assert value is not None and round(value, 3) == -0.096
    assert round(observed(tally), 3) == 0.756  # type: ignore[arg-type]
    chance = sum((n / 180) ** 2 for n in (157, 12, 11))
    assert 1 - chance <= (1 - 1 / 3) / 2
    note = dominant(tally, "ordinal", value)
    assert note is not None and note.startswith("one answer dominates: 3 is 157 of 180 answers (87%)")
    assert "the same answer in 76% of pairs" in note
    view = _view(_rows("engaging", _engaging()), "ordinal")
    assert list(below_chance(Gathered.of(view))) == []


def test_the_note_is_not_a_bar_on_one_answers_share() -> None:
    """80% of one answer is far from an even spread over five values, not so far from one over
    two. On yes/no, two answers drawn at random disagree 0.32 of the time, more than half an even
    spread's 0.5: the alpha (0.38) of raters who agree in 80% of pairs is low more for their
    disagreement than for the spread, and gets no note. Over five values where the other four
    share the rest, 0.35 is less than half of 0.8: the alpha (0.15) of raters who agree in 70% of
    pairs is low more for the spread than for their disagreement."""
    yes_no = [["yes", "yes"]] * 70 + [["yes", "no"]] * 20 + [["no", "no"]] * 10
    tally = _tally(yes_no)
    value = alpha(tally, "nominal")
    assert tally.distribution() == {"no": 40, "yes": 160} and observed(tally) == 0.8
    assert value is not None and 0.3 < value < 0.4 and gwet(tally, "nominal") > 0.7  # type: ignore[operator]
    assert dominant(tally, "nominal", value) is None
    five = [[1, 1]] * 70 + [[1, 2]] * 5 + [[1, 3]] * 5 + [[1, 4]] * 5 + [[1, 5]] * 5 + [[2, 3], [4, 5]] * 5
    tally = _tally(five)
    value = alpha(tally, "nominal")
    assert tally.distribution() == {1: 160, 2: 10, 3: 10, 4: 10, 5: 10} and observed(tally) == 0.7
    note = dominant(tally, "nominal", value)
    assert note is not None and note.startswith("one answer dominates: 1 is 160 of 200 answers (80%)")


def test_below_chance_is_reported_only_where_no_answer_dominates() -> None:
    rng = random.Random(0)
    spread = [[rng.randint(1, 5) for _ in range(3)] for _ in range(200)]
    skewed = [[3, 3, 3]] * 55 + [[3, 3, 2]] * 5
    view = _view(_rows("natural", skewed) + _rows("fluency", spread), "ordinal")
    flagged = [key for key, _ in below_chance(Gathered.of(view))]
    assert flagged == [("question", "fluency")]


# --- irrCAC -----------------------------------------------------------------------------------


def _irrcac(table: Table, kind: str, categories: list[Any] | None = None) -> dict[str, Any]:
    """irrCAC's estimates. The categories are given (by default the values of the table): under
    pandas 3 its own list of them holds NaN."""
    if os.environ.get("HUMANJUDGE_NEEDS_IRRCAC"):  # CI installs it (.ci/run): these comparisons must run there
        import irrCAC.raw as irrcac
        import pandas as pd
    else:
        irrcac = pytest.importorskip("irrCAC.raw")
        pd = pytest.importorskip("pandas")
    rated = [row for row in table if any(v is not None for v in row)]
    categories = categories or sorted({v for row in rated for v in row if v is not None})
    frame = pd.DataFrame([[math.nan if v is None else v for v in row] for row in rated], dtype=object)
    return dict(irrcac.CAC(frame, weights=kind, categories=categories).gwet()["est"])


def _same(ours: float | None, theirs: float) -> bool:
    """Equal to irrCAC's printed precision: it rounds to 5 decimals."""
    return ours is not None and abs(ours - theirs) <= 0.5e-5 + 1e-12


@pytest.mark.parametrize("kind", ["identity", "ordinal", "quadratic", "ratio"])
def test_irrcac_agrees_on_random_tables(kind: str) -> None:
    rng = random.Random(f"irrCAC {kind}")
    for _ in range(40):
        table = _random_table(rng, sorted(rng.sample(range(1, 9), rng.randint(2, 5))))
        if len({v for row in table for v in row if v is not None}) < 2:
            continue
        if not any(sum(v is not None for v in row) >= 2 for row in table):
            continue
        tally = _tally(table)
        theirs = _irrcac(table, kind)
        assert _same(gwet(tally, _level(kind)), theirs["coefficient_value"]), table
        assert _same(observed(tally), _irrcac(table, "identity")["pa"]), table


@pytest.mark.parametrize("kind", ["identity", "ordinal", "quadratic", "ratio"])
def test_irrcac_agrees_on_one_answer_everywhere_given_the_declared_categories(kind: str) -> None:
    table: Table = [[4, 4, None], [4, 4, 4], [None, 4, None], [4, None, 4]]
    scale = [1, 2, 3, 4, 5]
    theirs = _irrcac(table, kind, scale)
    assert theirs["coefficient_value"] == 1.0
    assert _same(gwet(_tally(table), _level(kind), categories=scale), theirs["coefficient_value"])


BENCH = ("judgebench", "dmg-illc+JUDGE-BENCH", "data")
COGGYM = ("coggym", "lance-ying__coggym", "EML")
REAL = [  # (path, question): nominal, ordinal and interval questions of four formats
    ((*BENCH, "newsroom"), "Informativeness"),
    ((*BENCH, "newsroom"), "Relevance"),
    ((*BENCH, "newsroom"), "Fluency"),
    ((*BENCH, "newsroom"), "Coherence"),
    (("study1",), "query_answerable"),
    (("study1",), "worker_knowledge"),
    (("study1",), "references_quality"),
    (("halie", "data", "std", "question"), "user_answer"),
    ((*COGGYM, "Yoon2020Polite", "exp1"), "judgment"),
    ((*COGGYM, "Gerstenberg2018What", "exp1b"), "hole_probability"),
    ((*COGGYM, "Zhou2023Mental", "exp3"), "pred_white_fall"),
    ((*COGGYM, "sosa2021Moral", "exp2"), "effort_rating"),
]


def _real(path: Path, question: str) -> tuple[Table, Level]:
    """The question's individual judgments as irrCAC's table: a row per item (and option), a
    column per rater, each rater's first answer."""
    cells: dict[Any, dict[Any, Any]] = defaultdict(dict)
    level: Level | None = None
    for view in datasets([path]):
        if question not in view.questions:
            continue
        level = view.questions[question].level
        for row in view.rows():
            individual = getattr(row, "role", "individual") == "individual"
            if row.question == question and row.value is not None and individual:
                cells[(row.item, row.option)].setdefault(row.rater, row.value)
    assert level is not None and cells, question
    raters = list(dict.fromkeys(r for by_rater in cells.values() for r in by_rater))
    return [[by_rater.get(r) for r in raters] for by_rater in cells.values()], level


@pytest.mark.parametrize(("parts", "question"), REAL, ids=[f"{p[-1]}-{q}" for p, q in REAL])
def test_irrcac_agrees_on_real_questions(parts: tuple[str, ...], question: str) -> None:
    table, level = _real(corpus(*parts), question)
    tally = _tally(table)
    kind = WEIGHTS[level]
    theirs = _irrcac(table, kind)
    assert theirs["coefficient_name"] == ("AC1" if kind == "identity" else "AC2")
    assert _same(gwet(tally, level), theirs["coefficient_value"]), (gwet(tally, level), theirs)
    assert _same(observed(tally), _irrcac(table, "identity")["pa"])


def test_the_newsroom_fluency_ratings_stay_below_chance() -> None:
    """alpha -0.016 over ratings from 1 to 5: no answer dominates, and the rule still reports it."""
    table, level = _real(corpus(*BENCH, "newsroom"), "Fluency")
    tally = _tally(table)
    value = alpha(tally, level)
    assert value is not None and value < 0
    assert observed(tally) < 0.3 and dominant(tally, level, value) is None  # type: ignore[operator]
    (view,) = datasets([corpus(*BENCH, "newsroom")])
    assert ("question", "Fluency") in [key for key, _ in below_chance(Gathered.of(view))]


# --- where the figures are shown --------------------------------------------------------------


def _described() -> DatasetStats:
    rng = random.Random(0)
    spread = [[rng.randint(1, 5) for _ in range(3)] for _ in range(200)]
    skewed = [[3, 3, 3]] * 55 + [[3, 3, 2]] * 5
    return describe(_view(_rows("natural", skewed) + _rows("fluency", spread), "ordinal"), samples=200, seed=4)


def test_stats_gives_the_figures_beside_alpha_from_alphas_draws() -> None:
    found = _described()
    natural, fluency = found.questions
    tally = _tally([[3, 3, 3]] * 55 + [[3, 3, 2]] * 5)
    assert natural.agreement == Agreement(
        observed(tally), gwet(tally, "ordinal"), gwet_bootstrap(tally, "ordinal", samples=200, seed=4), "ordinal"
    )
    assert natural.agreement_note is not None and natural.agreement_note.startswith("one answer dominates")
    assert natural.alpha is not None and natural.alpha < 0 and natural.alpha_ci is not None  # as they were
    assert fluency.agreement_note is None and fluency.agreement.ac_ci is not None
    assert [(f.code, f.question) for f in found.quality or ()] == [("quality/below-chance", "fluency")]


def test_stats_gives_ac_1_where_every_answer_is_one_value_of_a_declared_scale() -> None:
    """A graded metric declared 1 to 5 that every rater answered 4: AC 1, and the note that says
    why there is no alpha stays; without a declared scale, no AC."""
    rows = [
        Judgment("textjudge", "d.json", item, rater, "q", "", 4, "d.json", f"/{item}/{rater}")
        for item in range(6)
        for rater in range(3)
    ]
    for order, ac in (((1, 2, 3, 4, 5), 1.0), (None, None)):
        view = Judgments(
            "textjudge", "d.json", read=lambda: iter(rows), questions={"q": Question("q", "ordinal", order)}
        )
        (q,) = describe(view, samples=50).questions
        assert q.alpha is None and q.note is not None and q.note.startswith("every judgment is 4: with one value")
        assert q.agreement.observed == 1.0 and q.agreement.ac == ac


def test_an_option_ticked_by_no_one_has_ac_1() -> None:
    """A multi-select option is a yes/no question of its own: an option no rater ticks is AC 1."""
    from .conftest import ROOT

    (view,) = datasets([ROOT / "examples" / "coggym" / "valid"])
    (places,) = [q for q in describe(view, samples=50).questions if q.question == "places_visited"]
    found = {o.option: (o.note or "", o.agreement.ac) for o in places.options or ()}
    assert found["Attic"][0].startswith("every judgment is 0") and found["Attic"][1] == 1.0
    assert round(found["Kitchen"][1], 3) == -0.2  # two values given: AC over them, as before


def test_the_table_the_report_and_the_summary_show_them() -> None:
    from humanjudge_schema.commands.stats import _text
    from humanjudge_schema.judgments.html import _question
    from humanjudge_schema.judgments.html_answers import Plots
    from humanjudge_schema.report.github import questions_table

    found = _described()
    natural = found.questions[0]
    text = _text([found])
    header = next(line for line in text.splitlines() if "question" in line)
    assert header.split()[-2:] == ["agree", "AC"]
    row = next(line for line in text.splitlines() if line.startswith("  natural "))
    assert row.split()[-2:] == ["94%", f"{natural.agreement.ac:.3f}"]
    assert f"  natural: {natural.agreement_note}" in text
    card = _question("q0", natural, [], Plots())
    assert "the same answer in 94% of pairs" in card and "Gwet's AC2 (ordinal weights)" in card
    assert "one answer dominates" in card
    table = questions_table([found])
    assert "| agree | AC [95%] |" in table and "| 94% |" in table and "one answer dominates" in table


def test_validate_and_version_never_import_numpy() -> None:
    """numpy carries the coefficients' bootstrap only: validation and start-up do without it."""
    import subprocess
    import sys

    from .conftest import ROOT

    code = (
        "import sys\nfrom humanjudge_schema.commands import main\n"
        "for args in (['--version'], ['validate', 'examples/coggym/valid']):\n"
        "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
        "print('numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "False"
