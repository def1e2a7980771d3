"""What files were in an earlier commit: the format each path belonged to, read from git's
objects (nothing is checked out, no filter or hook runs), so that a change which empties,
truncates or disguises a dataset file is still checked as that format (`validate --base`, the
Action on a pull request)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from . import catalog
from .kinds import claims_by_content, format_of_name, one_file_format
from .readers.files import DEFAULT_MAX_DOCUMENT

# What of a blob is read to tell whether it is a one-file dataset: enough for the keys of any
# real dataset; the rest of a larger blob is read past, not kept.
HEAD_BYTES = 16 * 1024 * 1024
_PATHS_A_CALL = 500


class HistoryError(ValueError):
    """The revision or the repository cannot be read; the message is for the user."""


def _git(top: Path, *args: str) -> bytes:
    proc = subprocess.run(["git", "--literal-pathspecs", *args], cwd=top, capture_output=True, check=False)
    if proc.returncode != 0:
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise HistoryError(f"git {args[0]} failed: {reason[-1] if reason else proc.returncode}")
    return proc.stdout


def toplevel(cwd: Path) -> Path | None:
    """The top of the repository `cwd` is in, or None outside one."""
    try:
        out = _git(cwd, "rev-parse", "--show-toplevel")
    except (HistoryError, OSError):
        return None
    return Path(os.fsdecode(out).strip()).resolve()


def has_commit(top: Path, rev: str) -> bool:
    proc = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
        cwd=top,
        capture_output=True,
        check=False,
    )
    return proc.returncode == 0


def formats_at(top: Path, rev: str, names: Sequence[str]) -> dict[str, str]:
    """The format of each of `names` (paths relative to the repository's top, "/"-separated) that
    was a dataset file, a regular file of git's, in commit `rev`: by its name (a declared format's
    only in the folders it applies within), else by its bytes (at most HEAD_BYTES of each are
    read)."""
    wanted = sorted({n for n in names if n and not PurePosixPath(n).is_absolute()})
    if not wanted:
        return {}
    if len(wanted) <= _PATHS_A_CALL:
        listing = _git(top, "ls-tree", "-z", "--full-tree", rev, "--", *wanted)
    else:  # many paths: the whole tree once, filtered here (git matches pathspecs one by one,
        # and a command line of 100,000 paths passes the system's limit on its length)
        listing = _git(top, "ls-tree", "-r", "-z", "--full-tree", rev)
    asked = set(wanted)
    blobs: list[tuple[str, str]] = []  # (name, object) of regular files
    for record in listing.split(b"\0"):
        meta, _, raw = record.partition(b"\t")
        parts = meta.decode("ascii", "replace").split(" ")
        name = os.fsdecode(raw)
        if len(parts) == 3 and parts[1] == "blob" and parts[0] in ("100644", "100755") and name in asked:
            blobs.append((name, parts[2]))
    out: dict[str, str] = {}
    by_content = []
    looked: list[tuple[str, str, str]] = []  # (name, object, format) of names that claim nothing alone
    suffixes = tuple(f.one_file.suffix for f in catalog.formats().values() if f.one_file is not None)
    for name, obj in blobs:
        pure = PurePosixPath(name)
        family = format_of_name(pure.name, top / pure.parent)
        named = None if family is None else catalog.get(family).file(pure.name)
        if family is not None and named is not None and not named.claims:
            looked.append((name, obj, family))  # config.json, labels.txt: a dataset's by content
        elif family is not None:
            out[name] = family
        elif name.endswith(suffixes):
            by_content.append((name, obj))
    for (name, _, family), (data, _) in zip(looked, _heads(top, [obj for _, obj, _ in looked]), strict=True):
        if data is not None and _held(family, PurePosixPath(name).name, data):
            out[name] = family
    for (name, obj), (data, size) in zip(by_content, _heads(top, [obj for _, obj in by_content]), strict=True):
        if data is None:
            continue
        family = one_file_format(name, data)
        if family is None and HEAD_BYTES < size <= DEFAULT_MAX_DOCUMENT:
            # its first bytes did not decide (a first value of megabytes): read it whole, as a
            # walk reads a file in the working tree
            family = one_file_format(name, _git(top, "cat-file", "blob", obj))
        if family is not None:
            out[name] = family
    return out


def _held(family: str, name: str, data: bytes) -> bool:
    """Whether a blob of a name that does not claim its folder alone (a CogGym config.json, a
    labels.txt a declaration names) held what its format's file holds: read as a walk reads
    such a file, from a copy of its first HEAD_BYTES under its name. A project's own config.json
    or labels.txt in the commit is no dataset file: changing it checks nothing."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        return claims_by_content(catalog.get(family), path)


def _heads(top: Path, objects: list[str]) -> list[tuple[bytes | None, int]]:
    """The first HEAD_BYTES of each blob and its size, in order, from one `git cat-file --batch`
    whose requests come from a file (no pipe to fill while its answers are read)."""
    if not objects:
        return []
    with tempfile.TemporaryFile() as requests:
        requests.write(b"".join(obj.encode("ascii") + b"\n" for obj in objects))
        requests.seek(0)
        proc = subprocess.Popen(
            ["git", "cat-file", "--batch"], cwd=top, stdin=requests, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    assert proc.stdout is not None
    out: list[tuple[bytes | None, int]] = []
    try:
        for _ in objects:
            header = proc.stdout.readline().split()
            if len(header) == 2 and header[1] == b"missing":
                out.append((None, 0))
                continue
            if len(header) != 3:
                break
            size = int(header[2])
            data = proc.stdout.read(min(size, HEAD_BYTES))
            left = size - len(data)
            while left > 0:
                skipped = proc.stdout.read(min(left, 1 << 20))
                if not skipped:
                    break
                left -= len(skipped)
            proc.stdout.read(1)  # the line feed after the blob
            out.append((data if header[1] == b"blob" else None, size))
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    out += [(None, 0)] * (len(objects) - len(out))
    return out


def known_formats(paths: Sequence[Path], rev: str, top: Path) -> dict[Path, str]:
    """The format each of `paths` (as given, relative to the working folder) had in commit `rev`
    of the repository whose top is `top`. The formats declared near the paths are made known
    first: a file of a declared format (a CSV that the humanjudge-format.toml beside it names)
    is known by its name as the built-in formats' files are, so that emptying it or changing
    its header does not take it out of the check."""
    catalog.declared_near(paths)
    cwd = Path.cwd()
    rels: dict[str, Path] = {}
    for path in paths:
        absolute = (cwd / path).absolute()
        try:
            rel = Path(os.path.normpath(absolute)).relative_to(top)
        except ValueError:
            try:  # the repository's top may itself be reached through a link (/tmp on macOS)
                rel = Path(os.path.normpath(absolute.parent.resolve() / absolute.name)).relative_to(top)
            except (ValueError, OSError):
                continue
        rels[rel.as_posix()] = path
    found = formats_at(top, rev, list(rels))
    return {rels[name]: family for name, family in found.items()}
