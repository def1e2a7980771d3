"""`humanjudge report`: one self-contained HTML page per run. Per dataset: the validation summary
and its findings grouped by code, then per question its distribution (an inline SVG plot, or a
table of its most frequent answers), the agreement with its interval, the raters per item and the
quality findings.

Nothing on the page is fetched: no script, no stylesheet or font from elsewhere; the plots are
SVG in the page. Every text from the data is escaped, shortened where it could be long, and
rid of the marks that reorder bidirectional text.

The page's cost is bounded (docs/hostile-input.md): a plot is drawn once per distinct
distribution, at most PLOTTED plots are on a page, and every other question shows a table of
at most TABLED_VALUES answers; each plot's ids are its own, so no two share one. How a
question's answers are shown is html_answers.py.

The page opens with an overview (per dataset its errors, warnings and quality findings) and a
table of contents; every section and card has an id to link to and a link back to the top.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..finding import Finding
from .html_answers import MESSAGE_CHARS, PLOTTED, TABLED_VALUES, VALUE_CHARS, Plots
from .html_answers import count as _count
from .html_answers import text as _text
from .html_raters import raters_section
from .summary import DatasetStats, QualityFinding, QuestionStats
from .view import Judgments

__all__ = ["PLOTTED", "TABLED_VALUES", "VALUE_CHARS", "Shown", "page", "shown", "write_page", "write_report"]


class Checked(Protocol):
    """What the page reads of validation's result (`validation.Result`). Named here, not
    imported: validation imports the judgments' quality checks, and the judgments folder does not
    import validation back (tests/test_layout.py)."""

    @property
    def findings(self) -> list[Finding]: ...

    @property
    def files(self) -> int: ...


# Findings of one code listed per dataset; the rest are counted.
LISTED_PER_CODE = 50
# Quality findings listed on a question's card (the rest are counted), and the characters shown
# of a question's, dataset's or file's name.
LISTED_FLAGS = 20
OPEN_FLAGS = 3  # of which shown unfolded
NAME_CHARS = 300
# Questions of a dataset listed in the table of contents: a dataset of more is listed by name.
CONTENTS_QUESTIONS = 40

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 70rem;
       padding: 0 1rem; color: #1d2430; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2.5rem; border-bottom: 1px solid #d8dde6; }
h3 { font-size: 1rem; margin: 0 0 .3rem; }
h1, h2, h3, td, li, p { overflow-wrap: anywhere; }
a.top { font-size: .8rem; font-weight: normal; margin-left: .5rem; }
nav ol { padding-left: 1.2rem; } nav li { margin: .1rem 0; } nav ol ol { font-size: .9rem; }
ul.samples { margin: .2rem 0; padding-left: 1.2rem; } ul.samples li { margin: .15rem 0; }
.summary td.n { text-align: right; } .raters { margin-top: 1.2rem; }
.summary td, .summary th, table.findings td, table.findings th { padding: .2rem .6rem; text-align: left; }
table { border-collapse: collapse; } tr:nth-child(even) { background: #f4f6f9; }
.error { color: #b3261e; font-weight: 600; } .warning { color: #8a5a00; font-weight: 600; } .ok { color: #2e7d32; }
.questions { display: grid; grid-template-columns: repeat(auto-fill, minmax(22rem, 1fr)); gap: 1rem; }
.question { border: 1px solid #d8dde6; border-radius: 6px; padding: .8rem; }
.question svg { max-width: 100%; height: auto; display: block; }
.facts { color: #4a5568; margin: .2rem 0 .5rem; } .flag { color: #8a5a00; margin: .3rem 0; }
table.answers td { padding: .05rem .5rem; } table.answers td.n { text-align: right; }
table.options caption { text-align: left; color: #4a5568; } table.options th { text-align: left; padding: 0 .5rem; }
code { background: #f4f6f9; padding: 0 .2rem; border-radius: 3px; }
details { margin: .3rem 0; } summary { cursor: pointer; }
"""


@dataclass(frozen=True, slots=True)
class Shown:
    """What the page shows of a dataset: its statistics (`stats.describe`, with each question's
    values and the raters), its files as findings name them, and each ordered question's scale,
    worst to best (its points, those no one chose included), by the question's name."""

    stats: DatasetStats
    files: tuple[str, ...]
    scales: dict[str, tuple[Any, ...]]


def page(result: Checked, datasets: Sequence[Shown], title: str = "humanjudge report") -> str:
    """The report of the datasets (`shown`)."""
    findings = _by_dataset(result.findings, datasets)
    plots = Plots()
    sections = [_dataset(k, ds, findings[k], plots) for k, ds in enumerate(datasets)]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<title>{_text(title)}</title><style>{_CSS}</style></head><body id="top">',
        f"<h1>{_text(title)}</h1>",
        _overview(result, datasets, findings, plots),
        _contents(datasets, bool(findings[len(datasets)])),
        *sections,
    ]
    if findings[len(datasets)]:
        parts.append(f'<section id="other"><h2>Other files{_TOP}</h2>{_findings(findings[len(datasets)])}</section>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(
    result: Callable[[], Checked],
    views: Iterable[Judgments],
    target: Path,
    *,
    samples: int,
    seed: int = 0,
    within: Path | None = None,
) -> list[Shown]:
    """Write the report of the datasets to `target` (whole or not at all, never over one of
    their files, and inside `within` when it is given) and return what it shows of each
    (`shown`). `result` gives validation's result, asked for once the views have been read
    (reading.Reading checks the datasets as it reads them)."""
    found: list[Shown] = []
    inputs: list[Path] = []
    for view in views:
        found.append(shown(view, samples=samples, seed=seed))
        inputs += view.files
    write_page(result(), found, target, inputs, within=within)
    return found


def write_page(
    result: Checked, found: Sequence[Shown], target: Path, inputs: list[Path], *, within: Path | None = None
) -> None:
    """Write the page of what `shown` gave of each dataset to `target`: whole or not at all, never
    over one of `inputs`, and inside `within` when it is given."""
    from ..writing import write_atomic

    write_atomic(target, page(result, found).encode("utf-8"), inputs, within=within)


def shown(view: Judgments, *, samples: int, seed: int = 0) -> Shown:
    """What the page shows of a dataset (`Shown`)."""
    from ..readers.files import display_path
    from .stats import describe

    found = describe(view, samples=samples, seed=seed, values=True, raters=True)
    scales = {}
    for q in found.questions:
        declared = view.questions.get(q.question)
        if declared is not None and declared.order:
            scales[q.question] = tuple(declared.order)
    return Shown(found, tuple(display_path(f) for f in view.files), scales)


_TOP = ' <a class="top" href="#top">↑ top</a>'


def _counts(findings: list[Finding]) -> tuple[int, int]:
    """Errors and warnings."""
    errors = sum(f.count for f in findings if f.severity.value == "error")
    return errors, sum(f.count for f in findings if f.severity.value == "warning")


def _verdict(findings: list[Finding]) -> str:
    errors, warnings = _counts(findings)
    if not errors and not warnings:
        return '<span class="ok">no problems</span>'
    out = []
    if errors:
        out.append(f'<span class="error">{_count(errors, "error")}</span>')
    if warnings:
        out.append(f'<span class="warning">{_count(warnings, "warning")}</span>')
    return ", ".join(out)


def _by_dataset(findings: list[Finding], datasets: Sequence[Shown]) -> list[list[Finding]]:
    """The findings of each dataset (by its files), and last those of no dataset."""
    owner = {file: k for k, ds in enumerate(datasets) for file in ds.files}
    out: list[list[Finding]] = [[] for _ in range(len(datasets) + 1)]
    for f in findings:
        out[owner.get(f.file, len(datasets))].append(f)
    return out


def _quality(n: int) -> str:
    return f'<span class="warning">{_count(n, "quality finding")}</span>' if n else _count(n, "quality finding")


def _cell(n: int, kind: str) -> str:
    return f'<td class="n"><span class="{kind}">{n}</span></td>' if n else '<td class="n">0</td>'


def _overview(result: Checked, datasets: Sequence[Shown], findings: list[list[Finding]], plots: Plots) -> str:
    checked = f"{_count(len(datasets), 'dataset')}, {_count(result.files, 'file')} checked"
    quality = sum(len(ds.stats.quality or ()) for ds in datasets)
    rows = [
        f"<p>{checked}: validation: {_verdict(result.findings)}; {_quality(quality)} in the judgments.</p>",
        '<table class="summary"><tr><th>dataset</th><th>format</th><th>questions</th><th>judgments</th>'
        "<th>errors</th><th>warnings</th><th>quality findings</th></tr>",
    ]
    for k, ds in enumerate(d.stats for d in datasets):
        judgments = sum(q.judgments for q in ds.questions)
        errors, warnings = _counts(findings[k])
        rows.append(
            f'<tr><td><a href="#d{k}">{_text(ds.dataset, NAME_CHARS)}</a></td><td>{_text(ds.format)}</td>'
            f'<td class="n">{len(ds.questions)}</td><td class="n">{judgments}</td>'
            f"{_cell(errors, 'error')}{_cell(warnings, 'warning')}{_cell(len(ds.quality or ()), 'warning')}</tr>"
        )
    if findings[len(datasets)]:
        errors, warnings = _counts(findings[len(datasets)])
        rows.append(
            '<tr><td><a href="#other">other files</a></td><td></td><td></td><td></td>'
            f"{_cell(errors, 'error')}{_cell(warnings, 'warning')}<td></td></tr>"
        )
    rows.append("</table>")
    if plots.tabled:
        rows.append(
            f"<p>This page draws at most {PLOTTED} plots: the answers of the other {_count(plots.tabled, 'question')}"
            f" are shown as tables of their {TABLED_VALUES} most frequent values.</p>"
        )
    return "\n".join(rows)


def _contents(datasets: Sequence[Shown], other: bool) -> str:
    """The table of contents: each dataset and, unless it has many, its questions."""
    entries = []
    for k, ds in enumerate(d.stats for d in datasets):
        questions = ds.questions
        inner = ""
        if 0 < len(questions) <= CONTENTS_QUESTIONS:
            inner = (
                "<ol>"
                + "".join(
                    f'<li><a href="#d{k}-q{j}">{_text(q.question, NAME_CHARS)}</a></li>'
                    for j, q in enumerate(questions)
                )
                + "</ol>"
            )
        elif questions:
            inner = f" <small>({_count(len(questions), 'question')})</small>"
        entries.append(f'<li><a href="#d{k}">{_text(ds.dataset, NAME_CHARS)}</a>{inner}</li>')
    if other:
        entries.append('<li><a href="#other">Other files</a></li>')
    return f'<nav id="contents"><h2>Contents</h2><ol>{"".join(entries)}</ol></nav>'


def _dataset(k: int, shown: Shown, findings: list[Finding], plots: Plots) -> str:
    ds = shown.stats
    parts = [
        f'<section id="d{k}"><h2>{_text(ds.dataset, NAME_CHARS)} <small>({_text(ds.format)})</small>{_TOP}</h2>',
        f"<p>Validation: {_verdict(findings)}. Judgments: {_quality(len(ds.quality or ()))}.</p>",
    ]
    if findings:
        parts.append(_findings(findings))
    flags: dict[str, list[QualityFinding]] = defaultdict(list)
    for flag in ds.quality or ():
        flags[flag.question].append(flag)
    parts.append('<div class="questions">')
    for j, q in enumerate(ds.questions):
        parts.append(_question(f"d{k}-q{j}", q, flags.get(q.question, []), plots, shown.scales.get(q.question)))
    parts.append("</div>")
    if not ds.questions:
        parts.append("<p>No judgments.</p>")
    parts.append(raters_section(ds))  # "" unless the raters were asked for (`raters.table`)
    parts.append("</section>")
    return "\n".join(parts)


def _findings(findings: list[Finding]) -> str:
    by_code: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_code[f.code].append(f)
    parts = []
    for code, group in sorted(by_code.items()):
        n = sum(f.count for f in group)
        rows = []
        for f in group[:LISTED_PER_CODE]:
            where = _text(f.file, NAME_CHARS) + (f":{f.line}" if f.line is not None else "")
            rows.append(
                f"<tr><td>{where}</td><td><code>{_text(f.pointer, NAME_CHARS)}</code></td>"
                f"<td>{_text(f.message, MESSAGE_CHARS)}</td></tr>"
            )
        more = f"<p>… and {len(group) - LISTED_PER_CODE} more.</p>" if len(group) > LISTED_PER_CODE else ""
        parts.append(
            f'<details><summary><span class="{group[0].severity.value}">{_text(code)}</span> ({n})</summary>'
            f'<table class="findings"><tr><th>file:line</th><th>pointer</th><th>message</th></tr>'
            f"{''.join(rows)}</table>"
            f"{more}</details>"
        )
    return "\n".join(parts)


def _options(q: QuestionStats) -> str:
    """The figures of each part of the question's answers (an option, a label), a row each."""
    options = q.options or ()
    if not options:
        return ""
    kind = "option" if q.level is None else "label"
    rows = []
    for o in options[:TABLED_VALUES]:
        alpha = "-" if o.alpha is None else f"{o.alpha:.3f}"
        cells = [
            _text(o.option, VALUE_CHARS),
            str(o.judgments),
            alpha,
            o.agreement.observed_text() or "-",
            o.agreement.ac_text() or "-",
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    more = len(options) - TABLED_VALUES
    tail = f'<p class="facts">… and {_count(more, "more " + kind)}.</p>' if more > 0 else ""
    level = options[0].level or "-"
    return (
        f'<table class="answers options"><caption>per {kind} ({level})</caption>'
        f"<tr><th>{kind}</th><th>judgments</th><th>alpha</th><th>agree</th><th>AC</th></tr>{''.join(rows)}</table>{tail}"
    )


def _question(
    anchor: str, q: QuestionStats, flags: list[QualityFinding], plots: Plots, scale: Sequence[Any] | None = None
) -> str:
    """A question's card; `scale`: its points, worst to best, where it declares them."""
    per_item = q.raters_text() or "-"
    if q.note:  # values that do not suit the level
        agreement = f"alpha: not computed: {_text(q.note, MESSAGE_CHARS)}"
    elif q.alpha is None and q.level:
        agreement = "alpha: not defined (no item with two values, or one value only)"
    elif q.alpha is None:
        agreement = "alpha: no level"
    else:
        ci = q.interval_text()
        agreement = f"alpha ({q.level}): <strong>{q.alpha:.3f}</strong>" + (f" {ci}" if ci else "")
    if (agree := q.agreement.observed_text()) is not None:
        agreement += f"; the same answer in {agree} of pairs"
    if (ac := q.agreement.ac_text()) is not None:
        ac_ci = q.agreement.ac_interval_text()
        agreement += f"; Gwet's {q.agreement.ac_name()}: <strong>{ac}</strong>" + (f" {ac_ci}" if ac_ci else "")
    if q.agreement_note:
        agreement += f"<br>{_text(q.agreement_note, MESSAGE_CHARS)}"
    if q.level_note:
        agreement += f"<br>level: {_text(q.level_note, MESSAGE_CHARS)}"
    parts = [
        f'<div class="question" id="{anchor}">',
        f"<h3>{_text(q.question, NAME_CHARS)}</h3>",
        f'<p class="facts">{q.items} items, {q.judgments} judgments'
        + (f", {q.missing} missing" if q.missing else "")
        + f"; raters per item (min / median / max): {per_item}<br>{agreement}</p>",
    ]
    parts.append(plots.of(q.values or (), q.level, scale))
    parts.append(_options(q))
    listed = flags[:LISTED_FLAGS]
    said = [f'<p class="flag">{_text(f.code)}: {_text(f.message, MESSAGE_CHARS)}</p>' for f in listed]
    parts += said[:OPEN_FLAGS]
    if len(flags) > OPEN_FLAGS:  # the others folded, so that the card stays the size of its plot
        more = ""
        if len(flags) > LISTED_FLAGS:
            more = f'<p class="flag">… and {_count(len(flags) - LISTED_FLAGS, "more quality finding")}.</p>'
        folded = _count(len(flags) - OPEN_FLAGS, "more quality finding")
        parts.append(f"<details><summary>{folded}</summary>{''.join(said[OPEN_FLAGS:])}{more}</details>")
    parts.append("</div>")
    return "\n".join(parts)
