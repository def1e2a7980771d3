"""judgments.dataframe() is the frame pandas reads from the Parquet export of the same paths:
the same columns in the same order, the same dtypes, the same values and nulls."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from humanjudge_schema import judgments
from humanjudge_schema.commands import cli
from humanjudge_schema.judgments.view import COLUMNS

from .conftest import ROOT, corpus

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

EXAMPLES = ROOT / "examples"
VALID = sorted(EXAMPLES.glob("*/valid"))
# in the corpus (HUMANJUDGE_CORPUS)
REAL = ["halie", "coggym/lance-ying__coggym", "judgebench/dmg-illc+JUDGE-BENCH/data/newsroom"]


def _read_export(paths: list[Path], out: Path, **read: Any) -> Any:
    """pandas.read_parquet of `humanjudge export -o out` on the paths."""
    result = CliRunner().invoke(cli, ["export", "-q", "-o", str(out), *map(str, paths)], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output  # 1: findings, what is well formed is written
    return pd.read_parquet(out, **read)


@pytest.mark.parametrize(
    "paths",
    [[p] for p in VALID] + [VALID, sorted(EXAMPLES.glob("*/broken"))],
    ids=[p.parent.name for p in VALID] + ["every-valid-example", "every-broken-example"],
)
def test_the_frame_is_the_parquet_export_read_by_pandas(paths: list[Path], tmp_path: Path) -> None:
    frame = judgments.dataframe(paths)
    pd.testing.assert_frame_equal(frame, _read_export(paths, tmp_path / "x.parquet"))
    assert list(frame.columns) == list(COLUMNS)


@pytest.mark.parametrize("role", ["individual", "aggregate"])
def test_a_role_gives_the_rows_of_that_role_of_the_export(role: str, tmp_path: Path) -> None:
    filters = [("role", "==", role)]
    expected = _read_export(VALID, tmp_path / "x.parquet", filters=filters)
    assert len(expected)
    pd.testing.assert_frame_equal(judgments.dataframe(VALID, role=role), expected)


def test_the_value_columns_are_typed_and_the_ids_are_text() -> None:
    frame = judgments.dataframe([EXAMPLES / "textjudge" / "valid"])
    mine = frame[(frame.role == "individual") & (frame.question == "fluency")]
    assert mine.value_number.mean() == pytest.approx(sum(map(float, mine.value)) / len(mine))
    assert {type(v) for v in frame.item} == {type(v) for v in frame.rater} == {str}
    assert frame.value_number.dtype == "float64" and frame.line.isna().all()


def test_older_pyarrow_is_given_the_string_type_pandas_reads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """pyarrow before 19 does not map text to pandas's `str` where pandas infers strings
    (pandas 3); pandas.read_parquet does, and so does dataframe()."""
    expected = _read_export(VALID, tmp_path / "x.parquet")
    monkeypatch.setattr(pa, "__version__", "18.1.0")
    pd.testing.assert_frame_equal(judgments.dataframe(VALID), expected)


def test_without_pyarrow_it_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a))
    with pytest.raises(ModuleNotFoundError, match=r"needs pyarrow: pip install 'humanjudge-schema\[pandas\]'"):
        judgments.dataframe([EXAMPLES / "textjudge" / "valid"])


@pytest.mark.skipif("HUMANJUDGE_CORPUS" not in os.environ, reason="HUMANJUDGE_CORPUS names the real datasets")
@pytest.mark.parametrize("name", REAL)
def test_the_frame_is_the_export_on_real_data(name: str, tmp_path: Path) -> None:
    """HALIE's booleans and free text, CogGym's lists and integer raters, TextJudge's labels."""
    paths = [corpus(*name.split("/"))]
    pd.testing.assert_frame_equal(judgments.dataframe(paths), _read_export(paths, tmp_path / "x.parquet"))
