"""`file:line:col: severity code message (at pointer)`, one finding a line, like compilers.

File names, messages and pointers come from the dataset (its file names, keys and values): their
control characters are printed as escapes, so that every line of the output is one finding and
no dataset can print a line that looks like a finding of another file.
"""

from __future__ import annotations

from ..finding import escape_control
from ..kinds import Skipped, tally
from ..readers.files import display_path
from ..validation import Result
from .groups import grouped

# Files left out up to this many are named in the summary; more are counted by reason, and
# --format json lists them.
NAMED_LEFT_OUT = 3


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render(result: Result, *, group: bool = True) -> str:
    """A line a finding; alike findings of one file (report/groups.py) a line a group, with how
    many more and where, unless `group` is False."""
    lines = []
    groups = grouped(result.findings, group=group)
    for g in groups:
        f = g.first
        where = escape_control(f.file)
        if f.line is not None:
            where += f":{f.line}"
            if f.column is not None:
                where += f":{f.column}"
        at = f" (at {escape_control(f.pointer)})" if f.pointer else ""
        more = f" [{escape_control(g.more())}]" if g.rest else ""
        lines.append(f"{where}: {f.severity} {f.code} {escape_control(f.message)}{at}{more}")
    files = _plural(result.files, "file")
    if result.findings:
        tally_line = f"{_plural(result.errors, 'error')}, {_plural(result.warnings, 'warning')} in {files}."
        if len(groups) < len(result.findings):
            tally_line += " Alike findings are shown once with their count (--no-group shows each)."
        lines.append(tally_line)
    else:
        lines.append(f"No problems in {files}.")
    if result.skipped:
        lines.append(_left_out(list(result.skipped)))
    return "\n".join(lines) + "\n"


def _left_out(skipped: list[Skipped]) -> str:
    """The summary line of the files left out: each named, with why, when they are few."""
    if len(skipped) > NAMED_LEFT_OUT:
        return f"{tally(skipped)} (--format json lists them)."
    named = ", ".join(f"{escape_control(display_path(s.path))} ({s.reason})" for s in skipped)
    return f"{_plural(len(skipped), 'file')} left out: {named}."
