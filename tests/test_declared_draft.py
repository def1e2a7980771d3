"""`humanjudge declare`: on the long layouts of the corpus tables, the draft, saved beside the
data unedited, exports the right number of judgments (counted here from the file with csv);
on records keyed by annotator and on one field per annotator it finds where the judgments are;
what it could not decide it says."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from humanjudge_schema import validate
from humanjudge_schema.judgments import rows

from .conftest import corpus


def _drafted(source: Path, tmp_path: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The file copied into a folder of its own, with the draft beside it as it was written."""
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(source, folder / source.name)
    done = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "declare", source.name, "-o", "humanjudge-format.toml"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return folder, done


def _declared(folder: Path) -> list[str]:
    return sorted({f.code for f in validate([folder]).findings if f.code.startswith("declared/")})


def test_a_headerless_log_of_triplets_exports_a_judgment_a_line(tmp_path: Path) -> None:
    source = corpus("tables", "gal-adultcontent2-triplets", "labels.txt")
    folder, done = _drafted(source, tmp_path)
    lines = [line for line in source.read_text(encoding="utf-8").splitlines() if line]
    found = list(rows([folder]))
    assert len(found) == len(lines) == 92721
    assert {(r.rater, r.item, r.value) for r in found[:3]} == {tuple(line.split("\t")) for line in lines[:3]}
    assert "no header row" in done.stderr
    assert _declared(folder) == []


def test_an_error_log_counts_a_raters_errors_of_an_item(tmp_path: Path) -> None:
    source = corpus("tables", "mqm-ted-ende", "mqm_ted_ende.tsv")
    folder, done = _drafted(source, tmp_path)
    with open(source, encoding="utf-8", newline="") as f:
        table = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    errors = Counter((f"{r['system']}/{r['seg_id']}", r["rater"]) for r in table)
    found = {(r.item, r.rater): r.value for r in rows([folder])}
    assert found == dict(errors) and len(found) == 7406
    assert 'combine = "count"' in (folder / "humanjudge-format.toml").read_text()
    assert "counted" in done.stderr
    assert _declared(folder) == []


def test_one_hot_and_multi_select_columns_export_as_the_shipped_declaration_does(tmp_path: Path) -> None:
    source = corpus("tables", "convabuse-long", "ConvAbuseEMNLPfull.csv")
    folder, _ = _drafted(source, tmp_path)
    with open(source, encoding="utf-8", newline="") as f:
        table = list(csv.DictReader(f))
    asked = {
        q: sum(any(r[c] == "1" for c in r if c.startswith(q + ".")) for r in table)
        for q in ("type", "target", "direction")
    }
    counted = Counter(r.question for r in rows([folder]))
    assert counted == {"is_abuse": len(table), **asked}
    assert _declared(folder) == []


def test_annotations_keyed_by_annotator_are_found(tmp_path: Path) -> None:
    data = tmp_path / "items.json"
    data.write_text(
        json.dumps({"1": {"annotations": {"a": "0", "b": "1"}}, "2": {"annotations": {"a": "1", "c": "1"}}})
    )
    folder, done = _drafted(data, tmp_path)
    assert sorted((r.item, r.rater, r.value) for r in rows([folder])) == [
        ("1", "a", "0"),
        ("1", "b", "1"),
        ("2", "a", "1"),
        ("2", "c", "1"),
    ]
    assert "keyed by rater; name the question" in done.stderr


def test_one_field_per_annotator_is_found(tmp_path: Path) -> None:
    data = tmp_path / "pairs.json"
    data.write_text(json.dumps([{"idx": 0, "judge1": 1, "judge2": 2}, {"idx": 1, "judge1": 0, "judge2": 0}]))
    folder, _ = _drafted(data, tmp_path)
    assert sorted((r.item, r.rater, r.value) for r in rows([folder])) == [
        (0, "1", 1),
        (0, "2", 2),
        (1, "1", 0),
        (1, "2", 0),
    ]


def test_what_cannot_be_drafted_is_one_line_and_exit_2(tmp_path: Path) -> None:
    data = tmp_path / "notes.json"
    data.write_text('"just a text"')
    done = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "declare", str(data)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "holds no records" in done.stderr


@pytest.mark.parametrize("name", ["votes.txt", "answers.csv"])
def test_the_draft_is_a_valid_declaration(name: str, tmp_path: Path) -> None:
    data = tmp_path / name
    data.write_text("item,worker,label\na,w1,x\na,w2,y\nb,w1,x\nb,w2,x\n")
    folder, _ = _drafted(data, tmp_path)
    assert validate([folder]).findings == []
    assert len(list(rows([folder]))) == 4
