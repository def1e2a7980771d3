"""The option index of each multi-choice answer as the CogGym view exports it: taken in C for
answers that are all {"idx": N} objects, and otherwise answer by answer (`choice_index`), with
the same result for every shape an answer takes in the files."""

from __future__ import annotations

import random
from typing import Any

from humanjudge_schema.formats.coggym.aggregation import choice_index, choices

_SHAPES: list[Any] = [
    {"idx": 0, "label": "A"},
    {"idx": 3},
    {"idx": True},  # a boolean is no index
    {"idx": None},
    {"idx": "2"},
    {"label": "no idx"},
    2,
    None,
    False,
    "1",
    [1],
    {"idx": 2**70},
]


def _one_by_one(responses: list[Any]) -> list[int | None]:
    return [None if answer is None else choice_index(answer) for answer in responses]


def test_every_shape_of_answer_gives_what_choice_index_gives() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        responses = [rng.choice(_SHAPES) for _ in range(rng.randrange(6))]
        assert choices(responses) == _one_by_one(responses), responses


def test_objects_with_an_index_are_taken_whole() -> None:
    responses = [{"idx": k % 4, "label": "x"} for k in range(1000)]
    assert choices(responses) == [k % 4 for k in range(1000)]
    assert choices([{"idx": 1}, {"idx": False}]) == [1, None]  # not a list of indices: one by one
