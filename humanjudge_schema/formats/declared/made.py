"""A format of each declaration in use: the shipped ones, then those the configuration names
and those found beside the data (catalog.declare), each a `catalog.Format` whose check, view and
recognition read its declaration."""

from __future__ import annotations

import functools
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
    """The formats of the shipped declarations and of these files, each declaration applying
    within its folder. One name may be declared for several folders (each reads its own, the
    nearest; a shipped one's where none is nearer), not twice for one (CatalogError)."""
    by_name: dict[str, list[tuple[Path | None, Declaration]]] = {}
    for path in shipped():
        decl = _load(path, "shipped with humanjudge-schema")
        by_name.setdefault(decl.name, []).append((None, decl))
    for path, within in declared:
        if not path.is_file():  # deleted since it was declared
            continue
        origin = (
            f"beside the data: {display_path(path)}" if path.name == BESIDE else f"declared in {display_path(path)}"
        )
        decl = _load(path, origin)
        entries = by_name.setdefault(decl.name, [])
        twice = next((d for scope, d in entries if scope == within and d.path != path), None)
        if twice is not None:
            raise CatalogError(f"{path}: declares the format {decl.name!r}, as {twice.path} does (rename one of them)")
        entries[:] = [(scope, d) for scope, d in entries if d.path != path] + [(within, decl)]
    DECLARATIONS.clear()
    DECLARATIONS.update(by_name)
    return [format_of(entries) for entries in by_name.values()]


def _load(path: Path, origin: str) -> Declaration:
    try:
        return _read(path, _stamp(path), origin)
    except DeclarationError as exc:
        raise CatalogError(str(exc)) from None


def format_of(entries: list[tuple[Path | None, Declaration]]) -> Format:
    """The catalog's format of a name's declarations: the files any of them names, each
    recognised by the declaration of its folder."""
    decl = entries[0][1]
    files: dict[str, DatasetFile] = {}
    for _, each in entries:
        for role, (name, glob, required) in each.names.items():
            if name in files:
                continue
            spec = each.files.get(role)
            flat = spec is None or spec.flat
            files[name] = DatasetFile(
                name,
                spec.schema if spec is not None else SCHEMA,
                "each row" if flat else "each record",
                required=required,
                without="nothing of the dataset could be checked" if required else None,
                claims=False,
                glob=glob,
                looks_like=functools.partial(recognised, decl.name, name),
            )
        if each.path.name == BESIDE:  # the declaration, and its record schemas, are part of the dataset
            for name in (BESIDE, *(n for n in each.schema_files if "/" not in n)):
                files.setdefault(name, DatasetFile(name, SCHEMA, "the whole file", claims=False, looks_like=_never))
    scopes = [scope for scope, _ in entries]
    return Format(
        name=decl.name,
        title=decl.title,
        intro=decl.description or f"A format declared in {decl.path.name}.",
        check="humanjudge_schema.formats.declared.check:check",
        judgments="humanjudge_schema.formats.declared.judgments:judgments",
        checked="humanjudge_schema.formats.declared.judgments:checked",
        files=tuple(files.values()),
        origin="; ".join(dict.fromkeys(d.origin for _, d in entries)),
        within=None if None in scopes else tuple(s for s in scopes if s is not None),
    )


def _never(path: Path) -> bool:
    return False
