"""On a pull request, what it changes in the judgments: `humanjudge diff` of the datasets it
touches, the base commit's files (read from git, as the configuration is) against the checkout.
The job summary opens with it; `diff-fail-on` fails the step on what the maintainers forbid."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ...config import Config
from ...report.github import NOTE_BUDGET, cell
from .pull_request import ChangedPaths

TITLE = "What this pull request changes in the judgments"
# The diff's share of the step summary's 1 MiB: the findings below it keep the rest.
DIFF_BUDGET = NOTE_BUDGET // 2


def wanted(env: Mapping[str, str]) -> bool:
    """The `diff` input: on unless "false"."""
    return env.get("HUMANJUDGE_DIFF", "").strip().lower() not in ("false", "no", "off", "0")


def review(
    workspace: Path, base: str, changes: ChangedPaths, fail_on: str, config: Config | None
) -> tuple[str, list[str]]:
    """The Markdown of the diff between the base commit and the checkout for the datasets the pull
    request changes, and why its fail-on conditions hold (`fail_on`, the input; else the
    configuration's `[tool.humanjudge.diff]`)."""
    from ...diff import policy
    from ...diff.compare import compare
    from ...diff.git import commit, old_version, toplevel
    from ...diff.render import markdown
    from ...failon import parse

    rules = parse([fail_on] if fail_on.strip() else list(config.diff_fail_on if config else ()))
    touched = [*changes.datasets, *changes.gone]
    if not touched:
        return f"## {TITLE}\n\nNo judgment or stored aggregate changed: no dataset file changed.\n", []
    top = toplevel(workspace)
    folders = sorted({_folder(workspace, name, top) for name in touched})
    with old_version(top, commit(top, base), folders) as old_root:
        stats = "always" if any(r.name == "alpha-drop" for r in rules) else "auto"
        found = compare(
            old_root,
            top,
            folders,
            config=config,
            old_label=f"base ({base[:12]})",
            new_label="head",
            stats=stats,
            links=False,
        )
    if not found.datasets:
        return f"## {TITLE}\n\nNo judgment or stored aggregate changed: no dataset among the files it changes.\n", []
    found.fail_on = tuple(map(str, rules))
    found.failed = policy.triggered(rules, found)
    return markdown(found, title=TITLE, limit=DIFF_BUDGET), found.failed


def _folder(workspace: Path, name: str, top: Path) -> str:
    """The folder of a changed file, relative to the repository's top (as named: a folder that
    is now a link is not followed to another)."""
    rel = os.path.relpath((workspace.resolve() / name).parent, top)
    return "." if rel == "." else Path(rel).as_posix()


def failed_section(why: str) -> str:
    return f"## {TITLE}\n\n**Could not compare:** {cell(why)}\n"
