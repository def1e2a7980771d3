"""Conformance over the real HALIE tasks: the findings of each file, counted by code and severity,
equal the table below. Every entry was checked against the files and is explained in
docs/conformance-study1-halie.md; a change in any count is either a fixed rule or a new bug."""

from __future__ import annotations

import pytest

from humanjudge_schema import validate
from humanjudge_schema.kinds import find_units

from .conftest import corpus
from .helpers import conformance_tests

TASKS = ("crossword", "dialogue", "metaphor", "question", "summarization")
EXPECTED: dict[str, dict[tuple[str, str], int]] = {
    f"{task}/{name}": {}
    for task in TASKS
    for name in ("event_blocks.csv", "survey_responses.csv") + (("accuracies.csv",) if task == "crossword" else ())
}
EXPECTED["question/event_blocks.csv"] = {("halie/num-queries", "warning"): 68}
EXPECTED["dialogue/survey_responses.csv"] = {("halie/missing-rating", "warning"): 8}
# (file, pointer, line, column, message fragment) of findings checked by opening the file.
FINDINGS = [
    ("question/event_blocks.csv", "/2400/num_queries", 2402, 415, "num_queries 4, but user_queries has 1"),
    ("question/event_blocks.csv", "/2643/num_queries", 2645, 232, "num_queries 5, but user_queries has 0"),
    ("dialogue/survey_responses.csv", "/409/interestingness", 411, 236, "no interestingness rating for turn 10"),
    ("dialogue/survey_responses.csv", "/2031/boringness", 2033, 222, "no boringness rating for turn 12"),
]


@pytest.fixture(scope="module")
def findings() -> list:  # type: ignore[type-arg]
    root = corpus("halie", "data", "std")
    return validate([corpus("halie")], cwd=str(root)).findings


def test_every_task_is_recognised() -> None:
    root = corpus("halie")
    units = find_units([root])
    assert sorted(u.root.name for u in units) == sorted(TASKS)
    assert {u.family for u in units} == {"halie"}


test_findings_of_a_real_file, test_every_finding_is_in_a_known_file, test_positions_and_messages = conformance_tests(
    EXPECTED, FINDINGS
)
