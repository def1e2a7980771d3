"""Writing files safely: atomically, only over a regular file, never over an input.

Every command that writes (aggregate, render -o, export -o, report -o, the Action's step) goes
through here, so that the promise "nothing is lost" is kept in one place: readers see the old
content or the new, never half of it; a failed or interrupted write leaves no temporary file; and
a target that is one of the files the output is computed from, a link, a device, a pipe, a socket
or a folder, or one that leads outside the folder it must stay in, is refused before anything is
written.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, BinaryIO


class WriteError(ValueError):
    """A file cannot or must not be written (no such folder, no permission, the disk full, an
    input, a link, not a regular file, outside the folder it must stay in); nothing of it is left
    behind."""


class Interrupted(KeyboardInterrupt):
    """The process was asked to stop (SIGTERM, SIGHUP) while a file was being written: raised
    like Ctrl-C's KeyboardInterrupt, so that the temporary file is removed on the way out.
    `signum` is the signal; the command line exits with 128 + signum."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
}


def _refuse_kind(target: Path) -> None:
    """Refuse a target that exists and is not a regular file: os.replace would replace a device
    node, a pipe or a link (as root, `-o /dev/null` would leave a regular file there)."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise WriteError(f"cannot write {target}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(mode):
        raise WriteError(f"{target} is a symbolic link; name the file itself")
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise WriteError(f"{target} is {kind}, not a regular file; name a file to write")


def _resolved(target: Path, within: Path | None) -> Path:
    """The target with every link of its folders followed; inside `within` when it is given."""
    try:
        resolved = target.resolve()
        root = within.resolve() if within is not None else None
    except (OSError, RuntimeError) as exc:  # a loop of links
        raise WriteError(f"cannot write {target}: {getattr(exc, 'strerror', None) or exc}") from None
    if root is not None and not resolved.is_relative_to(root):
        raise WriteError(f"{target} leads outside {within} (to {resolved}); name a file inside it")
    return resolved


def check_target(target: Path, inputs: Iterable[Path] = (), *, within: Path | None = None) -> None:
    """Refuse, before anything is written, a target that exists and is not a regular file (a
    symbolic link, a device, a FIFO, a socket, a folder), one that is one of the inputs (the
    command never writes to a file it reads), and, when `within` is given, one whose path,
    followed through every link of its folders, leads outside `within`."""
    _refuse_kind(target)
    resolved = _resolved(target, within)
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


def write_atomic(path: Path, data: bytes, inputs: Iterable[Path] = (), *, within: Path | None = None) -> None:
    """Write a file so that readers see the old content or the new, never half of it; never
    over one of `inputs`, nor outside `within` when it is given."""
    with open_atomic(path, inputs, within=within) as f:
        f.write(data)


_STOPS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    signal.signal(signum, signal.SIG_IGN)  # a second one does not interrupt the cleanup
    raise Interrupted(signum)


@contextlib.contextmanager
def stops_raise(*, interrupt: bool = False) -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP (and with `interrupt` SIGINT too, instead of
    KeyboardInterrupt) raise Interrupted in the main thread, so that what the block made is
    removed on the way out, unless the program handles or ignores them itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}
    for signum in _STOPS if interrupt else _STOPS[1:]:
        if signal.getsignal(signum) in (signal.SIG_DFL, signal.default_int_handler):
            previous[signum] = signal.signal(signum, _raise_interrupted)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """The stopping signals held back while the block runs (where the system allows it), so that
    nothing is made without its name being kept, and no removal is cut short."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    before = mask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, before)


def _open_folder(folder: Path) -> int | None:
    """The folder, opened, where the system can remove a file relative to it: the temporary file
    is then removed even when its folder was moved meanwhile."""
    if os.unlink not in os.supports_dir_fd or not hasattr(os, "O_DIRECTORY"):
        return None
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None  # mkstemp says why


@contextlib.contextmanager
def open_atomic(path: Path, inputs: Iterable[Path] = (), *, within: Path | None = None) -> Iterator[BinaryIO]:
    """A binary file to write `path` through, in pieces: it replaces `path` when the block ends
    without an exception, and is removed otherwise, also when SIGINT, SIGTERM or SIGHUP stops the
    process (readers never see half of it; the exception is then KeyboardInterrupt, Interrupted
    for the latter two). `inputs` are the files the output is computed from: `path` must be none
    of them. With `within`, `path` must lead to a file inside that folder (check_target)."""
    check_target(path, inputs, within=within)
    # The temporary file is made in the resolved folder, and the target is looked at again just
    # before the rename: a link or a device put in its place meanwhile, or the folder moved or
    # swapped for a link, is refused, not written through.
    folder = _resolved(path, within).parent
    final = folder / path.name
    mode = _mode_for(path)
    tmp: str | None = None
    dfd = _open_folder(folder)
    with stops_raise():
        try:
            with stops_held():
                fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
            with os.fdopen(fd, "wb") as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
                os.chmod(f.fileno() if os.chmod in os.supports_fd else tmp, mode)
            _refuse_kind(final)
            moved = dfd is not None and not os.path.samestat(os.fstat(dfd), os.stat(folder))
            if moved or _resolved(final, within).parent != folder:
                raise WriteError(f"{path}: its folder changed while it was written; nothing was written")
            os.replace(tmp, final)
            tmp = None
        except BaseException as exc:
            if tmp is not None:
                _remove(Path(tmp), dfd)
            if isinstance(exc, OSError):
                raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
            raise
        finally:
            if dfd is not None:
                os.close(dfd)


def _remove(tmp: Path, dfd: int | None) -> None:
    with contextlib.suppress(FileNotFoundError):
        if dfd is not None:
            os.unlink(tmp.name, dir_fd=dfd)
        else:
            tmp.unlink()
