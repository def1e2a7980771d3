"""`humanjudge declare`, a command of the declared format: a declaration drafted from data files
(draft.py), printed or written for the user to read and edit. The catalog declaration names it,
and the command line offers it."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ...commands.common import check_output, fail, force_option


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write to this file (atomically)."
)
@force_option
def declare(files: tuple[Path, ...], output: Path | None, force: bool) -> None:
    """Draft a declaration of a format from data files (CSV, TSV, JSON, JSON Lines, Parquet).

    What the columns hold decides: the item, the rater, the answers and their levels, one-hot
    and multi-select columns, keyed or one-per-rater answers, and whether a rater's rows of an
    item are marks to count (an error log). The draft is commented TOML, to read and edit, then
    save beside the data as humanjudge-format.toml; what it could not decide is said in it and
    on standard error."""
    from ...writing import WriteError, write_atomic
    from .draft import DraftError, draft

    if output is not None:
        check_output(output, list(files), force)
    try:
        found = draft(list(files))
    except DraftError as exc:
        fail(str(exc))
    if output is None:
        sys.stdout.write(found.text)
        sys.stdout.flush()
    else:
        try:
            write_atomic(output, found.text.encode(), list(files))
        except WriteError as exc:
            fail(str(exc))
    for note in found.notes:
        click.echo(f"humanjudge: to decide: {note}", err=True)
    if output is not None:
        click.echo(f"wrote a declaration of {len(files)} file{'' if len(files) == 1 else 's'} to {output}", err=True)
