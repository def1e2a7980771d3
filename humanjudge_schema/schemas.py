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


@functools.cache
def load_schema(name: str) -> Any:
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
