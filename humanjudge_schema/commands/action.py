"""The step that the composite action in action.yml runs: `python -m humanjudge_schema.commands.action`.

It reads its inputs from environment variables (never from text pasted into a script), validates
in this process, and writes annotations, the summary, the outputs and, on request, a SARIF file
(the renderers are in report/github.py). On a pull request it checks the datasets that the pull
request adds, changes, deletes files from or renames files in, with the configuration of the base
branch (see `run_step`).
"""

from __future__ import annotations

import argparse
import difflib
import io
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, NoReturn

from .. import catalog
from ..config import Config, ConfigError, load_file, parse_config
from ..finding import Finding
from ..kinds import Skipped, UsageError, survey
from ..report.github import append_to, cell, code_span, escape_data, fenced, outputs, plural, render, summary
from ..validation import Result

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


# --- the action's inputs ---------------------------------------------------------------------


def _split(text: str) -> list[str]:
    """Paths or arguments from a multi-line input: one or more per line, shell-quoted."""
    return [word for line in text.splitlines() for word in shlex.split(line, comments=True)]


class ArgsError(ValueError):
    """The `args` input cannot be used; the message says why."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ArgsError(message)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is below 0")
    return value


def _parser() -> _Parser:
    # The options of `humanjudge validate` that mean something in a workflow, spelt as the
    # command spells them (a test compares the two lists).
    parser = _Parser(prog="args", add_help=False, allow_abbrev=False)
    parser.add_argument("--kind", choices=catalog.names())
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--select", action="append", default=[])
    parser.add_argument("--ignore", action="append", default=[])
    parser.add_argument("--config", type=Path)
    parser.add_argument("--isolated", action="store_true")
    parser.add_argument("-j", "--jobs", type=_count, default=1)
    parser.add_argument("--skip-unknown", action="store_true")
    parser.add_argument("--max-per-code", type=_count)
    parser.add_argument("-v", "--verbose", action="store_true")
    # A job log is not a terminal: there is never a bar to draw, so both spellings are accepted.
    parser.add_argument("--progress", "--no-progress", action="store_true")
    return parser


# Options of `humanjudge validate` that the action refuses, and why.
NOT_FOR_THE_ACTION = {
    "--format": "the action writes annotations, the job summary and (with the sarif input) SARIF itself",
    "--show-settings": "it checks nothing; run `humanjudge validate --show-settings` locally",
}


def _codes(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


@dataclass(frozen=True)
class Options:
    """What the `args` input asks of `humanjudge validate`."""

    kind: str | None = None
    strict: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    config: Path | None = None
    isolated: bool = False
    jobs: int = 1
    skip_unknown: bool = False
    max_per_code: int | None = None
    verbose: bool = False


def parse_args(argv: Sequence[str]) -> Options:
    """The `args` input, read the way `humanjudge validate` reads its options."""
    known, rest = _parser().parse_known_args(list(argv))
    for word in rest:
        name = word.split("=", 1)[0]
        if name in NOT_FOR_THE_ACTION:
            raise ArgsError(f"{name} is not for the action: {NOT_FOR_THE_ACTION[name]}")
        if word.startswith("-") and word != "-":
            raise ArgsError(f"no such option: {name}")
        raise ArgsError(f"{word!r} looks like a path: paths go in the paths input, not in args")
    if known.isolated and known.config is not None:
        raise ArgsError("--isolated and --config exclude each other")
    return Options(
        kind=known.kind,
        strict=known.strict,
        select=_codes(known.select),
        ignore=_codes(known.ignore),
        config=known.config,
        isolated=known.isolated,
        jobs=known.jobs,
        skip_unknown=known.skip_unknown,
        max_per_code=known.max_per_code,
        verbose=known.verbose,
    )


# --- git -------------------------------------------------------------------------------------

CONFIG_NAMES = ("humanjudge.toml", "pyproject.toml")  # nearest first, as config.discover looks


class GitError(RuntimeError):
    """A git command failed; the message is for the user."""


@dataclass(frozen=True)
class _Git:
    cwd: Path

    def run(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["git", *args], cwd=self.cwd, capture_output=True, check=False)

    def text(self, *args: str) -> str:
        proc = self.run(*args)
        if proc.returncode != 0:
            reason = proc.stderr.decode("utf-8", "replace").strip()
            raise GitError(f"git {args[0]} failed: {reason}")
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

    def __init__(self, git: _Git, base: str) -> None:
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
class Changes:
    """What a pull request changes, as far as validation goes (paths relative to the workspace)."""

    datasets: list[str] = field(default_factory=list)  # files to validate, each with its dataset
    gone: dict[str, bool] = field(default_factory=dict)  # deleted dataset file -> its dataset remains
    configs: list[str] = field(default_factory=list)  # configuration files whose settings change


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
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def fetch_base(git: _Git, base: str) -> None:
    """Make the base commit available: the checkout may be shallow."""
    if git.run("cat-file", "-e", f"{base}^{{commit}}").returncode != 0:
        fetched = git.run("fetch", "--no-tags", "--depth=1", "origin", base)
        if fetched.returncode != 0:
            reason = fetched.stderr.decode("utf-8", "replace").strip()
            raise GitError(f"cannot fetch the base commit {base}: {reason}")


def pull_request_changes(git: _Git, base: str) -> Changes:
    """The dataset and configuration files a pull request changes.

    Every kind of change counts: a file deleted, or renamed away, leaves its dataset changed, so
    what remains of that dataset is checked (a CogGym experiment that lost its instruction.jsonl
    fails). Renames are seen as a deletion and an addition, so both sides are covered.
    """
    fetch_base(git, base)
    top = Path(git.text("rev-parse", "--show-toplevel").strip()).resolve()
    workspace = git.cwd.resolve()
    changes = Changes()
    datasets: set[str] = set()
    pattern = dataset_file()
    for name in git.names("diff", "--name-only", "--no-renames", base, "HEAD"):
        rel = os.path.relpath(top / name, workspace)
        if rel.startswith(".."):
            continue  # outside the workspace: not what this step checks
        path = Path(rel)
        rel = path.as_posix()
        if path.name in CONFIG_NAMES:
            before, after = git.blob(base, name), _read(path)
            if _settings_of(before, name) != _settings_of(after, name):
                changes.configs.append(rel)
        if not pattern.search(rel):
            continue
        if path.is_file():
            datasets.add(rel)
        elif not path.exists():
            rest = _rest_of_dataset(path)
            changes.gone[rel] = bool(rest)
            datasets.update(p.as_posix() for p in rest)
    changes.datasets = sorted(datasets)
    changes.configs.sort()
    return changes


def _lines(data: bytes | None) -> list[str]:
    # split at line feeds only: str.splitlines also breaks at form feeds and separators, which
    # the diff must show as they are
    text = "" if data is None else data.decode("utf-8", "replace")
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n") if text else []


def config_diff(git: _Git, base: str, names: Sequence[str], *, limit: int = 400) -> str:
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
        if len(diff) > lines_left:
            diff = [*diff[:lines_left], f"... {len(diff) - lines_left} more lines"]
        lines_left -= len(diff)
        state = " (added)" if before is None else " (deleted)" if after is None else ""
        out += [f"<details open><summary>{code_span(rel)}{state}</summary>", "", fenced("\n".join(diff), "diff")]
        out += ["", "</details>", ""]
    return "\n".join(out)


# --- the action's step -----------------------------------------------------------------------


def _merged(results: list[Result], skipped: Sequence[Skipped] = ()) -> Result:
    """One result for several runs over disjoint datasets, as one run over all of them gives."""
    if len(results) == 1 and not skipped:
        return results[0]
    findings = sorted((f for r in results for f in r.findings), key=Finding.sort_key)
    left_out = {s.path: s for s in skipped}
    left_out.update((s.path, s) for r in results for s in r.skipped)
    return Result(
        findings,
        sum(r.files for r in results),
        tuple(left_out[p] for p in sorted(left_out)),
        tuple(sorted({c for r in results for c in r.configs})),
    )


def check(paths: Sequence[str], options: Options, base: BaseConfig | None = None) -> Result:
    """Validate in this process. With `base`, each dataset is checked with the base branch's
    configuration for it (see BaseConfig), so the counts are those `humanjudge validate` gives
    with that configuration."""
    from ..validation import validate

    def run(group: Sequence[str | Path], config: Config | None) -> Result:
        return validate(
            group,
            kind=options.kind,
            config=config,
            select=options.select or None,
            ignore=options.ignore,
            jobs=options.jobs,
            skip_unknown=options.skip_unknown,
            max_per_code=options.max_per_code,
        )

    if options.isolated:
        return run(paths, Config())
    if base is None:
        return run(paths, load_file(options.config) if options.config else None)
    if options.config is not None:
        return run(paths, base.named(options.config))
    groups: dict[str | None, list[str | Path]] = {}
    skipped: list[Skipped] = []
    for text in paths:
        path = Path(text)
        if path.is_dir() and base.below(path):
            # A configuration file inside the folder governs part of it: each dataset goes
            # with the configuration nearest to it.
            found = survey([path], options.kind, skip_empty=options.skip_unknown)
            skipped += found.skipped
            for unit in found.units:
                folder = unit.root if unit.root.is_dir() else unit.root.parent
                groups.setdefault(base.source(folder), []).extend(unit.files)
        else:
            groups.setdefault(base.source(path if path.is_dir() else path.parent), []).append(text)
    return _merged([run(group, base.config(name)) for name, group in groups.items()], skipped)


@contextmanager
def _working_in(folder: Path) -> Iterator[None]:
    # Paths in findings are shown relative to the working folder, as the command shows them.
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _configuration_note(result: Result, base: BaseConfig | None, pull_request: bool) -> str:
    from ..readers.files import display_path

    used = ", ".join(code_span(display_path(p)) for p in result.configs)
    if base is not None:
        if used:
            return f"Configuration: {used}, as on the base branch (`{base.base[:12]}`)."
        return "Configuration: the defaults (the base branch has no configuration file for these datasets)."
    where = " (the pull request's own: `config-from: head`)" if pull_request else ""
    return f"Configuration: {used or 'the defaults'}{where}."


def run_step(env: Mapping[str, str]) -> int:
    """The action's validation step; returns the exit code of the step.

    Inputs, all from the environment: HUMANJUDGE_PATHS and HUMANJUDGE_ARGS (shell-quoted, one or
    more a line), HUMANJUDGE_SARIF (a file to write), HUMANJUDGE_BASE (the base commit of a pull
    request) and HUMANJUDGE_CONFIG_FROM (`base`, the default, or `head`: where a pull request's
    configuration comes from).
    """
    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd())
    with _working_in(workspace):
        return _step(env, workspace)


def _step(env: Mapping[str, str], workspace: Path) -> int:
    sarif = env.get("HUMANJUDGE_SARIF", "").strip()
    base_sha = env.get("HUMANJUDGE_BASE", "").strip()
    config_from = env.get("HUMANJUDGE_CONFIG_FROM", "").strip() or "base"
    summary_file = env.get("GITHUB_STEP_SUMMARY")
    output_file = env.get("GITHUB_OUTPUT")
    # the summary's notes: what was checked, with which configuration, what the configuration
    # change is; in that order, whenever each is known
    notes = {"checked": "", "configuration": "", "change": ""}

    def noted() -> str:
        return "\n\n".join(n for n in notes.values() if n)

    def finish(result: Result | None, code: int, message: str = "") -> int:
        if message:
            print(f"::error title=humanjudge::{escape_data(message)}")
        if summary_file:
            if result is None:
                text = f"## humanjudge validate\n\n**Could not validate:** {cell(message)}\n"
                if noted():
                    text += "\n" + noted() + "\n"
                append_to(summary_file, text)
            else:
                append_to(summary_file, summary(result, note=noted()))
        if output_file:
            errors = "" if result is None else result.errors
            warnings = "" if result is None else result.warnings
            written = sarif if result is not None and sarif and (workspace / sarif).is_file() else ""
            append_to(output_file, outputs({"errors": errors, "warnings": warnings, "sarif": written}))
        return code

    try:
        paths = _split(env.get("HUMANJUDGE_PATHS", ""))
        argv = _split(env.get("HUMANJUDGE_ARGS", ""))
    except ValueError as exc:  # an unbalanced quote
        return finish(None, 2, f"cannot read the paths or args input: {exc}")
    try:
        options = parse_args(argv)
    except ArgsError as exc:
        return finish(None, 2, f"args input: {exc}")
    if config_from not in ("base", "head"):
        return finish(None, 2, f'config-from input: {config_from!r} is neither "base" nor "head"')
    git = _Git(workspace)
    base: BaseConfig | None = None
    try:
        if base_sha:
            changes = pull_request_changes(git, base_sha)
            if config_from == "base":
                base = BaseConfig(git, base_sha)
            if changes.configs:
                notes["change"] = _changed_configuration(git, base_sha, changes.configs, base is not None)
            if not paths:
                paths, note = _pull_request_paths(changes, base is None)
                notes["checked"] = note
                options = replace(options, skip_unknown=True)
                if not paths:
                    print(note.splitlines()[0])
                    return finish(Result([], 0), 0)
        elif not paths:
            paths = ["."]
        result = check(paths, options, base)
    except (GitError, UsageError, ConfigError) as exc:
        return finish(None, 2, str(exc))
    except Exception as exc:  # the promise: one line and exit 2, never a traceback
        return finish(None, 2, f"internal error: {exc!r} (please report it)")
    notes["configuration"] = _configuration_note(result, base, bool(base_sha))
    if options.verbose:
        print(_configuration_note(result, base, bool(base_sha)), file=sys.stderr)
    sys.stdout.write(render(result))
    if sarif:
        from ..report.sarif import render as render_sarif

        target = workspace / sarif
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_sarif(result), encoding="utf-8")
        print(f"SARIF written to {sarif}")
    failed = result.errors or (options.strict and result.warnings)
    return finish(result, 1 if failed else 0)


def _pull_request_paths(changes: Changes, head_config: bool) -> tuple[list[str], str]:
    """What to check on a pull request when the paths input is empty, and a note that says so."""
    paths = list(changes.datasets)
    if head_config:
        # The pull request's own settings apply: every dataset they govern is checked with them.
        paths += sorted({Path(c).parent.as_posix() for c in changes.configs if Path(c).parent.is_dir()})
    if paths:
        lines = ["Checked the datasets this pull request changes, each one whole."]
    elif changes.gone:
        lines = ["Nothing to check: the datasets this pull request changes are deleted whole."]
    else:
        lines = ["No dataset files changed in this pull request."]
    for gone, remains in sorted(changes.gone.items()):
        then = "the rest of its dataset was checked" if remains else "nothing of its dataset is left to check"
        lines.append(f"- Deleted or renamed away: {code_span(gone)}: {then}.")
    if head_config and changes.configs:
        lines.append("- The configuration changed: the datasets it governs were checked with it.")
    return paths, "\n".join(lines)


def _changed_configuration(git: _Git, base: str, names: list[str], from_base: bool) -> str:
    files = ", ".join(names)
    if from_base:
        print(
            f"::notice title=humanjudge::{escape_data(f'this pull request changes the configuration ({files}); ')}"
            "this check used the base branch's configuration"
        )
        said = (
            "This check used the base branch's configuration (`config-from: base`), so the pull "
            "request cannot change how it is checked; the changes apply once it is merged."
        )
    else:
        print(
            f"::notice title=humanjudge::{escape_data(f'this pull request changes the configuration ({files}); ')}"
            "this check used the pull request's configuration (config-from: head)"
        )
        said = "This check used the pull request's configuration (`config-from: head`)."
    return "\n".join(["### This pull request changes the configuration", "", said, "", config_diff(git, base, names)])


def main() -> int:
    # The runner reads a step's output as UTF-8 whatever the platform's encoding (cp1252 on
    # Windows), and -I, which the action runs this with, ignores PYTHONIOENCODING.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    return run_step(os.environ)


if __name__ == "__main__":
    sys.exit(main())
