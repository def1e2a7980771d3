"""`humanjudge aggregate`: recompute the aggregates a dataset stores, for every format whose
declaration says how (catalog.Aggregation)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import fail

if TYPE_CHECKING:
    from ..catalog import Aggregation, Format

_FLAGS = {"force": "--force", "in_place": "--in-place"}


class _Aggregate(click.Command):
    """The command, whose help lists the formats that aggregate, read from the catalog only when
    the help is shown (so that starting another command reads no catalog)."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        rows = [
            (how.what, ", ".join(_FLAGS[f] for f in how.flags) or "-")
            for _, how in sorted(_aggregating(), key=lambda pair: pair[0].name)
        ]
        with formatter.section("PATH is one of (with the options it takes)"):
            formatter.write_dl(rows)


@click.command(cls=_Aggregate)
@click.argument("path", metavar="PATH", type=click.Path(path_type=Path, exists=True))
@click.option("--check", is_flag=True, help="Report how the stored aggregates differ; write nothing.")
@click.option(
    "--force",
    is_flag=True,
    help="Correct the file of aggregates the format writes, when it exists (its wrong values only).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write here instead of where the format keeps its aggregates; for a one-file format, where the "
    "corrected copy goes.",
)
@click.option("--in-place", is_flag=True, help="Overwrite a one-file dataset itself with the corrected copy.")
def aggregate(path: Path, check: bool, force: bool, output: Path | None, in_place: bool) -> None:
    """Recompute aggregates from the individual data.

    PATH is a dataset of a format whose declaration says how to recompute what it stores: a
    folder goes to the format whose files are in it, a file to the one-file format of its
    suffix.

    Only the wrong values change: each is replaced where it stands, every other byte of the
    file kept (indentation, key order, how other numbers are written), and rounded to the most
    decimals the file's stored means show. Keys are never added, renamed or removed: what a
    value cannot fix is listed, with exit code 1. Errors stop the write only when they concern
    the judgments the aggregates come from, and they are listed.
    """
    from ..aggregate import AggregateError
    from ..writing import WriteError

    given = {name for name, on in (("force", force), ("in_place", in_place)) if on}
    try:
        how = _format_of(path, given)
        message, code = how.call(path, check=check, output=output, **{n: n in given for n in how.flags})
    except (AggregateError, WriteError) as exc:
        fail(str(exc))
    click.echo(message)
    sys.exit(code)


def _aggregating() -> list[tuple[Format, Aggregation]]:
    from ..catalog import formats

    return [(fmt, fmt.aggregation) for fmt in formats().values() if fmt.aggregation is not None]


def _format_of(path: Path, given: set[str]) -> Aggregation:
    """The aggregation that takes this path: a folder goes to the format that aggregates folders
    (of several, the one whose files are there), a file to the one-file format of its suffix. An
    option the format does not take (or, when a folder's files do not say which format, that no
    candidate takes) is refused, naming the formats that take it."""
    from ..aggregate import AggregateError

    candidates = [
        (fmt, how)
        for fmt, how in _aggregating()
        if (how.folder and path.is_dir())
        or (not how.folder and fmt.one_file is not None and path.name.endswith(fmt.one_file.suffix))
    ]
    if len(candidates) > 1 and path.is_dir():  # folder formats: the one whose files are there
        present = [(fmt, how) for fmt, how in candidates if any((path / f.name).exists() for f in fmt.files)]
        if len(present) == 1 or not given:
            candidates = present
    for name in sorted(given):
        if candidates and not any(name in how.flags for _, how in candidates):
            takers = [other.plural for _, other in _aggregating() if name in other.flags]
            not_for = " or ".join(how.plural for _, how in candidates)
            raise AggregateError(f"{_FLAGS[name]} is for {' and '.join(takers)}, not {not_for}")
    if len(candidates) != 1:
        raise AggregateError(f"{path}: not {' or '.join(how.what for _, how in _aggregating())}")
    return candidates[0][1]
