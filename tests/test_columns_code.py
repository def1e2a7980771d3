"""columns.code: a column's values as integer codes numbered in the order they first come, the
values each the first of its equals; numbers and rows of integers read through numpy, every other
column through a dict. Checked against that definition on columns of every mix of kinds, and the
array module's reading (columns._read) against numpy.asarray, which it stands in for."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

from humanjudge_schema.judgments import columns
from humanjudge_schema.judgments.view import NO_ANSWER

_KINDS: list[list[Any]] = [
    [0, 1, 2, 7, -3, 100],
    [0.5, 1.0, 2.25, -0.0, 0.0, 3.0],
    [True, False],
    [None],
    ["a", "b", ""],
    [2**62, -(2**62), 2**70],
    [[0, 1], [1, 1], [1, 0, 1], [], [True, 0], [1.5, 2]],
]


def _column(rng: random.Random) -> list[Any]:
    kinds = rng.sample(_KINDS, rng.choice([1, 1, 1, 2, 3]))
    pool = [v for kind in kinds for v in kind]
    first = rng.choice(pool)
    return [first] + [rng.choice(pool) for _ in range(rng.randint(0, 40))]


def _key(value: Any) -> Any:
    return tuple(map(_key, value)) if isinstance(value, list) else value


def _by_definition(column: list[Any], missing: frozenset[Any]) -> tuple[list[int], list[Any]]:
    index: dict[Any, int] = {}
    values: list[Any] = []
    codes = []
    for v in column:
        if not isinstance(v, list) and v in missing:
            codes.append(-1)
            continue
        k = _key(v)
        if k not in index:
            index[k] = len(values)
            values.append(v)
        codes.append(index[k])
    return codes, values


# no value missing; view.NO_ANSWER; and a wider definition of no answer (an empty text too)
@pytest.mark.parametrize("missing", [frozenset(), NO_ANSWER, frozenset({None, ""})], ids=["none", "null", "empty"])
def test_codes_are_the_definitions(missing: frozenset[Any]) -> None:
    rng = random.Random(3)
    for _ in range(3000):
        column = _column(rng)
        codes, values = columns.code(column, missing) if not any(isinstance(v, list) for v in column) else (None, None)
        if codes is None:
            continue
        want_codes, want_values = _by_definition(column, missing)
        assert codes.tolist() == want_codes, column
        assert [_key(v) for v in values] == [_key(v) for v in want_values], column
        assert all(type(a) is type(b) for a, b in zip(values, want_values, strict=True)), column


def test_rows_of_integers_are_coded_whole() -> None:
    rng = random.Random(4)
    for _ in range(2000):
        width = rng.randint(1, 4)
        column = [[rng.randint(0, 2) for _ in range(width)] for _ in range(rng.randint(1, 30))]
        found = columns.array(column)
        assert found is not None
        codes, values = found
        want_codes, want_values = _by_definition(column, False)
        assert codes.tolist() == want_codes
        assert values == [tuple(v) for v in want_values]


def test_the_array_module_reads_what_numpy_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    columns_seen = [_column(rng) for _ in range(3000)]
    mine = [columns.array(c) for c in columns_seen]
    monkeypatch.setattr(columns, "_read", np.asarray)
    for column, got in zip(columns_seen, mine, strict=True):
        try:
            want = columns.array(column)
        except Exception as exc:  # what numpy refuses, the reading must refuse too
            pytest.fail(f"numpy raised {exc!r} on {column!r}, the reading gave {got!r}")
        if want is None:
            assert got is None, column
            continue
        assert got is not None, column
        assert got[0].tolist() == want[0].tolist(), column
        assert [repr(v) for v in got[1]] == [repr(v) for v in want[1]], column
        assert not any(isinstance(v, float) and math.isnan(v) for v in got[1])


def test_renumber_numbers_codes_by_their_first_row() -> None:
    """columns.renumber: each code renumbered by the order its value first comes, and the old
    code of each new one; codes that already first come in rising order (a coded column, or
    some of its rows) take a way without a sort, which must give the same."""
    rng = np.random.default_rng(7)
    taken = {"rising": 0, "other": 0}
    for trial in range(2000):
        codes = rng.integers(0, rng.integers(1, 12), rng.integers(1, 40))
        if trial % 2:  # each new code above every one before (with gaps: rows left out)
            seen = [int(rng.integers(0, 3))]
            for _ in range(int(rng.integers(0, 40))):
                new = rng.random() < 0.3
                seen.append(max(seen) + int(rng.integers(1, 3)) if new else int(rng.choice(seen)))
            codes = np.asarray(seen, dtype=np.int64)
        order: dict[int, int] = {}
        for c in codes.tolist():
            order.setdefault(c, len(order))
        new, old = columns.renumber(codes)
        assert new.tolist() == [order[c] for c in codes.tolist()], codes
        assert old.tolist() == list(order), codes
        taken["rising" if list(order) == sorted(order) else "other"] += 1
    assert min(taken.values()) > 500, taken
