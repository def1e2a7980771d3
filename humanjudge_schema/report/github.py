"""GitHub Actions: findings as workflow commands (annotations), a Markdown job summary and step
outputs. The step that the composite action in action.yml runs is `commands/action.py`.

GitHub turns `::error file=...,line=...::message` lines into annotations, but shows only ten of
each type per step; the job summary is where every finding is listed. Everything a dataset
author controls (file names, messages quoting their values) is escaped, so no finding can end a
command early or start a new one, break a table row of the summary or write a line of its own.
"""

from __future__ import annotations

import html
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..finding import Finding, Severity, escape_control
from ..kinds import tally
from ..validation import Result
from .groups import grouped

if TYPE_CHECKING:
    from ..judgments.summary import DatasetStats

ANNOTATIONS_SHOWN = 10  # per type and step: GitHub's limit
SUMMARY_LIMIT = 1024 * 1024  # bytes a step summary may hold
_SUMMARY_BUDGET = SUMMARY_LIMIT - 64 * 1024  # room for what other steps add
NOTE_BUDGET = 256 * 1024  # the notes above the findings (what was checked, a configuration diff, the judgments)
FILES_LISTED = 500  # rows of the table of findings per file


def escape_data(text: str) -> str:
    """Escape the message of a workflow command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (file, title) of a workflow command."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(finding: Finding, more: str = "") -> str:
    """One finding as a workflow command: `::error file=F,line=L,col=C,title=CODE::message`;
    `more` says what alike findings it stands for (report/groups.py)."""
    props = []
    if finding.file:
        props.append(f"file={escape_property(finding.file)}")
        if finding.line is not None:
            props.append(f"line={finding.line}")
            if finding.column is not None:
                props.append(f"col={finding.column}")
    props.append(f"title={escape_property(finding.code)}")
    at = f" (at {finding.pointer})" if finding.pointer else ""
    more = f" [{more}]" if more else ""
    return f"::{finding.severity.value} {','.join(props)}::{escape_data(finding.message + at + more)}"


def render(result: Result, *, group: bool = True) -> str:
    """Every finding as a workflow command (alike ones as one, with their count), then the
    one-line tally."""
    lines = [command(g.first, g.more()) for g in grouped(result.findings, group=group)]
    lines.append(_tally(result))
    if result.skipped:
        lines.append(f"{tally(list(result.skipped))}.")
    return "\n".join(lines) + "\n"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _tally(result: Result) -> str:
    files = plural(result.files, "file")
    if not result.findings:
        return f"No problems in {files}."
    return f"{plural(result.errors, 'error')}, {plural(result.warnings, 'warning')} in {files}."


# Characters Markdown reads as markup inside a table cell: links and images ([text](url),
# ![alt](url)), emphasis (*a*, __init__.py), strike-through, code spans. Written as character
# references they show as themselves; html.escape has already taken <, > and &.
# An underscore inside a word (human_data_ind) is no emphasis in GitHub's Markdown and stays.
_MARKUP = str.maketrans({c: f"&#{ord(c)};" for c in "\\|[]!*~`"})
_EDGE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
CELL_CHARACTERS = 2000  # one cell of a table at most; a finding may quote a 2 MB value


def cell(text: object, limit: int = CELL_CHARACTERS) -> str:
    """Text for a Markdown table cell: no HTML, no Markdown markup (links, images, emphasis), no
    column breaks, one line, every control character shown as an escape, at most `limit`
    characters of the text."""
    value = str(text)
    if len(value) > limit:
        value = value[:limit] + f"… ({len(value) - limit:,} more characters)"
    value = _EDGE_UNDERSCORE.sub("&#95;", html.escape(value, quote=False).translate(_MARKUP))
    return escape_control(value)


def clip(text: str, limit: int, what: str) -> str:
    """`text` cut at a line end so that it takes at most `limit` bytes, with a last line that
    says how much of `what` was left out. Whatever the cut leaves open (a code fence, a `<pre>`,
    a `<details>` block) is closed, so that nothing after it folds into a collapsed block."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    room = max(0, limit - 200)
    cut = data.rfind(b"\n", 0, room)
    while True:
        kept = data[: cut if cut > 0 else 0].decode("utf-8", "ignore")
        closing = _closing(kept)
        if cut <= 0 or len(kept.encode("utf-8")) + len(closing.encode("utf-8")) <= room:
            break
        cut = data.rfind(b"\n", 0, cut)
    left = len(data) - len(kept.encode("utf-8"))
    return f"{kept}{closing}\n\n*{left:,} more bytes of {what} not shown: a step summary holds at most 1 MiB.*\n"


_FENCE = re.compile(r"^(`{3,})")
_TAGS = re.compile(r"<(/?)(details|pre)\b[^>]*>")


def _closing(text: str) -> str:
    """What closes the fences and blocks `text` leaves open, innermost first: the summary's own
    markup (a value of the data's is escaped, in a cell or a fence, so it opens nothing)."""
    fence = ""
    stack: list[str] = []
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence:
            if m and line.strip() == fence:
                fence = ""
            continue
        if m:
            fence = m.group(1)
            continue
        for close, tag in _TAGS.findall(line):
            if not close:
                stack.append(tag)
            elif tag in stack:
                while stack and stack.pop() != tag:
                    pass
    out = [fence] if fence else []
    out += [f"</{tag}>" for tag in reversed(stack)]
    return "\n" + "\n".join(out) if out else ""


def code_span(text: str) -> str:
    return f"<code>{cell(text)}</code>" if text else ""


def fenced(text: str, info: str = "") -> str:
    """A fenced code block that no line of the text can close (its fence is longer than any run
    of backticks in it), with control characters other than line ends escaped."""
    body = "\n".join(escape_control(line) for line in text.split("\n"))
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def summary(result: Result, *, title: str = "humanjudge validate", note: str = "", group: bool = True) -> str:
    """The job summary in Markdown: the tally, counts per code and per file, then every finding.

    The list is cut only where GitHub's 1 MiB limit on a step summary would be passed, and then
    says how many findings it leaves out; the counts above it are always complete. `note` is
    Markdown written by the caller, shown under the tally.
    """
    out = [f"## {cell(title)}", "", f"**{_tally(result)}**", ""]
    if note:  # what the pull request's files put in it is cut, so that the findings keep their room
        out += [clip(note, NOTE_BUDGET, "these notes"), ""]
    if result.skipped:
        out += _skipped(result)
    if not result.findings:
        return "\n".join(out)
    by_code: Counter[tuple[str, Severity]] = Counter()
    for f in result.findings:
        by_code[f.code, f.severity] += f.count
    out += ["| code | severity | findings |", "|---|---|---:|"]
    for (code, severity), n in sorted(by_code.items(), key=lambda item: (-item[1], item[0][0])):
        out.append(f"| {code_span(code)} | {severity.value} | {n} |")
    per_file: dict[str, list[int]] = {}
    for f in result.findings:
        counts = per_file.setdefault(f.file, [0, 0])
        counts[f.severity is Severity.WARNING] += f.count
    out += ["", "| file | errors | warnings |", "|---|---:|---:|"]
    for file, (errors, warnings) in sorted(per_file.items())[:FILES_LISTED]:
        out.append(f"| {code_span(file) or '(no file)'} | {errors} | {warnings} |")
    if len(per_file) > FILES_LISTED:
        out.append(f"\n{plural(len(per_file) - FILES_LISTED, 'more file')} with findings not listed.")
    shown = result.errors > ANNOTATIONS_SHOWN or result.warnings > ANNOTATIONS_SHOWN
    groups = grouped(result.findings, group=group)
    alike = " (alike findings of a file in one row, with their count)" if len(groups) < len(result.findings) else ""
    out += [
        "",
        f"<details{' open' if len(groups) <= 50 else ''}><summary>All {len(result.findings)} findings{alike}</summary>",
        "",
    ]
    if shown:
        out += ["GitHub shows only the first 10 annotations of each type; this list has them all.", ""]
    out += [
        "| file | line | severity | code | message | pointer |",
        "|---|---:|---|---|---|---|",
    ]
    size = sum(len(line.encode()) + 1 for line in out)
    listed = 0
    for g in groups:
        f = g.first
        where = "" if f.line is None else f"{f.line}" + ("" if f.column is None else f":{f.column}")
        more = f" <em>{cell(g.more())}</em>" if g.rest else ""
        row = (
            f"| {code_span(f.file)} | {where} | {f.severity.value} | {code_span(f.code)} | {cell(f.message)}{more} "
            f"| {code_span(f.pointer)} |"
        )
        size += len(row.encode()) + 1
        if size > _SUMMARY_BUDGET - 1024:  # room for the note and the end of the list
            left = len(result.findings) - listed
            out.append(
                f"\n{plural(left, 'more finding')} not listed: a step summary holds at most 1 MiB. "
                "The job log has every finding; run `humanjudge validate` locally or upload the SARIF file."
            )
            break
        out.append(row)
        listed += len(g.findings)
    out += ["", "</details>", ""]
    return clip("\n".join(out), _SUMMARY_BUDGET, "the summary")


_SKIPPED_LISTED = 200


def _skipped(result: Result) -> list[str]:
    from ..readers.files import display_path

    skipped = list(result.skipped)
    out = [f"<details><summary>{cell(tally(skipped))}</summary>", "", "| file | why |", "|---|---|"]
    out += [f"| {code_span(display_path(s.path))} | {cell(s.reason)} |" for s in skipped[:_SKIPPED_LISTED]]
    if len(skipped) > _SKIPPED_LISTED:
        out.append(f"\n{plural(len(skipped) - _SKIPPED_LISTED, 'more file')} not listed.")
    return [*out, "", "</details>", ""]


def append_to(path: str | os.PathLike[str], text: str) -> None:
    """Append to a file GitHub reads after the step (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def outputs(values: Mapping[str, object]) -> str:
    """Step outputs in the GITHUB_OUTPUT syntax (single-line values only)."""
    lines = []
    for key, value in values.items():
        text = str(value)
        if "\n" in text or "\r" in text:
            raise ValueError(f"output {key!r} must be one line")
        lines.append(f"{key}={text}")
    return "\n".join(lines) + "\n"


def questions_table(datasets: Sequence[DatasetStats]) -> str:
    """Per dataset and question (`stats.describe`): the Markdown table of the job summary."""
    out = [
        "### The judgments",
        "",
        "| dataset | question | level | items | judgments | raters per item | alpha [95%] | agree | AC [95%] |",
    ]
    out.append("|---|---|---|---:|---:|---|---|---:|---|")
    for ds in datasets:
        for q in ds.questions:
            per_item = q.raters_text() or ""
            alpha = f"none: {cell(q.note)}" if q.note else ""
            if q.alpha is not None:
                ci = q.interval_text()
                alpha = f"{q.alpha:.3f}" + (f" {ci}" if ci else "")
            if q.agreement_note:
                alpha += f" ({cell(q.agreement_note)})"
            ac, ac_ci = q.agreement.ac_text() or "", q.agreement.ac_interval_text()
            ac += f" {ac_ci}" if ac_ci else ""
            out.append(
                f"| {code_span(ds.dataset)} | {cell(str(q.question))} | {q.level or ''} | {q.items} "
                f"| {q.judgments} | {per_item} | {alpha} | {q.agreement.observed_text() or ''} | {ac} |"
            )
    flags = [(ds.dataset, f) for ds in datasets for f in ds.quality or ()]
    if flags:
        out += ["", *(f"- {code_span(f.code)} {code_span(d)}: {cell(f.message)}" for d, f in flags)]
    return "\n".join(out)
