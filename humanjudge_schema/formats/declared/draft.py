"""`humanjudge declare`: a declaration drafted from data, for the user to read and edit.

What the columns hold decides: how a table is written (its delimiter, whether its first row is a
header, whether quote characters are text), each column's type, the rater (a column of few values
whose pairs with the item are unique), the item (the column, or the fewest columns, that pairs
with the rater best, several rows each), the answers (columns that vary within an item: few
values, or numbers; families of 0/1 columns as one-hot or multi-select answers), and whether a
rater's rows of an item are one answer each or several rows to count (an error log). JSON
records keyed by annotator, and one column per rater, are found too. Everything the draft could
not decide is said, in the draft and to the user."""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from .fields import text

SAMPLE = 200_000  # rows or records read of each file
ROLE_ROWS = 20_000  # rows the roles of the columns are decided on
_RATERS = re.compile(r"(annotat|worker|rater|judge|coder|labeler|labeller|user_?id|participant|assessor)", re.I)
_ITEMS = re.compile(r"(^id$|_id$|^idx$|item|example|text|seg|doc|question|prompt|sentence|url|pair)", re.I)
_NUMBER = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_INTEGER = re.compile(r"-?[0-9]+")
_DELIMITERS = ("\t", ",", ";", "|")


class DraftError(ValueError):
    """A file the draft cannot read at all (the message says why)."""


@dataclass
class Draft:
    """A drafted declaration: its TOML, and what the draft could not decide."""

    text: str
    notes: list[str] = field(default_factory=list)


@dataclass
class DraftTable:
    """A table as read: its dialect, its columns' names (given or made up) and its rows."""

    path: Path
    delimiter: str
    quoting: bool
    header: bool
    columns: list[str]
    rows: list[list[str]]


# --- reading ---------------------------------------------------------------------------------


def _lines(path: Path, limit: int) -> list[str]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            return [line for line in islice(f, limit) if line.strip()]
    except UnicodeDecodeError as exc:
        raise DraftError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise DraftError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _delimiter(path: Path, lines: list[str]) -> str:
    if path.suffix.lower() == ".tsv":
        return "\t"
    if path.suffix.lower() == ".csv":
        return ","
    head = lines[:50]
    best, most = "", 0
    for d in _DELIMITERS:
        counts = {line.count(d) for line in head}
        if len(counts) == 1 and (n := counts.pop()) > most:
            best, most = d, n
    if best:
        return best
    widths = {len(line.split()) for line in head[1:]}
    return "whitespace" if len(widths) == 1 and widths.pop() > 1 else ","


def _split(lines: list[str], delimiter: str, quoting: bool) -> list[list[str]]:
    if delimiter == "whitespace":
        return [line.split() for line in lines]
    if quoting:
        return list(csv.reader(io.StringIO("".join(lines), newline=""), delimiter=delimiter))
    return list(csv.reader(io.StringIO("".join(lines), newline=""), delimiter=delimiter, quoting=csv.QUOTE_NONE))


def read_table(path: Path) -> DraftTable:
    lines = _lines(path, SAMPLE + 1)
    if not lines:
        raise DraftError(f"{path}: no rows")
    delimiter = _delimiter(path, lines)
    rows = _split(lines, delimiter, True)
    bare = _split(lines, delimiter, False) if any('"' in line for line in lines) else rows
    # Quote characters that are text (MQM's): the rows read bare are all of one width, and
    # reading quotes changes them.
    quoting = bare is rows or not (len({len(r) for r in bare}) == 1 and bare != rows)
    rows = rows if quoting else bare
    width = len(rows[0])
    rows = [r for r in rows if len(r) == width]
    header = _has_header(rows)
    if header:
        columns, rows = rows[0], rows[1:]
    else:
        columns = [f"column{k + 1}" for k in range(width)]
    return DraftTable(path, delimiter, quoting, header, columns, rows)


def _has_header(rows: list[list[str]]) -> bool:
    """Whether the first row names the columns: none of its cells is a value of its column
    below, and a column holds numbers where its first cell is not one, or every first cell reads
    as a name."""
    first, rest = rows[0], rows[1:1001]
    if not rest:
        return True
    for k, cell in enumerate(first):
        if any(r[k] == cell for r in rest):
            return False
    numbers_below = any(
        not _NUMBER.fullmatch(cell) and all(_NUMBER.fullmatch(r[k]) for r in rest if r[k])
        for k, cell in enumerate(first)
    )
    names = all(re.fullmatch(r"[A-Za-z_][\w .:/-]*", cell) for cell in first)
    return numbers_below or names


# --- columns ---------------------------------------------------------------------------------


@dataclass
class DraftColumn:
    name: str
    values: list[str]
    distinct: int
    empty: int
    kind: str  # integer, number, string (boolean: a Parquet column of them)

    @property
    def binary(self) -> bool:
        return set(self.values) <= {"0", "1", ""} and self.distinct > 0


def _kind(values: Iterable[str]) -> str:
    found = [v for v in values if v]
    if found and all(_INTEGER.fullmatch(v) for v in found):
        return "integer"
    if found and all(_NUMBER.fullmatch(v) for v in found):
        return "number"
    return "string"


def columns_of(table: DraftTable) -> list[DraftColumn]:
    out = []
    for k, name in enumerate(table.columns):
        values = [r[k] for r in table.rows]
        distinct = set(values)
        out.append(DraftColumn(name, values, len(distinct - {""}), values.count(""), _kind(distinct)))
    return out


def _family(name: str) -> str | None:
    """The family a 0/1 column belongs to: its name up to its first "." (`type.sex_harassment`),
    else up to its last "_"."""
    cut = name.find(".") if "." in name else name.rfind("_")
    return name[: cut + 1] if cut > 0 else None


@dataclass
class ColumnFamily:
    """Columns of one family of 0/1 cells: a one-hot answer, or a multi-select one."""

    prefix: str
    columns: list[DraftColumn]
    one_hot: bool
    unasked: bool  # a multi-select that most rows leave empty: asked of some rows only

    @property
    def question(self) -> str:
        return self.prefix.rstrip("._") or "answer"

    def labels(self) -> list[str]:
        return [c.name[len(self.prefix) :] for c in self.columns]


def groups_of(columns: list[DraftColumn]) -> list[ColumnFamily]:
    families: dict[str, list[DraftColumn]] = {}
    for c in columns:
        prefix = _family(c.name)
        if prefix is not None and c.binary:
            families.setdefault(prefix, []).append(c)
    out = []
    for prefix, members in families.items():
        if len(members) < 2:
            continue
        sums = [sum(int(v == "1") for v in cells) for cells in zip(*(c.values for c in members), strict=True)]
        one_hot = all(s == 1 for s in sums)
        out.append(ColumnFamily(prefix, members, one_hot, not one_hot and sums.count(0) > len(sums) / 2))
    return out


# --- roles -----------------------------------------------------------------------------------


def _keys(columns: list[DraftColumn]) -> list[Any]:
    """Each row's key of some columns (made in C)."""
    return columns[0].values if len(columns) == 1 else list(zip(*(c.values for c in columns), strict=True))


def _score(item: list[DraftColumn], rater: DraftColumn, n: int) -> tuple[float, float]:
    """(how unique the (item, rater) pairs are, rows per item)."""
    keys = _keys(item)
    items = len(set(keys))
    pairs = len(set(zip(keys, rater.values, strict=True)))
    return pairs / n, n / max(items, 1)


def _length(columns: list[DraftColumn]) -> float:
    return sum(sum(map(len, c.values[:1000])) / max(1, len(c.values[:1000])) for c in columns)


# An item has more rows than one (several raters, or several marks of one rater) on average.
_PER_ITEM = 1.05


def _item_for(rater: DraftColumn, candidates: list[DraftColumn], n: int) -> tuple[list[DraftColumn], float, float]:
    """The column, or the fewest columns, that pair with the rater most uniquely while items
    keep more than a row each; of keys as good, the shortest (ids rather than texts)."""
    best: tuple[list[DraftColumn], float, float] = ([], 0.0, 0.0)
    singles = [c for c in candidates if c is not rater and c.distinct < n]
    for c in singles:
        unique, per = _score([c], rater, n)
        if per >= _PER_ITEM and (unique, _ITEMS.search(c.name) is not None) > (best[1], False):
            best = ([c], unique, per)
    while best[0] and best[1] < 0.995 and len(best[0]) < 5:  # a column more, while it helps
        grown = best
        for c in singles:
            if c in best[0]:
                continue
            unique, per = _score([*best[0], c], rater, n)
            if per >= _PER_ITEM and unique > grown[1] + 0.002:
                grown = ([*best[0], c], unique, per)
        if grown is best:
            break
        best = grown
    short = [c for c in singles if _length([c]) <= 40]
    for pair in ([a, b] for k, a in enumerate(short) for b in short[k + 1 :]):
        unique, per = _score(pair, rater, n)
        if per >= _PER_ITEM and unique >= best[1] - 0.001 and _length(pair) < _length(best[0]):
            best = (pair, unique, per)
    return best


def _varies(column: DraftColumn, item: list[DraftColumn], n: int) -> bool:
    """Whether a column's value differs within some item (an answer), not fixed per item (what
    the item is: its document, its system)."""
    keys = _keys(item)
    return len(set(zip(keys, column.values, strict=True))) > len(set(keys))


@dataclass
class Roles:
    rater: DraftColumn | None
    item: list[DraftColumn]
    answers: list[DraftColumn]
    groups: list[ColumnFamily]
    per_pair: float  # rows per (item, rater) pair


def roles_of(columns: list[DraftColumn], n: int) -> Roles:
    """The roles of a table's columns, decided on its first ROLE_ROWS rows."""
    if n > ROLE_ROWS:
        columns = [DraftColumn(c.name, c.values[:ROLE_ROWS], c.distinct, c.empty, c.kind) for c in columns]
        n = ROLE_ROWS
    return _roles_of(columns, n)


def _roles_of(columns: list[DraftColumn], n: int) -> Roles:
    groups = groups_of(columns)
    grouped = {id(c) for g in groups for c in g.columns}
    free = [c for c in columns if id(c) not in grouped and c.distinct > 0]
    candidates = [c for c in free if 2 <= c.distinct <= max(2, n // 3) and c.kind != "number"]
    # a column named as raters are, where there is one
    candidates = [c for c in candidates if _RATERS.search(c.name)] or candidates
    best: tuple[Any, ...] = (None, [], 0.0, 0.0)
    for rater in candidates:
        item, unique, per = _item_for(rater, free, n)
        if item and unique > best[2]:
            best = (rater, item, unique, per)
    rater, item, unique = best[0], best[1], best[2]
    if rater is None:  # no rater column: the items alone
        ids = [c for c in free if c.distinct > 1]
        item = ids[:1]
    used = {id(c) for c in item} | ({id(rater)} if rater is not None else set())
    answers = [
        c
        for c in free
        if id(c) not in used
        and c.empty < 0.9 * n
        and (c.distinct <= 30 or c.kind != "string")
        and c.distinct < n
        and (not item or _varies(c, item, n))
    ]
    return Roles(rater, item, answers, groups, 1 / unique if unique else 1.0)


# --- the TOML --------------------------------------------------------------------------------


def _toml(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _key_name(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _toml(name)


def _property(c: DraftColumn) -> str:
    if c.binary:
        schema = "{ enum = [0, 1] }"
    elif c.kind == "string" and 0 < c.distinct <= 12:
        values = sorted(set(c.values) - {""})
        schema = f"{{ enum = {_toml(values)} }}"
    else:
        schema = f'{{ type = "{c.kind}" }}'
    return f"properties.{_key_name(c.name)} = {schema}"


def _slug(path: Path) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", path.name.split(".")[0].lower()).strip("-")
    return slug or "ratings"


def _level(c: DraftColumn) -> tuple[str, list[Any] | None]:
    if c.kind == "boolean":  # a Parquet column's true and false
        return "nominal", [False, True]
    values = sorted(set(c.values) - {""})
    if c.kind == "integer":
        numbers = sorted(int(v) for v in values)
        if len(numbers) <= 11:
            return "ordinal", numbers
        return "interval", None
    if c.kind == "number":
        return "interval", None
    return "nominal", values if len(values) <= 30 else None


def _table_blocks(
    table: DraftTable, role: str, out: list[str], notes: list[str], columns: list[DraftColumn] | None = None
) -> None:
    n = len(table.rows)
    columns = columns_of(table) if columns is None else columns
    roles = roles_of(columns, n)
    if roles.rater is None:
        notes.append(f"{table.path.name}: no column reads as the rater (few values, one answer per item each)")
    if not roles.answers and not roles.groups:
        notes.append(f"{table.path.name}: no column reads as an answer (values that vary within an item)")
    counted = roles.per_pair > 1.1 and roles.rater is not None
    questions: list[str] = []
    for g in [] if counted else roles.groups:  # counted marks: a count is asked, not these
        labels = g.labels()
        if g.one_hot:
            level_values = [_number(v) for v in labels]
            if all(isinstance(v, int) for v in level_values):
                ordered = sorted(level_values)
                questions += [
                    f"[questions.{_key_name(g.question)}]",
                    'level = "ordinal"',
                    f"values = {_toml(ordered)}",
                    "",
                ]
        else:
            questions += [f"[questions.{_key_name(g.question)}]", "multi = true", f"labels = {_toml(labels)}", ""]
    for c in [] if counted else roles.answers:
        level, values = _level(c)
        questions += [f"[questions.{_key_name(c.name)}]", f'level = "{level}"']
        if values is not None:
            questions.append(f"values = {_toml(values)}")
        questions.append("")
    out += questions
    item = [c.name for c in roles.item]
    answers: list[tuple[str, str]] = []
    for g in roles.groups:
        kind = "one-hot" if g.one_hot else "multi-hot"
        extra = ', empty = "no answer"' if g.unasked else ""
        answers.append((g.question, f"{{ {kind} = {_toml(g.prefix + '{value}')}{extra} }}"))
    answers += [(c.name, _toml(c.name)) for c in roles.answers]
    if counted:
        share = f"{roles.per_pair:.2f}"
        notes.append(
            f"{table.path.name}: a rater has {share} rows per item on average: each row is read as one "
            'mark (an error, a span) and the rows of an item and rater are counted (combine = "count"); '
            'weigh them with value = { weights = [...] } and combine = "sum" where the marks have weights'
        )
        answers = answers[:1]
    out += ["[[judgments]]", f'file = "{role}"']
    out.append(f"item = {_toml(item[0]) if len(item) == 1 else _toml(item)}")
    if roles.rater is not None:
        out.append(f"rater = {_toml(roles.rater.name)}")
    if counted and answers:
        out += ['question = "marks"', f"value = {answers[0][1]}", 'combine = "count"']
    elif len(answers) == 1:
        out += [f"question = {_toml(answers[0][0])}", f"value = {answers[0][1]}"]
    else:
        out.append("")
        out.append("[judgments.questions]")
        out += [f"{_key_name(q)} = {v}" for q, v in answers]
    if not answers:
        out.append('question = "answer"  # could not decide which column is the answer')
        out.append('value = "?"')
    out.append("")


def _number(text: str) -> Any:
    if _INTEGER.fullmatch(text):
        return int(text)
    return float(text) if _NUMBER.fullmatch(text) else text


def _table(path: Path, role: str, files: list[str], blocks: list[str], notes: list[str]) -> None:
    table = read_table(path)
    kind = "tsv" if table.delimiter == "\t" else "csv"
    files += [f"[files.{role}]", f"name = {_toml(path.name)}", f'type = "{kind}"']
    if table.delimiter not in ("\t", ","):
        files.append(f"delimiter = {_toml(table.delimiter)}")
    if not table.quoting:
        files.append("quoting = false  # quote characters are text here")
    columns = columns_of(table)
    if not table.header:
        files += ["header = false", f"columns = {_toml(table.columns)}  # no header row: name them"]
        notes.append(f"{path.name}: no header row; its columns are named column1, column2, ...: rename them")
    files += ["", f"[files.{role}.record]", 'type = "object"']
    required = [c.name for c in columns if c.empty == 0]
    files += [f"required = {_toml(required)}", "additionalProperties = false"]
    files += [_property(c) for c in columns]
    files.append("")
    _table_blocks(table, role, blocks, notes)


# --- Parquet ---------------------------------------------------------------------------------


def _parquet_rows(path: Path) -> tuple[list[str], list[str | None], list[dict[str, Any]]]:
    """The columns of a Parquet file, the JSON type of each, and its first SAMPLE rows."""
    from ...readers.parquetfile import NEEDS_PYARROW, ParquetRecords, available

    if not available():
        raise DraftError(f"{path}: {NEEDS_PYARROW}")
    stream = ParquetRecords(path)
    batches = iter(stream)
    records: list[dict[str, Any]] = []
    try:
        for batch in batches:
            records += [r for r in batch.records if isinstance(r, dict)]
            if len(records) >= SAMPLE:
                break
    finally:
        batches.close()  # type: ignore[attr-defined]
    if stream.columns is None:
        said = stream.problems[0].message if stream.problems else "not read"
        raise DraftError(f"{path}: {said}")
    return stream.columns, stream.types, records[:SAMPLE]


def _cell(value: Any) -> str:
    """A value of a Parquet row as the text a CSV cell of it would be."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return text(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _parquet_property(c: DraftColumn, kind: str | None, nulls: bool) -> str:
    """A column's schema from its Arrow type (null allowed where the sample holds one)."""
    if not nulls and kind == "string" and 0 < c.distinct <= 12:
        schema = f"{{ enum = {_toml(sorted(set(c.values)))} }}"
    elif not nulls and kind == "integer" and c.binary:
        schema = "{ enum = [0, 1] }"
    elif kind is None:
        schema = "{}"
    else:
        schema = f"{{ type = {_toml([kind, 'null'] if nulls and kind != 'null' else kind)} }}"
    return f"properties.{_key_name(c.name)} = {schema}"


def _parquet(path: Path, role: str, files: list[str], blocks: list[str], notes: list[str]) -> None:
    names, kinds, records = _parquet_rows(path)
    if not records:
        raise DraftError(f"{path}: no rows")
    table = DraftTable(path, ",", True, True, names, [[_cell(r.get(n)) for n in names] for r in records])
    columns = columns_of(table)
    for c, kind in zip(columns, kinds, strict=True):
        if kind in ("integer", "boolean"):
            c.kind = kind
    files += [f"[files.{role}]", f"name = {_toml(path.name)}", 'type = "parquet"']
    files += ["", f"[files.{role}.record]", 'type = "object"']
    # every row has every column (null where it holds no value)
    files += [f"required = {_toml(names)}", "additionalProperties = false"]
    nulls = [any(r.get(n) is None for r in records) for n in names]
    files += [_parquet_property(c, kind, null) for c, kind, null in zip(columns, kinds, nulls, strict=True)]
    files.append("")
    _table_blocks(table, role, blocks, notes, columns)


# --- JSON ------------------------------------------------------------------------------------


def _records(path: Path) -> tuple[str, list[tuple[Any, Any]]]:
    """(the records' pointer, [(key or index, record)]) of a JSON or JSON Lines file."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DraftError(f"{path}: cannot read: {exc}") from None
    if path.name.endswith((".jsonl", ".ndjson")):
        found = [json.loads(line) for line in islice(text.splitlines(), SAMPLE) if line.strip()]
        return "", list(enumerate(found))
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DraftError(f"{path}: not JSON: {exc}") from None
    if isinstance(data, list):
        return "/*", list(enumerate(data[:SAMPLE]))
    if isinstance(data, dict):
        lists = [k for k, v in data.items() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
        if len(lists) == 1:
            return f"/{lists[0]}/*", list(enumerate(data[lists[0]][:SAMPLE]))
        return "/*", list(islice(data.items(), SAMPLE))
    raise DraftError(f"{path}: holds no records (a JSON object or array of them)")


def _json(path: Path, role: str, files: list[str], blocks: list[str], notes: list[str]) -> None:
    pointer, records = _records(path)
    kind = "jsonl" if not pointer else "json"
    files += [f"[files.{role}]", f"name = {_toml(path.name)}", f'type = "{kind}"']
    if pointer:
        files.append(f"records = {_toml(pointer)}")
    dicts = [r for _, r in records if isinstance(r, dict)]
    if not dicts:
        raise DraftError(f"{path}: its records are not objects")
    fields: Counter[str] = Counter(k for r in dicts for k in r)
    required = [k for k, n in fields.items() if n == len(dicts)]
    files += ["", f"[files.{role}.record]", 'type = "object"', f"required = {_toml(required)}"]
    files += [f"properties.{_key_name(k)} = {_json_type(dicts, k)}" for k in fields]
    files.append("")
    keyed = pointer.endswith("*") and not isinstance(records[0][0], int)
    captures = pointer.count("*")
    item = "@1" if keyed else _id_field(dicts)
    found = _keyed_answers(dicts)
    wide = _wide(dicts)
    if found is not None:
        name, _ = found
        blocks += [
            "[[judgments]]",
            f'file = "{role}"',
            f"each = {_toml(name + '/*')}  # the rater is the key",
            f"item = {_toml(item)}",
            f'rater = "@{captures + 1}"',
            'question = "answer"',
            'value = "."',
            "",
        ]
        notes.append(f"{path.name}: the answers are the values of {name!r}, keyed by rater; name the question")
    elif wide is not None:
        template, _ = wide
        blocks += [
            "[[judgments]]",
            f'file = "{role}"',
            f"item = {_toml(item)}",
            f"raters = {_toml(template)}",
            'question = "answer"',
            "",
        ]
        notes.append(f"{path.name}: one field per rater ({template}); name the question")
    else:
        notes.append(f"{path.name}: could not decide where the judgments are in its records: write [[judgments]]")
    if item is None:
        notes.append(f"{path.name}: no field reads as the item's id")


def _json_type(records: list[dict[str, Any]], name: str) -> str:
    kinds = {_KINDS.get(type(r[name]), "string") for r in records if name in r and r[name] is not None}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    return f'{{ type = "{kinds.pop()}" }}' if len(kinds) == 1 else "{}"


_KINDS = {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", list: "array"}


def _id_field(records: list[dict[str, Any]]) -> str | None:
    for name in records[0]:
        values = [r.get(name) for r in records]
        if all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values) and len(set(values)) == len(
            values
        ):
            return name
    return None


def _keyed_answers(records: list[dict[str, Any]]) -> tuple[str, set[Any]] | None:
    """A field holding an object of scalars whose keys recur across records: answers keyed by
    rater (`{"annotations": {"Ann3": "1"}}`)."""
    for name in records[0]:
        objects = [r.get(name) for r in records]
        if not all(isinstance(o, dict) and o for o in objects):
            continue
        keys = Counter(k for o in objects for k in o)  # type: ignore[union-attr]
        values = {v for o in objects for v in o.values()}  # type: ignore[union-attr]
        scalar = all(isinstance(v, (str, int, float, bool)) for v in values)
        if scalar and len(values) <= 30 and max(keys.values()) > 1:
            return name, values
    return None


def _wide(records: list[dict[str, Any]]) -> tuple[str, list[str]] | None:
    """Fields named alike but for a number (`annotator1`, `annotator2`) with one small domain."""
    families: dict[str, list[str]] = {}
    for name in records[0]:
        m = re.fullmatch(r"(.*?)([0-9]+)(.*)", name)
        if m:
            families.setdefault(m.group(1) + "{rater}" + m.group(3), []).append(name)
    for template, names in families.items():
        values = {r.get(n) for r in records for n in names}
        if len(names) >= 2 and len(values) <= 30 and all(isinstance(v, (int, str)) for v in values if v is not None):
            return template, names
    return None


# --- the draft -------------------------------------------------------------------------------


def draft(paths: list[Path]) -> Draft:
    """A declaration of the files, and what could not be decided."""
    if not paths:
        raise DraftError("name the data files to declare")
    notes: list[str] = []
    files: list[str] = []
    blocks: list[str] = []
    questions: list[str] = []
    roles = _roles(paths)
    for path, role in zip(paths, roles, strict=True):
        if path.name.endswith((".json", ".jsonl", ".ndjson")):
            _json(path, role, files, blocks, notes)
        else:
            start = len(blocks)
            (_parquet if path.name.endswith(".parquet") else _table)(path, role, files, blocks, notes)
            cut = next((k for k in range(start, len(blocks)) if blocks[k] == "[[judgments]]"), len(blocks))
            questions += blocks[start:cut]
            del blocks[start:cut]
    head = [
        f"# A declaration drafted by `humanjudge declare` from {', '.join(p.name for p in paths)}.",
        "# Read it, check each guess marked below, and save it beside the data as humanjudge-format.toml.",
        *(f"# - {note}" for note in notes),
        "declaration = 1",
        f'name = "{_name(paths[0])}"',
        "",
    ]
    return Draft("\n".join([*head, *files, *questions, *blocks]).rstrip() + "\n", notes)


def _name(path: Path) -> str:
    """The format's name: the file's, unless a format known here has it."""
    from ... import catalog

    name, taken = _slug(path), set(catalog.names())
    return name if name not in taken else next(f"{name}-{k}" for k in range(2, 1000) if f"{name}-{k}" not in taken)


def _roles(paths: list[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        role = re.sub(r"[^A-Za-z0-9_-]+", "_", path.name.split(".")[0]).strip("_-") or "data"
        if not role[0].isalnum():
            role = "f" + role
        while role in out:
            role += "_"
        out.append(role)
    return out
