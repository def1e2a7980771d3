"""The declarations behind the catalog's declared formats, by format name (made.py fills it)."""

from __future__ import annotations

from .declaration import Declaration

DECLARATIONS: dict[str, Declaration] = {}


def declaration(name: str) -> Declaration:
    """The declaration of a format the catalog holds (KeyError for another name)."""
    found = DECLARATIONS.get(name)
    if found is None:
        from ... import catalog

        catalog.formats()  # a worker process started anew makes its formats first
        found = DECLARATIONS[name]
    return found
