"""`humanjudge diff`: what changed in the judgments between two versions of datasets."""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import sys
from pathlib import Path
from typing import Any

import click

from .common import FormatName, fail, force_option, progress_option


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--git",
    "rev",
    metavar="REV",
    help="Compare the working tree (or --head) with this git revision: PATHS are the files and folders to compare "
    "(default: the whole repository), read from git into a temporary folder; nothing is checked out.",
)
@click.option("--head", metavar="REV", help="With --git: compare with this revision instead of the working tree.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option(
    "--examples",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Judgments shown of each kind of change (removed, changed, added) per question.",
)
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    metavar="CONDITION",
    help="Exit 1 when the change does this: removed, changed, alpha-drop=X (alpha of a question falls by more "
    "than X), new-errors (repeatable, or a comma list). Default: fail-on of [tool.humanjudge.diff].",
)
@click.option("--kind", type=FormatName(), help="Treat the paths as this format instead of recognising them.")
@click.option(
    "--samples",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Bootstrap samples for the intervals of the questions that changed.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option(
    "--stats",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Compute alpha, AC and their intervals again for the questions that changed: auto, those where at "
    "least 1% of the judgments changed (the rest cannot move much, and each costs a reading of both versions).",
)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write to this file instead of standard output.")
@force_option
@progress_option
def diff(
    paths: tuple[Path, ...],
    rev: str | None,
    head: str | None,
    fmt: str,
    examples: int,
    fail_on: tuple[str, ...],
    kind: str | None,
    samples: int,
    seed: int,
    stats: str,
    output: Path | None,
    force: bool,
    progress: bool | None,
) -> None:
    """Show what changed in the judgments between OLD and NEW (two folders or files), or, with
    --git REV [PATHS...], between a git revision and the working tree.

    Datasets are paired by their path relative to OLD and NEW; a dataset that moved is paired by
    its content. Per dataset and question: judgments removed, changed (old and new value) and
    added, matched by (item, rater, option), with examples (file, line, pointer); items and raters
    removed and added; stored aggregates (means, majorities) changed, and whether they still match
    the individual judgments; alpha and Gwet's AC before and after, with their intervals; and the
    validation findings the change introduces and fixes. Removals come first.

    Exit codes: 0, or 1 when a --fail-on condition holds; 2 usage error.
    """
    from ..config import ConfigError, discover
    from ..diff import policy
    from ..failon import parse
    from ..kinds import UsageError

    if head is not None and rev is None:
        fail("--head needs --git REV: the revision to compare it with")
    if rev is None and len(paths) != 2:
        fail("give two paths, OLD and NEW, or --git REV [PATHS...]")
    try:
        given = parse(fail_on) if fail_on else None
    except ValueError as exc:
        fail(f"--fail-on: {exc}")
    if output is not None:
        from .common import check_output

        check_output(output, [], force)
    try:
        with contextlib.ExitStack() as versions:  # the folders of the git revisions, removed on the way out
            # the policy is read first: alpha-drop needs the statistics of every question that changed
            config_at = paths[1] if rev is None and len(paths) == 2 else (paths[0] if paths else Path.cwd())
            rules = given if given is not None else parse(discover(config_at).diff_fail_on)
            if stats == "auto" and any(r.name == "alpha-drop" for r in rules):
                stats = "always"
            found = _run(paths, rev, head, versions, examples, kind, samples, seed, stats, progress)
            if not found.datasets:  # as export and stats, never an empty answer for what was not read
                raise ValueError(f"no dataset in {found.old} or {found.new}")
            found.fail_on = tuple(map(str, rules))
            found.failed = policy.triggered(rules, found)
    except (UsageError, ConfigError, ValueError) as exc:
        fail(str(exc))
    text = _render(found, fmt)
    if output is None:
        click.echo(text, nl=False)
    else:
        from ..writing import WriteError, write_atomic

        try:
            write_atomic(output, text.encode("utf-8"))
        except WriteError as exc:
            fail(str(exc))
    sys.exit(1 if found.failed else 0)


def _render(found: Any, fmt: str) -> str:
    from ..diff.render import markdown, text

    if fmt == "json":
        return json.dumps(found.to_json(), indent=2, ensure_ascii=False) + "\n"
    return markdown(found) if fmt == "markdown" else text(found)


def _run(
    paths: tuple[Path, ...],
    rev: str | None,
    head: str | None,
    versions: contextlib.ExitStack,
    examples: int,
    kind: str | None,
    samples: int,
    seed: int,
    stats: str,
    progress: bool | None,
) -> Any:
    """The diff."""
    from ..diff.compare import compare
    from ..diff.git import commit, old_version, toplevel

    told = _teller(progress)
    options: dict[str, Any] = {"examples": examples, "kind": kind, "samples": samples, "seed": seed, "stats": stats}
    options["told"] = told
    if rev is None:
        from ..diff import diff as diff_paths

        old, new = paths
        for p in (old, new):
            if not p.exists():
                raise ValueError(f"{p} does not exist")
        if old.is_file() != new.is_file():
            raise ValueError("OLD and NEW are a file and a folder: give two files or two folders")
        return diff_paths(old, new, **options)
    top = toplevel(Path.cwd())
    rels = [_inside(p, top) for p in paths] or ["."]
    old_sha = commit(top, rev)
    old_label, new_label = f"{rev} ({old_sha[:12]})", "the working tree"
    new_sha = None if head is None else commit(top, head)
    if new_sha is not None:
        new_label = f"{head} ({new_sha[:12]})"
    _somewhere(list(zip(paths, rels, strict=False)), top, (old_sha, old_label), (new_sha, new_label))
    rels = list(dict.fromkeys(map(_dataset_of, rels)))
    old_root = versions.enter_context(old_version(top, old_sha, rels))
    new_root = top if new_sha is None else versions.enter_context(old_version(top, new_sha, rels))
    return compare(old_root, new_root, rels, old_label=old_label, new_label=new_label, **options)


def _somewhere(named: list[tuple[Path, str]], top: Path, old: tuple[str, str], new: tuple[str | None, str]) -> None:
    """Refuse a path that neither version has (each version: its commit, None for the working
    tree, and its label): a typo would compare nothing and say only that no dataset was found. A
    path that one version has is a dataset added or removed."""
    from ..diff.git import holds

    rels = [rel for _, rel in named]
    held = holds(top, old[0], rels)
    held |= {rel for path, rel in named if os.path.lexists(path)} if new[0] is None else holds(top, new[0], rels)
    for path, rel in named:
        if rel not in held:
            raise ValueError(f"{path}: no such path in {old[1]} or in {new[1]}")


def _dataset_of(rel: str) -> str:
    """What a path names for the diff: a file of a folder format (an experiment's
    human_data_ind.json) stands for its dataset, its folder, as `validate` checks a file with
    its dataset; written alone, the rest of the older version's dataset would read as added."""
    from .. import catalog
    from ..kinds import format_of_name

    name = posixpath.basename(rel)
    family = format_of_name(name) if name else None
    if family is None or catalog.get(family).one_file is not None:
        return rel
    return posixpath.dirname(rel) or "."


def _inside(path: Path, top: Path) -> str:
    rel = os.path.relpath(os.path.abspath(path), top)
    if rel.startswith(".."):
        raise ValueError(f"{path} is outside the repository ({top})")
    return Path(rel).as_posix()


def _teller(progress: bool | None) -> Any:
    from ..progress import wanted

    if progress is False or (progress is None and not wanted(sys.stderr)):
        return None

    def told(name: str) -> None:
        from ..finding import escape_control

        click.echo(f"humanjudge: comparing {escape_control(name)}", err=True)

    return told
