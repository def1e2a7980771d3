"""What a declared dataset's Croissant card says that its declaration knows (the catalog's `card`
of every declared format, which card/layouts.py calls): the dataset's name, description and home
page from the declaration's `title`, `description` and `source`, a record set per data file that
Croissant can read, each field typed by the file's record schema, and where a record set of one
question's judgments reads them.

What Croissant (as mlcroissant reads it) can express of a declared file:
- CSV with a header row, cells parted by commas, and TSV with one, parted by tabs: a record per
  row, a field per column (`extract.column`). mlcroissant reads them with pandas' CSV reader,
  which takes a `"` at the start of a cell for a quote: a file declared `quoting = false` is read
  only where no cell starts with one. Other delimiters (`;`, `|`, runs of spaces) it cannot read.
- CSV or TSV with no header row (`columns`): a record per line (`fileProperty: lines`), each
  column taken from the line by a regular expression. mlcroissant reads the lines through the
  same reader, which parts a line at commas and reads quotes: a file with a comma or a `"` is not
  expressed, nor a gzipped one. A boolean column is typed as text, and so is a number column
  with an empty cell (a regular expression gives text, and "false" is no false, "" no number).
- JSON Lines (and Parquet): a record per line (row), a field per key (`extract.column`), a key
  of an object below it picked by a JSONPath transform.
- JSON: a record per node `records` points at (`extract.jsonPath`, `*` as `[*]` in an array and
  `.*` in an object), each field picked from it by a JSONPath transform. Every field of a file
  reads the same JSONPath: mlcroissant reads a JSON file into one table for every record set that
  reads it. JSONPath gives values, never keys: a record's key (`@1`) is no field.
Fields are the record schema's properties of type integer (sc:Integer), number (sc:Float),
string (sc:Text) or boolean (sc:Boolean), or an enum of such values, and the scalar properties of
an object property; a list, or an object keyed by names the schema does not list, is no field.
A table's column the schema does not describe is text.

A record set of judgments (item, rater, value, as the built-in formats' record sets have them,
card/layouts.py) is made where a block reads plain fields of one record: an item, a rater and
each value a column or a path, no `each`, `combine`, one-hot, weights, templates or transforms.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...finding import escape_token
from ...kinds import Unit
from ...readers.files import Problem, open_regular, read_bytes
from ...readers.jsonfile import BROKEN, parse
from .check import files_of
from .declaration import Block, Declaration, FileSpec
from .fields import ABSENT, Field
from .held import declaration
from .records import CsvRows, JsonRows, read

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TYPES = {"integer": "sc:Integer", "number": "sc:Float", "string": "sc:Text", "boolean": "sc:Boolean"}
# The cell texts pandas' CSV reader (mlcroissant's) reads as no value
PANDAS_NA = frozenset(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A"}
    | {"NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
)
# Aggregates whose view rows are the stored values as they are (a distribution is spread)
_AS_STORED = ("mean", "majority", "none")
_BLOCK = 1 << 20


def describe(unit: Unit, ids: dict[Path, str]) -> dict[str, Any]:
    """What the card of a declared dataset says that its declaration knows (catalog.Format.card)."""
    decl = declaration(unit.family, unit.root)
    out: dict[str, Any] = {"metadata": metadata(decl), "recordSet": [], "records": {}, "files": {}, "judgments": []}
    if decl.problems:
        out["note"] = "Its declaration has errors (`humanjudge validate` lists them): no record set reads its files."
        return out
    from ...config import discover

    limit = discover(unit.root).max_document_bytes
    tables: dict[Path, CardFile] = {}
    # a record set's @id is its role's (no FileObject's, nor a question's record set's)
    taken = {*ids.values(), *(_safe(q) for q in decl.questions)}
    taken |= {_safe(a.question) for b in decl.blocks for a in b.answers if isinstance(a.question, str)}
    for spec in decl.files.values():
        paths = files_of(unit, spec.name, spec.glob)
        for path in paths:
            if path not in ids:
                continue
            table = tables[path] = card_file(path, spec, ids[path], limit)
            table.rs = _free(_safe(spec.role if len(paths) == 1 else f"{spec.role}/{path.name}"), taken)
            out["files"][table.id] = table.object()
            made = table.record_set()
            if made is not None:
                out["recordSet"].append(made)
                out["records"][made["@id"]] = table.count
    unread = []
    for block in decl.blocks:
        found = list(_judgments(decl, block, unit, tables))
        if found and all(isinstance(j, dict) for j in found):
            out["judgments"] += found
        elif block.kind == "judgments" or block.recompute in _AS_STORED:
            why = next((j for j in found if isinstance(j, str)), "its file is not in the dataset")
            unread.append(f"those of {block.at} (in {block.file}): {why}")
    if unread:
        export = f"`humanjudge export {unit.root.name} --to jsonl` writes the judgments as one record per judgment"
        out["note"] = (
            "No record set holds these judgments one per record: "
            + "; ".join(unread)
            + f". Where a record set reads their file, it reads them as the file writes them; {export}."
        )
    return out


def metadata(decl: Declaration) -> dict[str, Any]:
    """The dataset's name (the declaration's title), description and home page (its source, an
    http(s) address), where the declaration gives them."""
    try:
        data = tomllib.loads(decl.text)
    except tomllib.TOMLDecodeError:
        data = {}
    title, about, source = (_text(data.get(k)) for k in ("title", "description", "source"))
    url = source if source is not None and source.startswith(("https://", "http://")) else None
    return {"name": title, "description": about, "url": url}


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


@dataclass
class CardFile:
    """A declared data file as the card describes it: its encoding format, how many records it
    holds, and the fields Croissant reads of a record (or why it reads none)."""

    path: Path
    spec: FileSpec
    id: str
    encoding: str
    rs: str = ""  # its record set's @id
    count: int = 0
    why: str | None = None  # why no record set reads the file
    lines: bool = False  # a table with no header row, read a line at a time
    json_path: str | None = None  # a JSON file's records
    columns: list[str] = field(default_factory=list)  # a table's, in order
    keys: set[str] = field(default_factory=set)  # the keys of a JSON Lines file's records
    empty: set[str] = field(default_factory=set)  # columns with a cell of no value
    texts: bool = False  # a cell of no value may be a text pandas reads as text (`missing`)
    fields: list[dict[str, Any]] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # what is no field, and why

    def object(self) -> dict[str, Any]:
        """What its FileObject says beyond its size and hash."""
        said: dict[str, Any] = {"encodingFormat": self.encoding}
        if self.why is not None:
            said["description"] = f"No record set reads this file: {self.why}."
        elif self.lines:
            columns = self.spec.columns or ()
            parted = {"\t": "tabs", ",": "commas", "whitespace": "runs of spaces and tabs"}
            many = len(columns) > 1
            delimiter = self.spec.delimiter
            said["description"] = (
                "A table with no header row"
                + (f", its cells parted by {parted.get(delimiter, repr(delimiter))}" if many else "")
                + f", its column{'s' if many else ''} {', '.join(columns)} as its declaration names them: "
                + "text, which a record set reads a line at a time"
                + (", each column by a regular expression." if many else ".")
            )
        return said

    def source(self, steps: tuple[str, ...]) -> dict[str, Any] | None:
        """Where a field of a record is read: a column, or a path below a record."""
        if self.why is not None or not steps:
            return None
        at: dict[str, Any] = {"fileObject": {"@id": self.id}}
        if self.spec.flat:
            if len(steps) != 1 or steps[0] not in self.columns:
                return None
            if not self.lines:
                return {**at, "extract": {"column": steps[0]}}
            at["extract"] = {"fileProperty": "lines"}
            if len(self.columns) > 1:
                at["transform"] = {"regex": _cell(self.columns.index(steps[0]), self.spec.delimiter)}
            return at
        if self.json_path is not None:
            path = _path(steps)
            if path is None:
                return None
            return {**at, "extract": {"jsonPath": self.json_path}, "transform": {"jsonPath": path}}
        if steps[0] not in self.keys:
            return None
        at["extract"] = {"column": steps[0]}
        if len(steps) > 1:
            path = _path(steps[1:])
            if path is None:
                return None
            at["transform"] = {"jsonPath": path}
        return at

    def record_set(self) -> dict[str, Any] | None:
        if self.why is not None:
            return None
        names: set[str] = set()
        for steps, typed in _properties(self.spec.record, self.columns if self.spec.flat else None, self.left):
            if self.spec.flat and typed != "sc:Text" and self._as_text(steps[0], typed):
                typed = "sc:Text"
            found = self.source(steps)
            if found is None:
                continue
            name = ".".join(steps)
            self.fields.append(
                {
                    "@type": "cr:Field",
                    "@id": f"{self.rs}/{_free(_safe(name).replace('/', '_'), names)}",
                    "name": name,
                    "description": f"the {'column' if self.spec.flat else 'field'} {_said(steps)}",
                    "dataType": typed,
                    "source": found,
                }
            )
        if not self.fields:
            self.why = "no field of its records is one Croissant reads"
            return None
        each = "line" if self.lines or self.spec.type == "jsonl" else "record" if self.spec.type == "json" else "row"
        where = f" (at {_pointer(self.spec.records)})" if self.spec.records else ""
        text = (
            f"One record per {each} of {self.id}{where}: {self.count} records. Fields: "
            + ", ".join(f["name"] for f in self.fields)
            + (f" (its columns, typed by the record schema of {self.spec.role})" if self.spec.flat else "")
            + "."
        )
        if self.left:
            text += " Not fields: " + "; ".join(self.left) + "."
        return {"@type": "cr:RecordSet", "@id": self.rs, "name": self.rs, "description": text, "field": self.fields}

    def _as_text(self, column: str, typed: str) -> bool:
        """Whether a typed column is read as text: what a regular expression takes of a line is
        text, in which "false" is no false and "" (or a text of no value) no number; pandas reads
        a cell whose text of no value it does not know as text."""
        if self.lines:
            return typed == "sc:Boolean" or column in self.empty
        return self.texts and column in self.empty


def card_file(path: Path, spec: FileSpec, ident: str, limit: int) -> CardFile:
    """A declared file read once, as the card describes it."""
    if spec.flat:
        return _table(path, spec, ident, limit)
    if spec.type in ("jsonl", "parquet"):
        lines = spec.type == "jsonl"
        found = CardFile(path, spec, ident, "application/jsonlines" if lines else "application/x-parquet")
        if spec.records:
            each = "line" if lines else "row"
            found.why = (
                f"its records are below each {each} (records = {_pointer(spec.records)!r}), and Croissant reads "
                f"a {each} as a record"
            )
            return found
        if not lines and importlib.util.find_spec("pyarrow") is None:
            found.why = "pyarrow, which reads Parquet, is not installed"
            return found
        for rows in read(path, spec, limit, None):
            assert isinstance(rows, JsonRows)
            found.count += len(rows)
            for node in rows.nodes:
                if isinstance(node[0], dict):
                    found.keys.update(node[0])
        return found
    found = CardFile(path, spec, ident, "application/json")
    raw = read_bytes(path, limit)
    if isinstance(raw, Problem):
        found.why = raw.message
        return found
    data, problems = parse(raw)
    if data is BROKEN:
        found.why = "it cannot be read as JSON: " + (problems[0].message if problems else "not JSON")
        return found
    nodes, written, keyed = [data], "$", False
    for step in spec.records:
        if step == "*":
            kinds = {type(n) for n in nodes if isinstance(n, (dict, list))}
            if len(kinds) != 1:
                what = "lists and objects, which one JSONPath step cannot both read" if kinds else "no list or object"
                found.why = f"what `records` ({_pointer(spec.records)}) goes through is {what}"
                return found
            written += "[*]" if kinds == {list} else ".*"
            keyed = keyed or kinds == {dict}
            nodes = [
                v for n in nodes if isinstance(n, (dict, list)) for v in (n.values() if isinstance(n, dict) else n)
            ]
        else:
            quoted = _path((step,))
            if quoted is None:
                found.why = f"JSONPath cannot name the key {step!r}"
                return found
            written += "." + quoted
            nodes = [n[step] for n in nodes if isinstance(n, dict) and step in n]
    found.json_path, found.count = written, len(nodes)
    if keyed:
        found.left.append("the key each record is under (@1): JSONPath gives values, never keys")
    return found


def _table(path: Path, spec: FileSpec, ident: str, limit: int) -> CardFile:
    headerless = spec.columns is not None
    kinds = {",": "text/csv", "\t": "text/tab-separated-values"}
    found = CardFile(path, spec, ident, kinds.get(spec.delimiter, "text/csv" if spec.type == "csv" else kinds["\t"]))
    if headerless:
        found.lines = True
        if spec.gzip:
            found.why = "it has no header row and is gzipped: Croissant reads such a file's lines from its bytes"
        elif _has(path, rb'[,"]'):
            found.why = (
                "it has no header row, and Croissant reads a line of such a file through a CSV reader that parts it "
                "at commas and reads quotes: this file holds a comma or a quote character"
            )
        else:
            found.encoding = "text/plain"
    elif spec.delimiter not in kinds:
        said = "runs of spaces and tabs" if spec.delimiter == "whitespace" else repr(spec.delimiter)
        found.why = (
            f"Croissant reads a CSV file's cells parted by commas and a TSV file's by tabs; this file's are parted "
            f"by {said}"
        )
    elif not spec.quoting and _has(path, b"(?:^|" + re.escape(spec.delimiter.encode()) + rb')"', multiline=True):
        found.why = (
            "its quote characters are text (quoting = false), and Croissant's reader takes a cell that starts with "
            "one for a quoted cell"
        )
    if found.why is not None:
        return found
    found.texts = bool(spec.missing - PANDAS_NA)
    props = spec.record.get("properties")
    props = props if isinstance(props, dict) else {}
    typed: set[str] = set()  # the columns of a type other than text, where an empty cell matters
    for rows in read(path, spec, limit, None):
        assert isinstance(rows, CsvRows)
        if not found.columns:
            found.columns = [c for c in (rows.doc.header or []) if c]
            if len(set(found.columns)) != len(found.columns):  # pandas renames a name given twice
                twice = {c for c in found.columns if found.columns.count(c) > 1}
                found.columns = [c for c in found.columns if c not in twice]
                found.left.append("the columns named twice (" + ", ".join(sorted(twice)) + ")")
            if found.lines or found.texts:
                typed = {c for c in found.columns if _type(props.get(c)) not in (None, "sc:Text")}
        found.count += len(rows)
        for column in typed - found.empty:
            if any(v is ABSENT for v in rows.values(Field(column, "", (column,)))):
                found.empty.add(column)
    return found


def _has(path: Path, pattern: bytes, *, multiline: bool = False) -> bool:
    """Whether a file's bytes match a pattern of one or two bytes (read a block at a time)."""
    compiled = re.compile(pattern, re.MULTILINE if multiline else 0)
    f = open_regular(path)
    if isinstance(f, Problem):
        return False
    tail = b""
    with f:
        while block := f.read(_BLOCK):
            if compiled.search(tail + block):
                return True
            tail = block[-1:]
    return False


def _properties(
    schema: dict[str, Any], columns: list[str] | None, left: list[str]
) -> Iterator[tuple[tuple[str, ...], str]]:
    """The fields of a record (a path, its Croissant type): a table's columns in their order, each
    typed by its property (text where the schema has none); else the schema's scalar properties,
    and those of its object properties, in the schema's order."""
    found = schema.get("properties")
    props: dict[str, Any] = found if isinstance(found, dict) else {}
    if columns is not None:
        for column in columns:
            typed = _type(props.get(column))
            yield (column,), typed if typed is not None else "sc:Text"
        return
    yield from _nested(props, (), left)


def _nested(props: dict[str, Any], base: tuple[str, ...], left: list[str]) -> Iterator[tuple[tuple[str, ...], str]]:
    for name, prop in props.items():
        steps = (*base, name)
        typed = _type(prop)
        if typed is not None:
            yield steps, typed
        elif isinstance(prop, dict) and isinstance(prop.get("properties"), dict) and prop["properties"]:
            yield from _nested(prop["properties"], steps, left)
        else:
            left.append(f"{_said(steps)} ({_what(prop)})")


def _type(prop: Any) -> str | None:
    """A property's Croissant type; None for one that is no scalar (or that the schema leaves open)."""
    if not isinstance(prop, dict):
        return None
    kind = prop.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if isinstance(kind, str):
        return TYPES.get(kind)
    values = prop.get("enum", [prop["const"]] if "const" in prop else None)
    if not isinstance(values, list) or not values:
        return None
    found = {type(v) for v in values if v is not None}
    if found == {bool}:
        return "sc:Boolean"
    if found == {int}:
        return "sc:Integer"
    if found and found <= {int, float}:
        return "sc:Float"
    if found == {str}:
        return "sc:Text"
    return None


def _what(prop: Any) -> str:
    kind = prop.get("type") if isinstance(prop, dict) else None
    if kind == "array":
        return "a list"
    if kind == "object":
        return "an object keyed by names its schema does not list"
    return "a value of no one type"


def _said(steps: tuple[str, ...]) -> str:
    return orjson.dumps("/".join(steps)).decode()


def _safe(name: str) -> str:
    """An @id of a name: anything but letters, digits, `_`, `-`, `.` and `/` made `_`."""
    return re.sub(r"[^A-Za-z0-9_./-]", "_", name) or "_"


def _free(name: str, taken: set[str]) -> str:
    """The name, numbered where it is taken; then taken."""
    unique, k = name, 1
    while unique in taken:
        k += 1
        unique = f"{name}_{k}"
    taken.add(unique)
    return unique


def _path(steps: tuple[str, ...]) -> str | None:
    """A JSONPath (jsonpath-rw's) of keys, each quoted; None for a key it cannot quote."""
    out = []
    for step in steps:
        if "'" not in step:
            out.append(f"'{step}'")
        elif '"' not in step:
            out.append(f'"{step}"')
        else:
            return None
    return ".".join(out)


def _pointer(steps: tuple[str, ...]) -> str:
    return "".join("/" + escape_token(s) for s in steps)


def _cell(k: int, delimiter: str) -> str:
    """A regular expression whose group is the k-th cell (from 0) of a line."""
    if delimiter == "whitespace":
        return r"^\s*(?:\S+\s+){" + str(k) + r"}(\S*)" if k else r"^\s*(\S*)"
    d = {"\t": r"\t"}.get(delimiter, re.escape(delimiter))
    return f"^(?:[^{d}]*{d}){{{k}}}([^{d}]*)" if k else f"^([^{d}]*)"


def _judgments(
    decl: Declaration, block: Block, unit: Unit, tables: dict[Path, CardFile]
) -> Iterator[dict[str, Any] | str]:
    """Where a record set of each question of a block reads its judgments, per file; a text
    saying why, where a record set cannot read them."""
    why = _plain_block(block)
    if why is not None:
        yield why
        return
    spec = decl.files.get(block.file)
    if spec is None:
        yield "its file is not declared"
        return
    role = "individual" if block.kind == "judgments" else "aggregate"
    for path in files_of(unit, spec.name, spec.glob):
        table = tables.get(path)
        if table is None:
            continue
        if table.why is not None:
            yield f"no record set reads {table.id}: {table.why}"
            continue
        item = table.source(block.item[0].steps)
        rater = table.source(block.rater.steps) if block.rater is not None else None
        if item is None or (block.rater is not None and rater is None):
            yield "its item or rater is no field Croissant reads"
            continue
        for answer in block.answers:
            assert isinstance(answer.question, str) and isinstance(answer.value, Field)
            value = table.source(answer.value.steps)
            if value is None:
                yield f"the value of {answer.question!r} is no field Croissant reads"
                continue
            sources = {"item": item, **({"rater": rater} if rater is not None else {}), "value": value}
            stored = escape_token(answer.value.steps[-1]) if role == "aggregate" else None
            yield {"question": answer.question, "role": role, "stored": stored, "file": path, "sources": sources}


def _plain_block(block: Block) -> str | None:
    """Why a record set of a block's judgments cannot read them; None where it can."""
    if block.kind == "aggregates" and block.recompute not in _AS_STORED:
        return f"a stored {block.recompute} is no value on the question's scale"
    if block.each:
        return "they are below the records (each = " + repr(_pointer(block.each)) + ")"
    if block.combine is not None:
        return f"a rater's rows of an item are combined into one judgment (combine = {block.combine!r})"
    if len(block.item) != 1:
        parts = ", ".join(f.written for f in block.item)
        return f"an item is made of several fields ({parts}), which a field cannot join"
    for what, found in (("item", block.item[0]), ("rater", block.rater)):
        if found is not None and not _plain(found):
            return f"the {what} is not a field as the record holds it ({found.written})"
    for answer in block.answers:
        if answer.rater is not None:
            return "a rater is named by a column's name, which a field cannot give"
        if not isinstance(answer.question, str):
            return "a question is named by a field"
        if not isinstance(answer.value, Field):
            return "an answer is read from several columns (one-hot, multi-hot or weights)"
        if not _plain(answer.value):
            return f"a value is not a field as the record holds it ({answer.value.written})"
    return None


def _plain(found: Field) -> bool:
    return bool(found.steps) and found.capture is None and not found.file and not found.transforms


__all__ = ["CardFile", "card_file", "describe", "metadata"]
