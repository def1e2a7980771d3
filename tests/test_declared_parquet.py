"""Parquet as a declared file type: each row a record of its columns, typed as Arrow has them,
checked against the record schema as a JSON Lines record is, its findings at `/ROW/column` with
no line. The files are written here with pyarrow; a file that is not Parquet, or is cut short, is
a `parse/` finding, a named pipe is refused unread, and without pyarrow a declaration that reads
Parquet gets one finding saying what to install."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import validate
from humanjudge_schema.judgments import rows

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

DECLARATION = """declaration = 1
name = "{name}"

[files.ratings]
{key} = "{file}"
type = "parquet"

[files.ratings.record]
type = "object"
required = ["item", "rater", "label"]
additionalProperties = false
properties.item = {{ type = "string" }}
properties.rater = {{ type = "string" }}
properties.label = {{ type = "integer", minimum = 1, maximum = 5 }}

[questions.quality]
level = "ordinal"
values = [1, 2, 3, 4, 5]

[[judgments]]
file = "ratings"
item = "item"
rater = "rater"
question = "quality"
value = "label"
"""


def _table(items: int = 20, raters: int = 3) -> Any:
    """A long table: one row per (item, rater), labels 1 to 5, raters agreeing more often than not."""
    item, rater, label = [], [], []
    for i in range(items):
        for r in range(raters):
            item.append(f"t{i}")
            rater.append(f"w{r}")
            label.append(1 + (i + (r == 2 and i % 3 == 0)) % 5)
    return pa.table({"item": item, "rater": rater, "label": pa.array(label, pa.int64())})


def _dataset(folder: Path, name: str, table: Any, file: str = "ratings.parquet", glob: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    key = "glob" if glob else "name"
    (folder / "humanjudge-format.toml").write_text(DECLARATION.format(name=name, key=key, file=file))
    if table is not None:
        pq.write_table(table, folder / file.replace("*", "a"))
    return folder


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


def _found(folder: Path) -> list[tuple[str, str, str, int | None]]:
    return [(f.code, f.file, f.pointer, f.line) for f in validate([folder], cwd=str(folder.parent)).findings]


def test_a_long_table_validates_clean_and_exports_exactly_the_rows_written(tmp_path: Path) -> None:
    table = _table()
    data = _dataset(tmp_path / "data", "pq-long", table)
    assert _found(data) == []
    got = list(rows([data]))
    assert [(j.item, j.rater, j.question, j.value, j.pointer, j.line, j.role) for j in got] == [
        (r["item"], r["rater"], "quality", r["label"], f"/{i}/label", None, "individual")
        for i, r in enumerate(table.to_pylist())
    ]
    assert {Path(j.file).name for j in got} == {"ratings.parquet"}
    assert all(type(j.value) is int for j in got)

    proc = _cli("export", "data", "-o", "out.parquet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert [(r["item"], r["rater"], r["value_number"], r["pointer"], r["line"]) for r in out] == [
        (r["item"], r["rater"], float(r["label"]), f"/{i}/label", None) for i, r in enumerate(table.to_pylist())
    ]


def test_a_bad_value_is_found_at_its_row_and_column_with_no_line(tmp_path: Path) -> None:
    table = _table(items=4)
    labels = table.column("label").to_pylist()
    labels[3] = 9
    data = _dataset(tmp_path / "data", "pq-bad", table.set_column(2, "label", pa.array(labels, pa.int64())))
    found = _found(data)
    assert ("schema/maximum", "data/ratings.parquet", "/3/label", None) in found
    assert ("declared/allowed-value", "data/ratings.parquet", "/3/label", None) in found
    assert {f[2] for f in found} == {"/3/label"}

    proc = _cli("validate", "data", cwd=tmp_path)
    assert proc.returncode == 1
    assert "data/ratings.parquet: error schema/maximum 9 is greater than the maximum of 5 (at /3/label)" in proc.stdout


def test_values_are_typed_as_arrow_has_them(tmp_path: Path) -> None:
    """Structs are objects (a field below one is a path), lists are arrays, a timestamp and a
    date are ISO 8601 text, null is null, and each is checked by the record schema."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "humanjudge-format.toml").write_text(
        """declaration = 1
name = "pq-typed"

[files.answers]
name = "answers.parquet"
type = "parquet"

[files.answers.record]
type = "object"
required = ["id", "answer", "tags", "at", "day", "note"]
properties.id = { type = "integer" }
properties.tags = { type = "array", items = { type = "string" } }
properties.at = { type = "string", pattern = "^2024-05-0[0-9]T12:30:00\\\\+00:00$" }
properties.day = { type = "string", format = "date", pattern = "^2024-05-0[0-9]$" }
properties.note = { type = ["string", "null"] }

[files.answers.record.properties.answer]
type = "object"
required = ["rater", "score"]
properties = { rater = { type = "string" }, score = { type = "number" } }

[[judgments]]
file = "answers"
item = "id"
rater = "answer/rater"
question = "score"
value = "answer/score"
"""
    )
    when = [datetime.datetime(2024, 5, d, 12, 30, tzinfo=datetime.timezone.utc) for d in (1, 1, 2, 2)]
    table = pa.table(
        {
            "id": [1, 1, 2, 2],
            "answer": [{"rater": f"w{k % 2}", "score": 0.5 * k} for k in range(4)],
            "tags": [["a"], [], ["a", "b"], ["c"]],
            "at": pa.array(when, pa.timestamp("ms", tz="UTC")),
            "day": pa.array([w.date() for w in when], pa.date32()),
            "note": ["x", None, None, "y"],
        }
    )
    pq.write_table(table, data / "answers.parquet")
    assert _found(data) == []
    got = [(j.item, j.rater, j.value, j.pointer) for j in rows([data])]
    assert got == [
        (1, "w0", 0.0, "/0/answer/score"),
        (1, "w1", 0.5, "/1/answer/score"),
        (2, "w0", 1.0, "/2/answer/score"),
        (2, "w1", 1.5, "/3/answer/score"),
    ]


def test_nan_is_reported_as_json_readers_report_it_and_its_row_is_not_read(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "humanjudge-format.toml").write_text(
        DECLARATION.format(name="pq-nan", key="name", file="ratings.parquet")
        .replace('{ type = "integer", minimum = 1, maximum = 5 }', '{ type = "number" }')
        .replace('level = "ordinal"\nvalues = [1, 2, 3, 4, 5]', 'level = "interval"')
    )
    table = pa.table({"item": ["a", "a", "b", "b"], "rater": ["w1", "w2"] * 2, "label": [1.0, 2.0, float("nan"), 4.0]})
    pq.write_table(table, data / "ratings.parquet")
    assert _found(data) == [("parse/non-finite-number", "data/ratings.parquet", "/2/label", None)]
    assert [j.pointer for j in rows([data])] == ["/0/label", "/1/label", "/3/label"]


def test_a_stored_mean_in_parquet_recomputes(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "data", "pq-means", _table(items=5))
    declaration = data / "humanjudge-format.toml"
    declaration.write_text(
        declaration.read_text()
        + """
[files.means]
name = "means.parquet"
type = "parquet"

[files.means.record]
type = "object"
required = ["item", "mean"]
properties = { item = { type = "string" }, mean = { type = "number" } }

[[aggregates]]
file = "means"
item = "item"
question = "quality"
value = "mean"
recompute = "mean"
"""
    )
    labels: dict[str, list[int]] = {}
    for r in _table(items=5).to_pylist():
        labels.setdefault(r["item"], []).append(r["label"])
    means = [round(sum(v) / len(v), 4) for v in labels.values()]
    pq.write_table(pa.table({"item": list(labels), "mean": means}), data / "means.parquet")
    assert _found(data) == []
    means[2] += 1  # a stale mean
    pq.write_table(pa.table({"item": list(labels), "mean": means}), data / "means.parquet")
    assert _found(data) == [("declared/mean", "data/means.parquet", "/2/mean", None)]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (lambda whole: b"item,rater,label\nt0,w0,1\n", "does not start with PAR1"),
        (lambda whole: whole[: len(whole) // 2], "does not end with PAR1"),
        (lambda whole: whole[:-12] + bytes(8) + whole[-4:], "footer cannot be read"),
        (lambda whole: b"", "empty"),
    ],
    ids=["csv-renamed", "truncated", "footer-zeroed", "empty"],
)
def test_a_file_that_is_not_parquet_or_is_damaged_is_a_parse_finding(tmp_path: Path, content: Any, said: str) -> None:
    data = _dataset(tmp_path / "data", "pq-damaged", _table())
    whole = (data / "ratings.parquet").read_bytes()
    (data / "ratings.parquet").write_bytes(content(whole))
    proc = _cli("validate", "--format", "json", "data", cwd=tmp_path)
    assert proc.returncode == 1
    findings = json.loads(proc.stdout)["findings"]
    assert len(findings) == 1 and findings[0]["code"].startswith("parse/") and said in findings[0]["message"]
    assert (findings[0]["file"], findings[0]["line"]) == ("data/ratings.parquet", None)


def test_a_truncated_parquet_file_named_alone_is_checked_as_its_format(tmp_path: Path) -> None:
    """The magic bytes at its start say what it was meant to be; its check says it is damaged."""
    data = _dataset(tmp_path / "data", "pq-alone", _table())
    whole = (data / "ratings.parquet").read_bytes()
    (data / "ratings.parquet").write_bytes(whole[: len(whole) - 40])
    proc = _cli("validate", "data/ratings.parquet", cwd=tmp_path)
    assert proc.returncode == 1
    assert "data/ratings.parquet: error parse/invalid-parquet truncated or damaged" in proc.stdout


def test_a_parquet_file_is_recognised_by_its_magic_bytes_and_its_columns(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "data", "pq-known", _table())
    assert _cli("validate", "data/ratings.parquet", cwd=tmp_path).returncode == 0
    pq.write_table(pa.table({"other": [1], "columns": [2]}), data / "ratings.parquet")
    proc = _cli("validate", "data/ratings.parquet", cwd=tmp_path)
    assert proc.returncode == 2 and "not a file of a known format" in proc.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_named_like_parquet_is_refused_unread(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "data", "pq-fifo", None)
    os.mkfifo(data / "ratings.parquet")
    proc = _cli("validate", "--kind", "pq-fifo", "ratings.parquet", cwd=data)  # would block if read
    assert proc.returncode == 1
    assert "ratings.parquet: error parse/unreadable is a named pipe (FIFO), not a regular file" in proc.stdout


def test_stats_give_the_same_alpha_as_the_same_data_in_csv(tmp_path: Path) -> None:
    table = _table(items=30, raters=4)
    _dataset(tmp_path / "parquet", "pq-stats", table)
    csv = tmp_path / "csv"
    csv.mkdir()
    declared = DECLARATION.format(name="pq-stats-csv", key="name", file="ratings.csv")
    (csv / "humanjudge-format.toml").write_text(declared.replace('type = "parquet"', 'type = "csv"'))
    lines = ["item,rater,label", *(f"{r['item']},{r['rater']},{r['label']}" for r in table.to_pylist())]
    (csv / "ratings.csv").write_text("\n".join(lines) + "\n")
    said = {}
    for folder in ("parquet", "csv"):
        proc = _cli("stats", "--format", "json", folder, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        (dataset,) = json.loads(proc.stdout)["datasets"]
        (q,) = dataset["questions"]
        said[folder] = (q["items"], q["judgments"], q["alpha"], q["agreement"]["observed"])
    assert said["parquet"] == said["csv"]
    assert said["parquet"][:2] == (30, 120) and 0 < said["parquet"][2] < 1


def test_declare_drafts_a_declaration_of_a_parquet_file(tmp_path: Path) -> None:
    table = _table(items=30, raters=4)
    extra = pa.array([None if k % 7 == 0 else k * 0.5 for k in range(table.num_rows)], pa.float64())
    pq.write_table(table.append_column("seconds", extra), tmp_path / "pq-drafted.parquet")
    proc = _cli("declare", "pq-drafted.parquet", "-o", "humanjudge-format.toml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "humanjudge-format.toml").read_text()
    assert 'type = "parquet"' in text and 'item = "item"' in text and 'rater = "rater"' in text
    assert 'properties.seconds = { type = ["number", "null"] }' in text  # it holds nulls
    assert _found(tmp_path) == []
    assert len([j for j in rows([tmp_path]) if j.question == "label"]) == table.num_rows


def test_without_pyarrow_a_declaration_of_parquet_gets_one_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _dataset(tmp_path / "data", "pq-none", _table(), file="part-*.parquet", glob=True)
    pq.write_table(_table(), data / "part-b.parquet")
    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.setitem(sys.modules, name, None)
    found = validate([data], cwd=str(tmp_path)).findings
    assert [(f.code, f.file) for f in found] == [("parse/unreadable", "data/part-a.parquet")]
    assert "pip install 'humanjudge-schema[parquet]'" in found[0].message
    assert "1 more Parquet files" in found[0].message


def test_a_row_group_that_decompresses_past_the_limit_is_refused_unread(tmp_path: Path) -> None:
    """A few kilobytes of pages can claim gigabytes: the footer's size of each row group is held
    to max-document-bytes before a page is read (here a limit of 4 KiB, and 60 KB of a value
    repeated, which compresses to almost nothing)."""
    table = pa.table({"item": ["t0"] * 3, "rater": ["w0", "w1", "w2"], "label": pa.array([1, 2, 3], pa.int64())})
    table = table.append_column("note", pa.array(["x" * 20_000] * 3))
    data = _dataset(tmp_path / "data", "parquet-bomb", table)
    assert (data / "ratings.parquet").stat().st_size < 4096
    (tmp_path / "humanjudge.toml").write_text("max-document-bytes = 4096\n")
    found = [(f.code, f.file, f.pointer) for f in validate([data]).findings]
    assert found == [("parse/decompressed-too-large", str(data / "ratings.parquet"), "")]
