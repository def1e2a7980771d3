"""An earlier version of the files, read from git into a temporary folder: the raw blobs of a
commit's tree (`git ls-tree`, then `git cat-file --batch`), so that no filter, text conversion
or attribute of the compared tree runs, no hook is called and nothing is checked out over the
user's files. Links stay links, except one that would lead out of the folder."""

from __future__ import annotations

import os
import stat
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import IO

from ..readers.files import DEFAULT_MAX_DOCUMENT

# A blob is refused beyond what a reader reads of one file (the max-document-bytes default).
MAX_BLOB = DEFAULT_MAX_DOCUMENT
# Where a link that would lead out of the folder points instead: nowhere (a finding says so).
NOWHERE = ".humanjudge-link-out-of-the-tree"


class GitError(ValueError):
    """The revision or the repository cannot be used; the message is for the user (exit 2)."""


def _git(top: Path, *args: str, stdin: bytes | None = None) -> bytes:
    proc = subprocess.run(["git", *args], cwd=top, input=stdin, capture_output=True, check=False)
    if proc.returncode != 0:
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {reason[-1] if reason else proc.returncode}")
    return proc.stdout


def toplevel(cwd: Path) -> Path:
    """The top of the repository `cwd` is in."""
    try:
        return Path(os.fsdecode(_git(cwd, "rev-parse", "--show-toplevel")).strip()).resolve()
    except (GitError, OSError):
        raise GitError(f"{cwd} is not inside a git repository") from None


def commit(top: Path, rev: str) -> str:
    """The commit `rev` names, as a full hash; GitError when it names none."""
    if rev.startswith("-") or not rev:
        raise GitError(f"{rev!r} is not a commit")
    proc = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
        cwd=top,
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise GitError(f"{rev!r} is not a commit of this repository")
    return proc.stdout.decode("ascii").strip()


def export(top: Path, sha: str, paths: Sequence[str], into: Path) -> None:
    """Write the files of commit `sha` under `paths` (relative to the top; "." is all) into the
    folder `into`, at the same relative places."""
    if not paths:
        return
    specs = [] if any(p in ("", ".") for p in paths) else list(paths)
    listing = _git(top, "ls-tree", "-r", "-z", "--full-tree", sha, "--", *specs)
    entries: list[tuple[str, str, str]] = []  # mode, object, path
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, obj = meta.decode("ascii").split(" ")
        if kind != "blob":
            continue  # a submodule: not the compared repository's data
        entries.append((mode, obj, os.fsdecode(name)))
    _write_blobs(top, entries, into)


def _write_blobs(top: Path, entries: list[tuple[str, str, str]], into: Path) -> None:
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch"], cwd=top, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None

    def feed() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(b"".join(obj.encode("ascii") + b"\n" for _, obj, _ in entries))
        finally:
            proc.stdin.close()

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for mode, _, name in entries:
            header = proc.stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob":
                raise GitError(f"git cat-file: cannot read {name}")
            size = int(header[2])
            target = _place(into, name)
            if size > MAX_BLOB:
                raise GitError(
                    f"{name} is {size:,} bytes in that commit, more than the {MAX_BLOB:,} bytes read of a file"
                )
            if mode == "120000":
                link = proc.stdout.read(size)
                _link(into, target, os.fsdecode(link))
            else:
                _copy(proc.stdout, target, size, executable=mode == "100755")
            proc.stdout.read(1)  # the line feed after the blob
    finally:
        writer.join()
        proc.stdout.close()
        if proc.stderr is not None:
            proc.stderr.read()
            proc.stderr.close()
        proc.wait()


def _place(into: Path, name: str) -> Path:
    parts = PurePosixPath(name).parts
    if not parts or any(p in ("..", "") for p in parts) or PurePosixPath(name).is_absolute():
        raise GitError(f"git listed a path that leaves the tree: {name!r}")
    target = into.joinpath(*parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def _copy(source: IO[bytes], target: Path, size: int, *, executable: bool) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        left = size
        while left:
            block = source.read(min(left, 1 << 20))
            if not block:
                raise GitError(f"git cat-file ended early writing {target.name}")
            out.write(block)
            left -= len(block)
    if executable:
        os.chmod(target, stat.S_IRUSR | stat.S_IWUSR | stat.S_IXUSR)


def _link(into: Path, target: Path, points_to: str) -> None:
    """A link as the commit holds it when it leads to a place inside the folder; else a link to
    a name that is not there, so that nothing outside the folder is read."""
    where = PurePosixPath(points_to)
    inside = not where.is_absolute()
    if inside:
        depth = len(target.relative_to(into).parts) - 1
        for part in where.parts:
            depth = depth - 1 if part == ".." else depth if part == "." else depth + 1
            if depth < 0:
                inside = False
                break
    os.symlink(points_to if inside else str(into / NOWHERE), target)
