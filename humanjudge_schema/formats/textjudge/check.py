"""The TextJudge check: parse the dataset (a large one run by run), validate it against its
schema, then run the rules of each run of instances as it is read (`scope="run"` on @rule), and
the rules of the whole dataset once at the end (`scope="dataset"`)."""

from __future__ import annotations

from collections.abc import Iterable
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
from .model import Dataset, Run
from .prompts import SCHEMA, usable


def check(unit: Unit, ctx: Context) -> None:
    path = unit.files[0]
    # A Git LFS pointer never gets here: the core reports it and leaves it out (coverage.py).
    raw = read_bytes(path, ctx.config.max_document_bytes)
    if isinstance(raw, bytes) and len(raw) >= stream.STREAM_FROM and check_in_runs(path, raw, ctx):
        return
    doc, problems = document(path, raw)
    ctx.problems(path, problems, doc)
    if not isinstance(doc, JsonDocument):
        return
    errors = schema_errors(SCHEMA, doc.data)
    for code, ptr, message in errors:
        ctx.add(code, doc, ptr, message)
    if usable(doc.data, errors):
        check_dataset(Dataset(doc, ctx.config.tolerance, doc.data), [(doc.data["instances"], 0)], ctx)


def check_in_runs(path: Path, raw: bytes, ctx: Context) -> bool:
    """Check a large dataset run by run; False, with nothing reported, when it must be checked
    whole (stream.py says when)."""
    point = ctx.checkpoint()
    try:
        doc, runs = stream.open_in_runs(path, raw)
        ctx.parsed(doc)
        check_dataset(Dataset(doc, ctx.config.tolerance, doc.data), runs, ctx)
    except stream.GiveUp:
        ctx.rollback(point)
        return False
    return True


def check_dataset(ds: Dataset, runs: Iterable[tuple[list[Any], int]], ctx: Context) -> None:
    """Run the rules of a run over each run, gathering the dataset's facts, then the rules of the
    dataset."""
    of_runs, of_dataset = rules_of("textjudge", "run"), rules_of("textjudge", "dataset")
    for instances, offset in runs:
        run = Run(ds, instances, offset)
        for r in of_runs:
            ctx.run(r, run)
        ds.gather(run)
    for r in of_dataset:
        ctx.run(r, ds)
