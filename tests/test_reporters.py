"""The github and sarif output formats: escaping, the job summary, SARIF validity and rule
metadata, as library calls and through the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.finding import Finding, Severity
from humanjudge_schema.report import github, render, sarif
from humanjudge_schema.rulebook import load_all
from humanjudge_schema.validation import Result

from .conftest import ROOT

BROKEN = ROOT / "examples" / "coggym" / "broken"
SARIF_SCHEMA = Path(ROOT) / "tests" / "schemas" / "sarif-2.1.0.json"  # see tests/schemas/README.md

E, W = Severity.ERROR, Severity.WARNING


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc


# --- workflow commands ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "data", "prop"),
    [
        ("plain", "plain", "plain"),
        ("50%", "50%25", "50%25"),
        ("a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"),
        ("a: b, c", "a: b, c", "a%3A b%2C c"),
        ("%0A", "%250A", "%250A"),  # an escape sequence in the data stays text
        ("::warning::x", "::warning::x", "%3A%3Awarning%3A%3Ax"),
    ],
)
def test_escaping(text: str, data: str, prop: str) -> None:
    assert github.escape_data(text) == data
    assert github.escape_property(text) == prop


def test_a_command_is_one_line_whatever_the_data() -> None:
    f = Finding("coggym/unknown-tag", E, "'x\n::error::forged' 100%", "data/a,b:c/human_data_ind.json", "/t/x", 3, 5)
    line = github.command(f)
    assert line == (
        "::error file=data/a%2Cb%3Ac/human_data_ind.json,line=3,col=5,title=coggym/unknown-tag::"
        "'x%0A::error::forged' 100%25 (at /t/x)"
    )
    assert "\n" not in line and "\r" not in line


def test_commands_without_line_or_file() -> None:
    no_line = Finding("coggym/no-human-data", W, "no data", "exp/trial.jsonl", "")
    assert github.command(no_line) == "::warning file=exp/trial.jsonl,title=coggym/no-human-data::no data"
    no_file = Finding("engine/internal-error", E, "boom", "")
    assert github.command(no_file) == "::error title=engine/internal-error::boom"


def test_github_render_ends_with_the_tally() -> None:
    result = Result([Finding("schema/type", E, "bad", "a.json", "/x", 1, 2)], 3)
    out = render(result, "github").splitlines()
    assert out == ["::error file=a.json,line=1,col=2,title=schema/type::bad (at /x)", "1 error, 0 warnings in 3 files."]
    assert render(Result([], 2), "github") == "No problems in 2 files.\n"


# --- the job summary -----------------------------------------------------------------------


def _many(n_errors: int, n_warnings: int) -> Result:
    findings = [
        Finding("coggym/response-count", E, f"error {i}", f"exp{i % 3}/human_data_ind.json", f"/t{i}", i + 1, 1)
        for i in range(n_errors)
    ]
    findings += [
        Finding("coggym/no-human-data", W, f"warning {i}", "exp0/trial.jsonl", "", None) for i in range(n_warnings)
    ]
    findings.sort(key=Finding.sort_key)
    return Result(findings, 15)


def test_summary_lists_every_finding_with_counts_per_code_and_file() -> None:
    result = _many(25, 12)
    text = github.summary(result, group=False)
    assert "**25 errors, 12 warnings in 15 files.**" in text
    assert "| <code>coggym/response-count</code> | error | 25 |" in text
    assert "| <code>coggym/no-human-data</code> | warning | 12 |" in text
    assert "| <code>exp0/human_data_ind.json</code> | 9 | 0 |" in text
    assert "| <code>exp0/trial.jsonl</code> | 0 | 12 |" in text
    for i in range(25):
        assert f"| error {i} |" in text
    for i in range(12):
        assert f"| warning {i} |" in text
    assert "only the first 10 annotations" in text


def test_summary_escapes_html_and_table_breaks() -> None:
    f = Finding(
        "textjudge/unknown-label", E, "label '<img src=x onerror=alert(1)>|x'\nnext", "a|b.json", "/0/a|b", 1, 1
    )
    text = github.summary(Result([f], 1))
    assert "<img" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;&#124;x'\\nnext" in text  # the line feed as an escape
    assert "<code>a&#124;b.json</code>" in text
    row = next(line for line in text.splitlines() if "onerror" in line)
    assert row.count("|") == 7  # six cells, none split


def test_summary_of_a_clean_run() -> None:
    text = github.summary(Result([], 4))
    assert "No problems in 4 files." in text and "<details" not in text


def test_summary_stays_under_githubs_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    result = _many(20000, 0)
    text = github.summary(result, group=False)
    assert len(text.encode()) < github.SUMMARY_LIMIT
    assert "| <code>coggym/response-count</code> | error | 20000 |" in text  # counts stay complete
    assert "more findings not listed" in text


def test_format_github_writes_the_summary_when_asked(tmp_path: Path) -> None:
    summary_file = tmp_path / "summary.md"
    summary_file.write_text("earlier step\n")
    proc = run(
        "validate", "--format", "github", str(BROKEN.relative_to(ROOT)), env={"GITHUB_STEP_SUMMARY": str(summary_file)}
    )
    assert proc.returncode == 1
    commands = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert len(commands) == 10 and all(line.startswith("::error file=examples/coggym/broken/") for line in commands)
    text = summary_file.read_text()
    assert text.startswith("earlier step\n## humanjudge validate")
    assert sum(" | error | <code>" in line for line in text.splitlines()) == 10  # the list of findings
    without = run("validate", "--format", "github", str(BROKEN.relative_to(ROOT)), env={"GITHUB_STEP_SUMMARY": ""})
    assert without.stdout == proc.stdout and without.returncode == 1


# --- SARIF ---------------------------------------------------------------------------------


def _sarif_validator() -> Any:
    import jsonschema

    return jsonschema.Draft7Validator(json.loads(SARIF_SCHEMA.read_text()))


def _assert_valid_sarif(doc: dict[str, Any]) -> None:
    errors = sorted(_sarif_validator().iter_errors(doc), key=str)
    assert not errors, [e.message for e in errors[:5]]


def test_sarif_of_the_broken_example_is_valid_and_complete() -> None:
    proc = run("validate", "--format", "sarif", "examples/coggym/broken")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    _assert_valid_sarif(doc)
    assert doc["version"] == "2.1.0"
    (the_run,) = doc["runs"]
    rules = the_run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(load_all())
    results = the_run["results"]
    assert len(results) == 10
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        location = r["locations"][0]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uri"].startswith("examples/coggym/broken/") and artifact["uriBaseId"] == "%SRCROOT%"
        region = location["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert location["logicalLocations"][0]["fullyQualifiedName"] == r["properties"]["pointer"]
        assert r["level"] == "error"
    first = results[0]
    assert first["ruleId"] == "coggym/flow-id"
    assert first["locations"][0]["physicalLocation"]["region"] == {"startLine": 32, "startColumn": 11}
    assert first["properties"]["pointer"] == "/experimentFlow/0/blocks/1/3"


def test_sarif_rules_carry_the_registry_documentation() -> None:
    doc = sarif.document(Result([], 0))
    _assert_valid_sarif(doc)
    registry = load_all()
    for rule in doc["runs"][0]["tool"]["driver"]["rules"]:
        entry = registry[rule["id"]]
        assert rule["shortDescription"]["text"] == entry.summary
        assert rule["fullDescription"]["text"] == entry.why
        assert entry.bad in rule["help"]["text"] and entry.good in rule["help"]["text"]
        assert entry.bad in rule["help"]["markdown"] and entry.good in rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] == entry.severity.value


def test_sarif_edge_cases_stay_valid(tmp_path: Path) -> None:
    findings = [
        Finding("coggym/no-human-data", W, "no data", "exp one/trial.jsonl", ""),  # no line, a space
        Finding("parse/unreadable", E, "cannot read", str(tmp_path / "elsewhere" / "x.json"), ""),  # absolute
        Finding("engine/internal-error", E, "boom", ""),  # no file at all
        Finding("not-registered/code", E, "from a newer version", "a.json", "/0", 2, 1),
        Finding("schema/type", E, "50% sure", "ü/ñ#?.json", "/a~1b", 1, 1),
    ]
    doc = sarif.document(Result(findings, 3))
    _assert_valid_sarif(doc)
    results = doc["runs"][0]["results"]
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}
    assert results[0]["level"] == "warning"
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "exp%20one/trial.jsonl"
    absolute = results[1]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert absolute["uri"].startswith("file:///") and "uriBaseId" not in absolute
    assert "locations" not in results[2]
    assert "ruleIndex" not in results[3]
    assert results[4]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "%C3%BC/%C3%B1%23%3F.json"


def test_sarif_fingerprints_ignore_line_moves() -> None:
    a = sarif.document(Result([Finding("schema/type", E, "bad", "a.json", "/x", 3, 1)], 1))
    b = sarif.document(Result([Finding("schema/type", E, "bad", "a.json", "/x", 30, 9)], 1))
    c = sarif.document(Result([Finding("schema/type", E, "bad", "a.json", "/y", 3, 1)], 1))

    def fp(doc: dict[str, Any]) -> Any:
        return doc["runs"][0]["results"][0]["partialFingerprints"]

    assert fp(a) == fp(b) != fp(c)


def test_sarif_caps_results_at_what_code_scanning_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif, "MAX_RESULTS", 5)
    doc = sarif.document(_many(8, 0), group=False)
    _assert_valid_sarif(doc)
    assert len(doc["runs"][0]["results"]) == 5
    note = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert note.startswith("8 results; only the first 5")


def test_json_and_text_formats_are_unchanged() -> None:
    proc = run("validate", "--format", "json", "examples/coggym/broken")
    assert json.loads(proc.stdout)["summary"] == {
        "files": 5,
        "errors": 10,
        "warnings": 0,
        "skipped": 0,
        "configuration": ["pyproject.toml"],  # the repository's own, empty [tool.humanjudge]
    }
    assert run("validate", "examples/coggym/valid").stdout == "No problems in 5 files.\n"


# --- alike findings, grouped ---------------------------------------------------------------------


def _alike() -> Result:
    """80 trial lines lacking one field, 2 of another, one summary of unlisted findings."""
    findings = [
        Finding("schema/required", E, "'option' is a required property", "exp/trial.jsonl", f"/{i}/queries/0", i + 1, 3)
        for i in range(80)
    ]
    findings += [
        Finding("schema/required", E, "'id' is a required property", "exp/trial.jsonl", f"/{i}", i + 1, 1)
        for i in (3, 9)
    ]
    findings.append(Finding("coggym/unknown-tag", E, "10 more findings", "exp/human_data_ind.json", "", None, more=10))
    findings.sort(key=Finding.sort_key)
    return Result(findings, 5)


def test_alike_findings_are_one_line_with_their_count_and_places() -> None:
    from humanjudge_schema.report import render

    lines = render(_alike(), "text").splitlines()
    grouped = [line for line in lines if "'option'" in line]
    assert grouped == [
        "exp/trial.jsonl:1:3: error schema/required 'option' is a required property (at /0/queries/0) "
        "[and 79 more: lines 2, 3, 4, 5, 6, ...]"
    ]
    assert sum("'id'" in line for line in lines) == 2  # two alike are shown each
    ids = [line.split(":")[1] for line in lines if "'id'" in line]
    assert ids == ["4", "10"]  # each in its own place, in file order
    assert lines[-1] == (
        "92 errors, 0 warnings in 5 files. Alike findings are shown once with their count (--no-group shows each)."
    )
    every = render(_alike(), "text", group=False).splitlines()
    assert sum("'option'" in line for line in every) == 80 and "Alike" not in every[-1]


def test_json_keeps_every_finding_and_marks_its_group() -> None:
    from humanjudge_schema.report import render

    found = json.loads(render(_alike(), "json"))["findings"]
    assert len(found) == 83
    groups = {f.get("group") for f in found if "'option'" in f["message"]}
    assert len(groups) == 1 and None not in groups
    (gid,) = groups
    assert gid == json.loads(render(_alike(), "json"))["findings"][0].get("group", gid)  # stable
    assert all("group" not in f for f in found if "'option'" not in f["message"])
    assert all("group" not in f for f in json.loads(render(_alike(), "json", group=False))["findings"])


def test_sarif_gives_a_group_one_result_with_related_locations() -> None:
    doc = sarif.document(_alike())
    _assert_valid_sarif(doc)
    results = doc["runs"][0]["results"]
    option = [r for r in results if "'option'" in r["message"]["text"]]
    assert len(option) == 1 and len(option[0]["relatedLocations"]) == 79
    assert option[0]["properties"]["count"] == 80
    lines = [loc["physicalLocation"]["region"]["startLine"] for loc in option[0]["relatedLocations"]]
    assert lines == list(range(2, 81))
    summarised = next(r for r in results if r["ruleId"] == "coggym/unknown-tag")
    assert summarised["properties"]["count"] == 10  # a summary of unlisted findings carries its count
    assert len(results) == 4


def test_the_summary_and_annotations_group_alike_findings() -> None:
    text = github.summary(_alike())
    rows = [line for line in text.splitlines() if "&#39;option&#39;" in line or "'option'" in line]
    assert len(rows) == 1 and "and 79 more: lines 2, 3, 4, 5, 6, ..." in rows[0]
    assert "**92 errors, 0 warnings in 5 files.**" in text
    commands = [line for line in github.render(_alike()).splitlines() if line.startswith("::error")]
    assert len(commands) == 4
