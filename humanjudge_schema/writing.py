"""Writing files safely: atomically, never through a symbolic link, never over an input.

Every command that writes (aggregate, render -o, export -o) goes through here, so that the
promise "nothing is lost" is kept in one place: readers see the old content or the new, never
half of it; a failed write leaves no temporary file; and a target that is one of the files the
output is computed from, or a link, is refused before anything is written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO


class WriteError(ValueError):
    """A file cannot or must not be written (no such folder, no permission, the disk full, an
    input, a link); nothing of it is left behind."""


def check_target(target: Path, inputs: Iterable[Path] = ()) -> None:
    """Refuse a target that is a symbolic link (writing would replace the link, or, through it,
    a file outside the tree) or one of the inputs (the command never writes to a file it
    reads)."""
    if target.is_symlink():
        raise WriteError(f"{target} is a symbolic link; name the file itself")
    resolved = target.resolve()
    for source in inputs:
        if source.exists() and resolved == source.resolve():
            raise WriteError(f"{target} is {source.name}, which the output is computed from; write elsewhere")


def _mode_for(path: Path) -> int:
    """The permissions the written file gets: those of the file it replaces, or what a plain
    open() would give a new file (mkstemp's temporary file is private to its owner)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomic(path: Path, data: bytes, inputs: Iterable[Path] = ()) -> None:
    """Write a file so that readers see the old content or the new, never half of it; never
    over one of `inputs`."""
    with open_atomic(path, inputs) as f:
        f.write(data)


@contextlib.contextmanager
def open_atomic(path: Path, inputs: Iterable[Path] = ()) -> Iterator[BinaryIO]:
    """A binary file to write `path` through, in pieces: it replaces `path` when the block ends
    without an exception, and is removed otherwise (readers never see half of it). `inputs` are
    the files the output is computed from: `path` must be none of them."""
    check_target(path, inputs)
    mode = _mode_for(path)
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
