"""Formats declared in a TOML file, with no Python: the `declared` format is the declarations
themselves (a `.toml` file that says `declaration = 1`, checked against its schema and its
record schemas), and it makes a format of every declaration in use (`declares`): those shipped
with the package (`shipped/`), those the configuration names (`formats = [...]`) and a
`humanjudge-format.toml` beside the data."""

from __future__ import annotations

import re
from pathlib import Path

from ...catalog import Format, OneFile

_DECLARES = re.compile(rb"(?m)^[ \t]*declaration[ \t]*=[ \t]*[0-9]")


def looks_like(data: bytes) -> bool | None:
    """Whether a `.toml` file is a declaration: it says which version of them it is written for."""
    return _DECLARES.search(data) is not None


def beside(path: Path) -> tuple[str, ...]:
    """The files beside a declaration that it declares: checked with it, as its dataset."""
    from .check import declared_beside

    found: tuple[str, ...] = declared_beside(path)
    return found


FORMAT = Format(
    name="declared",
    title="Format declarations",
    intro="A format declared in a TOML file, with no Python: the files of a dataset and the JSON Schema "
    "of one record of each, where the judgments are in the records, which stored values recompute "
    "from them and which other rules hold ([declared formats](../declared-formats.md)). A declaration is "
    "checked against its own schema, and every name it maps against its record schemas; each "
    "declaration in use is a format of its own (`humanjudge formats` lists them).",
    check="humanjudge_schema.formats.declared.check:check_declaration",
    one_file=OneFile(
        ".toml",
        "declared/v1/declaration",
        looks_like,
        "a declaration `.toml` file",
        "TOML that is not a declaration",
        companions=beside,
    ),
    declares="humanjudge_schema.formats.declared.made:declares",
    near="humanjudge_schema.formats.declared.near:near",
    declaration="humanjudge-format.toml",
    commands=("humanjudge_schema.formats.declared.command:declare",),
)
