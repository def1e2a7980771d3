"""`--fail-on`: what a change must not do, as a dataset's maintainers decide it (also
`fail-on = [...]` in `[tool.humanjudge.diff]`). Imports nothing of the package: the
configuration checks its entries with `parse`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

NAMES = ("removed", "changed", "alpha-drop", "new-errors")


@dataclass(frozen=True)
class Rule:
    name: str  # one of NAMES
    threshold: float = 0.0  # alpha-drop's X

    def __str__(self) -> str:
        return f"{self.name}={self.threshold:g}" if self.name == "alpha-drop" else self.name


def parse(entries: Iterable[str]) -> tuple[Rule, ...]:
    """The rules of `--fail-on` entries (each may be a comma list); ValueError names a wrong one."""
    out: list[Rule] = []
    for entry in entries:
        for word in (w.strip() for w in str(entry).split(",")):
            if not word:
                continue
            name, eq, value = word.partition("=")
            if name not in NAMES:
                raise ValueError(
                    f"{word!r} is not a --fail-on condition; choose from removed, changed, alpha-drop=X, new-errors"
                )
            if name == "alpha-drop":
                try:
                    threshold = float(value)
                except ValueError:
                    raise ValueError(f"{word!r}: alpha-drop takes a number, as alpha-drop=0.1") from None
                if not eq or not 0 <= threshold <= 2:
                    raise ValueError(f"{word!r}: alpha-drop takes a number from 0 to 2, as alpha-drop=0.1")
                out.append(Rule(name, threshold))
            elif eq:
                raise ValueError(f"{word!r}: {name} takes no value")
            else:
                out.append(Rule(name))
    return tuple(dict.fromkeys(out))


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
