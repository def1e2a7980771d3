"""Which dataset of the old version is which of the new: paired by their path relative to the
root each version was given, then, among those left over, a dataset that moved (the same format,
under another path) by its content."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..kinds import Unit, survey
from ..readers.files import Problem, hash_file


@dataclass(frozen=True)
class Pair:
    """A dataset in the old version, the new one, or both."""

    family: str
    old: Unit | None
    new: Unit | None
    old_name: str | None  # the dataset's path relative to its version's root, "/"-separated
    new_name: str | None


def relative(path: Path, root: Path) -> str:
    """`path` relative to `root`, "/"-separated ("." for the root itself); a path outside the root
    as it is."""
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return path.as_posix()
    if rel.startswith(".."):
        return path.as_posix()
    return PurePosixPath(*Path(rel).parts).as_posix() if rel != "." else "."


def shown_under(root: Path) -> Callable[[str], str]:
    """A file as a diff shows it: relative to its version's root, each file worked out once."""
    return functools.cache(lambda file: relative(Path(os.path.abspath(file)), root))


def datasets(root: Path, paths: Sequence[str], kind: str | None, links: bool = True) -> dict[tuple[str, str], Unit]:
    """The datasets under the paths (relative to the root) that exist in this version, by
    (format, path relative to the root). With `links` False none is reached through a link: a
    dataset replaced by a link is not in this version (and its files that are links are not
    read), so that a link cannot choose what is compared."""
    found = [root / p for p in paths if os.path.lexists(root / p)]
    if not found:
        return {}
    units = survey(found, kind, skip_empty=True, links=links).units
    return {(u.family, relative(u.root, root)): u for u in units if u.files}


def fingerprint(unit: Unit) -> tuple[tuple[str, str], ...]:
    """The unit's files by name within it, each with a hash of its bytes (read as every reader
    reads a file: regular files only, so a pipe or a device cannot stall the pairing)."""
    out = []
    for f in unit.files:
        digest = hashlib.blake2b(digest_size=16)
        if isinstance(hash_file(f, digest), Problem):
            digest.update(b"\0unreadable")
        out.append((_name(unit, f), digest.hexdigest()))
    return tuple(sorted(out))


def identical(old: Unit, new: Unit) -> bool:
    """Whether two datasets have the same files (by name within the dataset) with the same bytes:
    their names and sizes first, the hashes of their bytes only where those agree."""
    sizes = [sorted((_name(unit, f), _size(f)) for f in unit.files) for unit in (old, new)]
    return sizes[0] == sizes[1] and fingerprint(old) == fingerprint(new)


def _name(unit: Unit, f: Path) -> str:
    return f.name if unit.root.is_dir() else ""


def _size(f: Path) -> int:
    try:
        return f.stat().st_size
    except OSError:
        return -1


def pair(old: dict[tuple[str, str], Unit], new: dict[tuple[str, str], Unit]) -> list[Pair]:
    """Datasets paired by (format, path). Of those left over, a removed and an added dataset of one
    format are one dataset that moved when their files hold the same bytes, or else when they are
    the only two of that format left over whose last path part (the file or folder name) is the
    same, or else when at least half of the (question, item) pairs of their judgments are the same
    (SIMILAR), the most alike first. Removed first, then paired, then added, each in path order."""
    pairs = [Pair(k[0], old[k], new[k], k[1], k[1]) for k in sorted(old.keys() & new.keys())]
    gone = {k: old[k] for k in sorted(old.keys() - new.keys())}
    came = {k: new[k] for k in sorted(new.keys() - old.keys())}
    if gone and came:
        prints = {k: fingerprint(u) for k, u in came.items()}
        for k, unit in list(gone.items()):
            bytes_of = fingerprint(unit)
            c = next((c for c in came if c[0] == k[0] and prints[c] == bytes_of), None)
            if c is not None:
                pairs.append(Pair(k[0], unit, came.pop(c), k[1], c[1]))
                del gone[k]
        for k, unit in list(gone.items()):
            name = PurePosixPath(k[1]).name
            olds = [g for g in gone if g[0] == k[0] and PurePosixPath(g[1]).name == name]
            news = [c for c in came if c[0] == k[0] and PurePosixPath(c[1]).name == name]
            if len(olds) == 1 and len(news) == 1:
                pairs.append(Pair(k[0], unit, came.pop(news[0]), k[1], news[0][1]))
                del gone[k]
    if gone and came:
        _by_items(gone, came, pairs)
    removed = [Pair(k[0], u, None, k[1], None) for k, u in gone.items()]
    added = [Pair(k[0], None, u, None, k[1]) for k, u in came.items()]
    return removed + sorted(pairs, key=lambda p: (p.new_name or "", p.family)) + added


SIMILAR = 0.5  # the share of (question, item) pairs two datasets share to be one that moved


def _by_items(gone: dict[tuple[str, str], Unit], came: dict[tuple[str, str], Unit], pairs: list[Pair]) -> None:
    """Pair what is left by the judgments' (question, item) pairs: a dataset renamed and edited in
    one change. Only datasets left over are read for it, once each."""
    families = {k[0] for k in gone} & {k[0] for k in came}
    if not families:
        return
    seen = {k: _items(u) for k, u in [*gone.items(), *came.items()] if k[0] in families}
    scored = []
    for g in gone:
        for c in came:
            if g[0] == c[0] and seen[g] and seen[c]:
                shared = len(seen[g] & seen[c]) / len(seen[g] | seen[c])
                if shared >= SIMILAR:
                    scored.append((-shared, g, c))
    for _, g, c in sorted(scored):
        if g in gone and c in came:
            pairs.append(Pair(g[0], gone.pop(g), came.pop(c), g[1], c[1]))


def _items(unit: Unit) -> set[tuple[Any, Any]]:
    from .. import catalog
    from ..gcpause import paused

    fmt = catalog.get(unit.family)
    view = fmt.view(unit) if fmt.judgments is not None else None
    out: set[tuple[Any, Any]] = set()
    if view is None:
        return out
    with paused():
        for batch in view.in_batches():
            out.update(zip(batch.rows("question"), batch.rows("item"), strict=True))
    return out
