from __future__ import annotations

import hashlib
import ipaddress
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"
# The real published datasets live beside the checkout, never inside it.
CORPUS = Path(os.environ.get("HUMANJUDGE_CORPUS", ROOT.parent / "shared" / "corpus"))


CORPUS_MISSING = (
    "needs the real published datasets: set HUMANJUDGE_CORPUS to a folder holding them "
    "(docs/conformance.md lists which); without them the conformance tests skip"
)


def corpus(*parts: str) -> Path:
    """A path in the real-data corpus; skips the test when the corpus is not there."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(CORPUS_MISSING)
    return path


@pytest.fixture(autouse=True, scope="session")
def _no_configuration_from_outside(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every test's temporary folder lies under one base folder; an empty configuration there
    stops the upward search, so a humanjudge.toml or pyproject.toml above it (in /tmp, in a
    home folder) never changes what a test sees. The repository's own pyproject.toml does the
    same for the examples and cases."""
    (tmp_path_factory.getbasetemp() / "humanjudge.toml").write_text("# the defaults: see tests/conftest.py\n")


# --- no network ----------------------------------------------------------------------------


class NetworkBlocked(OSError):
    """Raised by the test suite's socket guard: the tool never opens a network connection."""


def _loopback(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host in ("localhost", "localhost.localdomain", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _local_address(address: Any) -> bool:
    # AF_UNIX addresses are paths (str or bytes); AF_INET and AF_INET6 ones are tuples.
    if isinstance(address, (str, bytes)):
        return True
    if isinstance(address, tuple) and address:
        return _loopback(address[0])
    return False


@pytest.fixture(autouse=True)
def _no_network(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every test runs with the network blocked in its own process: connecting a socket to, or
    resolving, anything but the loopback interface raises. Attempts are also recorded, so one
    that the code under test swallowed still fails the test.

    Tests that run other processes (the wheel install, pre-commit try-repo) are not affected.
    The few that first ask whether the package registry answers (`registry_reachable`, an
    in-process request) are left unguarded: what they check runs in child processes anyway.
    """
    attempts: list[str] = []
    function = getattr(request, "function", None)
    if function is not None and "registry_reachable" in function.__code__.co_names:
        yield attempts
        return
    connect, connect_ex, getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def refuse(what: str) -> NoReturn:
        attempts.append(what)
        raise NetworkBlocked(f"network access in a test: {what}")

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if not _local_address(address):
            refuse(f"connect({address!r})")
        return connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        if not _local_address(address):
            refuse(f"connect_ex({address!r})")
        return connect_ex(self, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _loopback(host):
            refuse(f"getaddrinfo({host!r})")
        return getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    yield attempts
    assert not attempts, f"the test tried to reach the network: {attempts}"


# --- inputs are never modified ---------------------------------------------------------------

Snapshot = dict[str, tuple[Any, ...]]


def _entry(path: Path) -> tuple[Any, ...]:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path))
    if stat.S_ISDIR(st.st_mode):
        return ("dir",)
    if not stat.S_ISREG(st.st_mode):
        return ("special", stat.S_IFMT(st.st_mode), st.st_mtime_ns)
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
    except OSError as exc:
        return ("unreadable", st.st_size, st.st_mtime_ns, exc.errno)
    return ("file", st.st_size, st.st_mtime_ns, digest.hexdigest())


def snapshot(*roots: Path) -> Snapshot:
    """(size, mtime_ns, sha256) of every file under the roots, and every symbolic link's target,
    without following links: compare two snapshots to prove nothing was written, touched, added
    or removed."""
    out: Snapshot = {}
    for root in roots:
        if not os.path.lexists(root):
            continue
        out[str(root)] = _entry(root)
        if root.is_symlink() or not root.is_dir():
            continue
        for folder, dirs, files in os.walk(root, followlinks=False):
            for name in sorted(dirs + files):
                path = Path(folder, name)
                out[str(path)] = _entry(path)
    return out


@pytest.fixture(autouse=True)
def _cases_stay_unchanged(request: pytest.FixtureRequest) -> Iterator[None]:
    """The case runner validates folders under tests/cases: none of their files may change."""
    callspec = getattr(request.node, "callspec", None)
    case = callspec.params.get("case") if callspec is not None else None
    if not isinstance(case, Path):
        yield
        return
    before = snapshot(case)
    yield
    assert snapshot(case) == before, f"validating {case} changed its files"
