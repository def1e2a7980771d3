"""Conformance over the real study-1 files: the findings of each file, counted by code and
severity, equal the table below. Every entry was checked against the files and is explained in
docs/conformance-study1-halie.md; a change in any count is either a fixed rule or a new bug."""

from __future__ import annotations

import pytest

from humanjudge_schema import validate

from .conftest import corpus
from .helpers import conformance_tests

HUMAN = "study1_responses_human.jsonl.gz"
EXPECTED: dict[str, dict[tuple[str, str], int]] = {
    "study1_tasks.jsonl.gz": {},
    "study1_retrieval.jsonl.gz": {},
    "study1_responses_llm.jsonl.gz": {},
    HUMAN: {("study1/citation-range", "error"): 2, ("study1/ambiguous-final-text", "warning"): 7},
}
# (file, pointer, line, column, message fragment) of findings checked by opening the file.
FINDINGS = [
    (HUMAN, "/153095/text", 153096, 115, "citation [0,21] cites reference 21"),
    (HUMAN, "/179645/text", 179646, 116, "citation [11,1516,] cites reference 1516"),
    (HUMAN, "/29203/timestamp", 29204, 91, "2 different texts share the final timestamp 1728551131680"),
    (HUMAN, "/137695/timestamp", 137696, 88, "2 different texts share the final timestamp 1729570056878"),
]


@pytest.fixture(scope="module")
def findings() -> list:  # type: ignore[type-arg]
    folder = corpus("study1", "raw")
    return validate([folder], cwd=str(folder)).findings


test_findings_of_a_real_file, test_every_finding_is_in_a_known_file, test_positions_and_messages = conformance_tests(
    EXPECTED, FINDINGS
)
