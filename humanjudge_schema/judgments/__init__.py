"""The judgments of every format as rows of one shape (view.py), read lazily: each rater's
answers (role "individual") and the aggregates the files store (role "aggregate").

from humanjudge_schema import judgments
for row in judgments.rows(["data/exp1"]):        # Judgment named tuples, one at a time
    ...
frame = judgments.dataframe(["data/"])           # with pandas installed
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .view import FIELDS, Batch, FirstPass, Judgment, Judgments, Level, Needs, Question

if TYPE_CHECKING:
    from ..kinds import Unit


def units(
    paths: Sequence[Path | str],
    *,
    kind: str | None = None,
    skip_unknown: bool = False,
    found: Sequence[Unit] | None = None,
) -> tuple[list[Unit], list[Unit]]:
    """The datasets under the paths, found as `validate` finds them (with `skip_unknown`, files of
    no format are passed over), or `found` where they were found already: those whose format
    declares a view of its judgments, and the others."""
    from .. import catalog
    from ..kinds import survey

    if isinstance(paths, (str, Path)):
        paths = [paths]
    if found is None:
        found = survey([Path(p) for p in paths], kind, skip_empty=skip_unknown).units
    with_view = [u for u in found if catalog.get(u.family).judgments is not None]
    return with_view, [u for u in found if catalog.get(u.family).judgments is None]


@dataclass(frozen=True, eq=False)
class Dataset:
    """A dataset whose reading is accounted for: `views()` reads it up to its first individual
    judgment before handing its view on, and calls `told(unit, why)` once, with why=None when it
    holds judgments, else with why it holds none (`why_none`), leaving it out. A dataset whose
    rows are all aggregates (stored means or majorities) holds judgments, and is handed on, but
    no agreement can be computed from it: `noted(unit, note)` is then called too, and the view's
    `note` says it. It has the unit's `files`, so that it stands wherever a unit's files are
    asked for."""

    unit: Unit
    told: Callable[[Unit, str | None], None]
    noted: Callable[[Unit, str], None] | None = None

    @property
    def files(self) -> tuple[Path, ...]:
        return self.unit.files


def views(
    found: Iterable[Unit | Dataset],
    view_of: Callable[[Unit], Any] | None = None,
    needs: Callable[[Judgments], Needs] | None = None,
) -> Iterator[Judgments]:
    """The judgments of each dataset, read one dataset at a time. A `Dataset` is read up to its
    first judgment first, for the pass `needs(view)` says (default: the statistics' pass,
    `gather.needs`, which stats, report and the Action read first; export asks for `EVERY`),
    which the view's next pass with those needs goes on from (that judgment is not read again;
    a pass with other needs reads anew); one with none is told why and left out. A plain unit's
    view is handed on as it is, judgments or not. `view_of` gives a unit's view (default: its
    format's; reading.Reading's reads it as the dataset is checked)."""
    from .. import catalog

    for item in found:
        unit, told = (item.unit, item.told) if isinstance(item, Dataset) else (item, None)
        noted = item.noted if isinstance(item, Dataset) else None
        view = catalog.get(unit.family).view(unit) if view_of is None else view_of(unit)
        if view is None:  # a plug-in's reader that gives nothing
            if told is not None:
                told(unit, f"the {unit.family} format's reader gives no view of it")
            continue
        view.files = unit.files
        if told is None:
            yield view
            continue
        started, individual = _started(view, (needs or _statistics)(view))
        told(unit, None if started is not None else why_none(unit, view))
        if started is None:
            continue
        if not individual:
            started.note = f"{why_none(unit, view)}: {NO_AGREEMENT}"
            if noted is not None:
                noted(unit, started.note)
        yield started


NO_AGREEMENT = "agreement cannot be computed"


def _statistics(view: Judgments) -> Needs:
    from .gather import needs

    return needs(view)


def why_none(unit: Unit, view: Judgments) -> str:
    """Why a dataset whose rows were all read holds no judgment: a file of it that is a Git LFS
    pointer (nothing can be said of data that is not there), else what its format says
    (`Judgments.none`), else that none of its files holds one."""
    from ..kinds import LFS_POINTER, head

    pointers = [f for f in unit.files if (head(f, len(LFS_POINTER)) or b"").startswith(LFS_POINTER)]
    if pointers == [unit.root]:
        return "a Git LFS pointer, not the data (run `git lfs pull`)"
    if pointers:
        names = ", ".join(f.name for f in pointers)
        verb = "is a Git LFS pointer" if len(pointers) == 1 else "are Git LFS pointers"
        return f"{names} {verb}, not the data (run `git lfs pull`)"
    said = view.none() if view.none is not None else None
    return said or "none of its files holds an individual judgment"


_KEPT = 1 << 16  # aggregate rows kept while looking for an individual judgment: beyond, read anew


def _started(view: Judgments, needs: Needs) -> tuple[Judgments | None, bool]:
    """The view read up to its first individual judgment, whose rows read so far the next pass
    with these needs hands on before reading on (later passes read anew), and whether it holds
    one; None when a whole pass gave no row at all. A view of aggregates only is read whole to
    know it, and read anew by the next pass (aggregates are few beside individual judgments)."""
    batches = view.in_batches(needs)

    def resumed(given: Iterator[Batch]) -> Judgments:  # `read` too reads anew after the first pass
        return replace(view, read=None, batches=FirstPass(given, view.in_batches, read_for=needs))

    kept: list[Batch] = []
    size = 0
    for batch in batches:
        if batch.of_role("individual"):
            return resumed(chain(kept, [batch], batches)), True
        if len(batch):
            kept.append(batch)
            size += len(batch)
        if size > _KEPT:  # too many to keep: whether one is individual, the view read anew after
            return view, any(batch.of_role("individual") for batch in batches)
    return (resumed(iter(kept)) if kept else None), False


def datasets(
    paths: Sequence[Path | str], *, kind: str | None = None, skip_unknown: bool = False
) -> Iterator[Judgments]:
    """The judgments of every dataset under the paths whose format declares a view."""
    return views(units(paths, kind=kind, skip_unknown=skip_unknown)[0])


def rows(paths: Sequence[Path | str], *, kind: str | None = None, role: str | None = None) -> Iterator[Judgment]:
    """Every row under the paths, dataset after dataset, read as it is asked for: individual
    judgments and stored aggregates (means, majorities), or only those of `role` ("individual",
    "aggregate"), so that an average is never taken for one rater's judgment unless asked."""
    for found in datasets(paths, kind=kind):
        every = found.rows()
        yield from every if role is None else (row for row in every if row.role == role)


def dataframe(paths: Sequence[Path | str], *, kind: str | None = None, role: str | None = None) -> Any:
    """The rows as a pandas DataFrame, both roles or those of `role` (as `rows`): the frame
    `pandas.read_parquet` gives of `humanjudge export -o x.parquet` on the same paths (with
    `role`, of an export that held only those rows), column for column and dtype for dtype (item,
    rater, option and value as text, the typed value columns after them), as it is made: the
    Parquet export, in memory, read by pandas. pandas and pyarrow must be installed (the `pandas`
    extra)."""
    import io

    from .export import missing, write_parquet

    for module in ("pandas", "pyarrow"):
        if why := missing(module, "pandas", "judgments.dataframe()"):
            raise ModuleNotFoundError(why, name=module)
    import pandas as pd

    exported = io.BytesIO()
    write_parquet((batch for found in datasets(paths, kind=kind) for batch in found.in_batches()), exported)
    exported.seek(0)
    return pd.read_parquet(exported, filters=None if role is None else [("role", "==", role)])


__all__ = [
    "FIELDS",
    "Dataset",
    "Judgment",
    "Judgments",
    "Level",
    "Question",
    "dataframe",
    "datasets",
    "rows",
    "units",
    "views",
    "why_none",
]
