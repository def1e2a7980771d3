"""The metadata each format promises: CogGym's paperDOI, citation fields and instruction.jsonl,
TextJudge's dataset_url, and what a dataset folder holds beside its format's files (the
dataset/extra-file and dataset/not-a-dataset findings of the core)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import validate
from humanjudge_schema.doi import doi_problem
from humanjudge_schema.formats.textjudge.rules.declarations import url_problem

from .conftest import CASES

EXPERIMENT = CASES / "coggym" / "valid" / "config-without-optional-keys"
TEXTJUDGE = CASES / "textjudge" / "valid" / "string-instances" / "dataset.json"
HALIE_TASK = CASES / "halie" / "valid" / "question"


def _findings(path: Path, cwd: Path, **options: Any) -> list[tuple[str, str, str]]:
    return sorted((f.code, f.file, f.pointer) for f in validate([path], cwd=str(cwd), **options).findings)


def _experiment(folder: Path, **config: Any) -> Path:
    """A copy of a valid experiment, its config.json changed by `config` (None removes a key)."""
    shutil.copytree(EXPERIMENT, folder)
    path = folder / "config.json"
    data = json.loads(path.read_text())
    for key, value in config.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data, indent=2))
    return folder


# --- paperDOI -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "10.1016/j.cognition.2021.104890",
        "https://doi.org/10.1016/j.cognition.2025.106236",
        "http://doi.org/10.48550/arxiv.2502.06204",
        "https://dx.doi.org/10.1037/xge0001392",  # Zhou2023Mental writes it so
        "https://doi.org/10.31234/osf.io/bmknu",
        "doi:10.1162/opmi_a_00035",
        "10.1002/(SICI)1097-4636(199812)43:4<338::AID-JBM1>3.0.CO;2-K",  # an old Wiley DOI
        "10.1000.10/123",  # a registrant code with a sub-code
        "https://doi.org/10.0000/example.0001",  # made up, and not recognised: the rule says so
    ],
)
def test_a_doi_in_any_of_its_written_forms_passes(value: str) -> None:
    assert doi_problem(value) is None


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("https://doi.org/N/A", "'N/A' stands in for one"),
        ("none", "'none' stands in for one"),
        ("", "paperDOI is empty"),
        ("   ", "paperDOI is empty"),
        ("https://doi.org/10.1111/example.doi.12345", "the example DOI of the CogGym documentation"),
        ("10.1111/EXAMPLE.doi.12345", "the example DOI of the CogGym documentation"),
        ("10.5555/944919.944937", "Crossref's test prefix"),
        ("https://doi.org/10.5072/zenodo.1", "DataCite's test prefix"),
        ("https://www.sciencedirect.com/science/article/pii/S0010027721000123", "an address on www.sciencedirect.com"),
        ("doi.org/10.1016/j.cognition.2021.104890", "a DOI is 10.<registrant>/<suffix>"),
        ("10.123/abc", "a DOI is 10.<registrant>/<suffix>"),
        ("10.1016/", "a DOI is 10.<registrant>/<suffix>"),
        ("Cognition 2021", "a DOI is 10.<registrant>/<suffix>"),
    ],
)
def test_a_value_that_is_no_papers_doi_is_reported_with_the_reason(value: str, reason: str) -> None:
    problem = doi_problem(value)
    assert problem is not None and reason in problem


def test_paper_doi_points_at_the_key_and_leaves_an_experiment_without_one_alone(tmp_path: Path) -> None:
    bad = _experiment(tmp_path / "bad", paperDOI="https://doi.org/N/A")
    assert _findings(bad, bad) == [("coggym/paper-doi", "config.json", "/paperDOI")]
    none = _experiment(tmp_path / "none", paperDOI=None)
    assert _findings(none, none) == []
    # a paperDOI of the wrong type is the schema's to report, once
    typed = _experiment(tmp_path / "typed", paperDOI=10)
    assert _findings(typed, typed) == [("schema/type", "config.json", "/paperDOI")]


# --- the citation fields ------------------------------------------------------------------------


def test_authors_name_the_people_as_contributors_do(tmp_path: Path) -> None:
    """The public release writes `authors` where the format documents `contributors`."""
    folder = _experiment(tmp_path / "exp", contributors=None, authors=["Rosie Aboody", "Isaac Davis"])
    assert _findings(folder, folder) == []


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"contributors": None}, [("coggym/citation-missing", "config.json", "")]),
        ({"contributors": []}, [("coggym/citation-missing", "config.json", "/contributors")]),
        ({"contributors": ["", " "]}, [("coggym/citation-missing", "config.json", "/contributors")]),
        ({"contributors": None, "authors": []}, [("coggym/citation-missing", "config.json", "/authors")]),
        ({"description": None}, [("coggym/citation-missing", "config.json", "")]),
        ({"description": " "}, [("coggym/citation-missing", "config.json", "/description")]),
        ({"experimentName": ""}, [("coggym/citation-missing", "config.json", "/experimentName")]),
        # the schema reports a missing name, or a value of the wrong type; the rule does not again
        ({"experimentName": None}, [("schema/required", "config.json", "")]),
        ({"contributors": "Ada Example"}, [("schema/type", "config.json", "/contributors")]),
        ({"description": 3}, [("schema/type", "config.json", "/description")]),
    ],
)
def test_each_missing_or_empty_citation_field_is_reported_once(
    tmp_path: Path, config: dict[str, Any], expected: list[tuple[str, str, str]]
) -> None:
    folder = _experiment(tmp_path / "exp", **config)
    assert _findings(folder, folder) == sorted(expected)


# --- instruction.jsonl --------------------------------------------------------------------------


def test_a_missing_instruction_file_is_reported_by_the_rule_not_by_coverage(tmp_path: Path) -> None:
    """The core's dataset/missing-companion does not name instruction.jsonl (its format declares
    no `without` for it); coggym/no-instructions does, once, beside the flow ids it leaves
    unresolved."""
    folder = _experiment(tmp_path / "exp")
    (folder / "instruction.jsonl").unlink()
    (folder / "human_data_mean.json").unlink()
    result = validate([folder], cwd=str(folder))
    companions = [f.message for f in result.findings if f.code == "dataset/missing-companion"]
    assert len(companions) == 1 and "human_data_mean.json" in companions[0]
    assert "instruction.jsonl" not in companions[0]
    found = sorted((f.code, f.file, f.pointer) for f in result.findings if f.code != "dataset/missing-companion")
    assert found == [
        ("coggym/flow-id", "config.json", "/experimentFlow/0/sequences/0/blocks/0/0"),
        ("coggym/flow-id", "config.json", "/experimentFlow/0/sequences/1/blocks/0/0"),
        ("coggym/no-instructions", "config.json", ""),
    ]


def test_an_instruction_file_that_cannot_be_read_is_reported_as_such_not_as_missing(tmp_path: Path) -> None:
    folder = _experiment(tmp_path / "exp")
    (folder / "instruction.jsonl").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n")
    codes = {code for code, _, _ in _findings(folder, folder)}
    assert "parse/lfs-pointer" in codes and "coggym/no-instructions" not in codes


def test_without_a_flow_a_missing_instruction_file_is_not_reported(tmp_path: Path) -> None:
    folder = _experiment(tmp_path / "exp")
    (folder / "instruction.jsonl").unlink()
    (folder / "config.json").unlink()
    codes = {code for code, _, _ in _findings(folder, folder)}
    assert codes == {"dataset/missing-companion"}


# --- dataset_url --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "https://github.com/lil-lab/newsroom/tree/master/humaneval",
        "https://github.com/google-research-datasets/dices-dataset/tree/main?tab=readme-ov-file",
        "http://example.org",
        "ftp://ftp.example.org/ratings.zip",
        "HTTPS://EXAMPLE.ORG/data",
    ],
)
def test_a_web_address_passes(value: str) -> None:
    assert url_problem(value) is None


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("", "dataset_url is empty"),
        ("github.com/lil-lab/newsroom", "it has no scheme; write https://github.com/lil-lab/newsroom"),
        ("https://example.org/my data", "it holds spaces"),
        ("NewsRoom (Grusky et al., NAACL 2018)", "it holds spaces"),
        ("s3://bucket/ratings", "not a web address (s3:)"),
        ("https://", "a URL is https://host/path"),
        ("u", "a URL is https://host/path"),
        ("http://[::1", "is not a URL"),
    ],
)
def test_a_dataset_url_that_is_no_web_address_is_reported_with_the_reason(value: str, reason: str) -> None:
    problem = url_problem(value)
    assert problem is not None and reason in problem


def test_dataset_url_points_at_the_key(tmp_path: Path) -> None:
    data = json.loads(TEXTJUDGE.read_text())
    data["dataset_url"] = ""
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(data, indent=2))
    assert _findings(path, tmp_path) == [("textjudge/dataset-url", "dataset.json", "/dataset_url")]


# --- what a dataset folder holds ----------------------------------------------------------------


def test_a_dataset_folder_may_hold_documentation_media_and_configuration(tmp_path: Path) -> None:
    folder = _experiment(tmp_path / "exp")
    for name in ("README.md", "LICENSE", "CITATION.cff", "Licence.txt", ".gitattributes", "humanjudge.toml"):
        (folder / name).write_text("\n")
    (folder / "scene.png").write_bytes(b"\x89PNG")
    (folder / "assets").mkdir()
    (folder / "assets" / "notes.txt").write_text("what each clip shows\n")  # assets/ is not looked into
    (folder / ".cache").mkdir()
    assert _findings(folder, folder) == []


def test_every_file_of_no_format_in_an_experiment_is_reported_once(tmp_path: Path) -> None:
    """Each file is reported once, as dataset/extra-file of the experiment whose folder holds it:
    a data file of no format too (it is the experiment's, not a file the walk merely passed)."""
    folder = _experiment(tmp_path / "exp")
    (folder / "results.csv").write_text("a,b\n1,2\n")
    (folder / "notes.txt").write_text("pilot run\n")
    (folder / "analysis").mkdir()
    (folder / "analysis" / "run.R").write_text("x <- 1\n")
    result = validate([folder], cwd=str(folder))
    assert sorted((f.code, f.file, f.pointer) for f in result.findings) == [
        ("dataset/extra-file", "analysis", ""),
        ("dataset/extra-file", "notes.txt", ""),
        ("dataset/extra-file", "results.csv", ""),
    ]
    assert result.skipped == ()
    # named by one of its files, as a hook names the staged ones, the dataset is checked whole,
    # and nothing is said of the other paths of its folder: they were not named
    assert _findings(folder / "trial.jsonl", folder) == []


def test_a_sub_folder_holding_a_dataset_is_checked_on_its_own_not_reported(tmp_path: Path) -> None:
    folder = _experiment(tmp_path / "exp")
    _experiment(folder / "older")
    result = validate([folder], cwd=str(folder))
    assert result.findings == []
    assert result.files == 10


def test_the_core_reports_extra_files_of_every_folder_format(tmp_path: Path) -> None:
    task = tmp_path / "question"
    shutil.copytree(HALIE_TASK, task)
    (task / "notes.txt").write_text("\n")
    assert _findings(task, task) == [("dataset/extra-file", "notes.txt", "")]


def _study(root: Path) -> Path:
    study = root / "Study2024"
    study.mkdir()
    for name in ("exp1", "exp2"):
        _experiment(study / name)
    (study / "pilot").mkdir()
    (study / "pilot" / "notes.txt").write_text("the pilot's data were lost\n")
    (study / "pilot" / "ratings.csv").write_text("a\n1\n")
    (study / "empty").mkdir()
    for name in ("assets", ".git", "node_modules"):
        (study / name).mkdir()
        (study / name / "notes.txt").write_text("\n")
    (study / "README.md").write_text("# A study of two experiments\n")
    return study


def test_a_folder_beside_experiments_that_holds_none_is_reported_once(tmp_path: Path) -> None:
    study = _study(tmp_path)
    result = validate([tmp_path], cwd=str(tmp_path))
    assert sorted((f.code, f.file, f.pointer) for f in result.findings) == [
        ("dataset/not-a-dataset", "Study2024/empty", ""),
        ("dataset/not-a-dataset", "Study2024/pilot", ""),
    ]
    # its data file is counted among those left out, as everywhere
    assert [s.path for s in result.skipped] == [study / "pilot" / "ratings.csv"]
    # the same with the experiments checked in parallel
    assert _findings(tmp_path, tmp_path, jobs=2) == _findings(tmp_path, tmp_path)


def test_only_a_walk_through_the_study_reports_its_other_folders(tmp_path: Path) -> None:
    study = _study(tmp_path)
    assert _findings(study / "exp2", study / "exp2") == []
    assert _findings(study / "exp1" / "trial.jsonl", study / "exp1") == []


def test_links_are_left_alone_as_a_walk_leaves_them(tmp_path: Path) -> None:
    """A walk does not follow links (tests/test_security.py): a linked folder beside the
    experiments, or a shared assets/ linked into one, is not reported either."""
    study = tmp_path / "Study"
    study.mkdir()
    _experiment(study / "exp1")
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_text("\n")
    (study / "linked").symlink_to(shared, target_is_directory=True)
    (study / "exp1" / "media").symlink_to(shared, target_is_directory=True)
    (study / "exp1" / "notes.txt").symlink_to(shared / "notes.txt")
    assert _findings(study, study) == []
