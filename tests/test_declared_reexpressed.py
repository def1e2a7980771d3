"""A built-in format's judgments re-expressed as a declaration: HALIE's survey responses, one row
per session, the worker's ratings and free texts as questions, crossword's `joy` = -1 meaning
"not asked". The declared copy of each example task's survey exports the rows HALIE's view
exports (item, rater, question, value, pointer, line, role, rater kind), and validates clean.

What the vocabulary needed: `questions` (several answers in one row), `level = "text"` for the
free texts, and a field's `missing` (a value that means no answer); HALIE's row schemas serve as
the record schemas unchanged."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from humanjudge_schema import validate
from humanjudge_schema.formats.halie.judgments import IDENTIFIERS, SURVEY_LEVELS
from humanjudge_schema.judgments import rows

from .conftest import ROOT

EXAMPLES = ROOT / "examples" / "halie" / "valid"
SCHEMAS = ROOT / "schemas" / "halie" / "v1"
TASKS = ["crossword", "metaphor", "question", "summarization"]  # dialogue's items are turns


def _declaration(task: str, columns: list[str]) -> str:
    questions = [c for c in columns if c not in IDENTIFIERS]
    levels = SURVEY_LEVELS[task]
    lines = [
        "declaration = 1",
        f'name = "halie-survey-{task}"',
        "",
        "[files.survey]",
        'name = "survey.csv"',
        'type = "csv"',
        'schema = "survey-responses.schema.json"',
        "",
    ]
    for q in questions:
        lines += [f"[questions.{q}]", f'level = "{levels.get(q, "text")}"', ""]
    lines += [
        "[[judgments]]",
        'file = "survey"',
        'item = "session_id"',
        'rater = "worker_id"',
        "",
        "[judgments.questions]",
    ]
    for q in questions:
        lines.append(
            f'{q} = {{ field = "{q}", missing = [-1] }}' if (task, q) == ("crossword", "joy") else f'{q} = "{q}"'
        )
    return "\n".join(lines) + "\n"


def _fields(found: list[object]) -> Counter[tuple[object, ...]]:
    return Counter(
        (r.item, r.rater, r.question, r.value, r.pointer, r.line, r.role, r.rater_kind)  # type: ignore[attr-defined]
        for r in found
    )


@pytest.mark.parametrize("task", TASKS)
def test_halies_survey_declared_exports_halies_rows(task: str, tmp_path: Path) -> None:
    halie = tmp_path / "halie" / task
    shutil.copytree(EXAMPLES / task, halie)
    declared = tmp_path / "declared"
    declared.mkdir()
    survey = halie / "survey_responses.csv"
    shutil.copy(survey, declared / "survey.csv")
    shutil.copy(SCHEMAS / task / "survey-responses.schema.json", declared)
    columns = survey.read_text(encoding="utf-8").splitlines()[0].split(",")
    (declared / "humanjudge-format.toml").write_text(_declaration(task, columns))
    assert validate([declared]).findings == []
    theirs = [r for r in rows([halie]) if r.file.endswith("survey_responses.csv")]
    ours = list(rows([declared]))
    assert theirs and _fields(ours) == _fields(theirs)
