"""`humanjudge stats`: what the judgments say, per dataset and question."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from .common import FormatName, bootstrap_options, fail, judged, progress_option


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--kind", type=FormatName(), help="Treat the paths as this format instead of recognising them.")
@bootstrap_options
@progress_option
def stats(paths: tuple[Path, ...], fmt: str, kind: str | None, samples: int, seed: int, progress: bool | None) -> None:
    """Count the judgments of every question and measure how well the raters agree.

    Per dataset and question: items, judgments, raters per item (min/median/max), the
    distribution of the answers, and Krippendorff's alpha at the question's level of measurement
    (nominal for labels and choices, ordinal for graded scales, interval for sliders and
    continuous scores) with a bootstrap 95% interval over items. Alpha is null where fewer than
    two values are pairable. Beside it: the observed agreement (the share of pairs of an item's
    ratings that are the same answer, averaged over items) and Gwet's AC1 or AC2 with the
    level's weights, and a note where one answer dominates. The quality/ checks' findings follow
    each dataset's table.
    `humanjudge validate` says whether the files are well formed.
    """
    from ..config import ConfigError
    from ..judgments.stats import describe
    from ..kinds import UsageError
    from ..progress import on_stderr, views

    try:
        read = views(judged(paths, kind), on_stderr(progress, "reading "))
        found = [describe(view, samples=samples, seed=seed) for view in read]
    except (UsageError, ConfigError) as exc:
        fail(str(exc))
    if fmt == "json":
        click.echo(json.dumps({"datasets": found}, indent=2, ensure_ascii=False))
    else:
        click.echo(_text(found), nl=False)
    sys.exit(0)


def _text(found: list[dict[str, Any]]) -> str:
    """The human-readable table. Names and messages come from the data: every control character
    in them is written as an escape, as `validate` writes them, so a name cannot start a line of
    its own or rewrite the one it is on."""
    from ..finding import escape_control

    lines: list[str] = []
    for ds in found:
        lines.append(f"{escape_control(ds['dataset'])} ({escape_control(ds['format'])})")
        header = ("question", "level", "items", "judgments", "raters/item", "alpha", "95% interval", "agree", "AC")
        rows = [header] + [_row(q) for q in ds["questions"]]
        widths = [max(len(r[k]) for r in rows) for k in range(len(header))]
        for r in rows:
            cells = [
                c.rjust(w) if 2 <= k <= 5 or k >= 7 else c.ljust(w)
                for k, (c, w) in enumerate(zip(r, widths, strict=True))
            ]
            lines.append(("  " + "  ".join(cells)).rstrip())
        if not ds["questions"]:
            lines.append("  no judgments")
        for q in ds["questions"]:  # why a question has no alpha, when its values say why
            if q.get("note"):
                lines.append(f"  {escape_control(str(q['question']))}: no alpha: {escape_control(q['note'])}")
            if q.get("level_note"):  # a level the file does not declare, and how it was found
                lines.append(f"  {escape_control(str(q['question']))}: {escape_control(q['level_note'])}")
            if q.get("agreement_note"):
                lines.append(f"  {escape_control(str(q['question']))}: {escape_control(q['agreement_note'])}")
        for flag in ds["quality"]:
            at = f"{flag['file']}:{flag['line']}" if flag["line"] else flag["file"]
            said = f"  {flag['code']}: {flag['message']} ({at}, {flag['pointer']})"
            lines.append(escape_control(said))
        lines.append("")
    return "\n".join(lines) + ("\n" if lines else "No datasets.\n")


def _row(q: dict[str, Any]) -> tuple[str, ...]:
    from ..finding import escape_control
    from ..judgments.stats import ac_text, interval_text, observed_text, raters_text

    alpha = "-" if q["alpha"] is None else f"{q['alpha']:.3f}"
    per_item, ci = raters_text(q, "/") or "-", interval_text(q) or "-"
    agree, ac = observed_text(q) or "-", ac_text(q) or "-"
    question = escape_control(str(q["question"]))
    return (question, q["level"] or "-", str(q["items"]), str(q["judgments"]), per_item, alpha, ci, agree, ac)
