"""A question whose raters judge no shared object (`Question.shared` False: study 1's
self-assessments and ratings of the worker's own response) gets its distribution and no
agreement, with the reason in its note, and no finding that compares its raters: below chance,
straight-lining, an outlying rater. A question whose raters judge the same topic keeps them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from humanjudge_schema import judgments
from humanjudge_schema.commands import cli
from humanjudge_schema.formats.study1.judgments import OWN, RATINGS
from humanjudge_schema.judgments.quality import check
from humanjudge_schema.judgments.stats import dataset_stats

from .helpers import study1_folder

TASKS = "study1_tasks.jsonl.gz"
SHARED = ("query_answerable", "query_controversial", "references_quality")
NOT_SHARED = (
    "worker_knowledge",
    "worker_expertise",
    "worker_satisfaction",
    "references_extra",
    "references_omission",
)
COMPARING = {"quality/below-chance", "quality/straight-lining", "quality/outlying-rater"}


_folder = study1_folder


def _opposed(path: Path) -> Path:
    """Two workers who disagree on every one of 12 topics: agreement below chance."""
    return _folder(path, [(f"2024-{t}", w, float(1 + (t + k) % 2)) for t in range(12) for k, w in enumerate("ab")])


def _one_answer(path: Path) -> Path:
    """Three workers who agree on 30 topics rated 1 to 5, and a fourth who answers 1 to every one."""
    tasks = [(f"2024-{t}", w, float(1 + t % 5)) for t in range(30) for w in "abc"]
    return _folder(path, tasks + [(f"2024-{t}", "d", 1.0) for t in range(30)])


def _findings(folder: Path) -> dict[str, set[str]]:
    (view,) = judgments.datasets([folder])
    found: dict[str, set[str]] = {}
    for code, where, _ in check(view):
        found.setdefault(code, set()).add(where.question)
    return found


def _questions(folder: Path) -> dict[str, dict[str, Any]]:
    (view,) = judgments.datasets([folder])
    return {q["question"]: q for q in dataset_stats(view, samples=50).to_json()["questions"]}


def test_the_five_are_declared_not_shared() -> None:
    assert set(OWN) == set(NOT_SHARED)
    assert set(RATINGS) - set(OWN) == set(SHARED)


def test_a_question_not_shared_has_its_distribution_and_no_agreement(tmp_path: Path) -> None:
    questions = _questions(_opposed(tmp_path / "study"))
    for name in NOT_SHARED:
        q = questions[name]
        assert q["distribution"] == {"counts": {"1.0": 12, "2.0": 12}}
        assert (q["items"], q["judgments"]) == (12, 24)
        assert q["alpha"] is None and q["alpha_ci"] is None
        assert q["agreement"]["observed"] is None and q["agreement"]["ac"] is None
        assert q["note"] == f"{OWN[name]}, not an object its raters share: no agreement to compute"
    for name in SHARED:
        q = questions[name]
        assert q["alpha"] is not None and q["alpha"] < 0
        assert q["agreement"]["observed"] == 0
        assert not q.get("note")


def test_below_chance_only_on_shared_questions(tmp_path: Path) -> None:
    found = _findings(_opposed(tmp_path / "study"))
    assert found["quality/below-chance"] == set(SHARED)


def test_straight_lining_and_outlying_rater_only_on_shared_questions(tmp_path: Path) -> None:
    found = _findings(_one_answer(tmp_path / "study"))
    assert found["quality/straight-lining"] == set(SHARED)
    assert found["quality/outlying-rater"] == set(SHARED)
    assert not any(found.get(code, set()) & set(NOT_SHARED) for code in COMPARING)


def test_the_note_in_text_and_json(tmp_path: Path) -> None:
    folder = str(_opposed(tmp_path / "study"))
    text = CliRunner().invoke(cli, ["stats", "--samples", "50", folder])
    assert "a self-assessment of the worker" in text.output
    assert "about the worker's own response" in text.output
    out = CliRunner().invoke(cli, ["stats", "--format", "json", "--samples", "50", folder])
    (dataset,) = json.loads(out.output)["datasets"]
    notes = {q["question"]: q.get("note") for q in dataset["questions"]}
    assert all(OWN[name] in notes[name] for name in NOT_SHARED)
    assert not any(notes[name] for name in SHARED)
