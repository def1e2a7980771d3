"""What is wrong with a declaration itself (scope "declaration": found as it is read, reported
before its data is), and the header codes the CSV reader reports for a declared file."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....registry import register, rule
from ..model import Said


def _said(said: Said, code: str) -> Iterator[Hit]:
    for found, ptr, message in said.problems:
        if found == code:
            yield said.doc, ptr, message


@rule(
    "declared/invalid-toml",
    "a declaration is not valid TOML",
    why="A declaration is read as TOML before anything else; text that is not TOML declares nothing.",
    bad='name = "ratings\n[files.ratings]',
    good='name = "ratings"\n[files.ratings]',
    scope="declaration",
)
def invalid_toml(said: Said) -> Iterator[Hit]:
    yield from _said(said, "declared/invalid-toml")


@rule(
    "declared/unknown-field",
    "a declaration names a field, file or key that is not there",
    why="Every name a declaration maps (an item, a rater, a value, a column template, a file's "
    "role, a key `@N`) is checked against the record schema of its file when the declaration is "
    "read: a misspelt name would otherwise map nothing, silently. The message names the closest "
    "real name.",
    bad='rater = "annotater_id"    # the record schema has annotator_id',
    good='rater = "annotator_id"',
    scope="declaration",
)
def unknown_field(said: Said) -> Iterator[Hit]:
    yield from _said(said, "declared/unknown-field")


@rule(
    "declared/record-schema",
    "a file's record schema cannot be read or is not a JSON Schema",
    why="The JSON Schema of one record is the single source of truth for a file's structure and "
    "the types of its CSV cells; without it nothing of the file can be checked.",
    bad='schema = "rating.schema.json"    # no such file beside the declaration',
    good='schema = "ratings.schema.json"',
    scope="declaration",
)
def record_schema(said: Said) -> Iterator[Hit]:
    yield from _said(said, "declared/record-schema")


@rule(
    "declared/name-taken",
    "a declaration names its format as an installed format is named",
    why="A format's name is its `--kind`, its configuration table and the prefix its rows are "
    "exported under: a declaration cannot take the name of a format installed as a plug-in or "
    "built in; it is checked on its own, as a declaration, until it is renamed.",
    bad='name = "halie"',
    good='name = "halie-survey"',
    scope="declaration",
)
def name_taken(said: Said) -> Iterator[Hit]:
    yield from _said(said, "declared/name-taken")


register(
    "declared/missing-column",
    "a column the record schema requires is missing from the header",
    why="A required column the header lacks is reported once, at the header, rather than as a "
    "missing value on every row.",
    bad="item,rater          (the record schema requires item, rater, label)",
    good="item,rater,label",
)
register(
    "declared/unknown-column",
    "a column the record schema does not have",
    why="Where the record schema allows no other columns (`additionalProperties = false`), a column "
    "it does not name is a typo or data the declaration does not describe; its cells are not read.",
    bad="item,rater,lable",
    good="item,rater,label",
)
