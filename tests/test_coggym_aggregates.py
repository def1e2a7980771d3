"""The aggregates of many CogGym tags computed together (aggregation.aggregates) are those of
aggregate_tag, tag by tag, whatever the answers hold; and where an answer is not of its type's
usual form the batch declines rather than guess."""

from __future__ import annotations

import random
from typing import Any

import pytest

from humanjudge_schema.formats.coggym.aggregation import aggregate_tag, aggregates

OPTIONS = ["red", "blue", "green", "none"]
ODD = [None, True, False, "x", 1.5, -3, 250, 1e308, 10**400, [], {}, [1, 2], {"idx": 9}, 2, 0, 1, [0, 1, 0, 1]]


def _answer(rng: random.Random, kind: str) -> Any:
    if kind == "single-slider":
        return rng.choice([rng.randint(0, 100), round(rng.uniform(0, 100), 2)])
    if kind == "multi-choice":
        i = rng.randrange(len(OPTIONS))
        return {"idx": i, "option_text": OPTIONS[i]}
    if kind == "multi-select":
        return [rng.randint(0, 1) for _ in OPTIONS]
    return {o: [rng.randint(0, 100) for _ in range(rng.randint(1, 5))] for o in OPTIONS}


def _tags(rng: random.Random, kind: str, odd: float) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    queries, arrays = [], []
    for t in range(rng.randint(1, 12)):
        q: dict[str, Any] = {"type": kind, "tag": rng.choice(["goal", f"q_{t}", "a/b"])}
        if kind != "single-slider":
            q["option"] = OPTIONS if rng.random() > odd else OPTIONS[: rng.randint(0, 4)]
        n = 1 if kind == "multi-slider" and rng.random() > odd else rng.randint(0 if rng.random() < odd else 1, 6)
        answers = [_answer(rng, kind) for _ in range(n)]
        for k in range(n):
            if rng.random() < odd:
                answers[k] = rng.choice(ODD)
        if kind == "multi-slider" and answers and isinstance(answers[0], dict) and rng.random() < odd:
            answers[0].pop(rng.choice(OPTIONS), None)
        queries.append(q)
        arrays.append(answers)
    return queries, arrays


def _same(a: Any, b: Any) -> bool:
    """Equal, with the same types (1 and 1.0 and True are three different answers here)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("kind", ["single-slider", "multi-choice", "multi-slider", "multi-select"])
def test_the_batch_gives_what_each_tag_gives(kind: str) -> None:
    rng = random.Random(kind)
    computed = declined = 0
    for case in range(3000):
        queries, arrays = _tags(rng, kind, odd=[0.0, 0.02, 0.2][case % 3])
        together = aggregates(kind, queries, arrays)
        if together is None:
            declined += 1
            continue
        computed += 1
        one_by_one = [aggregate_tag(q, r) for q, r in zip(queries, arrays, strict=True)]
        assert len(together) == len(one_by_one)
        for a, b in zip(together, one_by_one, strict=True):
            assert _same(a, b), (queries, arrays)
    # both ways are taken: the common form in C, the odd ones left to aggregate_tag
    assert computed > 500 and declined > 200


def test_the_batch_declines_what_it_cannot_compute_exactly() -> None:
    slider = [{"type": "single-slider", "tag": "s"}]
    assert aggregates("single-slider", slider, [[1, None, 3]]) is None  # nulls are left out: not the sum
    assert aggregates("single-slider", slider, [[1e308, 1e308]]) is None  # the sum overflows
    assert aggregates("single-slider", slider, [[]]) is None
    choice = [{"type": "multi-choice", "tag": "c", "option": OPTIONS}]
    assert aggregates("multi-choice", choice, [[{"idx": 1}, 2]]) is None  # a bare index
    assert aggregates("multi-choice", choice, [[{"idx": True}]]) is None
    select = [{"type": "multi-select", "tag": "m", "option": OPTIONS}]
    assert aggregates("multi-select", select, [[[0, 1, 0, "1"]]]) is None
    assert aggregates("multi-select", select, [[[0, 1, 0]]]) is None  # a row of another width
    assert aggregates("textbox", [{"type": "textbox", "tag": "t"}], [["hi"]]) is None
    assert aggregates("multi-choice", [], []) == []
    assert aggregates("multi-choice", choice, [[{"idx": 1}, {"idx": 1}, {"idx": 3}]]) == [{"c_2": 2 / 3, "c_4": 1 / 3}]
