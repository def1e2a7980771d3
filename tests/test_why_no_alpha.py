"""Every question says what its level is and, where it has no alpha, why: a TextJudge metric
without a category gets its level from its declaration, with a note; a null alpha always has a
reason, in stats' JSON and text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from humanjudge_schema.commands import cli

from .helpers import majority_only, tiny_dataset


def _stats(path: Path) -> tuple[dict[str, Any], str]:
    runner = CliRunner()
    found = runner.invoke(cli, ["stats", "--format", "json", "--samples", "20", str(path)], catch_exceptions=False)
    text = runner.invoke(cli, ["stats", "--samples", "20", str(path)], catch_exceptions=False)
    assert found.exit_code == text.exit_code == 0, found.output
    return {q["question"]: q for q in json.loads(found.stdout)["datasets"][0]["questions"]}, text.stdout


def _dataset(tmp_path: Path, decl: dict[str, Any], scores: list[list[Any]]) -> Path:
    data = tiny_dataset("Rate: {{ instance }}")
    one = data["instances"][0]
    data["annotations"] = [{"metric": "q", "prompt": "Rate: {{ instance }}", **decl}]
    data["instances"] = [
        {**one, "id": k, "annotations": {"q": {"individual_human_scores": s}}} for k, s in enumerate(scores)
    ]
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("decl", "scores", "level", "note"),
    [
        ({"worst": 1, "best": 6}, [[1, 2], [5, 6], [3, 3]], "ordinal", "ordinal, from its integer scale 1 to 6"),
        ({"worst": 0.0, "best": 1.0}, [[0.1, 0.2], [0.9, 0.8]], "interval", "interval, from its scale 0.0 to 1.0"),
        ({"worst": 0, "best": 0.5}, [[0.1, 0.2], [0.4, 0.3]], "interval", "interval, from its scale 0 to 0.5"),
        ({"labels_list": ["yes", "no"]}, [["yes", "no"], ["no", "no"]], "nominal", "nominal, from its labels_list"),
        ({}, [["a", "b"], ["c", "d"]], None, "and no scale or labels to tell its level from"),
    ],
)
def test_a_metric_without_category_gets_its_level_from_its_declaration(
    tmp_path: Path, decl: dict[str, Any], scores: list[list[Any]], level: str | None, note: str
) -> None:
    questions, text = _stats(_dataset(tmp_path, decl, scores))
    q = questions["q"]
    assert q["level"] == level and q["level_note"].startswith("no category declared") and note in q["level_note"]
    assert f"  q: {q['level_note']}" in text.splitlines()
    if level is not None:
        assert q["alpha"] is not None
    else:
        assert q["note"].startswith("no level of measurement")


def test_a_declared_category_has_no_level_note(tmp_path: Path) -> None:
    questions, _ = _stats(_dataset(tmp_path, {"category": "graded", "worst": 1, "best": 5}, [[1, 2], [4, 5]]))
    assert questions["q"]["level"] == "ordinal" and questions["q"]["level_note"] is None


@pytest.mark.parametrize(
    ("scores", "why"),
    [
        ([[3, 3], [3, 3, 3], [3]], "every judgment is 3: with one value there is nothing to agree or disagree on"),
        ([[1], [2], [3]], "no item has two judgments: agreement needs two raters of one item"),
    ],
)
def test_every_null_alpha_says_why(tmp_path: Path, scores: list[list[Any]], why: str) -> None:
    questions, text = _stats(_dataset(tmp_path, {"category": "graded", "worst": 1, "best": 5}, scores))
    q = questions["q"]
    assert q["alpha"] is None and q["note"] == why
    assert f"  q: no alpha: {why}" in text.splitlines()


def test_stored_majorities_only_say_so(tmp_path: Path) -> None:
    questions, _ = _stats(majority_only(tmp_path))
    assert questions["ok"]["note"].startswith("stored aggregates only")


def test_a_long_answer_is_quoted_cut_short(tmp_path: Path) -> None:
    """A page of free text under an interval scale is named by its first characters, not whole."""
    page = "words " * 2000
    questions, text = _stats(_dataset(tmp_path, {"worst": 0.0, "best": 1.0}, [[0.5, page], [0.2, 0.3]]))
    note = questions["q"]["note"]
    assert note == "interval values must be numbers, got " + repr(page)[:59] + "…"
    assert max(map(len, text.splitlines())) < 200
