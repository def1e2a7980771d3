"""What `diff` reports, as values: a dataset's changes per question, its stored aggregates and
its findings, and the summary of the whole comparison. `to_json()` gives the JSON contract of
`humanjudge diff --format json` (docs/diff.md)."""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .align import Alignment

Status = Literal["added", "removed", "changed", "unchanged"]
Kind = Literal["removed", "changed", "added"]
KINDS: tuple[Kind, ...] = ("removed", "changed", "added")  # the order a reviewer reads them in
STATUSES: tuple[Status, ...] = ("removed", "changed", "added", "unchanged")  # the order datasets are listed in
# a question's figures shown side by side, old and new, in diff --format json
FIGURES = ("alpha", "alpha_ci", "ac", "ac_ci", "raters_per_item", "judgments")


class Named:
    """An answer that names options by their place in its question's list (CogGym stores a
    choice as the option's index, a multi-select as a 0/1 per option, a ranking as indices), as
    the diff compares it: the same answer as another that names the same options (`key`),
    wherever the lists put them, since the same stored numbers under reordered options are other
    answers. A format gives it to a pass that reads without "positions" (`view.Needs`).
    `stored` is the value as stored, `named` the options it names (a text, or a list of them),
    `options` the list it was read against."""

    __slots__ = ("key", "named", "options", "stored")

    def __init__(self, stored: Any, named: Any, options: tuple[str, ...], key: Hashable = None) -> None:
        self.stored, self.named, self.options = stored, named, options
        self.key = named if key is None else key

    def __eq__(self, other: object) -> bool:
        if type(other) is not Named:
            return NotImplemented
        return bool(self.key == other.key)

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Named({self.stored!r}, {self.named!r})"


def moved(old: Any, new: Any) -> bool:
    """Whether two answers were read against options that differ (in order, texts or number)."""
    return type(old) is Named and type(new) is Named and old.options != new.options


def shown(old: Any, new: Any) -> tuple[Any, Any]:
    """Two values of one judgment as an example shows them: as stored, but answers read against
    options that differ as the options they name (their stored places would say the same, or
    mislead)."""
    if moved(old, new):
        return old.named, new.named
    return (old.stored if type(old) is Named else old), (new.stored if type(new) is Named else new)


def _fields(value: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """A dataclass's fields by name, in their order, but those skipped (not copied, unlike asdict)."""
    return {f.name: getattr(value, f.name) for f in fields(value) if f.name not in skip}


def plain(value: Any) -> Any:
    """A value as JSON can hold it: NaN and the infinities as the text JSON lacks a number for."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Example:
    """One judgment (or stored aggregate) added, removed or changed, and where it is: in the new
    file for what was added or changed, in the old file for what was removed (`side`). A change
    also says where the old value was (`old_file`, `old_pointer`, `old_line`)."""

    kind: Kind
    item: Any
    rater: Any
    option: Any
    old: Any
    new: Any
    file: str
    pointer: str
    line: int | None
    side: Literal["old", "new"]
    old_file: str | None = None
    old_pointer: str | None = None
    old_line: int | None = None
    old_rater: Any = None  # where raters were aligned (align.py): the old place, where it is another

    def to_json(self) -> dict[str, Any]:
        out = _fields(self, ("old_file", "old_pointer", "old_line", "old_rater"))
        out["old"], out["new"] = plain(self.old), plain(self.new)
        if self.kind == "changed":
            out |= {"old_file": self.old_file, "old_pointer": self.old_pointer, "old_line": self.old_line}
        if self.old_rater is not None:
            out["old_rater"] = self.old_rater
        return out


@dataclass
class Figures:
    """A question's statistics in one version: items, judgments, raters per item (min, median,
    max), Krippendorff's alpha and Gwet's AC with their bootstrap intervals, and the
    distribution of its answers (value -> count)."""

    items: int = 0
    judgments: int = 0
    raters_per_item: list[float] | None = None
    alpha: float | None = None
    alpha_ci: list[float] | None = None
    ac: float | None = None
    ac_ci: list[float] | None = None
    distribution: dict[Any, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return _fields(self, ("distribution",))


@dataclass
class QuestionDiff:
    """What changed in one question's individual judgments, matched by (item, rater, option)."""

    question: str
    added: int = 0
    removed: int = 0
    changed: int = 0
    items_added: list[Any] = field(default_factory=list)
    items_removed: list[Any] = field(default_factory=list)
    raters_added: list[Any] = field(default_factory=list)
    raters_removed: list[Any] = field(default_factory=list)
    examples: list[Example] = field(default_factory=list)
    renamed_from: str | None = None
    old: Figures | None = None  # None: the question is not in that version, or was not measured
    new: Figures | None = None
    tvd: float | None = None  # total variation distance between the old and new distributions
    flagged: bool = False  # alpha's or AC's intervals before and after do not overlap
    note: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.renamed_from)

    def alpha_drop(self) -> float | None:
        if self.old is None or self.new is None or self.old.alpha is None or self.new.alpha is None:
            return None
        return self.old.alpha - self.new.alpha

    def to_json(self, listed: int) -> dict[str, Any]:
        out: dict[str, Any] = {"question": self.question, "renamed_from": self.renamed_from}
        out |= {"added": self.added, "removed": self.removed, "changed": self.changed}
        lists = {
            name: getattr(self, name) for name in ("items_added", "items_removed", "raters_added", "raters_removed")
        }
        out |= {name: len(values) for name, values in lists.items()}
        out["listed"] = {name: values[:listed] for name, values in lists.items()}
        out |= {name: [None if f is None else getattr(f, name) for f in (self.old, self.new)] for name in FIGURES}
        out |= {"tvd": self.tvd, "flagged": self.flagged, "note": self.note}
        out["examples"] = [e.to_json() for e in self.examples]
        return out


@dataclass
class Aggregates:
    """The stored aggregates (means, majorities, proportions), matched by (question, item,
    option): how many were added, removed and changed, and of those added or changed, how many
    the new version's validation finds do not match its individual judgments."""

    added: int = 0
    removed: int = 0
    changed: int = 0
    not_matching: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return _fields(self)


@dataclass(frozen=True)
class FindingChange:
    """A validation finding of one version only, matched by (code, file, pointer)."""

    code: str
    severity: str
    file: str
    pointer: str
    line: int | None
    message: str
    count: int = 1

    def to_json(self) -> dict[str, Any]:
        return _fields(self)


@dataclass
class DatasetDiff:
    """One dataset in the old version, the new one or both (paths relative to the roots)."""

    dataset: str
    format: str
    status: Status
    old_dataset: str | None = None  # where it was, when it moved
    rater_kind: str | None = None
    questions: list[QuestionDiff] = field(default_factory=list)
    aggregates: Aggregates = field(default_factory=Aggregates)
    findings_new: list[FindingChange] = field(default_factory=list)
    findings_fixed: list[FindingChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    judgments: tuple[int, int] = (0, 0)  # individual judgments, old and new
    alignment: Alignment | None = None  # how raters that are places were aligned (align.py)

    @property
    def moved(self) -> bool:
        return self.old_dataset is not None and self.old_dataset != self.dataset

    def to_json(self, listed: int) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "format": self.format,
            "status": self.status,
            "moved_from": self.old_dataset if self.moved else None,
            "rater_kind": self.rater_kind,
            "judgments": list(self.judgments),
            "questions": [q.to_json(listed) for q in self.questions],
            "aggregates_changed": self.aggregates.changed,
            "aggregates": self.aggregates.to_json(),
            "findings_new": [f.to_json() for f in self.findings_new],
            "findings_fixed": [f.to_json() for f in self.findings_fixed],
            "notes": self.notes,
        } | ({} if self.alignment is None else {"alignment": self.alignment.to_json()})


def _errors(found: list[FindingChange]) -> dict[str, int]:
    errors = sum(f.count for f in found if f.severity == "error")
    return {"errors": errors, "warnings": sum(f.count for f in found) - errors}


@dataclass
class Diff:
    """The comparison of two versions: every dataset of either, removals first (removed
    datasets, then changed, then added, then unchanged), and what `--fail-on` found."""

    old: str
    new: str
    datasets: list[DatasetDiff] = field(default_factory=list)
    examples: int = 5
    failed: list[str] = field(default_factory=list)  # why --fail-on is triggered, one line each
    fail_on: tuple[str, ...] = ()

    def summary(self) -> dict[str, Any]:
        statuses = {s: sum(d.status == s for d in self.datasets) for s in STATUSES}
        questions = [q for d in self.datasets for q in d.questions]
        new = [f for d in self.datasets for f in d.findings_new]
        fixed = [f for d in self.datasets for f in d.findings_fixed]
        out = {"datasets": statuses | {"moved": sum(d.moved for d in self.datasets)}}
        out |= {kind: sum(getattr(q, kind) for q in questions) for kind in KINDS}
        return out | {
            "aggregates_changed": sum(d.aggregates.changed for d in self.datasets),
            "aggregates_not_matching": sum(d.aggregates.not_matching for d in self.datasets),
            "alpha_flagged": sum(q.flagged for q in questions),
            "findings_new": _errors(new),
            "findings_fixed": _errors(fixed),
            "judgments_unchanged": self.judgments_unchanged,
            "fail_on": list(self.fail_on),
            "failed": self.failed,
        }

    @property
    def judgments_unchanged(self) -> bool:
        """Whether no judgment and no stored aggregate was added, removed or changed."""
        return all(
            d.status == "unchanged"
            or (
                all(q.empty for q in d.questions)
                and not (d.aggregates.added or d.aggregates.removed or d.aggregates.changed)
                and d.status == "changed"
            )
            for d in self.datasets
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "datasets": [d.to_json(self.examples) for d in self.datasets],
            "summary": self.summary(),
        }
