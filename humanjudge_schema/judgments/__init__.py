"""The individual judgments of every format as rows of one shape (view.py), read lazily.

from humanjudge_schema import judgments
for row in judgments.rows(["data/exp1"]):        # Judgment named tuples, one at a time
    ...
frame = judgments.dataframe(["data/"])           # with pandas installed
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .view import FIELDS, Judgment, Judgments, Level, Question


def datasets(
    paths: Sequence[Path | str], *, kind: str | None = None, skip_unknown: bool = False
) -> Iterator[Judgments]:
    """The judgments of every dataset under the paths, found as `validate` finds them (with
    `skip_unknown`, files of no format are passed over); datasets of a format that declares no
    view are left out."""
    from .. import catalog
    from ..kinds import survey

    if isinstance(paths, (str, Path)):
        paths = [paths]
    for unit in survey([Path(p) for p in paths], kind, skip_empty=skip_unknown).units:
        view = catalog.get(unit.family).view(unit)
        if view is not None:
            view.files = unit.files
            yield view


def rows(paths: Sequence[Path | str], *, kind: str | None = None) -> Iterator[Judgment]:
    """Every judgment under the paths, dataset after dataset, read as it is asked for."""
    for found in datasets(paths, kind=kind):
        yield from found.rows()


def dataframe(paths: Sequence[Path | str], *, kind: str | None = None) -> Any:
    """The judgments as a pandas DataFrame (pandas must be installed)."""
    import pandas as pd

    return pd.DataFrame.from_records(rows(paths, kind=kind), columns=FIELDS)


__all__ = ["FIELDS", "Judgment", "Judgments", "Level", "Question", "dataframe", "datasets", "rows"]
