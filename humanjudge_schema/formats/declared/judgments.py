"""The judgments of a declared dataset: each block's rows, a file's piece at a time, as column
batches (one rater's answers, and the aggregates the files store: a mean or majority as one
row, a distribution as one row per answer). What validation rejects is still a judgment where it
can be placed; what cannot be placed is left out (validation says why)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from ...config import discover
from ...engine import Context
from ...judgments.view import Batch, FirstPass, Judgments, Parts, Question
from ...kinds import Unit
from ...readers.files import display_path
from ...readers.parquetfile import NEEDS_PYARROW
from ...readers.parquetfile import available as parquet_available
from .check import checking, declaration_ok, files_of
from .declaration import Block, Declaration
from .held import declaration
from .mapping import Mapped, Mapper
from .records import read

_KEPT = ("mean", "majority", "soft-label", "none")  # aggregates on a question's scale


def judgments(unit: Unit) -> Judgments:
    """The judgments of a declared dataset, read anew by each pass."""
    decl = declaration(unit.family, unit.root)
    return _view(unit, decl, partial(_batches, unit, decl, display_path(unit.root)))


def checked(unit: Unit, ctx: Context) -> Judgments:
    """The dataset checked into ctx and its judgments, in one reading: the view's first pass is
    made of the judgments the check's blocks make as it reads (check.checking)."""
    decl = declaration(unit.family, unit.root)
    dataset = display_path(unit.root)
    again = partial(_batches, unit, decl, dataset)
    if not declaration_ok(decl, ctx):
        return _view(unit, decl, again)
    first = (
        batch
        for path, block, out in checking(unit, decl, ctx)
        if _shown(block)
        for batch in _batch(decl.name, dataset, display_path(path), out)
    )
    return _view(unit, decl, FirstPass(first, again))


def _view(unit: Unit, decl: Declaration, batches: Callable[[], Iterator[Batch]]) -> Judgments:
    def none() -> str | None:
        if decl.problems:
            return "its declaration has errors (humanjudge validate lists them)"
        if any(spec.type == "parquet" for spec in decl.files.values()) and not parquet_available():
            return NEEDS_PYARROW
        return "no record of its files gives a judgment"

    return Judgments(
        decl.name,
        display_path(unit.root),
        questions=questions(decl),
        files=tuple(unit.files),
        raters=_raters(decl),
        batches=batches,
        none=none,
    )


def _shown(block: Block) -> bool:
    """Whether a block's rows are in the view (a stored count or list of raters is no judgment)."""
    return block.kind == "judgments" or block.recompute in _KEPT


def _batches(unit: Unit, decl: Declaration, dataset: str) -> Iterator[Batch]:
    if decl.problems:
        return
    limit = discover(unit.root).max_document_bytes
    for role, spec in decl.files.items():
        blocks = [b for b in decl.blocks if b.file == role and _shown(b)]
        if not blocks:
            continue
        for path in files_of(unit, spec.name, spec.glob):
            file = display_path(path)
            mappers = [Mapper(decl, b) for b in blocks]
            for rows in read(path, spec, limit, None):
                for mapper in mappers:
                    yield from _batch(decl.name, dataset, file, mapper.feed(rows))
            for mapper in mappers:
                if mapper.block.combine is not None:
                    yield from _batch(decl.name, dataset, file, mapper.end())


def questions(decl: Declaration) -> dict[str, Question]:
    """Every question a block names, with its level and scale."""
    names: list[str] = [*decl.questions]
    for block in decl.blocks:
        names += [a.question for a in block.answers if isinstance(a.question, str)]
    out = {}
    for name in dict.fromkeys(names):
        spec = decl.question(name)
        parts: Parts | None = "select" if spec.multi else None
        out[name] = Question(
            name,
            spec.level,
            spec.values if parts is None else None,
            parts=parts,
            labels=spec.labels,
            shared=spec.shared,
            why=spec.why,
        )
    return out


def _raters(decl: Declaration) -> Any:
    kinds = {
        b.rater_kind
        for b in decl.blocks
        if b.kind == "judgments" and (b.rater is not None or any(a.rater is not None for a in b.answers))
    }
    if not kinds:
        return "none"
    return "person" if kinds == {"person"} else "position"


def _batch(fmt: str, dataset: str, file: str, mapped: Mapped) -> Iterator[Batch]:
    if not len(mapped):
        return
    if mapped.role == "aggregate" and any(isinstance(v, dict) for v in mapped.value):
        mapped = _spread(mapped)
    kind = mapped.rater_kind if mapped.role == "individual" else "none"
    same = {"format": fmt, "dataset": dataset, "file": file, "role": mapped.role, "rater_kind": kind}
    lists = {
        "item": mapped.item,
        "rater": mapped.rater,
        "question": mapped.question,
        "option": mapped.option,
        "value": mapped.value,
        "pointer": mapped.pointer,
        "line": mapped.line,
    }
    if mapped.role == "individual" and "" in mapped.rater:
        lists["rater_kind"] = ["none" if r == "" else kind for r in mapped.rater]
        del same["rater_kind"]
    yield Batch(same, lists)


def _spread(mapped: Mapped) -> Mapped:
    """A stored distribution as one row per answer (the answer as the option)."""
    out = Mapped(mapped.role, mapped.rater_kind, doc=mapped.doc)
    for item, rater, question, _option, value, ptr, line in zip(
        mapped.item,
        mapped.rater,
        mapped.question,
        mapped.option,
        mapped.value,
        mapped.pointer,
        mapped.line,
        strict=True,
    ):
        if isinstance(value, dict):
            for key, share in value.items():
                out.add(item, rater, question, key, share, f"{ptr}/{key}", line)
        else:
            out.add(item, rater, question, "", value, ptr, line)
    return out
