"""A format of each declaration in use: the shipped ones, then those the configuration names
and those found beside the data (catalog.declare), each a `catalog.Format` whose check, view and
recognition read its declaration."""

from __future__ import annotations

import functools
from dataclasses import replace
from importlib import resources
from pathlib import Path

from ...catalog import CatalogError, DatasetFile, Format
from ...readers.files import display_path
from .declaration import SCHEMA, Declaration, DeclarationError, read
from .held import DECLARATIONS
from .recognise import recognised

BESIDE = "humanjudge-format.toml"


def shipped() -> list[Path]:
    """The declarations shipped with the package, for the public datasets they describe."""
    folder = Path(str(resources.files("humanjudge_schema.formats.declared"))) / "shipped"
    return sorted(folder.glob("*.toml"))


@functools.lru_cache(maxsize=256)
def _read(path: Path, stamp: tuple[int, int], origin: str) -> Declaration:
    return read(path, origin)


def _stamp(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except OSError:
        return (-1, -1)
    return (info.st_size, info.st_mtime_ns)


def declares(declared: tuple[tuple[Path, Path | None], ...]) -> list[Format]:
    """The formats of the shipped declarations and of these files, each claiming files within
    its folder. Two files declaring one name, a shipped one's included, are refused
    (CatalogError): the catalog holds a format by its name, for every folder."""
    made: dict[str, Declaration] = {}
    scope: dict[str, Path | None] = {}
    for path in shipped():
        decl = _load(path, "shipped with humanjudge-schema")
        made[decl.name] = decl
    given: dict[str, Path] = {name: decl.path for name, decl in made.items()}
    for path, within in declared:
        origin = (
            f"beside the data: {display_path(path)}" if path.name == BESIDE else f"declared in {display_path(path)}"
        )
        decl = _load(path, origin)
        if decl.name in given and given[decl.name] != path:
            raise CatalogError(
                f"{path}: declares the format {decl.name!r}, as {given[decl.name]} does (rename one of them)"
            )
        given[decl.name] = path
        made[decl.name] = decl
        scope[decl.name] = within
    DECLARATIONS.clear()
    DECLARATIONS.update(made)
    return [replace(format_of(d), within=scope.get(d.name)) for d in made.values()]


def _load(path: Path, origin: str) -> Declaration:
    try:
        return _read(path, _stamp(path), origin)
    except DeclarationError as exc:
        raise CatalogError(str(exc)) from None


def format_of(decl: Declaration) -> Format:
    """The catalog's format of a declaration."""
    files = []
    for role, (name, glob, required) in decl.names.items():
        spec = decl.files.get(role)
        flat = spec is None or spec.flat
        files.append(
            DatasetFile(
                name,
                spec.schema if spec is not None else SCHEMA,
                "each row" if flat else "each record",
                required=required,
                without="nothing of the dataset could be checked" if required else None,
                claims=False,
                glob=glob,
                looks_like=functools.partial(recognised, decl.name, role),
            )
        )
    if decl.path.name == BESIDE:  # the declaration, and its record schemas, are part of the dataset
        files.append(DatasetFile(BESIDE, SCHEMA, "the whole file", claims=False, looks_like=_never))
        for name in decl.schema_files:
            if "/" not in name:
                files.append(DatasetFile(name, SCHEMA, "the whole file", claims=False, looks_like=_never))
    return Format(
        name=decl.name,
        title=decl.title,
        intro=decl.description or f"A format declared in {decl.path.name}.",
        check="humanjudge_schema.formats.declared.check:check",
        judgments="humanjudge_schema.formats.declared.judgments:judgments",
        checked="humanjudge_schema.formats.declared.judgments:checked",
        files=tuple(files),
        origin=decl.origin,
    )


def _never(path: Path) -> bool:
    return False
