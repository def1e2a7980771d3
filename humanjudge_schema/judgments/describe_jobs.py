"""`stats --jobs` and `report --jobs`: each dataset's statistics (`stats.describe`) computed in a
worker process, handed on in dataset order, with what a serial run says of them.

A worker reads its dataset's view from the unit, as one process does (`judgments.views`), and
hears what that reading says of it (why it holds no judgment, that no agreement can be computed
from its stored aggregates); the main process says the same to the dataset's own `told` and
`noted`, in dataset order, so that stderr and the exit code are a serial run's. A usage error
met in a worker is raised in the main process where a serial run would meet it. The report's
plots are drawn in the main process (a fraction of a millisecond each).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from ..kinds import Unit
from . import Dataset, views
from .export_jobs import Reader, Record, in_order, started, worker_view
from .view import Judgments

T = TypeVar("T")

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
    checked: tuple[Reader, Record] | None = None,
) -> Iterator[T]:
    """What `job` makes of each dataset of `found` that holds judgments, in order, computed by
    `jobs` worker processes: `partial(describe, samples=, seed=, raters=)` gives its statistics,
    `partial(html.shown, samples=, seed=)` what the report shows of it (the job crosses to the
    workers: a module's function, or a partial of one). With `checked` (a reader and a record,
    export_jobs), each worker checks its dataset as it reads it, and the findings are recorded in
    dataset order."""
    units = [d.unit for d in found]
    reader = checked[0] if checked is not None else None
    cwd = os.getcwd()
    tasks = [(i, d.unit, job, reader, cwd) for i, d in enumerate(found)]
    with started(jobs, units, bar) as pool:
        results = in_order(pool, _describe, tasks, units, bar)
        for dataset, (_, said, made, error, findings) in zip(found, results, strict=True):
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


def _describe(task: tuple[int, Unit, Callable[[Judgments], T], Reader | None, str]) -> Described[T]:
    """In a worker: one dataset read (and checked, with a reader) and made into what the job
    makes of it, and what its reading said of it."""
    from ..kinds import UsageError

    index, unit, job, reader, cwd = task
    said: list[tuple[str, Any]] = []
    heard = Dataset(unit, lambda _, why: said.append(("told", why)), lambda _, note: said.append(("noted", note)))
    made = None
    try:
        view_of, findings = worker_view(unit, reader, cwd)
        view = next(views([heard], view_of), None)  # None: it holds no judgment (said to `heard`)
        if view is not None:
            made = job(view)
    except UsageError as exc:  # a path it cannot use; a bug is raised by the pool as it is
        return index, said, None, exc, []
    return index, said, made, None, findings()
