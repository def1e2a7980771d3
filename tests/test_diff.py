"""`humanjudge diff` on small cases of every kind of change, for each format: the JSON asserted."""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import diff

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _versions(tmp_path: Path, fmt: str) -> tuple[Path, Path]:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(EXAMPLES / fmt / "valid", old / "data")
    shutil.copytree(EXAMPLES / fmt / "valid", new / "data")
    return old, new


def _json(path: Path, change: Callable[[Any], None]) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=1))


def _jsonl_gz(path: Path, change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
    rows = [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode().splitlines() if line]
    path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in change(rows)).encode()))


def _csv(path: Path, change: Callable[[list[dict[str, str]]], list[dict[str, str]]]) -> None:
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(fields or []), lineterminator="\n")
    writer.writeheader()
    writer.writerows(change(rows))
    path.write_text(out.getvalue())


def _run(old: Path, new: Path) -> dict[str, Any]:
    found: dict[str, Any] = diff(old, new, samples=20).to_json()
    return found


def _changed(found: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    (ds,) = [d for d in found["datasets"] if d["status"] != "unchanged" and (name is None or d["dataset"] == name)]
    return ds


def _question(ds: dict[str, Any], name: str) -> dict[str, Any]:
    (q,) = [q for q in ds["questions"] if q["question"] == name]
    return q


def _only_changes(ds: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    return {
        q["question"]: (q["removed"], q["changed"], q["added"])
        for q in ds["questions"]
        if q["removed"] or q["changed"] or q["added"]
    }


# value changed -------------------------------------------------------------------------------


def _line_of_element(path: Path, after: str, array: str, k: int) -> int:
    """The 1-based line of element k of the first `array` key after the line holding `after`,
    in a file written with json.dumps(indent=1) (each element on a line of its own)."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    at = next(i for i in range(start, len(lines)) if f'"{array}": [' in lines[i])
    return at + 1 + k + 1


@pytest.mark.parametrize("in_runs", [False, True])
def test_textjudge_value_changed(tmp_path: Path, in_runs: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if in_runs:  # read a run of instances at a time, as a large file is
        monkeypatch.setattr("humanjudge_schema.formats.textjudge.stream.STREAM_FROM", 0)
    old, new = _versions(tmp_path, "textjudge")
    _json(
        new / "data/dataset.json",
        lambda d: d["instances"][0]["annotations"]["fluency"]["individual_human_scores"].__setitem__(1, 3),
    )
    ds = _changed(_run(old, new))
    assert (ds["dataset"], ds["format"], ds["status"], ds["rater_kind"]) == (
        "data/dataset.json",
        "textjudge",
        "changed",
        "position",
    )
    assert _only_changes(ds) == {"fluency": (0, 1, 0)}
    (e,) = _question(ds, "fluency")["examples"]
    assert (e["kind"], e["item"], e["rater"], e["old"], e["new"]) == ("changed", "s1", 1, 4, 3)
    assert (e["file"], e["pointer"]) == (
        "data/dataset.json",
        "/instances/0/annotations/fluency/individual_human_scores/1",
    )
    assert e["line"] == _line_of_element(new / "data/dataset.json", '"fluency": {', "individual_human_scores", 1)
    assert any("positions" in n for n in ds["notes"])


def test_coggym_value_changed(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "coggym")
    _json(new / "data/human_data_ind.json", lambda d: d["trial_1"]["goal_confidence"].__setitem__(1, 71))
    ds = _changed(_run(old, new))
    assert (ds["dataset"], ds["status"], ds["rater_kind"]) == ("data", "changed", "person")
    assert _only_changes(ds) == {"goal_confidence": (0, 1, 0)}
    (e,) = _question(ds, "goal_confidence")["examples"]
    assert (e["item"], e["rater"], e["old"], e["new"]) == ("trial_1", 1, 70, 71)
    assert (e["file"], e["pointer"]) == ("data/human_data_ind.json", "/trial_1/goal_confidence/1")
    assert e["line"] == _line_of_element(new / "data/human_data_ind.json", '"trial_1": {', "goal_confidence", 1)
    # the stored mean was not recomputed: validation says so, as a finding the change introduces
    assert [f["code"] for f in ds["findings_new"]] == ["coggym/mean-value"]


def test_study1_value_changed(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "study1")
    _jsonl_gz(new / "data/study1_tasks.jsonl.gz", lambda rows: [{**rows[0], "query_answerable": 0.0}, *rows[1:]])
    ds = _changed(_run(old, new))
    assert _only_changes(ds) == {"query_answerable": (0, 1, 0)}
    (e,) = _question(ds, "query_answerable")["examples"]
    assert (e["old"], e["new"], e["file"], e["pointer"], e["line"]) == (
        1.0,
        0.0,
        "data/study1_tasks.jsonl.gz",
        "/0/query_answerable",
        1,
    )


def test_halie_value_changed(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "halie")
    _csv(new / "data/crossword/survey_responses.csv", lambda rows: [{**rows[0], "fluency": "4"}, *rows[1:]])
    ds = _changed(_run(old, new))
    assert ds["dataset"] == "data/crossword"
    assert _only_changes(ds) == {"fluency": (0, 1, 0)}
    (e,) = _question(ds, "fluency")["examples"]
    assert (e["old"], e["new"], e["pointer"], e["line"]) == (3, 4, "/0/fluency", 2)


def test_numbers_compare_by_value(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "coggym")
    _json(new / "data/human_data_ind.json", lambda d: d["trial_1"]["goal_confidence"].__setitem__(1, 70.0))
    found = _run(old, new)
    assert found["summary"]["changed"] == 0 and found["summary"]["judgments_unchanged"]


# rater removed -------------------------------------------------------------------------------


def test_coggym_rater_removed(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "coggym")

    def drop_last(d: Any) -> None:
        d["participants_info"]["count"] = 2
        for key, trial in d.items():
            if key.startswith("trial_"):
                for answers in trial.values():
                    if len(answers) == 3:  # one answer per participant
                        answers.pop()
                    else:  # a multi-slider: one list per label
                        for per_label in answers[0].values():
                            per_label.pop()

    _json(new / "data/human_data_ind.json", drop_last)
    ds = _changed(_run(old, new))
    questions = [q for q in ds["questions"] if q["removed"]]
    assert questions and all(q["listed"]["raters_removed"] == [2] and q["changed"] == 0 for q in questions)
    assert ds["judgments"][0] - ds["judgments"][1] == sum(q["removed"] for q in ds["questions"])
    assert all(e["rater"] == 2 and e["side"] == "old" for q in questions for e in q["examples"])


def test_textjudge_rater_removed(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "textjudge")

    def drop_last(d: Any) -> None:
        for inst in d["instances"]:
            inst["annotations"]["fluency"]["individual_human_scores"].pop()

    _json(new / "data/dataset.json", drop_last)
    ds = _changed(_run(old, new))
    q = _question(ds, "fluency")
    assert (q["changed"], q["added"], q["raters_removed"], q["listed"]["raters_removed"]) == (0, 0, 1, [2])
    assert q["removed"] > 0 and any("positions" in n for n in ds["notes"])


def test_study1_rater_removed(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "study1")
    path = new / "data/study1_tasks.jsonl.gz"
    worker = json.loads(gzip.decompress(path.read_bytes()).decode().splitlines()[0])["worker"]
    _jsonl_gz(path, lambda rows: [r for r in rows if r["worker"] != worker])
    ds = _changed(_run(old, new))
    q = _question(ds, "query_answerable")
    assert worker in q["listed"]["raters_removed"] and q["changed"] == 0 and q["added"] == 0


def test_halie_rater_removed(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "halie")
    path = new / "data/crossword/survey_responses.csv"
    _csv(path, lambda rows: rows[:-1])
    ds = _changed(_run(old, new))
    q = _question(ds, "fluency")
    assert (q["removed"], q["changed"], q["added"], q["raters_removed"]) == (1, 0, 0, 1)
    assert q["examples"][0]["line"] == 3


# item added ----------------------------------------------------------------------------------


def test_textjudge_item_added(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "textjudge")
    _json(new / "data/dataset.json", lambda d: d["instances"].append({**d["instances"][0], "id": "s-new"}))
    ds = _changed(_run(old, new))
    q = _question(ds, "fluency")
    assert (q["removed"], q["changed"], q["added"], q["listed"]["items_added"]) == (0, 0, 3, ["s-new"])
    assert ds["aggregates"]["added"] >= 1 and ds["aggregates_changed"] == 0


def test_coggym_item_added(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "coggym")
    _json(new / "data/human_data_ind.json", lambda d: d.__setitem__("trial_9", d["trial_1"]))
    trials = new / "data/trial.jsonl"
    (first,) = [line for line in trials.read_text().splitlines() if '"trial_1"' in line]
    trials.write_text(trials.read_text() + first.replace('"trial_1"', '"trial_9"') + "\n")
    ds = _changed(_run(old, new))
    q = _question(ds, "goal_confidence")
    assert (q["removed"], q["changed"], q["added"], q["listed"]["items_added"]) == (0, 0, 3, ["trial_9"])


def test_study1_item_added(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "study1")
    _jsonl_gz(
        new / "data/study1_tasks.jsonl.gz",
        lambda rows: [*rows, {**rows[0], "topic": "2024-99999", "response": "r-new"}],
    )
    ds = _changed(_run(old, new))
    q = _question(ds, "query_answerable")
    assert (q["removed"], q["changed"], q["added"], q["listed"]["items_added"]) == (0, 0, 1, ["2024-99999"])


def test_halie_item_added(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "halie")
    _csv(
        new / "data/crossword/survey_responses.csv",
        lambda rows: [
            *rows,
            {**rows[0], "session_id": "99_0a1b2c3d4e5f60718293a4b5c6d7e8f9_text-davinci", "prompt": "99"},
        ],
    )
    ds = _changed(_run(old, new))
    q = _question(ds, "fluency")
    assert (q["removed"], q["changed"], q["added"], q["items_added"]) == (0, 0, 1, 1)


# question renamed ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "before", "after"), [("textjudge", "fluency", "fluidity"), ("coggym", "goal_confidence", "goal_certainty")]
)
def test_question_renamed(tmp_path: Path, fmt: str, before: str, after: str) -> None:
    # A question's name is the data's in these formats; study 1 and HALIE fix theirs (a renamed
    # column there is a schema error, not a question of the dataset).
    old, new = _versions(tmp_path, fmt)
    for f in (new / "data").rglob("*"):
        if f.is_file() and f.suffix in (".json", ".jsonl"):
            f.write_text(f.read_text().replace(before, after))
    ds = _changed(_run(old, new))
    q = _question(ds, after)
    assert (q["renamed_from"], q["removed"], q["changed"], q["added"]) == (before, 0, 0, 0)
    assert before not in [x["question"] for x in ds["questions"]]


# dataset deleted -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["textjudge", "coggym", "study1", "halie"])
def test_dataset_deleted(tmp_path: Path, fmt: str) -> None:
    old, new = _versions(tmp_path, fmt)
    victim = {"textjudge": "data/dataset.json", "halie": "data/crossword"}.get(fmt, "data")
    target = new / victim
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    found = _run(old, new)
    (ds,) = [d for d in found["datasets"] if d["status"] == "removed"]
    assert ds["dataset"] == victim and ds["format"] == fmt
    assert sum(q["removed"] for q in ds["questions"]) == ds["judgments"][0] > 0
    assert all(q["added"] == q["changed"] == 0 for q in ds["questions"])
    assert found["summary"]["datasets"]["removed"] == 1 and found["datasets"][0] is not None
    assert found["datasets"][0]["status"] == "removed"  # removals first


# aggregate edited so it no longer matches -----------------------------------------------------


def test_textjudge_aggregate_no_longer_matches(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "textjudge")
    _json(
        new / "data/dataset.json", lambda d: d["instances"][0]["annotations"]["fluency"].__setitem__("mean_human", 1.0)
    )
    found = _run(old, new)
    ds = _changed(found)
    assert _only_changes(ds) == {}
    assert ds["aggregates_changed"] == 1 and ds["aggregates"]["not_matching"] == 1
    (a,) = ds["aggregates"]["examples"]
    assert (a["question"], a["item"], a["aggregate"], a["old"], a["new"], a["matches"]) == (
        "fluency",
        "s1",
        "mean_human",
        4.67,
        1.0,
        False,
    )
    assert a["pointer"] == "/instances/0/annotations/fluency/mean_human"
    assert [f["code"] for f in ds["findings_new"]] == ["textjudge/mean-value"]
    assert found["summary"]["judgments_unchanged"] is False


def test_coggym_aggregate_no_longer_matches(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "coggym")
    _json(new / "data/human_data_mean.json", lambda d: d["trial_1"].__setitem__("goal_confidence", 10))
    ds = _changed(_run(old, new))
    assert ds["aggregates_changed"] == 1 and ds["aggregates"]["not_matching"] == 1
    (a,) = ds["aggregates"]["examples"]
    assert (a["question"], a["item"], a["old"], a["new"], a["matches"]) == (
        "goal_confidence",
        "trial_1",
        68.33,
        10,
        False,
    )
    assert a["file"] == "data/human_data_mean.json" and a["pointer"] == "/trial_1/goal_confidence"


def test_an_aggregate_that_still_matches(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "textjudge")

    def both(d: Any) -> None:
        flu = d["instances"][0]["annotations"]["fluency"]
        flu["individual_human_scores"] = [5, 5, 5]
        flu["mean_human"] = 5

    _json(new / "data/dataset.json", both)
    ds = _changed(_run(old, new))
    (a,) = ds["aggregates"]["examples"]
    assert (a["aggregate"], a["matches"]) == ("mean_human", True)
    assert ds["findings_new"] == []


# file moved ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["textjudge", "coggym", "study1", "halie"])
def test_moved(tmp_path: Path, fmt: str) -> None:
    old, new = _versions(tmp_path, fmt)
    before = {"textjudge": "data/dataset.json", "halie": "data/crossword"}.get(fmt, "data")
    after = {"textjudge": "data/renamed.json", "halie": "data/crossword-2"}.get(fmt, "moved")
    (new / before).rename(new / after)
    found = _run(old, new)
    moved = [d for d in found["datasets"] if d["moved_from"]]
    assert [(d["dataset"], d["moved_from"], d["status"]) for d in moved] == [(after, before, "unchanged")]
    assert found["summary"]["datasets"]["removed"] == found["summary"]["datasets"]["added"] == 0
    assert found["summary"]["judgments_unchanged"]


def test_moved_and_edited_is_paired_by_name(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "textjudge")
    (new / "sub").mkdir()
    (new / "data/dataset.json").rename(new / "sub/dataset.json")
    _json(
        new / "sub/dataset.json",
        lambda d: d["instances"][0]["annotations"]["fluency"]["individual_human_scores"].__setitem__(1, 3),
    )
    ds = _changed(_run(old, new))
    assert (ds["dataset"], ds["moved_from"]) == ("sub/dataset.json", "data/dataset.json")
    assert _only_changes(ds) == {"fluency": (0, 1, 0)} and ds["findings_fixed"] == []
    # the mean was not recomputed; the finding is of the new path, and new
    assert [(f["code"], f["file"]) for f in ds["findings_new"]] == [("textjudge/mean-value", "sub/dataset.json")]


def test_order_removed_changed_added(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for name in ("a", "b"):
        shutil.copytree(EXAMPLES / "textjudge/valid", old / name)
    shutil.copytree(EXAMPLES / "textjudge/valid", new / "b")
    shutil.copytree(EXAMPLES / "coggym/valid", new / "c")
    _json(
        new / "b/dataset.json",
        lambda d: d["instances"][0]["annotations"]["fluency"]["individual_human_scores"].__setitem__(1, 3),
    )
    found = _run(old, new)
    assert [(d["dataset"], d["status"]) for d in found["datasets"]] == [
        ("a/dataset.json", "removed"),
        ("b/dataset.json", "changed"),
        ("c", "added"),
    ]
    (q,) = [q for q in found["datasets"][1]["questions"] if q["examples"]]
    assert [e["kind"] for e in q["examples"]] == ["changed"]


def test_examples_bounded_and_ordered(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "textjudge")

    def many(d: Any) -> None:
        d["instances"][0]["annotations"]["fluency"]["individual_human_scores"] = [1, 2, 3]
        d["instances"][1]["annotations"]["fluency"]["individual_human_scores"].pop()

    _json(new / "data/dataset.json", many)
    found = diff(old, new, examples=2, samples=10).to_json()
    q = _question(_changed(found), "fluency")
    assert (q["removed"], q["changed"]) == (1, 3)
    assert [e["kind"] for e in q["examples"]] == ["removed", "changed", "changed"]


def test_the_two_files_of_one_dataset(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    shutil.copy(EXAMPLES / "textjudge/valid/dataset.json", a)
    shutil.copy(EXAMPLES / "textjudge/valid/dataset.json", b)
    _json(b, lambda d: d["instances"][0]["annotations"]["fluency"]["individual_human_scores"].__setitem__(1, 3))
    found = diff(a, b, samples=10).to_json()
    assert found["summary"]["changed"] == 1 and found["summary"]["datasets"]["changed"] == 1


def test_values_compare_by_meaning() -> None:
    from humanjudge_schema.diff.match import same
    from humanjudge_schema.diff.model import plain

    nan = float("nan")
    assert same(1, 1.0) and same([1, 2.0], [1.0, 2]) and same(nan, float("nan")) and same([nan], [nan])
    assert not same(True, 1) and not same("1", 1) and not same([1, 2], [2, 1]) and not same(1, 2)
    assert plain([nan, 1]) == ["nan", 1]


def test_coggym_a_participant_removed_from_the_middle_is_said_to_shift_the_others(tmp_path: Path) -> None:
    # matched by place only (align=False): test_diff_align.py has the alignment
    old, new = _versions(tmp_path, "coggym")

    def drop_first(d: Any) -> None:
        d["participants_info"]["count"] = 2
        for key, trial in d.items():
            if key.startswith("trial_"):
                for answers in trial.values():
                    if len(answers) == 3:
                        answers.pop(0)
                    else:
                        for per_label in answers[0].values():
                            per_label.pop(0)

    _json(new / "data/human_data_ind.json", drop_first)
    ds = _changed(diff(old, new, samples=20, align=False).to_json())
    assert ds["rater_kind"] == "person" and "alignment" not in ds
    q = _question(ds, "goal_confidence")
    # [95, 70, 40] -> [70, 40]: places 0 and 1 changed, place 2 removed
    assert (q["removed"], q["changed"], q["listed"]["raters_removed"]) == (1, 2, [2])
    assert any("move up one place" in n for n in ds["notes"])


def test_halie_an_aggregate_edited_is_reported_unchecked(tmp_path: Path) -> None:
    # HALIE stores aggregates (a block's mean rating) that no rule recomputes: whether the new
    # one matches is not known, and says so (null), rather than passing for checked.
    old, new = _versions(tmp_path, "halie")
    _csv(new / "data/metaphor/event_blocks.csv", lambda rows: [{**rows[0], "apt": "0.0"}, *rows[1:]])
    ds = _changed(_run(old, new))
    assert _only_changes(ds) == {} and ds["aggregates_changed"] == 1
    (a,) = ds["aggregates"]["examples"]
    assert (a["question"], a["old"], a["new"], a["matches"], a["line"]) == ("apt", 1.0, 0.0, None, 2)


def test_renamed_and_edited_is_paired_by_its_items(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "textjudge")
    (new / "data/dataset.json").rename(new / "data/summeval.json")
    _json(
        new / "data/summeval.json",
        lambda d: d["instances"][0]["annotations"]["fluency"]["individual_human_scores"].__setitem__(1, 3),
    )
    found = _run(old, new)
    ds = _changed(found)
    assert (ds["dataset"], ds["moved_from"]) == ("data/summeval.json", "data/dataset.json")
    assert _only_changes(ds) == {"fluency": (0, 1, 0)}
    assert found["summary"]["datasets"] == {"removed": 0, "changed": 1, "added": 0, "unchanged": 0, "moved": 1}


def test_an_unrelated_dataset_is_not_taken_for_a_moved_one(tmp_path: Path) -> None:
    old, new = _versions(tmp_path, "textjudge")
    (new / "data/dataset.json").unlink()
    shutil.copy(old / "data/dataset.json", new / "data/other.json")
    _json(new / "data/other.json", lambda d: [i.__setitem__("id", f"x-{i['id']}") for i in d["instances"]])
    found = _run(old, new)
    assert [(d["dataset"], d["status"]) for d in found["datasets"]] == [
        ("data/dataset.json", "removed"),
        ("data/other.json", "added"),
    ]


def test_intervals_that_differ_in_their_last_bits_overlap() -> None:
    from humanjudge_schema.diff.figures import overlap

    assert overlap([-0.5000000000000004, -0.5000000000000004], [-0.5, -0.5])
    assert overlap([0.1, 0.2], [0.2, 0.3])
    assert not overlap([0.1, 0.2], [0.2001, 0.3])
    assert overlap(None, [0.0, 1.0])
