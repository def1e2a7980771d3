"""One tidy view of the individual judgments of every format.

A format declares how its datasets' judgments are read (`Format.judgments`, "module:function",
called as function(unit) and returning a `Judgments`). Every judgment is one row of the same
shape, whatever the format: which dataset, which item was judged, by which rater, on which
question, which part of the answer (`option`) and the value, and where the value is in its source
(`file` and `pointer`, and `line` for the formats read line by line), so that any row leads back to
the bytes it came from.

A view reads only what is well formed: a value its schema or the rules reject is still a
judgment if it can be placed (a score outside its scale is exported, and validation reports it),
but a part whose place cannot be known (a response array under no known question) is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice, repeat
from pathlib import Path
from typing import Any, Literal, NamedTuple

Level = Literal["nominal", "ordinal", "interval", "ratio"]

FIELDS = ("format", "dataset", "item", "rater", "question", "option", "value", "file", "pointer", "line")


class Judgment(NamedTuple):
    """One individual judgment. `item`, `rater` and `option` are "" where the format has none;
    `value` is a number, a string, None (a missing answer that the format counts) or, for an
    answer made of several parts that is counted as one (a multi-select row, a ranking), a list."""

    format: str
    dataset: str
    item: str | int
    rater: str | int
    question: str
    option: str | int
    value: Any
    file: str
    pointer: str
    line: int | None = None


@dataclass(frozen=True)
class Question:
    """What a question's values are: its measurement level for agreement (None: free text, or
    answers with no level, such as rankings as a whole) and, for ordinal labels, their order."""

    name: str
    level: Level | None
    order: tuple[Any, ...] | None = None


class Batch:
    """Judgments column by column: a column every row of the batch shares is one value (`same`:
    the format, the dataset, the file), the others are lists of one value per row (`lists`).
    A view builds a batch with a few list.extend calls per list of answers, and a writer turns a
    column into text at once: on millions of judgments this costs a fraction of a tuple per row."""

    __slots__ = ("lists", "same", "size")

    def __init__(self, same: dict[str, Any], lists: dict[str, list[Any]]) -> None:
        sizes = set(map(len, lists.values()))
        if not lists or len(sizes) != 1 or sorted([*same, *lists]) != sorted(FIELDS):
            raise ValueError("a batch has every field once, and at least one list, all of one length")
        self.same, self.lists = same, lists
        self.size = sizes.pop()

    @classmethod
    def of_rows(cls, rows: Sequence[tuple[Any, ...]]) -> Batch:
        """A batch of rows given one by one (tuples in FIELDS order)."""
        columns = list(zip(*rows, strict=True)) if rows else [() for _ in FIELDS]
        return cls({}, {name: list(column) for name, column in zip(FIELDS, columns, strict=True)})

    def __len__(self) -> int:
        return self.size

    def column(self, name: str) -> Iterable[Any]:
        """One value per row."""
        return self.lists[name] if name in self.lists else repeat(self.same[name], self.size)

    def tuples(self) -> Iterator[tuple[Any, ...]]:
        """The rows, in FIELDS order."""
        return zip(*map(self.column, FIELDS), strict=True)


_POSITIONS = tuple(map(str, range(1024)))


def positions(n: int) -> Sequence[str]:
    """ "0", "1", ... "n-1": the array positions a view writes into its pointers, made once (a
    string per row is a fifth of a view's time on millions of judgments)."""
    return _POSITIONS[:n] if n <= len(_POSITIONS) else list(map(str, range(n)))


@dataclass
class Judgments:
    """The judgments of one dataset: its questions, and its rows read on demand (`rows()` may be
    called more than once; each call reads the files again, in bounded memory for streamed
    formats).

    A format gives its rows one at a time (`read`), or in column batches (`batches`), which cost
    a fraction of a named tuple per row: that matters to `export` on millions of judgments."""

    format: str
    dataset: str  # as findings show its path
    read: Callable[[], Iterator[Judgment]] | None = None
    questions: dict[str, Question] = field(default_factory=dict)
    files: tuple[Path, ...] = ()  # the dataset's files, which nothing may write over
    # whether `rater` names the same person across items (a worker id, a participant's place in
    # arrays that hold every participant), so that one rater's answers can be compared
    raters: bool = True
    batches: Callable[[], Iterator[Batch]] | None = None
    # Why the dataset holds no judgment, in the format's words ("only aggregates stored
    # (majority_human) and no individual scores"), asked only after a pass over its rows gave
    # none: a format gathers what it says while it reads, so saying it costs no second reading.
    # None (or a call that returns None): the format says nothing more than the core does.
    none: Callable[[], str | None] | None = None

    def rows(self) -> Iterator[Judgment]:
        if self.read is not None:
            return self.read()
        return map(Judgment._make, chain.from_iterable(batch.tuples() for batch in self.in_batches()))

    def in_batches(self) -> Iterator[Batch]:
        """The rows in column batches."""
        if self.batches is not None:
            return self.batches()
        return _batched(self.rows())


def _batched(rows: Iterator[Judgment], size: int = 4096) -> Iterator[Batch]:
    while batch := list(islice(rows, size)):
        yield Batch.of_rows(batch)
