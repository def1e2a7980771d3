"""One call from paths to findings: find the units, check each with its family's rules, on one
core or several."""

from __future__ import annotations

import dataclasses
import gc
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any, Protocol

from . import catalog
from .config import Config, discover, forget
from .engine import Context
from .finding import Finding, Severity
from .gcpause import paused
from .kinds import Skipped, Unit, UsageError, survey
from .readers.files import Problem, display_path
from .workers import jobs_of, size_of
from .workers import pool as worker_pool


@dataclass(frozen=True)
class Result:
    findings: list[Finding]
    files: int
    # files a folder walk saw and left out, with the reason; configuration files that applied
    skipped: tuple[Skipped, ...] = ()
    configs: tuple[Path, ...] = ()
    # datasets whose configuration asked for the quality checks but whose format declares no
    # judgments to check: nothing was checked there, which the command says
    unjudged: tuple[Unit, ...] = ()

    @property
    def errors(self) -> int:
        return sum(f.count for f in self.findings if f.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(f.count for f in self.findings if f.severity is Severity.WARNING)


class Progress(Protocol):
    """What `validate` reports while it runs (see `humanjudge_schema.progress.Bar`)."""

    def start(self, units: Sequence[Unit]) -> None: ...

    def done(self, unit: Unit) -> None: ...

    def close(self) -> None: ...


def check_unit(unit: Unit, config: Config, cwd: str | None = None, keep: list[object] | None = None) -> list[Finding]:
    """The unit's findings. With `keep`, the documents it parsed replace keep's contents
    instead of being freed here (see `validate`)."""
    from .coverage import screen

    fmt = catalog.get(unit.family)
    ctx = Context(config, cwd, unit.root)
    # A parsed dataset is a tree of millions of containers, which rules walk as they allocate
    # (gcpause.py: half the run time on a 50 MB TextJudge file).
    with paused():
        try:
            unit = screen(unit, ctx)
            if unit.files and config.quality and fmt.checked is not None:
                view = fmt.checked_view(unit, ctx)  # the quality checks read what the check reads
                _quality(view, unit, ctx)
                finish(view)
            elif unit.files:
                fmt.run(unit, ctx)
                if config.quality and fmt.judgments is not None:
                    _quality(fmt.view(unit), unit, ctx)
            if keep is not None:
                keep[:] = ctx.documents
            return ctx.findings()
        finally:
            if keep:
                gc.freeze()  # kept documents are not garbage: no collection should walk them again


def finish(view: Any) -> None:
    """The check of a view read as its dataset is checked (catalog.Format.checked) run to its
    end, whatever of the view's first pass its reader left unread."""
    from .judgments.view import FirstPass

    if isinstance(view.batches, FirstPass):
        view.batches.finish()


def _quality(view: Any, unit: Unit, ctx: Context) -> None:
    """Add a dataset's quality findings (judgments/quality.py) to the context its check reported
    into: at the document the check parsed when the format points by JSON pointer alone, else at
    the file and line."""
    from .judgments.quality import check

    files = {display_path(f): f for f in unit.files}
    # The documents are those the check parsed, known once the pass has run: a view read as its
    # dataset is checked (Format.checked) parses its files during the pass itself.
    found = list(check(view))
    documents = {getattr(doc, "path", None): doc for doc in ctx.documents}
    for code, where, message in found:
        path = files.get(where.file)
        if path is None or not ctx.config.wants(code, path):
            continue
        doc = documents.get(path)
        if where.line is None and doc is not None:
            ctx.add(code, doc, where.pointer, message)
        else:
            ctx.problems(path, [Problem(code, message, where.pointer, where.line)])


_Row = tuple[Any, ...]  # a Finding's fields, in order
# A finding as the plain tuple that crosses the process boundary (Finding(*row) makes it again):
# cheaper to pickle than a dataclass, and safe on every Python version the package supports.
as_row = attrgetter(*(f.name for f in dataclasses.fields(Finding)))


def _check_in_worker(unit: Unit, config: Config, cwd: str | None) -> list[_Row]:
    return list(map(as_row, check_unit(unit, config, cwd)))


def validate(
    paths: Sequence[Path | str],
    *,
    kind: str | None = None,
    config: Config | None = None,
    select: tuple[str, ...] | None = None,
    ignore: tuple[str, ...] = (),
    cwd: str | None = None,
    jobs: int = 1,
    skip_unknown: bool = False,
    progress: Progress | None = None,
    keep: list[object] | None = None,
    max_per_code: int | None = None,
    quality: bool | None = None,
    known: Mapping[Path, str] | None = None,
    links: bool = True,
) -> Result:
    """Validate files and folders. Configuration is found next to each unit unless given.

    `known` and `links` are survey's (kinds.py): the format each file had in an earlier commit,
    checked as such whatever it holds now, and whether links are followed.

    `jobs` > 1 checks that many units at a time in separate processes (0: one per core); the
    findings are the same, in the same order, as with one. `skip_unknown` drops files of no
    known format instead of raising UsageError (for hooks that pass every changed file).

    With `keep` (a list) and one job, the documents of the last unit checked are left in it
    rather than freed: a command that exits right after the run can leave them to the operating
    system, which takes no time, where freeing the objects of a 50 MB dataset takes 0.1 s.

    `quality` (default: the configuration's, else False) also runs the quality/ checks, which
    read every judgment of each dataset again (judgments/quality.py).

    `max_per_code` (default: the configuration's, else 1000) lists at most that many findings of
    one code per file; the rest are counted in one more finding of that code (0: list all).
    """
    if isinstance(paths, (str, Path)):  # one path, not a sequence of one-letter paths
        paths = [paths]
    from .rulebook import UnknownCode, check_selectors

    try:
        check_selectors(select or (), "select")
        check_selectors(ignore, "ignore")
    except UnknownCode as exc:
        raise UsageError(str(exc)) from None
    found = survey([Path(p) for p in paths], kind, skip_empty=skip_unknown, known=known, links=links)
    units = found.units
    forget()  # within a run configuration files are read once; across runs they may change
    configs = [(config or discover(unit.root)).with_flags(select, ignore, max_per_code, quality) for unit in units]
    return result_of(units, configs, _check_all(units, configs, cwd, jobs, progress, keep), found.skipped)


def result_of(
    units: Sequence[Unit], configs: Sequence[Config], findings: list[Finding], skipped: Sequence[Skipped]
) -> Result:
    """The result of checking `units` with `configs` (in the same order): their findings
    sorted, the files counted, the configuration files used, and the units whose quality checks
    were asked for and whose format has no judgments to check."""
    # A file two formats check (a declaration beside a CogGym experiment naming one of its
    # files) is one file, and a finding both find about it (its parse errors) is said once.
    findings = [Finding(*row) for row in dict.fromkeys(map(as_row, findings))]
    findings.sort(key=Finding.sort_key)
    used = tuple(sorted({c.source for c in configs if c.source is not None}))
    unjudged = tuple(
        u for u, c in zip(units, configs, strict=True) if c.quality and catalog.get(u.family).judgments is None
    )
    files = {os.path.abspath(f) for u in units for f in (*u.files, *u.refused)}
    return Result(findings, len(files), tuple(skipped), used, unjudged)


def _check_all(
    units: list[Unit],
    configs: list[Config],
    cwd: str | None,
    jobs: int,
    progress: Progress | None,
    keep: list[object] | None,
) -> list[Finding]:
    """Every unit's findings, in unit order: one unit after another, or `jobs` at a time."""
    findings: list[Finding] = []
    workers = min(jobs_of(jobs), len(units))
    # The workers start before the progress bar's thread does: a process forked while another
    # thread runs may inherit a lock that thread held, and hang.
    pool = worker_pool(workers) if workers > 1 else None
    if progress is not None:
        progress.start(units)
    try:
        if pool is None:
            for unit, cfg in zip(units, configs, strict=True):
                findings.extend(check_unit(unit, cfg, cwd, keep))
                if progress is not None:
                    progress.done(unit)
        else:
            with pool:  # leaving it in any way (an error, Ctrl-C) ends every worker at once
                findings = _parallel(pool, units, configs, cwd, progress)
    finally:
        if progress is not None:
            progress.close()
    return findings


def _check_one(task: tuple[int, Unit, Config, str]) -> tuple[int, list[_Row]]:
    index, unit, config, cwd = task
    return index, _check_in_worker(unit, config, cwd)


def _parallel(
    pool: Any, units: list[Unit], configs: list[Config], cwd: str | None, progress: Progress | None
) -> list[Finding]:
    # Largest units first, so a big one does not start last and keep one core busy alone.
    order = sorted(range(len(units)), key=lambda i: -size_of(units[i]))
    tasks = [(i, units[i], configs[i], cwd or os.getcwd()) for i in order]
    by_unit: dict[int, list[_Row]] = {}
    for index, rows in pool.imap_unordered(_check_one, tasks):
        by_unit[index] = rows
        if progress is not None:
            progress.done(units[index])
    # In unit order, as a serial run adds them: findings with equal sort keys keep the same order.
    return [Finding(*row) for i in range(len(units)) for row in by_unit[i]]
