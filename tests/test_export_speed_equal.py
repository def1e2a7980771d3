"""The export's faster writers give what the earlier ones gave, on the examples, the case folders,
generated batches and the corpus: CSV and JSON Lines byte for byte, Parquet tables equal. The
earlier code is kept here as the reference: Parquet's table of a list per column with every
value converted in Python, and the CSV cells and typed columns made a value at a time. CSV written
in parts (`header=False`) is the whole file's bytes; row groups hold about 65,536 rows whatever
the view's batch sizes."""

from __future__ import annotations

import io
import math
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import judgments
from humanjudge_schema.judgments import export
from humanjudge_schema.judgments.view import COLUMNS, FIELDS, Batch

from .conftest import CASES, ROOT, corpus

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _reference_table(batch: Batch) -> Any:
    """The earlier writer's table: every column a list, `value` through as_text, item, rater and
    option through str, integers in value_number through float (past the largest double: inf)."""
    types = {"line": pa.int64(), "value_number": pa.float64(), "value_bool": pa.bool_()}
    schema = pa.schema([(name, types.get(name, pa.string())) for name in COLUMNS])
    columns = {name: batch.rows(name) for name in COLUMNS}
    columns["value"] = list(map(export.as_text, columns["value"]))
    if int in set(map(type, columns["value_number"])):
        columns["value_number"] = [None if v is None else _float(v) for v in columns["value_number"]]
    for name in ("item", "rater", "option"):
        columns[name] = list(map(str, columns[name]))
    return pa.table(columns, schema=schema)


def _float(number: int | float) -> float:
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


_TYPES = {"value_number": frozenset({int, float}), "value_bool": frozenset({bool}), "value_text": frozenset({str})}


def _reference_typed(batch: Batch) -> Batch:
    """The typed columns a value at a time (export.typed before it mapped a column in C)."""
    if "value_number" in batch.same or "value_number" in batch.lists:
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
        else:
            lists[name] = [v if type(v) in types else None for v in values]
    return Batch(same, lists)


def _reference_cells(column: list[Any]) -> list[str]:
    """A column's CSV cells a value at a time (export._csv_cells before integers were written by
    one orjson call per column)."""
    try:
        text, cells = "".join(column), column
    except TypeError:
        if set(map(type, column)) <= {str, int, float}:
            cells = list(map(str, column))
        else:
            cells = ["" if v is None else v if type(v) is str else export.as_text(v) for v in column]
        text = "".join(cells)
    if any(c in text for c in ',"\n\r'):
        return ['"' + c.replace('"', '""') + '"' if any(x in c for x in ',"\n\r') else c for c in cells]
    return cells


def _csv(batches: list[Batch], formulas: bool = True) -> bytes:
    out = io.StringIO()
    export.write_csv(batches, out, formulas=formulas)
    return out.getvalue().encode()


def _assert_same_text(batches: list[Batch], monkeypatch: pytest.MonkeyPatch) -> None:
    ours = [_csv(batches), _csv(batches, False)]
    jsonl = io.BytesIO()
    export.write_jsonl(batches, jsonl)
    with monkeypatch.context() as earlier:
        earlier.setattr(export, "typed", _reference_typed)
        earlier.setattr(export, "_csv_cells", _reference_cells)
        assert ours == [_csv(batches), _csv(batches, False)]
        reference = io.BytesIO()
        export.write_jsonl(batches, reference)
        assert jsonl.getvalue() == reference.getvalue()


def _reference(batches: Iterable[Batch]) -> Any:
    tables = [_reference_table(b) for b in map(export.typed, batches) if b.size]
    return pa.concat_tables(tables) if tables else None


def _ours(batches: list[Batch]) -> Any:
    out = io.BytesIO()
    n = export.write_parquet(batches, out)
    table = pq.read_table(io.BytesIO(out.getvalue()))
    assert n == len(table)
    return table


def _assert_same(batches: list[Batch]) -> None:
    expected, got = _reference(batches), _ours(batches)
    if expected is None:
        assert len(got) == 0
        return
    assert got.schema == expected.schema
    assert got.to_pylist() == expected.to_pylist()


def _batches(paths: list[Path]) -> list[Batch]:
    return [batch for view in judgments.views(judgments.units(paths)[0]) for batch in view.in_batches()]


def test_equal_on_the_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    batches = _batches([ROOT / "examples"])
    assert sum(b.size for b in batches) > 300
    _assert_same(batches)
    _assert_same_text(batches, monkeypatch)


@pytest.mark.parametrize("family", ["coggym", "textjudge", "halie", "study1"])
def test_equal_on_the_cases(family: str, monkeypatch: pytest.MonkeyPatch) -> None:
    batches = _batches([CASES / family / "valid"])
    _assert_same(batches)
    _assert_same_text(batches, monkeypatch)


# Values of every kind a view gives, and those the fast path must hand to Python: floats, lists,
# booleans beside integers, integers past 64 bits and past the largest double, texts with what
# CSV quotes and JSON escapes.
_VALUES = [
    0,
    -7,
    2**63 - 1,
    2**63,
    2**64 + 1,
    10**400,
    -(10**400),
    1.5,
    -0.0,
    1e16,
    True,
    False,
    None,
    "",
    "Yes",
    'a "b", c',
    "line\nbreak",
    "=1+1",
    "é ✓ 𝛼",
    [0, 1, 1],
    [2, 0, 1],
]


def _random_batch(rng: random.Random, size: int) -> Batch:
    kinds = [
        lambda: rng.choice(_VALUES),
        lambda: rng.choice([1, 2, 3, None]),
        lambda: rng.choice(["a", "b", None]),
        lambda: rng.choice([True, False]),
        lambda: rng.choice([0.5, 2.25]),
        lambda: rng.choice([1, 1e16, 2.5, -1e-7]),  # str() and JSON write 1e16 differently
        lambda: rng.choice([True, None, 3]),
    ]
    values = [kinds[rng.randrange(len(kinds))]() for _ in range(size)]
    if rng.random() < 0.5:  # a batch of one kind of value: the fast path
        make = rng.choice(kinds[1:])
        values = [make() for _ in range(size)]
    raters = [0, 1, 2] if rng.random() < 0.5 else ["", "w1", "w,2"]
    lists: dict[str, list[Any]] = {
        "item": [rng.choice(["s1", 7, "x,y"]) if rng.random() < 0.3 else f"i{i}" for i in range(size)],
        "rater": [rng.choice(raters) for _ in range(size)],
        "value": values,
        "pointer": [f"/x/{i}" for i in range(size)],
    }
    same = {
        "format": "f",
        "dataset": "d",
        "question": rng.choice(["q", 'q "1"']),
        "option": rng.choice(["", 3]),
        "file": "d.json",
        "line": rng.choice([None, 4]),
        "role": rng.choice(["individual", "aggregate"]),
        "rater_kind": "position",
    }
    assert set(same) | set(lists) == set(FIELDS)
    return Batch(same, lists)


def test_equal_on_random_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(26)
    batches = [_random_batch(rng, rng.choice([1, 2, 5, 40])) for _ in range(300)]
    kinds = {type(v) for b in batches for v in b.rows("value")}
    assert {int, float, bool, str, list, type(None)} <= kinds
    _assert_same(batches)
    _assert_same_text(batches, monkeypatch)


def test_row_groups_gather_small_batches() -> None:
    rows = [("f", "d", i, 0, "q", "", i % 5, "d.json", f"/{i}", None) for i in range(300_000)]
    batches = [Batch.of_rows(rows[i : i + 1000]) for i in range(0, len(rows), 1000)]
    out = io.BytesIO()
    assert export.write_parquet(batches, out) == 300_000
    meta = pq.ParquetFile(io.BytesIO(out.getvalue())).metadata
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert sizes == [66_000] * 4 + [36_000]  # batches gathered up to 65,536 rows, never split


def test_csv_in_parts_is_the_whole() -> None:
    rng = random.Random(3)
    batches = [_random_batch(rng, 20) for _ in range(30)]
    whole, parts = io.StringIO(), io.StringIO()
    export.write_csv(batches, whole)
    export.write_csv(batches[:10], parts)
    export.write_csv(batches[10:], parts, header=False)
    assert parts.getvalue() == whole.getvalue()
    assert whole.getvalue().count("\n") > 600


@pytest.mark.parametrize("family", ["coggym", "halie", "judgebench", "study1"])
def test_equal_on_the_corpus(family: str, monkeypatch: pytest.MonkeyPatch) -> None:
    batches = _batches([corpus(family)])
    assert sum(b.size for b in batches) > 1000
    _assert_same(batches)
    _assert_same_text(batches, monkeypatch)


def test_a_column_of_lists_is_written_as_each_list_is() -> None:
    from humanjudge_schema.judgments.export import _csv_cells, as_text

    columns = [
        [[0, 1, 0, 0], [1, 1, 0, 1], [0, 0, 0, 0]],
        [[2, 0, 1]],
        [[], [1], []],
        [[1.5, 2], [float("nan"), 3], [-0.0, 10**17]],
    ]
    for column in columns:
        expected = [f'"{as_text(v)}"' if "," in (as_text(v) or "") else as_text(v) for v in column]
        assert _csv_cells(column) == expected
    # text could hold a bracket; a list in a list; a boolean; an integer past 64 bits
    for column in [[[1, "a"], [2]], [[1, "],["], [None]], [[[1]], [2]], [[True, 1]], [[2**70]]]:
        assert _csv_cells(column) == _reference_cells(column)
