"""A Croissant 1.0 card, with its Responsible-AI fields, from one dataset's files and judgments."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..judgments.view import Judgments
from ..kinds import Unit
from ..readers.files import Problem, display_path
from . import rai, repository
from .errors import CardError
from .files import file_object
from .parts import CardDataset, part

# The context of Croissant 1.0 (as its examples and mlcroissant write it), with the RAI prefix.
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
CONFORMS_TO = "http://mlcommons.org/croissant/1.0"


def build(unit: Unit, view: Judgments, *, base: Path, samples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The card of one dataset: `unit` its files, `view` its judgments, `base` the folder the card
    is written in (its files are named relative to it); the bootstrap's `samples` and `seed` are
    those of `humanjudge stats`, whose figures the card states."""
    return build_parts([part(unit, view, None, samples=samples, seed=seed)], base=base)


def build_parts(parts: list[CardDataset], *, base: Path, left: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """The card of its parts (parts.py): one dataset's own, or a repository's of several, a record
    set per dataset and role where Croissant can read its judgments, each file named once in the
    distribution; `left`, the datasets under the folder it leaves out and why (a Git LFS pointer),
    which its description names."""
    from .._version import __version__

    objects = []
    for p in parts:
        for path in p.unit.files:
            found = file_object(path, p.ids[path], base)
            if isinstance(found, Problem):
                raise CardError(f"{display_path(path)}: {found.message}")
            objects.append({**found, **p.shape.files.get(p.ids[path], {})})
    record_sets = _unique([rs for p in parts for rs in p.shape.record_sets])
    if len(parts) == 1 and parts[0].name is None:
        shape = parts[0].shape
        metadata = dict(shape.metadata)
        description = metadata.pop("description")
        if shape.note:
            description = f"{description}\n\n{shape.note}"
        computed = rai.fields(parts[0].facts, shape.participants, __version__)
    else:
        metadata = repository.metadata(parts, left)
        description = metadata.pop("description")
        computed = repository.rai_fields(parts, __version__)
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        **{k: v for k, v in metadata.items() if v not in (None, [], "")},
        "description": description,
        "distribution": objects,
        "recordSet": record_sets,
        **computed,
    }


def _unique(record_sets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The record sets with distinct ids: two names that differ only in characters an id cannot
    hold get a number."""
    seen: set[str] = set()
    for rs in record_sets:
        base, n = rs["@id"], 1
        while rs["@id"] in seen:
            n += 1
            rs["@id"] = rs["name"] = f"{base}_{n}"
            for f in rs["field"]:
                f["@id"] = rs["@id"] + f["@id"][len(base) :]
        seen.add(rs["@id"])
    return record_sets


def dumps(card: dict[str, Any]) -> str:
    """The card as JSON text: keys sorted, so that two runs write the same bytes, and any text as
    it is (no \\u escapes)."""
    return json.dumps(card, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
