"""Writing judgments as CSV, JSON Lines or Parquet, a column batch at a time.

A value keeps its JSON type in JSON Lines. In CSV and Parquet, where a column has one type, it is
written as text: a string as it is, a number or a list as JSON (3, 4.5, [0, 1]), a missing
answer (None) as an empty cell or null. After the view's columns come the value's typed columns
(`typed`): `value_number` (a number: float64 in Parquet), `value_bool` (a boolean) and
`value_text` (a string), each null where the value is of another type, so that a researcher
averages `value_number` without converting anything; a list (a multi-select row, a ranking) is
only in `value`. A batch whose values are all of one type costs nothing more: the other two
columns are one shared null.

CSV and JSON Lines are written column by column: each column becomes its cells in one C-level
map, the cells of a row are interleaved with the separators every row shares, and the batch is
one join. A row costs no Python call of its own, which is what keeps millions of judgments
affordable; the bytes are those of the csv module and of orjson writing one object per row
(tests/test_judgments.py compares them on random batches).

A spreadsheet opening a CSV file runs a cell that starts with `=`, `+`, `-` or `@` (and some a
tab or a carriage return) as a formula. `write_csv(..., formulas=False)` writes such a text cell
with a `'` before it, which spreadsheets show as text; numbers (-1, -0.5) and text that is a
number stay as they are. It is not the default: the export is data for programs, and pandas or
R would read the `'` as part of the value (docs/export.md).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, repeat
from typing import IO, Any

import orjson

from .view import COLUMNS, TYPED, Batch, Judgments

_TYPES = {"value_number": frozenset({int, float}), "value_bool": frozenset({bool}), "value_text": frozenset({str})}


def typed(batch: Batch) -> Batch:
    """The batch with the value's typed columns (TYPED): the value where it is of the column's
    type, else None. Bought by the column, in C, where a batch's values are all of one type."""
    if TYPED[0] in batch.same or TYPED[0] in batch.lists:
        return batch
    same, lists = dict(batch.same), dict(batch.lists)
    if "value" in batch.same:
        value = batch.same["value"]
        same |= {name: value if type(value) in types else None for name, types in _TYPES.items()}
        return Batch(same, lists)
    values = batch.lists["value"]
    kinds = set(map(type, values))
    for name, types in _TYPES.items():
        if not kinds & types:
            same[name] = None
        elif kinds <= types:
            lists[name] = values
        else:  # the other types map to None, a value of the column's type to itself (get's default)
            lists[name] = list(map(dict.fromkeys(kinds - types).get, map(type, values), values))
    return Batch(same, lists)


def as_text(value: Any) -> str | None:
    """A value as one CSV or Parquet cell."""
    if value is None or isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:  # an integer beyond 64 bits, which orjson does not write
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_AS_STR = frozenset({str, int, float})  # str() writes them as the csv module and JSON do
_INT = {int}
# Numbers beside None or a boolean are written as JSON (as_text), a float too, where beside
# integers alone it is written by str() ("1e+16", JSON "1e16"): the csv module's way, kept.
_JSON_PLAIN = frozenset({int, float, bool, type(None)})  # written by orjson without a comma
_NULL = {"null": ""}


def _json_numbers(column: list[Any], kinds: set[type]) -> list[str] | None:
    """The cells of a column of integers, or of numbers and booleans beside None, as JSON writes
    them: one orjson call for the column, split at its commas, None's `null` emptied (str() of
    each integer costs five times as much). None for an integer beyond 64 bits."""
    try:
        cells = orjson.dumps(column).decode()[1:-1].split(",")
    except orjson.JSONEncodeError:
        return None
    return list(map(_NULL.get, cells, cells)) if type(None) in kinds else cells


def _needs_quotes(text: str) -> bool:
    """Whether the text holds what a CSV cell must be quoted for (four scans in C, faster than
    one regular expression)."""
    return "," in text or '"' in text or "\n" in text or "\r" in text


def _quoted(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"' if _needs_quotes(cell) else cell


def _csv_cells(column: list[Any]) -> list[str]:
    """A column's CSV cells."""
    try:  # a column of strings, told in the same C loop that joins it
        text, cells = "".join(column), column
    except TypeError:
        kinds = set(map(type, column))
        if kinds <= _AS_STR and kinds != _INT:
            cells = list(map(str, column))
        elif kinds <= _JSON_PLAIN and (numbers := _json_numbers(column, kinds)) is not None:
            cells = numbers
        else:  # None as an empty cell, text as it is, booleans and lists as JSON
            cells = ["" if v is None else v if type(v) is str else as_text(v) for v in column]
        text = "".join(cells)
    return list(map(_quoted, cells)) if _needs_quotes(text) else cells


Cells = Callable[[list[Any]], tuple[list[Any], Any]]  # a column -> (its cells, what goes on both sides of each)


_SLICE = 1024
# A JSON Lines row is about twice a CSV row (it repeats the keys): its slices hold half the rows,
# about the same bytes. A slice of 1,024 rows (some 400 kB joined) made glibc give the top of the
# heap back and fault it in again at every slice while the check ran beside the writer: 5.4
# million page faults and 12 s of system time on the TextJudge data, against 26,000 with 512.
_JSONL_SLICE = 512


def _write(batches: Iterable[Batch], out: IO[Any], cells: Cells, before: tuple[Any, ...], end: Any, rows: int) -> int:
    """Write the batches with their typed columns, each row its fields' cells with `before` each
    (a separator, a key) and `end` after them: text or bytes, as `before`, `end` and the cells
    are. A batch is written `rows` rows at a time: the buffers a slice needs are small enough for
    the allocator to reuse, where a whole batch's would be given back to the system and asked for
    again each time (a page fault per 4 kB: a third of the time of JSON Lines). Returns the rows
    written."""
    n = 0
    for batch in map(typed, batches):
        lists = batch.lists
        for start in range(0, batch.size, rows):
            part = slice(start, min(start + rows, batch.size))
            out.write(end[:0].join(_interleaved(batch.same, lists, part, cells, before, end)))
        n += batch.size
    return n


def _interleaved(
    same: dict[str, Any], lists: dict[str, list[Any]], rows: slice, cells: Cells, before: tuple[Any, ...], end: Any
) -> Any:
    """The pieces of the rows in `rows`, in order: before each field's cell its `before`, then
    `end`; the pieces every row shares (a shared column's cell, the text around a cell) are
    merged into one."""
    size = rows.stop - rows.start
    parts: list[Iterable[Any]] = []
    shared = end[:0]
    made: dict[int, tuple[list[Any], Any]] = {}  # a list two columns share (value, a typed one) is made once
    for name, text in zip(COLUMNS, before, strict=True):
        shared += text
        if name in same:
            (cell,), around = cells([same[name]])
            shared += around + cell + around
            continue
        listed = lists[name]
        column, around = made.get(id(listed)) or made.setdefault(id(listed), cells(listed[rows]))
        parts += [repeat(shared + around, size), column]
        shared = around
    parts.append(repeat(shared + end, size))
    return chain.from_iterable(zip(*parts, strict=True))


_CSV_SEPARATORS = ("", *[","] * (len(COLUMNS) - 1))

# What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"), and what it reads
# as a number whatever its sign, which is no formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def as_text_cell(value: Any) -> Any:
    """The value, with a `'` before it when it is text a spreadsheet would run as a formula."""
    if type(value) is str and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


_NUMERIC = frozenset({"line", "value_number", "value_bool"})  # columns no spreadsheet runs as a formula


def _no_formulas(batch: Batch) -> Batch:
    same = {name: value if name in _NUMERIC else as_text_cell(value) for name, value in batch.same.items()}
    # a list two columns share (value and value_text) is mapped once and stays shared, so that
    # its cells are still made once (_interleaved)
    mapped: dict[int, list[Any]] = {}
    for name, column in batch.lists.items():
        if name not in _NUMERIC and id(column) not in mapped:
            mapped[id(column)] = list(map(as_text_cell, column))
    return Batch(same, {n: c if n in _NUMERIC else mapped[id(c)] for n, c in batch.lists.items()})


def write_csv(batches: Iterable[Batch], out: IO[str], *, formulas: bool = True, header: bool = True) -> int:
    """Write the batches as CSV; with `formulas=False`, no text cell starts a formula; with
    `header=False`, the rows only (a part of a file written in pieces)."""
    if header:
        out.write(",".join(COLUMNS) + "\n")
    rows = batches if formulas else map(_no_formulas, map(typed, batches))
    return _write(rows, out, lambda column: (_csv_cells(column), ""), _CSV_SEPARATORS, "\n", _SLICE)


_JSON_KEYS = tuple((("{" if i == 0 else ",") + f'"{name}":').encode() for i, name in enumerate(COLUMNS))


def _json_cells(column: list[Any]) -> tuple[list[bytes], bytes]:
    """A column's JSON values, encoded by orjson all at once: as an array, split at the commas
    between its elements. Between two strings of an array the bytes are `","`, which no string
    can hold unescaped (a quote inside a string is written `\\"`), so for a column of strings the
    split is exact, and the quotes it takes away go back on both sides of each cell."""
    kinds = set(map(type, column))
    try:
        if kinds == {str}:
            return orjson.dumps(column)[2:-2].split(b'","'), b'"'
        if kinds <= _JSON_PLAIN:
            return orjson.dumps(column)[1:-1].split(b","), b""
        return list(map(orjson.dumps, column)), b""
    except orjson.JSONEncodeError:  # an integer beyond 64 bits, which orjson does not write
        return [json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode() for v in column], b""


def write_jsonl(batches: Iterable[Batch], out: IO[bytes]) -> int:
    return _write(batches, out, _json_cells, _JSON_KEYS, b"}\n", _JSONL_SLICE)


_GROUP = 65536  # rows per Parquet row group: batches are gathered up to it (twice: no faster, 28 MB more)


def write_parquet(batches: Iterable[Batch], out: IO[bytes]) -> int:
    """Parquet through pyarrow (the `parquet` extra); item, rater and option are text, `value`
    too, and the typed columns have their types."""
    import pyarrow as pa

    schema = arrow_schema()
    return write_tables((arrow_table(pa, schema, batch) for batch in map(typed, batches) if batch.size), out)


def arrow_schema() -> Any:
    import pyarrow as pa

    types = {"line": pa.int64(), "value_number": pa.float64(), "value_bool": pa.bool_()}
    return pa.schema([(name, types.get(name, pa.string())) for name in COLUMNS])


def estimate_batches(view: Judgments) -> Iterator[Batch]:
    """`export --estimates`: per nominal question whose raters are persons and judge a shared
    object, one row per item, role `estimate`, its Dawid-Skene label as the value
    (competence.py). The judgments are read once more for it (`Gathered`)."""
    from .competence import of_question
    from .gather import Gathered

    if not view.persons:
        return
    for name, q in Gathered.of(view).questions.items():
        found = of_question(q) if view.shared(name) else None
        if found is None:
            continue
        same: dict[str, Any] = {"format": view.format, "dataset": view.dataset, "question": name, "rater": ""}
        same |= {"file": "", "pointer": "", "line": None, "role": "estimate", "rater_kind": "none"}
        lists = {
            "item": [item for item, _ in found.places],
            "option": [option for _, option in found.places],
            "value": [found.labels[k] for k in found.estimated().tolist()],
        }
        yield Batch(same, lists)


def write_tables(tables: Iterable[Any], out: IO[bytes]) -> int:
    """Arrow tables of `arrow_schema()` as Parquet: a row group holds about 65,536 rows however
    small the tables are, so the same tables in the same order give the same bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 0
    held: list[Any] = []
    with pq.ParquetWriter(out, arrow_schema()) as writer:
        for table in tables:
            held.append(table)
            n += len(table)
            if sum(map(len, held)) >= _GROUP:
                writer.write_table(pa.concat_tables(held), row_group_size=_GROUP * 2)
                held = []
        if held:
            writer.write_table(pa.concat_tables(held), row_group_size=_GROUP * 2)
    return n


def arrow_table(pa: Any, schema: Any, batch: Batch) -> Any:
    """A batch with its typed columns as an Arrow table of `schema`: a shared column is its one
    value converted and repeated; an item, rater or option column of strings or of integers is
    converted by Arrow (an integer's text is the same in Arrow and in Python), any other text
    column value by value."""
    lists = batch.lists
    arrays = [
        _arrow_column(pa, field, lists[field.name])
        if field.name in lists
        else pa.repeat(_arrow_column(pa, field, [batch.same[field.name]])[0], batch.size)
        for field in schema
    ]
    return pa.Table.from_arrays(arrays, schema=schema)


_ONE_KIND = ({str}, {int})  # the columns Arrow converts itself, as str() writes each value


def _arrow_column(pa: Any, field: Any, column: list[Any]) -> Any:
    name, kind = field.name, field.type
    if name == "value":
        return pa.array(list(map(as_text, column)), kind)
    if name in ("item", "rater", "option"):
        if set(map(type, column)) in _ONE_KIND:
            with contextlib.suppress(OverflowError):  # an integer past 64 bits
                return pa.array(column).cast(kind)
        return pa.array(list(map(str, column)), kind)
    if name == "value_number":  # a float64 column: integers past 2**63 too
        try:
            return pa.array(column, kind)
        except (OverflowError, pa.ArrowException):
            return pa.array([None if v is None else _float(v) for v in column], kind)
    return pa.array(column, kind)


def _float(number: int | float) -> float:
    try:
        return float(number)
    except OverflowError:  # an integer past the largest double
        return math.inf if number > 0 else -math.inf


def missing(module: str, extra: str, purpose: str) -> str | None:
    """What to install when `module` is not there (found without importing it), else None:
    "export --to parquet needs pyarrow: pip install 'humanjudge-schema[parquet]'"."""
    from importlib.util import find_spec

    if find_spec(module) is not None:
        return None
    return f"{purpose} needs {module}: pip install 'humanjudge-schema[{extra}]'"
