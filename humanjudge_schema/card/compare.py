"""`humanjudge card --check`: a Croissant card, written by hand, by a hub or by `humanjudge card`,
compared with the dataset it describes. Each contradiction is a finding of a `card/` code
(codes.py), pointing into the card: a file the dataset does not hold or one the card leaves out,
a size or hash that is not the file's, a number of annotations per item, of annotators, of
records or of missing answers that the data does not show, and every field left to its author.

The numbers are read from the lines `humanjudge card` writes (rai.py) and, in a card written by
hand, from phrases such as "3 annotations per item" or "46 annotators".
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..finding import Finding, escape_token
from ..judgments.view import Judgments
from ..kinds import Unit
from ..readers import codes as _parse_codes  # noqa: F401  (the parse/ codes a card's bytes may have)
from ..readers.files import DEFAULT_MAX_DOCUMENT, Problem, display_path
from ..readers.locate import LineIndex, locate
from ..registry import severity_of
from . import codes as _codes  # noqa: F401  (the card/ codes are registered before a finding is made)
from . import rai
from .codes import PLACEHOLDER
from .facts import Facts
from .files import digest
from .parts import CardDataset, part, sections
from .source import FieldText, read_card

# What a card needs beside the RAI figures, and what `humanjudge card` leaves to its author.
EXPECTED = ("name", "description", "citeAs", "url", "license")
COMPUTED = (
    "rai:annotationsPerItem",
    "rai:annotatorDemographics",
    "rai:dataAnnotationAnalysis",
    "rai:dataCollectionMissingData",
)
# matched on the text stripped of white space: a `\s*` on either side of an optional unit took
# time quadratic in a run of spaces
_SIZE = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>B|bytes?|[kKMGT]i?B)?")
_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4}
_UNITS |= {"kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4}

Hit = tuple[str, str, str]  # (code, pointer into the card, message)
# A count the card states with more digits than this is more than any dataset holds (and int()
# reads at most 4,300 digits).
_DIGITS = 30
_QUOTED = 200  # characters of a string of the card a message quotes
DEFAULT_MAX_PER_CODE = 1000  # the configuration's default
_LOCATED = 64  # the deepest pointer whose line is looked for


def compare(
    card: Path,
    unit: Unit,
    view: Judgments,
    *,
    samples: int = 1,
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT,
    max_per_code: int = DEFAULT_MAX_PER_CODE,
) -> list[Finding]:
    """Every contradiction between the card at `card` and the dataset (`unit`, with `view` its
    judgments), as findings sorted as validate sorts them. The agreement figures are not
    compared (they depend on the bootstrap); `samples` only sets how many draws the pass makes.
    The card is read as validate reads a JSON file, within `max_document_bytes` (the dataset's
    configuration gives it: commands/card.py); the placeholders listed are at most
    `max_per_code`, the rest counted in one more finding."""
    parts = [part(unit, view, None, samples=samples, seed=0)]
    return compare_parts(card, parts, max_document_bytes=max_document_bytes, max_per_code=max_per_code)


def compare_parts(
    card: Path,
    parts: list[CardDataset],
    *,
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT,
    max_per_code: int = DEFAULT_MAX_PER_CODE,
) -> list[Finding]:
    """`compare` of a card with the datasets it describes (parts.py): one dataset's own card, or a
    repository's, whose computed RAI fields have a section per dataset, each compared with its
    dataset's figures."""
    read = read_card(card, max_document_bytes)
    found = [_finding(card, p.code, p.pointer, p.message, p.line, p.column) for p in read.problems]
    if read.doc is None:
        return sorted(found, key=Finding.sort_key)
    doc = read.doc
    unfilled, more = _unfilled(doc, max_per_code, len(read.text))
    hits = [
        *_files(doc, card, parts),
        *_per_item(doc, parts),
        *_annotators(doc, parts),
        *_records(doc, parts),
        *_missing(doc, parts),
        *unfilled,
    ]
    # locate's cost grows with the square of a pointer's depth: a finding deeper in the card than
    # its own fields ever are keeps its pointer, without a line
    offsets = locate(read.text, {pointer for _, pointer, _ in hits if pointer.count("/") <= _LOCATED})
    index = LineIndex(read.text)
    for code, pointer, message in hits:
        at = offsets.get(pointer)
        line = index.position(at)[0] if at is not None else None
        found.append(_finding(card, code, pointer, message, line))
    if more:
        said = (
            f"{more:,} more card/unfilled findings in this card are not listed (the first {len(unfilled):,} are: "
            "at most max-per-code of them, with pointers no longer than the card together)"
        )
        found.append(Finding("card/unfilled", severity_of("card/unfilled"), said, display_path(card), more=more))
    return sorted(found, key=Finding.sort_key)


def _finding(card: Path, code: str, pointer: str, message: str, line: int | None, column: int | None = None) -> Finding:
    return Finding(code, severity_of(code), message, display_path(card), pointer, line, column)


def _at(*tokens: object) -> str:
    return "".join("/" + escape_token(t) for t in tokens)


def _types(node: dict[str, Any]) -> set[str]:
    found = node.get("@type")
    return {t.split(":")[-1] for t in (found if isinstance(found, list) else [found]) if isinstance(t, str)}


def _files(doc: dict[str, Any], card: Path, parts: list[CardDataset]) -> Iterator[Hit]:
    entries = doc.get("distribution")
    entries = entries if isinstance(entries, list) else []
    files = [(path, p.ids[path]) for p in parts for path in p.unit.files]
    named = {_place(path): path for path, _ in files}
    by_name: dict[str, list[Path]] = {}
    for path, _ in files:
        by_name.setdefault(path.name, []).append(path)
    seen: set[Path] = set()
    # each file read once, however many FileObjects name it
    digests: dict[Path, tuple[int, str, str] | Problem] = {}
    # a contentUrl is relative to the card's folder, as given or where it really is (files.content_url)
    folders = (os.path.abspath(card.parent), os.path.realpath(card.parent))
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or "FileObject" not in _types(entry):
            continue
        matched = _match(entry, folders, named, by_name)
        if matched is None:
            where = entry.get("contentUrl") or entry.get("name") or entry.get("@id")
            yield "card/missing-file", _at("distribution", i), f"the dataset holds no file {_said(where)}"
            continue
        seen.add(matched)
        if matched not in digests:
            digests[matched] = digest(matched)
        found = digests[matched]
        if isinstance(found, Problem):
            yield "card/missing-file", _at("distribution", i), f"{matched.name}: {found.message}"
            continue
        size, sha256, md5 = found
        stated = entry.get("contentSize")
        if stated is not None and not _same_size(stated, size):
            said = f"{_said(stated)}, the file has {size:,} bytes"
            yield "card/file-size", _at("distribution", i, "contentSize"), said
        for key, actual in (("sha256", sha256), ("md5", md5)):
            value = entry.get(key)
            if value is not None and (not isinstance(value, str) or value.strip().lower() != actual):
                yield "card/file-hash", _at("distribution", i, key), f"{_said(value)}, the file's {key} is {actual}"
    for path, name in files:
        if path not in seen:
            yield "card/unlisted-file", "/distribution", f"{name} is a file of the dataset"


def _place(path: Path | str) -> str:
    """Where a path leads, as written: made absolute, `.` and `..` taken out, no link followed."""
    return os.path.normpath(os.path.abspath(path))


def _match(
    entry: dict[str, Any], folders: tuple[str, ...], named: dict[str, Path], by_name: dict[str, list[Path]]
) -> Path | None:
    """The dataset file a FileObject names: by its contentUrl relative to one of the card's
    `folders`, else (a URL, a card kept elsewhere) by the file name its contentUrl, name or @id
    ends with, when one file of the dataset has it."""
    url = entry.get("contentUrl")
    if isinstance(url, str) and "://" not in url and url:
        for folder in folders:
            path = named.get(os.path.normpath(os.path.join(folder, url)))
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
    if not isinstance(stated, (str, int, float)):
        return False
    found = _SIZE.fullmatch(str(stated).strip())
    if found is None:
        return False
    number, unit = found["n"], (found["unit"] or "").lower()
    if unit in ("", "b", "byte", "bytes"):
        return float(number) == size
    decimals = len(number.partition(".")[2])
    bases = (_UNITS[unit],) if "i" in unit else (_UNITS[unit], 1024 ** (1 + "kmgt".index(unit[0])))
    return any(abs(size / base - float(number)) <= 0.5 * 10**-decimals for base in bases)


def _said(value: Any) -> str:
    """A value of the card as a message quotes it: a string (its start, if long) or a number as
    written, a list or an object by what it is (one nested a thousand deep has no repr)."""
    if isinstance(value, str) and len(value) > _QUOTED:
        return f"{value[:_QUOTED]!r}... ({len(value):,} characters)"
    if value is None or isinstance(value, (str, int, float)):
        return repr(value)
    return "a list" if isinstance(value, list) else "an object"


def _count(digits: str) -> int | None:
    """A count the card states; None for one of more digits than any count has."""
    return int(digits) if len(digits) <= _DIGITS else None


def _stated(digits: str) -> str:
    """A number the card states, as a message shows it."""
    if len(digits) <= _DIGITS:
        return str(int(digits)) if digits.isdigit() else digits
    return f"{digits[:_DIGITS]}... ({len(digits):,} characters)"


def _name(quoted: str) -> str:
    """A question's name as the card quotes it: a JSON string, or (an escape JSON has not) the
    text between the quotes."""
    try:
        return rai.unquoted(quoted)
    except ValueError:
        return quoted[1:-1]


def _per_item(doc: dict[str, Any], parts: list[CardDataset]) -> Iterator[Hit]:
    field = FieldText.of(doc, "rai:annotationsPerItem")
    for p, start, end in sections(field.text, parts):
        yield from _per_item_of(field, start, end, p.facts)


def _per_item_of(field: FieldText, start: int, end: int, facts: Facts) -> Iterator[Hit]:
    lines = list(rai.PER_ITEM.finditer(field.text, start, end))
    for line in lines:
        name = _name(line["q"])
        q = facts.question(name)
        where = field.pointer(line.start(), line.end())
        spread = None if q is None else q.raters_per_item
        if spread is None:
            yield "card/annotations-per-item", where, f"the data has no individual judgments of {_said(name)}"
            continue
        stated = (_count(line["min"]), float(line["median"]), _count(line["max"]))
        actual = (spread.min, float(spread.median), spread.max)
        if stated != actual:
            said = f"min {_stated(line['min'])}, median {_stated(line['median'])}, max {_stated(line['max'])}"
            shown = f"min {actual[0]}, median {rai.number(actual[1])}, max {actual[2]}"
            yield "card/annotations-per-item", where, f"{_said(name)}: the card states {said}; the data has {shown}"
    if lines:
        return
    spreads = [q.raters_per_item for q in facts.questions() if q.raters_per_item]
    for found in rai.PROSE_PER_ITEM.finditer(field.text, start, end):
        n = _count(found.group(1))
        if spreads and (n is None or not any(s.min <= n <= s.max for s in spreads)):
            low, high = min(s.min for s in spreads), max(s.max for s in spreads)
            said = f"{_said(found.group())}: items have {low} to {high} annotations in the data"
            yield "card/annotations-per-item", field.pointer(found.start(), found.end()), said


def annotator_count(facts: Facts, participants: dict[str, Any] | None) -> int | None:
    """How many annotators the data shows: the distinct raters who are persons, else the
    participants a CogGym experiment counts; None where the data does not say."""
    if facts.persons is not None:
        return facts.persons
    count = (participants or {}).get("count")
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def _annotators(doc: dict[str, Any], parts: list[CardDataset]) -> Iterator[Hit]:
    field = FieldText.of(doc, "rai:annotatorDemographics")
    for p, start, end in sections(field.text, parts):
        actual = annotator_count(p.facts, p.shape.participants)
        if actual is None:
            continue
        stated = [(m["n"], m.start(), m.end()) for m in rai.ANNOTATORS.finditer(field.text, start, end)]
        if not stated:
            prose = rai.prose_annotators(field.text[start:end])
            stated = [(n.replace(",", ""), start + a, start + b) for n, a, b in prose]
        for digits, a, b in stated:
            if _count(digits) != actual:
                said = f"the card states {_stated(digits)}; the data has {actual}"
                yield "card/annotator-count", field.pointer(a, b), said


def _records(doc: dict[str, Any], parts: list[CardDataset]) -> Iterator[Hit]:
    record_sets = doc.get("recordSet")
    for i, rs in enumerate(record_sets if isinstance(record_sets, list) else []):
        description = rs.get("description") if isinstance(rs, dict) else None
        if not isinstance(description, str):
            continue
        ident = rs.get("@id")
        counted = next((p.shape.records[ident] for p in parts if ident in p.shape.records), None)
        found = rai.COUNTED.match(description) if counted is not None else None
        if found is not None:  # a record set the layout counts the records of (one per instance)
            if _count(found["n"]) != counted:
                said = f"{_said(ident)}: the card states {_stated(found['n'])} records; the data has {counted}"
                yield "card/record-count", _at("recordSet", i, "description"), said
            continue
        found = rai.RECORDS.match(description)
        owner = _owner(ident, parts)
        if found is None or owner is None:
            continue
        facts = owner.facts
        name, stated = _name(found["q"]), _count(found["n"])
        role = "individual" if found["role"] == "judgment" else "aggregate"
        if role == "individual":
            actual = facts.individual[name]
        else:
            actual = facts.stored[name, found["stored"]] if found["stored"] else facts.aggregates[name]
        if stated != actual:
            what = "judgments" if role == "individual" else "stored aggregates"
            said = f"{_said(name)}: the card states {_stated(found['n'])} records; the data has {actual} {what}"
            yield "card/record-count", _at("recordSet", i, "description"), said


def _owner(ident: Any, parts: list[CardDataset]) -> CardDataset | None:
    """The dataset a record set of the card is of: the one of a dataset's own card, else the one
    its @id begins with."""
    if len(parts) == 1 and not parts[0].prefix:
        return parts[0]
    if not isinstance(ident, str):
        return None
    return max((p for p in parts if ident.startswith(p.prefix)), key=lambda p: len(p.prefix), default=None)


def _missing(doc: dict[str, Any], parts: list[CardDataset]) -> Iterator[Hit]:
    field = FieldText.of(doc, "rai:dataCollectionMissingData")
    for p, start, end in sections(field.text, parts):
        for found in rai.MISSING.finditer(field.text, start, end):
            name = _name(found["q"])
            q = p.facts.question(name)
            actual = None if q is None else q.missing
            if actual != _count(found["missing"]):
                has = "no such question" if actual is None else f"{actual} missing"
                said = f"{_said(name)}: the card states {_stated(found['missing'])} missing answers; the data has {has}"
                yield "card/missing-answers", field.pointer(found.start(), found.end()), said


def _unfilled(doc: dict[str, Any], limit: int, budget: int) -> tuple[list[Hit], int]:
    """The fields a card needs that it lacks, and its placeholders: the first `limit` of them
    (0: all) whose pointers together are at most `budget` characters, and how many more there
    are. The budget (the card's length) keeps what is listed linear in the card where
    placeholders are many under a long key."""
    hits: list[Hit] = []
    for key in (*EXPECTED, *COMPUTED, *rai.AUTHOR_FIELDS):
        if doc.get(key) in (None, "", []):
            hits.append(("card/unfilled", "", f"the card has no {key}"))
    more = 0
    for at, text in _strings(doc):
        if text.lstrip().startswith(PLACEHOLDER):
            length = at[2] if at is not None else 0
            if (limit and len(hits) >= limit) or length > budget:
                more += 1
            else:
                budget -= length
                hits.append(("card/unfilled", _pointer(at), text.strip()))
    return hits, more


# (the parent's chain, the token with its "/", the pointer's length): a pointer not yet written out
_Chain = tuple[Any, str, int] | None


def _strings(doc: dict[str, Any]) -> Iterator[tuple[_Chain, str]]:
    """Every string of the card outside @context, in the order of the text, with where it is. A
    walk without recursion, whose pointers are written only for the strings asked for: a card
    nested 1,000 deep, or under a long key, costs its size, not its size times its depth."""
    stack: list[tuple[Any, _Chain]] = [(doc, None)]
    while stack:
        node, at = stack.pop()
        length = at[2] if at is not None else 0
        if isinstance(node, str):
            yield at, node
        elif isinstance(node, list):
            items = [(value, (at, f"/{i}", length + len(str(i)) + 1)) for i, value in enumerate(node)]
            stack.extend(reversed(items))
        elif isinstance(node, dict):
            tokens = (("/" + escape_token(key), value) for key, value in node.items() if key != "@context")
            stack.extend(reversed([(value, (at, token, length + len(token))) for token, value in tokens]))


def _pointer(at: _Chain) -> str:
    tokens = []
    while at is not None:
        at, token, _ = at
        tokens.append(token)
    return "".join(reversed(tokens))
