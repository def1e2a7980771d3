"""The TextJudge check: parse the dataset (a large one run by run), validate it against its
schema, then run the rules of each run of instances as it is read (`scope="run"` on @rule), and
the rules of the whole dataset once at the end (`scope="dataset"`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ...engine import Context, schema_errors
from ...kinds import Unit
from ...readers.files import read_bytes
from ...readers.jsonfile import JsonDocument, document
from ...registry import rules_of
from . import (
    rules,  # noqa: F401  (importing the rules registers them)
    stream,
)
from .model import DatasetFacts, Run
from .prompts import SCHEMA, usable

Runs = Iterator[tuple[list[Any], int]]  # runs of instances and the index of each run's first


def check(unit: Unit, ctx: Context) -> None:
    _, runs = opened(unit.files[0], ctx)
    for _ in runs:
        pass


def opened(path: Path, ctx: Context) -> tuple[Any, Runs]:
    """The dataset read for its check: its top level as parsed (None when the file is not JSON)
    and its runs of instances, each handed on once the rules of a run have run over it; the
    rules of the dataset run once the last run has been handed on. The findings are complete when
    the runs have been read to their end. The judgments' view reads the same runs (checked_view),
    so that a dataset is read once for both."""
    # A Git LFS pointer never gets here: the core reports it and leaves it out (coverage.py).
    raw = read_bytes(path, ctx.config.max_document_bytes)
    if isinstance(raw, bytes) and len(raw) >= stream.STREAM_FROM:
        point = ctx.checkpoint()
        try:
            doc, runs = stream.open_in_runs(path, raw)
        except stream.GiveUp:
            ctx.rollback(point)
        else:
            ctx.parsed(doc)
            return doc.data, _in_runs(DatasetFacts(doc, ctx.config.tolerance, doc.data), runs, path, raw, ctx, point)
    return _whole(path, raw, ctx)


def _in_runs(ds: DatasetFacts, runs: Runs, path: Path, raw: bytes, ctx: Context, point: Any) -> Runs:
    """A large dataset checked run by run. Where a run does not parse as expected (GiveUp, raised
    as the runs are read, before the dataset's rules run over part of the file), what was found is
    dropped and the file checked whole; its instances after those handed on already follow."""
    done = 0
    try:
        for instances, offset in checked_runs(ds, runs, ctx):
            yield instances, offset
            done = offset + len(instances)
    except stream.GiveUp:
        ctx.rollback(point)
        _, whole = _whole(path, raw, ctx)
        for instances, offset in whole:
            yield (instances[done - offset :] if done > offset else instances), max(done, offset)


def _whole(path: Path, raw: Any, ctx: Context) -> tuple[Any, Runs]:
    """The dataset parsed and schema-checked whole; its one run of instances, checked by the
    rules where the schema lets them index it."""
    doc, problems = document(path, raw)
    ctx.problems(path, problems, doc)
    if not isinstance(doc, JsonDocument):
        return None, iter(())
    errors = schema_errors(SCHEMA, doc.data)
    for code, ptr, message in errors:
        ctx.add(code, doc, ptr, message)
    data = doc.data
    instances = data.get("instances") if isinstance(data, dict) else None
    instances = instances if isinstance(instances, list) else []
    if usable(data, errors):  # instances is a list then
        return data, checked_runs(DatasetFacts(doc, ctx.config.tolerance, data), iter([(instances, 0)]), ctx)
    return data, iter([(instances, 0)])


def checked_runs(ds: DatasetFacts, runs: Iterable[tuple[list[Any], int]], ctx: Context) -> Runs:
    """Each run handed on after the rules of a run ran over it, gathering the dataset's facts;
    the rules of the dataset once the last has been handed on."""
    of_runs, of_dataset = rules_of("textjudge", "run"), rules_of("textjudge", "dataset")
    for instances, offset in runs:
        run = Run(ds, instances, offset)
        for r in of_runs:
            ctx.run(r, run)
        ds.gather(run)
        yield instances, offset
    for r in of_dataset:
        ctx.run(r, ds)
