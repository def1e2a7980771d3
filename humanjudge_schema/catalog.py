"""The formats humanjudge knows: one declaration each, found through the package entry-point group
`humanjudge_schema.formats`. The built-in formats register themselves there exactly as a plug-in
in another package does, and everything that depends on the set of formats (recognising files,
`--kind`, configuration keys, missing companions, the Action's file filter, the pre-commit
patterns, the docs) reads it from here.

A declaration is data and costs nothing to load: the module that checks a format is imported
only when a dataset of that format is checked or its rules are listed.
"""

from __future__ import annotations

import fnmatch
import functools
import importlib
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

GROUP = "humanjudge_schema.formats"


class CatalogError(RuntimeError):
    """The installed formats cannot be used (none registered, two with one name, not a Format)."""


@dataclass(frozen=True)
class DatasetFile:
    """A file of fixed name in a format's dataset folder."""

    name: str
    schema: str  # the schema name, `*` standing for a part the content decides ("halie/v1/*/accuracies")
    scope: str  # what of the file one schema check covers: "the whole file", "each line", "each row"
    required: bool = False
    # What is not checked when the file is absent; None: its absence says nothing.
    without: str | None = None
    # Whether the name alone claims a folder for the format (config.json is too common a name).
    claims: bool = True
    # Whether `name` is a glob (`ratings/*.csv` has none: a glob names files of one folder).
    glob: bool = False
    # Given the file, whether what it holds claims the folder for the format, where its name alone
    # does not; None: a JSON object with every top-level key its schema requires does.
    looks_like: Callable[[Path], bool] | None = None

    def matches(self, name: str) -> bool:
        """Whether a file of this name is this file of the format."""
        return name == self.name or (self.glob and fnmatch.fnmatchcase(name, self.name))


@dataclass(frozen=True)
class OneFile:
    """A format whose every matching file is a dataset on its own (TextJudge)."""

    suffix: str
    schema: str
    # Given a file's first bytes (64 KiB, or the whole file if shorter): is it a dataset of the
    # format? None: they do not tell, and a walk reads sixteen times as many, up to 512 MiB (the
    # max-document-bytes default); None at the end of the file, or there, is no.
    looks_like: Callable[[bytes], bool | None]
    description: str  # of the file, for the docs: "a dataset `.json` file"
    not_one: str  # why a walk leaves out a file of the suffix: "JSON that is not a TextJudge dataset"
    # Given a dataset file, the names of the files beside it that are part of its dataset (a
    # declaration's data files); None: a dataset is its one file.
    companions: Callable[[Path], tuple[str, ...]] | None = None


@dataclass(frozen=True)
class Option:
    """A key of the format's table in the configuration (`[tool.humanjudge.<format>]`)."""

    key: str
    kind: type | tuple[type, ...]
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Aggregation:
    """How `humanjudge aggregate` recomputes the aggregates a format's datasets store.

    `function` is "package.module:function", called as function(path, check=..., output=...,
    plus each of `flags` the user gave) and returning (message, exit code); it raises
    aggregate.AggregateError or writing.WriteError for what cannot be done."""

    function: str
    what: str  # the input, as "not ... or ..." names it: "a CogGym experiment folder"
    plural: str  # the inputs, as "--force is for ..." names them: "CogGym experiments"
    folder: bool  # whether the input is a folder (else a file of the format's one-file suffix)
    flags: tuple[str, ...] = ()  # the options beyond --check and -o it takes: "force", "in_place"

    def call(self, path: Path, **options: Any) -> tuple[str, int]:
        done: tuple[str, int] = load(self.function)(path, **options)
        return done


@dataclass(frozen=True)
class Format:
    """One format: its name, its files, how its datasets are checked, its options and its docs."""

    name: str
    title: str
    intro: str  # the docs' opening paragraph of the format's page
    check: str  # "package.module:function", called as function(unit, ctx)
    files: tuple[DatasetFile, ...] = ()
    one_file: OneFile | None = None
    options: tuple[Option, ...] = field(default=())
    # "package:folder" holding <name>/v<N>/*.schema.json, for a format that brings its own
    # schemas; None: the schemas shipped with humanjudge-schema.
    schemas: str | None = None
    aggregation: Aggregation | None = None
    # Commands of this format alone, as "package.module:attribute" naming a click command; the
    # command line offers them beside the built-in ones (the TextJudge format's `render`).
    commands: tuple[str, ...] = ()
    # "package.module:function" reading a dataset's individual judgments, called as
    # function(unit) and returning a judgments.view.Judgments; None: the format has none to show.
    judgments: str | None = None
    # "package.module:function" that checks a dataset and reads its judgments in one reading of
    # its files, called as function(unit, ctx): it reports into ctx what `check` reports and
    # returns the view `judgments` returns, read from what the check parsed (a check that reads
    # a large file in pieces goes on as the view's first pass over its batches does:
    # judgments.view.FirstPass). None: the check runs, then the view reads the files again.
    checked: str | None = None
    # "package.module:function" saying what a dataset's Croissant card says that its files know
    # (card/layouts.py), called as function(unit, ids), `ids` each data file's `@id` in the card's
    # distribution, and returning a dict of: "metadata" (name, description, url, ... where known),
    # "recordSet" (cr:RecordSet objects reading the files, each source naming a file by its @id),
    # "records" (a record set's @id -> the number of records its description states), "files"
    # (a file's @id -> what its FileObject says beyond size and hash: encodingFormat,
    # description), "judgments" (record sets of one question's judgments to make, each a dict of
    # "question", "role", "stored" (what the stored aggregates' pointers end with, or None),
    # "file" (its path) and "sources" (a Croissant source for "item", "rater" and "value")) and
    # "note" (where the judgments are, when no record set reads them). Each key may be left out.
    # None: the card has the files, the figures of the judgments and placeholders.
    card: str | None = None
    # "package.module:function" making formats of declaration files, called as
    # function(declared) with every declaration file in use (`declare`), as (path, the folder
    # it applies within, or None), and returning Formats: a plug-in whose formats are data
    # (formats/declared). None: the format declares no others.
    declares: str | None = None
    # The name of a declaration file beside the data, found as configuration is (`declares`).
    declaration: str | None = None
    # "package.module:function" called as function(paths) before paths are surveyed: it makes
    # known (`declare`) the formats declared near them (in their configuration, beside them).
    near: str | None = None
    # Where the format comes from, as `humanjudge formats` says it ("built in", a plug-in's entry
    # point, a declaration file); the catalog fills it in for a format of an entry point.
    origin: str = ""
    # The format whose `declares` made this one; None for a format of an entry point.
    declared_by: str | None = None
    # The folders whose files alone the format may claim (where a declaration beside the data
    # sits, or the configuration that names it); None: any folder.
    within: tuple[Path, ...] | None = None

    def applies(self, folder: Path) -> bool:
        """Whether the format may claim files of this folder."""
        if self.within is None:
            return True
        at = folder.resolve()
        return any(at == w or w in at.parents for w in self.within)

    @property
    def module(self) -> str:
        """The module whose import registers the format's rules."""
        return self.check.partition(":")[0]

    # The unit is a kinds.Unit and the context an engine.Context: the catalog, which the whole
    # core reads, imports nothing of it.
    def run(self, unit: Any, ctx: Any) -> None:
        load(self.check)(unit, ctx)

    def view(self, unit: Any) -> Any:
        """The unit's judgments (see `judgments`); None when the format declares no view."""
        return None if self.judgments is None else load(self.judgments)(unit)

    def checked_view(self, unit: Any, ctx: Any) -> Any:
        """The unit checked into ctx and its judgments, in one reading (see `checked`)."""
        if self.checked is None:
            raise ValueError(f"the {self.name} format reads its judgments apart from its check")
        return load(self.checked)(unit, ctx)

    def file(self, name: str) -> DatasetFile | None:
        return next((f for f in self.files if f.matches(name)), None)

    def claims(self, name: str) -> bool:
        """Whether a file name alone claims a folder for the format."""
        f = self.file(name)
        return f is not None and f.claims

    def option(self, key: str) -> Option | None:
        return next((o for o in self.options if o.key == key), None)

    def describes(self, schema: str) -> tuple[str, str] | None:
        """(the file, what of it) a schema of this format validates, for the docs."""
        for f in self.files:
            if fnmatch.fnmatchcase(schema, f.schema):
                task = schema.split("/")[2] if "*" in f.schema else ""
                return f"`{f.name}`" + (f" of a {task} folder" if task else ""), f.scope
        if self.one_file is not None and fnmatch.fnmatchcase(schema, self.one_file.schema):
            return self.one_file.description, "the whole file"
        return None


@functools.cache
def formats() -> dict[str, Format]:
    """Every registered format by name, in name order."""
    found: dict[str, Format] = {}
    for name, value in entry_points(GROUP):
        try:
            declared = load(value)
        except Exception as exc:  # a plug-in that does not import names itself, not a traceback
            raise CatalogError(f"the format {name!r} ({value}) cannot be loaded: {exc!r}") from None
        if not isinstance(declared, Format):
            raise CatalogError(f"entry point {name} = {value!r} of group {GROUP} is not a Format")
        if declared.name != name:
            raise CatalogError(f"entry point {name!r} declares a format named {declared.name!r}")
        if declared.name in found and replace(found[declared.name], origin=declared.origin) != declared:
            raise CatalogError(f"two formats are named {declared.name!r}")
        origin = "built in" if value.startswith("humanjudge_schema.") else f"plug-in {value}"
        found[declared.name] = declared if declared.origin else replace(declared, origin=origin)
    if not found:
        raise CatalogError(f"no format is registered in the entry-point group {GROUP}: reinstall humanjudge-schema")
    for maker in [f for f in found.values() if f.declares is not None]:
        assert maker.declares is not None
        try:
            made = list(load(maker.declares)(tuple((path, within) for path, (_, within) in _DECLARED.items())))
        except CatalogError:
            raise
        except Exception as exc:  # a plug-in's bug names the plug-in, not a traceback
            raise CatalogError(f"the format {maker.name!r} cannot make its declared formats: {exc!r}") from None
        for fmt in made:
            if fmt.name in found and found[fmt.name].declared_by is None:
                raise CatalogError(f"{fmt.origin}: the format {fmt.name!r} is an installed format's name")
            found[fmt.name] = replace(fmt, declared_by=maker.name)
    return dict(sorted(found.items()))


# The declaration files in use (configuration's `formats`, files beside the data), each with the
# size and time of change it was read at (a file changed since is read again) and the folder its
# format applies within.
_DECLARED: dict[Path, tuple[tuple[int, int], Path | None]] = {}


def stamp(path: Path) -> tuple[int, int]:
    """A file's size and time of change: a file whose stamp changed is read again."""
    try:
        info = path.stat()
    except OSError:
        return (-1, -1)
    return (info.st_size, info.st_mtime_ns)


def declare(paths: Iterable[Path], within: Path | None = None) -> None:
    """Make the formats of these declaration files known (to every plug-in that `declares`
    formats), beside those already declared, each claiming files only within a folder (None:
    anywhere). Raises CatalogError, naming the file, for a declaration that cannot be a format;
    the catalog is then as it was."""
    scope = None if within is None else within.resolve()
    new = {p.resolve(): (stamp(p), scope) for p in paths}
    for gone in [p for p in _DECLARED if not p.is_file()]:  # a declaration deleted since (a temporary folder)
        del _DECLARED[gone]
    changed = {p: s for p, s in new.items() if _DECLARED.get(p) != s}
    if not changed:
        return
    before = dict(_DECLARED)
    _DECLARED.update(changed)
    formats.cache_clear()
    try:
        formats()
    except CatalogError:
        _DECLARED.clear()
        _DECLARED.update(before)
        formats.cache_clear()
        raise


def declared_near(paths: Iterable[Path]) -> None:
    """Make known the formats declared near these paths, by each format that finds them."""
    paths = list(paths)
    for fmt in [f for f in formats().values() if f.near is not None]:
        assert fmt.near is not None
        load(fmt.near)(paths)


def declaration_names() -> frozenset[str]:
    """The names of declaration files beside data, which a walk reads as it meets them."""
    return frozenset(f.declaration for f in formats().values() if f.declaration is not None)


def entry_points(group: str) -> list[tuple[str, str]]:
    """(name, value) of every entry point of a group, as importlib.metadata finds them: in the
    entry_points.txt of each distribution on sys.path, the first distribution of a name winning.

    Read here because importing importlib.metadata costs 15 ms, a tenth of checking a small
    dataset and paid by every pre-commit run, for a few lines of text. A path entry that is not a
    folder (a zip file) is left to importlib.metadata, which reads those too."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for entry in sys.path:
        folder = entry or "."
        if not os.path.isdir(folder):
            if os.path.exists(folder):
                from importlib.metadata import entry_points as from_metadata

                return [(p.name, p.value) for p in from_metadata(group=group)]
            continue
        try:
            children = sorted(os.listdir(folder))
        except OSError:
            continue
        for child in children:
            if not child.endswith((".dist-info", ".egg-info")):
                continue
            dist = re.sub(r"[-_.]+", "_", child.rpartition(".")[0].split("-")[0]).lower()
            text = _text(os.path.join(folder, child, "entry_points.txt"))
            if dist in seen or text is None:
                continue
            seen.add(dist)
            found += _section(text, group)
    return found


def _text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _section(text: str, group: str) -> list[tuple[str, str]]:
    """The `name = value` lines of one [group] of an entry_points.txt."""
    out = []
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
        elif current == group and "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out


def load(value: str) -> Any:
    """The object a "package.module:attribute" names (an entry point's extras in [] ignored):
    what a declaration names for its check, view, aggregation and commands."""
    module, _, attribute = value.partition("[")[0].strip().partition(":")
    obj = importlib.import_module(module.strip())
    for part in filter(None, attribute.strip().split(".")):
        obj = getattr(obj, part)
    return obj


def names() -> tuple[str, ...]:
    return tuple(formats())


def get(name: str) -> Format:
    return formats()[name]


def file_pattern() -> str:
    """A regular expression for the paths that may belong to a dataset of any format: every fixed
    file name and every one-file suffix. The Action filters a pull request's files with it and
    .pre-commit-hooks.yaml uses it as its `files` pattern (a test keeps them equal)."""
    every = [f for fmt in formats().values() for f in fmt.files]
    fixed = sorted({re.escape(f.name) for f in every if not f.glob and not _covered(f.name)})
    fixed += sorted({_glob_pattern(f.name) for f in every if f.glob})
    suffixes = sorted({fmt.one_file.suffix for fmt in formats().values() if fmt.one_file is not None})
    parts = [r"(^|/)(" + "|".join(fixed) + r")$"] if fixed else []
    parts += [re.escape(s) + "$" for s in suffixes]
    return "|".join(parts)


def _glob_pattern(glob: str) -> str:
    """A file-name glob (`*`, `?`) as a regular expression of the name, within one folder."""
    return "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in glob)


def _covered(name: str) -> bool:
    """Whether a one-file format's suffix already matches the name (config.json under .json)."""
    return any(fmt.one_file is not None and name.endswith(fmt.one_file.suffix) for fmt in formats().values())
