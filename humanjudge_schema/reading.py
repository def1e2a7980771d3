"""Validation and the judgments' views in one reading of each dataset's files: a format that
declares `checked` (catalog.Format) gives a dataset's findings and its judgments from one reading,
for the commands that need both (export, report, diff)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import catalog
from .config import Config, discover, forget
from .engine import Context, Document
from .finding import Finding
from .gcpause import paused
from .kinds import Unit, survey
from .validation import Result, as_row, check_unit, finish, result_of


def read_checked(
    unit: Unit, config: Config, cwd: str | None = None, keep: list[Document] | None = None
) -> tuple[Any, Callable[[], list[Finding]]]:
    """The unit's judgments (None where its format has none) read as the unit is checked, and
    the call that gives the unit's findings (`check_unit`'s) once they have been read, finishing
    whatever of the check the reader left. Where the format reads its judgments apart from its
    check, or the quality checks are asked for, the check runs first and the view reads anew.
    With `keep`, the documents a check run along the view parsed are added to it once the check
    is done (to locate more pointers in them without reading the files again)."""
    from .coverage import screen

    fmt = catalog.get(unit.family)
    if fmt.checked is None or config.quality:
        found = check_unit(unit, config, cwd)
        return fmt.view(unit), lambda: found
    ctx = Context(config, cwd, unit.root)
    with paused():
        screened = screen(unit, ctx)
        view = fmt.checked_view(screened, ctx) if screened.files else fmt.view(unit)
    if not screened.files:
        found = ctx.findings()
        return view, lambda: found

    def done() -> list[Finding]:
        with paused():
            finish(view)
        if keep is not None:
            keep.extend(ctx.documents)
        return ctx.findings()

    return view, done


def read_in_worker(unit: Unit, cwd: str) -> tuple[Any, Callable[[], list[tuple[Any, ...]]]]:
    """`read_checked` in a worker process of --jobs: the view, and the call that gives the unit's
    findings as plain tuples, for `Reading.record` in the main process."""
    view, done = read_checked(unit, discover(unit.root), cwd)
    return view, lambda: list(map(as_row, done()))


class Reading:
    """`validate` and the judgments' views of the same paths in one reading of each dataset's
    files, for the commands that need both (export, report): `view(unit)` gives a dataset's view,
    read as its check runs (catalog.Format.checked), and `result()` the findings `validate` gives
    (checking then what no view was asked for). One dataset is open at a time: its check is
    finished, and what it parsed freed, when the next view is asked for; the last one's is kept
    with the Reading (`kept`), as `validate(keep=...)` keeps its last unit's documents: a command
    that exits right after leaves them to the operating system, where freeing them, and the
    collector's last pass over them, cost a CogGym export up to a tenth of its run."""

    def __init__(
        self,
        paths: Sequence[Path | str],
        *,
        kind: str | None = None,
        skip_unknown: bool = False,
        cwd: str | None = None,
    ) -> None:
        found = survey([Path(p) for p in paths], kind, skip_empty=skip_unknown)
        forget()
        self.units = found.units
        self.skipped = tuple(found.skipped)
        self.configs = [discover(unit.root) for unit in self.units]
        self.cwd = cwd
        self.index = {(u.family, u.root): i for i, u in enumerate(self.units)}
        self.found: dict[int, list[Finding]] = {}
        self.open: tuple[int, Callable[[], list[Finding]]] | None = None
        self.kept: object = None  # what the last dataset read holds, once its check is finished

    def view(self, unit: Unit) -> Any:
        """The unit's judgments (None when its format's reader gives none), its check running
        as they are read."""
        self._close()
        i = self.index.get((unit.family, unit.root))
        if i is None or i in self.found:
            return catalog.get(unit.family).view(unit)
        view, done = read_checked(self.units[i], self.configs[i], self.cwd)
        self.open = (i, done)
        return view

    def record(self, unit: Unit, rows: list[tuple[Any, ...]]) -> None:
        """The findings of a unit read and checked in a worker process (`read_in_worker`)."""
        i = self.index.get((unit.family, unit.root))
        if i is not None:
            self.found[i] = [Finding(*row) for row in rows]

    def _close(self, last: bool = False) -> None:
        if self.open is not None:
            i, done = self.open
            self.open = None
            self.found[i] = done()
            if last:
                self.kept = done

    def result(self) -> Result:
        """What `validate` finds in the paths: the datasets read, then the others checked."""
        self._close(last=True)
        findings: list[Finding] = []
        for i, unit in enumerate(self.units):
            if i not in self.found:
                self.found[i] = check_unit(unit, self.configs[i], self.cwd)
            findings += self.found[i]
        return result_of(self.units, self.configs, findings, self.skipped)
