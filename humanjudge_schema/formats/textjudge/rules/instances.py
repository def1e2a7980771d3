"""Instance ids, the ids few-shot examples name, and the types of instance fields."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....engine import Hit
from ....finding import pointer
from ....registry import rule
from ..model import DatasetFacts


@rule(
    "textjudge/duplicate-id",
    "instance ids are unique",
    why="Results, few-shot exclusions (`fsp_examples_id`) and model answers are matched to "
    "instances by id; with two instances of one id, one of them is matched to the other's "
    "answers or dropped.",
    bad='{"id": 7, ...}, {"id": 7, ...}',
    good='{"id": 7, ...}, {"id": 8, ...}',
    scope="dataset",
)
def duplicate_id(ds: DatasetFacts) -> Iterator[Hit]:
    for i, ident in ds.repeated_ids:
        yield (
            ds.doc,
            pointer("instances", i, "id"),
            f"id {ident!r} is already used by /instances/{ds.first_index[ident]}",
        )


@rule(
    "textjudge/fsp-example-id",
    "fsp_examples_id names existing instances",
    why="`fsp_examples_id` lists the instances shown as worked examples in `prompt_fsp`; they "
    "are left out when the few-shot prompt is evaluated. An id that matches no instance leaves "
    'an example in the test set. Ids are compared with their type: 12 and "12" differ, as '
    "they do in upstream's evaluation.",
    bad='"fsp_examples_id": [12, 99]  (no instance has id 99)',
    good='"fsp_examples_id": [12, 40]',
    scope="dataset",
)
def fsp_example_id(ds: DatasetFacts) -> Iterator[Hit]:
    ids = ds.first_index
    for k, decl in enumerate(ds.declarations):
        for j, ident in enumerate(decl.get("fsp_examples_id") or ()):
            if ident in ids:
                continue
            # A string never equals a number: say so when the other type would have matched.
            hint = ""
            if isinstance(ident, str) and re.fullmatch(r"-?[0-9]+", ident) and int(ident) in ids:
                hint = f" (an instance has the number {int(ident)} as its id)"
            elif not isinstance(ident, str) and str(ident) in ids:
                hint = f" (an instance has the string {str(ident)!r} as its id)"
            yield (
                ds.doc,
                pointer("annotations", k, "fsp_examples_id", j),
                f"{ident!r} is not the id of an instance{hint}",
            )


@rule(
    "textjudge/instance-field-type",
    "object instances hold strings (or null) in their fields",
    severity="warning",
    why="Each field of an object instance is a template variable. Upstream's evaluation code "
    "fills templates by text replacement over every field: it turns null, false, 0 and empty "
    'lists into "", and stops with a TypeError on any other value that is not a string, even '
    "one the template does not use. `humanjudge render` shows such values as Python prints "
    "them. One finding per field, at its first occurrence.",
    bad='"instance": {"question": "...", "turn": 1, "conversation": [{"role": "user", ...}]}',
    good='"instance": {"question": "...", "turn": "1", "conversation": "user: ..."}',
    scope="dataset",
)
def instance_field_type(ds: DatasetFacts) -> Iterator[Hit]:
    for name, odd in ds.odd_fields.items():
        n = odd.count
        yield (
            ds.doc,
            pointer("instances", odd.first, "instance", name),
            f"field {name!r} is {' or '.join(sorted(odd.types))} in {n} instance{'s' if n > 1 else ''}; "
            "upstream's evaluation code renders only strings and null",
        )
