"""`--fail-on`: whether a diff does what its maintainers forbid (`triggered`); the conditions
themselves are read by failon.py (`parse`), which the configuration uses too."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..failon import Rule


def triggered(rules: Iterable[Rule], found: Any) -> list[str]:
    """Why the diff `found` fails each rule it breaks, one line each."""
    out: list[str] = []
    summary = found.summary()
    for rule in rules:
        if rule.name == "removed":
            gone = summary["removed"] + summary["datasets"]["removed"]
            if gone:
                n, d = summary["removed"], summary["datasets"]["removed"]
                judgments = f"{n:,} judgment" + ("" if n == 1 else "s")
                datasets = f"{d} dataset" + ("" if d == 1 else "s")
                out.append(f"removed: {judgments} and {datasets} removed")
        elif rule.name == "changed":
            if summary["changed"]:
                n = summary["changed"]
                out.append(f"changed: {n:,} judgment{'' if n == 1 else 's'} changed")
        elif rule.name == "new-errors":
            errors = summary["findings_new"]["errors"]
            if errors:
                out.append(f"new-errors: {errors:,} new error{'' if errors == 1 else 's'}")
        else:
            for d in found.datasets:
                for q in d.questions:
                    drop = q.alpha_drop()
                    if drop is not None and drop > rule.threshold:
                        out.append(
                            f"{rule}: alpha of {d.dataset} / {q.question} fell by {drop:.3f} "
                            f"({q.old.alpha:.3f} -> {q.new.alpha:.3f})"
                        )
    return out
