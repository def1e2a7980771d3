"""What a new user meets first: a path or a revision mistyped for `diff --git`, a dataset named by
one of its files, the files left out, and the listings of the schemas and formats."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from humanjudge_schema.commands import cli

from .conftest import CASES, ROOT

EXAMPLES = ROOT / "examples"
EXPERIMENT = EXAMPLES / "coggym" / "valid"


def run(*args: str, cwd: Path) -> Any:
    before = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(before)


def _git(cwd: Path, *args: str) -> str:
    who = ("-c", "user.name=t", "-c", "user.email=t@t")
    return subprocess.run(["git", *who, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _repository(top: Path) -> Path:
    """A repository of one commit on main, tagged v1.0: a TextJudge dataset in data/, a note in docs/."""
    shutil.copytree(EXAMPLES / "textjudge" / "valid", top / "data")
    (top / "docs").mkdir()
    (top / "docs" / "notes.txt").write_text("how the data was collected\n")
    _git(top, "init", "-q", "-b", "main")
    _git(top, "add", ".")
    _git(top, "commit", "-q", "-m", "one")
    _git(top, "tag", "v1.0")
    return top


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return _repository(tmp_path / "repo")


@pytest.fixture(scope="module")
def shared_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same, for the tests that only read it."""
    return _repository(tmp_path_factory.mktemp("shared") / "repo")


def _short(top: Path, rev: str) -> str:
    return _git(top, "rev-parse", rev).strip()[:12]


# --- diff --git: a path neither version has ------------------------------------------------------


def test_diff_git_names_a_path_that_neither_version_has(shared_repo: Path) -> None:
    repo = shared_repo
    out = run("diff", "--git", "HEAD", "data/nonexist", cwd=repo)
    head = _short(repo, "HEAD")
    assert (out.exit_code, out.output) == (
        2,
        f"humanjudge: data/nonexist: no such path in HEAD ({head}) or in the working tree\n",
    )
    out = run("diff", "--git", "HEAD", "--head", "v1.0", "data", "dat", cwd=repo)
    assert (out.exit_code, out.output) == (2, f"humanjudge: dat: no such path in HEAD ({head}) or in v1.0 ({head})\n")


def test_diff_git_a_path_that_holds_no_dataset_is_said_as_before(shared_repo: Path) -> None:
    repo = shared_repo
    out = run("diff", "--git", "HEAD", "docs", cwd=repo)
    assert (out.exit_code, out.output) == (
        2,
        f"humanjudge: no dataset in HEAD ({_short(repo, 'HEAD')}) or the working tree\n",
    )


def test_diff_git_a_path_one_version_has_is_compared(repo: Path) -> None:
    shutil.copytree(repo / "data", repo / "new")  # only in the working tree: added
    assert run("diff", "--git", "HEAD", "new", "--format", "json", cwd=repo).exit_code == 0
    shutil.rmtree(repo / "data")  # only in the revision: removed
    assert run("diff", "--git", "HEAD", "data", "--format", "json", cwd=repo).exit_code == 0


# --- a misspelt revision --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rev", "hint"),
    [
        ("HEDA~1", " (did you mean HEAD~1?)"),
        ("head^", " (did you mean HEAD^?)"),
        ("mian", " (did you mean main?)"),
        ("v1.O", " (did you mean v1.0?)"),
        ("HEAD-1", " (did you mean HEAD~1 or HEAD?)"),
        ("no-such-thing", ""),
        ("HEAD:data", ""),  # a tree, not a misspelt name
    ],
)
def test_a_misspelt_revision_gets_the_closest_names(shared_repo: Path, rev: str, hint: str) -> None:
    out = run("diff", "--git", rev, cwd=shared_repo)
    assert (out.exit_code, out.output) == (2, f"humanjudge: {rev!r} is not a commit of this repository{hint}\n")


def test_validate_base_gets_the_closest_names_too(shared_repo: Path) -> None:
    out = run("validate", "--base", "mian", "data/dataset.json", cwd=shared_repo)
    assert (out.exit_code, out.output) == (
        2,
        "humanjudge: --base mian: not a commit of this repository (did you mean main?)\n",
    )


# --- a dataset named by one of its files ----------------------------------------------------------


def _crowded(folder: Path, source: Path) -> Path:
    """A copy of a dataset folder beside a note, a stray data file, a folder of analyses and a
    sub-folder that holds a dataset of its own."""
    shutil.copytree(source, folder)
    (folder / "notes.txt").write_text("pilot run\n")
    (folder / "results.csv").write_text("a,b\n1,2\n")
    (folder / "analysis").mkdir()
    (folder / "analysis" / "run.R").write_text("x <- 1\n")
    shutil.copytree(EXAMPLES / "textjudge" / "valid", folder / "older")
    return folder


@pytest.mark.parametrize(
    ("source", "name", "files"),
    [
        (EXPERIMENT, "trial.jsonl", 5),
        (EXPERIMENT, "config.json", 5),
        (EXAMPLES / "halie" / "valid" / "question", "event_blocks.csv", 2),
        (EXAMPLES / "study1" / "valid", "study1_tasks.jsonl.gz", 4),
    ],
)
def test_a_file_named_says_nothing_of_what_else_its_folder_holds(
    tmp_path: Path, source: Path, name: str, files: int
) -> None:
    _crowded(tmp_path / "ds", source)
    out = run("validate", f"ds/{name}", cwd=tmp_path)
    assert (out.exit_code, out.output) == (0, f"No problems in {files} files.\n")
    walked = json.loads(run("validate", "--format", "json", "ds", cwd=tmp_path).output)  # each reported
    assert [(f["code"], f["file"]) for f in walked["findings"]] == [
        ("dataset/extra-file", "ds/analysis"),
        ("dataset/extra-file", "ds/notes.txt"),
        ("dataset/extra-file", "ds/results.csv"),
    ]


def test_what_else_is_named_is_still_reported(tmp_path: Path) -> None:
    _crowded(tmp_path / "exp", EXPERIMENT)
    out = run("validate", "exp/trial.jsonl", "exp/results.csv", "exp/analysis", "--skip-unknown", cwd=tmp_path)
    lines = out.output.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == ["exp/analysis", "exp/results.csv"]
    assert all("warning dataset/extra-file" in line for line in lines[:-1])
    assert lines[-1] == "0 errors, 2 warnings in 5 files."
    # walked and named: the walk's report, whatever the order
    for paths in (["exp", "exp/trial.jsonl"], ["exp/trial.jsonl", "exp"]):
        assert run("validate", *paths, cwd=tmp_path).output.endswith("0 errors, 3 warnings in 6 files.\n")


def test_a_dataset_named_by_every_one_of_its_files_is_reported_as_walked(tmp_path: Path) -> None:
    """The Action names each dataset by its files where a configuration file lies inside the
    folder it was given: what else the folder holds is still reported."""
    _crowded(tmp_path / "exp", EXPERIMENT)
    files = sorted(p.name for p in EXPERIMENT.iterdir() if p.is_file())
    out = run("validate", "--format", "json", *(f"exp/{name}" for name in files), cwd=tmp_path)
    found = [(f["code"], f["file"]) for f in json.loads(out.output)["findings"]]
    assert ("dataset/extra-file", "exp/notes.txt") in found and ("dataset/extra-file", "exp/analysis") in found


def test_what_the_named_file_s_dataset_lacks_is_still_reported(tmp_path: Path) -> None:
    exp = _crowded(tmp_path / "exp", CASES / "coggym" / "invalid" / "answer")
    (exp / "human_data_mean.json").unlink()
    out = run("validate", "exp/trial.jsonl", cwd=tmp_path)
    codes = [line.split()[2] for line in out.output.splitlines()[:-1]]
    assert codes == ["dataset/missing-companion", "coggym/answer"]
    assert out.exit_code == 1


# --- the files left out ---------------------------------------------------------------------------


def test_a_few_files_left_out_are_named(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}")
    (tmp_path / "scores.csv").write_text("a,b\n1,2\n")
    out = run("validate", "--skip-unknown", "notes.json", cwd=tmp_path)
    assert out.output.splitlines() == [
        "No problems in 0 files.",
        "1 file left out: notes.json (JSON that is not a TextJudge dataset).",
    ]
    out = run("validate", "--skip-unknown", "notes.json", "scores.csv", cwd=tmp_path)
    assert out.output.splitlines()[-1] == (
        "2 files left out: notes.json (JSON that is not a TextJudge dataset), "
        "scores.csv (a data file of no known format)."
    )


def test_many_files_left_out_are_counted(tmp_path: Path) -> None:
    names = [f"notes{i}.json" for i in range(4)]
    for name in names:
        (tmp_path / name).write_text("{}")
    out = run("validate", "--skip-unknown", *names, cwd=tmp_path)
    assert out.output.splitlines()[-1] == (
        "4 files left out: 4 JSON that is not a TextJudge dataset (--format json lists them)."
    )


# --- the listings -----------------------------------------------------------------------------------


def test_the_schema_listing_is_aligned_to_its_longest_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from humanjudge_schema import schemas

    long = "a-plug-in-with-a-long-name/v1/an-even-longer-document-name"
    names = ["coggym/v1/trial", long]
    monkeypatch.setattr(schemas, "available", lambda: names)
    monkeypatch.setattr(schemas, "schema_path", lambda n: Path("/schemas") / f"{n}.schema.json")
    out = run("schema", cwd=tmp_path)
    assert out.output.splitlines() == [
        f"{'coggym/v1/trial':<{len(long)}}  /schemas/coggym/v1/trial.schema.json",
        f"{long}  /schemas/{long}.schema.json",
    ]


def test_the_format_listing_is_aligned_to_its_longest_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from humanjudge_schema import catalog

    def fmt(name: str, title: str) -> SimpleNamespace:
        files = [SimpleNamespace(name="a.csv")]
        return SimpleNamespace(name=name, title=title, files=files, one_file=None, near=None, origin="built in")

    known = {"toy": fmt("toy", "Toy data"), "long": fmt("annotation-campaigns", "Campaigns")}
    monkeypatch.setattr(catalog, "formats", lambda: known)
    assert run("formats", cwd=tmp_path).output.splitlines() == [
        "toy                   Toy data: a.csv  (built in)",
        "annotation-campaigns  Campaigns: a.csv  (built in)",
    ]
