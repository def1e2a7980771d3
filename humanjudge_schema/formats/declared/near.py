"""The declarations that apply where some paths are, found as configuration is: the formats the
configuration names (`formats = [...]`, made known as it is read), and the nearest declaration
file at or above each path (`humanjudge-format.toml`). A walk reads those it meets below
(kinds.py)."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from ... import catalog
from ...config import ConfigError, FormatsError, discover
from .made import BESIDE


def near(paths: Iterable[Path]) -> None:
    """Make known the formats declared where the paths are. Raises ConfigError (FormatsError)
    for a declaration the configuration names that cannot be a format."""
    looked: set[Path] = set()
    for path in paths:
        start = path.resolve()
        folder = start if start.is_dir() else start.parent
        if folder in looked:
            continue
        looked.add(folder)
        # Its `formats` are declared as it is read; a declaration they name that cannot be a
        # format stops the run (FormatsError). Any other error is said by whatever reads the
        # configuration for its settings (or by nothing where a run is given one: the Action
        # checks a pull request with its base's).
        try:
            discover(folder)
        except FormatsError:
            raise
        except ConfigError:
            pass
        found = _nearest(folder)
        if found is not None:
            # One that cannot be a format is a dataset of its own, which a walk reports (kinds.py).
            with suppress(catalog.CatalogError):
                catalog.declare([found], within=found.parent)


def _nearest(folder: Path) -> Path | None:
    for at in (folder, *folder.parents):
        if (at / BESIDE).is_file():
            return at / BESIDE
    return None
