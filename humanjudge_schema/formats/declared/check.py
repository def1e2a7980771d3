"""The check of a declared dataset: its declaration's problems first (a declaration with any
says nothing reliable of the data, which is then not read), then every file of each role read
against its record schema, the blocks mapping its rows as they come, and the rules over what the
model gathered. The check of a declaration file on its own (`humanjudge validate x.toml`) is
the first step alone."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from ...engine import Context
from ...kinds import Unit
from ...readers.parquetfile import NEEDS_PYARROW
from ...readers.parquetfile import available as parquet_available
from ...registry import rules_of
from . import rules as _rules  # noqa: F401  (registers the declared/ rules)
from .declaration import Block, Declaration, DeclarationError, FileSpec, closest
from .held import DECLARATIONS, declaration, load
from .made import BESIDE, overlap
from .made import taken as made_taken
from .mapping import Mapped
from .model import Model, Said
from .records import ReadCompleteness
from .records import read as read_records
from .toml import TomlDocument

_AT_LINE = re.compile(r"\(at line ([0-9]+), column ([0-9]+)\)")


def check(unit: Unit, ctx: Context) -> None:
    decl = declaration(unit.family, unit.root)
    if declaration_ok(decl, ctx):
        _check_data(unit, decl, ctx)


def _check_data(unit: Unit, decl: Declaration, ctx: Context) -> None:
    for _ in checking(unit, decl, ctx, lines=False):
        pass


# What a block made of a piece of a file: (the file, the block, its judgments)
Piece = tuple[Path, Block, Mapped]


def checking(unit: Unit, decl: Declaration, ctx: Context, lines: bool = True) -> Iterator[Piece]:
    """Every file of the dataset read once into the model the rules read, each block's
    judgments of each piece handed on as they are made (the view's first pass is made of them:
    judgments.checked); the rules run over the model after the last."""
    model = Model(decl, TomlDocument(decl.path, decl.text), ctx.config.tolerance)
    unread: list[Path] = []  # Parquet files, where pyarrow is not installed to read them
    for role, spec in decl.files.items():
        paths = files_of(unit, spec.name, spec.glob)
        if not paths or (spec.type == "parquet" and not parquet_available()):
            model.unread.add(role)
            if paths:
                unread += paths
                continue
        for path in paths:
            mappers = model.mappers(role, lines)
            reading = ReadCompleteness()
            for rows in read_records(path, spec, ctx.config.max_document_bytes, ctx, reading):
                for block, out in model.take(role, rows, mappers):
                    yield path, block, out
            for block, out in model.end(mappers):
                yield path, block, out
            if not reading.complete:
                model.unread.add(role)
    if unread:  # one finding for the dataset, not one a file
        more = f" ({len(unread) - 1} more Parquet files of the dataset not read)" if len(unread) > 1 else ""
        ctx.add("parse/unreadable", unread[0], "", NEEDS_PYARROW + more)
    for rule in rules_of("declared", "dataset"):
        ctx.run(rule, model)


def files_of(unit: Unit, name: str, glob: bool) -> list[Path]:
    """The unit's files of one role, in name order."""
    return sorted((f for f in unit.files if _named(f.name, name, glob)), key=str)


def _named(found: str, name: str, glob: bool) -> bool:
    return found == name or (glob and fnmatchcase(found, name))


def declaration_ok(decl: Declaration, ctx: Context, more: Sequence[tuple[str, str, str]] = ()) -> bool:
    """Report a declaration's problems (and `more` of them, found beyond it); whether it has none."""
    doc = TomlDocument(decl.path, decl.text)
    ctx.parsed(doc)
    problems = [*decl.problems, *more]
    _said(Said(doc, problems), ctx)
    return not problems


def _said(said: Said, ctx: Context) -> None:
    """A declaration's problems: its schema's errors as the engine reports any, and the rest by
    the rules of scope "declaration"."""
    for code, ptr, message in said.problems:
        if code.startswith("schema/"):
            ctx.add(code, said.doc, ptr, message)
    for rule in rules_of("declared", "declaration"):
        ctx.run(rule, said)


@dataclass
class _At:
    """Where a TOML syntax error is, for every pointer."""

    path: Path
    line: int | None
    column: int | None

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int | None]]:
        return {} if self.line is None else {p: (self.line, self.column) for p in pointers}


def check_declaration(unit: Unit, ctx: Context) -> None:
    """A declaration file on its own: its TOML, its schema, and its names against the record
    schemas it gives; then the files it declares that sit beside it, as their dataset
    (`--kind declared` on a folder checks each declaration with its data). A file it requires
    that is not there is a finding where there is a dataset (files beside it), and where the
    declaration is the one beside the data (humanjudge-format.toml) and names no file in its
    folder or below: a misspelt name or a glob that matches nothing never passes unseen."""
    path = unit.root
    try:
        decl = load(path)
    except DeclarationError as exc:
        message = str(exc).removeprefix(f"{path.resolve()}: ").removeprefix(f"{path}: ")
        at = _AT_LINE.search(message)
        line, column = (int(at.group(1)), int(at.group(2))) if at else (None, None)
        if "names its format" in message:
            _said(Said(_At(path, 1, 1), [("schema/required", "", message)]), ctx)
        else:
            _said(Said(_At(path, line, column), [("declared/invalid-toml", "", message)]), ctx)
        return
    from ... import catalog

    taken = catalog.formats().get(decl.name)
    more = []
    if taken is not None and taken.declared_by is None:
        message = f"{decl.name!r} is the name of an installed format ({taken.origin}): rename the declaration's format"
        more.append(("declared/name-taken", "/name", message))
    elif taken is not None and path.name == BESIDE:
        here = path.parent.resolve()
        other = next(
            (h for h in DECLARATIONS.get(decl.name, ()) if h.path != path.resolve() and overlap(h.within, here)), None
        )
        if other is not None:
            more.append(("declared/name-taken", "/name", f"this file {made_taken(decl.name, other)}"))
    if not declaration_ok(decl, ctx, more):
        return
    files = tuple(f for f in unit.files if f != path)
    if files or path.name == BESIDE:
        _absent(decl, files, ctx)
    if files:
        _check_data(Unit(decl.name, path.parent, files), decl, ctx)


def _absent(decl: Declaration, files: tuple[Path, ...], ctx: Context) -> None:
    """The files a declaration requires that its dataset lacks: those not beside it where some
    are, else (a declaration beside the data with nothing of its dataset beside it: the datasets
    may be in folders below) those of which no file is there or below."""
    below = not files
    # nothing of a dataset is no dataset: where none is beside the declaration, its files are
    # wanted, optional or not, when it requires none
    wanted = {role: spec for role, spec in decl.files.items() if spec.required} or (decl.files if below else {})
    if not wanted:
        return
    names = sorted(f.name for f in files)
    folder = decl.path.parent
    if below:
        names = _names(folder)
        found = _found_below(folder, wanted)
    else:
        found = {role for role, spec in wanted.items() if any(_named(n, spec.name, spec.glob) for n in names)}
    doc = TomlDocument(decl.path, decl.text)
    for role, spec in wanted.items():
        if role in found:
            continue
        key = "glob" if spec.glob else "name"
        where = f"{folder.name or folder}/" + (" or in a folder below it" if below else "")
        said = "no file matches" if spec.glob else "there is no file"
        ctx.add(
            "dataset/missing-file",
            doc,
            f"/files/{role}/{key}",
            f"{said} {spec.name!r} in {where}: files.{role} names nothing of the dataset, "
            f"which cannot be checked{closest(spec.name, names)}",
        )


def _names(folder: Path) -> list[str]:
    try:
        return sorted(e.name for e in os.scandir(folder) if e.is_file() and e.name != BESIDE)
    except OSError:
        return []


def _found_below(folder: Path, wanted: dict[str, FileSpec]) -> set[str]:
    """The roles of which a file is in the folder or a folder below it (hidden ones aside); the
    walk ends once each has one."""
    found: set[str] = set()
    for _, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found |= {role for role, spec in wanted.items() if any(_named(n, spec.name, spec.glob) for n in names)}
        if len(found) == len(wanted):
            break
    return found


def declared_beside(path: Path) -> tuple[str, ...]:
    """The names of the files beside a declaration file that it declares (none where it cannot
    be read: its check says why)."""
    try:
        decl = load(path)
        names = sorted(p.name for p in path.parent.iterdir() if p.is_file())
    except (DeclarationError, OSError):
        return ()
    return tuple(n for spec in decl.files.values() for n in names if _named(n, spec.name, spec.glob))
