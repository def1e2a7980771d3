"""quality/straight-lining holds its one-in-a-thousand chance for the dataset, not for each rater:
a rater's chance is multiplied by the number of raters tested (Bonferroni's correction, as
quality/outlying-rater's), so that among many raters one who answers the common answer of their
items is not reported for luck alone, while a rater who answers one value to items the others
rate apart still is."""

from __future__ import annotations

import math
import random
from typing import Any

from humanjudge_schema.judgments.quality import CHANCE, check
from humanjudge_schema.judgments.view import Batch, Judgments, Question

Answers = dict[str, dict[int, Any]]


def _view(answers: Answers) -> Judgments:
    """One ordinal question "q" of persons: rater -> item -> answer, each at /rater/item."""
    rows = [
        ("fmt", "ds", item, rater, "q", "", value, "f", f"/{rater}/{item}", None)
        for rater, given in answers.items()
        for item, value in given.items()
    ]
    return Judgments(
        "fmt",
        "ds",
        questions={"q": Question("q", "ordinal")},
        raters="person",
        batches=lambda: iter([Batch.of_rows(rows)]),
    )


def _straight(answers: Answers) -> list[str]:
    return [
        where.pointer.split("/")[1] for code, where, _ in check(_view(answers)) if code == "quality/straight-lining"
    ]


def _crowd(raters: int, seed: int = 0) -> Answers:
    """`raters` raters besides "m" and "s", of at least 20 items each, whose answers vary:

    - items 0-19: five of them each, three answering 3 and two something else, and "m" answers
      3 to all twenty: 4 of each item's 6 answers are 3, so answers drawn from each item's own
      would give "m"'s all twenty with the chance (2/3)^20, 3.0e-4;
    - items 20-59: three of them each, 1 to 5 at random, and "s" answers 3 to all forty;
    - items 60 on: 20 each, 1 to 5 at random."""
    rng = random.Random(seed)
    names = [f"w{k:02}" for k in range(raters)]
    out: Answers = {name: {} for name in names}
    for item in range(20):
        for k, name in enumerate(rng.sample(names, 5)):
            out[name][item] = 3 if k < 3 else rng.choice([1, 2, 4, 5])
    for item in range(20, 60):
        for name in rng.sample(names, 3):
            out[name][item] = rng.randint(1, 5)
    for k, name in enumerate(names):
        for j in range(20):
            out[name][60 + (k * 20 + j) % 200] = rng.randint(1, 5)
    out["m"] = dict.fromkeys(range(20), 3)
    out["s"] = dict.fromkeys(range(20, 60), 3)
    return out


def _chance(answers: Answers, rater: str) -> float:
    """The chance that answers drawn from each of the rater's items' own answers are the
    rater's one answer on every item (all the rater's answers are one value)."""
    (value,) = set(answers[rater].values())
    chance = 1.0
    for item in answers[rater]:
        given = [a[item] for a in answers.values() if item in a]
        chance *= given.count(value) / len(given)
    return chance


def test_a_chance_of_3e_4_among_80_raters_is_not_straight_lining() -> None:
    answers = _crowd(78)  # 80 raters of at least 20 items
    assert all(len(given) >= 20 for given in answers.values()) and len(answers) == 80
    chance = _chance(answers, "m")
    assert math.isclose(chance, (2 / 3) ** 20) and 1e-4 < chance < CHANCE  # reported, were it one rater
    assert chance * 80 > CHANCE
    assert _chance(answers, "s") * 80 < CHANCE / 1000
    assert _straight(answers) == ["s"]


def test_the_same_chance_among_two_raters_tested_is_straight_lining() -> None:
    """The raters tested are those with at least 20 items of the question: here "m" and "s", the
    others answer fewer, so "m"'s chance times 2 is below one in a thousand."""
    answers = _crowd(78)
    few = {name: dict(list(given.items())[:19]) if name.startswith("w") else given for name, given in answers.items()}
    few = {name: given for name, given in few.items() if given}
    assert sorted(name for name, given in few.items() if len(given) >= 20) == ["m", "s"]
    assert _chance(few, "m") * 2 < CHANCE
    assert sorted(_straight(few)) == ["m", "s"]
