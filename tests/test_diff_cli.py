"""`humanjudge diff` as a command (exit codes, --fail-on and its configuration, --git), its
properties on generated datasets, and a real CogGym experiment."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from humanjudge_schema import diff
from humanjudge_schema.commands import cli
from tests.conftest import corpus

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args: str, cwd: Path | None = None) -> Any:
    import os

    before = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, ["diff", *args], catch_exceptions=False)
    finally:
        os.chdir(before)


def _textjudge(path: Path, scores: list[list[int]]) -> None:
    doc = json.loads((EXAMPLES / "textjudge/valid/dataset.json").read_text())
    base = doc["instances"][0]
    doc["instances"] = [
        {
            "id": f"i{k}",
            "instance": base["instance"],
            "annotations": {"fluency": {"individual_human_scores": s}},
        }
        for k, s in enumerate(scores)
    ]
    doc["annotations"] = [a for a in doc["annotations"] if a["metric"] == "fluency"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def _two(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(EXAMPLES / "textjudge/valid", old)
    shutil.copytree(EXAMPLES / "textjudge/valid", new)
    doc = json.loads((new / "dataset.json").read_text())
    doc["instances"][0]["annotations"]["fluency"]["individual_human_scores"][1] = 3
    (new / "dataset.json").write_text(json.dumps(doc))
    return old, new


def test_exit_codes_and_fail_on(tmp_path: Path) -> None:
    old, new = _two(tmp_path)
    assert run(str(old), str(new)).exit_code == 0
    assert run(str(old), str(new), "--fail-on", "removed").exit_code == 0
    failed = run(str(old), str(new), "--fail-on", "removed,changed", "--format", "json")
    assert failed.exit_code == 1
    summary = json.loads(failed.output)["summary"]
    assert summary["fail_on"] == ["removed", "changed"] and summary["failed"] == ["changed: 1 judgment changed"]
    assert run(str(old), str(new), "--fail-on", "new-errors").exit_code == 1  # the mean is stale now
    wrong = run(str(old), str(new), "--fail-on", "removd")
    assert wrong.exit_code == 2 and "'removd' is not a --fail-on condition" in wrong.output
    assert run(str(old)).exit_code == 2
    assert run(str(old), str(tmp_path / "nothing")).exit_code == 2


def test_fail_on_from_the_configuration(tmp_path: Path) -> None:
    old, new = _two(tmp_path)
    (new / "humanjudge.toml").write_text('[diff]\nfail-on = ["changed"]\n')
    assert run(str(old), str(new)).exit_code == 1
    assert run(str(old), str(new), "--fail-on", "removed").exit_code == 0  # the flag overrides it
    (new / "humanjudge.toml").write_text('[diff]\nfail_on = ["changed"]\n')
    misspelt = run(str(old), str(new))
    assert misspelt.exit_code == 2 and "diff: unknown key 'fail_on'" in misspelt.output
    (new / "humanjudge.toml").write_text('[diff]\nfail-on = ["alpha-drop"]\n')
    assert run(str(old), str(new)).exit_code == 2


def test_alpha_drop(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    _textjudge(old, [[5, 5, 5], [1, 1, 1], [3, 3, 3], [2, 2, 2]])
    _textjudge(new, [[5, 1, 3], [1, 5, 2], [3, 1, 5], [2, 4, 1]])
    found = json.loads(run(str(old), str(new), "--format", "json", "--samples", "50").output)
    (q,) = found["datasets"][0]["questions"]
    assert q["alpha"][0] == pytest.approx(1.0) and q["alpha"][1] < 0.2
    assert run(str(old), str(new), "--fail-on", "alpha-drop=0.5").exit_code == 1
    assert run(str(old), str(new), "--fail-on", "alpha-drop=1.9").exit_code == 0


def test_nothing_changed_says_so_in_one_line(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(EXAMPLES / "coggym/valid", old)
    shutil.copytree(EXAMPLES / "coggym/valid", new)
    out = run(str(old), str(new))
    assert out.exit_code == 0
    assert out.output.splitlines()[1] == "No judgment or stored aggregate changed."


def test_two_dataset_folders_are_named_by_their_paths(tmp_path: Path) -> None:
    """Each version given is the dataset itself (its path within the version: "."): the text and
    the markdown name it by the new version's path, the JSON keeps the path within the versions."""
    old, new = tmp_path / "before", tmp_path / "after"
    shutil.copytree(EXAMPLES / "coggym/valid", old)
    shutil.copytree(EXAMPLES / "coggym/broken", new)
    text = run(str(old), str(new)).output
    assert f"changed {new} (coggym): 30 -> 26 judgments" in text.splitlines()
    md = run(str(old), str(new), "--format", "markdown").output
    assert f"| <code>{new}</code> | coggym | changed |" in md
    assert json.loads(run(str(old), str(new), "--format", "json").output)["datasets"][0]["dataset"] == "."
    shutil.rmtree(new)
    new.mkdir()
    (new / "notes.txt").write_text("no dataset here")
    removed = run(str(old), str(new)).output
    assert f"removed {old} (coggym): 30 -> 0 judgments" in removed.splitlines()


def test_names_from_the_data_are_escaped(tmp_path: Path) -> None:
    old, new = _two(tmp_path)
    for side in (old, new):
        doc = json.loads((side / "dataset.json").read_text())
        doc["instances"][0]["id"] = "s1\x1b[31m|</pre><img src=x>\n**bold**"
        (side / "dataset.json").write_text(json.dumps(doc))
    text = run(str(old), str(new)).output
    assert "\x1b" not in text and "\\x1b[31m" in text
    md = run(str(old), str(new), "--format", "markdown").output
    assert "</pre><img" not in md and "&lt;/pre&gt;&lt;img" in md and "\x1b" not in md


def test_output_file(tmp_path: Path) -> None:
    old, new = _two(tmp_path)
    target = tmp_path / "diff.json"
    assert run(str(old), str(new), "--format", "json", "-o", str(target)).exit_code == 0
    assert json.loads(target.read_text())["summary"]["changed"] == 1
    assert run(str(old), str(new), "-o", str(target)).exit_code == 2  # exists: --force


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "textjudge/valid", repo / "data")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    return repo


def test_git_revision_against_the_working_tree(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    # an attribute of the compared tree that would run a filter: blobs are read raw
    (repo / ".gitattributes").write_text("*.json filter=evil\n")
    _git(repo, "config", "filter.evil.smudge", f"touch {tmp_path}/ran; cat")
    path = repo / "data/dataset.json"
    doc = json.loads(path.read_text())
    doc["instances"][0]["annotations"]["fluency"]["individual_human_scores"][1] = 3
    path.write_text(json.dumps(doc))
    found = run("--git", "HEAD", "--format", "json", cwd=repo)
    assert found.exit_code == 0, found.output
    out = json.loads(found.output)
    assert out["summary"]["changed"] == 1 and out["datasets"][0]["dataset"] == "data/dataset.json"
    assert not (tmp_path / "ran").exists()
    assert run("--git", "HEAD", "data", "--format", "json", cwd=repo).exit_code == 0
    # the working tree is untouched
    assert json.loads(path.read_text())["instances"][0]["annotations"]["fluency"]["individual_human_scores"][1] == 3
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "two")
    head = json.loads(run("--git", "HEAD~1", "--head", "HEAD", "--format", "json", cwd=repo).output)
    assert head["summary"]["changed"] == 1
    assert json.loads(run("--git", "HEAD", "--format", "json", cwd=repo).output)["summary"]["judgments_unchanged"]


def test_git_of_one_file_of_an_experiment_compares_its_experiment(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "coggym/valid", repo / "exp")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    same = json.loads(run("--git", "HEAD", "exp/human_data_ind.json", "--format", "json", cwd=repo).output)
    assert same["summary"]["judgments_unchanged"] and same["summary"]["added"] == 0
    path = repo / "exp/human_data_ind.json"
    path.write_text(path.read_text().replace('"goal_confidence": [\n      95', '"goal_confidence": [\n      94', 1))
    changed = json.loads(run("--git", "HEAD", "exp/human_data_ind.json", "--format", "json", cwd=repo).output)
    assert (changed["summary"]["changed"], changed["summary"]["added"], changed["summary"]["removed"]) == (1, 0, 0)


def test_git_refuses_what_is_not_a_commit(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    for rev in ("no-such-branch", "HEAD:data", "--output=x"):
        out = run("--git", rev, cwd=repo)
        assert out.exit_code == 2 and out.output.count("\n") == 1 and "is not a commit" in out.output
    assert run("--head", "HEAD", cwd=repo).exit_code == 2


def test_git_keeps_links_inside_the_folder(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "data/inside.json").symlink_to("dataset.json")
    (repo / "data/outside.json").symlink_to("/etc/hostname")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "links")
    from humanjudge_schema.diff.git import NOWHERE, commit, export

    into = tmp_path / "out"
    export(repo, commit(repo, "HEAD"), ["data"], into)
    assert (into / "data/inside.json").readlink() == Path("dataset.json")
    assert (into / "data/outside.json").readlink() == into / NOWHERE


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.lists(st.integers(1, 5), min_size=0, max_size=4), min_size=1, max_size=5),
    st.lists(st.lists(st.integers(1, 5), min_size=0, max_size=4), min_size=1, max_size=5),
)
def test_properties(tmp_path_factory: pytest.TempPathFactory, a: list[list[int]], b: list[list[int]]) -> None:
    folder = tmp_path_factory.mktemp("prop")
    _textjudge(folder / "a/d.json", a)
    _textjudge(folder / "b/d.json", b)
    _textjudge(folder / "c/d.json", a)
    same = diff(folder / "a", folder / "c", samples=5).to_json()["summary"]
    assert same["judgments_unchanged"] and (same["removed"], same["changed"], same["added"]) == (0, 0, 0)
    # matched by place
    forward = diff(folder / "a", folder / "b", samples=5, align=False).to_json()
    backward = diff(folder / "b", folder / "a", samples=5, align=False).to_json()
    assert (forward["summary"]["added"], forward["summary"]["removed"]) == (
        backward["summary"]["removed"],
        backward["summary"]["added"],
    )
    assert forward["summary"]["changed"] == backward["summary"]["changed"]
    # every judgment of a is kept, changed or removed
    kept = _kept(a, b, None)
    assert forward["summary"]["changed"] + forward["summary"]["removed"] + kept == sum(map(len, a))
    # places aligned where that needs fewer edits: as few either way, never more than by place
    edits = _edits(forward)
    aligned = diff(folder / "a", folder / "b", samples=5).to_json()
    back = diff(folder / "b", folder / "a", samples=5).to_json()
    assert _edits(aligned) == _edits(back) <= edits
    alignment = aligned["datasets"][0].get("alignment")
    assert (alignment is None) == (_edits(aligned) == edits)
    kept = _kept(a, b, alignment)
    assert aligned["summary"]["changed"] + aligned["summary"]["removed"] + kept == sum(map(len, a))


def _edits(found: dict[str, Any]) -> int:
    return int(found["summary"]["removed"] + found["summary"]["changed"] + found["summary"]["added"])


def _kept(a: list[list[int]], b: list[list[int]], alignment: dict[str, Any] | None) -> int:
    """Judgments of `a` with an equal judgment under the same key in `b` (the place the
    alignment of the JSON gives it, where there is one)."""
    new_of: dict[int, int | None] = {}
    if alignment is not None:
        new_of = {k: None for k in alignment["removed"]}
        for run in alignment["moved"]:
            first, last = run["old"]
            new_of |= {k: run["new"][0] + k - first for k in range(first, last + 1)}
    kept = 0
    for i, s in enumerate(a):
        for r, v in enumerate(s):
            place = new_of.get(r, r)
            kept += place is not None and i < len(b) and place < len(b[i]) and b[i][place] == v
    return kept


def test_a_real_experiment(tmp_path: Path) -> None:
    source = corpus("coggym", "lance-ying__coggym", "EML", "sosa2021Moral", "exp1")
    old, new = tmp_path / "old/exp1", tmp_path / "new/exp1"
    shutil.copytree(source, old)
    shutil.copytree(source, new)
    for f in (*old.iterdir(), *new.iterdir()):
        f.chmod(0o644)
    ind = json.loads((new / "human_data_ind.json").read_text())
    last = ind["participants_info"]["count"] - 1
    removed = 0
    for key, trial in ind.items():
        if isinstance(trial, dict) and key not in ("participants_info",):
            for answers in trial.values():
                if isinstance(answers, list) and len(answers) == last + 1:
                    answers.pop()
                    removed += 1
    ind["participants_info"]["count"] = last
    (new / "human_data_ind.json").write_text(json.dumps(ind))
    mean = json.loads((new / "human_data_mean.json").read_text())
    trial = next(k for k in mean if k.startswith("exp1_trial"))
    tag = next(iter(mean[trial]))
    was = mean[trial][tag]
    mean[trial][tag] = 9.5
    (new / "human_data_mean.json").write_text(json.dumps(mean))
    found = diff(tmp_path / "old", tmp_path / "new", samples=20).to_json()
    (ds,) = found["datasets"]
    assert ds["status"] == "changed" and ds["dataset"] == "exp1"
    assert sum(q["removed"] for q in ds["questions"]) == removed > 0
    assert sum(q["changed"] + q["added"] for q in ds["questions"]) == 0
    assert {r for q in ds["questions"] if q["removed"] for r in q["listed"]["raters_removed"]} == {last}
    assert ds["aggregates_changed"] == 1 and ds["aggregates"]["added"] == ds["aggregates"]["removed"] == 0
    (agg,) = ds["aggregates"]["examples"]
    assert (agg["item"], agg["question"], agg["old"], agg["new"], agg["matches"]) == (trial, tag, was, 9.5, False)
    # what the removal leaves stale (the means, the counts, the participants' metadata) is new
    assert {f["code"] for f in ds["findings_new"]} <= {
        "coggym/mean-value",
        "coggym/judgment-count",
        "coggym/metadata-mismatch",
    }
    assert any(f["pointer"] == f"/{trial}/{tag}" for f in ds["findings_new"] if f["code"] == "coggym/mean-value")


def test_no_dataset_on_either_side_is_a_usage_error(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "notes.txt").write_text("hello\n")
    out = run(str(tmp_path / "a"), str(tmp_path / "b"))
    assert out.exit_code == 2 and "no dataset in" in out.output
