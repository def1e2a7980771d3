"""What a walk makes of CogGym experiment folders found in real repositories: an experiment of
only its config.json is an experiment that lacks its trials, not "no dataset here", while the
config.json of another project stays nobody's; a data file in an experiment folder that no format
claims is the experiment's extra file, reported once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from humanjudge_schema import validate
from humanjudge_schema.kinds import survey

from .conftest import CASES, ROOT

VALID = ROOT / "examples" / "coggym" / "valid"
TEXTJUDGE = CASES / "textjudge" / "valid" / "schema-all-categories" / "dataset.json"


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc


def _json(*args: str | Path, cwd: Path) -> tuple[int, dict[str, object]]:
    proc = run("validate", "--format", "json", *args, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _found(doc: dict[str, object]) -> list[tuple[str, str]]:
    return sorted((f["code"], f["file"]) for f in doc["findings"])  # type: ignore[attr-defined,index]


def _skipped(doc: dict[str, object]) -> list[tuple[str, str]]:
    return sorted((s["file"], s["reason"]) for s in doc["skipped"])  # type: ignore[attr-defined,index]


def _study(tmp_path: Path) -> Path:
    """study/exp1, a complete experiment, and study/exp2, only the config of one."""
    study = tmp_path / "study"
    shutil.copytree(VALID, study / "exp1")
    (study / "exp2").mkdir()
    shutil.copy(VALID / "config.json", study / "exp2" / "config.json")
    return study


# --- an experiment of only its config.json ----------------------------------------------------


def test_an_experiment_of_only_its_config_lacks_its_trials(tmp_path: Path) -> None:
    exp2 = _study(tmp_path) / "exp2"
    proc = run("validate", exp2, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # not 2: "no dataset of a known format"
    assert "error dataset/missing-file no trial.jsonl" in proc.stdout
    code, doc = _json(exp2, cwd=tmp_path)
    assert code == 1
    assert _found(doc) == [("dataset/missing-file", "study/exp2/config.json")]
    assert _skipped(doc) == []


def test_a_study_walk_checks_the_experiment_of_only_its_config(tmp_path: Path) -> None:
    """Beside a complete experiment, it was a folder "that holds no dataset" and its config.json
    a file left out: it is the experiment that lacks its trials."""
    _study(tmp_path)
    code, doc = _json("study", cwd=tmp_path)
    assert code == 1
    assert _found(doc) == [("dataset/missing-file", "study/exp2/config.json")]
    assert _skipped(doc) == []


def test_the_config_named_on_its_own_is_its_experiment(tmp_path: Path) -> None:
    _study(tmp_path)
    code, doc = _json("study/exp2/config.json", cwd=tmp_path)
    assert code == 1 and _found(doc) == [("dataset/missing-file", "study/exp2/config.json")]


def test_the_config_keys_are_read_however_far_they_lie(tmp_path: Path) -> None:
    """The keys are looked for past the first 64 KiB, as a one-file format's are."""
    config = json.loads((VALID / "config.json").read_text())
    head = {"description": "x" * 200_000}
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "config.json").write_text(json.dumps({**head, **config}))
    assert [u.files for u in survey([tmp_path / "exp"]).units] == [(tmp_path / "exp" / "config.json",)]


@pytest.mark.parametrize(
    "config",
    [
        {"name": "x"},
        {"experimentName": "only the name"},  # a CogGym config requires its flow too
        {"experimentFlow": []},
        {"settings": {"experimentName": "x", "experimentFlow": []}},  # not at the top level
        [{"experimentName": "x", "experimentFlow": []}],
    ],
    ids=["unrelated", "name-only", "flow-only", "nested", "array"],
)
def test_an_unrelated_config_json_is_still_no_dataset(tmp_path: Path, config: object) -> None:
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    (repo / "app" / "config.json").write_text(json.dumps(config))
    proc = run("validate", "repo", cwd=tmp_path)
    assert proc.returncode == 2
    assert "repo: no dataset of a known format here (1 file left out: 1 JSON that is not a TextJudge dataset" in (
        proc.stderr
    )
    # Beside a dataset, it stays a file the walk leaves out, with no finding.
    shutil.copytree(VALID, repo / "data" / "exp1")
    code, doc = _json("repo", cwd=tmp_path)
    assert code == 0 and _found(doc) == []
    assert _skipped(doc) == [("repo/app/config.json", "JSON that is not a TextJudge dataset")]


def test_a_linked_config_is_not_read_where_links_are_not_followed(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(VALID / "config.json", tmp_path / "elsewhere" / "config.json")
    (tmp_path / "exp").mkdir()
    os.symlink(tmp_path / "elsewhere" / "config.json", tmp_path / "exp" / "config.json")
    assert survey([tmp_path / "exp"], skip_empty=True, links=False).units == []
    assert [u.root for u in survey([tmp_path / "exp"]).units] == [tmp_path / "exp"]


# --- a data file that no format claims, in an experiment folder ------------------------------


def _experiment_with(tmp_path: Path, *extra: str) -> Path:
    exp = tmp_path / "study" / "exp1"
    shutil.copytree(VALID, exp)
    for name in extra:
        (exp / name).write_text('{"notes": "the first export, before the means were recomputed"}\n')
    return exp


def test_a_stray_json_file_is_an_extra_file_of_the_experiment(tmp_path: Path) -> None:
    _experiment_with(tmp_path, "notes_old.json")
    proc = run("validate", "study", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout  # a warning
    assert "study/exp1/notes_old.json: warning dataset/extra-file" in proc.stdout
    assert "left out" not in proc.stdout
    code, doc = _json("study", cwd=tmp_path)
    assert code == 0
    assert _found(doc) == [("dataset/extra-file", "study/exp1/notes_old.json")]
    assert _skipped(doc) == []


def test_each_file_is_reported_once(tmp_path: Path) -> None:
    """Named beside a file of the experiment (as a hook passes the staged files), the stray file
    is the experiment's extra file, not also a file left out."""
    exp = _experiment_with(tmp_path, "notes_old.json", "results.csv")
    names = [exp / "trial.jsonl", exp / "notes_old.json", exp / "results.csv"]
    for paths in ([exp], [tmp_path / "study"], names):
        result = validate(paths, skip_unknown=True)
        extra = sorted(Path(f.file).name for f in result.findings if f.code == "dataset/extra-file")
        assert extra == ["notes_old.json", "results.csv"]
        assert [s.path for s in result.skipped] == []


def test_under_kind_a_stray_data_file_is_left_out_as_before(tmp_path: Path) -> None:
    """--kind takes the files of one format: every other data file is one it leaves out."""
    _experiment_with(tmp_path, "notes_old.json")
    code, doc = _json("--kind", "coggym", "study", cwd=tmp_path)
    assert code == 0 and _found(doc) == []
    assert _skipped(doc) == [("study/exp1/notes_old.json", "not a coggym file")]


def test_a_file_another_format_claims_is_not_an_extra_file(tmp_path: Path) -> None:
    exp = _experiment_with(tmp_path)
    shutil.copy(TEXTJUDGE, exp / "judged.json")
    found = survey([tmp_path / "study"])
    assert [(u.family, u.root.name, u.extras) for u in found.units] == [
        ("coggym", "exp1", ()),
        ("textjudge", "judged.json", ()),
    ]
    assert found.skipped == []
    assert not any(f.code == "dataset/extra-file" for f in validate([tmp_path / "study"]).findings)


def test_a_linked_data_file_stays_a_file_left_out(tmp_path: Path) -> None:
    exp = _experiment_with(tmp_path)
    (tmp_path / "notes.json").write_text("{}\n")
    os.symlink(tmp_path / "notes.json", exp / "notes_old.json")
    found = survey([tmp_path / "study"])
    assert [u.extras for u in found.units] == [()]
    assert [s.path.name for s in found.skipped] == ["notes_old.json"]


def test_a_data_file_outside_any_dataset_folder_is_left_out_as_before(tmp_path: Path) -> None:
    _experiment_with(tmp_path)
    (tmp_path / "study" / "summary.json").write_text("{}\n")
    code, doc = _json("study", cwd=tmp_path)
    assert code == 0 and _found(doc) == []
    assert _skipped(doc) == [("study/summary.json", "JSON that is not a TextJudge dataset")]


def test_a_document_beside_the_data_is_no_extra_file_whatever_its_name(tmp_path: Path) -> None:
    exp = _experiment_with(tmp_path, "notes.txt")
    for name in ("SOURCE.md", "protocol.pdf", "codebook.rst"):
        (exp / name).write_text("how the data was collected\n")
    extra = [Path(f.file).name for f in validate([exp]).findings if f.code == "dataset/extra-file"]
    assert extra == ["notes.txt"]  # a text file may be data: it is still said
