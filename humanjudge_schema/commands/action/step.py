"""The step that the composite action in action.yml runs: `python -m humanjudge_schema.commands.action`.

It reads its inputs from environment variables (never from text pasted into a script), validates
in this process, and writes annotations, the summary, the outputs and, on request, a SARIF file
(the renderers are in report/github.py). On a pull request it checks the datasets that the pull
request adds, changes, deletes files from or renames files in, with the configuration of the base
branch (see `run_step`).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ...config import Config, ConfigError, load_file
from ...finding import Finding
from ...history import HistoryError
from ...kinds import Skipped, UsageError, survey
from ...report.github import (
    NOTE_BUDGET,
    SUMMARY_LIMIT,
    append_to,
    cell,
    clip,
    code_span,
    escape_data,
    outputs,
    render,
    summary,
)
from ...validation import Result
from ...writing import WriteError, write_atomic
from .inputs import ArgsError, Options, parse_args, split_lines
from .pull_request import BaseConfig, ChangedPaths, Git, GitFailed, config_diff, pull_request_changes
from .review import failed_section, review, wanted


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


def check(
    paths: Sequence[str], options: Options, base: BaseConfig | None = None, changes: ChangedPaths | None = None
) -> Result:
    """Validate in this process. With `base`, each dataset is checked with the base branch's
    configuration for it (see BaseConfig), so the counts are those `humanjudge validate` gives
    with that configuration. With the `changes` of a pull request, no link is followed and each
    changed file is checked as the format it had in the base commit (`validate --base`)."""
    from ...validation import validate

    known = {Path(p): family for p, family in changes.known.items()} if changes is not None else None
    links = changes is None

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
            quality=options.quality,
            known=known,
            links=links,
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
        if path.is_dir() and not (changes is not None and path.is_symlink()) and base.below(path):
            # A configuration file inside the folder governs part of it: each dataset goes
            # with the configuration nearest to it.
            found = survey([path], options.kind, skip_empty=options.skip_unknown, known=known, links=links)
            skipped += found.skipped
            for unit in found.units:
                folder = unit.root if unit.root.is_dir() else unit.root.parent
                groups.setdefault(base.source(folder), []).extend([*unit.files, *unit.refused])
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
    from ...readers.files import display_path

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


@dataclass
class _Report:
    """Where the step reports besides its log: the job summary (with notes on what was checked,
    with which configuration, and what a configuration change is, in that order, whenever each is
    known) and the step's outputs."""

    workspace: Path
    sarif: str
    report: str
    summary_file: str | None
    output_file: str | None
    notes: dict[str, str] = field(
        default_factory=lambda: dict.fromkeys(("checked", "configuration", "change", "declarations", "judgments"), "")
    )

    # what the pull request changes in the judgments (review.py): the summary opens with it
    opening: str = ""

    def noted(self) -> str:
        return "\n\n".join(n for n in self.notes.values() if n)

    # The files this run wrote (workspace-relative, as the inputs name them): only these are
    # named in the step's outputs, and so only these are uploaded.
    written: dict[str, str] = field(default_factory=lambda: {"sarif": "", "report": ""})
    group: bool = True  # the args input's --group/--no-group

    def finish(self, result: Result | None, code: int, message: str = "") -> int:
        if message:
            print(f"::error title=humanjudge::{escape_data(message)}")
        if self.summary_file and self.opening:
            append_to(self.summary_file, self.opening.rstrip("\n") + "\n\n")
        if self.summary_file:
            if result is None:
                text = f"## humanjudge validate\n\n**Could not validate:** {cell(message)}\n"
                if self.noted():
                    text += "\n" + clip(self.noted(), NOTE_BUDGET, "these notes") + "\n"
                append_to(self.summary_file, text)
            else:
                text = summary(result, note=self.noted(), group=self.group)
                if self.opening:  # the diff above it takes part of the step summary's 1 MiB
                    room = SUMMARY_LIMIT - 64 * 1024 - len(self.opening.encode("utf-8"))
                    text = clip(text, room, "the summary")
                append_to(self.summary_file, text)
        for name, relative in (("sarif", self.sarif), ("report", self.report)):
            if relative and not self.written[name]:  # asked for, not written: nothing stale stays there
                target = self.workspace / relative
                if target.parent.resolve().is_relative_to(self.workspace.resolve()):
                    print(f"No {name} written{_cleared(target)}.")
        if self.output_file:
            errors = "" if result is None else result.errors
            warnings = "" if result is None else result.warnings
            append_to(self.output_file, outputs({"errors": errors, "warnings": warnings, **self.written}))
        return code

    def write(self, name: str, relative: str, data: bytes) -> str:
        """Write `data` to `relative` in the workspace, safely (see write_in); returns "" or why
        not. What is at that path when nothing was written there (a file the pull request
        committed there, a link) is removed by finish(), so that no step takes it for this run's."""
        target = self.workspace / relative
        try:
            write_in(self.workspace, target, data)
        except WriteError as exc:
            return str(exc)
        self.written[name] = relative
        return ""

    def write_sarif(self, result: Result) -> str:
        from ...report.sarif import render as render_sarif

        why = self.write("sarif", self.sarif, render_sarif(result, group=self.group).encode("utf-8"))
        if not why:
            print(f"SARIF written to {self.sarif}")
        return why


def _step(env: Mapping[str, str], workspace: Path) -> int:
    report = _Report(
        workspace,
        env.get("HUMANJUDGE_SARIF", "").strip(),
        env.get("HUMANJUDGE_REPORT", "").strip(),
        env.get("GITHUB_STEP_SUMMARY"),
        env.get("GITHUB_OUTPUT"),
    )
    base_sha = env.get("HUMANJUDGE_BASE", "").strip()
    config_from = env.get("HUMANJUDGE_CONFIG_FROM", "").strip() or "base"
    try:
        paths = split_lines(env.get("HUMANJUDGE_PATHS", ""))
        argv = split_lines(env.get("HUMANJUDGE_ARGS", ""))
    except ValueError as exc:  # an unbalanced quote
        return report.finish(None, 2, f"cannot read the paths or args input: {exc}")
    try:
        options = parse_args(argv)
    except ArgsError as exc:
        return report.finish(None, 2, f"args input: {exc}")
    report.group = options.group
    if config_from not in ("base", "head"):
        return report.finish(None, 2, f'config-from input: {config_from!r} is neither "base" nor "head"')
    git = Git(workspace)
    base: BaseConfig | None = None
    changes: ChangedPaths | None = None
    refused: list[str] = []  # the diff-fail-on conditions the pull request meets
    try:
        if base_sha:
            changes = pull_request_changes(git, base_sha)
            if config_from == "base":
                base = BaseConfig(git, base_sha)
            if changes.configs:
                report.notes["change"] = _changed_configuration(git, base_sha, changes.configs, base is not None)
            if changes.declarations:
                report.notes["declarations"] = _changed_declarations(git, base_sha, changes.declarations)
            if wanted(env):
                refused = _review(report, workspace, base_sha, changes, env, base)
            elif gate := _gate(env, workspace, base):
                raise UsageError(
                    f"{gate} needs the diff, which the diff input turns off: "
                    "remove one or the other (a gate without its diff would pass everything)"
                )
            if not paths:
                paths, note = _pull_request_paths(changes, base is None)
                report.notes["checked"] = note
                options = replace(options, skip_unknown=True)
                if not paths:
                    print(note.splitlines()[0])
                    return report.finish(Result([], 0), 1 if refused else 0)
        elif not paths:
            paths = ["."]
        result = check(paths, options, base, changes)
    except (GitFailed, UsageError, ConfigError, HistoryError) as exc:
        return report.finish(None, 2, str(exc))
    except Exception as exc:  # the promise: one line and exit 2, never a traceback
        return report.finish(None, 2, f"internal error: {exc!r} (please report it)")
    report.notes["configuration"] = _configuration_note(result, base, bool(base_sha))
    if options.verbose:
        print(report.notes["configuration"], file=sys.stderr)
    sys.stdout.write(render(result, group=options.group))
    failed = result.errors or (options.strict and result.warnings) or refused
    code = 1 if failed else 0
    if report.sarif:
        why = report.write_sarif(result)
        if why:  # asked for and not written: the step fails, whatever the data say
            return report.finish(result, 2, f"no SARIF file: {why}")
    if report.report:
        report.notes["judgments"] = _judgments(paths, options, result, report, report.report, changes)
    return report.finish(result, code)


def _diff_config(workspace: Path, base: BaseConfig | None) -> Config:
    """The configuration the diff reads its fail-on from: the base branch's for the workspace."""
    from ...config import discover

    return base.config(base.source(workspace)) if base is not None else discover(workspace)


def _gate(env: Mapping[str, str], workspace: Path, base: BaseConfig | None) -> str:
    """What sets a fail-on gate for the diff, said for a message; "" when none is set."""
    if env.get("HUMANJUDGE_DIFF_FAIL_ON", "").strip():
        return "the diff-fail-on input"
    if _diff_config(workspace, base).diff_fail_on:
        return "[tool.humanjudge.diff] fail-on"
    return ""


def _review(
    report: _Report,
    workspace: Path,
    base_sha: str,
    changes: ChangedPaths,
    env: Mapping[str, str],
    base: BaseConfig | None,
) -> list[str]:
    """Open the job summary with what the pull request changes in the judgments; the diff-fail-on
    conditions it meets, each said as an error. A diff that cannot be made is a warning where no
    gate is set, so that validation stands; under a gate it fails the step (a gate that could be
    passed by making the diff fail would guard nothing)."""
    from ...failon import parse

    fail_on = env.get("HUMANJUDGE_DIFF_FAIL_ON", "")
    try:
        parse([fail_on])
    except ValueError as exc:
        raise UsageError(f"diff-fail-on input: {exc}") from None
    try:
        config = _diff_config(workspace, base)
        report.opening, refused = review(workspace, base_sha, changes, fail_on, config)
    except Exception as exc:  # whatever stops the diff: said, and under a gate the step fails
        why = str(exc) or repr(exc)
        report.opening = failed_section(why)
        gate = _gate(env, workspace, base) if not isinstance(exc, ConfigError) else "the configuration"
        if gate:
            message = f"diff-fail-on: the diff could not be computed, so {gate} cannot pass: {why}"
            print(f"::error title=humanjudge diff::{escape_data(message)}")
            return [f"the diff could not be computed: {why}"]
        print(f"::warning title=humanjudge diff::{escape_data(f'no diff: {why}')}")
        return []
    for why in refused:
        print(f"::error title=humanjudge diff::{escape_data(f'diff-fail-on: {why}')}")
    return refused


def _judgments(
    paths: Sequence[str], options: Options, result: Result, report: _Report, target: str, changes: ChangedPaths | None
) -> str:
    """Write the HTML report of the checked datasets to `target`, and return the job summary's
    table per question. A report that cannot be made is a warning: validation stands, and
    nothing is uploaded (the upload takes the path from the step's outputs, set only here). On a
    pull request the datasets are found as they were checked: no link is followed."""
    from ...readers.files import display_path

    without: list[str] = []  # the datasets that hold no judgment, each with why, as the commands say it

    def told(unit: Any, why: str | None) -> None:
        if why is not None:
            without.append(f"- {code_span(display_path(unit.root))}: no judgments: {cell(why)}")

    try:
        from ...judgments import Dataset, units, views
        from ...judgments.html import write_report
        from ...report.github import questions_table

        known = {Path(p): family for p, family in changes.known.items()} if changes is not None else None
        surveyed = survey([Path(p) for p in paths], options.kind, skip_empty=True, known=known, links=changes is None)
        with_view, _ = units(list(paths), found=[u for u in surveyed.units if u.files])
        path = report.workspace / target
        prepare_in(report.workspace, path)
        noted = lambda unit, note: without.append(f"- {code_span(display_path(unit.root))}: {cell(note)}")  # noqa: E731
        read = views([Dataset(unit, told, noted) for unit in with_view])
        found = write_report(lambda: result, read, path, samples=200, within=report.workspace.resolve())
        report.written["report"] = target
        why = ""
    except Exception as exc:  # data the report cannot draw, a path it cannot write: say so, go on
        why = str(exc) or repr(exc)  # what was at the path is removed by finish()
    if why:
        print(f"::warning title=humanjudge::{escape_data(f'no report: {why}')}")
        return ""
    print(f"Report written to {Path(target).name}")
    stats = [ds.stats for ds in found]
    table = questions_table(stats) if stats else "### The judgments\n\nNo dataset checked holds a judgment."
    return clip("\n\n".join([table, "\n".join(without)]).strip(), NOTE_BUDGET, "the table")


def write_in(workspace: Path, target: Path, data: bytes) -> None:
    """Write a file of the step's (SARIF, the report) inside the workspace, as the commands write
    theirs: whole or not at all, never to a device, a FIFO, a folder or through a link, and never
    outside the workspace, also through a folder of the path that is a link out of it (checked
    before any folder is made)."""
    prepare_in(workspace, target)
    write_atomic(target, data, within=workspace.resolve())


def prepare_in(workspace: Path, target: Path) -> None:
    """Make the folder of `target` when it lies inside the workspace, links resolved (before
    any folder is made: writing.py checks the file itself again when it writes)."""
    from ...readers.files import display_path

    if not target.parent.resolve().is_relative_to(workspace.resolve()):
        raise WriteError(f"{display_path(target)} leads outside the workspace")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"cannot make the folder of {display_path(target)}: {exc.strerror or exc}") from None


def _cleared(target: Path) -> str:
    """Remove what is at `target` when it is a file or a link (never followed); say what was done."""
    if not os.path.lexists(target):
        return ""
    if target.is_symlink() or target.is_file():
        try:
            target.unlink()
        except OSError as exc:
            return f": what is at {target.name} could not be removed ({exc.strerror or exc})"
        return f": what was at {target.name} before (not this run's) was removed"
    return f": what is at {target.name} is not a file and was left alone (nothing is uploaded)"


def _pull_request_paths(changes: ChangedPaths, head_config: bool) -> tuple[list[str], str]:
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


def _changed_configuration(git: Git, base: str, names: list[str], from_base: bool) -> str:
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


def _changed_declarations(git: Git, base: str, names: list[str]) -> str:
    """A pull request that changes how its data is declared says so first: the check used its
    declarations (they are the format of the data they sit with), so a rule relaxed beside the
    data it lets through is shown to the reviewer, never passed unseen."""
    said = f"this pull request changes the declaration of a format ({', '.join(names)}); "
    print(
        f"::warning title=humanjudge::{escape_data(said)}"
        "this check used the pull request's declarations: review the change"
    )
    said = (
        "This check read the data with the pull request's declarations: what a changed rule lets "
        "through, this check lets through. Review the change below."
    )
    return "\n".join(
        ["### This pull request changes how a format is declared", "", said, "", config_diff(git, base, names)]
    )


def main() -> int:
    # The runner reads a step's output as UTF-8 whatever the platform's encoding (cp1252 on
    # Windows), and -I, which the action runs this with, ignores PYTHONIOENCODING.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    return run_step(os.environ)
