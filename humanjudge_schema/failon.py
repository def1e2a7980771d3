"""`--fail-on` conditions: what a change must not do, as a dataset's maintainers decide it (also
`fail-on = [...]` in `[tool.humanjudge.diff]`). Apart from diff/, and importing nothing of the
package, because the configuration checks its entries with `parse` when it is read, and diff/
reads the configuration."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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
