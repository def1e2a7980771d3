"""A format of each declaration in use: the shipped ones, then those the configuration names
and those found beside the data (catalog.declare), each a `catalog.Format` whose check, view and
recognition read its declaration.

Making the catalog reads no shipped declaration: what a format's entry needs of one (its name,
title and files: an `Outline`) is in `shipped/index.json`, taken for each declaration whose text
has the digest written there (one that has changed since is read). The declaration itself is
read when a file of its names is met, or its dataset is checked (held.py)."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ...catalog import CatalogError, DatasetFile, Format
from ...readers.files import display_path
from .held import DECLARATIONS, Held, load
from .names import SCHEMA, schema_name

if TYPE_CHECKING:
    from .declaration import Declaration

BESIDE = "humanjudge-format.toml"
SHIPPED = "shipped"
INDEX = "index.json"  # the shipped declarations' outlines (`index`), beside them


@dataclass(frozen=True)
class Outline:
    """What the catalog's entry of a format needs of its declaration: its names, and its files
    as (role, name, glob, required, type; None where the role's declaration is broken)."""

    name: str
    title: str
    description: str
    files: tuple[tuple[str, str, bool, bool, str | None], ...]
    schema_files: tuple[str, ...] = ()


def outline(decl: Declaration) -> Outline:
    files = []
    for role, (name, glob, required) in decl.names.items():
        spec = decl.files.get(role)
        files.append((role, name, glob, required, spec.type if spec is not None else None))
    return Outline(decl.name, decl.title, decl.description, tuple(files), tuple(decl.schema_files))


def shipped() -> list[Path]:
    """The declarations shipped with the package, for the public datasets they describe."""
    return sorted(_folder().glob("*.toml"))


def _folder() -> Path:
    return Path(str(resources.files("humanjudge_schema.formats.declared"))) / SHIPPED


def index(paths: list[Path]) -> dict[str, Any]:
    """The index of shipped declarations: each one's outline, with the digest of its text.
    `python -m humanjudge_schema.formats.declared.made` writes it anew."""
    out: dict[str, Any] = {}
    for path in paths:
        out[path.name] = {"sha1": hashlib.sha1(path.read_bytes()).hexdigest(), **asdict(outline(load(path)))}
    return out


def _indexed() -> dict[Path, Outline]:
    """The outlines of the shipped declarations whose text is the one indexed."""
    folder = _folder()
    try:
        written = orjson.loads((folder / INDEX).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    out = {}
    for path in shipped():
        entry = written.get(path.name)
        try:
            current = entry is not None and hashlib.sha1(path.read_bytes()).hexdigest() == entry["sha1"]
        except OSError:
            continue
        if current:
            files = tuple((r, n, bool(g), bool(q), t) for r, n, g, q, t in entry["files"])
            out[path] = Outline(
                entry["name"], entry["title"], entry["description"], files, tuple(entry["schema_files"])
            )
    return out


def declares(declared: tuple[tuple[Path, Path | None], ...]) -> list[Format]:
    """The formats of the shipped declarations and of these files, each declaration applying
    within its folder. One name may be declared for several folders (each reads its own, the
    nearest; a shipped one's where none is nearer), not twice for one (CatalogError)."""
    by_name: dict[str, list[Held]] = {}
    outlines = _indexed()
    for path in shipped():
        if path not in outlines:  # changed since the index was written
            outlines[path] = outline(_load(path))
        by_name.setdefault(outlines[path].name, []).append(Held(path, "shipped with humanjudge-schema"))
    for path, within in declared:
        if not path.is_file():  # deleted since it was declared
            continue
        origin = (
            f"beside the data: {display_path(path)}" if path.name == BESIDE else f"declared in {display_path(path)}"
        )
        outlines[path] = outline(_load(path))
        entries = by_name.setdefault(outlines[path].name, [])
        twice = next((held for held in entries if held.path != path and overlap(held.within, within)), None)
        if twice is not None:
            raise CatalogError(f"{path}: {taken(outlines[path].name, twice)}")
        entries[:] = [held for held in entries if held.path != path] + [Held(path, origin, within)]
    DECLARATIONS.clear()
    DECLARATIONS.update(by_name)
    return [format_of([(held, outlines[held.path]) for held in entries]) for entries in by_name.values()]


def overlap(one: Path | None, other: Path | None) -> bool:
    """Whether two declarations' folders (None: every folder) share a file. One name is
    declared for folders apart (two versions of a dataset), never for one inside another: a
    nearer declaration would replace the farther one's checks, and a pull request could add a
    lax one beside the data it breaks."""
    if one is None or other is None:
        return True
    return one == other or one in other.parents or other in one.parents


def taken(name: str, held: Held) -> str:
    """Why a declaration may not take a name that another declares where it applies."""
    if held.within is None:
        return f"declares the format {name!r}, which {held.path.name} ({held.origin}) declares: rename this one"
    return (
        f"declares the format {name!r}, as {display_path(held.path)} does for {display_path(held.within)}/, "
        "a folder that holds or is within this one's: rename one of them"
    )


def _load(path: Path) -> Declaration:
    from .declaration import DeclarationError

    try:
        return load(path)
    except DeclarationError as exc:
        raise CatalogError(str(exc)) from None


def format_of(entries: list[tuple[Held, Outline]]) -> Format:
    """The catalog's format of a name's declarations: the files any of them names, each
    recognised by the declaration of its folder."""
    first = entries[0][1]
    files: dict[str, DatasetFile] = {}
    for held, each in entries:
        for role, name, glob, required, kind in each.files:
            if name in files:
                continue
            files[name] = DatasetFile(
                name,
                schema_name(each.name, role, held.path) if kind is not None else SCHEMA,
                "each row" if kind in (None, "csv", "tsv", "parquet") else "each record",
                required=required,
                without="nothing of the dataset could be checked" if required else None,
                claims=False,
                glob=glob,
                looks_like=functools.partial(_recognised, each.name, name),
            )
        if held.path.name == BESIDE:  # the declaration, and its record schemas, are part of the dataset
            for name in (BESIDE, *(n for n in each.schema_files if "/" not in n)):
                files.setdefault(name, DatasetFile(name, SCHEMA, "the whole file", claims=False, looks_like=_never))
    scopes = [held.within for held, _ in entries]
    return Format(
        name=first.name,
        title=first.title,
        intro=first.description or f"A format declared in {entries[0][0].path.name}.",
        check="humanjudge_schema.formats.declared.check:check",
        judgments="humanjudge_schema.formats.declared.judgments:judgments",
        checked="humanjudge_schema.formats.declared.judgments:checked",
        card="humanjudge_schema.formats.declared.card:describe",
        files=tuple(files.values()),
        origin="; ".join(dict.fromkeys(held.origin for held, _ in entries)),
        within=None if None in scopes else tuple(s for s in scopes if s is not None),
    )


def _recognised(name: str, file: str, path: Path) -> bool:
    from .recognise import recognised

    return recognised(name, file, path)


def _never(path: Path) -> bool:
    return False


if __name__ == "__main__":  # the shipped index written anew
    (_folder() / INDEX).write_bytes(orjson.dumps(index(shipped()), option=orjson.OPT_INDENT_2) + b"\n")
