"""What the report says once rather than under every dataset: how to read its figures (alpha,
the observed agreement, Gwet's AC, an item's agreement) with the usual thresholds and their
sources (reading.html), the notes that hold for every dataset of a format, and the documentation
of each code on the page, from the registry (the page is read offline: each code links here,
and names its entry in the rule reference, docs/rules.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..registry import RULES, anchor
from .html_answers import count, text

__all__ = ["READING", "TOP", "code_id", "codes", "linked", "note_id", "notes"]

TOP = ' <a class="top" href="#top">↑ top</a>'

# How to read the page's figures.
READING = "\n" + Path(__file__).with_name("reading.html").read_text(encoding="utf-8")


def note_id(k: int) -> str:
    return f"note-{k}"


def notes(said: Mapping[tuple[str, str], int]) -> str:
    """The notes that hold for every dataset of a format that has them, each said once: by
    (format, note), how many datasets it holds for (in the order `said` gives, which numbers
    them: `note_id`). "" without notes."""
    if not said:
        return ""
    items = "".join(
        f'<li id="{note_id(k)}"><strong>{text(fmt)}</strong> ({count(n, "dataset")}): {text(note)}</li>'
        for k, ((fmt, note), n) in enumerate(said.items())
    )
    return f'<section id="notes"><h2>Notes per format{TOP}</h2><ul class="notes">{items}</ul></section>'


def code_id(code: str) -> str:
    """The id of a code's entry on the page: its anchor in the rule reference, prefixed."""
    return f"code-{anchor(code)}"


def linked(code: str) -> str:
    """A code as a link to its entry on the page, its summary in the link's title."""
    doc = RULES.get(code)
    if doc is None:  # a code no registry documents: shown as it is
        return f"<code>{text(code)}</code>"
    return f'<a href="#{code_id(code)}" title="{text(doc.summary)}"><code>{text(code)}</code></a>'


def codes(used: Iterable[str]) -> str:
    """The documentation of each code on the page ("" without codes)."""
    entries = []
    for code in sorted(set(used)):
        doc = RULES.get(code)
        if doc is None:
            continue
        entries.append(
            f'<div class="code" id="{code_id(code)}"><h3><code>{text(code)}</code> '
            f'<span class="{doc.severity.value}">{doc.severity.value}</span></h3>'
            f"<p>{text(doc.summary)}.</p><p>{text(doc.why)}</p>"
            f"<details><summary>Bad and good</summary><pre>{text(doc.bad)}</pre><pre>{text(doc.good)}</pre></details>"
            f'<p class="facts">The rule reference: <code>rules.md#{anchor(code)}</code> in the documentation;'
            f" <code>humanjudge rules {text(code)}</code> prints it.</p></div>"
        )
    if not entries:
        return ""
    return f'<section id="codes"><h2>Codes on this page{TOP}</h2>{"".join(entries)}</section>'
