"""`humanjudge card` on the real published datasets: every one with judgments gets a card that
mlcroissant validates and that `card --check` finds no error in; the others are refused with the
reason; and on a dataset of each format whose layout Croissant can express, the records
mlcroissant loads are export's rows. Skips without the corpus."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import corpus
from tests.test_card import THEIRS, loaded_and_exported

FAMILIES = ("coggym", "halie", "judgebench", "study1")
# What the corpus holds that no card can describe: experiments with no individual data a trial
# places (mean files only, or arrays under unknown tags) and a Git LFS pointer.
# Datasets whose files hold no judgment get a card of their files that says why it has no figures;
# a Git LFS pointer gets none (the data is not there).
WITHOUT = {
    "Bass2022Partial/exp1": "no individual data file human_data_ind.json",
    "Gerstenberg2018What/exp1a": "no individual data file human_data_ind.json",
    "JaraEttinger2021Quantitative/exp1": "no individual data file human_data_ind.json",
    "Levine2020Logic/exp1": "no individual data file human_data_ind.json",
    "Ong2015Affective/exp1": "no individual data file human_data_ind.json",
    "Tsvilodub2025Nonliteral/exp1": "no individual data file human_data_ind.json",
    "Ying2024Grounding/exp1": "no individual data file human_data_ind.json",
    "ying2025understanding/exp1": "is under a tag of its trial",
    "ying2025understanding/exp2": "is under a tag of its trial",
}
REFUSED = {"chatbot_arena_conversations/data.json": "Git LFS pointer"}


@pytest.fixture(scope="module")
def mlcroissant() -> Any:
    logging.getLogger("absl").setLevel(logging.ERROR)
    return pytest.importorskip("mlcroissant")


@THEIRS
def test_every_corpus_dataset_gets_a_card_mlcroissant_validates(tmp_path: Path, mlcroissant: Any) -> None:
    from humanjudge_schema.card import CardError, card, dataset
    from humanjudge_schema.card.build import dumps
    from humanjudge_schema.card.compare import compare
    from humanjudge_schema.card.croissant import validate
    from humanjudge_schema.judgments import units

    roots = [corpus(family) for family in FAMILIES]
    found = [u for root in roots for u in units([root], skip_unknown=True)[0]]
    assert len(found) == 47
    refused, written = {}, 0
    for k, unit in enumerate(found):
        try:
            doc = card(unit.root, samples=20, base=tmp_path)
        except CardError as exc:
            refused["/".join(unit.root.parts[-2:])] = str(exc)
            continue
        out = tmp_path / f"{k}.json"
        out.write_text(dumps(doc), encoding="utf-8")
        errors, _ = validate(out)
        assert errors == [], unit.root
        findings = compare(out, *dataset([unit.root]))
        assert {f.code for f in findings} == {"card/unfilled"}, (unit.root, findings[:3])
        written += 1
        name = "/".join(unit.root.parts[-2:])
        if name in WITHOUT:
            assert doc["rai:annotationsPerItem"].startswith("no judgments: ")
            assert WITHOUT[name] in doc["rai:annotationsPerItem"], doc["rai:annotationsPerItem"]
    assert written == 46
    assert set(refused) == set(REFUSED)
    for name, why in REFUSED.items():
        assert why in refused[name], refused[name]


@THEIRS
@pytest.mark.parametrize(
    "parts",
    [
        ("study1", "raw"),
        ("halie", "data", "std", "question"),
        ("halie", "data", "std", "dialogue"),
        ("judgebench", "dmg-illc+JUDGE-BENCH", "data", "dices", "dices_350_crowdsourced.json"),
        ("judgebench", "dmg-illc+JUDGE-BENCH", "data", "roscoe", "roscoe-cosmos-overall.json"),
    ],
    ids=lambda parts: "/".join(parts[-2:]),
)
def test_the_records_mlcroissant_loads_are_exports_rows(
    parts: tuple[str, ...], tmp_path: Path, mlcroissant: Any
) -> None:
    from humanjudge_schema.card import card
    from humanjudge_schema.card.build import dumps

    data = corpus(*parts)
    out = tmp_path / "croissant.json"
    out.write_text(dumps(card(data, samples=20, base=tmp_path)), encoding="utf-8")
    compared = 0
    for name, loaded, exported in loaded_and_exported(out, data, mlcroissant):
        assert loaded == exported, name
        compared += 1
    assert compared >= 1


def test_a_coggym_card_carries_the_experiments_citation() -> None:
    from humanjudge_schema.card import card

    data = corpus("coggym", "lance-ying__coggym", "EML", "sosa2021Moral", "exp1")
    doc = card(data, samples=20, base=data)
    config = json.loads((data / "config.json").read_text())
    assert doc["name"] == config["experimentName"]
    assert doc["url"] == config["paperDOI"]
    assert doc["citeAs"].startswith(config["citation"]) and doc["citeAs"].endswith(config["paperDOI"])
    assert "participants_info.gender: male 34, female 11, other 1" in doc["rai:annotatorDemographics"]
