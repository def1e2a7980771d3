"""The individual judgments of every format as rows of one shape (view.py), read lazily.

from humanjudge_schema import judgments
for row in judgments.rows(["data/exp1"]):        # Judgment named tuples, one at a time
    ...
frame = judgments.dataframe(["data/"])           # with pandas installed
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .view import FIELDS, Judgment, Judgments, Level, Question

if TYPE_CHECKING:
    from ..kinds import Unit


def units(
    paths: Sequence[Path | str], *, kind: str | None = None, skip_unknown: bool = False
) -> tuple[list[Unit], list[Unit]]:
    """The datasets under the paths, found as `validate` finds them (with `skip_unknown`, files of
    no format are passed over): those whose format declares a view of its judgments, and the
    others."""
    from .. import catalog
    from ..kinds import survey

    if isinstance(paths, (str, Path)):
        paths = [paths]
    found = survey([Path(p) for p in paths], kind, skip_empty=skip_unknown).units
    with_view = [u for u in found if catalog.get(u.family).judgments is not None]
    return with_view, [u for u in found if catalog.get(u.family).judgments is None]


def views(found: Iterable[Unit]) -> Iterator[Judgments]:
    """The judgments of each dataset, read one dataset at a time."""
    from .. import catalog

    for unit in found:
        view = catalog.get(unit.family).view(unit)
        if view is not None:
            view.files = unit.files
            yield view


def datasets(
    paths: Sequence[Path | str], *, kind: str | None = None, skip_unknown: bool = False
) -> Iterator[Judgments]:
    """The judgments of every dataset under the paths whose format declares a view."""
    return views(units(paths, kind=kind, skip_unknown=skip_unknown)[0])


def rows(paths: Sequence[Path | str], *, kind: str | None = None) -> Iterator[Judgment]:
    """Every judgment under the paths, dataset after dataset, read as it is asked for."""
    for found in datasets(paths, kind=kind):
        yield from found.rows()


def dataframe(paths: Sequence[Path | str], *, kind: str | None = None) -> Any:
    """The judgments as a pandas DataFrame (pandas must be installed)."""
    import pandas as pd

    return pd.DataFrame.from_records(rows(paths, kind=kind), columns=FIELDS)


__all__ = ["FIELDS", "Judgment", "Judgments", "Level", "Question", "dataframe", "datasets", "rows", "units", "views"]
