"""Repeated findings, grouped: one cause in a file (a field every trial line lacks, a key repeated
in every trial) is one printed line with its count, not eighty.

Findings are one group when they share file, code, severity and the shape of their message: the
message with every run of digits taken as one number (`'agent_goal_3' is not a tag of trial_7`
and `'agent_goal_4' is not a tag of trial_9` are alike; `'strategy' ...` is not). A group of fewer
than GROUP_MIN findings is printed finding by finding. The text, github and job-summary outputs
print a group's first finding with "and N more: lines ..."; JSON keeps every finding and marks
those of a group with the group's id; SARIF gives a group one result with the others as related
locations. The counts of errors and warnings are always of every finding.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..finding import Finding

GROUP_MIN = 3  # alike findings printed as one line from this many on
SHOWN_PLACES = 5  # places of a group's other findings named in its line

_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")


def shape(message: str) -> str:
    """The message with its numbers blanked: what alike findings share."""
    return _NUMBER.sub("#", message)


@dataclass(frozen=True)
class Group:
    """Findings printed as one: the first stands for the rest. `id` is "" for a finding alone."""

    findings: tuple[Finding, ...]
    id: str = ""

    @property
    def first(self) -> Finding:
        return self.findings[0]

    @property
    def rest(self) -> tuple[Finding, ...]:
        return self.findings[1:]

    @property
    def count(self) -> int:
        """How many findings the group stands for (a summary of unlisted ones counts them all)."""
        return sum(f.count for f in self.findings)

    def more(self) -> str:
        """`and 79 more: lines 5, 7, 9, 11, 13, ...` (pointers where the findings have no line);
        "" for a finding alone."""
        if not self.rest:
            return ""
        lines = [f.line for f in self.rest]
        if all(line is not None for line in lines):
            places = [str(line) for line in dict.fromkeys(lines)]
            kind = "line" if len(places) == 1 else "lines"
        else:
            places = [f.pointer or "(the file)" for f in self.rest]
            kind = "at"
        shown = ", ".join(places[:SHOWN_PLACES]) + (", ..." if len(places) > SHOWN_PLACES else "")
        return f"and {sum(f.count for f in self.rest)} more: {kind} {shown}"


def group_id(first: Finding) -> str:
    """Stable across runs and machines: the file, the code and the message's shape."""
    key = "\0".join((first.file, first.code, first.severity.value, shape(first.message)))
    return "g" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:15]


def grouped(findings: Sequence[Finding], *, group: bool = True) -> list[Group]:
    """The findings as groups, in the order of each group's first finding; with group=False, or
    below GROUP_MIN alike, every finding is a group of its own. A summary of unlisted findings
    (`more`, max-per-code) is always alone."""
    if not group:
        return [Group((f,)) for f in findings]
    members: dict[tuple[str, str, str, str], list[Finding]] = {}
    keys: list[tuple[str, str, str, str] | None] = []
    for f in findings:
        key = None if f.more else (f.file, f.code, f.severity.value, shape(f.message))
        keys.append(key)
        if key is not None:
            members.setdefault(key, []).append(f)
    out: list[Group] = []
    for f, key in zip(findings, keys, strict=True):
        alike = members[key] if key is not None else [f]
        if len(alike) < GROUP_MIN:
            out.append(Group((f,)))  # in its own place, as without groups
        elif alike[0] is f:
            out.append(Group(tuple(alike), group_id(f)))
    return out


def ids(findings: Iterable[Finding]) -> dict[int, str]:
    """For JSON: the group id of every finding that belongs to a group, by the finding's index."""
    listed = list(findings)
    position = {id(f): i for i, f in enumerate(listed)}
    return {position[id(f)]: g.id for g in grouped(listed) if g.id for f in g.findings}
