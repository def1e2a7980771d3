"""`humanjudge card --check`: a Croissant card, written by hand, by a hub or by `humanjudge card`,
compared with the dataset it describes. Each contradiction is a finding of a `card/` code
(codes.py), pointing into the card: a file the dataset does not hold or one the card leaves out,
a size or hash that is not the file's, a number of annotations per item, of annotators, of
records or of missing answers that the data does not show, and every field left to its author.

The numbers are read from the lines `humanjudge card` writes (rai.py) and, in a card written by
hand, from phrases such as "3 annotations per item" or "46 annotators".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..finding import Finding, escape_token
from ..judgments.view import Judgments
from ..kinds import Unit
from ..readers.files import Problem, display_path, read_bytes
from ..registry import severity_of
from . import codes as _codes  # noqa: F401  (the card/ codes are registered before a finding is made)
from . import rai
from .codes import PLACEHOLDER
from .facts import Facts
from .files import digest, file_id
from .layouts import layout

# What a card needs beside the RAI figures, and what `humanjudge card` leaves to its author.
EXPECTED = ("name", "description", "citeAs", "url", "license")
COMPUTED = (
    "rai:annotationsPerItem",
    "rai:annotatorDemographics",
    "rai:dataAnnotationAnalysis",
    "rai:dataCollectionMissingData",
)
_SIZE = re.compile(r"^\s*(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>B|bytes?|[kKMGT]i?B)?\s*$")
_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4}
_UNITS |= {"kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4}

Hit = tuple[str, str, str]  # (code, pointer into the card, message)


def read_card(path: Path) -> tuple[Any, str, Finding | None]:
    """The card's JSON and its text, or the finding that it cannot be read as a card."""
    raw = read_bytes(path)
    if isinstance(raw, Problem):
        return None, "", _finding(path, "card/unreadable", "", f"cannot read the card: {raw.message}", None)
    text = raw.decode("utf-8", errors="replace")
    try:
        doc = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        return None, text, _finding(path, "card/unreadable", "", f"the card is not JSON: {exc}", line)
    if not isinstance(doc, dict):
        return None, text, _finding(path, "card/unreadable", "", "the card is not a JSON object", 1)
    return doc, text, None


def compare(card: Path, unit: Unit, view: Judgments, *, samples: int = 1) -> list[Finding]:
    """Every contradiction between the card at `card` and the dataset (`unit`, with `view` its
    judgments), as findings sorted as validate sorts them. The agreement figures are not
    compared (they depend on the bootstrap); `samples` only sets how many draws the pass makes."""
    doc, text, broken = read_card(card)
    if broken is not None:
        return [broken]
    facts = Facts.of(view, samples=samples, seed=0)
    ids = {path: file_id(path, unit.root) for path in unit.files}
    shape = layout(unit, facts, ids)
    hits = [
        *_files(doc, card, unit),
        *_per_item(doc, facts),
        *_annotators(doc, facts, shape.participants),
        *_records(doc, facts),
        *_missing(doc, facts),
        *_unfilled(doc),
    ]
    from ..readers.locate import locate

    offsets = locate(text, {pointer for _, pointer, _ in hits})
    found = []
    for code, pointer, message in hits:
        at = offsets.get(pointer)
        line = text.count("\n", 0, at) + 1 if at is not None else None
        found.append(_finding(card, code, pointer, message, line))
    return sorted(found, key=Finding.sort_key)


def _finding(card: Path, code: str, pointer: str, message: str, line: int | None) -> Finding:
    return Finding(code, severity_of(code), message, display_path(card), pointer, line)


def _at(*tokens: object) -> str:
    return "".join("/" + escape_token(t) for t in tokens)


def _types(node: dict[str, Any]) -> set[str]:
    found = node.get("@type")
    return {t.split(":")[-1] for t in (found if isinstance(found, list) else [found]) if isinstance(t, str)}


def _files(doc: dict[str, Any], card: Path, unit: Unit) -> Iterator[Hit]:
    entries = doc.get("distribution")
    entries = entries if isinstance(entries, list) else []
    named = {path.resolve(): path for path in unit.files}
    by_name: dict[str, list[Path]] = {}
    for path in unit.files:
        by_name.setdefault(path.name, []).append(path)
    seen: set[Path] = set()
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or "FileObject" not in _types(entry):
            continue
        matched = _match(entry, card.parent, named, by_name)
        if matched is None:
            where = entry.get("contentUrl") or entry.get("name") or entry.get("@id")
            yield "card/missing-file", _at("distribution", i), f"the dataset holds no file {where!r}"
            continue
        seen.add(matched)
        found = digest(matched)
        if isinstance(found, Problem):
            yield "card/missing-file", _at("distribution", i), f"{matched.name}: {found.message}"
            continue
        size, sha256, md5 = found
        stated = entry.get("contentSize")
        if stated is not None and not _same_size(stated, size):
            yield "card/file-size", _at("distribution", i, "contentSize"), f"{stated!r}, the file has {size:,} bytes"
        for key, actual in (("sha256", sha256), ("md5", md5)):
            value = entry.get(key)
            if value is not None and (not isinstance(value, str) or value.strip().lower() != actual):
                yield "card/file-hash", _at("distribution", i, key), f"{value!r}, the file's {key} is {actual}"
    for path in unit.files:
        if path not in seen:
            yield "card/unlisted-file", "/distribution", f"{file_id(path, unit.root)} is a file of the dataset"


def _match(entry: dict[str, Any], base: Path, named: dict[Path, Path], by_name: dict[str, list[Path]]) -> Path | None:
    """The dataset file a FileObject names: by its contentUrl relative to the card's folder, else
    (a URL, a card kept elsewhere) by the file name its contentUrl, name or @id ends with, when
    one file of the dataset has it."""
    url = entry.get("contentUrl")
    if isinstance(url, str) and "://" not in url and url:
        path = named.get((base / url).resolve())
        if path is not None:
            return path
    for value in (url, entry.get("name"), entry.get("@id")):
        if isinstance(value, str) and value:
            candidates = by_name.get(value.rstrip("/").rsplit("/", 1)[-1].split("?")[0], [])
            if len(candidates) == 1:
                return candidates[0]
    return None


def _same_size(stated: Any, size: int) -> bool:
    """Whether a contentSize states the size: exactly in bytes, else to the precision written
    ("2.4 MB": 2.35 to 2.45 million bytes, or mebibytes)."""
    found = _SIZE.match(str(stated))
    if found is None:
        return False
    number, unit = found["n"], (found["unit"] or "").lower()
    if unit in ("", "b", "byte", "bytes"):
        return float(number) == size
    decimals = len(number.partition(".")[2])
    bases = (_UNITS[unit],) if "i" in unit else (_UNITS[unit], 1024 ** (1 + "kmgt".index(unit[0])))
    return any(abs(size / base - float(number)) <= 0.5 * 10**-decimals for base in bases)


def _text(doc: dict[str, Any], key: str) -> str:
    value = doc.get(key)
    if isinstance(value, list):
        return "\n".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def _pointer_of(doc: dict[str, Any], key: str, needle: str) -> str:
    """The pointer of the text of `key` that holds `needle`: the item of a list, or the value."""
    value = doc.get(key)
    if isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, str) and needle in v:
                return _at(key, i)
    return _at(key)


def _per_item(doc: dict[str, Any], facts: Facts) -> Iterator[Hit]:
    key = "rai:annotationsPerItem"
    text = _text(doc, key)
    lines = list(rai.PER_ITEM.finditer(text))
    for line in lines:
        name = rai.unquoted(line["q"])
        q = facts.question(name)
        where = _pointer_of(doc, key, line.group())
        if q is None or q["raters_per_item"] is None:
            yield "card/annotations-per-item", where, f"the data has no individual judgments of {name!r}"
            continue
        spread = q["raters_per_item"]
        stated = (int(line["min"]), float(line["median"]), int(line["max"]))
        actual = (spread["min"], float(spread["median"]), spread["max"])
        if stated != actual:
            said = f"min {stated[0]}, median {line['median']}, max {stated[2]}"
            shown = f"min {actual[0]}, median {rai.number(actual[1])}, max {actual[2]}"
            yield "card/annotations-per-item", where, f"{name!r}: the card states {said}; the data has {shown}"
    if lines:
        return
    spreads = [q["raters_per_item"] for q in facts.questions() if q["raters_per_item"]]
    for found in rai.PROSE_PER_ITEM.finditer(text):
        n = int(found.group(1))
        if spreads and not any(s["min"] <= n <= s["max"] for s in spreads):
            low, high = min(s["min"] for s in spreads), max(s["max"] for s in spreads)
            said = f"{found.group()!r}: items have {low} to {high} annotations in the data"
            yield "card/annotations-per-item", _pointer_of(doc, key, found.group()), said


def annotator_count(facts: Facts, participants: dict[str, Any] | None) -> int | None:
    """How many annotators the data shows: the distinct raters who are persons, else the
    participants a CogGym experiment counts; None where the data does not say."""
    if facts.persons is not None:
        return facts.persons
    count = (participants or {}).get("count")
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def _annotators(doc: dict[str, Any], facts: Facts, participants: dict[str, Any] | None) -> Iterator[Hit]:
    key = "rai:annotatorDemographics"
    actual = annotator_count(facts, participants)
    if actual is None:
        return
    text = _text(doc, key)
    stated = [(int(m["n"]), m.group()) for m in rai.ANNOTATORS.finditer(text)]
    if not stated:
        stated = [(int(m.group(1).replace(",", "")), m.group()) for m in rai.PROSE_ANNOTATORS.finditer(text)]
    for n, said in stated:
        if n != actual:
            yield "card/annotator-count", _pointer_of(doc, key, said), f"the card states {n}; the data has {actual}"


def _records(doc: dict[str, Any], facts: Facts) -> Iterator[Hit]:
    record_sets = doc.get("recordSet")
    for i, rs in enumerate(record_sets if isinstance(record_sets, list) else []):
        description = rs.get("description") if isinstance(rs, dict) else None
        found = rai.RECORDS.match(description) if isinstance(description, str) else None
        if found is None:
            continue
        name, stated = rai.unquoted(found["q"]), int(found["n"])
        role = "individual" if found["role"] == "judgment" else "aggregate"
        if role == "individual":
            actual = facts.individual[name]
        else:
            actual = facts.stored[name, found["stored"]] if found["stored"] else facts.aggregates[name]
        if stated != actual:
            what = "judgments" if role == "individual" else "stored aggregates"
            said = f"{name!r}: the card states {stated} records; the data has {actual} {what}"
            yield "card/record-count", _at("recordSet", i, "description"), said


def _missing(doc: dict[str, Any], facts: Facts) -> Iterator[Hit]:
    key = "rai:dataCollectionMissingData"
    for found in rai.MISSING.finditer(_text(doc, key)):
        name = rai.unquoted(found["q"])
        q = facts.question(name)
        actual = None if q is None else q["missing"]
        if actual != int(found["missing"]):
            has = "no such question" if actual is None else f"{actual} missing"
            said = f"{name!r}: the card states {found['missing']} missing answers; the data has {has}"
            yield "card/missing-answers", _pointer_of(doc, key, found.group()), said


def _unfilled(doc: dict[str, Any]) -> Iterator[Hit]:
    for key in (*EXPECTED, *COMPUTED, *rai.AUTHOR_FIELDS):
        if doc.get(key) in (None, "", []):
            yield "card/unfilled", "", f"the card has no {key}"
    for pointer, text in _strings(doc, ""):
        if text.lstrip().startswith(PLACEHOLDER):
            yield "card/unfilled", pointer, text.strip()


def _strings(node: Any, at: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, str):
        yield at, node
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _strings(value, f"{at}/{i}")
    elif isinstance(node, dict):
        for key, value in node.items():
            if key != "@context":
                yield from _strings(value, f"{at}/{escape_token(key)}")
