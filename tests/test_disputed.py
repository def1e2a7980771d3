"""The most disputed items of a question: each item's agreement is alpha's for that item alone,
held to the definition computed pair by pair at every level, alpha is their mean weighted by the
items' judgments, the ranking is lowest first with ties in item order, and the items are located
at their first answer (or said not to be, past the size that is read again)."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import judgments
from humanjudge_schema.judgments import disputed as disputed_module
from humanjudge_schema.judgments.agreement import Tally, alpha, item_agreement
from humanjudge_schema.judgments.gather import GatheredQuestion
from humanjudge_schema.judgments.stats import describe
from humanjudge_schema.judgments.view import Level

from .conftest import CORPUS, ROOT

LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")


def _distance(level: Level, pairable: list[Any]) -> Any:
    """Alpha's distance at a level (Krippendorff 2011), the ordinal one over these values' ranks."""
    if level == "nominal":
        return lambda a, b: float(a != b)
    if level == "interval":
        return lambda a, b: float((a - b) ** 2)
    if level == "ratio":
        return lambda a, b: 0.0 if a + b == 0 else ((a - b) / (a + b)) ** 2
    counts = Counter(pairable)

    def ordinal(a: Any, b: Any) -> float:
        if a == b:
            return 0.0
        low, high = min(a, b), max(a, b)
        return (sum(n for v, n in counts.items() if low <= v <= high) - (counts[a] + counts[b]) / 2) ** 2

    return ordinal


def _mean_distance(values: list[Any], d: Any) -> float:
    pairs = list(itertools.permutations(values, 2))
    return sum(d(a, b) for a, b in pairs) / len(pairs)


@pytest.mark.parametrize("level", LEVELS)
def test_an_items_agreement_is_alpha_of_that_item_alone(level: Level) -> None:
    rng = random.Random(level)
    checked = 0
    for _ in range(60):
        items = {i: [rng.randint(0, 4) for _ in range(rng.randint(1, 5))] for i in range(rng.randint(2, 12))}
        tally = Tally()
        for item, values in items.items():
            for v in values:
                tally.add(item, v)
        whole = alpha(tally, level)
        found = item_agreement(tally, level)
        if whole is None:
            assert found is None
            continue
        assert found is not None
        units, agreement = found
        pairable = {i: v for i, v in items.items() if len(v) >= 2}
        every = [v for values in pairable.values() for v in values]
        d = _distance(level, every)
        expected = _mean_distance(every, d)
        names = tally.counts().units
        assert [names[u] for u in units.tolist()] == list(pairable)  # in item order
        for u, found_agreement in zip(units.tolist(), agreement.tolist(), strict=True):
            own = _mean_distance(pairable[names[u]], d)
            assert found_agreement == pytest.approx(1 - own / expected, abs=1e-9)
        weighted = sum(len(pairable[names[u]]) * a for u, a in zip(units.tolist(), agreement.tolist(), strict=True))
        assert weighted / len(every) == pytest.approx(whole, abs=1e-9)  # alpha: their weighted mean
        checked += 1
    assert checked > 20


def test_the_lowest_come_first_and_ties_keep_the_items_order() -> None:
    tally = Tally()
    answers = {"a": [1, 1, 1], "b": [1, 2, 2], "c": [2, 1, 2], "d": [1, 2, 1], "e": [2, 2, 2]}
    for item, values in answers.items():
        for v in values:
            tally.add((item, ""), v)  # an item and its option, as gathered
    q = GatheredQuestion("nominal", tally=tally)
    found = disputed_module.ranked(q, 3)
    assert found is not None
    chosen = found.items
    assert [i.item for i in chosen] == ["b", "c", "d"]  # the three of one pair in three alike
    assert chosen[0].agreement == chosen[1].agreement == chosen[2].agreement < 0
    assert (found.of, found.below) == (5, 3)


def _textjudge(tmp_path: Path, scores: list[list[int]]) -> Path:
    metric = {"metric": "graded", "category": "graded", "prompt": "{{ instance }}", "worst": 1, "best": 5}
    instances = [
        {
            "id": f"i{k}",
            "instance": "x",
            "annotations": {
                "graded": {"mean_human": sum(s) / len(s), "individual_human_scores": s},
            },
        }
        for k, s in enumerate(scores)
    ]
    data = {
        "dataset": "Look",
        "dataset_url": "https://example.org",
        "expert_annotator": "false",
        "original_prompt": False,
        "annotations": [metric],
        "instances": instances,
    }
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "dataset.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


SCORES = [[1, 1, 1], [5, 5, 4], [1, 5, 3], [2, 2, 2], [4, 4, 4], [3, 3, 2]]


def test_the_most_disputed_items_are_located_at_their_first_answer(tmp_path: Path) -> None:
    (view,) = judgments.datasets([_textjudge(tmp_path, SCORES)])
    (q,) = describe(view, samples=20, disputed=2).questions
    assert q.disputed is not None and q.disputed.note is None
    first, second = q.disputed.items
    assert (first.item, first.answers) == ("i2", ((1, 1), (3, 1), (5, 1)))  # 1, 3 and 5: the widest apart
    assert first.agreement < second.agreement
    assert first.file is not None and first.file.endswith("dataset.json")
    assert first.pointer == "/instances/2/annotations/graded/individual_human_scores/0"
    assert q.disputed.of == len(SCORES)
    # not asked for: the statistics are as they were
    (plain,) = describe(view, samples=20).questions
    assert plain.disputed is None and "disputed" not in plain.to_json()


def test_a_large_dataset_is_not_read_again_to_locate_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(disputed_module, "LOCATED_BYTES", 10)
    (view,) = judgments.datasets([_textjudge(tmp_path, SCORES)])
    (q,) = describe(view, samples=20, disputed=2).questions
    assert q.disputed is not None and q.disputed.items[0].item == "i2"
    assert q.disputed.items[0].file is None and q.disputed.note and "not located" in q.disputed.note


def test_item_by_item_and_row_by_row_locate_them_alike() -> None:
    from humanjudge_schema.judgments.gather import Gathered

    examples = ROOT / "examples"
    paths = [examples / "coggym" / "valid", examples / "textjudge" / "valid", examples / "coggym" / "broken"]
    if CORPUS.exists():
        paths.append(CORPUS / "judgebench" / "dmg-illc+JUDGE-BENCH" / "data" / "newsroom")
    compared = 0
    for view in judgments.datasets(paths):
        assert view.items is not None  # the route item by item is taken
        gathered = Gathered.of(view)
        keys = [("item", name, place) for name, q in gathered.questions.items() for place in q.tally.counts().units[:7]]
        found = disputed_module._located(gathered, keys)
        assert found == gathered.locate(keys) and len(found) == len(keys)
        compared += len(keys)
    assert compared > 20
