"""Small helpers several test modules share."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from humanjudge_schema.finding import Finding


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
