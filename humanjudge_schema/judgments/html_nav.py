"""What the report is navigated by: the table of contents, fixed beside the page on a wide
screen, and the summary table, a row per dataset, sortable by any column and filtered by a box.

Sorting and the filter are a small script in the page (report.js); without it the page reads
the same (the table in dataset order, the filter box hidden). Each row carries the values it
sorts by (`data-v`: numbers as numbers, a missing one empty, which sorts last either way) and
the words the filter looks in (`data-text`: the dataset's name, its format and its questions' names).
Names are shown within the folder all datasets share, named once above the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..finding import Finding
from .html_answers import count, text
from .summary import DatasetStats

__all__ = ["NAME_CHARS", "SCRIPT", "Entry", "contents", "counts", "short_names", "summary"]

# The characters shown of a dataset's, question's or file's name.
NAME_CHARS = 300
# Questions of a dataset listed in the table of contents: a dataset of more is listed by name.
CONTENTS_QUESTIONS = 40


@dataclass(frozen=True, slots=True)
class Entry:
    """A dataset on the page: its section's id, its statistics, its name within the folder every
    dataset shares, the findings of its files, and why it holds no judgment (None: it holds some)."""

    anchor: str
    stats: DatasetStats
    short: str
    findings: list[Finding]
    none: str | None = None

    def questions(self) -> list[tuple[str, str]]:
        """The id of each question's card, and the question's name."""
        return [(f"{self.anchor}-q{j}", q.question) for j, q in enumerate(self.stats.questions)]


def counts(findings: Sequence[Finding]) -> tuple[int, int]:
    """Errors and warnings."""
    errors = sum(f.count for f in findings if f.severity.value == "error")
    return errors, sum(f.count for f in findings if f.severity.value == "warning")


def short_names(names: Sequence[str]) -> tuple[str, list[str]]:
    """The folder every name is in (with its last "/"; "" for fewer than two names or none in
    common), and each name within it."""
    if len(names) < 2:
        return "", list(names)
    folders = [n.split("/")[:-1] for n in names]
    shared = 0
    while all(len(f) > shared and f[shared] == folders[0][shared] for f in folders):
        shared += 1
    if not shared or folders[0][:shared] == [""]:
        return "", list(names)
    prefix = "/".join(folders[0][:shared]) + "/"
    return prefix, [n[len(prefix) :] for n in names]


def _path(name: str) -> str:
    """A path that may break after each "/" (and only there, unless a part is too long)."""
    return "/<wbr>".join(text(part) for part in name.split("/"))


def _link(e: Entry) -> str:
    """A link to the dataset's section, its name within the shared folder."""
    return f'<a href="#{e.anchor}" title="{text(e.stats.dataset)}">{_path(e.short[:NAME_CHARS])}</a>'


def _n(value: int, kind: str = "") -> str:
    shown = f'<span class="{kind}">{value}</span>' if value and kind else str(value)
    return f'<td class="n" data-v="{value}">{shown}</td>'


def _row(e: Entry, order: int) -> str:
    ds = e.stats
    words = " ".join([ds.dataset, ds.format, *(q.question for q in ds.questions)]).lower()
    none = ' <small class="facts">(no judgments)</small>' if e.none is not None else ""
    figured = [(q.alpha, q.question) for q in ds.questions if q.alpha is not None]
    if not figured:
        lowest = '<td class="n" data-v="">-</td>'
    else:
        value, question = min(figured, key=lambda aq: aq[0])
        lowest = f'<td class="n" data-v="{value!r}" title="{text(question)}">{value:.3f}</td>'
    errors, warnings = counts(e.findings)
    return (
        f'<tr data-order="{order}" data-target="{e.anchor}" data-text="{text(words[: 4 * NAME_CHARS])}">'
        f'<td class="name" data-v="{text(e.short.lower())}">{_link(e)}{none}</td>'
        f'<td class="fmt" data-v="{text(ds.format)}">{text(ds.format)}</td>'
        f"{_n(len(ds.questions))}{_n(sum(q.judgments for q in ds.questions))}{lowest}"
        f"{_n(errors, 'error')}{_n(warnings, 'warning')}{_n(len(ds.quality or ()), 'warning')}</tr>"
    )


_HEAD = ("dataset", "format", "questions", "judgments", "lowest alpha", "errors", "warnings", "quality findings")


def summary(entries: Sequence[Entry], prefix: str, other: tuple[int, int] | None) -> str:
    """The summary table: a row per dataset; `other`, the errors and warnings of files in no
    dataset, in the table's foot (not sorted with the datasets)."""
    head = "".join(f'<th scope="col">{h}</th>' for h in _HEAD)
    rows = "".join(_row(e, k) for k, e in enumerate(entries))
    foot = ""
    if other is not None:
        errors, warnings = other
        foot = (
            '<tfoot><tr><td class="name"><a href="#other">other files</a></td><td></td><td></td><td></td><td></td>'
            f"{_n(errors, 'error')}{_n(warnings, 'warning')}<td></td></tr></tfoot>"
        )
    under = f'<p class="facts">Datasets under <code>{_path(prefix)}</code></p>' if prefix else ""
    box = (
        '<p class="filter" hidden><label>Filter datasets <input type="search" id="filter" '
        'placeholder="name, format or question" autocomplete="off"></label> '
        '<span id="filtered" aria-live="polite"></span></p>'
    )
    return (
        f'<section id="summary"><h2>Summary</h2>{under}{box}'
        f'<div class="scroll"><table class="summary sortable" id="datasets"><thead><tr>{head}</tr></thead>'
        f"<tbody>{rows}</tbody>{foot}</table></div></section>"
    )


def contents(entries: Sequence[Entry], sections: Sequence[tuple[str, str]], other: bool) -> str:
    """The table of contents: the page's own sections (id, title), then each dataset and,
    unless it has many, its questions."""
    top = "".join(f'<li><a href="#{anchor}">{text(title)}</a></li>' for anchor, title in sections)
    listed = []
    for e in entries:
        questions, inner = e.questions(), ""
        if 0 < len(questions) <= CONTENTS_QUESTIONS:
            inner = (
                "<ol>" + "".join(f'<li><a href="#{a}">{text(q, NAME_CHARS)}</a></li>' for a, q in questions) + "</ol>"
            )
        elif questions:
            inner = f" <small>({count(len(questions), 'question')})</small>"
        listed.append(f'<li data-target="{e.anchor}">{_link(e)}{inner}</li>')
    if other:
        listed.append('<li><a href="#other">Other files</a></li>')
    return (
        f'<nav id="contents" aria-label="Contents"><h2><a href="#top">Contents</a></h2>'
        f'<ul class="sections">{top}</ul><ol class="datasets">{"".join(listed)}</ol></nav>'
    )


# Sorting (a click on a column's head, again for the other direction) and the filter, report.js.
# Numbers compare as numbers, a missing value sorts last, ties keep the datasets' order.
SCRIPT = Path(__file__).with_name("report.js").read_text(encoding="utf-8")
