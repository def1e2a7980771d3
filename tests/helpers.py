"""Small helpers several test modules share."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import orjson
import pytest

from humanjudge_schema.finding import Finding

SENTENCE = "Bees share food locations with a waggle dance [0, 3]. "


def log_line(k: int, text: str) -> bytes:
    """Snapshot k of a study-1 writing log: one response, 300 ms after the snapshot before."""
    record = {
        "response": "41099caa-0d8a-5c07-ae18-b41a8567db38",
        "topic": "2024-10001",
        "style": "essay",
        "timestamp": 1728671105500 + 300 * k,
        "text": text,
    }
    return orjson.dumps(record) + b"\n"


def writing_log(snapshots: int) -> bytes:
    """study1_responses_human.jsonl.gz, decompressed: one response written in `snapshots` steps from an empty text."""
    return b"".join(log_line(k, SENTENCE * (k % 5)) for k in range(snapshots))


def tiny_dataset(prompt: str, instance: Any = "The cat sat on the mat.") -> dict[str, Any]:
    """A valid one-instance TextJudge dataset whose only metric uses this prompt template."""
    return {
        "dataset": "Example (Doe et al., 2024)",
        "dataset_url": "https://example.org",
        "expert_annotator": "false",
        "original_prompt": False,
        "annotations": [{"metric": "ok", "category": "categorical", "prompt": prompt, "labels_list": ["yes", "no"]}],
        "instances": [
            {
                "id": 1,
                "instance": instance,
                "annotations": {"ok": {"majority_human": "yes", "individual_human_scores": ["yes"]}},
            }
        ],
    }


def counts_in(findings: Sequence[Finding], file: str) -> Counter[tuple[str, str]]:
    """(code, severity) -> how many findings of one file."""
    return Counter((f.code, f.severity.value) for f in findings if f.file == file)


def assert_found(findings: Sequence[Finding], file: str, ptr: str, line: int, column: int, words: str) -> None:
    """Exactly one finding at this pointer of this file, at this position, saying these words."""
    [found] = [f for f in findings if f.file == file and f.pointer == ptr]
    assert (found.line, found.column) == (line, column)
    assert words in found.message


Expected = dict[str, dict[tuple[str, str], int]]
Spots = list[tuple[str, str, int, int, str]]


def conformance_tests(expected: Expected, spots: Spots) -> tuple[Callable[..., None], ...]:
    """The tests of a corpus module whose `findings` fixture validates a real folder: each file's
    counts by (code, severity) are `expected[file]`, no other file has findings, and each
    (file, pointer, line, column, words) of `spots` is found there."""

    @pytest.mark.parametrize("file", sorted(expected))
    def test_findings_of_a_real_file(findings: list[Finding], file: str) -> None:
        assert counts_in(findings, file) == Counter(expected[file])

    def test_every_finding_is_in_a_known_file(findings: list[Finding]) -> None:
        assert {f.file for f in findings} <= set(expected)

    @pytest.mark.parametrize(("file", "ptr", "line", "column", "words"), spots, ids=[p for _, p, *_ in spots])
    def test_positions_and_messages(
        findings: list[Finding], file: str, ptr: str, line: int, column: int, words: str
    ) -> None:
        assert_found(findings, file, ptr, line, column, words)

    return test_findings_of_a_real_file, test_every_finding_is_in_a_known_file, test_positions_and_messages
