"""The CogGym model reads every intact part of a record that broke its schema, and the format's
"must" about the human data's metadata is an error unless a project lowers it."""

from __future__ import annotations

import shutil
from pathlib import Path

from humanjudge_schema import validate
from humanjudge_schema.config import Config
from humanjudge_schema.engine import Context
from humanjudge_schema.formats.coggym import model as coggym
from humanjudge_schema.formats.coggym import parts
from humanjudge_schema.kinds import find_units

from .conftest import CASES

INVALID = CASES / "coggym" / "invalid"


def _experiment(folder: Path) -> coggym.Experiment:
    (unit,) = find_units([folder], "coggym")
    return coggym.load_experiment(unit, Context(Config()))


def test_a_query_with_a_misspelt_key_keeps_its_tag_and_type() -> None:
    exp = _experiment(INVALID / "intact-query-tag")
    goal = exp.queries("trial_1")["goal"]
    assert goal["type"] == "multi-choice" and "option" not in goal
    # the schema's words name the required member that is absent: rules that need it skip
    assert "option" in parts.broken_of(goal)
    assert exp.tags_complete("trial_1") and set(exp.queries("trial_1")) == {"goal", "confidence"}
    # an intact record is handed over as read, not copied
    assert type(exp.trials["trial_2"][1]) is dict


def test_a_broken_value_is_never_handed_to_a_rule() -> None:
    exp = _experiment(INVALID / "intact-mean-value")
    goal = exp.mean_data["trial_1"]["goal"]
    assert goal == {"goal_3": 0.5} and parts.broken_of(goal) == {"goal_1"}
    assert parts.keys_of(goal) == ["goal_3", "goal_1"]  # the broken member is still a key
    exp = _experiment(INVALID / "intact-ind-stimulus")
    assert "goal" not in exp.ind_data["trial_1"]  # one broken answer: the array is left to counting
    counted = {(sid, tag): len(r) for sid, tag, _, r in exp.response_lists()}
    assert counted[("trial_1", "goal")] == 2 and counted[("trial_2", "confidence")] == 3


def test_a_tag_that_cannot_be_read_leaves_the_trial_s_tags_incomplete() -> None:
    exp = _experiment(INVALID / "not-checked-judgment-count")
    assert not exp.tags_complete("trial_2") and exp.queries("trial_2") == {}
    assert exp.ratings.unread == ["trial_2/confidence"]


def _findings(folder: Path) -> list[tuple[str, str, str]]:
    return [(f.code, f.severity.value, f.pointer) for f in validate([folder], cwd=str(folder)).findings]


def test_metadata_missing_is_an_error_a_project_can_lower(tmp_path: Path) -> None:
    experiment = tmp_path / "exp1"
    shutil.copytree(INVALID / "metadata-missing", experiment)
    (experiment / "expected.json").unlink()
    assert _findings(experiment) == [("coggym/metadata-missing", "error", "")]
    (experiment / "humanjudge.toml").write_text('[severity]\n"coggym/metadata-missing" = "warning"\n')
    assert _findings(experiment) == [("coggym/metadata-missing", "warning", "")]
