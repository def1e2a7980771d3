"""A declared format gets what every format gets. One small declared dataset, the example's crowd
sentiment labels (labels.csv: one row per review and worker; summary.csv: each review's stored
majority and number of labels; humanjudge-format.toml beside them), goes through every command:
`validate` in each output format and with `--quality`, `export` to CSV, JSON Lines and Parquet,
`stats` (with `--raters`), `report`, `diff` of two folders and `diff --git`, `card` and `card
--check`, the pre-commit hook's entry on staged files, and the Action's validate step on a pull
request (run as the runner runs it, tests/test_action.py).

The figures are worked out by hand from the eleven labels: items r1 (positive, positive,
neutral), r2 (negative x3), r3 (neutral, positive, neutral) and r4 (positive x2). Nominal alpha
is 1 - (4/11) / (78/110) = 19/39; the observed agreement (1/3 + 1 + 1/3 + 1) / 4 = 2/3; Gwet's
AC1 (2/3 - 0.3125) / (1 - 0.3125) = 17/33.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from . import test_action
from .conftest import ROOT
from .test_action import Runner, commit, git
from .test_precommit import hooks
from .test_reporters import _assert_valid_sarif

runner = test_action.runner  # the simulated runner, shared

EXAMPLES = ROOT / "examples" / "declared"
FORMAT = "example-sentiment"

# The broken example's findings: (code, file, line, column, pointer)
BROKEN = {
    ("declared/allowed-value", "broken/labels.csv", 7, 9, "/5/label"),
    ("declared/one-answer", "broken/labels.csv", 10, 8, "/8/label"),
    ("declared/raters-per-item", "broken/labels.csv", 11, 8, "/9/label"),
    ("declared/majority", "broken/summary.csv", 4, 4, "/2/majority"),
    ("declared/reference", "broken/summary.csv", 6, 1, "/4/review"),
    ("declared/aggregate-without-judgments", "broken/summary.csv", 6, 4, "/4/majority"),
    ("declared/aggregate-without-judgments", "broken/summary.csv", 6, 12, "/4/labels"),
}
ALPHA, OBSERVED, AC1 = 19 / 39, 2 / 3, 17 / 33
# r3's second label, ben's: line 9 of labels.csv, the 8th record
BEN_R3 = ("r3,ben,positive,4.4", "r3,ben,neutral,4.4")


def _cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


def _copy(which: str, folder: Path) -> Path:
    shutil.copytree(EXAMPLES / which, folder)
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


# --- validate ------------------------------------------------------------------------------------


def test_validate_text_names_file_line_column_code_and_pointer(tmp_path: Path) -> None:
    _copy("valid", tmp_path / "valid")
    _copy("broken", tmp_path / "broken")
    valid = _cli("validate", "valid", cwd=tmp_path)
    assert (valid.returncode, valid.stdout) == (0, "No problems in 3 files.\n")
    broken = _cli("validate", "broken", cwd=tmp_path)
    assert broken.returncode == 1
    lines = broken.stdout.splitlines()
    assert lines[-1] == "7 errors, 0 warnings in 3 files."
    for code, file, line, column, pointer in BROKEN:
        assert any(
            x.startswith(f"{file}:{line}:{column}: error {code} ") and x.endswith(f"(at {pointer})") for x in lines
        )


def test_validate_json_lists_each_finding_with_its_place(tmp_path: Path) -> None:
    _copy("broken", tmp_path / "broken")
    proc = _cli("validate", "--format", "json", "broken", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    found = {(f["code"], f["file"], f["line"], f["column"], f["pointer"]) for f in doc["findings"]}
    assert found == BROKEN and len(doc["findings"]) == 7
    assert {f["severity"] for f in doc["findings"]} == {"error"}
    assert doc["summary"]["files"] == 3 and doc["summary"]["errors"] == 7


def test_validate_github_annotates_each_file_and_writes_the_summary(tmp_path: Path) -> None:
    _copy("broken", tmp_path / "broken")
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    proc = _cli("validate", "--format", "github", "broken", cwd=tmp_path, env=env)
    assert proc.returncode == 1
    commands = [x for x in proc.stdout.splitlines() if x.startswith("::")]
    found = set()
    for command in commands:
        m = re.fullmatch(r"::error file=([^,]+),line=(\d+),col=(\d+),title=([^:]+)::.* \(at (/[^)]*)\)", command)
        assert m, command
        found.add((m[4], m[1], int(m[2]), int(m[3]), m[5]))
    assert found == BROKEN and len(commands) == 7
    text = summary.read_text()
    assert "**7 errors, 0 warnings in 3 files.**" in text
    assert "| <code>declared/aggregate-without-judgments</code> | error | 2 |" in text
    assert (
        "| <code>broken/labels.csv</code> | 3 | 0 |" in text and "| <code>broken/summary.csv</code> | 4 | 0 |" in text
    )


def test_validate_sarif_is_valid_and_names_the_rules(tmp_path: Path) -> None:
    _copy("broken", tmp_path / "broken")
    proc = _cli("validate", "--format", "sarif", "broken", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    _assert_valid_sarif(doc)
    (the_run,) = doc["runs"]
    rules = the_run["tool"]["driver"]["rules"]
    found = set()
    for result in the_run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert rules[result["ruleIndex"]]["shortDescription"]["text"]  # the rule is documented
        place = result["locations"][0]["physicalLocation"]
        region = place["region"]
        pointer = result["properties"]["pointer"]
        found.add(
            (result["ruleId"], place["artifactLocation"]["uri"], region["startLine"], region["startColumn"], pointer)
        )
        assert result["level"] == "error"
    assert found == BROKEN and len(the_run["results"]) == 7


def test_validate_quality_reads_the_declared_judgments(tmp_path: Path) -> None:
    _copy("valid", tmp_path / "valid")
    _copy("broken", tmp_path / "broken")
    valid = _cli("validate", "--quality", "valid", cwd=tmp_path)
    assert (valid.returncode, valid.stdout, valid.stderr) == (0, "No problems in 3 files.\n", "")
    proc = _cli("validate", "--quality", "--format", "json", "broken", cwd=tmp_path)
    quality = [f for f in json.loads(proc.stdout)["findings"] if f["code"].startswith("quality/")]
    # ben labels r3 twice (lines 9 and 10): agreement counts his first answer only, and says so
    assert [(f["code"], f["severity"], f["file"], f["line"], f["pointer"]) for f in quality] == [
        ("quality/repeated-answer", "warning", "broken/labels.csv", 9, "/7/label")
    ]
    assert "line 10" in quality[0]["message"]


# --- export, stats, report -----------------------------------------------------------------------


def _expected_rows(folder: Path) -> list[tuple[str, str, str, str, str, int, str]]:
    """(item, rater, value, file, pointer, line, role) of every row the dataset's files give."""
    out = []
    with open(folder / "labels.csv", newline="") as f:
        for i, row in enumerate(csv.DictReader(f)):
            out.append(
                (row["review"], row["worker"], row["label"], "ratings/labels.csv", f"/{i}/label", i + 2, "individual")
            )
    with open(folder / "summary.csv", newline="") as f:
        for i, row in enumerate(csv.DictReader(f)):
            out.append(
                (row["review"], "", row["majority"], "ratings/summary.csv", f"/{i}/majority", i + 2, "aggregate")
            )
    return out


def test_export_writes_every_judgment_with_its_provenance(tmp_path: Path) -> None:
    data = _copy("valid", tmp_path / "ratings")
    expected = _expected_rows(data)
    assert len(expected) == 15  # 11 labels, 4 stored majorities (a stored count is no judgment)
    proc = _cli("export", "ratings", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stderr == "wrote 11 judgments and 4 stored aggregates from 1 dataset to standard output\n"
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    got = [(r["item"], r["rater"], r["value"], r["file"], r["pointer"], int(r["line"]), r["role"]) for r in rows]
    assert got == expected
    assert {(r["format"], r["dataset"], r["question"], r["value_text"] == r["value"]) for r in rows} == {
        (FORMAT, "ratings", "sentiment", True)
    }
    assert {(r["role"], r["rater_kind"]) for r in rows} == {("individual", "person"), ("aggregate", "none")}

    assert _cli("export", "ratings", "-o", "out.jsonl", cwd=tmp_path).returncode == 0
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [
        (r["item"], r["rater"], r["value"], r["file"], r["pointer"], r["line"], r["role"]) for r in lines
    ] == expected
    assert all(r["value_number"] is None and r["value_text"] == r["value"] for r in lines)


def test_export_parquet_has_typed_columns(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    data = _copy("valid", tmp_path / "ratings")
    proc = _cli("export", "ratings", "-o", "out.parquet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    table = pq.read_table(tmp_path / "out.parquet")
    types = {f.name: str(f.type) for f in table.schema}
    assert types["line"] == "int64" and types["value_number"] == "double" and types["value_bool"] == "bool"
    assert types["value_text"] == "string"
    rows = table.to_pylist()
    got = [(r["item"], r["rater"], r["value"], r["file"], r["pointer"], r["line"], r["role"]) for r in rows]
    assert got == _expected_rows(data)


def test_stats_gives_alpha_observed_agreement_and_ac(tmp_path: Path) -> None:
    _copy("valid", tmp_path / "ratings")
    proc = _cli("stats", "--format", "json", "--raters", "ratings", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (dataset,) = json.loads(proc.stdout)["datasets"]
    assert dataset["format"] == FORMAT
    (q,) = dataset["questions"]
    assert (q["question"], q["level"], q["items"], q["judgments"], q["missing"]) == ("sentiment", "nominal", 4, 11, 0)
    assert q["raters_per_item"] == {"min": 2, "median": 3.0, "max": 3}
    assert q["alpha"] == pytest.approx(ALPHA)
    lo, hi = q["alpha_ci"]
    assert lo < q["alpha"] <= hi
    assert q["agreement"]["observed"] == pytest.approx(OBSERVED)
    assert q["agreement"]["ac"] == pytest.approx(AC1)
    assert q["distribution"]["counts"] == {"negative": 3, "neutral": 3, "positive": 5}
    # raters are persons: each one's items, across the dataset
    assert {(r["rater"], r["items"]) for r in dataset["raters"]} == {("ana", 4), ("ben", 3), ("caro", 4)}

    text = _cli("stats", "--raters", "ratings", cwd=tmp_path).stdout
    assert f"ratings ({FORMAT})" in text
    assert re.search(r"sentiment\s+nominal\s+4\s+11\s+2/3/3\s+0\.487\s+\[-?[0-9.]+, [0-9.]+\]\s+67%\s+0\.515", text), (
        text
    )
    assert "raters: 3 raters" in text


def test_report_shows_the_findings_and_the_agreement(tmp_path: Path) -> None:
    _copy("valid", tmp_path / "ratings")
    _copy("broken", tmp_path / "broken")
    proc = _cli("report", "ratings", "-o", "valid.html", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout == "wrote valid.html: 1 dataset, 0 errors, 0 warnings, 0 quality findings\n"
    page = (tmp_path / "valid.html").read_text()
    assert FORMAT in page and "4 items, 11 judgments" in page and "0.487" in page
    proc = _cli("report", "broken", "-o", "broken.html", cwd=tmp_path)
    assert proc.returncode == 1  # validate's exit code
    assert proc.stdout == "wrote broken.html: 1 dataset, 7 errors, 0 warnings, 1 quality finding\n"
    page = (tmp_path / "broken.html").read_text()
    for code, file, line, _, pointer in BROKEN:
        assert code in page and f"{file}:{line}" in page and pointer in page


# --- diff ----------------------------------------------------------------------------------------


def _one_change(found: dict[str, Any], old: str = "positive", new: str = "neutral") -> None:
    """The diff's JSON says that exactly one judgment changed: ben's label of r3, on line 9."""
    assert {k: found["summary"][k] for k in ("removed", "changed", "added")} == {"removed": 0, "changed": 1, "added": 0}
    (dataset,) = found["datasets"]
    assert (dataset["format"], dataset["status"], dataset["judgments"]) == (FORMAT, "changed", [11, 11])
    (q,) = dataset["questions"]
    assert (q["question"], q["removed"], q["changed"], q["added"]) == ("sentiment", 0, 1, 0)
    (example,) = q["examples"]
    assert {k: example[k] for k in ("kind", "item", "rater", "old", "new", "file", "pointer", "line")} == {
        "kind": "changed",
        "item": "r3",
        "rater": "ben",
        "old": old,
        "new": new,
        "file": "ratings/labels.csv",
        "pointer": "/7/label",
        "line": 9,
    }
    assert q["alpha"][0] == pytest.approx(ALPHA)
    assert dataset["findings_new"] == [] and dataset["findings_fixed"] == []


def test_diff_of_two_folders_reports_the_one_changed_judgment(tmp_path: Path) -> None:
    _copy("valid", tmp_path / "old" / "ratings")
    new = _copy("valid", tmp_path / "new" / "ratings")
    _edit(new / "labels.csv", *BEN_R3)
    proc = _cli("diff", "old", "new", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    _one_change(json.loads(proc.stdout))
    text = _cli("diff", "old", "new", cwd=tmp_path).stdout
    assert "Judgments: 0 removed, 1 changed, 0 added; datasets: changed 1." in text
    assert "changed item r3 rater ben: positive -> neutral (ratings/labels.csv:9 /7/label)" in text


def test_diff_shows_a_stale_stored_majority_as_a_new_finding(tmp_path: Path) -> None:
    _copy("valid", tmp_path / "old" / "ratings")
    new = _copy("valid", tmp_path / "new" / "ratings")
    _edit(new / "labels.csv", "r1,ben,positive", "r1,ben,neutral")  # r1's majority is now neutral
    found = json.loads(_cli("diff", "old", "new", "--format", "json", cwd=tmp_path).stdout)
    (dataset,) = found["datasets"]
    assert [(f["code"], f["file"], f["pointer"]) for f in dataset["findings_new"]] == [
        ("declared/majority", "ratings/summary.csv", "/0/majority")
    ]
    assert found["summary"]["findings_new"] == {"errors": 1, "warnings": 0}


def _repository(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q")
    _copy("valid", root / "ratings")
    (root / "README.md").write_text("data\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


@pytest.mark.parametrize("paths", [(), ("ratings",)], ids=["whole repository", "the dataset's folder"])
def test_diff_git_reads_the_commit_as_its_declaration_says(tmp_path: Path, paths: tuple[str, ...]) -> None:
    """The commit's files are read from git into a folder of their own: the declaration beside the
    data, and the files it declares, with their bytes."""
    repo = _repository(tmp_path / "repo")
    _edit(repo / "ratings" / "labels.csv", *BEN_R3)
    proc = _cli("diff", "--git", "HEAD", *paths, "--format", "json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    _one_change(json.loads(proc.stdout))
    commit(repo)
    proc = _cli("diff", "--git", "HEAD~1", "--head", "HEAD", *paths, "--format", "json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    _one_change(json.loads(proc.stdout))


def test_diff_git_of_a_deleted_declared_dataset(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "repo")
    shutil.rmtree(repo / "ratings")
    found = json.loads(_cli("diff", "--git", "HEAD", "--format", "json", cwd=repo).stdout)
    (dataset,) = found["datasets"]
    assert (dataset["dataset"], dataset["format"], dataset["status"]) == ("ratings", FORMAT, "removed")
    assert found["summary"]["removed"] == 11 and found["summary"]["aggregates_changed"] == 0


def test_diff_git_of_a_format_the_configuration_names(tmp_path: Path) -> None:
    """`formats = [...]` names a declaration outside the compared folder: the commit's copy of
    it is read too."""
    repo = tmp_path / "repo"
    (repo / "formats").mkdir(parents=True)
    shutil.copy(EXAMPLES / "valid" / "humanjudge-format.toml", repo / "formats" / "sentiment.toml")
    (repo / "data" / "ratings").mkdir(parents=True)
    for name in ("labels.csv", "summary.csv"):
        shutil.copy(EXAMPLES / "valid" / name, repo / "data" / "ratings" / name)
    (repo / "pyproject.toml").write_text('[tool.humanjudge]\nformats = ["formats/sentiment.toml"]\n')
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    _edit(repo / "data" / "ratings" / "labels.csv", *BEN_R3)
    for cwd, path in ((repo, "data/ratings"), (repo / "data", "ratings")):
        proc = _cli("diff", "--git", "HEAD", path, cwd=cwd)
        assert proc.returncode == 0, proc.stderr
        assert "Judgments: 0 removed, 1 changed, 0 added; datasets: changed 1." in proc.stdout
        assert "changed item r3 rater ben: positive -> neutral (data/ratings/labels.csv:9 /7/label)" in proc.stdout


# --- card ----------------------------------------------------------------------------------------


def _filled(node: Any) -> Any:
    """The card with every placeholder written by its author."""
    if isinstance(node, str):
        return "Written by the author." if node.startswith("FILL IN:") else node
    if isinstance(node, list):
        return [_filled(v) for v in node if not (isinstance(v, str) and v.startswith("FILL IN:"))] or ["Written."]
    if isinstance(node, dict):
        return {k: _filled(v) for k, v in node.items()}
    return node


def test_card_is_croissant_and_checks_clean(tmp_path: Path) -> None:
    data = _copy("valid", tmp_path / "ratings")
    proc = _cli("card", "ratings", "-o", "croissant.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    path = tmp_path / "croissant.json"
    card = json.loads(path.read_text())
    assert card["@type"] == "sc:Dataset" and card["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    assert card["@context"]["rai"] == "http://mlcommons.org/croissant/RAI/"
    files = {f["name"]: f for f in card["distribution"]}
    assert set(files) == {"labels.csv", "summary.csv", "humanjudge-format.toml"}
    for name, entry in files.items():
        assert entry["@type"] == "cr:FileObject" and entry["@id"] and entry["contentUrl"] == f"ratings/{name}"
        assert entry["contentSize"] == f"{(data / name).stat().st_size} B"
        assert entry["sha256"] == hashlib.sha256((data / name).read_bytes()).hexdigest()
    assert files["labels.csv"]["encodingFormat"] == "text/csv"
    assert card["rai:annotationsPerItem"] == (
        '"sentiment": min 2, median 3, max 3 annotations per item, over 4 items (11 judgments)'
    )
    assert (
        card["rai:annotatorDemographics"][0] == "annotators: 3 persons (distinct rater ids of the individual judgments)"
    )
    assert "Krippendorff's alpha (nominal) 0.4872" in card["rai:dataAnnotationAnalysis"][1]
    assert card["rai:dataCollectionMissingData"] == '"sentiment": 0 missing answers (null in the files), 11 answered'

    check = _cli("card", "--check", "croissant.json", "ratings", "--format", "json", cwd=tmp_path)
    assert check.returncode == 0, check.stdout
    findings = json.loads(check.stdout)["findings"]
    assert findings and {f["code"] for f in findings} == {"card/unfilled"}  # what is left to the author
    path.write_text(json.dumps(_filled(card), indent=2))
    check = _cli("card", "--check", "croissant.json", "ratings", "--format", "json", "--strict", cwd=tmp_path)
    assert check.returncode == 0 and json.loads(check.stdout)["findings"] == []

    # a card that says what the data does not is an error at its place
    _edit(data / "labels.csv", "r4,caro,positive,2.2\n", "")
    check = _cli("card", "--check", "croissant.json", "ratings", "--format", "json", cwd=tmp_path)
    assert check.returncode == 1
    found = {(f["code"], f["pointer"]) for f in json.loads(check.stdout)["findings"] if f["severity"] == "error"}
    assert found == {
        ("card/file-size", "/distribution/0/contentSize"),
        ("card/file-hash", "/distribution/0/sha256"),
        ("card/annotations-per-item", "/rai:annotationsPerItem"),  # r4 has one label now
        ("card/record-count", "/recordSet/0/description"),  # 10 judgments of "sentiment" now
        ("card/record-count", "/recordSet/2/description"),  # 10 rows of labels.csv now
    }


# --- the pre-commit hook -------------------------------------------------------------------------


def _hook_entry(hook_id: str, repo: Path) -> subprocess.CompletedProcess[str]:
    """The hook's entry on the staged files, as pre-commit runs it (humanjudge on the PATH)."""
    (hook,) = (h for h in hooks() if h["id"] == hook_id)
    staged = git(repo, "diff", "--cached", "--name-only").splitlines()
    assert staged
    command = shlex.split(hook["entry"])
    assert command[0] == "humanjudge"
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *command[1:], *staged],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc


def test_the_hook_checks_a_staged_declared_file(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "repo")
    labels = repo / "ratings" / "labels.csv"
    _edit(labels, *BEN_R3)
    git(repo, "add", "ratings/labels.csv")
    proc = _hook_entry("humanjudge", repo)
    assert (proc.returncode, proc.stdout) == (0, "No problems in 3 files.\n")  # its whole dataset

    _edit(labels, "r2,caro,negative", "r2,caro,Negative")
    git(repo, "add", "ratings/labels.csv")
    proc = _hook_entry("humanjudge", repo)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith("ratings/labels.csv:7:9: error declared/allowed-value 'Negative'")

    _edit(labels, "r1,ana,positive,4.2", "r1,ana,positive,-4.2")
    git(repo, "add", "ratings/labels.csv")
    proc = _hook_entry("humanjudge-schema", repo)  # the record schema only: seconds >= 0
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "ratings/labels.csv:2:17: error schema/minimum -4.2 is less than the minimum of 0 (at /0/seconds)",
        "1 error, 0 warnings in 3 files.",
    ]


@pytest.mark.parametrize("content", ["", "item,rater,answer\nr1,ana,positive\n"], ids=["emptied", "another header"])
def test_the_hook_checks_a_declared_file_that_no_longer_looks_like_one(tmp_path: Path, content: str) -> None:
    """--base HEAD: a file the declaration beside it names, and that was one of its files in HEAD,
    is checked as one whatever it holds now; never left out as a file of no known format."""
    repo = _repository(tmp_path / "repo")
    (repo / "ratings" / "labels.csv").write_text(content)
    git(repo, "add", "ratings/labels.csv")
    proc = _hook_entry("humanjudge", repo)
    assert proc.returncode == 1, proc.stdout
    codes = {line.split()[2] for line in proc.stdout.splitlines() if line.startswith("ratings/labels.csv:")}
    if content:  # the header the declaration's record schema asks for
        assert {"declared/missing-column", "declared/unknown-column"} <= codes
    else:
        assert codes == {"parse/empty"}
    assert "left out" not in proc.stdout


# --- the Action on a pull request ----------------------------------------------------------------


@pytest.fixture
def pull_request(runner: Runner) -> tuple[Runner, str]:
    """A repository whose base commit holds the declared dataset in ratings/."""
    ws = runner.workspace
    git(ws, "init", "-q")
    _copy("valid", ws / "ratings")
    (ws / "README.md").write_text("data\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "base")
    return runner, git(ws, "rev-parse", "HEAD")


def test_a_pull_request_that_breaks_the_declared_csv_fails(pull_request: tuple[Runner, str]) -> None:
    action, base = pull_request
    ws = action.workspace
    _edit(ws / "ratings" / "labels.csv", "r2,caro,negative", "r2,caro,Negative")
    commit(ws)
    proc = action.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_SARIF="humanjudge.sarif")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    commands = [line for line in proc.stdout.splitlines() if line.startswith("::error")]
    assert len(commands) == 1
    assert commands[0].startswith("::error file=ratings/labels.csv,line=7,col=9,title=declared/allowed-value::")
    assert action.outputs() == {"errors": "1", "warnings": "0", "sarif": "humanjudge.sarif", "report": ""}
    summary = action.summary()
    assert "**1 error, 0 warnings in 3 files.**" in summary
    assert "| <code>ratings/labels.csv</code> | 7:9 | error | <code>declared/allowed-value</code> |" in summary
    sarif = json.loads((ws / "humanjudge.sarif").read_text())
    _assert_valid_sarif(sarif)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["declared/allowed-value"]


def test_a_pull_request_that_changes_a_rating_shows_it_in_the_summary(pull_request: tuple[Runner, str]) -> None:
    action, base = pull_request
    ws = action.workspace
    _edit(ws / "ratings" / "labels.csv", *BEN_R3)
    commit(ws)
    proc = action.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = action.summary()
    first = summary.split("## humanjudge validate")[0]
    assert first.startswith("## What this pull request changes in the judgments")
    assert "Judgments: 0 removed, 1 changed, 0 added; datasets: changed 1." in first
    assert f"| <code>ratings</code> | {FORMAT} | changed | 11 → 11 | 0 | 1 | 0 | 0 |" in first
    assert "changed item r3 rater ben: positive -&gt; neutral (ratings/labels.csv:9 /7/label)" in first
    assert "**No problems in 3 files.**" in summary


def test_a_pull_request_that_empties_the_declared_csv_fails(pull_request: tuple[Runner, str]) -> None:
    action, base = pull_request
    ws = action.workspace
    (ws / "ratings" / "labels.csv").write_text("")
    commit(ws)
    proc = action.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"^::error file=ratings/labels\.csv,title=parse/empty::", proc.stdout, re.M), proc.stdout


def test_mlcroissant_reads_the_card(tmp_path: Path) -> None:
    pytest.importorskip("mlcroissant")
    _copy("valid", tmp_path / "ratings")
    proc = _cli("card", "ratings", "-o", "croissant.json", "--validate", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1].endswith("no errors")
