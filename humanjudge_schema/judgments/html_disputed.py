"""A question's most disputed items as the report shows them (disputed.py finds them): folded
under one line that says how many items and how low their agreement goes, then a row per item:
the item and, under it, where its first answer is (the file's name, its line and JSON pointer;
the whole path in the title), its agreement, and its answers, each with how often it was given."""

from __future__ import annotations

from pathlib import PurePath

from .html_answers import VALUE_CHARS, count, label, text
from .summary import Disputed, DisputedItem

__all__ = ["ANSWERS_SHOWN", "disputed_items"]

# Distinct answers written out per item; the rest are counted.
ANSWERS_SHOWN = 8


def disputed_items(found: Disputed | None) -> str:
    """The most disputed items of a question ("" where it has none: no alpha)."""
    if found is None or not found.items:
        return ""
    below = f"; {found.below} agree less than chance" if found.below else ""
    head = (
        f"Most disputed items: {len(found.items)} of {count(found.of, 'item')} with two answers or more{below}; "
        f"lowest agreement {found.items[0].agreement:.2f}"
    )
    rows = "".join(_row(item) for item in found.items)
    note = f'<p class="facts">{text(found.note)}</p>' if found.note else ""
    return (
        f'<details class="disputed"><summary>{head}</summary>'
        '<table class="disputed"><thead><tr><th>item, where</th><th>agreement</th><th>answers</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>{note}</details>"
    )


def _row(item: DisputedItem) -> str:
    name = label(item.item) + (f" · {label(item.option)}" if item.option not in ("", None) else "")
    shown = item.answers[:ANSWERS_SHOWN]
    answers = ", ".join(label(v) + (f"\u00a0×{n}" if n > 1 else "") for v, n in shown)
    left = len(item.answers) - len(shown)
    if left > 0:
        answers += f", … {count(left, 'more value')}"
    return (
        f'<tr><td>{text(name, VALUE_CHARS)}<br><small class="where">{_where(item)}</small></td>'
        f'<td class="n">{item.agreement:.2f}</td><td>{text(answers, 4 * VALUE_CHARS)}</td></tr>'
    )


def _where(item: DisputedItem) -> str:
    if item.file is None:
        return "not located"
    at = f":{item.line}" if item.line is not None else ""
    pointer = f" <code>{text(item.pointer, VALUE_CHARS)}</code>" if item.pointer else ""
    return f'<span title="{text(item.file)}">{text(PurePath(item.file).name + at)}</span>{pointer}'
