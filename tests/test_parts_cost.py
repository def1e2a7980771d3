"""Answers of many parts: a multi-select of 10,000 options, a ranking of 10,000 options and a
multi-slider of 30,000 labels cost `stats` work in proportion to their answers, not parts x
answers (each part was counted in a pass of its own: a multi-select of 10,000 options and 50
participants took over 300 s). The command runs in a child process within BOUND seconds, which
the counting part by part ran past on each of the three (killed at 60 s) and the one pass meets
with room (2-7 s of CPU); the figures of a few parts are checked against the data, so that no
part is left out to meet it, and the parts past the first FIGURED_PARTS have their counts only.
On random answers, every part's counts are those of a pass of its own (the definition).

`experiment` writes the data; benchmarks/bench_judgments.py --options times the same shapes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.judgments.agreement import Tally
from humanjudge_schema.judgments.parts import split
from humanjudge_schema.judgments.stats import FIGURED_PARTS
from humanjudge_schema.judgments.view import Parts

from .helpers import measured

QUERIES = {"select": "multi-select", "rank": "ranking", "label": "multi-slider"}
# Wall seconds: a few seconds here, on two shared cores; minutes before.
BOUND = 60
ADDRESS_SPACE = 3 << 30


def experiment(folder: Path, kind: str, options: int, participants: int, seed: int = 0) -> dict[str, Any]:
    """Write a valid CogGym experiment of one trial with one query of `options` options (a
    "select", "rank" or "label" query: multi-select, ranking, multi-slider) answered by
    `participants` participants, drawn from a seeded generator; returns the individual data."""
    rng = random.Random(seed)
    names = [f"choice {k}" for k in range(options)]
    query: dict[str, Any] = {"type": QUERIES[kind], "prompt": "?", "tag": "q", "option": names}
    if kind == "label":
        query["slider_config"] = {"min": 0, "max": 100}
    trial = {"id": "trial_1", "stimuli": [{"input_type": "text", "text": "A scene."}], "queries": [query]}
    n = participants
    info = {"count": n, "age": 30.0, "gender": {"female": n // 2, "male": n - n // 2}}
    means: dict[str, Any] = {}
    if kind == "select":
        rows = [[rng.randint(0, 1) for _ in names] for _ in range(n)]
        means = {"q": {f"q_{k + 1}": sum(row[k] for row in rows) / n for k in range(options)}}
        answers: Any = rows
    elif kind == "rank":
        answers = []
        for _ in range(n):
            order = list(range(options))
            rng.shuffle(order)
            answers.append([{"idx": k, "option_text": names[k], "rank": r + 1} for r, k in enumerate(order)])
    else:
        ratings = {name: [rng.randint(0, 100) for _ in range(n)] for name in names}
        means = {"q": {f"q_{k + 1}": sum(ratings[name]) / n for k, name in enumerate(names)}}
        answers = [ratings]
    count = n * (options if kind == "label" else 1)
    ind = {"participants_info": info, "judgment_count": count, "trial_1": {"q": answers}}
    config = {
        "experimentName": f"A {QUERIES[kind]} of {options} options",
        "description": "generated",
        "paperDOI": "10.0000/generated",
        "taskType": ["generated"],
        "responseType": [QUERIES[kind]],
        "contributors": ["humanjudge-schema"],
        "stimuli_count": 1,
        "experimentFlow": [{"blocks": [["welcome"], ["trial_1"]]}],
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trial.jsonl").write_text(json.dumps(trial) + "\n")
    (folder / "instruction.jsonl").write_text(
        json.dumps({"id": "welcome", "type": "instruction", "text": "Hi."}) + "\n"
    )
    (folder / "config.json").write_text(json.dumps(config) + "\n")
    (folder / "human_data_ind.json").write_text(json.dumps(ind) + "\n")
    mean = {"participants_info": info, "judgment_count": count, "trial_1": means}
    (folder / "human_data_mean.json").write_text(json.dumps(mean) + "\n")
    return ind


def _stats(folder: Path) -> dict[str, Any]:
    """The one question's `stats --format json` entry, run in a child within BOUND seconds."""
    run = measured(
        ["stats", str(folder), "--format", "json", "--samples", "100", "--no-progress"],
        cwd=folder.parent,
        limit=ADDRESS_SPACE,
        timeout=BOUND,
    )
    assert run.rc == 0, run.err
    (question,) = json.loads(run.out)["datasets"][0]["questions"]
    return question  # type: ignore[no-any-return]


def _part(question: dict[str, Any], k: int) -> dict[str, Any]:
    entry = question["options"][k]
    assert entry["option"] == f"choice {k}" and entry["question"] == f"q: choice {k}"
    assert entry["items"] == 1 and entry["missing"] == 0
    return entry  # type: ignore[no-any-return]


def _figured(entry: dict[str, Any]) -> bool:
    """Whether a part has its agreement figures, or counts only (the note says so)."""
    if "get alpha and agreement" in (entry.get("note") or ""):
        assert entry["alpha"] is None and entry["alpha_ci"] is None
        assert set(entry["agreement"].values()) == {None}
        return False
    assert entry["agreement"]["observed"] is not None
    return True


def test_a_multi_select_of_10000_options(tmp_path: Path) -> None:
    rows = experiment(tmp_path / "select", "select", 10_000, 50)["trial_1"]["q"]
    question = _stats(tmp_path / "select")
    assert question["level"] is None and len(question["options"]) == 10_000
    for k in (0, 1, FIGURED_PARTS - 1, FIGURED_PARTS, 5_000, 9_999):
        ticked = sum(row[k] for row in rows)
        entry = _part(question, k)
        assert entry["level"] == "nominal" and entry["judgments"] == 50
        assert entry["distribution"] == {"counts": {key: n for key, n in (("0", 50 - ticked), ("1", ticked)) if n}}
        assert _figured(entry) is (k < FIGURED_PARTS)
        if k < FIGURED_PARTS:
            ticks = ticked * (ticked - 1) + (50 - ticked) * (49 - ticked)
            assert entry["agreement"]["observed"] == pytest.approx(ticks / (50 * 49))


def test_a_ranking_of_10000_options(tmp_path: Path) -> None:
    rankings = experiment(tmp_path / "rank", "rank", 10_000, 10)["trial_1"]["q"]
    question = _stats(tmp_path / "rank")
    assert question["level"] is None and len(question["options"]) == 10_000
    for k in (0, FIGURED_PARTS - 1, FIGURED_PARTS, 9_999):
        places = sorted(item["rank"] for ranking in rankings for item in ranking if item["idx"] == k)
        entry = _part(question, k)
        assert entry["level"] == "ordinal" and entry["judgments"] == 10
        counts = entry["distribution"]["counts"]
        assert sorted(int(place) for place, n in counts.items() for _ in range(n)) == places
        assert _figured(entry) is (k < FIGURED_PARTS)


def test_a_multi_slider_of_30000_labels(tmp_path: Path) -> None:
    (ratings,) = experiment(tmp_path / "label", "label", 30_000, 20)["trial_1"]["q"]
    question = _stats(tmp_path / "label")
    assert question["level"] == "interval" and question["judgments"] == 600_000
    assert len(question["options"]) == 30_000
    for k in (0, FIGURED_PARTS - 1, FIGURED_PARTS, 29_999):
        given = ratings[f"choice {k}"]
        entry = _part(question, k)
        assert entry["level"] == "interval" and entry["judgments"] == 20
        found = entry["distribution"]
        assert (found["min"], found["max"]) == (min(given), max(given))
        assert found["mean"] == pytest.approx(sum(given) / 20)
        assert _figured(entry) is (k < FIGURED_PARTS)


def _each_on_its_own(tally: Tally, parts: str) -> list[tuple[list[Any], list[tuple[Any, dict[Any, int]]]]]:
    """The definition: each part counted in a pass of its own over the question's entries (an
    item's distinct answer and how often it was given), as its values in the order of their
    first cell and its items in order with the count of each value."""
    c = tally.counts()
    units: list[Any] = c.units
    answers: list[Any] = c.values
    if parts == "label":
        names = list(dict.fromkeys(unit[1] for unit in units))
        cells = [{units[c.unit[e]][1]: answers[c.value[e]]} for e in range(len(c.unit))]
    else:
        rows = [dict(enumerate(v)) if parts == "select" else {o: p for p, o in enumerate(v, 1)} for v in answers]
        names = sorted({k for row in rows for k in row})
        cells = [rows[c.value[e]] for e in range(len(c.unit))]
    out = []
    for name in names:
        values: dict[Any, None] = {}
        items: dict[Any, dict[Any, int]] = {}
        for e, cell in enumerate(cells):
            if name in cell:
                values.setdefault(cell[name])
                counted = items.setdefault(c.units[c.unit[e]], {})
                counted[cell[name]] = counted.get(cell[name], 0) + int(c.count[e])
        out.append((list(values), list(items.items())))
    return out


def _counted(tally: Tally) -> tuple[list[Any], list[tuple[Any, dict[Any, int]]]]:
    """A tally's values, in the order of their codes, and its items' value counts."""
    return list(tally.counts().values), [(item, dict(counted)) for item, counted in tally.per_item().items()]


@pytest.mark.parametrize("parts", ["select", "rank", "label"])
def test_the_one_pass_counts_each_part_as_a_pass_of_its_own(parts: Parts) -> None:
    """Every part's items, values and counts are those of a pass over the entries for that part
    alone (`_each_on_its_own`), on random answers."""
    rng = random.Random(7)
    for _ in range(200):
        tally, width = Tally(), rng.randint(1, 5)
        for _ in range(rng.randint(0, 25)):
            item = rng.choice("abcd")
            if parts == "select":
                tally.add(item, tuple(rng.randint(0, 1) for _ in range(width)))
            elif parts == "rank":
                tally.add(item, tuple(rng.sample(range(width), width)))
            else:
                tally.add((item, rng.choice(["x", "y", "z"])), rng.choice([1, 2, 2.5, 7]))
        found, unsplit = split(tally, parts)
        assert unsplit == 0
        want = _each_on_its_own(tally, parts)
        got = [_counted(part.tally) for part in found]
        if parts == "label":  # a label's values are those it holds in its question's order
            question = tally.counts().values
            want = [([x for x in question if x in values], items) for values, items in want]
        assert got == want
