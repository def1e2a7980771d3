"""`humanjudge diff` where raters are places (CogGym participants, TextJudge scores): a
participant or a score removed from the middle, or inserted, is found by its answers, and the
places after it are aligned instead of reported as changed (diff/align.py)."""

from __future__ import annotations

import copy
import itertools
import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from humanjudge_schema import diff
from humanjudge_schema.commands import cli
from humanjudge_schema.diff import align, compare
from humanjudge_schema.judgments.view import Batch, Judgments

from .conftest import corpus

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ABOODY = ("coggym", "lance-ying__coggym", "EML", "Aboody2025Inferring", "exp1")
YOON = ("coggym", "lance-ying__coggym", "EML", "Yoon2020Polite", "exp1")
NEWSROOM = ("judgebench", "dmg-illc+JUDGE-BENCH", "data", "newsroom")


def _copies(tmp_path: Path, source: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old/data", tmp_path / "new/data"
    for copy_ in (old, new):
        shutil.copytree(source, copy_)
        for f in copy_.rglob("*"):
            f.chmod(0o755 if f.is_dir() else 0o644)
    return old.parent, new.parent


def _edit(path: Path, change: Callable[[Any], None]) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=1))


def _participants(change: Callable[[list[Any]], None], count: int) -> Callable[[Any], None]:
    """An edit of human_data_ind.json: `change` applied to every array of one answer per
    participant (a multi-slider's, per label), and the count set."""

    def edit(doc: Any) -> None:
        n = doc["participants_info"]["count"]
        for key, trial in doc.items():
            if key in ("participants_info", "judgment_count"):
                continue
            for answers in trial.values():
                if len(answers) == n:
                    change(answers)
                else:  # a multi-slider: one array per label
                    for per_label in answers[0].values():
                        change(per_label)
        doc["participants_info"]["count"] = count

    return edit


def _scores(change: Callable[[list[Any]], None]) -> Callable[[Any], None]:
    """An edit of a TextJudge file: `change` applied to every score list."""

    def edit(doc: Any) -> None:
        for inst in doc["instances"]:
            for annotation in inst["annotations"].values():
                if isinstance(annotation.get("individual_human_scores"), list):
                    change(annotation["individual_human_scores"])

    return edit


def _dataset(found: dict[str, Any]) -> dict[str, Any]:
    (ds,) = [d for d in found["datasets"] if d["status"] != "unchanged"]
    return ds


def _counts(found: dict[str, Any]) -> tuple[int, int, int]:
    s = found["summary"]
    return s["removed"], s["changed"], s["added"]


def _text(old: Path, new: Path, *args: str) -> str:
    out = CliRunner().invoke(cli, ["diff", str(old), str(new), "--stats", "never", *args], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return out.output


# a participant removed or inserted (CogGym) ----------------------------------------------------


def test_a_participant_removed_from_the_middle_is_removed(tmp_path: Path) -> None:
    old, new = _copies(tmp_path, corpus(*ABOODY))
    _edit(new / "data/human_data_ind.json", _participants(lambda a: a.pop(5), 40))
    by_place = diff(old, new, samples=20, stats="never", align=False).to_json()
    assert _counts(by_place)[1] > 1000  # 6..39 moved up one: their answers read as changed
    found = diff(old, new, samples=20, stats="never").to_json()
    ds = _dataset(found)
    assert _counts(found) == (38, 0, 0) and ds["judgments"] == [1520, 1482]
    assert ds["alignment"] == {
        "raters": [40, 39],
        "removed": [5],
        "added": [],
        "moved": [{"old": [6, 39], "new": [5, 38]}],
        "edits": {"positions": sum(_counts(by_place)), "aligned": 38},
        "said": "old 5 removed; old 6..39 -> new 5..38",
    }
    questions = [q for q in ds["questions"] if q["removed"]]
    assert [q["question"] for q in questions] == ["left_knowledge", "right_knowledge"]
    for q in questions:
        assert (q["raters_removed"], q["listed"]["raters_removed"], q["raters_added"]) == (1, [5], 0)
        assert q["examples"] and all(
            (e["kind"], e["rater"], e["side"]) == ("removed", 5, "old") and e["pointer"].endswith("/5")
            for e in q["examples"]
        )
    text = _text(old, new)
    assert "Judgments: 38 removed, 0 changed, 0 added;" in text
    aligned = "  raters aligned: old 5 removed; old 6..39 -> new 5..38 (38 judgments removed, changed or added,"
    assert f"{aligned} against {sum(_counts(by_place)):,} matched by place)\n" in text
    assert "    raters removed: 1: 5\n" in text and "rater 39" not in text
    assert "    removed item trial_3 rater 5: 10.0 (data/human_data_ind.json:17 /trial_3/left_knowledge/5)\n" in text
    markdown = _text(old, new, "--format", "markdown")  # the pull request's job summary, HTML escaped
    assert "\n  raters aligned: old 5 removed; old 6..39 -&gt; new 5..38 (38 judgments" in markdown


def test_a_participant_removed_and_an_answer_changed(tmp_path: Path) -> None:
    old, new = _copies(tmp_path, corpus(*ABOODY))

    def edit(doc: Any) -> None:
        _participants(lambda a: a.pop(5), 39)(doc)
        doc["trial_3"]["left_knowledge"][9] = 99.0  # participant 10, now at place 9

    _edit(new / "data/human_data_ind.json", edit)
    found = diff(old, new, samples=20, stats="never").to_json()
    assert _counts(found) == (38, 1, 0)
    (q,) = [q for q in _dataset(found)["questions"] if q["question"] == "left_knowledge"]
    (e,) = [e for e in q["examples"] if e["kind"] == "changed"]
    assert (e["item"], e["rater"], e["old_rater"], e["old"], e["new"]) == ("trial_3", 9, 10, 11.0, 99.0)
    assert (e["pointer"], e["old_pointer"]) == ("/trial_3/left_knowledge/9", "/trial_3/left_knowledge/10")
    assert "    changed item trial_3 rater 9 (old 10): 11.0 -> 99.0 (data/human_data_ind.json:" in _text(old, new)


def test_a_participant_inserted_is_added(tmp_path: Path) -> None:
    # answers that name options (a choice's idx and option_text) are compared by what they name
    old, new = _copies(tmp_path, corpus(*YOON))
    _edit(new / "data/human_data_ind.json", _participants(lambda a: a.insert(3, copy.deepcopy(a[0])), 50))
    found = diff(old, new, samples=20, stats="never").to_json()
    ds = _dataset(found)
    removed, changed, added = _counts(found)
    assert (removed, changed) == (0, 0) and added == ds["judgments"][1] - ds["judgments"][0] > 0
    assert ds["alignment"]["said"] == "new 3 added; old 3..48 -> new 4..49"
    assert (ds["alignment"]["added"], ds["alignment"]["removed"]) == ([3], [])
    assert all(q["listed"]["raters_added"] == [3] for q in ds["questions"] if q["added"])
    assert all(e["rater"] == 3 for q in ds["questions"] for e in q["examples"])


def test_the_example_experiment_loses_its_first_participant(tmp_path: Path) -> None:
    old, new = _copies(tmp_path, EXAMPLES / "coggym/valid")
    _edit(new / "data/human_data_ind.json", _participants(lambda a: a.pop(0), 2))
    found = diff(old, new, samples=20, stats="never").to_json()
    ds = _dataset(found)
    assert _counts(found) == (ds["judgments"][0] - ds["judgments"][1], 0, 0)
    assert ds["alignment"]["said"] == "old 0 removed; old 1..2 -> new 0..1"
    assert all(q["listed"]["raters_removed"] == [0] for q in ds["questions"] if q["removed"])
    assert not any("move up one place" in n for n in ds["notes"])


# a score removed or inserted in every list (TextJudge) -----------------------------------------


def test_a_score_removed_from_every_list(tmp_path: Path) -> None:
    old, new = _copies(tmp_path, EXAMPLES / "textjudge/valid")
    _edit(new / "data/dataset.json", _scores(lambda s: s.pop(0)))
    by_place = diff(old, new, samples=20, stats="never", align=False).to_json()
    assert _counts(by_place)[1] > 0
    found = diff(old, new, samples=20, stats="never").to_json()
    ds = _dataset(found)
    assert _counts(found) == (6, 0, 0) and ds["rater_kind"] == "position"
    assert ds["alignment"]["said"] == "old 0 removed; old 1..2 -> new 0..1"
    assert any("aligned by their answers" in n for n in ds["notes"])
    assert not any("moves the later ones" in n for n in ds["notes"])
    assert "  raters aligned: old 0 removed; old 1..2 -> new 0..1 (6 judgments" in _text(old, new)


def test_a_score_removed_from_every_list_of_a_corpus_file(tmp_path: Path) -> None:
    old, new = _copies(tmp_path, corpus(*NEWSROOM))
    _edit(new / "data/newsroom.json", _scores(lambda s: s.pop(1)))
    found = diff(old, new, samples=20, stats="never").to_json()
    ds = _dataset(found)
    assert _counts(found) == (420 * 4, 0, 0)
    assert ds["alignment"]["said"] == "old 1 removed; old 2 -> new 1"
    assert all(q["listed"]["raters_removed"] == [1] for q in ds["questions"])


def test_a_score_inserted_in_every_list(tmp_path: Path) -> None:
    old, new = _copies(tmp_path, EXAMPLES / "textjudge/valid")
    _edit(new / "data/dataset.json", _scores(lambda s: s.insert(1, s[0])))
    found = diff(old, new, samples=20, stats="never").to_json()
    assert _counts(found) == (0, 0, 6)
    alignment = _dataset(found)["alignment"]
    # a copy of the score before it: inserted after that score or before it, the same edits
    assert alignment["added"] in ([0], [1]) and alignment["edits"]["aligned"] == 6


# where places are best, nothing changes --------------------------------------------------------


def _same_as_by_place(old: Path, new: Path) -> dict[str, Any]:
    found = diff(old, new, samples=20, stats="never").to_json()
    assert found == diff(old, new, samples=20, stats="never", align=False).to_json()
    assert not any("alignment" in d for d in found["datasets"])
    assert "raters aligned" not in _text(old, new)
    return found


def test_the_last_participant_removed_and_an_answer_changed(tmp_path: Path) -> None:
    old, new = _copies(tmp_path, corpus(*ABOODY))

    def edit(doc: Any) -> None:
        _participants(lambda a: a.pop(), 39)(doc)
        doc["trial_3"]["left_knowledge"][9] = 99.0

    _edit(new / "data/human_data_ind.json", edit)
    assert _counts(_same_as_by_place(old, new)) == (38, 1, 0)


def test_answers_that_no_order_explains(tmp_path: Path) -> None:
    old, new = _copies(tmp_path, EXAMPLES / "coggym/valid")
    _edit(new / "data/human_data_ind.json", _participants(lambda a: a.reverse(), 3))
    _same_as_by_place(old, new)
    old, new = _copies(tmp_path / "textjudge", EXAMPLES / "textjudge/valid")
    _edit(new / "data/dataset.json", _scores(lambda s: s.__setitem__(slice(None), [1] * (len(s) - 1))))
    _same_as_by_place(old, new)


@pytest.mark.parametrize("experiment", [ABOODY, ("coggym", "lance-ying__coggym", "EML", "sosa2021Moral", "exp1")])
def test_participants_in_reverse_order(tmp_path: Path, experiment: tuple[str, ...]) -> None:
    # a few edits fewer by a participant "removed" and one "added" around a run that moved, whose
    # answers differ from their new places' as much as from their old: places are kept
    old, new = _copies(tmp_path, corpus(*experiment))
    count = json.loads((old / "data/human_data_ind.json").read_text())["participants_info"]["count"]
    _edit(new / "data/human_data_ind.json", _participants(lambda a: a.reverse(), count))
    assert _counts(_same_as_by_place(old, new))[1] > 0


def test_unchanged_versions(tmp_path: Path) -> None:
    old, new = _copies(tmp_path, EXAMPLES / "coggym/valid")
    assert _same_as_by_place(old, new)["summary"]["judgments_unchanged"]


# the alignment itself ------------------------------------------------------------------------


def _brute(a: Any, b: Any) -> int:
    """The least edits by the full edit distance over places."""
    n, m = a.shape[1], b.shape[1]
    gone, came = (a != -1).sum(0), (b != -1).sum(0)
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    d[1:, 0] = np.cumsum(gone)
    d[0, 1:] = np.cumsum(came)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            pair = int((a[:, i - 1] != b[:, j - 1]).sum())
            d[i, j] = min(d[i - 1, j - 1] + pair, d[i - 1, j] + gone[i - 1], d[i, j - 1] + came[j - 1])
    return int(d[n, m])


@pytest.mark.parametrize("seed", range(4))
def test_the_distance_is_the_least_edits(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        keys, n = rng.randint(1, 5), rng.randint(0, 9)
        a = np.array([[rng.choice([-1, 0, 1, 2]) for _ in range(n)] for _ in range(keys)], dtype=np.int32)
        a = a.reshape(keys, n)
        places = [a[:, k] for k in range(n)]
        for _ in range(rng.randint(0, 3)):  # places removed, inserted, an answer changed
            what = rng.random()
            if what < 0.4 and places:
                del places[rng.randrange(len(places))]
            elif what < 0.8:
                places.insert(rng.randint(0, len(places)), np.array([rng.choice([-1, 0, 1]) for _ in range(keys)]))
            elif places:
                k = rng.randrange(len(places))
                places[k] = places[k].copy()
                places[k][rng.randrange(keys)] = 5
        b = np.stack(places, 1).astype(np.int32) if places else np.zeros((keys, 0), dtype=np.int32)
        found = align._distance(np, a, b)
        assert found is not None
        cost, pairs = found
        assert cost == _brute(a, b)
        assert all(p[0] < q[0] and p[1] < q[1] for p, q in itertools.pairwise(pairs))
        olds, news = {k for k, _ in pairs}, {j for _, j in pairs}
        again = sum(int((a[:, k] != b[:, j]).sum()) for k, j in pairs)
        again += sum(int((a[:, k] != -1).sum()) for k in range(n) if k not in olds)
        again += sum(int((b[:, j] != -1).sum()) for j in range(b.shape[1]) if j not in news)
        assert again == cost


def _view(answers: list[list[Any]], rater: Any = None) -> Judgments:
    """A view of answers[place][item] (every one by the rater id `rater`, where given)."""
    same = {"format": "t", "dataset": "d", "question": "q", "option": "", "file": "f", "line": None, "pointer": ""}
    same |= {"role": "individual", "rater_kind": "person"}

    def batches() -> Any:
        for start in range(0, len(answers), 1000):
            rows = answers[start : start + 1000]
            raters = [p for p, row in enumerate(rows, start) for _ in row]
            columns = {
                "item": [k for row in rows for k in range(len(row))],
                "rater": raters if rater is None else [rater] * len(raters),
                "value": [v for row in rows for v in row],
            }
            yield Batch(same, columns)

    return Judgments("t", "d", batches=batches)


def test_thirty_thousand_places() -> None:
    old = np.random.default_rng(0).integers(0, 100, size=(30_000, 10)).tolist()
    new = old[:5] + old[6:20_000] + [[7] * 10] + old[20_000:]
    new[25_000] = [*new[25_000][:-1], 101]  # and one answer changed
    found = align.find(_view(old), _view(new))
    assert found is not None
    assert found.removed == [5] and found.added == [19_999] and found.edits[1] == 10 + 10 + 1
    assert found.said() == "old 5 removed; old 6..19999 -> new 5..19998; new 19999 added"


def test_what_is_not_aligned() -> None:
    rows = [[1, 2], [3, 4], [5, 6]]
    assert align.find(_view(rows), _view(rows)) is None  # nothing changed
    assert align.find(_view(rows), _view(rows[:2])) is None  # the last removed: places are best
    many = [[k, k] for k in range(60)]
    assert align.find(_view(many), _view(many[align.MOST_SHIFT + 1 :])) is None  # beyond the bound
    assert align.find(_view(rows, "w1"), _view(rows)) is None  # a worker id is no place


def test_said() -> None:
    found = align.Alignment((0, None, None, 1, 2, 4, 5), (7, 7), (30, 10))
    assert found.removed == [1, 2] and found.added == [3, 6]
    assert found.said() == "old 1..2 removed; old 3..4 -> new 1..2; new 3 added; old 5..6 -> new 4..5; new 6 added"
    assert found.said(2) == "old 1..2 removed; old 3..4 -> new 1..2; … (3 more)"


# a matching that stops early for an alignment ends where one that does not ends --------------


def _both_ways(old: Path, new: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The diff with the matching by place stopped at its first change, and never stopped: the
    same answer (asserted), returned."""
    stopped: list[bool] = []
    real = compare._Early.__call__

    def asked(self: Any) -> bool:
        stopped.append(real(self))
        return stopped[-1]

    monkeypatch.setattr(compare._Early, "__call__", asked)
    monkeypatch.setattr(compare, "EARLY", 1)
    monkeypatch.setattr(compare, "EARLY_SHARE", 0.0)
    early = diff(old, new, samples=20, stats="never").to_json()
    assert any(stopped)
    monkeypatch.setattr(compare, "EARLY", 1 << 40)
    assert diff(old, new, samples=20, stats="never").to_json() == early
    return early


def test_stopped_early_and_aligned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = _copies(tmp_path, EXAMPLES / "coggym/valid")
    _edit(new / "data/human_data_ind.json", _participants(lambda a: a.pop(0), 2))
    assert _dataset(_both_ways(old, new, monkeypatch))["alignment"]["said"] == "old 0 removed; old 1..2 -> new 0..1"


def test_stopped_early_and_matched_by_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = _copies(tmp_path, EXAMPLES / "textjudge/valid")
    _edit(new / "data/dataset.json", lambda d: [s.__setitem__(0, 9) for s in _lists(d)])
    found = _both_ways(old, new, monkeypatch)
    assert found == diff(old, new, samples=20, stats="never", align=False).to_json()
    assert _counts(found) == (0, 6, 0) and "alignment" not in _dataset(found)


def _lists(doc: Any) -> list[list[Any]]:
    return [a["individual_human_scores"] for inst in doc["instances"] for a in inst["annotations"].values()]


def test_answers_of_every_shape_are_tabulated() -> None:
    # lists within lists, booleans, NaN: told apart as the matching tells them (an estimate)
    nan = float("nan")
    rows = [[[1, [2]], True, nan, "a"], [[1, [3]], 1, nan, "b"], [[0, [2]], False, 2.0, None]]
    found = align.find(_view(rows), _view(rows[1:]))
    assert found is not None and found.removed == [0] and found.edits == (3 + 4 + 4, 4)  # NaN is NaN; true is not 1
