"""`export --jobs`: datasets exported in worker processes into one output, in the order and with
the bytes one process writes.

Each worker reads one dataset's view and writes its rows into a file of its own in a private
temporary folder: CSV rows without the header, JSON Lines, or for Parquet the Arrow tables the
Parquet writer takes (Arrow IPC, so that the writer meets the same tables in the same order and
makes the same row groups). The main process takes the parts in dataset order, says of each
dataset what a serial run says as it reaches it (`Dataset.told`, `noted`), and copies the part
into the output. A part can be as large as the export of its dataset (13 times the dataset), on
disk rather than in memory. Leaving in any way (an error, Ctrl-C) ends every worker and removes
the parts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from ..kinds import Unit
from ..workers import pool as worker_pool
from ..workers import size_of
from . import NO_AGREEMENT, Dataset, views, why_none
from .export import arrow_schema, arrow_table, typed, write_csv, write_jsonl, write_tables
from .view import COLUMNS, Batch, every

# What a worker says of its dataset: its index, rows, stored aggregates, rows of individual
# judgments, why it holds none where the format's reader gives no view of it, and the findings of
# its check (as tuples) where it was checked as it was read.
Told = tuple[int, int, int, int, str | None, list[tuple[Any, ...]]]
# How a worker reads a dataset that is also checked (reading.read_in_worker, handed in by the
# command: this folder imports nothing of validation), and what hears its findings.
Reader = Callable[[Unit, str], tuple[Any, Callable[[], list[tuple[Any, ...]]]]]
Record = Callable[[Unit, list[tuple[Any, ...]]], None]


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
    units = [d.unit for d in found]
    with (
        started(jobs, units, bar) as pool,
        tempfile.TemporaryDirectory(prefix=".humanjudge-export-", dir=folder) as parts,
    ):
        told = _in_order(pool, found, to, formulas, Path(parts), bar, checked)
        if to == "parquet":
            counts = [0, 0, 0]
            write_tables(_tables(told, counts), out)
        else:
            counts = list(_copied(told, to, out))
        return counts[0], counts[1], counts[2]


@contextlib.contextmanager
def started(jobs: int, units: Sequence[Unit], bar: Any) -> Iterator[Any]:
    """A pool of `jobs` worker processes (no more than `units`), and the bar started on the
    units. Leaving the block normally lets the workers end on their own; leaving it in any other
    way (an error, Ctrl-C) ends every worker at once. The bar is closed either way."""
    pool = worker_pool(min(jobs, len(units)))  # before the bar's thread: see validation._check_all
    if bar is not None:
        bar.start(units)
    try:
        with pool:
            yield pool
            pool.close()  # every result is in: the workers end on their own
            pool.join()
    finally:
        if bar is not None:
            bar.close()


def in_order(pool: Any, work: Any, tasks: Sequence[tuple[Any, ...]], units: Sequence[Unit], bar: Any) -> Iterator[Any]:
    """What `work` returns for each task, run by the pool's workers the largest dataset first,
    handed on in task order: task k is about units[k] and starts with k, and `work` returns a
    tuple that starts with it too. Each unit is done on the bar as its result comes in."""
    order = sorted(range(len(tasks)), key=lambda i: -size_of(units[i]))
    results = pool.imap_unordered(work, [tasks[i] for i in order])
    done: dict[int, Any] = {}
    for index in range(len(tasks)):
        while index not in done:
            result = next(results)
            done[result[0]] = result
            if bar is not None:
                bar.done(units[result[0]])
        yield done.pop(index)


def _copied(told: Iterator[tuple[Path, Told]], to: str, out: IO[bytes]) -> tuple[int, int, int]:
    rows = stored = datasets = 0
    for path, (_, n, aggregates, _, _, _) in told:
        if to == "csv" and not datasets:  # after the first dataset with rows, as a serial run
            out.write((",".join(COLUMNS) + "\n").encode())
        with path.open("rb") as part:
            shutil.copyfileobj(part, out, 1 << 20)
        path.unlink()
        rows, stored, datasets = rows + n, stored + aggregates, datasets + 1
    return rows, stored, datasets


def _tables(told: Iterator[tuple[Path, Told]], counts: list[int]) -> Iterator[Any]:
    import pyarrow as pa

    for path, (_, n, aggregates, _, _, _) in told:
        with pa.memory_map(str(path)) as source, pa.ipc.open_stream(source) as reader:
            for batch in reader:
                yield pa.Table.from_batches([batch])
        path.unlink()
        counts[0] += n
        counts[1] += aggregates
        counts[2] += 1


def _in_order(
    pool: Any,
    found: Sequence[Dataset],
    to: str,
    formulas: bool,
    parts: Path,
    bar: Any,
    checked: tuple[Reader, Record] | None,
) -> Iterator[tuple[Path, Told]]:
    """The parts of the datasets with rows, in dataset order, each dataset told of first."""
    reader = checked[0] if checked is not None else None
    cwd = os.getcwd()
    tasks = [(i, d.unit, to, formulas, str(parts / str(i)), reader, cwd) for i, d in enumerate(found)]
    for dataset, told in zip(found, in_order(pool, _part, tasks, [d.unit for d in found], bar), strict=True):
        index, rows, _, individual, unviewed, findings = told
        unit = dataset.unit
        if checked is not None:
            checked[1](unit, findings)
        if unviewed is not None:
            dataset.told(unit, unviewed)
        elif not rows:
            dataset.told(unit, _why(parts / f"{index}.why"))
        else:
            dataset.told(unit, None)
            if not individual and dataset.noted is not None:
                dataset.noted(unit, f"{_why(parts / f'{index}.why')}: {NO_AGREEMENT}")
            yield parts / str(index), told


def _why(path: Path) -> str:
    """Why a dataset holds no (individual) judgment, as its worker wrote it after reading it."""
    return path.read_text(encoding="utf-8")


def _part(task: tuple[int, Unit, str, bool, str, Reader | None, str]) -> Told:
    """In a worker: one dataset's rows into the file `path` (and, where it holds no individual
    judgment, why into `path`.why), and with a reader, the findings of its check."""
    index, unit, to, formulas, path, reader, cwd = task
    view_of, findings = worker_view(unit, reader, cwd)
    view = next(views([unit], view_of, every), None)
    if view is None:
        return index, 0, 0, 0, f"the {unit.family} format's reader gives no view of it", findings()
    counts = [0, 0]
    batches = _counted(view.in_batches(), counts)
    with open(path, "wb") as out:
        if to == "csv":
            import io

            text = io.TextIOWrapper(out, encoding="utf-8", newline="")
            write_csv(batches, text, formulas=formulas, header=False)
            text.flush()
            text.detach()
        elif to == "jsonl":
            write_jsonl(batches, out)
        else:
            _ipc(batches, out)
    rows, aggregates = counts
    if rows == aggregates:  # no individual judgment: why, in the format's words, read after the pass
        Path(path + ".why").write_text(why_none(unit, view), encoding="utf-8")
    return index, rows, aggregates, rows - aggregates, None, findings()


def worker_view(
    unit: Unit, reader: Reader | None, cwd: str
) -> tuple[Callable[[Unit], Any] | None, Callable[[], list[tuple[Any, ...]]]]:
    """In a worker: how its dataset's view is read (`judgments.views`' view_of; None: its
    format's view, with no check) and the call that gives the findings of its check once the
    view has been read (none without a reader)."""
    if reader is None:
        return None, list
    view, findings = reader(unit, cwd)
    return (lambda _: view), findings


def _counted(batches: Iterator[Batch], counts: list[int]) -> Iterator[Batch]:
    for batch in batches:
        counts[0] += batch.size
        counts[1] += batch.of_role("aggregate")
        yield batch


def _ipc(batches: Iterator[Batch], out: IO[bytes]) -> None:
    import pyarrow as pa

    schema = arrow_schema()
    with pa.ipc.new_stream(out, schema) as writer:
        for batch in map(typed, batches):
            if batch.size:
                writer.write_table(arrow_table(pa, schema, batch))
