"""`--fail-on`: whether a diff does what its maintainers forbid (`triggered`); the conditions
themselves are read by failon.py (`parse`), which the configuration uses too."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..failon import Rule
from .render import plural


def triggered(rules: Iterable[Rule], found: Any) -> list[str]:
    """Why the diff `found` fails each rule it breaks, one line each."""
    out: list[str] = []
    summary = found.summary()
    for rule in rules:
        if rule.name == "removed":
            n, d = summary["removed"], summary["datasets"]["removed"]
            if n or d:
                out.append(f"removed: {plural(n, 'judgment')} and {d} dataset{'' if d == 1 else 's'} removed")
        elif rule.name == "changed":
            if summary["changed"]:
                out.append(f"changed: {plural(summary['changed'], 'judgment')} changed")
        elif rule.name == "new-errors":
            errors = summary["findings_new"]["errors"]
            if errors:
                out.append(f"new-errors: {plural(errors, 'new error')}")
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
