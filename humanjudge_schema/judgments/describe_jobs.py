"""`stats --jobs`, `report --jobs` and `export --jobs`: a job run on each dataset in a worker
process, what it makes handed on in dataset order, with what a serial run says of the datasets.

A worker reads its dataset's view from the unit, as one process does (`judgments.views`), and
hears what that reading says of it (why it holds no judgment, that no agreement can be computed
from its stored aggregates); the main process says the same to the dataset's own `told` and
`noted`, in dataset order, so that stderr and the exit code are a serial run's. A usage error
met in a worker is raised in the main process where a serial run would meet it. The report's
plots are drawn in the main process (a fraction of a millisecond each).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any, TypeVar

from ..kinds import Unit
from ..workers import pool as worker_pool
from ..workers import size_of
from . import Dataset, views
from .view import Judgments, Needs

T = TypeVar("T")

# How a worker reads a dataset that is also checked (reading.read_in_worker, handed in by the
# command: this folder imports nothing of validation), and what hears its findings.
Reader = Callable[[Unit, str], tuple[Any, Callable[[], list[tuple[Any, ...]]]]]
Record = Callable[[Unit, list[tuple[Any, ...]]], None]
Task = tuple[int, Unit, Callable[[Judgments], T], Callable[[Judgments], Needs] | None, Reader | None, str]
# What a worker hands back: its index, what reading its dataset said (("told", why) or ("noted",
# note), in order), what the job made of the dataset (None when it holds no judgment), the usage
# error that stopped it, if any, and the findings of its check where it was checked as it was read.
Described = tuple[int, list[tuple[str, Any]], T | None, Exception | None, list[tuple[Any, ...]]]


def described(
    found: Sequence[Dataset],
    *,
    jobs: int,
    bar: Any,
    job: Callable[[Judgments], T],
    needs: Callable[[Judgments], Needs] | None = None,
    checked: tuple[Reader, Record] | None = None,
) -> Generator[T, None, None]:
    """What `job` makes of each dataset of `found` that holds judgments, in order, computed by
    `jobs` worker processes taking the largest datasets first: `partial(describe, samples=,
    seed=, raters=)` gives its statistics, `partial(html.shown, samples=, seed=)` what the report
    shows of it (the job crosses to the workers: a module's function, or a partial of one). Each
    view is read for the pass `needs` says (`judgments.views`). With `checked` (a reader and a
    record), each worker checks its dataset as it reads it, and the findings are recorded in
    dataset order. Leaving early in any way (an error, Ctrl-C, `close()`) ends every worker."""
    units = [d.unit for d in found]
    reader = checked[0] if checked is not None else None
    cwd = os.getcwd()
    tasks: list[Task[T]] = [(i, d.unit, job, needs, reader, cwd) for i, d in enumerate(found)]
    with _workers(jobs, units, bar) as pool:
        order = sorted(range(len(tasks)), key=lambda i: -size_of(units[i]))
        results = pool.imap_unordered(_describe, [tasks[i] for i in order])
        done: dict[int, Described[T]] = {}
        for index, dataset in enumerate(found):
            while index not in done:
                result = next(results)
                done[result[0]] = result
                if bar is not None:
                    bar.done(units[result[0]])
            _, said, made, error, findings = done.pop(index)
            if checked is not None:
                checked[1](dataset.unit, findings)
            for what, why in said:
                if what == "told":
                    dataset.told(dataset.unit, why)
                elif dataset.noted is not None:
                    dataset.noted(dataset.unit, why)
            if error is not None:
                raise error
            if made is not None:
                yield made


@contextlib.contextmanager
def _workers(jobs: int, units: Sequence[Unit], bar: Any) -> Iterator[Any]:
    """A pool of `jobs` worker processes (no more than `units`), and the bar started on the
    units. Leaving the block normally lets the workers end on their own; leaving it in any other
    way (an error, Ctrl-C) ends every worker at once. The bar is closed either way."""
    pool = worker_pool(min(jobs, len(units)))  # before the bar's thread: see validation._check_all
    if bar is not None:
        bar.start(units)
    try:
        with pool:
            yield pool
            pool.close()  # every result is in: the workers end on their own
            pool.join()
    finally:
        if bar is not None:
            bar.close()


def _describe(task: Task[T]) -> Described[T]:
    """In a worker: one dataset read (and checked, with a reader) and made into what the job
    makes of it, and what its reading said of it."""
    from ..kinds import UsageError

    index, unit, job, needs, reader, cwd = task
    said: list[tuple[str, Any]] = []
    heard = Dataset(unit, lambda _, why: said.append(("told", why)), lambda _, note: said.append(("noted", note)))
    findings: Callable[[], list[tuple[Any, ...]]] = list
    made = None
    try:
        if reader is not None:
            read, findings = reader(unit, cwd)
        view = next(views([heard], None if reader is None else lambda _: read, needs), None)
        if view is not None:  # None: it holds no judgment (said to `heard`)
            made = job(view)
    except UsageError as exc:  # a path it cannot use; a bug is raised by the pool as it is
        return index, said, None, exc, []
    return index, said, made, None, findings()
