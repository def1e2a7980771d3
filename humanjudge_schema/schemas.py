"""The shipped JSON Schemas: where they are, and one compiled validator per schema per process.

This is the only module that knows where schema files live. The built-in formats' schemas are
package data in a wheel (`humanjudge_schema/schemas/`) and the repository's top-level `schemas/`
folder in a source checkout or an editable install. A plug-in format keeps its schemas in its own
package and names the folder in its declaration (`Format.schemas`).
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Any

import orjson


@functools.cache
def schema_root() -> Path:
    packaged = Path(str(resources.files("humanjudge_schema"))) / "schemas"
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parent.parent / "schemas"
    if source.is_dir():
        return source
    raise RuntimeError("humanjudge-schema is installed without its schemas/ folder; reinstall it")


@functools.cache
def _roots() -> dict[str, Path]:
    """format -> the folder holding its schemas (<format>/v<N>/...), for plug-ins that bring their own."""
    from . import catalog

    out = {}
    for fmt in catalog.formats().values():
        if fmt.schemas is not None:
            package, _, folder = fmt.schemas.partition(":")
            out[fmt.name] = Path(str(resources.files(package))) / folder
    return out


def _root_of(name: str) -> Path:
    # The package's own schemas first: the catalog may be making its formats (a declared
    # format's declaration is checked against declared/v1/declaration as it is read).
    if (schema_root() / f"{name}.schema.json").is_file():
        return schema_root()
    return _roots().get(name.split("/", 1)[0]) or schema_root()


def schema_path(name: str) -> Path:
    """Path of a schema by name: "coggym/v1/trial" -> .../schemas/coggym/v1/trial.schema.json."""
    return _root_of(name) / f"{name}.schema.json"


def available() -> list[str]:
    """The names of the schemas of every format ("coggym/v1/trial", ...)."""
    return list(_names())


def _walk(root: Path, only: str | None = None) -> list[str]:
    found = (
        str(p.relative_to(root)).removesuffix(".schema.json").replace("\\", "/")
        for p in (root / only if only else root).rglob("*.schema.json")
    )
    return [n for n in found if only is None or n.startswith(only + "/")]


@functools.cache
def _names() -> tuple[str, ...]:
    # a walk of the schema folders costs a few milliseconds, and rules ask often
    names = _walk(schema_root())
    for family, root in _roots().items():
        names += _walk(root, family)
    return tuple(sorted(set(names)))


# Schemas held in memory by name: a declared format's record schemas, written in its declaration
# (formats/declared), which no schema folder holds.
_HELD: dict[str, Any] = {}
_GENERATION = [0]


def hold(name: str, schema: Any) -> None:
    """Keep a schema under a name, as if a schema folder held it; a name held again with another
    schema forgets what was compiled of the first."""
    if name in _HELD and _HELD[name] == schema:
        return
    _HELD[name] = schema
    _GENERATION[0] += 1
    for cached in (_load, validator, points):
        cached.cache_clear()


def generation() -> int:
    """A number that changes whenever a held schema does (for caches of compiled schemas)."""
    return _GENERATION[0]


def load_schema(name: str) -> Any:
    return _HELD[name] if name in _HELD else _load(name)


@functools.cache
def _load(name: str) -> Any:
    return orjson.loads(schema_path(name).read_bytes())


class RemoteReferenceError(ValueError):
    """A schema names a resource by URI ($ref to another document): nothing is fetched."""


def _refuse(uri: str) -> Any:
    # jsonschema-rs fetches remote $ref targets over HTTP unless told otherwise; the tool never
    # opens a network connection, and the shipped schemas only refer to their own $defs.
    raise RemoteReferenceError(f"refused to fetch {uri}: schemas may only refer to their own definitions")


def compile_schema(schema: Any) -> Any:
    """A jsonschema-rs validator for a schema, with every retrieval of another resource refused
    (raises jsonschema_rs.ValidationError naming the URI when the schema needs one)."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(schema, retriever=_refuse)


@functools.cache
def validator(name: str) -> Any:
    return compile_schema(load_schema(name))


POINTS = 101  # the most values a property may allow for them to be listed as its points


@functools.cache
def points(name: str, field: str) -> tuple[Any, ...] | None:
    """The values the schema `name` allows for its property `field`, in order, where they are
    few (an enum, a boolean, whole numbers between a minimum and a maximum: at most `POINTS`),
    null left out: the choices a rater had, which agreement's chance terms count even where no
    rater chose them. None where the schema does not bound the property so."""
    schema = load_schema(name)
    prop = (schema.get("properties") or {}).get(field)
    if not isinstance(prop, dict):
        return None
    defs = schema.get("$defs") or {}
    shown = resolved(schema, prop)
    if "enum" in shown:
        candidates = [v for v in shown["enum"] if v is not None]
    elif "boolean" in declared_types(shown):
        candidates = [False, True]
    elif isinstance(shown.get("minimum"), int) and isinstance(shown.get("maximum"), int):
        low, high = shown["minimum"], shown["maximum"]
        whole = "integer" in declared_types(shown) or shown.get("multipleOf") == 1
        candidates = list(range(low, high + 1)) if whole and 0 <= high - low < POINTS else []
    else:
        return None
    allowed = compile_schema({**prop, "$defs": defs})  # a value's own conditions (if/then) decide
    found = tuple(v for v in candidates if allowed.is_valid(v))
    return found or None


def resolved(schema: dict[str, Any], prop: Any) -> dict[str, Any]:
    """A property of `schema` with its references to the schema's own $defs followed."""
    while isinstance(prop, dict) and isinstance(prop.get("$ref"), str) and prop["$ref"].startswith("#/$defs/"):
        target = schema.get("$defs", {}).get(prop["$ref"][len("#/$defs/") :], {})
        prop = {**target, **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop if isinstance(prop, dict) else {}


def declared_types(prop: dict[str, Any]) -> set[str]:
    """The JSON types a property declares (`type`), or those of its enum or const values."""
    declared = prop.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    values = prop.get("enum", [prop["const"]] if "const" in prop else [])
    kinds = set()
    for v in values:
        if isinstance(v, bool):
            kinds.add("boolean")
        elif isinstance(v, (int, float)):
            kinds.add("number")
        elif isinstance(v, list):
            kinds.add("array")
    return kinds
