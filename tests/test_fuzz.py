"""Property tests: the validator is total, honest and deterministic on documents it has never seen.

Two sources of documents:
- generated from each shipped schema (a strategy written here for the keywords the schemas use;
  in half of them about one value in twenty is deliberately off-schema), put in place of the matching file of a
  valid dataset of its family;
- mutations of every valid example and every valid test case: a value deleted, duplicated (an
  object member duplicated is a duplicate key), given another type, a number perturbed, an array
  shuffled, a key renamed; CSV files the same way, by cell, row and column.

For every one of them: validation raises nothing and reports no engine/internal-error; every code
is registered; every pointer resolves in the file it names (RFC 6901 over the parsed data; in JSON
Lines and CSV files the first token is the record or row index); validating twice gives the same
findings. And python-jsonschema and jsonschema-rs give every generated document the same verdict.

The run is seeded (derandomize) and short. A longer one, for maintainers:

    HUMANJUDGE_FUZZ_EXAMPLES=5000 python -m pytest tests/test_fuzz.py -q
"""

from __future__ import annotations

import ast
import csv
import functools
import gzip
import io
import json
import math
import os
import re
import shutil
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from humanjudge_schema import catalog, validate
from humanjudge_schema.finding import Finding, split_pointer
from humanjudge_schema.rulebook import load_all
from humanjudge_schema.schemas import available, load_schema, validator

from .conftest import CASES, ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

EXAMPLES = int(os.environ.get("HUMANJUDGE_FUZZ_EXAMPLES", "12"))
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,  # nothing written into the checkout
    deadline=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# --- documents from a schema --------------------------------------------------------------------

CHARS = st.characters(codec="utf-8")  # no lone surrogates: JSON text cannot hold them
TEXT = st.text(CHARS, max_size=12)
KEYS = st.text(CHARS, min_size=1, max_size=8)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    TEXT,
)
JUNK = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=6
)
_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


class Generator:
    """Values for one schema document, always JSON: with `noisy`, about one value in twenty is
    drawn regardless of its schema."""

    def __init__(self, root: dict[str, Any], noisy: bool = True) -> None:
        self.root = root
        self.defs = root.get("$defs", {})
        self.noisy = noisy
        self._conditions: dict[int, Any] = {}

    def resolve(self, schema: Any) -> dict[str, Any]:
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
            target = self.defs[schema["$ref"].removeprefix("#/$defs/")]
            schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return schema if isinstance(schema, dict) else {}

    def matches(self, condition: dict[str, Any], value: Any) -> bool:
        check = self._conditions.get(id(condition))
        if check is None:
            check = self._conditions[id(condition)] = jsonschema.Draft202012Validator({**condition, "$defs": self.defs})
        return bool(check.is_valid(value))

    def value(self, draw: st.DrawFn, schema: Any, depth: int = 0) -> Any:
        if schema is False:
            return draw(JUNK)
        schema = self.resolve(schema)
        if (self.noisy and draw(st.integers(0, 19)) == 0) or depth > 8:
            return draw(JUNK)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return draw(st.sampled_from(schema["enum"]))
        declared = schema.get("type")
        types = [declared] if isinstance(declared, str) else list(declared or [])
        if not types:
            if "properties" in schema or "additionalProperties" in schema or "required" in schema:
                types = ["object"]
            elif "items" in schema or "prefixItems" in schema:
                types = ["array"]
            else:
                types = list(_TYPES)
        kind = draw(st.sampled_from(types))
        if kind == "null":
            return None
        if kind == "boolean":
            return draw(st.booleans())
        if kind in ("integer", "number"):
            return self.number(draw, schema, kind)
        if kind == "string":
            return self.string(draw, schema)
        if kind == "array":
            return self.array(draw, schema, depth)
        return self.object(draw, schema, depth)

    def number(self, draw: st.DrawFn, schema: dict[str, Any], kind: str) -> Any:
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        step = schema.get("multipleOf")
        if kind == "integer" or step is not None or draw(st.booleans()):
            lo = None if low is None else math.ceil(low)
            hi = None if high is None else math.floor(high)
            if lo is not None and "exclusiveMinimum" in schema and lo == low:
                lo += 1
            if hi is not None and "exclusiveMaximum" in schema and hi == high:
                hi -= 1
            n = draw(st.integers(lo if lo is not None else -(10**4), hi if hi is not None else 10**4))
            if step is not None:
                n = n * step if lo is None or n * step >= lo else n
            return float(n) if kind == "number" and draw(st.booleans()) else n
        return draw(
            st.floats(
                min_value=low,
                max_value=high,
                exclude_min="exclusiveMinimum" in schema,
                exclude_max="exclusiveMaximum" in schema,
                allow_nan=False,
                allow_infinity=False,
            )
        )

    def string(self, draw: st.DrawFn, schema: dict[str, Any]) -> str:
        if "pattern" in schema:
            text: str = draw(st.from_regex(schema["pattern"], fullmatch=True))
            return text
        low = schema.get("minLength", 0)
        high = schema.get("maxLength", low + 12)
        return draw(st.text(CHARS, min_size=low, max_size=max(low, high)))

    def array(self, draw: st.DrawFn, schema: dict[str, Any], depth: int) -> list[Any]:
        prefix = schema.get("prefixItems", [])
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", low + 3), low + 3)
        n = draw(st.integers(low, max(low, high)))
        items = schema.get("items", {})
        out = [self.value(draw, prefix[i] if i < len(prefix) else items, depth + 1) for i in range(n)]
        if schema.get("uniqueItems"):
            seen: dict[bytes, Any] = {}
            for v in out:
                seen.setdefault(orjson.dumps(v, option=orjson.OPT_SORT_KEYS), v)
            out = list(seen.values())
        return out

    def object(self, draw: st.DrawFn, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        props = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if isinstance(k, str)]
        extra = schema.get("additionalProperties", True)
        keys = list(dict.fromkeys(required + [k for k in props if draw(st.booleans())]))
        obj = {k: self.value(draw, props.get(k, extra if isinstance(extra, dict) else {}), depth + 1) for k in keys}
        if isinstance(extra, dict):
            for _ in range(draw(st.integers(0, 2))):
                obj.setdefault(draw(KEYS), self.value(draw, extra, depth + 1))
        for pattern, sub in schema.get("patternProperties", {}).items():
            if draw(st.booleans()):
                obj.setdefault(draw(st.from_regex(pattern, fullmatch=True)), self.value(draw, sub, depth + 1))
        while len(obj) < schema.get("minProperties", 0):
            obj[draw(KEYS)] = self.value(draw, extra if isinstance(extra, dict) else {}, depth + 1)
        return self.conditions(draw, schema, obj, depth)

    def conditions(self, draw: st.DrawFn, schema: dict[str, Any], obj: dict[str, Any], depth: int) -> dict[str, Any]:
        """Apply if/then/else (of the schema and of its allOf): add what the branch taken requires,
        redraw what it narrows."""
        for part in [schema, *map(self.resolve, schema.get("allOf", []))]:
            if "if" not in part:
                continue
            branch = part.get("then") if self.matches(part["if"], obj) else part.get("else")
            if branch is None:
                continue
            branch = self.resolve(branch)
            props = {**schema.get("properties", {}), **branch.get("properties", {})}
            extra = branch.get("additionalProperties", schema.get("additionalProperties", {}))
            for k in branch.get("required", []):
                if k not in obj:
                    obj[k] = self.value(draw, props.get(k, extra if isinstance(extra, dict) else {}), depth + 1)
            for k, sub in branch.get("properties", {}).items():
                if k in obj:
                    obj[k] = self.value(
                        draw, {**self.resolve(schema.get("properties", {}).get(k, {})), **sub}, depth + 1
                    )
            while len(obj) < branch.get("minProperties", 0):
                obj[draw(KEYS)] = self.value(draw, extra if isinstance(extra, dict) else {}, depth + 1)
            obj = self.conditions(draw, branch, obj, depth)
        return obj


@functools.cache
def reference(name: str) -> Any:
    return jsonschema.Draft202012Validator(load_schema(name))


def documents(name: str) -> st.SearchStrategy[Any]:
    """Half of them drawn with noise (mostly invalid), half without (mostly valid)."""
    schema = load_schema(name)
    quiet, noisy = Generator(schema, noisy=False), Generator(schema)

    @st.composite
    def document(draw: st.DrawFn) -> Any:
        gen = noisy if draw(st.booleans()) else quiet
        return gen.value(draw, gen.root)

    return document()


SCHEMAS = available()


@pytest.mark.parametrize("name", SCHEMAS)
@FUZZ
@given(data=st.data())
def test_engines_agree_on_generated_documents(name: str, data: st.DataObject) -> None:
    doc = data.draw(documents(name))
    assert validator(name).is_valid(doc) == reference(name).is_valid(doc), doc


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_generator_reaches_valid_and_invalid_documents(name: str) -> None:
    verdicts: set[bool] = set()

    @settings(FUZZ, max_examples=60)
    @given(documents(name))
    def draw(doc: Any) -> None:
        verdicts.add(bool(reference(name).is_valid(doc)))

    draw()
    assert verdicts == {True, False}


def test_engines_agree_on_exotic_white_space() -> None:
    """Python's `re` counts U+001C to U+001F as white space in `\\s`, the Rust engine does not (the
    fuzzing found it): the schemas write white space as `[ ]`, and the engines agree."""
    name = "coggym/v1/human-data-ind"
    for age in ("20\x1c-30", "20\x85-30", "20\u2003-\u200330", "20 - 30"):
        doc: dict[str, Any] = {"participants_info": {"count": 1, "age": age, "gender": {}}}
        assert validator(name).is_valid(doc) == reference(name).is_valid(doc), repr(age)


# --- reading what a finding points at -----------------------------------------------------------

BROKEN = object()  # a record that does not parse: only the record itself can be pointed at


def _records(raw: bytes) -> list[Any]:
    out = []
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        try:
            out.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            out.append(BROKEN)
    return out


def parsed(path: Path) -> Any:
    """The data of a file as pointers address it, or BROKEN."""
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error):
            return BROKEN
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    if path.name.endswith((".jsonl", ".jsonl.gz")):
        return _records(raw)
    if path.name.endswith(".toml"):  # a declaration: findings point into its keys
        try:
            return tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return BROKEN
    if path.name.endswith(".csv"):
        text = raw.decode("utf-8", "replace")
        try:
            rows = list(csv.reader(io.StringIO(text, newline="")))
        except csv.Error:
            return BROKEN
        rows = [r for r in rows if r]
        if not rows:
            return []
        header = rows[0]
        # a short row is read with its last cells empty
        return [{k: _literal(v) for k, v in zip(header, r + [""] * len(header), strict=False)} for r in rows[1:]]
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return BROKEN


def _literal(cell: str) -> Any:
    """A CSV cell as a pointer into it sees it: a list cell (`['exact', 'close']`) is a list."""
    if cell.startswith("[") and cell.endswith("]") and len(cell) < 10_000:
        try:
            return ast.literal_eval(cell)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return cell
    return cell


def resolves(data: Any, ptr: str) -> bool:
    node = data
    for token in split_pointer(ptr):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif (
            isinstance(node, list) and token.isdigit() and (token == "0" or token[0] != "0") and int(token) < len(node)
        ):
            node = node[int(token)]
        else:
            return False
    return True


def check_findings(paths: list[Path], kind: str, cwd: Path) -> list[Finding]:
    """Validate twice; assert the properties; return the findings."""
    first = validate(paths, kind=kind, cwd=str(cwd)).findings
    second = validate(paths, kind=kind, cwd=str(cwd)).findings
    assert first == second, "two runs, two answers"
    registry = load_all()
    cache: dict[str, Any] = {}
    for f in first:
        assert f.code in registry, f
        target = cwd / f.file
        if f.file not in cache and target.is_file():
            cache[f.file] = parsed(target)
        assert f.code != "engine/internal-error", f
        if not target.is_file():
            assert f.pointer == "", f  # a finding about a folder or a missing file
            continue
        data = cache[f.file]
        if data is BROKEN:
            assert f.pointer == "", f
        elif isinstance(data, list) and f.pointer and target.suffix != ".json":
            tokens = split_pointer(f.pointer)
            assert resolves(data, "/" + tokens[0]), f
            if data[int(tokens[0])] is not BROKEN:
                assert resolves(data, f.pointer), f
        else:
            assert resolves(data, f.pointer), f
    return first


# --- generated documents in place, through the whole validator ---------------------------------


def _slot(name: str) -> tuple[Path, str, str]:
    """(a valid dataset of the schema's format to copy, the file the schema describes, the
    format), from the catalog and the format's example: a schema that no file of its format
    declares, or whose file its example lacks, fails rather than being tried on another format."""
    family = name.split("/", 1)[0]
    fmt = catalog.get(family)
    declared = [(fmt.one_file.schema, "")] if fmt.one_file is not None else []
    declared += [(f.schema, f.name) for f in fmt.files]
    for schema, file in declared:
        part = re.fullmatch(re.escape(schema).replace(r"\*", "([^/]+)"), name)
        if part is None:
            continue
        base = _example(family, *part.groups())
        if not file:  # a one-file format: its example's file of the suffix
            assert fmt.one_file is not None
            file = next((p.name for p in sorted(base.glob(f"*{fmt.one_file.suffix}"))), "")
        assert file and (base / file).is_file(), f"{base} holds no file for the schema {name}"
        return base, file, family
    raise AssertionError(f"no file of the format {family!r} is described by the schema {name}")


def _example(family: str, *parts: str) -> Path:
    """The format's valid example, examples/<format>/valid; where a part of the schema's name is
    decided by the content (HALIE's task: "halie/v1/*/accuracies"), its folder of that name."""
    base = ROOT / "examples" / family / "valid"
    assert base.is_dir(), f"the format {family!r} has no example at {base}"
    return base.joinpath(*parts)


def test_a_schema_no_file_declares_is_tried_on_no_example() -> None:
    """A new format's schema is tried on its own example, never on another format's."""
    with pytest.raises(AssertionError, match="no file of the format"):
        _slot("textjudge/v1/no-such-document")
    with pytest.raises(KeyError):
        _slot("no-such-format/v1/rows")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float, list)):
        return repr(value)
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def serialise(name: str, file: str, records: list[Any]) -> bytes:
    if file.endswith(".csv"):
        header = list(load_schema(name).get("properties", {}))
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        for r in records:
            writer.writerow([_cell(r.get(c)) if isinstance(r, dict) else _cell(r) for c in header])
        return out.getvalue().encode()
    if file.endswith(".json"):
        return orjson.dumps(records[0], option=orjson.OPT_INDENT_2)
    lines = b"".join(orjson.dumps(r) + b"\n" for r in records)
    return gzip.compress(lines, mtime=0) if file.endswith(".gz") else lines


@pytest.mark.parametrize("name", SCHEMAS)
@FUZZ
@given(data=st.data())
def test_generated_documents_through_the_validator(name: str, data: st.DataObject) -> None:
    base, file, family = _slot(name)
    many = not file.endswith(".json")
    records = data.draw(st.lists(documents(name), min_size=1, max_size=4 if many else 1))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "data"
        shutil.copytree(base, folder)
        (folder / file).write_bytes(serialise(name, file, records))
        # A one-file format is named, not walked: a walk takes only what looks like a dataset,
        # and a folder holding none is a usage error.
        one_file = catalog.get(family).one_file is not None
        check_findings([folder / file] if one_file else [folder], family, Path(tmp))


Draw = Callable[..., Any]  # st.DrawFn, or DataObject.draw

# --- mutations of valid datasets --------------------------------------------------------------------


def _data_files(folder: Path) -> list[str]:
    suffixes = (".json", ".jsonl", ".jsonl.gz", ".csv")
    return sorted(
        p.name for p in folder.iterdir() if p.is_file() and p.name.endswith(suffixes) and p.name != "expected.json"
    )


def _valid_sets() -> list[tuple[Path, str]]:
    """Every valid case of every format of the catalog, and its valid example (the folder, or
    each folder in it when it holds datasets rather than files: HALIE's tasks)."""
    # (a declared format's case whose files are all TSV has nothing the mutations read)
    out = [(p, p.parts[-3]) for p in sorted(CASES.glob("*/valid/*")) if p.is_dir() and _data_files(p)]
    for family in catalog.names():
        example = ROOT / "examples" / family / "valid"
        folders = sorted(p for p in example.iterdir() if p.is_dir()) if example.is_dir() else []
        if example.is_dir() and (_data_files(example) or not folders):
            folders = [example]
        out += [(p, family) for p in folders]
    return out


VALID = _valid_sets()


class Pairs(list):  # type: ignore[type-arg]
    """An object written member by member: it may hold one key twice."""


def dumps(value: Any) -> str:
    if isinstance(value, Pairs):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return orjson.dumps(value).decode()


def _paths(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*here, i))


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


NUMBER_PERTURBATIONS: list[Callable[[float], Any]] = [
    lambda n: n + 1,
    lambda n: n - 1,
    lambda n: -n,
    lambda n: n * 10,
    lambda n: n + 0.5,
    lambda n: 0,
    lambda n: 1e300,
    lambda n: float(n),
    lambda n: int(n),
    lambda n: 2**63,
]
OPERATIONS = ("delete", "duplicate", "retype", "perturb", "shuffle", "rename")


def mutate_tree(draw: Draw, root: Any) -> Any:
    """One mutation somewhere in a JSON value (the root is a list of records for JSON Lines)."""
    op = draw(st.sampled_from(OPERATIONS))
    paths = list(_paths(root))
    wanted: dict[str, Callable[[Any], bool]] = {
        "perturb": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "shuffle": lambda v: isinstance(v, list) and len(v) > 1,
    }
    if op in wanted:
        paths = [p for p in paths if wanted[op](_get(root, p))]
    elif op in ("delete", "duplicate", "rename"):
        paths = [p for p in paths if p]
    if op == "rename":
        paths = [p for p in paths if isinstance(_get(root, p[:-1]), dict)]
    if not paths:
        op, paths = "retype", list(_paths(root))
    path = draw(st.sampled_from(paths))
    value = _get(root, path)
    if op == "retype":
        new = draw(JUNK.filter(lambda v: type(v) is not type(value)))
        if not path:
            return new
        _get(root, path[:-1])[path[-1]] = new
    elif op == "perturb":
        _get(root, path[:-1])[path[-1]] = draw(st.sampled_from(NUMBER_PERTURBATIONS))(value)
    elif op == "shuffle":
        if not path:
            return draw(st.permutations(value))
        _get(root, path[:-1])[path[-1]] = draw(st.permutations(value))
    else:
        parent, key = _get(root, path[:-1]), path[-1]
        if op == "delete":
            del parent[key]
        elif isinstance(parent, list):  # duplicate an element
            parent.insert(key, json.loads(json.dumps(parent[key])))
        else:
            items = list(parent.items())
            at = [k for k, _ in items].index(key)
            if op == "duplicate":
                again = draw(st.sampled_from([value, draw(JUNK)]))
                pairs = Pairs([*items[: at + 1], (key, again), *items[at + 1 :]])
            else:
                name = draw(st.sampled_from([key + "_", key.upper(), "", "$ref", key[:-1], *parent]))
                pairs = Pairs([*items[:at], (name, value), *items[at + 1 :]])
            if not path[:-1]:
                return pairs
            _get(root, path[:-2])[path[-2]] = pairs
    return root


def mutate_csv(draw: Draw, rows: list[list[str]]) -> list[list[str]]:
    op = draw(st.sampled_from(OPERATIONS))
    r = draw(st.integers(0, len(rows) - 1))
    c = draw(st.integers(0, max(len(rows[r]) - 1, 0)))
    if op == "delete":
        choice = draw(st.sampled_from(["cell", "row", "column"]))
        if choice == "row" and len(rows) > 1:
            del rows[r]
        elif choice == "column":
            for row in rows:
                if c < len(row):
                    del row[c]
        elif rows[r]:
            rows[r][c] = ""
    elif op == "duplicate":
        if r == 0 and rows[0]:
            rows[0][c] = rows[0][(c + 1) % len(rows[0])]  # two columns of one name
        else:
            rows.insert(r, list(rows[r]))
    elif op == "retype" and rows[r]:
        rows[r][c] = draw(st.sampled_from(["abc", "1", "-1", "1.5", "True", "[1]", "['x']", "", "NaN", "1e400", "{}"]))
    elif op == "perturb" and rows[r]:
        try:
            n = float(rows[r][c])
        except ValueError:
            n = 0.0
        rows[r][c] = repr(draw(st.sampled_from(NUMBER_PERTURBATIONS))(n))
    elif op == "shuffle" and len(rows) > 2:
        rows[1:] = draw(st.permutations(rows[1:]))
    elif op == "rename" and rows[0]:
        rows[0][c] = draw(st.sampled_from([rows[0][c] + "_", rows[0][c].upper(), "", "session_id"]))
    return rows


def mutate_file(draw: Draw, path: Path) -> bytes:
    raw = path.read_bytes()
    gz = path.name.endswith(".gz")
    if gz:
        raw = gzip.decompress(raw)
    if path.name.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(mutate_csv(draw, rows))
        return out.getvalue().encode()
    if path.name.endswith(".json"):
        return dumps(mutate_tree(draw, orjson.loads(raw))).encode()
    records = [orjson.loads(line) for line in raw.split(b"\n") if line.strip()]
    mutated = mutate_tree(draw, records)
    if not isinstance(mutated, list):
        mutated = [mutated]
    text = b"".join(dumps(r).encode() + b"\n" for r in mutated)
    return gzip.compress(text, mtime=0) if gz else text


@pytest.mark.parametrize(("folder", "family"), VALID, ids=[str(p.relative_to(ROOT)) for p, _ in VALID])
@FUZZ
@given(data=st.data())
def test_mutations_of_valid_datasets(folder: Path, family: str, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(_data_files(folder)))
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "data"
        shutil.copytree(folder, copy)
        (copy / name).write_bytes(mutate_file(data.draw, copy / name))
        # a one-file format's file is named: a mutated one may no longer look like a dataset to a walk;
        # a format whose file has companions (a declaration, and the data it declares) is named by it
        found = catalog.get(family).one_file
        if found is not None and found.companions is not None:
            name = next(p.name for p in sorted(copy.iterdir()) if p.name.endswith(found.suffix))
        check_findings([copy / name if found is not None else copy], family, Path(tmp))


# --- what the fuzzing found, kept as tests --------------------------------------------------------------


def test_pointers_through_empty_keys() -> None:
    """jsonschema-rs leaves object keys "" out of its instance paths; the engine puts them back."""
    from humanjudge_schema.engine import schema_errors

    info = {"participants_info": {"count": 1, "age": 1, "gender": {}}}
    name = "coggym/v1/human-data-ind"
    assert schema_errors(name, {**info, "": {"age": 1}})[0][1] == "//age"
    assert schema_errors(name, {**info, "t": {"": 2}})[0][1] == "/t/"
    assert schema_errors(name, {**info, "": {"": 3}})[0][1] == "//"
    assert schema_errors(name, {**info, "t": {"age": 4}})[0][1] == "/t/age"
    assert schema_errors(name, {"participants_info": {"count": "x", "age": 1, "gender": {"": 1.5}}}) == [
        ("schema/type", "/participants_info/count", '"x" is not of type "integer"'),
        ("schema/type", "/participants_info/gender/", '1.5 is not of type "integer"'),
    ]


def test_a_query_that_is_not_an_object_in_an_instruction_module(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "coggym" / "valid", tmp_path / "exp")
    with open(tmp_path / "exp" / "instruction.jsonl", "a") as f:
        f.write('{"id": "hello", "type": "instruction", "text": "Hi.", "queries": [null]}\n')
        f.write('{"id": "again", "type": "instruction", "text": "Hi.", "queries": [{"answer": 1}]}\n')
    assert "engine/internal-error" not in {f.code for f in validate([tmp_path / "exp"]).findings}


def test_overall_of_a_file_without_the_column(tmp_path: Path) -> None:
    folder = tmp_path / "metaphor"
    shutil.copytree(CASES / "halie" / "valid" / "metaphor", folder)
    rows = list(csv.reader(io.StringIO((folder / "event_blocks.csv").read_text(), newline="")))
    k = rows[0].index("overall")
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([r[:k] + r[k + 1 :] for r in rows])
    (folder / "event_blocks.csv").write_text(out.getvalue())
    rows = parsed(folder / "event_blocks.csv")
    findings = validate([folder], kind="halie").findings
    # `overall` is an optional column: without it there is nothing to recompute, and no finding
    # may point at a cell the file does not have
    assert all(resolves(rows, f.pointer) for f in findings)
    assert "halie/overall" not in {f.code for f in findings}


def test_the_mean_of_the_largest_doubles(tmp_path: Path) -> None:
    """Their sum overflows a double (math.fsum raised OverflowError, an engine/internal-error of
    coggym/mean-value); their mean does not."""
    from humanjudge_schema.formats.coggym.aggregation import aggregate_tag

    big = [8.988465674311579e307, 8.98846567431158e307]
    assert aggregate_tag({"type": "single-slider", "tag": "t"}, big) == pytest.approx(8.98846567431158e307)
    folder = tmp_path / "exp"
    shutil.copytree(CASES / "coggym" / "valid" / "flow-sequences", folder)
    ind = orjson.loads((folder / "human_data_ind.json").read_bytes())
    ind["trial_2"]["confidence"][0] = big
    (folder / "human_data_ind.json").write_bytes(orjson.dumps(ind))
    check_findings([folder], "coggym", tmp_path)
