"""A dataset's files as a card's distribution: one `cr:FileObject` per file, with its size, its
SHA-256 and its encoding format, named by its path relative to the dataset and found by its path
relative to the card."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from ..readers.files import Problem, hash_file

# Encoding formats by how a file's name ends; mlcroissant reads a gzip file by its first bytes,
# so a .jsonl.gz file is JSON Lines.
ENCODINGS = (
    (".jsonl.gz", "application/jsonlines"),
    (".jsonl", "application/jsonlines"),
    (".json", "application/json"),
    (".csv", "text/csv"),
    (".tsv", "text/tab-separated-values"),
    (".parquet", "application/x-parquet"),
    (".md", "text/markdown"),
)


def encoding(path: Path) -> str:
    """The encoding format of a file, by its name; `application/octet-stream` for any other."""
    name = path.name.lower()
    return next((fmt for end, fmt in ENCODINGS if name.endswith(end)), "application/octet-stream")


def digest(path: Path) -> tuple[int, str, str] | Problem:
    """The size, SHA-256 and MD5 of a regular file read once in chunks, or why it cannot be read."""
    sha, md5 = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    size = hash_file(path, sha, md5)
    return size if isinstance(size, Problem) else (size, sha.hexdigest(), md5.hexdigest())


def file_id(path: Path, root: Path) -> str:
    """A file's name in the card: its path under the folder the card describes (a one-file
    dataset: its name). Both are made absolute first, links not followed: a repository's folder
    is absolute (the folder its paths share), its datasets' files are as the paths gave them."""
    if root.is_dir():
        try:
            return Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
        except ValueError:
            pass
    return path.name


def content_url(path: Path, base: Path) -> str:
    """Where the card finds a file: its path as given, relative to the card's folder (`base`). A
    link is named as it is, never by where it leads: a data file linked from a private folder
    must not put that folder's path in a card that is published (its size and hash are those of
    the bytes read through the link, which is what a reader of the contentUrl gets). Where a link
    on the way to the card's folder makes `..` lead elsewhere, the path is made from where that
    folder really is."""
    given = os.path.relpath(os.path.abspath(path), os.path.abspath(base))
    if not _same(os.path.join(base, given), path):
        given = os.path.relpath(os.path.abspath(path), os.path.realpath(base))
    return Path(given).as_posix()


def _same(a: str, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def file_object(path: Path, name: str, base: Path) -> dict[str, Any] | Problem:
    """The `cr:FileObject` of one data file, `name` its `@id` (`file_id`), or why the file cannot
    be read."""
    found = digest(path)
    if isinstance(found, Problem):
        return found
    size, sha256, _ = found
    return {
        "@type": "cr:FileObject",
        "@id": name,
        "name": name,
        "contentUrl": content_url(path, base),
        "contentSize": f"{size} B",
        "encodingFormat": encoding(path),
        "sha256": sha256,
    }
