"""The declarations behind the catalog's declared formats, by format name: one for every
folder (a shipped one), or one per folder it applies within (beside the data, or named by a
configuration), so that two versions of a dataset, each with its declaration (`diff` of two
folders, or of a commit), are read each by its own. made.py fills it."""

from __future__ import annotations

from pathlib import Path

from .declaration import Declaration

# name -> [(the folder it applies within, or None for every folder; the declaration)]
DECLARATIONS: dict[str, list[tuple[Path | None, Declaration]]] = {}


def declaration(name: str, where: Path | None = None) -> Declaration:
    """The declaration of a format for a file or folder: the one of the nearest folder that
    holds it, else the one for every folder (KeyError for a name the catalog has not)."""
    found = DECLARATIONS.get(name)
    if found is None:
        from ... import catalog

        catalog.formats()  # a worker process started anew makes its formats first
        found = DECLARATIONS[name]
    return nearest(found, where)


def nearest(entries: list[tuple[Path | None, Declaration]], where: Path | None) -> Declaration:
    if where is not None and len(entries) > 1:
        at = where.resolve()
        holding = [(scope, decl) for scope, decl in entries if scope is not None and _within(at, scope)]
        if holding:
            return max(holding, key=lambda entry: len(str(entry[0])))[1]
    return next((decl for scope, decl in entries if scope is None), entries[0][1])


def _within(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True
