"""`humanjudge validate`: the main job."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import PARSED, FormatName, fail, jobs_option, split

if TYPE_CHECKING:
    from ..validation import Result


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--kind",
    type=FormatName(),
    help="Treat the paths as this format instead of recognising them by name and content "
    "(`humanjudge formats` lists them).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="Output format: github prints workflow commands (annotations) and, when GITHUB_STEP_SUMMARY is set, "
    "appends a Markdown summary of every finding to it; sarif is SARIF 2.1.0 for code scanning.",
)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit code 1).")
@click.option(
    "--quality",
    is_flag=True,
    default=None,
    help="Also run the quality/ checks over the judgments (agreement at chance, straight-lining, a rater far "
    "below the others, repeated raters and answers, sparse items): they read every judgment again. "
    "Configuration: quality = true.",
)
@click.option(
    "--select",
    multiple=True,
    metavar="CODES",
    help="Only these codes or prefixes (comma-separated; replaces the configured list).",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="CODES",
    help="Skip these codes or prefixes (comma-separated; added to the configured list).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Use this pyproject.toml or humanjudge.toml instead of searching for one.",
)
@click.option(
    "--isolated",
    is_flag=True,
    help="Use no configuration file: the defaults and the flags only.",
)
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print which configuration file applies to each dataset and the settings it resolves to; check nothing.",
)
@click.option("-v", "--verbose", is_flag=True, help="Also say on stderr which configuration files were used.")
@jobs_option("Check this many datasets at a time, in separate processes (0: one per CPU core).")
@click.option(
    "--skip-unknown",
    is_flag=True,
    help="Skip files of no known format instead of failing (for hooks that pass every changed file).",
)
@click.option(
    "--base",
    metavar="REV",
    help="Check each file given as the format it had in commit REV, whatever it holds now (an emptied, "
    "truncated or disguised dataset file is still checked), and follow no link: a dataset file that is a "
    "link, a folder or a special file is an error. The pre-commit hooks pass HEAD.",
)
@click.option(
    "--max-per-code",
    type=click.IntRange(min=0),
    metavar="N",
    help="List at most N findings of one code per file; the rest are counted in one more finding "
    "(0: list every one). Default: the configuration's max-per-code, else 1000.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show a progress bar on stderr. Default: only on a terminal, outside CI, for runs over half a second.",
)
@click.option(
    "--group/--no-group",
    default=True,
    show_default=True,
    help="Show alike findings of a file (one code, one message but for its numbers, three or more) once, with "
    "their count and where the others are; JSON keeps each finding and marks it with its group's id.",
)
def validate(
    paths: tuple[Path, ...],
    kind: str | None,
    fmt: str,
    strict: bool,
    quality: bool | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    config_file: Path | None,
    isolated: bool,
    show_settings: bool,
    verbose: bool,
    jobs: int,
    skip_unknown: bool,
    base: str | None,
    max_per_code: int | None,
    progress: bool | None,
    group: bool,
) -> None:
    """Validate dataset files and folders.

    A folder is searched recursively for every experiment, dataset and file set it holds; a file
    is checked together with the other files of its dataset (its experiment folder, say), since
    the rules span files.
    """
    from ..config import Config, ConfigError, load_file
    from ..kinds import UsageError
    from ..progress import Bar, wanted
    from ..report import render
    from ..rulebook import UnknownCode, check_selectors
    from ..validation import validate as run

    if isolated and config_file:
        fail("--isolated and --config exclude each other")
    try:
        check_selectors(split(select), "--select")
        check_selectors(split(ignore), "--ignore")
        config = load_file(config_file) if config_file else Config() if isolated else None
        if show_settings:
            from ..settings import describe

            settings = describe(list(paths), kind, config, split(select) or None, split(ignore), max_per_code)
            click.echo(settings, nl=False)
            return
    except (UsageError, ConfigError, UnknownCode) as exc:
        fail(str(exc))
    bar = Bar(sys.stderr) if progress or (progress is None and wanted(sys.stderr)) else None
    try:
        known = _known(list(paths), base) if base is not None else None
        result = run(
            list(paths),
            kind=kind,
            config=config,
            select=split(select) or None,
            ignore=split(ignore),
            jobs=jobs,
            skip_unknown=skip_unknown,
            progress=bar,
            keep=PARSED,
            max_per_code=max_per_code,
            quality=quality,
            known=known,
            links=base is None,
        )
    except (UsageError, ConfigError) as exc:
        fail(str(exc))
    _notes(result, verbose)
    click.echo(render(result, fmt, group=group), nl=False)
    if fmt == "github" and os.environ.get("GITHUB_STEP_SUMMARY"):
        from ..report.github import append_to, summary

        append_to(os.environ["GITHUB_STEP_SUMMARY"], summary(result, group=group))
    sys.exit(1 if result.errors or (strict and result.warnings) else 0)


def _known(paths: list[Path], base: str) -> dict[Path, str]:
    """The format each path had in commit `base` (history.py). HEAD outside a repository, or in
    one with no commit yet, has nothing to compare with (the files are checked as they are);
    any other revision that names no commit is a usage error."""
    from ..history import HistoryError, has_commit, known_formats, toplevel
    from ..kinds import UsageError

    top = toplevel(Path.cwd())
    if base == "HEAD" and (top is None or not has_commit(top, base)):
        return {}
    if top is None:
        raise UsageError(f"--base {base}: not inside a git repository")
    if base.startswith("-") or not has_commit(top, base):
        from ..diff.git import closest_revisions

        near = closest_revisions(top, base)
        hint = f" (did you mean {' or '.join(near)}?)" if near else ""
        raise UsageError(f"--base {base}: not a commit of this repository{hint}")
    try:
        return known_formats(paths, base, top)
    except HistoryError as exc:
        raise UsageError(f"--base {base}: {exc}") from None


def _notes(result: Result, verbose: bool) -> None:
    """What stderr says beside the report: the configuration files used (with --verbose), and
    each dataset whose format has no judgments for --quality to check (asked for, not done: said,
    never a silent pass)."""
    from ..readers.files import display_path

    if verbose:
        used = ", ".join(map(str, result.configs)) or "none (the defaults)"
        click.echo(f"humanjudge: configuration: {used}", err=True)
    for unit in result.unjudged:
        where = display_path(unit.root)
        click.echo(f"humanjudge: {where}: the {unit.family} format declares no judgments: no quality checks", err=True)
