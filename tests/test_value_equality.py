"""When two values are the same answer is defined once (`view.hashable`): lists compared whole,
every NaN the same value. The statistics' pass and the diff both compare by it."""

from __future__ import annotations

from typing import Any

from humanjudge_schema.judgments.gather import Gathered
from humanjudge_schema.judgments.view import NAN, Batch, Judgments, Question, hashable


def test_every_nan_is_one_value_and_lists_are_compared_whole() -> None:
    a, b = float("nan"), float("nan")
    assert a is not b and hashable(a) is NAN and hashable(b) is NAN
    assert hashable([1, a]) == hashable([1, b]) == (1, NAN)
    assert {hashable([a]): 1}[hashable([b])] == 1
    assert hashable([1, [2, 3]]) == (1, (2, 3)) and hashable("x") == "x" and hashable(2) == 2


def _view(values: list[tuple[int, str, Any]], level: Any = "nominal") -> Judgments:
    rows = [
        ("toy", "ds", item, rater, "q", "", value, "f", f"/{k}", None) for k, (item, rater, value) in enumerate(values)
    ]
    return Judgments("toy", "ds", questions={"q": Question("q", level)}, batches=lambda: iter([Batch.of_rows(rows)]))


def test_the_statistics_compare_lists_holding_nan_whole() -> None:
    """Three raters' [1.0, NaN] are one answer (each NaN its own object, as a parser makes them); a
    NaN on its own is no judgment, as agreement.Tally counts it."""
    nan1, nan2, nan3 = float("nan"), float("nan"), float("nan")
    listed = _view([(0, "a", [1.0, nan1]), (0, "b", [1.0, nan2]), (1, "a", [1.0, nan3]), (1, "b", ["y"])], None)
    (q,) = Gathered.of(listed).questions.values()
    assert sorted(q.tally.distribution().values()) == [1, 3]
    alone = _view([(0, "a", "x"), (0, "b", nan1), (1, "a", nan2), (1, "b", "x")])
    (q,) = Gathered.of(alone).questions.values()
    assert q.tally.distribution() == {"x": 2} and q.tally.judgments == 2 and q.missing == 0
