"""Lines for the examples a diff shows, where the format gives a JSON pointer only (JSON files
read whole): located in the file's text only for the few judgments shown."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from ..engine import Document
from .model import DatasetDiff


def add_lines(found: DatasetDiff, old_root: Path, new_root: Path, parsed: Iterable[Document] = ()) -> None:
    """Fill in the line of each example (and of each aggregate example) that has none, from the
    documents the versions' checks parsed where one is the file (`parsed`), else from the file.
    An example's line is where it is now, or where it was for a removal (a change's old place
    keeps the line only where the format gives it, as JSON Lines and CSV do: locating it would
    read the old file again)."""
    roots = {"old": old_root, "new": new_root}
    shown = [(e.side, e.file, e.pointer, e.line) for q in found.questions for e in q.examples]
    shown += [(a["side"], a["file"], a["pointer"], a["line"]) for a in found.aggregates.examples]
    wanted: dict[tuple[Path, str], set[str]] = {}
    for side, file, pointer, known in shown:
        if known is None and file.endswith(".json"):
            wanted.setdefault((roots[side], file), set()).add(pointer)
    if not wanted:
        return
    documents = {os.path.abspath(doc.path): doc for doc in parsed}
    lines = {
        key: _lines(key[0] / key[1], pointers, documents.get(os.path.abspath(key[0] / key[1])))
        for key, pointers in wanted.items()
    }

    def line(side: str, file: str, pointer: str, known: int | None) -> int | None:
        return known if known is not None else lines.get((roots[side], file), {}).get(pointer)

    for q in found.questions:
        q.examples = [replace(e, line=line(e.side, e.file, e.pointer, e.line)) for e in q.examples]
    for a in found.aggregates.examples:
        a["line"] = line(a["side"], a["file"], a["pointer"], a["line"])


def _lines(path: Path, pointers: Iterable[str], doc: Document | None = None) -> dict[str, int]:
    from ..readers.files import read_bytes
    from ..readers.locate import locate

    if doc is not None:  # parsed by the check: located there
        return {p: line for p, (line, _) in doc.positions(sorted(pointers)).items() if line is not None}
    data = read_bytes(path)
    if not isinstance(data, bytes):
        return {}
    text = data.decode("utf-8", "replace")
    # a few offsets: counting line feeds up to each, in C, beats indexing millions of lines
    return {p: text.count("\n", 0, offset) + 1 for p, offset in locate(text, pointers).items()}
