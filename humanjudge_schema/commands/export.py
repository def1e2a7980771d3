"""`humanjudge export`: the judgments of datasets as one tidy table."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .common import CONSOLE, PARSED, FormatName, check_output, fail, force_option, jobs_option, judged, progress_option

if TYPE_CHECKING:
    from ..judgments.view import Batch
    from ..progress import Bar
    from ..validation import Result

FORMATS = ("csv", "jsonl", "parquet")  # judgments/export.py writes each


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--to",
    "to",
    type=click.Choice(FORMATS),
    help="Output format. Default: the extension of -o (.csv, .jsonl, .parquet; any other is refused), csv "
    "without one. Parquet needs pyarrow: pip install 'humanjudge-schema[parquet]'.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write to this file (default: standard output; parquet needs a file).",
)
@force_option
@click.option(
    "--no-formulas",
    is_flag=True,
    help="CSV for spreadsheets: a text cell that starts with = + - @, a tab or a carriage return gets a ' "
    "before it, so that it is not run as a formula (numbers stay numbers). Off by default: it alters values.",
)
@click.option(
    "--estimates",
    is_flag=True,
    help="Also write, after each dataset's rows, one row per item of each nominal question whose raters are "
    "persons: role estimate, the item's Dawid-Skene label as its value. The judgments are read once more for it, "
    "in one process (--jobs does not apply).",
)
@click.option("--kind", type=FormatName(), help="Treat the paths as this format instead of recognising them.")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit code 1).")
@click.option("-q", "--quiet", is_flag=True, help="Print no findings and no summary on stderr; the exit code stays.")
@jobs_option(
    "Check and export this many datasets at a time, in separate processes (0: one per CPU core); the "
    "output is the same, in the same order, as with one. The parts wait in a temporary folder beside -o."
)
@progress_option
def export(
    paths: tuple[Path, ...],
    to: str | None,
    output: Path | None,
    force: bool,
    no_formulas: bool,
    estimates: bool,
    kind: str | None,
    strict: bool,
    quiet: bool,
    jobs: int,
    progress: bool | None,
) -> None:
    """Write the judgments of the datasets (each rater's and the stored aggregates) as rows of one shape.

    Columns: format, dataset, item, rater, question, option, value, file, pointer, line, role
    (individual or aggregate), rater_kind, and the value typed: value_number, value_bool,
    value_text. The datasets are validated as they are read: the findings go to standard error after the rows,
    what is well formed is exported, a line on standard error says how much was written, and the
    exit code is validate's (1 when there are errors).
    """
    from ..config import ConfigError
    from ..judgments.export import missing
    from ..kinds import UsageError
    from ..progress import on_stderr
    from ..writing import WriteError

    named = to or _format_of(output)
    to = named or "csv"
    if to == "parquet":
        if output is None:
            fail("--to parquet needs -o FILE")
        if why := missing("pyarrow", "parquet", "--to parquet"):
            fail(why)
    if no_formulas and to != "csv":
        fail(f"--no-formulas is for CSV, not {to}")
    if progress is None and output is None and sys.stdout.isatty():
        progress = False  # the rows go to the terminal: no bar across them
    from ..gcpause import paused
    from ..reading import Reading, read_in_worker
    from ..workers import jobs_of

    try:
        reading = Reading(list(paths), kind=kind)
        said = None if quiet else lambda: _findings(reading.result())
        found = judged(paths, kind, before_failing=said, found=reading.units)
        if output is not None:
            check_output(output, [f for unit in found for f in unit.files], force, None if named else _unknown(output))
        parallel = jobs_of(jobs) > 1 and len(found) > 1 and not estimates
    except (UsageError, ConfigError) as exc:
        fail(str(exc))
    inputs = [f for unit in found for f in unit.files]
    bar = on_stderr(progress, "exporting ")
    datasets: list[int] = []
    stored: list[int] = []  # the stored aggregate rows among them (means, majorities)
    estimated: list[int] = []  # the estimates' rows among them (--estimates)
    try:
        if parallel:  # each dataset checked and exported in a worker, read once there
            checked = (read_in_worker, reading.record)
            n, aggregates, read = _in_parallel(found, to, output, inputs, not no_formulas, jobs_of(jobs), bar, checked)
            datasets, stored = [1] * read, [aggregates]
        else:
            # each dataset checked as its judgments are read: its files are read once
            rows = _batches(found, bar, datasets, stored, reading.view, estimated if estimates else None)
            # read up to the first judgment: a run with none stops (exit 2) before a header is written
            first = next(rows, None)
            rows = chain([] if first is None else [first], rows)
            with paused():  # the batches are millions of containers (gcpause.py)
                n = _write(rows, to, output, inputs, formulas=not no_formulas)
    except WriteError as exc:
        fail(str(exc))
    result = reading.result()
    PARSED[:] = [reading]  # its last dataset left to the exit (common.PARSED)
    if not quiet:  # after what was said of each dataset as it was read, as one job says them
        _findings(result)
    if output is None:
        sys.stdout.flush()  # what could not be written fails here, before "wrote" is said
    if not quiet:
        where = "standard output" if output is None else str(output)
        what = _count(n - sum(stored) - sum(estimated), "judgment")
        more = [_count(sum(stored), "stored aggregate")] if sum(stored) else []
        if estimates:
            more.append(_count(sum(estimated), "estimate"))
        if more:
            what = f"{', '.join([what, *more[:-1]])} and {more[-1]}"
        click.echo(f"wrote {what} from {_count(len(datasets), 'dataset')} to {where}", err=True)
    sys.exit(1 if result.errors or (strict and result.warnings) else 0)


def _format_of(output: Path | None) -> str | None:
    """The format -o names by its extension (rows.parquet holds Parquet unless --to says
    otherwise, never CSV under that name), CSV without one, None for an extension no writer has."""
    suffix = output.suffix.lower().lstrip(".") if output is not None else ""
    return suffix if suffix in FORMATS else None if suffix else "csv"


def _unknown(output: Path) -> str:
    known = ", ".join(f".{name}" for name in FORMATS)
    return f"-o {output}: no writer makes {output.suffix} files ({known}); choose one with --to"


def _findings(result: Result) -> None:
    """The findings on stderr; the files left out are counted, and `validate --format json`
    lists them (export has no --format)."""
    from dataclasses import replace

    from ..kinds import tally
    from ..report import render

    if result.findings:
        click.echo(render(replace(result, skipped=()), "text"), nl=False, err=True)
    if result.skipped:
        click.echo(f"{tally(list(result.skipped))} (humanjudge validate --format json lists them).", err=True)


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _batches(
    found: list[Any],
    bar: Bar | None,
    datasets: list[int],
    stored: list[int],
    view_of: Callable[[Any], Any],
    estimated: list[int] | None = None,
) -> Iterator[Batch]:
    """The batches of every dataset, a dataset at a time; `datasets` counts those read, `stored`
    their rows of stored aggregates; with `estimated`, each dataset's estimates follow its rows
    (`estimate_batches`), and `estimated` counts them."""
    from ..judgments.export import estimate_batches
    from ..judgments.view import every
    from ..progress import views

    for view in views(found, bar, view_of, every):
        datasets.append(1)
        for batch in view.in_batches():
            stored.append(batch.of_role("aggregate"))
            yield batch
        if estimated is not None:
            for batch in estimate_batches(view):
                estimated.append(batch.size)
                yield batch


def _write(rows: Iterator[Batch], to: str, output: Path | None, inputs: list[Path], *, formulas: bool) -> int:
    from ..judgments.export import write_csv, write_jsonl, write_parquet
    from ..writing import open_atomic

    if CONSOLE[0]:
        from ..heap import keep_freed

        keep_freed()  # each slice of rows is joined and freed (heap.py)
    if output is None:
        if to == "csv":
            return write_csv(rows, sys.stdout, formulas=formulas)
        return write_jsonl(rows, sys.stdout.buffer)
    with open_atomic(output, inputs) as out:  # never over one of the inputs
        if to == "csv":
            text = io.TextIOWrapper(out, encoding="utf-8", newline="")
            n = write_csv(rows, text, formulas=formulas)
            text.flush()
            text.detach()  # the file is open_atomic's to close
            return n
        if to == "jsonl":
            return write_jsonl(rows, out)
        return write_parquet(rows, out)


def _in_parallel(
    found: list[Any],
    to: str,
    output: Path | None,
    inputs: list[Path],
    formulas: bool,
    jobs: int,
    bar: Bar | None,
    checked: Any,
) -> tuple[int, int, int]:
    """export --jobs: the datasets checked and exported in worker processes (judgments/export_jobs.py)."""
    from ..judgments.export_jobs import export_parallel
    from ..writing import open_atomic

    def run(out: Any) -> tuple[int, int, int]:
        return export_parallel(found, to, out, formulas=formulas, jobs=jobs, folder=folder, bar=bar, checked=checked)

    folder = None if output is None else output.resolve().parent
    if output is None:
        sys.stdout.flush()
        return run(sys.stdout.buffer)
    with open_atomic(output, inputs) as out:
        return run(out)
