"""A green check cannot be forged: a pull request (or a staged change, for the pre-commit hook)
that breaks, empties, disguises or replaces a dataset file is checked as the dataset it was.

The pull-request cases run the Action's validate step exactly as action.yml runs it (bash, the
runner's files simulated, tests/test_action.py) on a two-commit repository: the base with two
CogGym experiments and a TextJudge dataset, and the pull request's commit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from . import test_action
from .test_action import Runner, commit, git

runner, pull_request = test_action.runner, test_action.pull_request  # the fixtures, shared

TJ = "textjudge/tj.json"


def _codes(proc: subprocess.CompletedProcess[str]) -> dict[str, set[str]]:
    """The codes of the annotations the step printed, by file."""
    out: dict[str, set[str]] = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"::(?:error|warning) file=([^,]+),.*title=([^:]+)::", line)
        if m:
            out.setdefault(m.group(1), set()).add(m.group(2).split(" ")[0])
    return out


def _broken_dataset(ws: Path) -> str:
    """The TextJudge dataset with one schema error (expert_annotator is "true" or "false")."""
    text = (ws / TJ).read_text()
    assert '"expert_annotator": "true"' in text
    return text.replace('"expert_annotator": "true"', '"expert_annotator": 7')


# --- a TextJudge dataset the pull request breaks is still checked as one -------------------------


@pytest.mark.parametrize(
    ("case", "content", "code"),
    [
        ("truncated", '{"task":', "parse/invalid-json"),
        ("emptied", "", "parse/empty"),
        ("an array", "[]\n", "schema/type"),
    ],
)
def test_a_dataset_file_that_no_longer_looks_like_one_is_checked(
    pull_request: tuple[Runner, str], case: str, content: str, code: str
) -> None:
    runner, base = pull_request
    (runner.workspace / TJ).write_text(content)
    commit(runner.workspace)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert code in _codes(proc)[TJ]
    assert "in 1 file.**" in runner.summary()


def test_escaped_keys_do_not_hide_a_dataset(pull_request: tuple[Runner, str]) -> None:
    """`"\\u0069nstances"` is `"instances"` to every JSON reader."""
    runner, base = pull_request
    text = _broken_dataset(runner.workspace)
    for key in ("annotations", "instances", "dataset_url", "expert_annotator"):
        escaped = "".join(f"\\u{ord(c):04x}" for c in key[:2]) + key[2:]
        text = text.replace(f'"{key}":', f'"{escaped}":')
    assert '"instances"' not in text
    (runner.workspace / TJ).write_text(text)
    commit(runner.workspace)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert _codes(proc)[TJ] == {"schema/enum"}


def test_a_long_first_value_does_not_hide_a_dataset(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    text = _broken_dataset(runner.workspace)
    text = text.replace("{", '{"notes": "' + "x" * 100_000 + '", ', 1)
    (runner.workspace / TJ).write_text(text)
    commit(runner.workspace)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "schema/enum" in _codes(proc)[TJ]


# --- a file that becomes a folder or a link is a finding, and its dataset is checked -------------


def _replace(ws: Path, how: str) -> None:
    trial = ws / "exp1" / "trial.jsonl"
    trial.unlink()
    if how == "folder":
        trial.mkdir()
        (trial / "x.jsonl").write_text("{}\n")
    elif how == "link to a folder":
        trial.symlink_to("../exp2")
    elif how == "link to /dev/null":
        trial.symlink_to("/dev/null")
    else:  # a link to the other experiment's valid file
        trial.symlink_to("../exp2/trial.jsonl")


@pytest.mark.parametrize("how", ["folder", "link to a folder", "link to /dev/null", "link to a valid file"])
def test_a_dataset_file_replaced_by_a_folder_or_a_link_is_an_error(pull_request: tuple[Runner, str], how: str) -> None:
    runner, base = pull_request
    _replace(runner.workspace, how)
    commit(runner.workspace)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    codes = _codes(proc)
    assert "dataset/not-a-file" in codes["exp1/trial.jsonl"], codes
    assert "in 5 files.**" in runner.summary()  # the experiment was checked whole


def test_a_dataset_folder_replaced_by_a_link_is_removed_not_followed(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    ws = runner.workspace
    shutil.rmtree(ws / "exp1")
    (ws / "exp1").symlink_to("exp2")
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF_FAIL_ON="removed,changed")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "dataset/not-a-file" in _codes(proc)["exp1"]
    summary = runner.summary()
    assert "No judgment or stored aggregate changed" not in summary
    assert re.search(r"removed.*exp1|exp1.*removed", summary), summary[:3000]
    assert "diff-fail-on: " in proc.stdout


# --- gates fail closed -----------------------------------------------------------------------


def test_a_diff_that_cannot_be_computed_fails_a_gate(
    pull_request: tuple[Runner, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from humanjudge_schema.commands.action import step

    runner, base = pull_request
    shutil.rmtree(runner.workspace / "exp2")
    commit(runner.workspace)

    def broken(*args: object, **kwargs: object) -> tuple[str, list[str]]:
        raise OSError("the listing failed")

    monkeypatch.setattr(step, "review", broken)
    assert step.run_step(runner.env(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF_FAIL_ON="removed")) == 1
    summary = runner.summary()
    assert "**Could not compare:** the listing failed" in summary


def test_a_folder_named_like_a_pathspec_does_not_open_the_gate(pull_request: tuple[Runner, str]) -> None:
    """A dataset folder named `:!x` once made git's listing fail, and the failure passed the gate."""
    runner, base = pull_request
    ws = runner.workspace
    shutil.copytree(ws / "exp1", ws / ":!x")
    commit(ws)
    base = git(ws, "rev-parse", "HEAD")
    shutil.rmtree(ws / ":!x")
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF_FAIL_ON="removed")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "diff-fail-on: " in proc.stdout


# --- the pre-commit hook: the staged version against HEAD ------------------------------------


def _hook_entry() -> list[str]:
    import shlex

    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((test_action.ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = (h for h in hooks if h["id"] == "humanjudge")
    entry = shlex.split(hook["entry"])
    assert entry[0] == "humanjudge"
    return [sys.executable, "-m", "humanjudge_schema", *entry[1:]]


@pytest.mark.parametrize("how", ["emptied", "link"])
def test_the_hook_checks_a_staged_file_as_what_it_was(runner: Runner, how: str) -> None:
    ws = runner.workspace
    git(ws, "init", "-q")
    shutil.copytree(test_action.EXAMPLES / "valid", ws / "exp1")
    (ws / "textjudge").mkdir()
    shutil.copy(test_action.CASES / "textjudge" / "valid" / "schema-all-categories" / "dataset.json", ws / TJ)
    commit(ws)
    if how == "emptied":
        (ws / TJ).write_text("")
        staged, code, where = TJ, "parse/empty", TJ
    else:
        (ws / "exp1" / "trial.jsonl").unlink()
        (ws / "exp1" / "trial.jsonl").symlink_to("/dev/null")
        staged, code, where = "exp1/trial.jsonl", "dataset/not-a-file", "exp1/trial.jsonl"
    git(ws, "add", "-A")
    proc = subprocess.run([*_hook_entry(), staged], cwd=ws, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(rf"^{re.escape(where)}:.* error {re.escape(code)} ", proc.stdout, re.M), proc.stdout
    # without --base the same staged file passes unseen: what the option is for
    plain = [a for a in _hook_entry() if a not in ("--base", "HEAD")]
    proc = subprocess.run([*plain, staged], cwd=ws, capture_output=True, text=True, timeout=300)
    assert proc.returncode == (0 if how == "emptied" else 1)


def test_base_names_a_commit(runner: Runner) -> None:
    ws = runner.workspace
    git(ws, "init", "-q")
    (ws / "x.json").write_text("{}\n")
    commit(ws)
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "validate", "--skip-unknown", "--base", "nosuch", "x.json"],
        cwd=ws,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and proc.stderr.strip() == "humanjudge: --base nosuch: not a commit of this repository"
    assert "Traceback" not in proc.stderr


def test_a_projects_own_config_json_and_labels_txt_are_no_dataset_files(runner: Runner) -> None:
    """config.json (CogGym's) and labels.txt (a shipped declaration's) claim no folder by their
    names: in the base commit, they were dataset files only if they held what such a file holds."""
    ws = runner.workspace
    git(ws, "init", "-q")
    (ws / "config.json").write_text('{"port": 8080}\n')
    (ws / "labels.txt").write_text("apple\nbanana\n")
    shutil.copytree(test_action.EXAMPLES / "valid", ws / "exp1")
    commit(ws)
    (ws / "config.json").write_text('{"port": 8081}\n')
    (ws / "labels.txt").write_text("apple\ncherry\n")
    (ws / "exp1" / "config.json").write_text("")  # an experiment's config, emptied: still checked
    command = [sys.executable, "-m", "humanjudge_schema", "validate", "--skip-unknown", "--base", "HEAD"]
    proc = subprocess.run(
        [*command, "config.json", "labels.txt", "exp1/config.json"], cwd=ws, capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    files = {line.split(":", 1)[0] for line in proc.stdout.splitlines() if " error " in line}
    assert files == {"exp1/config.json"}, proc.stdout


# --- the job summary and the writers --------------------------------------------------------


def test_a_cut_never_leaves_a_block_open() -> None:
    """The diff's section, cut inside its <details><pre>, once folded the validation section
    and every finding into the collapsed block."""
    from humanjudge_schema.report.github import clip

    diff = "## What this changes\n\n<details><summary>a</summary>\n\n<pre>\n" + "a line\n" * 10_000
    diff += "</pre>\n\n</details>\n"
    cut = clip(diff, 4096, "the diff")
    assert len(cut.encode()) <= 4096
    before_note = cut.rsplit("*", 3)[0]
    assert before_note.count("<pre>") == before_note.count("</pre>") == 1
    assert before_note.count("<details>") == before_note.count("</details>") == 1
    fenced = "<details open><summary>b</summary>\n\n````diff\n" + "+x\n" * 10_000 + "````\n\n</details>\n"
    cut = clip(fenced, 4096, "the notes")
    lines = cut.split("\n")
    assert lines.count("````diff") == 1 and lines.count("````") == 1 and cut.count("</details>") == 1


def test_aggregate_never_replaces_an_existing_file_without_force(tmp_path: Path) -> None:
    source = test_action.CASES / "textjudge" / "valid" / "schema-all-categories" / "dataset.json"
    dataset = tmp_path / "dataset.json"
    shutil.copy(source, dataset)
    target = tmp_path / "out.json"
    target.write_text("mine\n")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "humanjudge_schema", "aggregate", str(dataset), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    proc = run("-o", str(target))
    assert proc.returncode == 2 and proc.stderr == f"humanjudge: {target} exists: use --force to overwrite it\n"
    assert target.read_text() == "mine\n"
    proc = run("-o", str(target), "--force")
    assert proc.returncode == 0, proc.stderr
    assert target.read_bytes() == dataset.read_bytes()  # nothing to correct: the same bytes


def test_a_link_out_of_the_workspace_is_never_read_into_the_report(
    pull_request: tuple[Runner, str], tmp_path: Path
) -> None:
    """A dataset file replaced by a link to a file outside the repository: nothing of that file
    reaches the annotations, the summary or the uploaded report."""
    runner, base = pull_request
    ws = runner.workspace
    outside = tmp_path / "private.json"
    outside.write_text((ws / TJ).read_text().replace('"fluency"', '"PRIVATE_MARKER"'))
    (ws / TJ).unlink()
    (ws / TJ).symlink_to(outside)
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_REPORT="report.html")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "dataset/not-a-file" in _codes(proc)[TJ]
    assert runner.outputs()["report"] == "report.html"
    seen = proc.stdout + proc.stderr + runner.summary() + (ws / "report.html").read_text()
    assert "PRIVATE_MARKER" not in seen and str(outside) not in seen


def test_what_a_file_was_is_read_past_a_long_first_value(runner: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    from humanjudge_schema import history

    ws = runner.workspace
    git(ws, "init", "-q")
    (ws / "textjudge").mkdir()
    source = test_action.CASES / "textjudge" / "valid" / "schema-all-categories" / "dataset.json"
    (ws / TJ).write_text(source.read_text().replace("{", '{"notes": "' + "x" * 5000 + '", ', 1))
    (ws / "other.json").write_text('{"meta": {"instances": 1}}\n')
    commit(ws)
    monkeypatch.setattr(history, "HEAD_BYTES", 1024)
    top = history.toplevel(ws)
    assert top is not None
    assert history.formats_at(top, "HEAD", [TJ, "other.json", "exp1/trial.jsonl"]) == {TJ: "textjudge"}


@pytest.mark.parametrize("depth", [256, 600, 1000])
def test_a_value_nested_past_the_schema_engines_reach_is_a_finding(tmp_path: Path, depth: int) -> None:
    """The schema engine hands an error's value over only up to 255 levels deep: past that the
    check ended in an internal error (exit 2) instead of a finding."""
    data = json.loads(
        (test_action.CASES / "textjudge" / "valid" / "schema-all-categories" / "dataset.json").read_text()
    )
    data["annotations"][0]["worst"] = "DEEP"
    text = json.dumps(data).replace('"DEEP"', "[" * depth + "1" + "]" * depth)
    (tmp_path / "dataset.json").write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "validate", "--format", "json", str(tmp_path / "dataset.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    codes = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert codes == {"schema/invalid"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("what", ["fifo", "/dev/zero"])
def test_the_diffs_pairing_reads_no_pipe_or_device(tmp_path: Path, what: str) -> None:
    """A dataset that moved is paired by its files' bytes: a FIFO or a link to /dev/zero among
    them was read forever."""
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(test_action.EXAMPLES / "valid", old / "exp1")
    shutil.copytree(test_action.EXAMPLES / "valid", new / "exp2")
    trial = new / "exp2" / "trial.jsonl"
    trial.unlink()
    if what == "fifo":
        os.mkfifo(trial)
    else:
        trial.symlink_to("/dev/zero")
    command = [sys.executable, "-m", "humanjudge_schema", "diff", "--format", "json", str(old), str(new)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert {d["status"] for d in json.loads(proc.stdout)["datasets"]} <= {"removed", "added", "changed"}


def test_diff_git_takes_a_folder_named_like_a_pathspec_literally(runner: Runner) -> None:
    """`:!x` given to git as a pathspec excluded x and listed everything else."""
    ws = runner.workspace
    git(ws, "init", "-q")
    shutil.copytree(test_action.EXAMPLES / "valid", ws / ":!x")
    shutil.copytree(test_action.EXAMPLES / "valid", ws / "x")
    commit(ws)
    shutil.rmtree(ws / ":!x")
    command = [sys.executable, "-m", "humanjudge_schema", "diff", "--format", "json", "--git", "HEAD", ":!x"]
    proc = subprocess.run(command, cwd=ws, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)["datasets"]
    assert [(d["dataset"], d["status"]) for d in found] == [(":!x", "removed")]


def test_a_link_above_the_working_folder_is_not_the_datas(runner: Runner, tmp_path: Path) -> None:
    """A repository reached through a linked folder (a home folder on another disk), its files
    named by absolute paths: only links below the working folder are the data's."""
    ws = runner.workspace
    git(ws, "init", "-q")
    (ws / "textjudge").mkdir()
    shutil.copy(test_action.CASES / "textjudge" / "valid" / "schema-all-categories" / "dataset.json", ws / TJ)
    commit(ws)
    alias = tmp_path / "alias"
    alias.symlink_to(ws)
    command = [sys.executable, "-m", "humanjudge_schema", "validate", "--base", "HEAD", str(alias / TJ)]
    proc = subprocess.run(command, cwd=ws, capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "No problems in 1 file.\n"), proc.stdout + proc.stderr
