"""The declarations behind the catalog's declared formats, by format name: one for every
folder (a shipped one), or one per folder it applies within (beside the data, or named by a
configuration), so that two versions of a dataset, each with its declaration (`diff` of two
folders, or of a commit), are read each by its own. made.py fills it.

A declaration is read when it is first needed (a shipped one when a file of its names is met or
its dataset is checked, not when the catalog is made), and once for each version of its file:
the catalog, the check of the dataset and the check of the declaration on its own share it."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...catalog import stamp

if TYPE_CHECKING:
    from .declaration import Declaration


@dataclass(frozen=True)
class Held:
    """A declaration file in use: where it comes from, and the folder it applies within (None:
    every folder)."""

    path: Path
    origin: str
    within: Path | None = None

    def read(self) -> Declaration:
        return load(self.path)


# name -> the declarations of that name, each with the folder it applies within
DECLARATIONS: dict[str, list[Held]] = {}


def load(path: Path) -> Declaration:
    """The declaration in a file, read once for each version (size and time of change) of the
    file. Raises DeclarationError where the file cannot be a format. What is read is shared:
    nothing may change it."""
    path = path.resolve()
    return _read(path, stamp(path))


@functools.lru_cache(maxsize=256)
def _read(path: Path, version: tuple[int, int]) -> Declaration:
    from .declaration import read

    return read(path)


def declaration(name: str, where: Path | None = None) -> Declaration:
    """The declaration of a format for a file or folder: the one of the nearest folder that
    holds it, else the one for every folder (KeyError for a name the catalog has not)."""
    found = DECLARATIONS.get(name)
    if found is None:
        from ... import catalog

        catalog.formats()  # a worker process started anew makes its formats first
        found = DECLARATIONS[name]
    return nearest(found, where).read()


def nearest(entries: list[Held], where: Path | None) -> Held:
    if where is not None and len(entries) > 1:
        at = where.resolve()
        holding = [held for held in entries if held.within is not None and _within(at, held.within)]
        if holding:
            return max(holding, key=lambda held: len(str(held.within)))
    return next((held for held in entries if held.within is None), entries[0])


def _within(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True
