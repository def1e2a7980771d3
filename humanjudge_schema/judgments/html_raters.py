"""The report's raters section of one dataset: the raters furthest below the others' agreement,
those with the highest modal share (judgments/raters.py) and, on nominal questions, those of the
lowest competence (competence.py), each list cut at SHOWN rows with a count of the rest. It
reads only the dataset's statistics (`stats.describe(..., raters=True)`): its `raters` and
`raters_note`; a dataset whose raters were not asked for has no section."""

from __future__ import annotations

import json

from .html_answers import VALUE_CHARS, count, text
from .raters import MIN_ITEMS, highest_modal_share, lowest_agreement, lowest_competence
from .summary import DatasetStats, RaterRow

__all__ = ["SHOWN", "raters_section"]

# Rows of each list shown; the rest are counted (`stats --raters --format json` has them all).
SHOWN = 10
_HEADER = ("rater", "question", "items", "modal answer", "modal share", "shared items", "agrees", "others agree")
_COMPETENCE = ("rater", "question", "items", "modal answer", "modal share", "competence")


def raters_section(ds: DatasetStats, note: str | None = None) -> str:
    """The raters of one dataset as HTML ("" when `ds` has no `raters`: the run did not ask).
    Where they are not compared (`raters_note`), why, or a link to `note`: the id of the note
    that says it once for the dataset's format."""
    if ds.raters is None:
        return ""
    head = '<div class="raters"><h3>Raters</h3>'
    if ds.raters_note and note is not None:
        return f'{head}<p class="facts">Not compared (<a href="#{note}">the note on {text(ds.format)}</a>).</p></div>'
    if ds.raters_note:
        return f'{head}<p class="facts">Raters are not compared: {text(ds.raters_note)}.</p></div>'
    rows = ds.raters
    people = len({json.dumps(r.rater) for r in rows})
    parts = [
        head,
        f'<p class="facts">{count(people, "rater")}, {count(len(rows), "row")} of a rater and a question. '
        "A rater's agreement is the share of the other raters of an item who give the rater's answer; "
        "the others' is the share of their own pairs that agree, on the same items (averaged over items).</p>",
        _list(
            f"Furthest below the others' agreement (at least {MIN_ITEMS} items shared)", *lowest_agreement(rows, SHOWN)
        ),
        _list(f"Highest modal share (at least {MIN_ITEMS} items)", *highest_modal_share(rows, SHOWN)),
    ]
    if any(r.competence is not None for r in rows):
        parts.append(
            '<p class="facts">On nominal questions, a rater\'s competence is the expected share of their answers '
            "that are the item's true label, under the Dawid-Skene model of each rater's confusions.</p>"
        )
        title = f"Lowest competence, Dawid-Skene (at least {MIN_ITEMS} items)"
        parts.append(_list(title, *lowest_competence(rows, SHOWN), competence=True))
    parts.append("</div>")
    return "".join(parts)


def _list(title: str, shown: list[RaterRow], left: int, competence: bool = False) -> str:
    if not shown:
        return f'<p class="facts">{text(title)}: none.</p>'
    head = "".join(f"<th>{text(h)}</th>" for h in (_COMPETENCE if competence else _HEADER))
    body = "".join(_row(r, competence) for r in shown)
    more = f'<p class="facts">… and {count(left, "more row")}.</p>' if left else ""
    return f'<p class="facts">{text(title)}:</p><table class="findings"><tr>{head}</tr>{body}</table>{more}'


def _row(r: RaterRow, competence: bool) -> str:
    """A rater's cells: with `competence`, their competence after the modal share; else the
    items they share with others and how both agree there."""

    def share(x: float | None) -> str:
        return "-" if x is None else f"{x:.0%}"

    modal = r.modal if isinstance(r.modal, str) else json.dumps(r.modal)
    cells = [text(r.rater, VALUE_CHARS), text(r.question, VALUE_CHARS), str(r.items), text(modal, VALUE_CHARS)]
    cells.append(share(r.modal_share))
    if competence:
        cells.append(share(r.competence))
    else:
        cells += [str(r.shared_items), share(r.agreement), share(r.others_agreement)]
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
