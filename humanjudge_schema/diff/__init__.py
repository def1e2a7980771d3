"""What changed between two versions of datasets of human judgments: judgments added, removed
and changed per question, items and raters, stored aggregates, statistics, findings.

>>> from humanjudge_schema import diff
>>> found = diff("old/", "new/")
>>> found.to_json()["summary"]["removed"]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .model import Aggregates, DatasetDiff, Diff, Example, Figures, FindingChange, QuestionDiff


def diff(old: Path | str, new: Path | str, *, examples: int = 5, samples: int = 200, **options: Any) -> Diff:
    """Compare two paths (folders or files of datasets). Datasets are paired by their path
    relative to `old` and `new`; the result's `to_json()` is what `humanjudge diff --format json`
    prints. Options: `kind`, `config`, `seed` (see `compare.compare`)."""
    from .compare import compare

    old, new = Path(old), Path(new)
    if old.is_file() and new.is_file():
        # two files: one dataset under two names
        return compare(
            old.parent, new.parent, (), examples=examples, samples=samples, files=(old.name, new.name), **options
        )
    return compare(old, new, examples=examples, samples=samples, **options)


__all__ = ["Aggregates", "DatasetDiff", "Diff", "Example", "Figures", "FindingChange", "QuestionDiff", "diff"]


class _Module(sys.modules[__name__].__class__):  # type: ignore[misc]
    """The package is also the function: importing the package `humanjudge_schema.diff` makes it
    the attribute `diff` of `humanjudge_schema`, where `humanjudge_schema.diff(old, new)` must
    still compare."""

    def __call__(self, old: Path | str, new: Path | str, **options: Any) -> Diff:
        return diff(old, new, **options)


sys.modules[__name__].__class__ = _Module
