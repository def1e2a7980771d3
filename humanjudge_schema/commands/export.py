"""`humanjudge export`: the judgments of datasets as one tidy table."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import FormatName, fail, judged

if TYPE_CHECKING:
    from ..judgments.view import Batch

FORMATS = ("csv", "jsonl", "parquet")  # judgments/export.py writes each


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--to",
    "to",
    type=click.Choice(FORMATS),
    help="Output format. Default: the extension of -o (.csv, .jsonl, .parquet), else csv. Parquet needs "
    "pyarrow: pip install 'humanjudge-schema[parquet]'.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write to this file (default: standard output; parquet needs a file).",
)
@click.option("--kind", type=FormatName(), help="Treat the paths as this format instead of recognising them.")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit code 1).")
def export(paths: tuple[Path, ...], to: str | None, output: Path | None, kind: str | None, strict: bool) -> None:
    """Write every individual judgment of the datasets as rows of one shape.

    Columns: format, dataset, item, rater, question, option, value, file, pointer, line. The
    datasets are validated first: the findings go to standard error, what is well formed is
    exported, and the exit code is validate's (1 when there are errors).
    """
    from ..config import ConfigError
    from ..judgments import views
    from ..kinds import UsageError
    from ..report import render
    from ..validation import validate as run
    from ..writing import WriteError

    if to is None:  # rows.parquet holds Parquet unless said otherwise, never CSV under that name
        suffix = output.suffix.lower().lstrip(".") if output is not None else ""
        to = suffix if suffix in FORMATS else "csv"
    if to == "parquet":
        if output is None:
            fail("--to parquet needs -o FILE")
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            fail("--to parquet needs pyarrow: pip install 'humanjudge-schema[parquet]'")
    try:
        result = run(list(paths), kind=kind)
        found = judged(paths, kind)
    except (UsageError, ConfigError) as exc:
        fail(str(exc))
    if result.findings:
        click.echo(render(result, "text"), nl=False, err=True)
    from ..gcpause import paused

    rows = (batch for view in views(found) for batch in view.in_batches())  # a dataset at a time
    try:
        with paused():  # the batches are millions of containers (gcpause.py)
            _write(rows, to, output, [f for unit in found for f in unit.files])
    except WriteError as exc:
        fail(str(exc))
    sys.exit(1 if result.errors or (strict and result.warnings) else 0)


def _write(rows: Iterator[Batch], to: str, output: Path | None, inputs: list[Path]) -> None:
    from ..judgments.export import write_csv, write_jsonl, write_parquet
    from ..writing import open_atomic

    if output is None:
        if to == "csv":
            write_csv(rows, sys.stdout)
        else:
            write_jsonl(rows, sys.stdout.buffer)
        return
    with open_atomic(output, inputs) as out:  # never over one of the inputs
        if to == "csv":
            text = io.TextIOWrapper(out, encoding="utf-8", newline="")
            write_csv(rows, text)
            text.flush()
            text.detach()  # the file is open_atomic's to close
        elif to == "jsonl":
            write_jsonl(rows, out)
        else:
            write_parquet(rows, out)
