"""The datasets a card describes, each a part of it: one for a dataset's own card, several for a
repository's (`humanjudge card FOLDER`). Each part has its files' ids in the distribution (their
paths under the folder the card describes, so that two datasets' `dataset.json` stay two files),
the figures of its judgments (`Facts`), its layout's record sets (their ids under the dataset's
own in a repository's card, `roscoe-drop-overall.json/judgments`), and in a repository's card a
section of each computed RAI field, headed `dataset "<its path>":`, which `card --check` reads
back to compare each section with its dataset.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..judgments.view import Judgments
from ..kinds import Unit
from .facts import Facts
from .files import file_id
from .layouts import Layout, layout
from .rai import quoted, unquoted

__all__ = ["SECTION", "CardDataset", "part", "sections"]

# A section of a computed RAI field in a repository's card: the lines after it are its dataset's.
SECTION = re.compile(r'^dataset (?P<ds>"(?:[^"\\]|\\.)*"):$', re.MULTILINE)


@dataclass
class CardDataset:
    """One dataset of a card: `name` its path under the folder the card describes (None for a
    dataset's own card), `ids` each file's `@id` in the distribution."""

    name: str | None
    prefix: str  # what its record sets' ids begin with ("" in a dataset's own card)
    unit: Unit
    view: Judgments
    facts: Facts
    ids: dict[Path, str]
    shape: Layout

    def header(self) -> str:
        """The line that opens its section of a computed RAI field ("" in a dataset's own card)."""
        return "" if self.name is None else f"dataset {quoted(self.name)}:"


def part(unit: Unit, view: Judgments, folder: Path | None, *, samples: int, seed: int) -> CardDataset:
    """A dataset as a part of a card: of its own (`folder` None: its files named under its own
    folder) or of the repository under `folder`."""
    facts = Facts.of(view, samples=samples, seed=seed)
    ids = {path: file_id(path, folder if folder is not None else unit.root) for path in unit.files}
    shape = layout(unit, facts, ids)
    name, prefix = None, ""
    if folder is not None:
        name = file_id(unit.root, folder) if os.path.abspath(unit.root) != os.path.abspath(folder) else unit.root.name
        prefix = re.sub(r"[^A-Za-z0-9_./-]", "_", name) + "/"
        for rs in shape.record_sets:
            rs["@id"] = rs["name"] = prefix + rs["@id"]
            for f in rs["field"]:
                f["@id"] = prefix + f["@id"]
        shape.records = {prefix + k: n for k, n in shape.records.items()}
    return CardDataset(name, prefix, unit, view, facts, ids, shape)


def sections(text: str, parts: list[CardDataset]) -> list[tuple[CardDataset, int, int]]:
    """The stretches of a field's text that are each part's: the whole text for a dataset's own
    card, else the lines after each `dataset "<path>":` to the next (a section naming no dataset
    of the card is left out)."""
    if len(parts) == 1 and parts[0].name is None:
        return [(parts[0], 0, len(text))]
    by_name = {p.name: p for p in parts}
    heads = list(SECTION.finditer(text))
    out = []
    for k, head in enumerate(heads):
        try:
            found = by_name.get(unquoted(head["ds"]))
        except ValueError:  # an escape JSON has not
            continue
        end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
        if found is not None:
            out.append((found, head.end(), end))
    return out
