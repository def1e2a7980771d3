"""Where declarations come from and what a declared format gives: a declaration beside the data
and one the configuration names are formats like any other (recognised, listed with their
origin, `--kind NAME`), a declaration that cannot say what its data holds fails clearly, and each
layout's case gives the rows it says."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import catalog, validate
from humanjudge_schema.judgments import rows

from .conftest import CASES

LAYOUTS = CASES / "declared" / "valid"

DECLARATION = """declaration = 1
name = "{name}"

[files.ratings]
name = "ratings.csv"
type = "csv"

[files.ratings.record]
type = "object"
required = ["item", "rater", "label"]
additionalProperties = false
properties.item = {{ type = "string" }}
properties.rater = {{ type = "string" }}
properties.label = {{ type = "integer" }}

[[judgments]]
file = "ratings"
item = "item"
rater = "{rater}"
question = "label"
value = "label"
"""
RATINGS = "item,rater,label\na,r1,1\na,r2,0\nb,r1,1\nb,r2,1\n"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def _dataset(folder: Path, name: str, rater: str = "rater") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ratings.csv").write_text(RATINGS)
    return folder


def test_a_declaration_beside_the_data_makes_its_format(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "data", "beside-ratings")
    (data / "humanjudge-format.toml").write_text(DECLARATION.format(name="beside-ratings", rater="rater"))
    result = validate([data])
    assert result.findings == [] and result.files == 2
    found = [(r.item, r.rater, r.value) for r in rows([data])]
    assert found == [("a", "r1", 1), ("a", "r2", 0), ("b", "r1", 1), ("b", "r2", 1)]
    assert catalog.get("beside-ratings").origin.startswith("beside the data")


def test_a_declaration_the_configuration_names_is_listed_and_taken_by_kind(tmp_path: Path) -> None:
    (tmp_path / "formats").mkdir()
    (tmp_path / "formats" / "ratings.toml").write_text(DECLARATION.format(name="configured-ratings", rater="rater"))
    (tmp_path / "pyproject.toml").write_text('[tool.humanjudge]\nformats = ["formats/ratings.toml"]\n')
    _dataset(tmp_path / "data", "configured-ratings")
    listed = _cli("formats", cwd=tmp_path)
    assert listed.returncode == 0
    line = next(x for x in listed.stdout.splitlines() if x.startswith("configured-ratings "))
    assert line.endswith("(declared in formats/ratings.toml)")
    checked = _cli("validate", "--kind", "configured-ratings", "data", cwd=tmp_path)
    assert (checked.returncode, checked.stdout.strip()) == (0, "No problems in 1 file.")
    stats = _cli("stats", "data", cwd=tmp_path)
    assert stats.returncode == 0 and "configured-ratings" in stats.stdout


def test_an_unknown_field_names_the_closest_real_one_at_its_line(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "data", "misspelt-ratings")
    (data / "humanjudge-format.toml").write_text(DECLARATION.format(name="misspelt-ratings", rater="ratr"))
    (finding,) = validate([data]).findings
    assert (finding.code, finding.pointer, finding.line) == ("declared/unknown-field", "/judgments/0/rater", 19)
    assert "did you mean 'rater'?" in finding.message


def test_a_mapping_that_matches_no_record_is_an_error_not_zero_judgments(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "items.json").write_text('{"1": {"annotations": {"a": 1}}}')
    (data / "humanjudge-format.toml").write_text(
        'declaration = 1\nname = "nothing-mapped"\n[files.items]\nname = "items.json"\ntype = "json"\n'
        'records = "/*"\nrecord = { type = "object" }\n[[judgments]]\nfile = "items"\neach = "labels/*"\n'
        'item = "@1"\nrater = "@2"\nquestion = "q"\nvalue = "."\n'
    )
    result = validate([data])
    assert [(f.code, f.pointer, f.line) for f in result.findings] == [("declared/no-judgment", "/judgments/0", 8)]
    assert result.errors == 1


def test_a_declaration_that_cannot_be_a_format_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "humanjudge.toml").write_text('formats = ["broken.toml"]\n')
    (tmp_path / "broken.toml").write_text('declaration = 1\nname = "broken\n')
    _dataset(tmp_path / "data", "x")
    done = _cli("validate", "data", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "invalid TOML" in done.stderr and "broken.toml" in done.stderr


def test_one_name_declared_in_two_folders_reads_each_with_its_own(tmp_path: Path) -> None:
    """Two versions of a dataset, each with its declaration (a diff of two folders, or of a
    commit): each folder's files are read by the declaration beside them."""
    old = _dataset(tmp_path / "old", "versions")
    (old / "humanjudge-format.toml").write_text(DECLARATION.format(name="two-versions", rater="rater"))
    new = tmp_path / "new"
    new.mkdir()
    (new / "ratings.csv").write_text(RATINGS.replace("item,rater,label", "item,worker,label"))
    declared = DECLARATION.format(name="two-versions", rater="worker").replace(
        'properties.rater = { type = "string" }', 'properties.worker = { type = "string" }'
    )
    (new / "humanjudge-format.toml").write_text(
        declared.replace('"item", "rater", "label"', '"item", "worker", "label"')
    )
    assert validate([old, new]).findings == []
    assert [r.rater for r in rows([old])] == [r.rater for r in rows([new])] == ["r1", "r2", "r1", "r2"]
    done = _cli("diff", "old", "new", cwd=tmp_path)
    assert done.returncode == 0 and "No judgment or stored aggregate changed" in done.stdout


def test_two_declarations_of_one_name_for_one_folder_are_refused(tmp_path: Path) -> None:
    for k in (1, 2):
        (tmp_path / f"ratings{k}.toml").write_text(DECLARATION.format(name="declared-twice", rater="rater"))
    (tmp_path / "humanjudge.toml").write_text('formats = ["ratings1.toml", "ratings2.toml"]\n')
    _dataset(tmp_path / "data", "twice")
    done = _cli("validate", "data", cwd=tmp_path)
    assert done.returncode == 2 and "declared-twice" in done.stderr and "rename one of them" in done.stderr


def test_a_declaration_may_not_take_an_installed_formats_name(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "data", "halie")
    (data / "humanjudge-format.toml").write_text(DECLARATION.format(name="halie", rater="rater"))
    (finding,) = validate([data]).findings
    assert (finding.code, finding.pointer, finding.line) == ("declared/name-taken", "/name", 2)
    assert "installed format" in finding.message


# --- each layout's rows -----------------------------------------------------------------------

# (item, rater, question, option, value, role) of every row of each layout's valid case
EXPECTED: dict[str, list[tuple[Any, ...]]] = {
    "long": [
        ("t1", "w1", "sentiment", "", "pos", "individual"),
        ("t1", "w2", "sentiment", "", "pos", "individual"),
        ("t1", "w3", "sentiment", "", "neutral", "individual"),
        ("t2", "w1", "sentiment", "", "neg", "individual"),
        ("t2", "w2", "sentiment", "", "neg", "individual"),
    ],
    "error-spans": [
        ("A/1", "r1", "mqm", "", -5.1, "individual"),
        ("A/1", "r2", "mqm", "", -1.0, "individual"),
        ("A/2", "r1", "mqm", "", 0.0, "individual"),
        ("ref/1", "r2", "mqm", "", -0.1, "individual"),
        ("A/1", "", "mqm", "", -3.05, "aggregate"),
        ("A/2", "", "mqm", "", 0.0, "aggregate"),
        ("ref/1", "", "mqm", "", -0.1, "aggregate"),
    ],
    "one-hot": [
        ("u1", "A1", "abuse", "", 1, "individual"),
        ("u1", "A2", "abuse", "", -1, "individual"),
        ("u2", "A1", "abuse", "", 0, "individual"),
        ("u2", "A2", "abuse", "", -1, "individual"),
        ("u1", "A2", "type", "", [1, 0], "individual"),
        ("u2", "A2", "type", "", [1, 1], "individual"),
    ],
    "wide-blocks": [
        (1, "1", "abuse", "", 0, "individual"),
        (2, "1", "abuse", "", 1, "individual"),
        (1, "1", "sexist", "", 0, "individual"),
        (2, "1", "sexist", "", 0, "individual"),
        (1, "2", "abuse", "", 0, "individual"),
        (2, "2", "abuse", "", 1, "individual"),
        (3, "2", "abuse", "", 0, "individual"),
        (1, "2", "sexist", "", 0, "individual"),
        (2, "2", "sexist", "", 1, "individual"),
        (3, "2", "sexist", "", 0, "individual"),
    ],
    "headerless-matrix": [
        ("s1", "1", "quality", "", 4, "individual"),
        ("s2", "1", "quality", "", 2, "individual"),
        ("s3", "1", "quality", "", 3, "individual"),
        ("s1", "2", "quality", "", 5, "individual"),
        ("s3", "2", "quality", "", 3, "individual"),
        ("s1", "3", "quality", "", 4, "individual"),
        ("s2", "3", "quality", "", 1, "individual"),
        ("s3", "3", "quality", "", 3, "individual"),
    ],
    "keyed-by-rater": [
        ("2", "Ann0", "irony", "", "0", "individual"),
        ("2", "Ann1", "irony", "", "1", "individual"),
        ("2", "Ann2", "irony", "", "1", "individual"),
        ("5", "Ann0", "irony", "", "0", "individual"),
        ("5", "Ann2", "irony", "", "1", "individual"),
        ("2", "", "irony", "0.0", 0.33, "aggregate"),
        ("2", "", "irony", "1.0", 0.67, "aggregate"),
        ("5", "", "irony", "0.0", 0.5, "aggregate"),
        ("5", "", "irony", "1.0", 0.5, "aggregate"),
        ("2", "", "irony", "", "1", "aggregate"),
        ("5", "", "irony", "", "0", "aggregate"),
    ],
    "raters-per-label": [
        ("m1", "w1", "kind", "", "spam", "individual"),
        ("m1", "w7", "kind", "", "spam", "individual"),
        ("m1", "w3", "kind", "", "ham", "individual"),
        ("m2", "w1", "kind", "", "ham", "individual"),
        ("m2", "w3", "kind", "", "ham", "individual"),
        ("m2", "w7", "kind", "", "ham", "individual"),
    ],
    "parallel-lists": [
        (1, "w1", "offensive", "", 1, "individual"),
        (1, "w2", "offensive", "", 1, "individual"),
        (1, "w3", "offensive", "", 0, "individual"),
        (2, "w1", "offensive", "", 0, "individual"),
        (2, "w3", "offensive", "", 0, "individual"),
        (3, "w1", "offensive", "", 1, "individual"),
        (3, "w2", "offensive", "", 1, "individual"),
        (4, "w2", "offensive", "", 0, "individual"),
        (4, "w3", "offensive", "", 1, "individual"),
        (4, "w1", "offensive", "", 0, "individual"),
    ],
    "file-per-rater": [
        ("s1", "alice", "fluency", "", 5, "individual"),
        ("s2", "alice", "fluency", "", 6, "individual"),
        ("s1", "bob", "fluency", "", 4, "individual"),
        ("s2", "bob", "fluency", "", 6, "individual"),
    ],
    "nested": [
        ("p1/0/bart", "2", "correctness", "", 40, "individual"),
        ("p1/0/bart", "3", "correctness", "", 60, "individual"),
        ("p1/0/human", "2", "correctness", "", 90, "individual"),
        ("p1/0/human", "3", "correctness", "", 80, "individual"),
        ("p1/0/bart", "2", "overall", "", 30, "individual"),
        ("p1/0/bart", "3", "overall", "", 35, "individual"),
        ("p1/0/human", "2", "overall", "", 80, "individual"),
        ("p1/0/human", "3", "overall", "", 85, "individual"),
        ("p1/0/bart", "", "correctness", "", 50.0, "aggregate"),
        ("p1/0/human", "", "correctness", "", 85.0, "aggregate"),
        ("p1/0/bart", "", "overall", "", 32.5, "aggregate"),
        ("p1/0/human", "", "overall", "", 82.5, "aggregate"),
    ],
    "pairwise-columns": [
        (0, "1", "preference", "", 1, "individual"),
        (1, "1", "preference", "", 0, "individual"),
        (0, "2", "preference", "", 1, "individual"),
        (1, "2", "preference", "", 2, "individual"),
    ],
    "pairwise-rows": [
        ("gpt/llama/1", "j1", "winner", "", "model_a", "individual"),
        ("gpt/llama/1", "j2", "winner", "", "model_a", "individual"),
        ("gpt/llama/1", "j3", "winner", "", "tie", "individual"),
        ("gpt/llama/2", "j1", "winner", "", "model_b", "individual"),
        ("gpt/llama/2", "j2", "winner", "", "model_b", "individual"),
        ("gpt/llama/1", "", "winner", "", "model_a", "aggregate"),
        ("gpt/llama/2", "", "winner", "", "model_b", "aggregate"),
    ],
    "multi-select-lists": [
        ("d1", "u1", "topics", "", [1, 0, 0], "individual"),
        ("d1", "u2", "topics", "", [1, 1, 0], "individual"),
        ("d2", "u1", "topics", "", [0, 0, 0], "individual"),
        ("d2", "u2", "topics", "", [0, 0, 1], "individual"),
    ],
}


def test_every_layout_case_has_its_rows_here() -> None:
    assert sorted(EXPECTED) == sorted(p.name for p in LAYOUTS.iterdir() if p.is_dir())


@pytest.mark.parametrize("layout", sorted(EXPECTED))
def test_a_layout_gives_the_rows_it_says(layout: str, tmp_path: Path) -> None:
    """The valid case, its declaration put beside its data: no finding, and these rows."""
    folder = tmp_path / layout
    shutil.copytree(LAYOUTS / layout, folder)
    (folder / "declaration.toml").rename(folder / "humanjudge-format.toml")
    assert validate([folder]).findings == []
    found = [(r.item, r.rater, r.question, r.option, r.value, r.role) for r in rows([folder])]
    assert found == EXPECTED[layout]
