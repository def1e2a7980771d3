"""The schemas themselves: valid against their metaschema, conventional, and judged the same way
by python-jsonschema (the reference implementation) and jsonschema-rs (the engine) on every
fixture."""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest

from humanjudge_schema import catalog, schemas
from humanjudge_schema.engine import schema_errors
from humanjudge_schema.readers.jsonfile import BROKEN, parse, parse_jsonl

from .conftest import CASES

NAMES = schemas.available()


def test_every_family_ships_schemas() -> None:
    # a declared format's record schemas are written in its declaration (formats/declared)
    installed = {name for name, fmt in catalog.formats().items() if fmt.declared_by is None}
    assert {n.split("/")[0] for n in NAMES} == installed


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_and_conventional(name: str) -> None:
    schema = schemas.load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://humanjudge-schema.org/schemas/{name}.schema.json"
    assert schema.get("title") and schema.get("description")
    # `\s` and `\d` mean different character sets to Python's re, Rust's regex and ECMA-262
    patterns = _values_of(schema, "pattern") + list(_keys_of(schema, "patternProperties"))
    assert not [p for p in patterns if "\\s" in p or "\\d" in p], f"non-portable class in {name}"
    refs = _values_of(schema, "$ref")
    assert all(r.startswith("#/") for r in refs), f"non-local $ref in {name}: {refs}"


def _keys_of(node: Any, key: str) -> list[str]:
    return [k for table in _values_of(node, key) if isinstance(table, dict) for k in table]


def _values_of(node: Any, key: str) -> list[Any]:
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                out.append(v)
            out.extend(_values_of(v, key))
    elif isinstance(node, list):
        for v in node:
            out.extend(_values_of(v, key))
    return out


def _schema_for(path: Path) -> str | None:
    """The schema of a case file, as the catalog names it: by its fixed name, or by the suffix
    of a format whose every file is a dataset (a schema the content decides is left out)."""
    fmt = catalog.formats().get(path.relative_to(CASES).parts[0])
    if fmt is None or path.name == "expected.json":
        return None
    declared = fmt.file(path.name)
    if declared is not None:
        return None if "*" in declared.schema else declared.schema
    if fmt.one_file is not None and path.name.endswith(fmt.one_file.suffix):
        return fmt.one_file.schema
    return None


def _instances(path: Path) -> Iterator[Any]:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    if ".jsonl" in path.name:
        doc, _ = parse_jsonl(path, raw)
        yield from (r for r in doc.records if r is not BROKEN)
    else:
        data, _ = parse(raw)
        if data is not BROKEN:
            yield data


FIXTURES = sorted(p for p in CASES.rglob("*") if p.is_file() and _schema_for(p))


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(CASES)) for p in FIXTURES])
def test_both_engines_agree(path: Path) -> None:
    name = _schema_for(path)
    assert name is not None
    reference = jsonschema.Draft202012Validator(schemas.load_schema(name))
    for instance in _instances(path):
        fast = sorted((code.removeprefix("schema/"), ptr) for code, ptr, _ in schema_errors(name, instance))
        ref = sorted({(_kebab(e.validator), _pointer(e.absolute_path)) for e in _leaves(reference, instance)})
        assert bool(fast) == bool(ref), (fast, ref)
        assert {p for _, p in fast} == {p for _, p in ref}


def test_halie_rows_agree_too() -> None:
    rows = 0
    for path in sorted(CASES.glob("halie/*/*/*.csv")):
        task = _halie_task(path)
        if task is None:
            continue
        name = f"halie/v1/{task}/{path.stem.replace('_', '-')}"
        reference = jsonschema.Draft202012Validator(schemas.load_schema(name))
        for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline="")):
            instance = {k: v for k, v in row.items() if v not in ("", None)}
            # uncoerced rows: a type error shows up in both engines alike
            assert bool(schema_errors(name, instance)) == (not reference.is_valid(instance))
            rows += 1
    assert rows > 0


def _halie_task(path: Path) -> str | None:
    name = path.parent.name
    for task in ("crossword", "dialogue", "question", "summarization", "metaphor"):
        if task in name:
            return task
    return None


def _leaves(validator: jsonschema.Draft202012Validator, instance: Any) -> Iterator[Any]:
    for error in validator.iter_errors(instance):
        yield from _flatten(error)


def _flatten(error: Any) -> Iterator[Any]:
    # python-jsonschema reports an if/then or allOf failure as one error with a context of
    # sub-errors only for the applicator keywords; the leaves are what jsonschema-rs reports.
    if error.context:
        for sub in error.context:
            yield from _flatten(sub)
    else:
        yield error


def _kebab(name: str) -> str:
    import re

    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _pointer(path: Any) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)


def test_schema_cli_paths_match_the_loader() -> None:
    for name in NAMES:
        assert orjson.loads(schemas.schema_path(name).read_bytes()) == schemas.load_schema(name)
