"""`export --jobs`: datasets exported in worker processes into one output, in the order and with
the bytes one process writes.

Each worker reads one dataset's view (`describe_jobs.described`) and writes its rows into a file
of its own in a private temporary folder: CSV rows without the header, JSON Lines, or for Parquet
the Arrow tables the Parquet writer takes (Arrow IPC, so that the writer meets the same tables in
the same order and makes the same row groups). The main process takes the parts in dataset order,
having said of each dataset what a serial run says as it reaches it, and copies the part into the
output. A part can be as large as the export of its dataset (13 times the dataset), on disk rather
than in memory. Leaving in any way (an error, Ctrl-C) ends every worker and removes the parts.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import closing
from functools import partial
from pathlib import Path
from typing import IO, Any

from . import Dataset
from .describe_jobs import Reader, Record, described
from .export import arrow_schema, arrow_table, typed, write_csv, write_jsonl, write_tables
from .view import COLUMNS, Batch, Judgments, every

Part = tuple[str, int, int]  # a dataset's part: its file, its rows, the stored aggregates among them


def export_parallel(
    found: Sequence[Dataset],
    to: str,
    out: IO[bytes],
    *,
    formulas: bool,
    jobs: int,
    folder: Path | None,
    bar: Any,
    checked: tuple[Reader, Record] | None = None,
) -> tuple[int, int, int]:
    """Export `found` with `jobs` worker processes into `out` (binary); the parts go into a
    temporary folder in `folder` (default: the system's). Returns the rows written, the stored
    aggregates among them, and the datasets that had any, as a serial run counts them. With
    `checked` (a reader and a record), each worker checks its dataset as it reads it, and the
    findings are recorded in dataset order."""
    counts = [0, 0, 0]
    with tempfile.TemporaryDirectory(prefix=".humanjudge-export-", dir=folder) as parts:
        job = partial(_part, folder=parts, to=to, formulas=formulas)
        with closing(described(found, jobs=jobs, bar=bar, job=job, needs=every, checked=checked)) as written:
            paths = _counted_parts(written, counts)
            if to == "parquet":
                write_tables(_tables(paths), out)
            else:
                for path in paths:
                    if to == "csv" and counts[2] == 1:  # after the first dataset with rows, as a serial run
                        out.write((",".join(COLUMNS) + "\n").encode())
                    with open(path, "rb") as part:
                        shutil.copyfileobj(part, out, 1 << 20)
                    Path(path).unlink()
    return counts[0], counts[1], counts[2]


def _counted_parts(written: Iterator[Part], counts: list[int]) -> Iterator[str]:
    for path, rows, aggregates in written:
        counts[0] += rows
        counts[1] += aggregates
        counts[2] += 1
        yield path


def _tables(paths: Iterator[str]) -> Iterator[Any]:
    import pyarrow as pa

    for path in paths:
        with pa.memory_map(path) as source, pa.ipc.open_stream(source) as reader:
            for batch in reader:
                yield pa.Table.from_batches([batch])
        Path(path).unlink()


def _part(view: Judgments, *, folder: str, to: str, formulas: bool) -> Part:
    """In a worker: one dataset's rows into a new file in `folder`."""
    aggregates = [0]
    batches = _counted(view.in_batches(), aggregates)
    handle, path = tempfile.mkstemp(dir=folder)
    if to == "csv":
        with open(handle, "w", encoding="utf-8", newline="") as text:
            rows = write_csv(batches, text, formulas=formulas, header=False)
    else:
        with open(handle, "wb") as out:
            rows = write_jsonl(batches, out) if to == "jsonl" else _ipc(batches, out)
    return path, rows, aggregates[0]


def _counted(batches: Iterator[Batch], aggregates: list[int]) -> Iterator[Batch]:
    for batch in batches:
        aggregates[0] += batch.of_role("aggregate")
        yield batch


def _ipc(batches: Iterator[Batch], out: IO[bytes]) -> int:
    import pyarrow as pa

    schema = arrow_schema()
    n = 0
    with pa.ipc.new_stream(out, schema) as writer:
        for batch in map(typed, batches):
            if batch.size:
                writer.write_table(arrow_table(pa, schema, batch))
                n += batch.size
    return n
