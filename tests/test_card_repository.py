"""`humanjudge card FOLDER` of several datasets: one card of them all, each file once in its
distribution (a TextJudge file too, whatever its number of questions), a record set per dataset
and role named under the dataset's path, contentUrls relative to where the card is written;
mlcroissant validates it and loads export's rows from it, from any working folder; `card --check`
finds the contradictions planted in one dataset's section, and only there."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from .conftest import corpus
from .test_card import EXAMPLES, THEIRS, _check, _invoke, loaded_and_exported, written_card

DATASETS = {"tj/a.json", "tj/b.json", "crossword", "study1"}


def _repository(tmp_path: Path) -> Path:
    """Two TextJudge files with the same questions, a HALIE task and study 1, in one folder."""
    repo = tmp_path / "repo"
    (repo / "tj").mkdir(parents=True)
    for name in ("a.json", "b.json"):
        shutil.copy(EXAMPLES / "textjudge" / "valid" / "dataset.json", repo / "tj" / name)
    shutil.copytree(EXAMPLES / "halie" / "valid" / "crossword", repo / "crossword")
    shutil.copytree(EXAMPLES / "study1" / "valid", repo / "study1")
    return repo


def test_a_repository_has_one_card_each_file_once_a_record_set_per_dataset_and_role(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    out, card = written_card(tmp_path, repo)
    files = sorted(p for p in repo.rglob("*") if p.is_file())
    urls = sorted(entry["contentUrl"] for entry in card["distribution"])
    # each file once, found from where the card is (cards/), not from where it was run
    assert urls == sorted(os.path.relpath(p, out.parent).replace(os.sep, "/") for p in files)
    assert all(url.startswith("../repo/") for url in urls)
    assert len({entry["@id"] for entry in card["distribution"]}) == len(files)
    ids = [rs["@id"] for rs in card["recordSet"]]
    assert {i.rpartition("/")[0] for i in ids} == DATASETS
    assert {"tj/a.json/judgments", "tj/a.json/aggregates", "tj/b.json/judgments", "tj/b.json/aggregates"} <= set(ids)
    heads = re.findall(r'^dataset "([^"]+)":$', card["rai:annotationsPerItem"], re.MULTILINE)
    assert sorted(heads) == sorted(DATASETS)
    assert card["name"].startswith("FILL IN:") and "4 datasets" in card["description"]


def test_a_repository_named_by_a_relative_path_has_the_same_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two experiments whose files have the same names: each must keep its own @id
    repo = tmp_path / "repo"
    for name in ("exp1", "exp2"):
        shutil.copytree(EXAMPLES / "coggym" / "valid", repo / name)
    _, absolute = written_card(tmp_path, repo)
    monkeypatch.chdir(tmp_path)
    _, relative = written_card(tmp_path, Path("repo"))
    assert relative == absolute
    ids = [entry["@id"] for entry in relative["distribution"]]
    assert len(ids) == len(set(ids)) and all(i.startswith(("exp1/", "exp2/")) for i in ids)
    assert {rs["@id"].partition("/")[0] for rs in relative["recordSet"]} == {"exp1", "exp2"}


def test_a_textjudge_file_is_named_once_whatever_its_questions(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    shutil.copy(EXAMPLES / "textjudge" / "valid" / "dataset.json", data)
    _, card = written_card(tmp_path, data)
    assert [entry["@id"] for entry in card["distribution"]] == ["data.json"]  # was one per record set
    assert [rs["@id"] for rs in card["recordSet"]] == ["judgments", "aggregates"]
    fields = {f["name"] for f in card["recordSet"][0]["field"]}
    assert fields == {"item", "fluency", "grammatical"}


@pytest.fixture(scope="module")
def mlcroissant() -> Any:
    return pytest.importorskip("mlcroissant")


@THEIRS
def test_mlcroissant_validates_it_and_loads_exports_rows_from_any_folder(
    tmp_path: Path, mlcroissant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from humanjudge_schema.card.croissant import validate

    repo = _repository(tmp_path)
    out, _ = written_card(tmp_path, repo)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the contentUrls are the card's, not the working folder's
    errors, warnings = validate(out)
    assert errors == [] and all("is recommended" in w for w in warnings), warnings
    compared = set()
    for name, loaded, exported in loaded_and_exported(out, repo, mlcroissant):
        assert loaded == exported, name
        assert sum(loaded.values()) > 0, name
        compared.add(name.split("/")[0] if not name.startswith("tj/") else "/".join(name.split("/")[:2]))
    assert compared == DATASETS


def test_check_finds_what_was_planted_in_one_datasets_section(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    out, card = written_card(tmp_path, repo)
    code, findings = _check(out, repo)
    assert code == 0 and {f["code"] for f in findings} == {"card/unfilled"}

    per_item = card["rai:annotationsPerItem"].splitlines()
    b = per_item.index('dataset "tj/b.json":') + 1  # b's first question; a's says the same, untouched
    per_item[b] = re.sub(r"max (\d+)", lambda m: f"max {int(m.group(1)) + 2}", per_item[b])
    card["rai:annotationsPerItem"] = "\n".join(per_item)
    missing = card["rai:dataCollectionMissingData"].splitlines()
    s = missing.index('dataset "study1":') + 1
    missing[s] = re.sub(r": (\d+) missing", lambda m: f": {int(m.group(1)) + 5} missing", missing[s])
    card["rai:dataCollectionMissingData"] = "\n".join(missing)
    people = card["rai:annotatorDemographics"]
    c = people.index('dataset "crossword":') + 1
    people[c] = re.sub(r"annotators: (\d+)", lambda m: f"annotators: {int(m.group(1)) + 1}", people[c])
    r = [rs["@id"] for rs in card["recordSet"]].index("tj/b.json/judgments")
    said = card["recordSet"][r]["description"]
    card["recordSet"][r]["description"] = re.sub(r": (\d+) records", lambda m: f": {int(m.group(1)) + 1} records", said)
    f = next(i for i, entry in enumerate(card["distribution"]) if entry["@id"].startswith("crossword/"))
    card["distribution"][f]["sha256"] = "0" * 64
    out.write_text(json.dumps(card, indent=2, ensure_ascii=False), encoding="utf-8")

    code, findings = _check(out, repo)
    assert code == 1
    per_item = [f for f in findings if f["code"] == "card/annotations-per-item"]
    assert len(per_item) == 1 and "max" in per_item[0]["message"]  # b's line; a's, the same text, is right
    found = {(f["code"], f["pointer"]) for f in findings if f["code"] != "card/unfilled"}
    assert found == {
        ("card/annotations-per-item", "/rai:annotationsPerItem"),
        ("card/missing-answers", "/rai:dataCollectionMissingData"),
        ("card/annotator-count", f"/rai:annotatorDemographics/{c}"),
        ("card/record-count", f"/recordSet/{r}/description"),
        ("card/file-hash", f"/distribution/{f}/sha256"),
    }


@THEIRS
def test_judge_benchs_data_folder_gets_one_card(tmp_path: Path, mlcroissant: Any) -> None:
    from humanjudge_schema.card.croissant import validate

    data = corpus("judgebench", "dmg-illc+JUDGE-BENCH", "data")
    out = tmp_path / "card.json"
    result = _invoke("card", str(data), "-o", str(out), "--samples", "20")
    assert result.exit_code in (0, 1), result.output  # the exit code is validate's
    assert "left out chatbot_arena_conversations/data.json: no judgments:" in result.stderr
    assert "Git LFS pointer" in result.stderr
    card = json.loads(out.read_text(encoding="utf-8"))
    heads = re.findall(r'^dataset "([^"]+)":$', card["rai:annotationsPerItem"], re.MULTILINE)
    assert len(heads) == len(set(heads)) >= 17 and "roscoe/roscoe-cosmos-overall.json" in heads
    ids = [entry["@id"] for entry in card["distribution"]]
    assert len(ids) == len(set(ids)) == len({entry["contentUrl"] for entry in card["distribution"]})
    errors, _ = validate(out)
    assert errors == []
    _, findings = _check(out, data)
    assert {f["code"] for f in findings} == {"card/unfilled"}
