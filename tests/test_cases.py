"""Every folder under tests/cases is a case: valid ones have no findings, invalid ones exactly
the (code, file, pointer) triples of their expected.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from humanjudge_schema import catalog, validate
from humanjudge_schema.rulebook import load_all

from .conftest import CASES


def _cases(verdict: str) -> list[Path]:
    return sorted(p for p in CASES.glob(f"*/{verdict}/*") if p.is_dir())


def _ids(paths: list[Path]) -> list[str]:
    return [f"{p.parts[-3]}/{p.name}" for p in paths]


def _findings(case: Path) -> list[tuple[str, str, str]]:
    family = case.parts[-3]
    result = validate([case], kind=family, cwd=str(case))
    return sorted((f.code, f.file, f.pointer) for f in result.findings)


@pytest.mark.parametrize("case", _cases("valid"), ids=_ids(_cases("valid")))
def test_valid_case_has_no_findings(case: Path) -> None:
    assert _findings(case) == []


@pytest.mark.parametrize("case", _cases("invalid"), ids=_ids(_cases("invalid")))
def test_invalid_case_has_exactly_the_expected_findings(case: Path) -> None:
    expected = sorted(tuple(x) for x in json.loads((case / "expected.json").read_text()))
    assert _findings(case) == expected


def test_every_code_has_an_invalid_case() -> None:
    covered = set()
    for case in _cases("invalid"):
        covered.update(code for code, _, _ in json.loads((case / "expected.json").read_text()))
    # Codes that only a hostile or broken installation can produce are tested in test_sources,
    # test_cli and test_engine, where their inputs are built at test time.
    # card/ codes compare a dataset card with the data: tests/test_card.py plants each in a card.
    # dataset/not-a-file is a link or a folder where links are not followed (validate --base, a
    # pull request): tests/test_forged.py builds each at test time.
    built_at_test_time = {c for c in load_all() if c.startswith(("parse/", "engine/", "card/", "dataset/not-a-file"))}
    schema_keywords = {c for c in load_all() if c.startswith("schema/")}
    missing = sorted(set(load_all()) - covered - built_at_test_time - schema_keywords)
    assert missing == [], f"codes without an invalid case: {missing}"


def test_every_code_is_documented() -> None:
    for code, doc in load_all().items():
        assert doc.summary and doc.why and doc.bad and doc.good, code
        family = code.split("/")[0]
        assert family in {"parse", "schema", "engine", "dataset", "quality", "card", *catalog.names()}, code
