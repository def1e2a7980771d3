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


@click.command()
@click.argument("experiment", metavar="PATH", type=click.Path(path_type=Path, exists=True))
@click.option("--check", is_flag=True, help="Report how the stored aggregates differ; write nothing.")
@click.option("--force", is_flag=True, help="Overwrite an existing human_data_mean.json (CogGym).")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write here instead of EXPERIMENT/human_data_mean.json; for a TextJudge dataset, where the "
    "corrected copy goes.",
)
@click.option("--in-place", is_flag=True, help="Overwrite the TextJudge dataset itself with the corrected copy.")
def aggregate(experiment: Path, check: bool, force: bool, output: Path | None, in_place: bool) -> None:
    """Recompute aggregates from the individual data.

    PATH is a CogGym experiment folder (writes human_data_mean.json) or a TextJudge dataset .json
    file (recomputes mean_human and majority_human; the corrected copy goes to -o FILE, or over
    the input with --in-place; only the wrong values change).
    """
    from ..aggregate import AggregateError
    from ..writing import WriteError

    given = {name for name, on in (("force", force), ("in_place", in_place)) if on}
    try:
        how = _format_of(experiment)
        for name in sorted(given - set(how.flags)):
            takers = [other.plural for _, other in _aggregating() if name in other.flags]
            raise AggregateError(f"{_FLAGS[name]} is for {' and '.join(takers)}, not {how.plural}")
        message, code = how.call(experiment, check=check, output=output, **{n: n in given for n in how.flags})
    except (AggregateError, WriteError) as exc:
        fail(str(exc))
    click.echo(message)
    sys.exit(code)


def _aggregating() -> list[tuple[Format, Aggregation]]:
    from ..catalog import formats

    return [(fmt, fmt.aggregation) for fmt in formats().values() if fmt.aggregation is not None]


def _format_of(path: Path) -> Aggregation:
    """The aggregation that takes this path: a folder goes to the format that aggregates folders,
    a file to the one-file format of its suffix."""
    from ..aggregate import AggregateError

    candidates = [
        (fmt, how)
        for fmt, how in _aggregating()
        if (how.folder and path.is_dir())
        or (not how.folder and fmt.one_file is not None and path.name.endswith(fmt.one_file.suffix))
    ]
    if len(candidates) > 1 and path.is_dir():  # folder formats: the one whose files are there
        candidates = [(fmt, how) for fmt, how in candidates if any((path / f.name).exists() for f in fmt.files)]
    if len(candidates) != 1:
        raise AggregateError(f"{path}: not {' or '.join(how.what for _, how in _aggregating())}")
    return candidates[0][1]
