"""One pass over a dataset's judgments, kept per question: what `stats` and the quality checks
both read (the value counts of each item, who answered what). The pass keeps each question's
columns (item, option, rater, value) as integer codes (columns.py; the values coded a chunk of
rows at a time as they come, the others at the end): a rater's later answers to an item are found with numpy, and the
value counts are counted there. Where a judgment is, which only a finding needs, is looked up afterwards for the
few judgments findings are about (`locate`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from operator import is_not, ne
from typing import Any, NamedTuple

from ..gcpause import paused
from .agreement import Tally
from .columns import array, code, counts, renumber, unique
from .view import NO_ANSWER, Batch, Column, Judgments, Level, Listed, Needs, Repeated, answered, hashable, long_runs

Place = tuple[Any, Any]  # (item, option): what raters judged together
# A judgment a finding is about, to be located: the first judgment of a question
# ("question", name), the first answer to an item ("item", name, place), or a rater's first
# answer ("rater", name, rater), or a rater's first answer to an item ("answer", name, rater, place).
# Answers are judgments that are not None.
Key = tuple[Any, ...]


def first_answers(rows: Iterable[tuple[Hashable, Any]]) -> dict[Hashable, int]:
    """Which answer of a rater to an item counts, defined here once: of the rows in file order,
    each a key (the rater and the item) and a value, the index of each key's first row whose
    value is an answer (`view.answered`: not one of `view.NO_ANSWER`, None). A value that is no
    answer is not counted, and an answer after it is no repeat. Every later row of the key
    with a value is a repeat (`Gathered.repeats`). The passes below decide this with numpy or in
    C (`Gathered._code`, `_firsts`); tests hold them to this function."""
    out: dict[Hashable, int] = {}
    for i, (key, value) in enumerate(rows):
        if key not in out and answered(value):
            out[key] = i
    return out


class AnswerSource(NamedTuple):
    """A judgment a finding is about: where it is, and its question."""

    file: str
    pointer: str
    line: int | None
    question: str


class Answers(NamedTuple):
    """Each rater's answer to each item (the one that counts, `first_answers`, where a rater
    answered an item again), in the order they come, as codes: the rater's (in
    `GatheredQuestion.raters`), the item's and the value's (in the question's `tally.counts()`; item -1:
    one with no counted judgment, whose answers are all NaN), and the item's place (in
    `places`)."""

    rater: Any
    unit: Any
    value: Any
    place: Any
    places: list[Place]


class RaterValues(NamedTuple):
    """A question's distinct (rater, value) pairs (`GatheredQuestion.rater_values`), as codes."""

    rater: Any
    value: Any
    first: Any  # the index of the pair's first answer among the answers
    times: Any  # how often the rater gave the value


@dataclass
class GatheredQuestion:
    """What the checks keep of one question's judgments."""

    level: Level | None
    tally: Tally = field(default_factory=Tally)
    # answers the format counts but that say nothing (None); where raters are persons, one per
    # rater and item given no answer at all (a None beside an answer is not missing: first_answers)
    missing: int = 0
    # The question's aggregate rows (stored means, majorities, proportions): a question with
    # aggregates and no individual judgment has them only, and no agreement can be computed.
    aggregates: int = 0
    raters: list[Hashable] = field(default_factory=list)  # who answered, in the order of their first answer
    answered: Answers | None = None  # where raters are persons
    _pairs: RaterValues | None = field(default=None, init=False, repr=False, compare=False)

    def rater_values(self) -> RaterValues:
        """The distinct (rater, value) pairs of the answers, sorted by rater, then value, with the
        index of each one's first answer and its count: counted once for the checks that ask (a
        rater's modal answer, raters alike)."""
        if self._pairs is None:
            assert self.answered is not None
            width = max(len(self.tally.counts().values), 1)
            keys, first, times = unique(self.answered.rater * width + self.answered.value, index=True, counts=True)
            self._pairs = RaterValues(keys // width, keys % width, first, times)
        return self._pairs

    @property
    def by_rater(self) -> dict[Hashable, dict[Place, Hashable]]:
        """rater -> unit -> value, raters in the order of their first answer (made when asked)."""
        out: dict[Hashable, dict[Place, Hashable]] = {rater: {} for rater in self.raters}
        if self.answered is not None:
            a, values = self.answered, self.tally.counts().values
            for r, p, v in zip(a.rater.tolist(), a.place.tolist(), a.value.tolist(), strict=True):
                out[self.raters[r]][a.places[p]] = values[v]
        return out


class Repeat(NamedTuple):
    """A rater's answer to an item after the one that counts (`first_answers`), where raters are
    persons: left out of the question's figures. `where` is the repeat; the answer that counts
    is located by its Key."""

    question: str
    rater: Hashable
    place: Place
    where: AnswerSource


class _Columns:
    """A question's individual judgments as they come, column by column, and the number of each
    row among the dataset's individual judgments. The values are coded batch by batch (`_Coded`:
    a file's values are often an object per row, which a list would keep alive); items and
    options often hold one value over a run (an array of answers to one item): such a run is
    kept as its value."""

    __slots__ = ("items", "numbers", "options", "raters", "values")

    def __init__(self) -> None:
        self.items, self.options = _RunLengths(), _RunLengths()
        self.raters = _Coded(whole=True)  # a rater's id coded once per column
        self.values = _Coded(none=True)
        self.numbers: list[Any] = []  # row numbers: an array, or a run's (start, stop)


class _RunLengths:
    """A column kept as its runs (`Column.runs`: an answer array's item on each of its rows is
    one run), coded at the end: the runs' values coded, then repeated."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[tuple[list[Any], list[int] | None]] = []

    def add(self, part: Column) -> None:
        self.parts.append(part.runs())

    def result(self) -> tuple[Any, list[Any]]:
        """`code` of the column."""
        import numpy as np

        runs, values = code(list(chain.from_iterable(values for values, _ in self.parts)))
        if all(lengths is None for _, lengths in self.parts):
            return runs, values
        lengths = chain.from_iterable(repeat(1, len(v)) if n is None else n for v, n in self.parts)
        return np.repeat(runs, list(lengths)), values


class _Index(dict):  # type: ignore[type-arg]
    """A column's codes by value, which numbers a value it has not seen (the next code, the value
    added to `order`) when it is looked up: one lookup a row. With `none`, each of
    view.NO_ANSWER is -1."""

    __slots__ = ("order",)

    def __init__(self, none: bool) -> None:
        super().__init__(dict.fromkeys(NO_ANSWER, -1) if none else {})
        self.order: list[Hashable] = []

    def __missing__(self, value: Hashable) -> int:
        code = self[value] = len(self.order)
        self.order.append(value)
        return code

    def codes(self, local: Any, distinct: list[Any]) -> Any:
        """A part's codes (`local`, numbering its `distinct` values) as the column's: the part's
        new values numbered in the order they come, in C (`code`'s distinct values are in that
        order, no two equal). -1 (None, where it is no value) stays -1."""
        import numpy as np

        start = len(self.order)
        if start and any(map(self.__contains__, distinct)):
            return np.asarray([*map(self.__getitem__, distinct), -1], dtype=np.int64)[local]
        # every value new (the first part, a column of distinct floats): numbered at once
        self.update(zip(distinct, range(start, start + len(distinct)), strict=True))
        self.order.extend(distinct)
        return np.where(local < 0, -1, local + start) if start else local


class _Coded:
    """A column as integer codes, added a part at a time and coded a chunk of parts at a time
    (`code`, then the chunk's distinct values looked up in the column's own dict): the values
    in code order, each the first of its equals. A chunk of at most _CHUNK rows is held as
    references (a file's values are often an object per row, which a whole column would keep
    alive), and coding it at once spares the numpy calls of a part of a few rows. With `none`,
    each of view.NO_ANSWER is coded -1; lists are compared whole (as tuples)."""

    __slots__ = ("codes", "held", "index", "none", "whole")

    def __init__(self, none: bool = False, whole: bool = False) -> None:
        self.codes: list[Any] = []
        self.held: list[Any] = []  # the rows not coded yet
        self.index = _Index(none)
        self.none = none
        self.whole = whole  # every row held until a part that codes itself, or the end

    def add(self, part: Column) -> None:
        """Add a part's rows; a part that codes itself (`Column.factorizes`: places counting
        from 0) is coded at once, without its rows."""
        if part.factorizes:
            self._flush()
            self.codes.append(self.index.codes(*part.factorize()))
            return
        self.held += part.rows()
        if not self.whole and len(self.held) >= _CHUNK:
            self._flush()

    def _flush(self) -> None:
        import numpy as np

        held, self.held = self.held, []
        if not held:
            return
        if type(held[0]) is str:  # labels: each looked up once in the column's dict, in C
            try:
                self.codes.append(np.fromiter(map(self.index.__getitem__, held), dtype=np.int64, count=len(held)))
                return
            except TypeError:  # a list among them: the chunk is coded whole
                pass
        # a multi-select's rows, or numbers: one numpy array, which a None, a text or a list among
        # numbers refuses (then coded through a dict)
        found = array(held) if type(held[0]) in _ARRAYS else None
        if found is None:
            found = code(_as_keys(held), NO_ANSWER) if self.none else code(held)
        self.codes.append(self.index.codes(*found))

    def result(self) -> tuple[Any, list[Hashable]]:
        """The codes of every row, and the values."""
        import numpy as np

        self._flush()
        return (np.concatenate(self.codes) if self.codes else np.zeros(0, dtype=np.int64)), self.index.order


_ARRAYS = frozenset({list, int, float})  # the first value of a chunk numpy may read whole (`array`)
# Rows of a column held before they are coded (_Coded): enough that a chunk's numpy calls cost
# little beside its rows, few enough that the references held stay small (128 kB a column).
_CHUNK = 1 << 14


def needs(view: Judgments) -> Needs:
    """What the pass over a view's judgments needs: where a judgment is, which only a finding
    needs, is looked up afterwards (`Gathered.locate`), so no pointers; and where no repeat is
    looked for (raters that are not persons), not the rows' order across questions (the numbers
    of the rows are then not kept)."""
    return Needs(pointer=False, order=view.persons)


@dataclass
class Gathered:
    """One pass over a dataset's judgments: per question, the facts every check needs. An item is
    the row's item and option together (a multi-slider label, a click), as in the statistics."""

    view: Judgments
    questions: dict[str, GatheredQuestion] = field(default_factory=dict)
    # the repeats, as (row number, question, rater, place), located when first asked (`repeats`)
    _pending: list[tuple[int, str, Hashable, Place]] = field(default_factory=list, repr=False)
    _found: list[Repeat] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, view: Judgments) -> Gathered:
        out = cls(view)
        columns: dict[str, _Columns] = {}
        seen = 0
        # the columns hold millions of references (gcpause.py)
        with paused():
            for batch in view.in_batches(needs(view)):
                if batch.size:
                    seen += out._add(batch, columns, seen)
            for name, found in columns.items():
                out._code(name, found)
        out._pending.sort(key=lambda r: r[0])
        return out

    @property
    def repeats(self) -> list[Repeat]:
        """Every rater's answer to an item after the one that counts (`first_answers`), in file
        order: located when first asked, by one more pass over the judgments, made only when
        there are repeats and ended at the last."""
        if self._found is None:
            self._found = []
            pending = iter(self._pending)
            wanted = next(pending, None)
            seen = 0
            with paused():
                for batch in self._individual() if wanted else ():
                    names = batch.rows("question")
                    while wanted is not None and wanted[0] < seen + batch.size:
                        n, name, rater, place = wanted
                        self._found.append(Repeat(name, rater, place, _where(batch, names, n - seen)))
                        wanted = next(pending, None)
                    seen += batch.size
                    if wanted is None:
                        break
        return self._found

    def _add(self, batch: Batch, columns: dict[str, _Columns], seen: int) -> int:
        """Append a batch's individual judgments to their questions' columns, a run of one
        question at a time (list.extend, in C); returns how many it holds."""
        by_question = _rows_of(batch)
        for name, _ in by_question:  # in the order the questions first come
            if name not in self.questions:
                declared = self.view.questions.get(name)
                self.questions[name] = GatheredQuestion(declared.level if declared else None)
        mine = batch.individual()
        if mine is not batch:  # the other rows are aggregates
            others = compress(batch.rows("question"), map(ne, batch.rows("role"), repeat("individual")))
            for name, n in Counter(others).items():
                self.questions[name].aggregates += n
        if mine is None:
            return 0
        for name, rows in by_question if mine is batch else _rows_of(mine):
            found = columns.get(name)
            if found is None:
                found = columns[name] = _Columns()
            for column, coded in (
                ("item", found.items),
                ("rater", found.raters),
                ("option", found.options),
                ("value", found.values),
            ):
                coded.add(_part(mine, column, rows))
            if self.view.persons:  # made into numbers only where a repeat is noted (_code)
                found.numbers.append((seen + rows.start, seen + rows.stop) if isinstance(rows, range) else rows + seen)
        return mine.size

    def _code(self, name: str, found: _Columns) -> None:
        """A question's columns as codes: each rater's answer to an item that counts kept
        (`first_answers`; the later ones noted as repeats, where raters are persons), the value
        counts of the kept rows, and each rater's answers."""
        import numpy as np

        q = self.questions[name]
        items, item_of = found.items.result()
        options, option_of = found.options.result()
        width = max(len(option_of), 1)
        if width == 1:  # one option: the items' codes are the places', numbered as they first come (`code`)
            unit = items
            places: list[Place] = list(zip(item_of, repeat(option_of[0] if option_of else None)))
        else:
            unit, first = renumber(items * width + options)
            places = [(item_of[k // width], option_of[k % width]) for k in first.tolist()]
        raters, rater_of = found.raters.result()
        blank = rater_of.index("") if "" in rater_of else -1  # "": a row without a rater
        value, value_of = found.values.result()
        if self.view.persons:
            # each (rater, item) pair's first answer, or its first None where it has no answer
            # (`first_answers`): a pair's answers are keyed before its Nones, its first key kept
            keys, firsts = unique((raters * len(places) + unit) * 2 + (value < 0), index=True)
            keep = raters == blank
            keep[firsts[np.diff(keys // 2, prepend=-1) != 0]] = True
            if not keep.all():
                again = np.flatnonzero(~keep & (value >= 0))  # a None after the answer is no repeat
                if len(again):  # each repeat noted by its number among the dataset's rows
                    number = np.concatenate([np.arange(*n) if type(n) is tuple else n for n in found.numbers])[again]
                    for n, r, u in zip(number.tolist(), raters[again].tolist(), unit[again].tolist(), strict=True):
                        self._pending.append((n, name, rater_of[r], places[u]))
                unit, raters, value = unit[keep], raters[keep], value[keep]
        q.missing = int((value < 0).sum())
        lost = np.asarray([v != v for v in value_of] + [True], dtype=bool)  # NaN, and None (-1)
        counted = ~lost[value]
        judged: list[Hashable]
        if counted.all():  # every place has a counted judgment, and keeps its number
            tally_unit, kept_units, judged = unit, np.arange(len(places)), list(places)
        else:
            tally_unit, kept_units = renumber(unit[counted])
            judged = list(map(places.__getitem__, kept_units.tolist()))
        q.tally = Tally.of_counts(counts(judged, value_of, tally_unit, value[counted]))
        if self.view.persons:
            answered = (raters != blank) & (value >= 0)
            where = np.full(len(places), -1, dtype=np.int64)
            where[kept_units] = np.arange(len(kept_units))
            rater, kept_raters = renumber(raters[answered])
            q.raters = [rater_of[k] for k in kept_raters.tolist()]
            q.answered = Answers(rater, where[unit[answered]], value[answered], unit[answered], places)

    def locate(self, keys: Iterable[Key]) -> dict[Key, AnswerSource]:
        """Where each judgment a finding is about is (see Key): one more pass over the judgments,
        made only when there are findings, and ended as soon as every key is found."""
        wanted = set(keys)
        found: dict[Key, AnswerSource] = {}
        with paused():
            for batch in self._individual():
                found.update(_firsts(batch, wanted - found.keys(), self.view.persons))
                if len(found) == len(wanted):
                    break
        return found

    def _individual(self) -> Iterator[Batch]:
        """The individual judgments of the view's batches, read again (the passes that locate)."""
        for batch in self.view.in_batches():
            mine = batch.individual() if batch.size else None
            if mine is not None:
                yield mine


def _rows_of(batch: Batch) -> list[tuple[str, range | Any]]:
    """The batch's rows of each question, the questions in the order they first come: long runs
    of one question (`view.long_runs`) as ranges, in order; else a question's rows as their
    indices (an array, in order), cut from one stable sort of the batch's question codes: work
    in proportion to the rows, not to the rows times the questions (3,000 questions of a few
    rows each in one batch)."""
    import numpy as np

    names = batch.rows("question")
    runs = long_runs(names)
    if runs is not None:
        return [(names[a], range(a, b)) for a, b in runs]
    codes, distinct = code(names)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(distinct) + 1)).tolist()
    return [(name, order[bounds[k] : bounds[k + 1]]) for k, name in enumerate(distinct)]


def _part(batch: Batch, column: str, rows: range | Any) -> Column:
    """A column's values on some rows (`_rows_of`): one run where the batch holds it as one value,
    else cut where its runs begin and end, where it holds runs."""
    if column in batch.same:
        return Repeated([batch.same[column]], [len(rows)])
    given = batch.column(column)
    if isinstance(rows, range):
        return given.part(rows.start, rows.stop)
    return Listed(list(map(given.rows().__getitem__, rows.tolist())))


def _as_keys(values: list[Any]) -> list[Any]:
    """The values as keys (`view.hashable`: lists whole, every NaN one value), made only where
    some need it (lists, floats)."""
    kinds = set(map(type, values))
    return list(map(hashable, values)) if list in kinds or float in kinds else values


def _firsts(batch: Batch, wanted: set[Key], raters: bool) -> dict[Key, AnswerSource]:
    """Where in a batch of individual judgments each wanted key first is."""
    names, people = batch.rows("question"), batch.rows("rater")
    given = list(map(answered, batch.rows("value")))
    places = list(zip(batch.rows("item"), batch.rows("option"), strict=True))
    # each kind of Key: its columns, and the rows it may be found at
    kinds: dict[str, tuple[tuple[list[Any], ...], list[bool]]] = {
        "question": ((names,), [True] * batch.size),
        "item": ((names, places), given),
        "rater": ((names, people), list(map(bool.__and__, given, map(is_not, people, repeat(""))))),
        "answer": ((names, people, places), given),  # the answer that counts: first_answers
    }
    rows: dict[Key, int] = {}
    for kind in {key[0] for key in wanted} & (set(kinds) if raters else {"question", "item"}):
        columns, keep = kinds[kind]
        keys = list(compress(zip(repeat(kind), *columns), keep))
        indices = list(compress(range(batch.size), keep))
        rows.update(zip(reversed(keys), reversed(indices), strict=True))  # each key's first row
    return {key: _where(batch, names, rows[key]) for key in wanted if key in rows}


def _where(batch: Batch, names: list[str], i: int) -> AnswerSource:
    def cell(name: str) -> Any:
        return batch.same[name] if name in batch.same else batch.column(name).rows()[i]

    return AnswerSource(cell("file"), cell("pointer"), cell("line"), names[i])
