"""The names the schemas of declarations are held under (schemas.hold): the declaration's own,
and one per record schema and declaration file. Apart from made.py and declaration.py, which
both need them, so that making the catalog reads no declaration."""

from __future__ import annotations

import hashlib
from pathlib import Path

SCHEMA = "declared/v1/declaration"  # the schema of a declaration


def schema_name(fmt: str, role: str, path: Path) -> str:
    """The name a role's record schema is held under: one per declaration file, since two
    versions of a dataset may declare one format."""
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]
    return f"{fmt}/v1/{role}@{digest}"
