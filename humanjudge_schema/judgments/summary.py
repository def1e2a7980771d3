"""The statistics of a dataset as values: per question its counts, its answers' distribution,
alpha and the agreement beside it (`QuestionStats`), the quality findings (`QualityFinding`),
the raters' rows (`RaterRow`), all of one dataset (`DatasetStats`). stats.py computes them;
`stats`, the report, the job summary, the diff and the card read their attributes. Each has one
`to_json()`: what `humanjudge stats --format json` prints of it.

A key that the JSON gives only sometimes (a question's `note`, its `values`, an option's
`option`, a dataset's `quality` and `raters`) is a field that is None where the key is absent.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

if TYPE_CHECKING:
    from .view import Level

__all__ = [
    "Agreement",
    "DatasetStats",
    "Disputed",
    "DisputedItem",
    "Distribution",
    "NumericSummary",
    "QualityFinding",
    "QuestionStats",
    "RaterRow",
    "RatersPerItem",
    "json_key",
    "quoted_value",
]


def json_key(value: Hashable) -> str:
    """A value as a JSON object key: text as it is, anything else as JSON would write it."""
    import json

    if isinstance(value, str):
        return value
    return json.dumps(list(value) if isinstance(value, tuple) else value)


class NumericSummary(TypedDict):
    """The numbers of a question whose values are all numbers."""

    mean: float
    sd: float | None  # sample standard deviation; None for a single judgment, or beyond the largest double
    min: float
    max: float


# A quoted value is cut to this many characters: an answer may be a page of free text.
QUOTED = 60


def quoted_value(value: Hashable) -> str:
    """A value as a message quotes it: a list compared whole as the list it was, at most QUOTED
    characters."""
    text = repr(list(value)) if isinstance(value, tuple) else repr(value)
    return text if len(text) <= QUOTED else text[: QUOTED - 1] + "…"


def _pair_text(pair: tuple[float, float] | None) -> str | None:
    return None if pair is None else f"[{pair[0]:.3f}, {pair[1]:.3f}]"


def _json(value: Any) -> Any:
    """A field as the JSON gives it: a statistic as its own JSON, a tuple as a list (of the JSON of
    each statistic in it)."""
    if isinstance(value, tuple):
        return [v.to_json() if isinstance(v, _Figures) else v for v in value]
    return value.to_json() if isinstance(value, _Figures) else value


class _Figures:
    """A statistic whose JSON is its fields in their order (`_json` of each), but for those named
    in OPTIONAL, left out where None."""

    __slots__ = ()
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    def to_json(self) -> dict[str, Any]:
        named = ((f.name, getattr(self, f.name)) for f in fields(self))  # type: ignore[arg-type]
        return {name: _json(value) for name, value in named if value is not None or name not in self.OPTIONAL}


@dataclass(frozen=True, slots=True)
class RatersPerItem(_Figures):
    """The fewest, median and most judgments of an item; the median of an even number of items is
    the mean of the middle two."""

    min: int
    median: float
    max: int

    def text(self, sep: str = " / ") -> str:
        """As min / median / max, a whole median written as an integer."""
        shown = str(int(self.median)) if float(self.median).is_integer() else f"{self.median:g}"
        return f"{self.min}{sep}{shown}{sep}{self.max}"


@dataclass(frozen=True, slots=True)
class Agreement(_Figures):
    """The agreement beside alpha: the observed agreement, Gwet's AC with its interval and the
    weights it is computed with (irrCAC's names); each None where not defined."""

    observed: float | None = None
    ac: float | None = None
    ac_ci: tuple[float, float] | None = None
    ac_weights: str | None = None

    def observed_text(self) -> str | None:
        """The observed agreement as a percentage of pairs; None without one."""
        return None if self.observed is None else f"{self.observed:.0%}"

    def ac_text(self) -> str | None:
        """Gwet's AC; None without one."""
        return None if self.ac is None else f"{self.ac:.3f}"

    def ac_interval_text(self) -> str | None:
        """AC's interval as [lo, hi]; None without one."""
        return _pair_text(self.ac_ci)

    def ac_name(self) -> str:
        """AC1 or AC2 and its weights, as a label: "AC1", "AC2 (ordinal weights)"."""
        return "AC1" if self.ac_weights in (None, "identity") else f"AC2 ({self.ac_weights} weights)"


@dataclass(frozen=True, slots=True)
class Distribution(_Figures):
    """How the answers spread, one of three: `counts` per value (the value as a JSON key), for
    nominal and ordinal questions and free text of few distinct answers; `distinct`, how many
    distinct answers, for free text of many; `numbers`, mean, sd, min and max, for interval ones."""

    counts: dict[str, int] | None = None
    distinct: int | None = None
    numbers: NumericSummary | None = None

    def to_json(self) -> dict[str, Any]:
        if self.numbers is not None:
            return dict(self.numbers)
        if self.distinct is not None:
            return {"distinct": self.distinct}
        return {"counts": dict(self.counts or {})}


@dataclass(frozen=True, slots=True)
class DisputedItem(_Figures):
    """An item whose judgments agree least (disputed.py): the item and option as its rows name
    them, its agreement (`agreement.item_agreement`), each of its answers with how often it was
    given, and where its first answer is (`file` None where it was not looked up)."""

    item: Hashable
    option: Hashable
    agreement: float
    answers: tuple[tuple[Hashable, int], ...]
    file: str | None = None
    pointer: str = ""
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Disputed(_Figures):
    """A question's most disputed items, lowest agreement first (ties in the order the items
    first come), among `of` items of two judgments or more, `below` of which agree less than
    chance (agreement below 0); `note` says why they were not located, where they were not."""

    items: tuple[DisputedItem, ...]
    of: int
    below: int
    note: str | None = None


@dataclass(frozen=True, slots=True)
class QuestionStats(_Figures):
    """One question's statistics, or one part of its answers' (an option, a label: `option`, and
    `options` None). `note` says why alpha is null (None where it is not); `values`, every
    distinct answer and its count, only where asked for (plots, the diff)."""

    question: str
    level: Level | None
    items: int
    judgments: int
    missing: int
    raters_per_item: RatersPerItem | None
    alpha: float | None
    alpha_ci: tuple[float, float] | None
    agreement: Agreement
    agreement_note: str | None
    level_note: str | None
    distribution: Distribution
    note: str | None = None
    values: tuple[tuple[Hashable, int], ...] | None = None
    options: tuple[QuestionStats, ...] | None = None
    option: str | None = None
    disputed: Disputed | None = None  # only where asked for (the report)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"note", "values", "option", "disputed"})

    def raters_text(self, sep: str = " / ") -> str | None:
        """Raters per item as min / median / max; None without items."""
        return None if self.raters_per_item is None else self.raters_per_item.text(sep)

    def interval_text(self) -> str | None:
        """Alpha's interval as [lo, hi]; None without one."""
        return _pair_text(self.alpha_ci)


@dataclass(frozen=True, slots=True)
class QualityFinding(_Figures):
    """A finding of the quality checks (quality.py): its code, its question, what it says and the
    judgment it is about."""

    code: str
    question: str
    message: str
    file: str
    pointer: str
    line: int | None


@dataclass(frozen=True, slots=True)
class RaterRow(_Figures):
    """One rater's row on one question (raters.py), its shares rounded to 4 decimals as shown:
    `modal` their most common answer and `modal_share` its share of their answers; over the
    `shared_items`, how often the other raters give their answer (`agreement`) and agree with
    each other (`others_agreement`). On a nominal question (competence.py): the expected share
    of their answers that are the item's true label (`competence`), and their `confusion`, true
    label -> answer -> probability; both None, and absent from the JSON, elsewhere."""

    rater: Hashable
    question: str
    items: int
    modal: Hashable
    modal_share: float
    shared_items: int
    agreement: float | None
    others_agreement: float | None
    competence: float | None = None
    confusion: dict[str, dict[str, float]] | None = field(default=None, hash=False)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"competence", "confusion"})


@dataclass(frozen=True, slots=True)
class DatasetStats(_Figures):
    """One dataset's statistics: its questions', with the quality findings (None where they were
    not looked for) and the raters' rows where they were asked for (`raters` None: not asked;
    `raters_note`: why there are none where raters are not persons)."""

    dataset: str
    format: str
    questions: tuple[QuestionStats, ...]
    quality: tuple[QualityFinding, ...] | None = None
    raters: tuple[RaterRow, ...] | None = None
    raters_note: str | None = None

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"quality", "raters"})

    def to_json(self) -> dict[str, Any]:
        out = _Figures.to_json(self)
        if self.raters is None:  # the note is given with the raters, None or not
            del out["raters_note"]
        return out
