"""The Action on a pull request: the job summary opens with what it changes in the judgments,
run end to end on a two-commit repository as the runner runs the step."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests import test_action
from tests.test_action import Runner, commit, git

# the two-commit repository of the Action's own tests
runner = test_action.runner
pull_request = test_action.pull_request

TITLE = "## What this pull request changes in the judgments"


def _first_section(summary: str) -> str:
    assert summary.startswith(TITLE), summary[:300]
    return summary.split("## humanjudge validate")[0]


def test_a_pull_request_that_changes_a_value(pull_request: tuple[Runner, str]) -> None:
    action, base = pull_request
    ws = action.workspace
    path = ws / "exp1" / "human_data_ind.json"
    doc = json.loads(path.read_text())
    doc["trial_1"]["goal_confidence"][1] = 71
    path.write_text(json.dumps(doc, indent=2))
    commit(ws)
    proc = action.validate(HUMANJUDGE_BASE=base)
    section = _first_section(action.summary())
    assert "Judgments: 0 removed, 1 changed, 0 added" in section
    assert "<code>exp1</code>" in section and "changed item trial_1 rater 1: 70 -&gt; 71" in section
    assert "## humanjudge validate" in action.summary()  # the findings follow
    assert proc.returncode == 1  # the stale mean is an error of validation
    failed = action.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF_FAIL_ON="changed")
    assert "::error title=humanjudge diff::diff-fail-on: changed: 1 judgment changed" in failed.stdout


def test_a_pull_request_that_deletes_a_dataset(pull_request: tuple[Runner, str]) -> None:
    action, base = pull_request
    ws = action.workspace
    shutil.rmtree(ws / "exp2")
    commit(ws)
    proc = action.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF_FAIL_ON="removed")
    section = _first_section(action.summary())
    assert "| <code>exp2</code> | coggym | removed |" in section
    assert proc.returncode == 1 and "diff-fail-on: removed:" in proc.stdout
    assert action.validate(HUMANJUDGE_BASE=base).returncode == 0  # without the condition: only informs


def test_a_pull_request_that_changes_nothing_in_the_judgments(pull_request: tuple[Runner, str]) -> None:
    action, base = pull_request
    ws = action.workspace
    path = ws / "textjudge" / "tj.json"
    path.write_text(json.dumps(json.loads(path.read_text()), indent=4))  # formatting only
    commit(ws)
    proc = action.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 0, proc.stdout
    section = _first_section(action.summary())
    assert (
        section.strip().splitlines()[2] == "No judgment or stored aggregate changed (1 dataset changed in other ways)."
    )


def test_a_pull_request_that_touches_no_dataset(pull_request: tuple[Runner, str]) -> None:
    action, base = pull_request
    (action.workspace / "README.md").write_text("more\n")
    commit(action.workspace)
    assert action.validate(HUMANJUDGE_BASE=base).returncode == 0
    assert "No judgment or stored aggregate changed: no dataset file changed." in _first_section(action.summary())


def test_the_diff_input_turns_it_off(pull_request: tuple[Runner, str]) -> None:
    action, base = pull_request
    shutil.rmtree(action.workspace / "exp2")
    commit(action.workspace)
    proc = action.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF="false")
    assert proc.returncode == 0 and TITLE not in action.summary()


def test_a_gate_without_its_diff_is_a_usage_error(pull_request: tuple[Runner, str]) -> None:
    """`diff: false` with diff-fail-on set would pass every pull request the gate is for."""
    action, base = pull_request
    shutil.rmtree(action.workspace / "exp2")
    commit(action.workspace)
    proc = action.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF="false", HUMANJUDGE_DIFF_FAIL_ON="removed")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "the diff-fail-on input needs the diff, which the diff input turns off" in proc.stdout
    (action.workspace / "humanjudge.toml").write_text('[diff]\nfail-on = ["removed"]\n')
    commit(action.workspace)
    git(action.workspace, "commit", "-q", "--allow-empty", "-m", "after")
    base = git(action.workspace, "rev-parse", "HEAD~1")  # the base has the configuration
    proc = action.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF="false")
    assert proc.returncode == 2 and "[tool.humanjudge.diff] fail-on needs the diff" in proc.stdout


def test_a_wrong_diff_fail_on_is_a_usage_error(pull_request: tuple[Runner, str]) -> None:
    action, base = pull_request
    proc = action.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF_FAIL_ON="everything")
    assert proc.returncode == 2 and "diff-fail-on input" in proc.stdout


def test_the_base_is_read_from_git_not_from_the_checkout(pull_request: tuple[Runner, str], tmp_path: Path) -> None:
    action, base = pull_request
    ws = action.workspace
    # the pull request adds attributes asking for a filter when files are checked out: never run
    (ws / ".gitattributes").write_text("*.json filter=evil\n")
    git(ws, "config", "filter.evil.smudge", f"touch {tmp_path / 'ran'}; cat")
    shutil.rmtree(ws / "exp2")
    commit(ws)
    action.validate(HUMANJUDGE_BASE=base)
    assert not (tmp_path / "ran").exists()
    assert "| <code>exp2</code> | coggym | removed |" in _first_section(action.summary())


def test_the_diff_and_the_findings_share_the_summarys_one_mebibyte(tmp_path: Path) -> None:
    from humanjudge_schema.commands.action.review import DIFF_BUDGET
    from humanjudge_schema.commands.action.step import _Report
    from humanjudge_schema.finding import Finding, Severity
    from humanjudge_schema.report.github import SUMMARY_LIMIT
    from humanjudge_schema.validation import Result

    findings = [
        Finding("coggym/mean-value", Severity.ERROR, "x" * 500, f"exp{i}/human_data_mean.json", f"/t{i}")
        for i in range(5000)
    ]
    target = tmp_path / "summary.md"
    target.touch()
    report = _Report(tmp_path, "", "", str(target), None)
    report.opening = f"{TITLE}\n\n" + "a line of the diff\n" * (DIFF_BUDGET // 19)
    report.finish(Result(findings, 5000), 1)
    text = target.read_text()
    assert text.startswith(TITLE) and "## humanjudge validate" in text
    assert len(text.encode()) <= SUMMARY_LIMIT - 32 * 1024


def test_a_diff_that_fails_leaves_validation_standing(
    pull_request: tuple[Runner, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from humanjudge_schema.commands.action import step

    action, base = pull_request
    shutil.rmtree(action.workspace / "exp2")
    commit(action.workspace)

    def broken(*args: object, **kwargs: object) -> tuple[str, list[str]]:
        raise KeyError("a reader's bug")

    monkeypatch.setattr(step, "review", broken)
    env = action.env(HUMANJUDGE_BASE=base)
    assert step.run_step(env) == 0
    text = action.summary()
    assert '**Could not compare:** "a reader\'s bug"\n\n## humanjudge validate' in text
