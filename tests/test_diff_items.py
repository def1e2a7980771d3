"""Diff item by item (diff/items.py) gives what matching every row gives.

A view's items (`Judgments.items`) hold the rows its batches hold, and each run's tally is what
its rows add up to; two versions compared item by item give the same JSON as two versions whose
every row is matched, on random edits of TextJudge and CogGym datasets (values changed, 2 made
2.0 or true, scores and participants removed, items removed, added, moved and renamed, ids made
duplicates, stored aggregates edited, a trial's query changed), read in runs and windows small
enough that the edits cross them.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import catalog
from humanjudge_schema.diff import compare, items
from humanjudge_schema.formats.coggym import judgments as coggym_judgments
from humanjudge_schema.formats.textjudge import stream as textjudge_stream
from humanjudge_schema.judgments.view import Judgments, tally_of
from humanjudge_schema.kinds import survey

from .conftest import CORPUS, ROOT
from .helpers import tiny_dataset

FOLDERS = [ROOT / "tests" / "cases" / name for name in ("coggym", "textjudge")]
FOLDERS += [ROOT / "examples" / name for name in ("coggym", "textjudge")]


def _views(folder: Path) -> Iterator[Judgments]:
    for unit in survey([folder], None, skip_empty=True).units:
        view = catalog.get(unit.family).view(unit)
        if view is not None and view.items is not None:
            yield view


def _rows(batches: Any) -> list[tuple[Any, ...]]:
    return [row[:10] for batch in batches for row in batch.tuples()]  # rater kinds left to the view


def _item_rows(view: Judgments) -> tuple[list[tuple[Any, ...]], int]:
    """The rows of the view's items, each run's tally checked against them; how many runs."""
    assert view.items is not None
    by_item = view.by_item()
    out: list[tuple[Any, ...]] = []
    runs = 0
    for run in by_item.runs:
        runs += 1
        n = len(run.items)
        assert len(run.content) == n
        batches = list(run.rows(0, n))
        assert run.tally(0, n) == tally_of(batches)
        for a, b in ((0, n // 2), (n // 3, n)):  # a part of a run, as the diff asks for
            assert run.tally(a, b) == tally_of(run.rows(a, b))
        out += _rows(batches)
    out += _rows(by_item.rest)
    return out, runs


def _assert_items_hold_the_rows(folder: Path) -> int:
    checked = 0
    for view in _views(folder):
        rows, _ = _item_rows(view)
        assert rows == _rows(view.in_batches()), view.dataset
        checked += 1
    return checked


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_views_items_hold_its_rows(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _assert_items_hold_the_rows(folder)
    monkeypatch.setattr(coggym_judgments, "_RUN", 1)  # a run per stimulus
    monkeypatch.setattr(textjudge_stream, "STREAM_FROM", 0)  # a large file's runs
    monkeypatch.setattr(textjudge_stream, "RUN_BYTES", 300)
    assert _assert_items_hold_the_rows(folder)


@pytest.mark.parametrize("name", ["coggym", "judgebench"])
def test_the_corpus_items_hold_its_rows(name: str) -> None:
    folder = CORPUS / name
    if not folder.is_dir():
        pytest.skip(f"no corpus at {folder}")
    assert _assert_items_hold_the_rows(folder)


def test_a_textjudge_file_in_runs_gives_its_items_a_run_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textjudge_stream, "STREAM_FROM", 0)
    monkeypatch.setattr(textjudge_stream, "RUN_BYTES", 300)
    view = next(_views(ROOT / "examples" / "textjudge" / "valid"))
    _, runs = _item_rows(view)
    assert runs > 1


# two versions compared both ways --------------------------------------------------------------


def _textjudge(rng: random.Random, n: int) -> dict[str, Any]:
    data = tiny_dataset("Is it {{ instance }} fine?")
    data["annotations"].append(
        {"metric": "score", "category": "graded", "prompt": "Rate {{ instance }}.", "worst": 1, "best": 5}
    )
    data["instances"] = [
        {
            "id": f"i{k}",
            "instance": f"sentence {k}",
            "annotations": {
                "ok": {"majority_human": "yes", "individual_human_scores": rng.choices(["yes", "no"], k=3)},
                "score": {
                    "mean_human": 3.0,
                    "individual_human_scores": [rng.randint(1, 5) for _ in range(rng.randint(1, 4))],
                },
            },
        }
        for k in range(n)
    ]
    return data


def _edit_textjudge(data: dict[str, Any], rng: random.Random) -> None:
    instances = data["instances"]
    for _ in range(rng.randint(0, 6)):
        if not instances:
            return
        k = rng.randrange(len(instances))
        inst = instances[k]
        scores = inst["annotations"]["score"]["individual_human_scores"]
        what = rng.randrange(10)
        if what == 0:
            scores[0] = rng.choice([scores[0], scores[0] + 1, float(scores[0]), True, None, "3"])
        elif what == 1 and len(scores) > 1:
            del scores[rng.randrange(len(scores))]
        elif what == 2:
            scores.append(rng.randint(1, 5))
        elif what == 3:
            del instances[k : k + rng.randint(1, 5)]
        elif what == 4:
            instances.insert(k, {**copy.deepcopy(inst), "id": f"new{rng.randrange(10**6)}"})
        elif what == 5:  # a run of instances moved elsewhere
            run = instances[k : k + rng.randint(1, 8)]
            del instances[k : k + len(run)]
            at = rng.randrange(len(instances) + 1)
            instances[at:at] = run
        elif what == 6:
            inst["annotations"]["score"]["mean_human"] = rng.choice([-1, 3, 3.0])
        elif what == 7 and "ok" in inst["annotations"]:
            inst["annotations"]["renamed"] = inst["annotations"].pop("ok")
        elif what == 8 and rng.random() < 0.3:  # an id named twice: every row matched instead
            inst["id"] = instances[rng.randrange(len(instances))]["id"]
        elif what == 9 and rng.random() < 0.3:  # every instance moved: the file sorted otherwise
            rng.shuffle(instances)
        else:
            inst["id"] = rng.choice([f"i{rng.randrange(10**6)}", 7, True])


def _coggym(rng: random.Random, n: int, folder: Path) -> None:
    shutil.copytree(ROOT / "examples" / "coggym" / "valid", folder)
    ind = json.loads((folder / "human_data_ind.json").read_text())
    mean = json.loads((folder / "human_data_mean.json").read_text())
    trials = [json.loads(line) for line in (folder / "trial.jsonl").read_text().splitlines() if line]
    record = next(t for t in trials if t["id"] == "trial_1")
    for k in range(n):
        sid = f"trial_x{k}"
        trials.append({**copy.deepcopy(record), "id": sid})
        ind[sid] = copy.deepcopy(ind["trial_1"])
        ind[sid]["goal_confidence"] = [rng.randint(0, 100) for _ in range(3)]
        mean[sid] = copy.deepcopy(mean["trial_1"])
    _write_coggym(folder, ind, mean, trials)


def _write_coggym(folder: Path, ind: Any, mean: Any, trials: list[Any]) -> None:
    (folder / "human_data_ind.json").write_text(json.dumps(ind, indent=1))
    (folder / "human_data_mean.json").write_text(json.dumps(mean, indent=1))
    (folder / "trial.jsonl").write_text("".join(json.dumps(t) + "\n" for t in trials))


def _edit_coggym(folder: Path, rng: random.Random) -> None:
    ind = json.loads((folder / "human_data_ind.json").read_text())
    mean = json.loads((folder / "human_data_mean.json").read_text())
    trials = [json.loads(line) for line in (folder / "trial.jsonl").read_text().splitlines() if line]
    for _ in range(rng.randint(0, 5)):
        sids = [k for k in ind if k.startswith("trial")]
        if not sids:
            break
        sid = rng.choice(sids)
        what = rng.randrange(8)
        stimulus = ind[sid]
        if what == 0 and "goal_confidence" in stimulus:
            answers = stimulus["goal_confidence"]
            answers[rng.randrange(len(answers))] = rng.choice([50, 50.0, True, None, 101])
        elif what == 1:
            for answers in stimulus.values():
                if isinstance(answers, list) and answers:
                    answers.pop(rng.randrange(len(answers)))  # a participant's answer removed
        elif what == 2:
            del ind[sid]
        elif what == 3:  # a stimulus added (its trial too), or moved to the end
            new = f"trial_y{rng.randrange(10**6)}" if rng.random() < 0.5 else sid
            value = ind.pop(sid)
            ind[new] = value
            if new != sid:
                trials.append({**copy.deepcopy(next(t for t in trials if t["id"] == sid)), "id": new})
        elif what == 4 and sid in mean and isinstance(mean[sid].get("goal_confidence"), (int, float)):
            mean[sid]["goal_confidence"] = -1
        elif what == 5:  # a query's type changed in the trial: the same answers read otherwise
            for t in trials:
                for q in t.get("queries", []) if t["id"] == sid else ():
                    if q.get("tag") == "goal_confidence":
                        q["type"] = "textbox"
        elif what == 6 and rng.random() < 0.5:  # the stimuli in another order
            order = list(ind.items())
            rng.shuffle(order)
            ind = dict(order)
        else:
            stimulus["new_tag"] = [1, 2]  # a tag the trial does not have
    _write_coggym(folder, ind, mean, trials)


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    return old, new


def _both(old: Path, new: Path) -> None:
    for limit in (5, 10**6):
        fast = compare.compare(old, new, examples=limit, samples=20, stats="always").to_json()
        slow = compare.compare(old, new, examples=limit, samples=20, stats="always", by_item=False).to_json()
        assert fast == slow


def _small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(items, "LEAST", 1)
    monkeypatch.setattr(items, "MOST", 4)
    monkeypatch.setattr(items, "AHEAD", 3)
    monkeypatch.setattr(coggym_judgments, "_RUN", 3)
    monkeypatch.setattr(textjudge_stream, "STREAM_FROM", 0)
    monkeypatch.setattr(textjudge_stream, "RUN_BYTES", 700)


@pytest.mark.parametrize("seed", range(40))
def test_textjudge_item_by_item_is_row_by_row(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    if seed % 2:
        _small_windows(monkeypatch)
    data = _textjudge(rng, rng.randint(1, 40))
    old, new = _folders(tmp_path)
    (old / "dataset.json").write_text(json.dumps(data))
    _edit_textjudge(data, rng)
    (new / "dataset.json").write_text(json.dumps(data))
    _both(old, new)


@pytest.mark.parametrize("seed", range(25))
def test_coggym_item_by_item_is_row_by_row(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    if seed % 2:
        _small_windows(monkeypatch)
    old, new = tmp_path / "old" / "exp", tmp_path / "new" / "exp"
    _coggym(rng, rng.randint(0, 12), old)
    shutil.copytree(old, new)
    _edit_coggym(new, rng)
    _both(old.parent, new.parent)


def test_equal_items_make_no_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A change to one instance of many makes the rows of that instance only, in each version."""
    data = _textjudge(random.Random(1), 300)
    old, new = _folders(tmp_path)
    (old / "dataset.json").write_text(json.dumps(data))
    data["instances"][150]["annotations"]["score"]["individual_human_scores"][0] = 9
    (new / "dataset.json").write_text(json.dumps(data))
    made: list[tuple[int, int]] = []  # (version, items) made into rows
    real = items.Lockstep._rows

    def counted(self: items.Lockstep, k: int, run: Any, start: int, stop: int, place: int) -> None:
        made.append((k, stop - start))
        real(self, k, run, start, stop, place)

    monkeypatch.setattr(items.Lockstep, "_rows", counted)
    (ds,) = compare.compare(old, new, stats="never").to_json()["datasets"]
    assert [(q["question"], q["changed"]) for q in ds["questions"]] == [("ok", 0), ("score", 1)]
    assert (
        ds["judgments"]
        == [sum(3 + len(i["annotations"]["score"]["individual_human_scores"]) for i in data["instances"])] * 2
    )
    assert made == [(0, 1), (1, 1)]


def test_a_true_where_there_was_a_1_is_a_change(tmp_path: Path) -> None:
    """== calls [1] and [true] equal; the items compared as JSON text do not."""
    data = _textjudge(random.Random(2), 50)
    data["instances"][20]["annotations"]["score"]["individual_human_scores"] = [1, 2]
    old, new = _folders(tmp_path)
    (old / "dataset.json").write_text(json.dumps(data))
    data["instances"][20]["annotations"]["score"]["individual_human_scores"] = [True, 2.0]
    (new / "dataset.json").write_text(json.dumps(data))
    assert data["instances"] == json.loads((old / "dataset.json").read_text())["instances"]  # as == sees it
    (ds,) = compare.compare(old, new, stats="never").to_json()["datasets"]
    score = next(q for q in ds["questions"] if q["question"] == "score")
    assert score["changed"] == 1  # 1 became true; 2 and 2.0 are the same
    assert [(e["old"], e["new"]) for e in score["examples"]] == [(1, True)]


def test_an_item_named_twice_is_matched_row_by_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _textjudge(random.Random(3), 20)
    data["instances"][5]["id"] = data["instances"][15]["id"]
    old, new = _folders(tmp_path)
    (old / "dataset.json").write_text(json.dumps(data))
    data["instances"][15]["annotations"]["score"]["individual_human_scores"][0] = 9
    (new / "dataset.json").write_text(json.dumps(data))
    ways: list[bool] = []  # whether each version's side was matched item by item
    real = compare.Side

    def side(batches: Any, places: Any = None) -> Any:
        ways.append(places is not None)
        return real(batches, places)

    monkeypatch.setattr(compare, "Side", side)
    (ds,) = compare.compare(old, new, stats="never").to_json()["datasets"]
    assert ways == [True, True, False, False]
    assert [(q["question"], q["changed"]) for q in ds["questions"]] == [("ok", 0), ("score", 1)]


@pytest.mark.parametrize("by_item", [True, False])
@pytest.mark.parametrize("small", [True, False])
def test_the_examples_are_the_first_in_file_order(
    by_item: bool, small: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever order matching comes upon them in (rows kept aside until their partner comes,
    items made rows or not, runs of a file), a question's examples of a kind are the first in
    the file."""
    if small:
        _small_windows(monkeypatch)
    data = _textjudge(random.Random(4), 60)
    for inst in data["instances"]:
        inst["annotations"]["score"]["individual_human_scores"] = [1, 2, 3, 4]
    old, new = _folders(tmp_path)
    (old / "dataset.json").write_text(json.dumps(data))
    for k in (2, 5):  # a score removed: kept aside until the end, and found removed then
        data["instances"][k]["annotations"]["score"]["individual_human_scores"].pop()
    del data["instances"][50:]  # the last ten instances removed: found as the old file goes on alone
    (new / "dataset.json").write_text(json.dumps(data))
    (ds,) = compare.compare(old, new, stats="never", by_item=by_item).to_json()["datasets"]
    score = next(q for q in ds["questions"] if q["question"] == "score")
    assert score["removed"] == 2 + 40
    at = "/instances/{}/annotations/score/individual_human_scores/{}".format
    first = [at(2, 3), at(5, 3), at(50, 0), at(50, 1), at(50, 2)]
    assert [e["pointer"] for e in score["examples"]] == first
