"""`humanjudge stats`: what the judgments say, per dataset and question."""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import FormatName, bootstrap_options, fail, jobs_option, judged, kept_last, progress_option

if TYPE_CHECKING:
    from ..judgments.summary import DatasetStats, QuestionStats, RaterRow

# --jobs of stats and report (report checks the files with as many processes too).
JOBS = (
    "Describe this many datasets at a time, in separate processes (0: one per CPU core); the output is the "
    "same, in the same order, as with one."
)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--kind", type=FormatName(), help="Treat the paths as this format instead of recognising them.")
@click.option(
    "--raters",
    "with_raters",
    is_flag=True,
    help="Also show each rater's items, modal share and agreement with the other raters of the same items "
    "(where raters are persons), and on nominal questions their Dawid-Skene competence: the text lists the "
    "furthest below the others, the most uniform and the least competent, --format json every rater of every "
    "question.",
)
@bootstrap_options
@jobs_option(JOBS)
@progress_option
def stats(
    paths: tuple[Path, ...],
    fmt: str,
    kind: str | None,
    with_raters: bool,
    samples: int,
    seed: int,
    jobs: int,
    progress: bool | None,
) -> None:
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
    from ..judgments.describe_jobs import described
    from ..judgments.stats import describe
    from ..kinds import UsageError
    from ..progress import on_stderr, views
    from ..workers import jobs_of

    try:
        datasets, bar = judged(paths, kind), on_stderr(progress, "reading ")
        if jobs_of(jobs) > 1 and len(datasets) > 1:
            job = partial(describe, samples=samples, seed=seed, raters=with_raters)
            found = list(described(datasets, jobs=jobs_of(jobs), bar=bar, job=job))
        else:
            read = kept_last(views(datasets, bar))
            found = [describe(view, samples=samples, seed=seed, raters=with_raters) for view in read]
    except (UsageError, ConfigError) as exc:
        fail(str(exc))
    if fmt == "json":
        click.echo(json.dumps({"datasets": [ds.to_json() for ds in found]}, indent=2, ensure_ascii=False))
    else:
        click.echo(_text(found), nl=False)
    sys.exit(0)


def _text(found: list[DatasetStats]) -> str:
    """The human-readable table. Names and messages come from the data: every control character
    in them is written as an escape, as `validate` writes them, so a name cannot start a line of
    its own or rewrite the one it is on."""
    from ..finding import escape_control

    lines: list[str] = []
    for ds in found:
        lines.append(f"{escape_control(ds.dataset)} ({escape_control(ds.format)})")
        header = ("question", "level", "items", "judgments", "raters/item", "alpha", "95% interval", "agree", "AC")
        shown = [pair for q in ds.questions for pair in [(q, ""), *((o, "  ") for o in q.options or ())]]
        rows = [header] + [_row(q, indent) for q, indent in shown]
        widths = [max(len(r[k]) for r in rows) for k in range(len(header))]
        for r in rows:
            cells = [
                c.rjust(w) if 2 <= k <= 5 or k >= 7 else c.ljust(w)
                for k, (c, w) in enumerate(zip(r, widths, strict=True))
            ]
            lines.append(("  " + "  ".join(cells)).rstrip())
        if not ds.questions:
            lines.append("  no judgments")
        for q, _ in shown:  # why a question (or a part of its answers) has no alpha, when its values say why
            name = escape_control(str(q.question))
            if q.note:
                lines.append(f"  {name}: no alpha: {escape_control(q.note)}")
            if q.level_note:  # a level the file does not declare, and how it was found
                lines.append(f"  {name}: {escape_control(q.level_note)}")
            if q.agreement_note:
                lines.append(f"  {name}: {escape_control(q.agreement_note)}")
        for flag in ds.quality or ():
            at = f"{flag.file}:{flag.line}" if flag.line else flag.file
            said = f"  {flag.code}: {flag.message} ({at}, {flag.pointer})"
            lines.append(escape_control(said))
        if ds.raters is not None:
            lines.extend(_raters(ds.raters, ds.raters_note))
        lines.append("")
    return "\n".join(lines) + ("\n" if lines else "No datasets.\n")


def _row(q: QuestionStats, indent: str = "") -> tuple[str, ...]:
    """A question's line; a part of its answers (an option, a label) is indented under it, by its name."""
    from ..finding import escape_control

    alpha = "-" if q.alpha is None else f"{q.alpha:.3f}"
    per_item, ci = q.raters_text("/") or "-", q.interval_text() or "-"
    agree, ac = q.agreement.observed_text() or "-", q.agreement.ac_text() or "-"
    question = indent + escape_control(str(q.option if indent else q.question))
    return (question, q.level or "-", str(q.items), str(q.judgments), per_item, alpha, ci, agree, ac)


# How many raters the text lists, furthest below the others and most uniform; JSON lists all.
RATERS_SHOWN = 10


def _raters(rows: tuple[RaterRow, ...], note: str | None) -> list[str]:
    """The raters' lines of a dataset: one line where raters are not persons (`note` says why),
    else the raters furthest below the others' agreement and those with the highest modal share."""
    from ..finding import escape_control
    from ..judgments.raters import MIN_ITEMS, highest_modal_share, lowest_agreement

    if note:
        return [escape_control(f"  raters not compared: {note}")]
    people = len({json.dumps(r.rater) for r in rows})
    lines = [f"  raters: {people} raters, {len(rows)} rows of a rater and a question (--format json lists them all)"]
    header = ("rater", "question", "items", "modal", "share", "shared", "agree", "others")
    for title, (shown, left) in (
        (
            f"furthest below the others' agreement (at least {MIN_ITEMS} items shared)",
            lowest_agreement(rows, RATERS_SHOWN),
        ),
        (f"highest modal share (at least {MIN_ITEMS} items)", highest_modal_share(rows, RATERS_SHOWN)),
    ):
        if not shown:
            lines.append(f"  {title}: none")
            continue
        lines.append(f"  {title}:")
        table = [header] + [_rater_row(r) for r in shown]
        widths = [max(len(r[k]) for r in table) for k in range(len(header))]
        for r in table:
            cells = [c.rjust(w) if k >= 2 else c.ljust(w) for k, (c, w) in enumerate(zip(r, widths, strict=True))]
            lines.append(escape_control(("    " + "  ".join(cells)).rstrip()))
        if left:
            lines.append(f"    ({left} more)")
    if any(r.competence is not None for r in rows):
        lines.extend(_competence(rows))
    return lines


def _competence(rows: tuple[RaterRow, ...]) -> list[str]:
    """The raters of the lowest competence (Dawid-Skene accuracy), where a question has it."""
    from ..finding import escape_control
    from ..judgments.raters import MIN_ITEMS, lowest_competence

    title = f"lowest competence, Dawid-Skene (at least {MIN_ITEMS} items)"
    shown, left = lowest_competence(rows, RATERS_SHOWN)
    if not shown:
        return [f"  {title}: none"]
    header = ("rater", "question", "items", "modal", "share", "competence")
    table = [header] + [(*_rater_row(r)[:5], f"{r.competence:.0%}") for r in shown]
    widths = [max(len(r[k]) for r in table) for k in range(len(header))]
    lines = [f"  {title}:"]
    for r in table:
        cells = [c.rjust(w) if k >= 2 else c.ljust(w) for k, (c, w) in enumerate(zip(r, widths, strict=True))]
        lines.append(escape_control(("    " + "  ".join(cells)).rstrip()))
    if left:
        lines.append(f"    ({left} more)")
    return lines


def _rater_row(r: RaterRow) -> tuple[str, ...]:
    def share(x: float | None) -> str:
        return "-" if x is None else f"{x:.0%}"

    modal = r.modal if isinstance(r.modal, str) else json.dumps(r.modal)
    return (
        str(r.rater),
        str(r.question),
        str(r.items),
        modal,
        share(r.modal_share),
        str(r.shared_items),
        share(r.agreement),
        share(r.others_agreement),
    )
