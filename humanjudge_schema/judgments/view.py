"""One tidy view of the judgments of every format.

A format declares how its datasets' judgments are read (`Format.judgments`, "module:function",
called as function(unit) and returning a `Judgments`). Every judgment is one row of the same
shape, whatever the format: which dataset, which item was judged, by which rater, on which
question, which part of the answer (`option`) and the value, and where the value is in its source
(`file` and `pointer`, and `line` for the formats read line by line), so that any row leads back to
the bytes it came from. Each row says what it is (`role`: one rater's answer, `individual`, or a
value the file stores over raters it does not name, `aggregate`: a mean, a majority, a proportion)
and what its rater is (`rater_kind`: `person`, the same person across the dataset; `position`, a
place within one item only; `none`, no rater).

A view reads only what is well formed: a value its schema or the rules reject is still a
judgment if it can be placed (a score outside its scale is exported, and validation reports it),
but a part whose place cannot be known (a response array under no known question) is left out.
"""

from __future__ import annotations

import inspect
import math
from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, compress, islice, repeat
from operator import eq
from pathlib import Path
from typing import Any, Literal, NamedTuple

from .columns import code

Level = Literal["nominal", "ordinal", "interval", "ratio"]
Role = Literal["individual", "aggregate"]
# What a rater id means: a person across the whole dataset (a worker id), a position within one
# item only (the n-th score of an instance), or nothing (no rater, or an aggregate's row).
RaterKind = Literal["person", "position", "none"]
RATER_KINDS: tuple[RaterKind, ...] = ("person", "position", "none")
# The parts of an answer that are judgments of their own: "select", a list of 0/1, one per option
# (a multi-select row: each option is a yes/no question, nominal); "rank", the options' indices
# from first to last (a ranking: each option's place, 1 first, is an ordinal judgment); "label",
# the row's `option` (a multi-slider's label: each label is rated on the question's scale).
Parts = Literal["select", "rank", "label"]

# New columns go at the end, so that readers of the earlier columns keep working.
FIELDS = (
    "format",
    "dataset",
    "item",
    "rater",
    "question",
    "option",
    "value",
    "file",
    "pointer",
    "line",
    "role",
    "rater_kind",
)
# What the export adds after them: the value in the column of its type (a number, a boolean, a
# text), null in the others, so that a column has one type in every file format (export.py).
TYPED = ("value_number", "value_bool", "value_text")
COLUMNS = FIELDS + TYPED
# What a batch may leave out, and what it then holds: an individual judgment whose rater is what
# its dataset's raters are ("": the view fills in `Judgments.rater_kind`).
DEFAULTS: dict[str, Any] = {"role": "individual", "rater_kind": ""}


class Judgment(NamedTuple):
    """One judgment. `item`, `rater` and `option` are "" where the format has none; `value` is a
    number, a string, None (a missing answer that the format counts) or, for an answer made of
    several parts that is counted as one (a multi-select row, a ranking), a list. `role` is
    "individual" (one rater's answer) or "aggregate" (a mean, majority or proportion the file
    stores over raters it does not name); `rater_kind` "" is filled in by the view (its
    `rater_kind` for an individual judgment with a rater, else "none")."""

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
    role: str = "individual"
    rater_kind: str = ""


@dataclass(frozen=True)
class Question:
    """What a question's values are: its measurement level for agreement (None: free text, or
    answers with no level, such as rankings as a whole) and, for ordinal labels, their order."""

    name: str
    level: Level | None
    order: tuple[Any, ...] | None = None
    # how the level was found where the format's file does not declare it ("no category
    # declared: ordinal, from its integer worst and best"); shown beside the question's figures
    level_note: str | None = None
    # An answer made of parts, each of which is a judgment of its own (`PARTS`): the statistics
    # give each part its own figures (`options` of `stats --format json`). `labels` name the parts
    # of "select" and "rank" answers by position, where the format knows them.
    parts: Parts | None = None
    labels: tuple[str, ...] | None = None
    # Whether the raters judge one object they share (an item everyone sees), so that their
    # answers can agree; False for a question about something each rater has of their own (a
    # self-assessment, their own response), with `why` in the format's words: such a question
    # gets its distribution, no agreement, and no quality finding that compares its raters.
    shared: bool = True
    why: str | None = None


class Column:
    """A batch's column that is not one value on every row, read the same way whatever holds it:
    `rows()`, one value per row; `runs()`, its run-length encoding (the values of its runs, and
    their lengths; None where every run is one row long); `factorize()`, an integer code per row
    and the distinct values in the order they first come (`columns.code`); `part(start, stop)`,
    some of its rows, as a column. A reader gives a column as a plain list (the batch makes it a
    `Listed`) or, where it holds it so, as its runs (`Repeated`, `Counting`), which answer the
    same questions without making every row."""

    __slots__ = ()
    # whether `factorize` is faster than coding the rows (Counting)
    factorizes = False

    def __len__(self) -> int:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows())

    def rows(self) -> list[Any]:
        raise NotImplementedError

    def runs(self) -> tuple[list[Any], list[int] | None]:
        return self.rows(), None

    def factorize(self) -> tuple[Any, list[Any]]:
        return code(self.rows())

    def part(self, start: int, stop: int) -> Column:
        return Listed(self.rows()[start:stop])


class Listed(Column):
    """A column given row by row."""

    __slots__ = ("_rows",)

    def __init__(self, rows: list[Any]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def rows(self) -> list[Any]:
        return self._rows

    def runs(self) -> tuple[list[Any], list[int] | None]:
        """One run where every row is one value, runs where they are long (`long_runs`: an
        answer array's item on each of its rows), else a run a row."""
        rows = self._rows
        n = len(rows)
        if not n:
            return rows, None
        first, last = rows[0], rows[-1]
        if (last is first or last == first) and rows.count(first) == n:
            return [first], [n]
        found = long_runs(rows) if n >= LONG and rows[LONG - 1] == first else None
        if found is None:
            return rows, None
        return [rows[a] for a, _ in found], [b - a for a, b in found]

    def part(self, start: int, stop: int) -> Column:
        return self if start == 0 and stop == len(self._rows) else Listed(self._rows[start:stop])


class _RunLength(Column):
    """A column held as runs of rows, `lengths[k]` rows each: its rows made when first asked for."""

    __slots__ = ("_ends", "_made", "lengths")

    def __init__(self, lengths: list[int]) -> None:
        self.lengths = lengths
        self._made: list[Any] | None = None
        self._ends: list[int] | None = None

    def __len__(self) -> int:
        return sum(self.lengths)

    def rows(self) -> list[Any]:
        if self._made is None:
            self._made = self._make()
        return self._made

    def part(self, start: int, stop: int) -> Column:
        """Rows start to stop: as runs where they begin and end where runs do (a question's
        rows in a batch of several), else row by row."""
        if self._ends is None:
            self._ends = list(accumulate(self.lengths))
        ends = self._ends
        i, j = bisect_right(ends, start), bisect_right(ends, stop)
        if start != (ends[i - 1] if i else 0) or stop != (ends[j - 1] if j else 0):
            return Listed(self.rows()[start:stop])
        return self._slice(i, j)

    def _make(self) -> list[Any]:
        raise NotImplementedError

    def _slice(self, i: int, j: int) -> Column:
        raise NotImplementedError


class Repeated(_RunLength):
    """Runs of one value: `values[k]`, `lengths[k]` times (a TextJudge metric's items, an
    instance's id once per score)."""

    __slots__ = ("values",)

    def __init__(self, values: list[Any], lengths: list[int]) -> None:
        super().__init__(lengths)
        self.values = values

    def runs(self) -> tuple[list[Any], list[int] | None]:
        return self.values, self.lengths

    def _make(self) -> list[Any]:
        return list(chain.from_iterable(map(repeat, self.values, self.lengths)))

    def _slice(self, i: int, j: int) -> Column:
        return Repeated(self.values[i:j], self.lengths[i:j])


class Counting(_RunLength):
    """Places, each run counting 0, 1, ... `lengths[k]` - 1 (a score's place in its list, a
    participant's in a response array): coded without a look at each row, since each place
    first comes in its own order and so is its own code."""

    __slots__ = ()
    factorizes = True

    def factorize(self) -> tuple[Any, list[Any]]:
        import numpy as np

        lengths = np.asarray(self.lengths, dtype=np.int64)
        starts = np.cumsum(lengths) - lengths
        codes = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(starts, lengths)
        return codes, list(range(int(lengths.max()) if len(lengths) else 0))

    def _make(self) -> list[Any]:
        return list(chain.from_iterable(map(range, self.lengths)))

    def _slice(self, i: int, j: int) -> Column:
        return Counting(self.lengths[i:j])


# A list whose first LONG rows are one value is looked at for long runs (Listed.runs), and a
# batch whose questions change more often than RUNS times, in runs shorter than LONG rows on
# average, is parted by question row by row (`long_runs`).
LONG = 32
RUNS = 16


def long_runs(rows: list[Any]) -> list[tuple[int, int]] | None:
    """The runs of equal values, as (start, stop), where they are long: each run's end found by
    doubling a step and then halving it (a few comparisons a run, not one a row), and checked
    by counting its rows (in C): a value that comes back inside a run is seen. None where the
    runs are many and short, or a run was not one."""
    n = len(rows)
    out: list[tuple[int, int]] = []
    a = 0
    while a < n:
        q = rows[a]
        good, step = a, 1  # rows[good] is q
        bad = a + 1
        while bad < n and rows[bad] == q:
            good, step = bad, step * 2
            bad = min(a + step, n)
        while bad - good > 1:  # rows[good] is q, rows[bad] is not (or bad is n)
            mid = (good + bad) // 2
            if rows[mid] == q:
                good = mid
            else:
                bad = mid
        if rows[a:bad].count(q) != bad - a:
            return None
        out.append((a, bad))
        a = bad
        if len(out) > RUNS and a < LONG * len(out):  # short runs: coding the rows costs less
            return None
    return out


class Batch:
    """Judgments column by column: a column every row of the batch shares is one value (`same`:
    the format, the dataset, the file), each other one a `Column` (a reader may give a plain
    list). A view builds a batch with a few list.extend calls per list of answers, and a writer
    turns a column into text at once: on millions of judgments this costs a fraction of a tuple
    per row."""

    __slots__ = ("_columns", "same", "size")

    def __init__(self, same: dict[str, Any], columns: Mapping[str, list[Any] | Column]) -> None:
        missing = [name for name in DEFAULTS if name not in same and name not in columns]
        if missing:  # a batch of an earlier shape: individual judgments
            same = {**same, **{name: DEFAULTS[name] for name in missing}}
        sizes = set(map(len, columns.values()))
        names = sorted([*same, *columns])
        if not columns or len(sizes) != 1 or (names != sorted(FIELDS) and names != sorted(COLUMNS)):
            raise ValueError("a batch has every field once, and at least one list, all of one length")
        self.same = same
        self._columns = {n: c if isinstance(c, Column) else Listed(c) for n, c in columns.items()}
        self.size = sizes.pop()

    @property
    def columns(self) -> dict[str, Column]:
        """The columns that are not the same on every row (a batch made of another keeps them)."""
        return dict(self._columns)

    def column(self, name: str) -> Column:
        """A column that is not the same on every row."""
        return self._columns[name]

    def rows(self, name: str) -> list[Any]:
        """Any column, one value per row."""
        column = self._columns.get(name)
        return [self.same[name]] * self.size if column is None else column.rows()

    @property
    def lists(self) -> dict[str, list[Any]]:
        """Every column that is not the same on every row, row by row."""
        return {name: column.rows() for name, column in self._columns.items()}

    @classmethod
    def of_rows(cls, rows: Sequence[tuple[Any, ...]]) -> Batch:
        """A batch of rows given one by one (tuples in FIELDS order; rows without the last fields
        are individual judgments)."""
        columns = list(zip(*rows, strict=True)) if rows else [() for _ in FIELDS]
        lists = {name: list(column) for name, column in zip(FIELDS, columns, strict=False)}
        # a column every row shares (the format, the dataset, the file, the role) is one value,
        # as a view that builds its batches gives it: a writer then writes it once, not per row.
        # The value stays a list, so that the batch has one.
        same = {name: column[0] for name, column in lists.items() if name != "value" and _shared(column)}
        return cls(same, {name: column for name, column in lists.items() if name not in same})

    def __len__(self) -> int:
        return self.size

    def kept(self, keep: list[bool]) -> Batch:
        """The rows where `keep` (one bool a row) is true, as a batch."""
        return Batch(self.same, {name: list(compress(column.rows(), keep)) for name, column in self._columns.items()})

    def individual(self) -> Batch | None:
        """The batch's individual judgments (None: it has none)."""
        role = self.same.get("role")
        if role is not None:
            return self if role == "individual" else None
        keep = list(map(eq, self.rows("role"), repeat("individual")))  # in C
        return self if all(keep) else self.kept(keep) if any(keep) else None

    def of_role(self, role: str) -> int:
        """How many rows of the batch have this role ("individual", "aggregate"), counted in C."""
        if "role" in self.same:
            return self.size if self.same["role"] == role else 0
        return self.rows("role").count(role)

    def tuples(self) -> Iterator[tuple[Any, ...]]:
        """The rows, in FIELDS order."""
        return zip(*map(self.rows, FIELDS), strict=True)


# The types whose == is identity of value: 1 == True and 0.0 == -0.0 would make a column of
# unlike values look shared.
_EXACT = frozenset({str, type(None)})


def _shared(column: list[Any]) -> bool:
    """Whether every value of a column is the same text (or None), compared in C."""
    if not column or type(column[0]) not in _EXACT:
        return False
    return column.count(column[0]) == len(column) and set(map(type, column)) == {type(column[0])}


# Every NaN as one value, math's own: NaN is not equal to itself, and a key must be (`hashable`).
NAN = math.nan

# The values that say a rater gave no answer (a null, or an answer the record lacks): the one
# definition. They are not counted (`missing` in the statistics), and an answer after one is no
# repeat (gather.first_answers): every coder and tally reads this set. No number may be one
# (numpy codes numbers, and knows None alone).
NO_ANSWER: frozenset[Hashable] = frozenset({None})


def answered(value: Any) -> bool:
    """Whether a value is an answer (not one of NO_ANSWER), compared as `hashable` has it."""
    try:
        return hashable(value) not in NO_ANSWER
    except TypeError:  # a list holding an object: an answer
        return True


def hashable(value: Any) -> Hashable:
    """A value as a key: the one definition of when two values are the same answer. Lists are
    compared whole (as tuples, their items alike), and every NaN is the same value (`NAN`, which
    is itself in a dict or a tuple); anything else as it is (1 == 1.0 == True, as Python has it)."""
    if isinstance(value, list):
        return tuple(map(hashable, value))
    if isinstance(value, float) and value != value:
        return NAN
    return value  # type: ignore[no-any-return]


_POSITIONS = tuple(map(str, range(1024)))


def positions(n: int) -> Sequence[str]:
    """ "0", "1", ... "n-1": the array positions a view writes into its pointers, made once (a
    string per row is a fifth of a view's time on millions of judgments)."""
    return _POSITIONS[:n] if n <= len(_POSITIONS) else list(map(str, range(n)))


@dataclass(frozen=True)
class Needs:
    """What a pass over a view's batches needs of its rows, given to the format's reader as the
    pass begins (`Judgments.in_batches`). `pointer`: where each individual judgment is (without
    it, each pointer is "": the statistics locate the few judgments a finding is about
    afterwards). `order`: the rows in the file's order across questions (without it a reader
    may give each question's rows together, in file order within the question, and leave out
    the stored aggregates' pointers too). `positions`: an answer that stores an option's place
    as that place (without it, CogGym names the option: the diff compares answers so)."""

    pointer: bool = True
    order: bool = True
    positions: bool = True


EVERY = Needs()


def every(view: Judgments) -> Needs:
    """The needs of a pass that reads every column of every view (export's)."""
    return EVERY


def given(read: Callable[..., Any], needs: Needs) -> Any:
    """A format's reader called for a pass: with the pass's needs where it has a parameter
    `needs` (or takes any arguments), else without (it then gives every column)."""
    try:
        found = inspect.signature(read).parameters.values()
    except (TypeError, ValueError):  # a callable whose signature cannot be read
        return read()
    takes = any(p.name == "needs" or p.kind is p.VAR_POSITIONAL for p in found)
    return read(needs) if takes else read()


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
    # What `rater` means (RaterKind): "person", the same person across items (a worker id, a
    # participant's place in arrays that hold every participant), so that one rater's answers
    # can be compared; "position", a place within one item only; "none". A plug-in written for
    # the earlier bool: True is "person", False "none".
    raters: RaterKind | bool = "person"
    # The rows in column batches, for a pass that needs what `Needs` says: called with it where
    # it has a parameter `needs` (a function without one gives every column).
    batches: Callable[..., Iterator[Batch]] | None = None
    # Why the dataset holds no judgment, in the format's words ("only aggregates stored
    # (majority_human) and no individual scores"), asked only after a pass over its rows gave
    # none: a format gathers what it says while it reads, so saying it costs no second reading.
    # None (or a call that returns None): the format says nothing more than the core does.
    none: Callable[[], str | None] | None = None
    # Said of a dataset whose rows are all aggregates, by `judgments.views` ("only aggregates
    # stored (majority_human): agreement cannot be computed").
    note: str | None = None
    # The judgments item by item (ByItem), where the format can give them so: `diff` then
    # compares two versions an item at a time and makes rows only for the items that differ.
    # Called with the pass's Needs, as `batches` is.
    items: Callable[..., ByItem] | None = None

    @property
    def rater_kind(self) -> RaterKind:
        """What the dataset's rater ids mean, `raters` given as a bool or a kind."""
        if self.raters is True or self.raters is False:
            return "person" if self.raters else "none"
        if self.raters not in RATER_KINDS:
            raise ValueError(f"raters is one of {', '.join(RATER_KINDS)} (or a bool), not {self.raters!r}")
        return self.raters

    def shared(self, question: str) -> bool:
        """Whether the raters of a question judge a shared object (a question not declared: yes)."""
        declared = self.questions.get(question)
        return declared is None or declared.shared

    @property
    def persons(self) -> bool:
        """Whether one rater's answers can be compared across items."""
        return self.rater_kind == "person"

    def rows(self) -> Iterator[Judgment]:
        if self.read is not None:
            return map(self._kinded_row, self.read())
        return map(Judgment._make, chain.from_iterable(batch.tuples() for batch in self.in_batches()))

    def in_batches(self, needs: Needs = EVERY) -> Iterator[Batch]:
        """The rows in column batches, for a pass that needs what `needs` says."""
        if self.batches is not None:
            return map(self._kinded, given(self.batches, needs))
        return batched(self.rows())

    def by_item(self, needs: Needs = EVERY) -> ByItem:
        """The judgments item by item (the view must have `items`)."""
        assert self.items is not None
        found: ByItem = given(self.items, needs)
        return found

    def _kind_of(self, role: str, rater: Any) -> str:
        return self.rater_kind if role == "individual" and rater != "" else "none"

    def _kinded_row(self, row: Judgment) -> Judgment:
        return row if row.rater_kind else row._replace(rater_kind=self._kind_of(row.role, row.rater))

    def _kinded(self, batch: Batch) -> Batch:
        """The batch with its rater kinds filled in where it leaves them to the view."""
        kinds = batch.same.get("rater_kind")
        if kinds or (kinds is None and "" not in batch.rows("rater_kind")):
            return batch
        same = {k: v for k, v in batch.same.items() if k != "rater_kind"}
        role = batch.same.get("role")
        if kinds == "" and (role == "aggregate" or (role is not None and "rater" in batch.same)):  # one kind
            return Batch({**same, "rater_kind": self._kind_of(role, batch.same.get("rater"))}, batch.columns)
        filled = list(map(self._kind_of, batch.rows("role"), batch.rows("rater")))
        if kinds is None:  # a kind per row: those given kept
            filled = [k or f for k, f in zip(batch.rows("rater_kind"), filled, strict=True)]
        return Batch(same, {**batch.columns, "rater_kind": filled})


def batched(rows: Iterator[Judgment], size: int = 4096) -> Iterator[Batch]:
    """Rows given one at a time, in batches of `size`."""
    while batch := list(islice(rows, size)):
        yield Batch.of_rows(batch)


class FirstPass:
    """A view's `batches` (or `read`) whose first pass is read already: as its dataset is checked
    (catalog.Format's `checked`), or up to its first judgment (judgments.views): the first call
    hands on that pass, later calls read the files anew. A check's findings are complete once
    the first pass has been read to its end; `finish` reads what is left of it, so that a
    consumer that stops early (or never starts) leaves no check half run.

    With `make`, `first` and `again` give what a reading of the files yields (TextJudge's runs of
    instances) and `make` turns it into batches for the pass's needs: the view's items
    (`Judgments.items`) are then read from the same first pass (`source`), and `finish` reads
    only what is left of the reading, not its rows."""

    def __init__(
        self,
        first: Iterator[Any],
        again: Callable[..., Iterator[Any]],
        make: Callable[[Iterator[Any], Needs], Iterator[Batch]] | None = None,
        *,
        read_for: Needs | None = None,
    ) -> None:
        self.first: Iterator[Any] | None = first
        self.again = again
        self.make = make
        self.handed: Iterator[Any] | None = None
        # The needs `first` was read for, where it was (a pass begun by judgments.views): a pass
        # with other needs does not take it, and reads anew. None: `first` is made for the pass.
        self.read_for = read_for
        self.needs = EVERY  # those of the pass the first reading was handed to

    def source(self, needs: Needs = EVERY) -> Iterator[Any]:
        """What a reading yields: the first pass once, to the first pass that can take it, then a
        new reading each call (`again`, given the pass's needs where it takes them)."""
        if self.first is None or self.read_for not in (None, needs):
            self.first = None  # left to `finish`, where it is the check's
            again: Iterator[Any] = given(self.again, needs)
            return again
        self.handed, self.first, self.needs = self.first, None, needs
        return self.handed

    def __call__(self, needs: Needs = EVERY) -> Iterator[Any]:  # batches, or rows (a `read`)
        source = self.source(needs)
        return source if self.make is None else self.make(source, needs)

    def finish(self) -> None:
        rest = self.first if self.first is not None else self.handed
        self.first = self.handed = None
        for _ in rest or ():
            pass


class JudgmentCounts(NamedTuple):
    """What the individual judgments of some items add up to, without their rows: how many per
    question (in the order the rows would meet them; no question with none) and the (question,
    rater) pairs among them."""

    counts: dict[str, int]
    raters: set[tuple[str, Any]]


def tally_of(batches: Iterable[Batch]) -> JudgmentCounts:
    """The tally of the individual judgments of some batches, counted from their rows."""
    counts: dict[str, int] = {}
    raters: set[tuple[str, Any]] = set()
    for batch in batches:
        if batch.of_role("individual") == 0:
            continue
        rows = zip(batch.rows("question"), batch.rows("rater"), batch.rows("role"), strict=True)
        for question, rater, role in rows:
            if role == "individual":
                counts[question] = counts.get(question, 0) + 1
                raters.add((question, rater))
    return JudgmentCounts(counts, raters)


@dataclass(frozen=True)
class ItemRun:
    """A run of a view's items in the order its rows give them (TextJudge's instances, CogGym's
    stimuli): the item of each, as its rows name it; what the item's rows are made from, compared
    with == (`content`: two items whose content and item are equal give the same rows); and the
    format's way to make the rows (`rows`) and the tally (`tally`) of the items start to stop."""

    items: list[Any]
    content: list[Any]
    rows: Callable[[int, int], Iterator[Batch]]
    tally: Callable[[int, int], JudgmentCounts]


@dataclass
class ByItem:
    """A view's judgments item by item, for comparing two versions before their rows are made
    (diff/items.py): the runs of items, whose rows, in order, are the view's individual
    judgments and the aggregates stored within the items, then `rest`, the rows that belong to no
    run (CogGym's stored means, in a file of their own)."""

    runs: Iterator[ItemRun]
    rest: Iterator[Batch] = field(default_factory=lambda: iter(()))
