"""`humanjudge diff` compares CogGym answers by the options they name, not by the places they
store: options reordered under stored answers (a choice's idx, a multi-select row, a ranking's
indices) change what those answers say, and a reorder of the options with the answers mapped to
their new places changes none."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from humanjudge_schema.commands import cli
from humanjudge_schema.diff import compare
from humanjudge_schema.diff.render import text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ORDER = [1, 0, 2]  # agent_goal: Blue box, Red box, Exit (was Red box, Blue box, Exit)


def _versions(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old" / "exp", tmp_path / "new" / "exp"
    shutil.copytree(EXAMPLES / "coggym" / "valid", old)
    shutil.copytree(EXAMPLES / "coggym" / "valid", new)
    return old.parent, new.parent


def _reorder(folder: Path, tag: str, order: list[int], *, remap: bool) -> None:
    """The options of `tag` put in `order` (option k of the new list is option order[k] of the
    old), their texts echoed in the answers: with `remap`, each answer moved to its option's new
    place (the same answers); without, the stored places kept (other answers)."""
    lines = (folder / "trial.jsonl").read_text().splitlines()
    trials = [json.loads(line) for line in lines if line.strip()]
    for trial in trials:
        for q in trial["queries"]:
            if q.get("tag") == tag:
                q["option"] = options = [q["option"][i] for i in order]
    (folder / "trial.jsonl").write_text("".join(json.dumps(t) + "\n" for t in trials))
    place = {was: k for k, was in enumerate(order)} if remap else {k: k for k in order}
    ind = json.loads((folder / "human_data_ind.json").read_text())
    for stimulus in ind.values():
        answers = stimulus.get(tag) if isinstance(stimulus, dict) else None
        for j, answer in enumerate(answers or []):
            if isinstance(answer, dict):  # a choice
                answers[j] = {"idx": place[answer["idx"]], "option_text": options[place[answer["idx"]]]}
            elif answer and isinstance(answer[0], dict):  # a ranking
                answers[j] = [
                    {"idx": place[x["idx"]], "option_text": options[place[x["idx"]]], "rank": x["rank"]} for x in answer
                ]
            elif remap:  # a multi-select row: one 0/1 per option, in the options' order
                answers[j] = [answer[i] for i in order]
    (folder / "human_data_ind.json").write_text(json.dumps(ind, indent=2))
    if remap:  # the stored proportions under the options' new keys, as `humanjudge aggregate` writes them
        mean = json.loads((folder / "human_data_mean.json").read_text())
        for stimulus in mean.values():
            shares = stimulus.get(tag) if isinstance(stimulus, dict) else None
            if isinstance(shares, dict):
                keys = {f"{tag}_{k + 1}": f"{tag}_{place[k] + 1}" for k in place}
                stimulus[tag] = {keys[key]: value for key, value in shares.items()}
        (folder / "human_data_mean.json").write_text(json.dumps(mean, indent=2))


def _diff(old: Path, new: Path, **options: Any) -> dict[str, Any]:
    found: dict[str, Any] = compare.compare(old, new, examples=5, samples=20, **options).to_json()
    return found


def _questions(found: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (ds,) = found["datasets"]
    return {q["question"]: q for q in ds["questions"]}


def _fail_on_changed(old: Path, new: Path) -> int:
    result = CliRunner().invoke(cli, ["diff", str(old), str(new), "--fail-on", "changed", "--stats", "never"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code


@pytest.mark.parametrize("stimuli", ["in order", "reversed"])
def test_options_swapped_under_stored_choices_change_them(tmp_path: Path, stimuli: str) -> None:
    old, new = _versions(tmp_path)
    _reorder(new / "exp", "agent_goal", ORDER, remap=False)
    if stimuli == "reversed":  # the stimuli out of step: matched aside, by their ids
        ind = json.loads((new / "exp" / "human_data_ind.json").read_text())
        meta = {k: ind.pop(k) for k in ("participants_info", "judgment_count")}
        (new / "exp" / "human_data_ind.json").write_text(json.dumps(meta | dict(reversed(ind.items())), indent=2))
    found = _diff(old, new)
    q = _questions(found)["agent_goal"]
    # raters 0 and 1 stored idx 0, Red box before and Blue box now; rater 2's idx 2 is Exit in both
    assert (q["removed"], q["changed"], q["added"]) == (0, 2, 0)
    assert [(e["rater"], e["old"], e["new"], e["pointer"]) for e in q["examples"]] == [
        (0, "Red box", "Blue box", "/trial_1/agent_goal/0"),
        (1, "Red box", "Blue box", "/trial_1/agent_goal/1"),
    ]
    assert found["summary"]["changed"] == 2 and not found["summary"]["judgments_unchanged"]
    assert {k: v["changed"] for k, v in _questions(found).items() if v["changed"]} == {"agent_goal": 2}
    (ds,) = found["datasets"]
    assert any(n.startswith("options changed") and "agent_goal in 1 item (trial_1)" in n for n in ds["notes"])
    assert _diff(old, new, by_item=False) == found  # item by item or row by row, the same answer
    shown = text(compare.compare(old, new, examples=5, samples=20))
    assert "changed item trial_1 rater 0: Red box -> Blue box" in shown
    assert _fail_on_changed(old, new) == 1


def test_options_reordered_under_stored_rows_and_rankings_change_them(tmp_path: Path) -> None:
    old, new = _versions(tmp_path)
    _reorder(new / "exp", "places_visited", [3, 2, 1, 0], remap=False)
    _reorder(new / "exp", "goal_ranking", [2, 1, 0], remap=False)
    found = _diff(old, new, stats="never")
    qs = _questions(found)
    # rows [1,1,0,0] and [0,1,0,0] now check other places; [0,0,0,0] still checks none
    assert qs["places_visited"]["changed"] == 2
    assert [(e["old"], e["new"]) for e in qs["places_visited"]["examples"]] == [
        (["Kitchen", "Garden"], ["Cellar", "Attic"]),
        (["Garden"], ["Attic"]),
    ]
    assert qs["goal_ranking"]["changed"] == 3  # every ranking of the three now orders other options
    assert qs["goal_ranking"]["examples"][0]["old"] == ["Exit", "Key", "Food"]
    assert qs["goal_ranking"]["examples"][0]["new"] == ["Exit", "Food", "Key"]
    assert found["summary"]["changed"] == 5
    assert _fail_on_changed(old, new) == 1


def test_options_reordered_with_their_answers_change_nothing(tmp_path: Path) -> None:
    old, new = _versions(tmp_path)
    _reorder(new / "exp", "agent_goal", ORDER, remap=True)
    _reorder(new / "exp", "places_visited", [3, 2, 1, 0], remap=True)
    _reorder(new / "exp", "goal_ranking", [2, 1, 0], remap=True)
    found = _diff(old, new)
    (ds,) = found["datasets"]
    assert ds["findings_new"] == []  # the new version is valid: every answer and mean moved with its option
    summary = found["summary"]
    assert (summary["removed"], summary["changed"], summary["added"]) == (0, 0, 0)
    assert all(q["examples"] == [] for q in ds["questions"])
    (note,) = [n for n in ds["notes"] if n.startswith("options changed")]
    assert "agent_goal in 1 item" in note and "places_visited" in note and "goal_ranking" in note
    assert _diff(old, new, by_item=False) == found
    assert _fail_on_changed(old, new) == 0


def test_moved_options_show_the_options_and_others_the_stored_values(tmp_path: Path) -> None:
    old, new = _versions(tmp_path)
    _reorder(new / "exp", "agent_goal", ORDER, remap=True)  # rater 2 now chooses Red box: idx 1
    ind = json.loads((new / "exp" / "human_data_ind.json").read_text())
    ind["trial_1"]["agent_goal"][2] = {"idx": 1, "option_text": "Red box"}
    ranking = ind["trial_2"]["goal_ranking"][0]  # Exit, Key, Food becomes Key, Exit, Food
    ranking[0]["rank"], ranking[1]["rank"] = 2, 1
    (new / "exp" / "human_data_ind.json").write_text(json.dumps(ind, indent=2))
    qs = _questions(_diff(old, new, stats="never"))
    # the options moved: the stored places (2 -> 1) would not say what changed
    assert [(e["old"], e["new"]) for e in qs["agent_goal"]["examples"]] == [("Exit", "Red box")]
    # the options stayed: the values as stored, the option indices from first to last
    assert [(e["old"], e["new"]) for e in qs["goal_ranking"]["examples"]] == [([1, 0, 2], [0, 1, 2])]
