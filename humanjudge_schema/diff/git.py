"""An earlier version of the datasets, read from git into a temporary folder of its own.

Only what a diff reads is written, from the raw blobs (`git ls-tree`, then `git cat-file
--batch`), so that no filter, text conversion or attribute of the compared tree runs, no hook is
called and nothing is checked out over the user's files:
- the dataset files, with their bytes: the paths `catalog.file_pattern()` matches, and the paths
  named;
- the configuration files (humanjudge.toml, pyproject.toml) and the declarations beside the data
  (humanjudge-format.toml) on the way from the top to a dataset file, with their bytes:
  `config.discover` reads them when this version is the newer one;
- the formats this version declares (beside its data, or in the files its configuration's
  `formats` names, written with their bytes) are made known, and where they name files the
  catalog did not know, the version is written again, those files with their bytes: a declared
  dataset is read as this version declares it;
- under a folder that holds a dataset file, every other file by its name only (empty) and every
  folder, and on the way to one, the folders: the check reports by name what a dataset's folder
  holds, the media a dataset names and the folders beside datasets, so both versions are judged
  alike.

Nothing is written through a link, whatever the tree holds: the folders are made first, then
every file with O_CREAT | O_EXCL | O_NOFOLLOW, and the links last. No link's text is written as
it is: a link is made anew only where its text leads, through folders written here, to a file or
folder written here (a dataset file that is a link: to a dataset file written with its bytes),
and points at it; any other link points nowhere (a dataset file is then a finding: it cannot be
read). So nothing outside the folder is read through one. A tree that names a path twice (a
hand-made tree can list a link and a folder under one name) is refused.

Bounds: a dataset file at most MAX_BLOB bytes, a configuration file CONFIG_BYTES, all of them
MAX_TOTAL, in at most MAX_FILES files, links and folders; a commit beyond them is refused
(GitError) before anything is written. The temporary folder of `old_version` is removed when its
block ends, also when SIGINT, SIGTERM or SIGHUP stops the process."""

from __future__ import annotations

import contextlib
import difflib
import os
import posixpath
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, NamedTuple

from .. import catalog, history
from ..config import CONFIG_BYTES, formats_listed
from ..finding import escape_control
from ..readers.files import DEFAULT_MAX_DOCUMENT
from ..writing import stops_held, stops_raise

# A blob is refused beyond what a reader reads of one file (the max-document-bytes default).
MAX_BLOB = DEFAULT_MAX_DOCUMENT
# All the files of a version together: four of the largest files a reader takes. The real
# datasets in git are far below it (the largest of the corpus is 13 MB), and a CI runner's disk
# (14 GB on GitHub's) holds it twice, with the checkout.
MAX_TOTAL = 2 * 1024 * 1024 * 1024
# Files and folders written: each costs an inode and a look by the walk of the datasets. A tree
# can list one blob under a million names in a few megabytes.
MAX_FILES = 100_000
# A link's text is read only up to the longest path a system takes.
MAX_LINK = 4096
# Where a link that leads to no dataset file of the version points: nowhere (a finding says so).
NOWHERE = ".humanjudge-link-out-of-the-tree"
_CONFIGS = ("humanjudge.toml", "pyproject.toml")
_LINK, _REGULAR = "120000", ("100644", "100755")


class GitError(ValueError):
    """The revision or the repository cannot be used; the message is for the user (exit 2)."""


def _git(top: Path, *args: str) -> str | None:
    """What git writes, stripped; None when it fails."""
    proc = subprocess.run(["git", *args], cwd=top, capture_output=True, check=False)
    return os.fsdecode(proc.stdout).strip() if proc.returncode == 0 else None


def toplevel(cwd: Path) -> Path:
    """The top of the repository `cwd` is in."""
    top = history.toplevel(cwd)
    if top is None:
        raise GitError(f"{cwd} is not inside a git repository")
    return top


def commit(top: Path, rev: str) -> str:
    """The commit `rev` names, as a full hash; GitError when it names none."""
    if rev.startswith("-") or not rev:
        raise GitError(f"{rev!r} is not a commit")
    sha = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if sha is None:
        near = closest_revisions(top, rev)
        hint = f" (did you mean {' or '.join(map(escape_control, near))}?)" if near else ""
        raise GitError(f"{rev!r} is not a commit of this repository{hint}")
    return sha


# What a revision that names no commit is compared with: the names of at most MAX_REFS branches
# and tags, read up to REF_BYTES (a repository can hold any number of refs).
MAX_REFS = 10_000
REF_BYTES = 1 << 20
# What git reads after a name: ~N, ^N, ^{...}, @{...} ("HEDA~1" is the name HEDA, then ~1).
_SUFFIX = re.compile(r"(?:[~^][0-9]*|\^\{[^{}]*\}|@\{[^{}]*\})*\Z")


def closest_revisions(top: Path, rev: str, limit: int = 3) -> list[str]:
    """The revisions nearest to one that names no commit: the branch, tag or HEAD it may have
    misspelt, with what followed the name ("HEDA~1" -> HEAD~1, "mian" -> main, "HEAD-1" -> HEAD~1)."""
    if ":" in rev or rev.startswith("-"):  # a path in a tree, or an option: no misspelt name
        return []
    end = _SUFFIX.search(rev)
    name, suffix = (rev[: end.start()], rev[end.start() :]) if end else (rev, "")
    refs = ("refs/heads", "refs/remotes", "refs/tags")
    with _git_reading(top, "for-each-ref", f"--count={MAX_REFS}", "--format=%(refname:short)", *refs) as (_, out, _):
        *listed, _cut = out.read(REF_BYTES).decode("utf-8", "replace").split("\n")  # the last is cut or empty
    names = {n.lower(): n for n in reversed(["HEAD", *filter(None, listed)])}  # the first of alike names
    near = [names[n] + suffix for n in difflib.get_close_matches(name.lower(), list(names), n=limit, cutoff=0.6)]
    back = re.fullmatch(r"(.+)-([0-9]+)", name) if not suffix else None
    if back is not None and back[1].lower() in names:  # HEAD-1: the commit before is HEAD~1
        near.insert(0, f"{names[back[1].lower()]}~{back[2]}")
    return [n for n in dict.fromkeys(near) if n != rev][:limit]


def holds(top: Path, sha: str, paths: Sequence[str]) -> set[str]:
    """Which of `paths` (relative to the top, "/"-separated; "." is the top) commit `sha` has, as
    a file, a folder or a link. git lists the named entries and the folders on their way only,
    never what is inside a folder; the listing is read until every path is found."""
    wanted = {p.strip("/") for p in paths} - {"", "."}
    found: set[str] = set()
    if wanted:
        # bytes: a longer record (the mode, type, object and size of at most 128, then the name) is none of them
        longest = 128 + max(map(len, wanted)) * 4 + 1
        for e in _listing(top, sha, sorted(wanted), longest=longest):
            if e.path in wanted:
                found.add(e.path)
            if found == wanted:
                break
    return {p for p in paths if p.strip("/") in {"", ".", *found}}


@contextlib.contextmanager
def old_version(top: Path, sha: str, paths: Sequence[str]) -> Iterator[Path]:
    """The files of commit `sha` under `paths` (see `export`) in a new temporary folder, removed
    when the block ends, also when the process is stopped (then Interrupted is raised)."""
    temp: str | None = None
    with stops_raise(interrupt=True):
        try:
            with _said("cannot write that commit's files in a temporary folder"):
                with stops_held():
                    temp = tempfile.mkdtemp(prefix="humanjudge-diff-")
                # The search for a configuration stops here, with the defaults, when the version
                # has none of its own: a humanjudge.toml in /tmp is no part of the compared commit.
                Path(temp, "humanjudge.toml").write_bytes(b"")
                export(top, sha, paths, Path(temp, "version"))
            yield Path(temp, "version")
        finally:
            with stops_held():
                if temp is not None:
                    shutil.rmtree(temp, ignore_errors=True)


def export(top: Path, sha: str, paths: Sequence[str], into: Path) -> None:
    """Write what a diff reads of commit `sha` under `paths` (relative to the top; "." is all)
    into the new folder `into`, at the same relative places (the module's docstring says what).
    Written again, once or twice, where the formats this version declares name files the
    catalog did not know, or its configuration names declarations outside the paths."""
    specs = [p.strip("/") for p in paths]
    named: set[str] = set()
    for writing in range(1, _ROUNDS + 1):
        pattern = catalog.file_pattern()
        _write(top, _plan(top, sha, specs, named), into)
        more = _declared(into, named)
        if writing == _ROUNDS or (more <= named and catalog.file_pattern() == pattern):
            return
        named |= more
        with _said("cannot write that commit's files in a temporary folder"):
            shutil.rmtree(into)


# Writings of a version at most: the first, one with the files its declarations name, and one
# with the declarations its configuration names and the files those name.
_ROUNDS = 3


def _declared(into: Path, named: set[str]) -> set[str]:
    """Make known the formats of the version written in `into`: the declarations beside its data,
    and the declarations its configuration files name (`formats`) that are written (`named`), each
    applying where a walk would apply it. Returns the declarations the configuration files name,
    as paths in the tree (those outside it are not written: the diff says why it cannot read
    them)."""
    listed: set[str] = set()
    beside = catalog.declaration_names()
    for folder, _, names in os.walk(into):
        for name in names:
            path, declared = Path(folder, name), []
            if name in beside:
                declared = [path]
            elif name in _CONFIGS:
                at = path.parent.relative_to(into).as_posix()
                rels = [posixpath.normpath(posixpath.join(at, g)) for g in formats_listed(path.read_bytes(), name)]
                rels = [r for r in rels if r.split("/")[0] not in ("..", "", ".")]  # the tree's only
                listed.update(rels)
                declared = [into / r for r in rels if r in named and (into / r).is_file()]
            for file in declared:
                with contextlib.suppress(catalog.CatalogError):  # its check says why it is no format
                    catalog.declare([file], within=path.parent)
    return listed


def _write(top: Path, plan: _Plan, into: Path) -> None:
    with _making(str(into)):
        into.mkdir(parents=True)
    for folder in sorted(plan.folders):  # a folder's parent sorts before it
        with _making(folder):
            os.mkdir(into / folder, 0o700)
    for e in plan.empty:
        with _making(e.path):
            os.close(_create(into / e.path, False))
    texts = _write_blobs(top, [*plan.data, *plan.configs, *plan.links], into)
    data = {e.path for e in plan.data}
    anything = data | {e.path for e in plan.empty} | plan.folders
    for link in plan.links:
        # a dataset file is read: it may only lead to one written with its bytes
        targets = data if link.path in plan.dataset_links else anything
        target = _leads_to(link.path, texts.get(link.path), targets, plan.folders)
        at = posixpath.dirname(link.path) or "."
        with _making(link.path):
            os.symlink(str(into / NOWHERE) if target is None else posixpath.relpath(target, at), into / link.path)


class _Entry(NamedTuple):
    mode: str
    kind: str  # blob, tree or commit (a submodule)
    obj: str
    size: int  # -1 for a folder
    path: str


@dataclass
class _Plan:
    data: list[_Entry] = field(default_factory=list)  # the dataset files that are regular files
    configs: list[_Entry] = field(default_factory=list)
    links: list[_Entry] = field(default_factory=list)
    dataset_links: set[str] = field(default_factory=set)  # the links that are dataset files
    empty: list[_Entry] = field(default_factory=list)  # the other files of a dataset's folder, by name
    folders: set[str] = field(default_factory=set)
    size: int = 0


def _plan(top: Path, sha: str, paths: list[str], declarations: Collection[str] = ()) -> _Plan:
    """What to write, read from two listings of the tree (the first finds the dataset files, the
    second what lies beside them: under a folder that holds one, every file (by name) and folder;
    on the way to one, the configuration files and the folders), each read as it comes, so that
    memory holds the plan only; `declarations` are more paths to write with their bytes (those
    the configuration names). Refused, before anything is written, when it breaks a bound or
    names a path twice."""
    specs = [] if any(p in ("", ".") for p in paths) else paths
    configs = {*_CONFIGS, *catalog.declaration_names()}
    ways = {posixpath.join(a, name) for s in specs for a in _ancestors(s) for name in configs}
    extra = sorted(declarations) if specs else []
    listed, roots = [*specs, *sorted(ways), *extra], {*specs, *extra}

    def under(path: str) -> bool:  # one of the pathspecs or inside one (any path when there is none)
        return not roots or not roots.isdisjoint([path, *_ancestors(path)])

    plan = _Plan()
    pattern = re.compile(catalog.file_pattern())
    for e in _listing(top, sha, listed, "-r"):
        # a configuration file is no dataset of its own (a declaration's suffix matches it): it is
        # written as the configuration on the way to the datasets, not as data with its folder
        named = e.path in specs or (pattern.search(e.path) and posixpath.basename(e.path) not in _CONFIGS)
        if e.kind == "blob" and e.path != NOWHERE and under(e.path) and (named or e.path in declarations):
            _check(e)
            if e.mode == _LINK:
                plan.links.append(e)
                plan.dataset_links.add(e.path)
            else:
                _add(plan, plan.data, e, MAX_BLOB)
            _bounded(plan)
    data = {e.path for e in plan.data} | plan.dataset_links
    holding = {posixpath.dirname(p) for p in data}
    on_the_way = {a for p in data for a in _ancestors(p)}
    for e in _listing(top, sha, listed, "-r") if data else ():
        if e.path in data or e.path == NOWHERE:
            continue
        chosen = under(e.path)
        near = posixpath.dirname(e.path) in on_the_way
        inside = chosen and not holding.isdisjoint(_ancestors(e.path))
        config = posixpath.basename(e.path) in configs
        if e.kind != "blob" and (inside or (near and chosen)):
            plan.folders.add(e.path)
        elif e.kind == "blob" and config and e.mode in _REGULAR and (near or inside):
            _add(plan, plan.configs, e, CONFIG_BYTES)
        elif e.kind == "blob" and not config and inside:
            (plan.links if e.mode == _LINK else plan.empty).append(e)
        else:
            continue
        _check(e)
        _bounded(plan)
    paths_kept = [e.path for e in (*plan.data, *plan.configs, *plan.links, *plan.empty)]
    plan.folders.update(a for p in paths_kept for a in _ancestors(p))
    plan.folders.discard("")
    _bounded(plan)
    seen: set[str] = set()
    for path in paths_kept:
        if path in seen or path in plan.folders:
            raise GitError(f"the tree of that commit names {path!r} twice; it cannot be compared")
        seen.add(path)
    return plan


# A git process, its output and what it said of an error (else the code given).
_Output = tuple[subprocess.Popen[bytes], IO[bytes], Callable[[int], str]]


@contextlib.contextmanager
def _git_reading(top: Path, *args: str, stdin: IO[bytes] | None = None) -> Iterator[_Output]:
    """A git process, its output for this process to read, and what it said of an error (the
    last line of its first 4 KB of errors, else the code given); killed when the block ends
    early (an error, a stop), waited for in any case."""
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(["git", *args], cwd=top, stdin=stdin, stdout=subprocess.PIPE, stderr=errors)
        assert proc.stdout is not None

        def said(code: int) -> str:
            errors.seek(0)
            lines = errors.read(4096).decode("utf-8", "replace").strip().splitlines()
            return lines[-1] if lines else str(code)

        try:
            yield proc, proc.stdout, said
        except BaseException:
            proc.kill()
            raise
        finally:
            proc.stdout.close()
            proc.wait()


def _listing(top: Path, sha: str, specs: list[str], *options: str, longest: int | None = None) -> Iterator[_Entry]:
    """The blobs and folders of the commit's tree under the pathspecs, read as git lists them; a
    record longer than `longest` bytes is skipped without being held."""
    # literal: a folder named `:!x` is that folder, not pathspec magic that excludes x
    args = ("--literal-pathspecs", "ls-tree", "-t", "-l", "-z", "--full-tree", *options, sha, "--", *specs)
    with _git_reading(top, *args) as (proc, out, said):
        rest, cut = b"", False
        while block := out.read(1 << 16):
            *records, rest = (rest + block).split(b"\0")
            if cut and records:  # the first is the end of the record skipped
                del records[0]
                cut = False
            for record in records:
                meta, _, name = record.partition(b"\t")
                mode, kind, obj, size = meta.decode("ascii").split()
                yield _Entry(mode, kind, obj, -1 if size == "-" else int(size), os.fsdecode(name))
            if longest is not None and len(rest) > longest:
                rest, cut = b"", True
        if proc.wait() != 0:
            raise GitError(f"git ls-tree failed: {said(proc.returncode)}")


def _ancestors(path: str) -> list[str]:
    """The folders above a path, the top ("") first."""
    parts = path.split("/")[:-1]
    return ["", *("/".join(parts[: i + 1]) for i in range(len(parts)))]


def _add(plan: _Plan, kept: list[_Entry], e: _Entry, most: int) -> None:
    """Keep a file written with its bytes, at most `most` of them."""
    if e.size > most:
        raise GitError(f"{e.path} is {e.size:,} bytes in that commit, more than the {most:,} bytes read of such a file")
    kept.append(e)
    plan.size += e.size
    if plan.size > MAX_TOTAL:
        raise GitError(f"the dataset files of that commit hold more than {MAX_TOTAL:,} bytes; name fewer paths")


def _bounded(plan: _Plan) -> None:
    if len(plan.data) + len(plan.configs) + len(plan.links) + len(plan.empty) + len(plan.folders) > MAX_FILES:
        raise GitError(f"that commit has more than {MAX_FILES:,} files and folders to compare; name fewer paths")


def _check(e: _Entry) -> None:
    if any(p in ("", ".", "..") for p in e.path.split("/")):
        raise GitError(f"git listed a path that leaves the tree: {e.path!r}")


def _making(name: str) -> contextlib.AbstractContextManager[None]:
    """One file, folder or link made; a name that is there already is an error, never followed."""
    return _said(f"cannot write {name!r} of that commit")


@contextlib.contextmanager
def _said(what: str) -> Iterator[None]:
    """An OSError of the block as a GitError, one line for the user."""
    try:
        yield
    except OSError as exc:
        raise GitError(f"{what}: {exc.strerror or exc}") from None


def _create(path: Path, executable: bool) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    return os.open(path, flags, 0o700 if executable else 0o600)


def _write_blobs(top: Path, entries: list[_Entry], into: Path) -> dict[str, bytes]:
    """Write the regular files among the entries; return the text of each link up to MAX_LINK
    bytes (a longer one is not read). git reads the object names from a file, not a pipe: it
    never waits for this process to write while this process waits for it to write."""
    wanted = [e for e in entries if e.mode != _LINK or e.size <= MAX_LINK]
    texts: dict[str, bytes] = {}
    with tempfile.TemporaryFile() as names:
        names.write(b"".join(e.obj.encode("ascii") + b"\n" for e in wanted))
        names.seek(0)
        with _git_reading(top, "cat-file", "--batch", stdin=names) as (_, out, said):
            for e in wanted:
                header = out.readline(256).split()
                if header != [e.obj.encode("ascii"), b"blob", str(e.size).encode("ascii")]:
                    raise GitError(f"git cat-file: cannot read {e.path}: {said(0)}")
                if e.mode == _LINK:
                    texts[e.path] = out.read(e.size)
                    if len(texts[e.path]) != e.size:
                        raise GitError(f"git cat-file ended early reading {e.path}")
                else:
                    with _making(e.path), os.fdopen(_create(into / e.path, e.mode == "100755"), "wb") as file:
                        left = e.size
                        while left:
                            block = out.read(min(left, 1 << 20))
                            if not block:
                                raise GitError(f"git cat-file ended early writing {e.path}")
                            file.write(block)
                            left -= len(block)
                out.read(1)  # the line feed after the blob
    return texts


def _leads_to(path: str, text: bytes | None, targets: set[str], folders: set[str]) -> str | None:
    """Where among the targets a link leads, going through folders written here only; None for
    any other place (outside, through a link, a file not written, a text not read)."""
    if text is None or text.startswith(b"/"):
        return None
    at = [s for s in posixpath.dirname(path).split("/") if s]
    steps = [s for s in os.fsdecode(text).split("/") if s not in ("", ".")]
    for i, step in enumerate(steps):
        if step == ".." and not at:
            return None
        at = at[:-1] if step == ".." else [*at, step]
        if step != ".." and i < len(steps) - 1 and "/".join(at) not in folders:
            return None
    return "/".join(at) if "/".join(at) in targets else None
