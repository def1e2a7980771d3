"""What a pull request changes, read with git: the datasets it touches (files added, changed,
deleted or renamed) and the configuration of its base branch."""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ... import catalog
from ...config import Config, ConfigError, config_bytes, formats_listed, load_file, parse_config
from ...history import formats_at
from ...kinds import linked_folder
from ...readers.files import Problem, open_regular
from ...report.github import code_span, fenced, plural

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def dataset_file() -> re.Pattern[str]:
    """The files a pull request may change that belong to a dataset: every name the formats fix,
    and every suffix of a one-file format (`--skip-unknown` drops what is not a dataset).
    .pre-commit-hooks.yaml uses the same pattern for its `humanjudge` hooks (a test keeps them
    equal)."""
    return re.compile(catalog.file_pattern())


CONFIG_NAMES = ("humanjudge.toml", "pyproject.toml")  # nearest first, as config.discover looks


class GitFailed(RuntimeError):
    """A git command failed; the message is for the user."""


@dataclass(frozen=True)
class Git:
    cwd: Path

    def run(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["git", *args], cwd=self.cwd, capture_output=True, check=False)

    def text(self, *args: str) -> str:
        proc = self.run(*args)
        if proc.returncode != 0:
            reason = proc.stderr.decode("utf-8", "replace").strip()
            raise GitFailed(f"git {args[0]} failed: {reason}")
        return os.fsdecode(proc.stdout)

    def names(self, *args: str) -> list[str]:
        return [n for n in self.text(*args, "-z").split("\0") if n]

    def blob(self, rev: str, path: str) -> bytes | None:
        """The file at `path` (relative to the repository's top) in commit `rev`, or None."""
        proc = self.run("cat-file", "blob", f"{rev}:{path}")
        return proc.stdout if proc.returncode == 0 else None


def _settings_table(data: bytes, source: Path) -> dict[str, Any] | None:
    """The humanjudge settings in a configuration file's bytes: the whole of a humanjudge.toml,
    `[tool.humanjudge]` of a pyproject.toml, or None for a pyproject.toml without that table."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}") from None
    if source.name != "pyproject.toml":
        return doc
    tool = doc.get("tool", {})
    if not isinstance(tool, dict) or "humanjudge" not in tool:
        return None
    table = tool["humanjudge"]
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: [tool.humanjudge] must be a table")
    return table


def _inside(path: Path, top: Path) -> PurePosixPath | None:
    """`path` relative to `top`, or None when it lies outside."""
    try:
        return PurePosixPath(path.resolve().relative_to(top).as_posix())
    except ValueError:
        return None


class BaseConfig:
    """The configuration that the base branch of a pull request has, applied to the files of the
    checkout: for each dataset, the nearest configuration file above it as the base commit holds
    it (the files the pull request adds, changes or deletes do not count), else the defaults.
    Only files inside the repository count: the pull request controls none of those outside."""

    def __init__(self, git: Git, base: str) -> None:
        self._git = git
        self.base = base
        self.top = Path(git.text("rev-parse", "--show-toplevel").strip()).resolve()
        listing = git.names("ls-tree", "-r", "--full-tree", "--name-only", base)
        self._files = {n for n in listing if PurePosixPath(n).name in CONFIG_NAMES}
        self._loaded: dict[str, Config | None] = {}

    def _load(self, name: str) -> Config | None:
        if name not in self._loaded:
            data = self._git.blob(self.base, name)
            source = self.top / name
            try:
                table = None if data is None else _settings_table(data, source)
                self._loaded[name] = None if table is None else parse_config(table, source)
            except ConfigError as exc:
                raise ConfigError(f"{exc} (the base branch's version, {self.base[:12]})") from None
        return self._loaded[name]

    def source(self, folder: Path) -> str | None:
        """The configuration file (relative to the repository's top) for a dataset in `folder`."""
        rel = _inside(folder, self.top)
        if rel is None:
            return None
        for here in (rel, *rel.parents):
            for file in CONFIG_NAMES:
                name = (here / file).as_posix()
                if name in self._files and self._load(name) is not None:
                    return name
        return None

    def config(self, name: str | None) -> Config:
        loaded = None if name is None else self._load(name)
        return Config() if loaded is None else loaded

    def below(self, folder: Path) -> bool:
        """Whether a configuration file lies inside the folder, below its top level."""
        rel = _inside(folder, self.top)
        if rel is None:
            return False
        return any(rel in PurePosixPath(n).parent.parents and self._load(n) is not None for n in sorted(self._files))

    def named(self, path: Path) -> Config:
        """The file named by --config, as the base branch has it."""
        rel = _inside(path, self.top)
        if rel is None:  # outside the repository: nothing the pull request can change
            return load_file(path)
        data = self._git.blob(self.base, rel.as_posix())
        if data is None:
            raise ConfigError(
                f"{path}: --config names a file the base branch does not have "
                "(config-from: head uses the pull request's configuration)"
            )
        try:
            table = _settings_table(data, self.top / rel)
            return Config() if table is None else parse_config(table, self.top / rel)
        except ConfigError as exc:
            raise ConfigError(f"{exc} (the base branch's version, {self.base[:12]})") from None


@dataclass
class ChangedPaths:
    """What a pull request changes, as far as validation goes (paths relative to the workspace)."""

    datasets: list[str] = field(default_factory=list)  # files to validate, each with its dataset
    gone: dict[str, bool] = field(default_factory=dict)  # deleted dataset file -> its dataset remains
    configs: list[str] = field(default_factory=list)  # configuration files whose settings change
    declarations: list[str] = field(default_factory=list)  # declarations of formats it changes
    # the format each changed path had in the base commit: checked as such whatever it holds now
    known: dict[str, str] = field(default_factory=dict)


def _rest_of_dataset(path: Path) -> list[Path]:
    """What remains of the dataset a deleted file belonged to: the other files of its family in
    its folder. A TextJudge dataset is one file: nothing remains of it, and neither does a
    CogGym experiment of which only config.json is left (a name too common to make a dataset)."""
    fmt = next((f for f in catalog.formats().values() if f.file(path.name) is not None), None)
    folder = path.parent
    if fmt is None or not folder.is_dir():
        return []
    rest = [folder / f.name for f in fmt.files if (folder / f.name).is_file()]
    return rest if any(fmt.claims(p.name) for p in rest) else []


def _settings_of(data: bytes | None, name: str) -> object:
    """What a configuration file's bytes set, for comparison: unreadable files compare by bytes."""
    if data is None:
        return None
    try:
        return _settings_table(data, Path(name))
    except ConfigError:
        return data


def _read(path: Path) -> bytes | None:
    """A configuration file's first bytes, as the configuration reads it (a FIFO or a device under
    its name is not read: it could block or never end); None where there is none to read."""
    try:
        return config_bytes(path, cut=True)
    except OSError:
        return None


def fetch_base(git: Git, base: str) -> None:
    """Make the base commit available: the checkout may be shallow."""
    if git.run("cat-file", "-e", f"{base}^{{commit}}").returncode != 0:
        fetched = git.run("fetch", "--no-tags", "--depth=1", "origin", base)
        if fetched.returncode != 0:
            reason = fetched.stderr.decode("utf-8", "replace").strip()
            raise GitFailed(f"cannot fetch the base commit {base}: {reason}")


def pull_request_changes(git: Git, base: str) -> ChangedPaths:
    """The dataset and configuration files a pull request changes.

    Every kind of change counts: a file deleted, or renamed away, leaves its dataset changed, so
    what remains of that dataset is checked (a CogGym experiment that lost its instruction.jsonl
    fails). Renames are seen as a deletion and an addition, so both sides are covered.
    """
    fetch_base(git, base)
    top = Path(git.text("rev-parse", "--show-toplevel").strip()).resolve()
    workspace = git.cwd.resolve()
    changes = ChangedPaths()
    datasets: set[str] = set()
    pattern = dataset_file()
    names = git.names("diff", "--name-only", "--no-renames", base, "HEAD")
    declared = declare_formats(git, base, top)
    was = formats_at(top, base, names)
    for name in names:
        rel = os.path.relpath(top / name, workspace)
        if rel.startswith(".."):
            continue  # outside the workspace: not what this step checks
        path = Path(rel)
        rel = path.as_posix()
        if name in was:
            changes.known[rel] = was[name]
        if path.name in CONFIG_NAMES:
            before, after = git.blob(base, name), _read(path)
            if _settings_of(before, name) != _settings_of(after, name):
                changes.configs.append(rel)
        if name in declared and git.blob(base, name) != _bytes(top / name):
            changes.declarations.append(rel)
        if not pattern.search(rel) and name not in was:
            continue
        if os.path.lexists(path) and (name in was or path.is_file() or path.is_symlink() or linked_folder(path)):
            # a link, a folder or a device where a dataset file was is checked too: a finding
            datasets.add(rel)
        elif not os.path.lexists(path):
            rest = _rest_of_dataset(path)
            changes.gone[rel] = bool(rest)
            datasets.update(p.as_posix() for p in rest)
    changes.datasets = sorted(datasets)
    changes.configs.sort()
    return changes


def declare_formats(git: Git, base: str, top: Path) -> set[str]:
    """Make the formats declared in the repository known before the changed files are sorted
    into datasets, so that a file of a declared format (a CSV that a humanjudge-format.toml, or
    a configuration's `formats`, declares) is a dataset file the pull request changes, checked
    as one: the declarations beside the data in the base commit or the checkout, and those the
    configuration files of either name, each applying where it would in a walk. The names (from
    the top) of the declaration files."""
    beside = catalog.declaration_names()
    in_base = set(git.names("ls-tree", "-r", "--full-tree", "--name-only", base))
    listed = in_base | set(git.names("ls-tree", "-r", "--full-tree", "--name-only", "HEAD"))
    found: dict[str, PurePosixPath] = {}  # declaration -> the folder it applies within
    for name in sorted(listed):
        pure = PurePosixPath(name)
        if pure.name in beside:
            found[name] = pure.parent
        elif pure.name in CONFIG_NAMES:
            for data in (git.blob(base, name), _bytes(top / name)):
                for given in formats_listed(data or b"", pure.name):
                    at = _inside(top / pure.parent / given, top)
                    if at is not None:
                        found[at.as_posix()] = pure.parent
    # the outer ones first, and the base commit's before the pull request's: where two declare
    # one name for nested folders, the later one is refused (its check says why), never the base's
    inside = {
        name: (name not in in_base, len(within.parts), PurePosixPath(name).name in beside, name)
        for name, within in found.items()
    }
    for name, within in sorted(found.items(), key=lambda entry: inside[entry[0]]):
        path = top / name
        if path.is_file() and not path.is_symlink():
            # a declaration that cannot be a format is checked as a file: its check says why
            with contextlib.suppress(catalog.CatalogError):
                catalog.declare([path], within=top / within)
    return set(found)


def _bytes(path: Path) -> bytes | None:
    """A file's bytes in the checkout, where it is a regular file (a link or a pipe is not
    read), at most 16 MiB of them: enough to tell a declaration or configuration changed."""
    if path.is_symlink():
        return None
    opened = open_regular(path)
    if isinstance(opened, Problem):
        return None
    with opened as f:
        return f.read(1 << 24)


def _lines(data: bytes | None) -> list[str]:
    # split at line feeds only: str.splitlines also breaks at form feeds and separators, which
    # the diff must show as they are
    text = "" if data is None else data.decode("utf-8", "replace")
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n") if text else []


_LINE_SHOWN = 300  # characters of one line of a configuration diff


def _shortened(line: str) -> str:
    if len(line) <= _LINE_SHOWN:
        return line
    return f"{line[:_LINE_SHOWN]}… ({len(line) - _LINE_SHOWN:,} more characters)"


def config_diff(git: Git, base: str, names: Sequence[str], *, limit: int = 400) -> str:
    """The changes to configuration files, as unified diffs in Markdown, at most `limit` lines."""
    top = Path(git.text("rev-parse", "--show-toplevel").strip()).resolve()
    out: list[str] = []
    lines_left = limit
    for i, rel in enumerate(names):
        if lines_left <= 0:
            out.append(f"{plural(len(names) - i, 'more configuration file')} changed, not shown.")
            break
        path = Path(rel)
        inside = _inside(path, top)
        before = git.blob(base, inside.as_posix()) if inside is not None else None
        after = _read(path)
        diff = list(difflib.unified_diff(_lines(before), _lines(after), f"a/{rel}", f"b/{rel}", lineterm=""))
        diff = [_shortened(line) for line in diff]
        if len(diff) > lines_left:
            diff = [*diff[:lines_left], f"... {len(diff) - lines_left} more lines"]
        lines_left -= len(diff)
        state = " (added)" if before is None else " (deleted)" if after is None else ""
        out += [f"<details open><summary>{code_span(rel)}{state}</summary>", "", fenced("\n".join(diff), "diff")]
        out += ["", "</details>", ""]
    return "\n".join(out)
