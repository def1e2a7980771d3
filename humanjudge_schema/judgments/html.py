"""`humanjudge report`: one self-contained HTML page per run. Per dataset: the validation summary
and its findings grouped by code, then per question its distribution (an inline SVG plot, or a
table of its most frequent answers), the agreement with its interval, its most disputed items,
the raters per item and the quality findings.

Nothing on the page is fetched: no stylesheet, font or script from elsewhere; the plots are SVG
in the page, and its style (report.css) and one script (sorting and filtering the summary,
report.js, html_nav.py) are in the page too; without the script the page reads the same. Every
text from the data is escaped, shortened where it could be long, and rid of the marks that
reorder bidirectional text.

The page's cost is bounded (docs/hostile-input.md): a plot is drawn once per distinct
distribution, at most PLOTTED plots are on a page, and every other question shows a table of
at most TABLED_VALUES answers. How a question's answers are shown is html_answers.py; its
disputed items, html_disputed.py.

The page opens with a summary, a row per dataset (a dataset without judgments too, its findings
under it), a guide to its figures and the notes that hold for a whole format (html_guide.py);
the table of contents stays beside the page on a wide screen (html_nav.py); every section and
card has an id to link to and a link back to the top; each code links to its documentation at
the foot of the page.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..finding import Finding
from ..registry import RULES
from .html_answers import MESSAGE_CHARS, PLOTTED, TABLED_VALUES, VALUE_CHARS, Plots, count, text
from .html_disputed import disputed_items
from .html_guide import READING, TOP, codes, linked, note_id, notes
from .html_nav import NAME_CHARS, SCRIPT, Entry, contents, counts, short_names, summary
from .html_raters import raters_section
from .summary import DatasetStats, QualityFinding, QuestionStats
from .view import Judgments

__all__ = ["DISPUTED", "PLOTTED", "Shown", "page", "shown", "unread", "write_page", "write_report"]


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
# Quality findings listed on a question's card (the rest are counted).
LISTED_FLAGS = 20
OPEN_FLAGS = 3  # of which shown unfolded
# The most disputed items listed per question (disputed.py).
DISPUTED = 5

# The page's style, in the page: nothing is fetched.
_CSS = Path(__file__).with_name("report.css").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Shown:
    """What the page shows of a dataset: its statistics (`stats.describe`, with each question's
    values and the raters), its files as findings name them, and each ordered question's scale,
    worst to best (its points, those no one chose included), by the question's name; `none`
    says why a dataset holds no judgment (`unread`: its statistics have no question)."""

    stats: DatasetStats
    files: tuple[str, ...]
    scales: dict[str, tuple[Any, ...]]
    none: str | None = None


def unread(name: str, format: str, files: Iterable[str], why: str) -> Shown:
    """A dataset that holds no judgment, shown with its findings and why it holds none."""
    return Shown(DatasetStats(name, format, ()), tuple(files), {}, why)


def page(result: Checked, datasets: Sequence[Shown], title: str = "humanjudge report") -> str:
    """The report of the datasets (`shown`, or `unread` for a dataset without judgments). Each
    code on it is documented as the registry has it: every code a finding has is registered by
    the time the finding is made."""
    owner = {file: k for k, ds in enumerate(datasets) for file in ds.files}
    findings: list[list[Finding]] = [[] for _ in datasets]
    other: list[Finding] = []  # of no dataset
    for f in result.findings:
        (findings[owner[f.file]] if f.file in owner else other).append(f)
    prefix, short = short_names([d.stats.dataset for d in datasets])
    entries = [Entry(f"d{k}", d.stats, short[k], findings[k], d.none) for k, d in enumerate(datasets)]
    plots = Plots()
    said = Counter(note for d in datasets if (note := _note(d.stats)) is not None)
    sections = [_dataset(e, d.scales, plots, said) for e, d in zip(entries, datasets, strict=True)]
    used = {f.code for f in result.findings} | {f.code for ds in datasets for f in ds.stats.quality or ()}
    listed = [("summary", "Summary"), ("reading", "How to read the figures")]
    if said:
        listed.append(("notes", "Notes per format"))
    if any(code in RULES for code in used):
        listed.append(("codes", "Codes on this page"))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<title>{text(title)}</title><style>\n{_CSS}</style></head><body id="top">',
        contents(entries, listed, bool(other)),
        "<main>",
        f"<h1>{text(title)}</h1>",
        _overview(result, datasets, plots),
        summary(entries, prefix, counts(other) if other else None),
        READING,
        notes(said),
        *sections,
    ]
    if other:
        parts.append(f'<section id="other"><h2>Other files{TOP}</h2>{_findings(other)}</section>')
    parts += [codes(used), "</main>", f"<script>\n{SCRIPT}</script>", "</body></html>"]
    return "\n".join(p for p in parts if p) + "\n"


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

    found = describe(view, samples=samples, seed=seed, values=True, raters=True, disputed=DISPUTED)
    orders = {name: declared.order for name, declared in view.questions.items() if declared.order}
    scales = {q.question: tuple(orders[q.question]) for q in found.questions if q.question in orders}
    return Shown(found, tuple(display_path(f) for f in view.files), scales)


def _verdict(findings: list[Finding]) -> str:
    counted = zip(counts(findings), ("error", "warning"), strict=True)
    said = [f'<span class="{kind}">{count(n, kind)}</span>' for n, kind in counted if n]
    return ", ".join(said) or '<span class="ok">no problems</span>'


def _quality(n: int) -> str:
    return f'<span class="warning">{count(n, "quality finding")}</span>' if n else count(n, "quality finding")


def _overview(result: Checked, datasets: Sequence[Shown], plots: Plots) -> str:
    unread = sum(ds.none is not None for ds in datasets)
    read = f" ({len(datasets) - unread} with judgments)" if unread else ""
    checked = f"{count(len(datasets), 'dataset')}{read}, {count(result.files, 'file')} checked"
    quality = sum(len(ds.stats.quality or ()) for ds in datasets)
    rows = [f"<p>{checked}: validation: {_verdict(result.findings)}; {_quality(quality)} in the judgments.</p>"]
    if plots.tabled:
        rows.append(
            f"<p>This page draws at most {PLOTTED} plots: the answers of the other {count(plots.tabled, 'question')}"
            f" are shown as tables of their {TABLED_VALUES} most frequent values.</p>"
        )
    return "\n".join(rows)


def _note(ds: DatasetStats) -> tuple[str, str] | None:
    """The note said once for every dataset of the format that has it (why its raters are not
    compared), as (format, note); None where the dataset has none."""
    if ds.raters is None or not ds.raters_note:
        return None
    return ds.format, f"Raters are not compared: {ds.raters_note}."


def _dataset(e: Entry, scales: dict[str, tuple[Any, ...]], plots: Plots, said: Mapping[tuple[str, str], int]) -> str:
    """A dataset's section; `said`: the notes per format, by (format, note), in their order."""
    ds = e.stats
    parts = [
        f'<section id="{e.anchor}"><h2>{text(ds.dataset, NAME_CHARS)} <small>({text(ds.format)})</small>{TOP}</h2>'
    ]
    if e.none is not None:
        parts.append(f"<p>Validation: {_verdict(e.findings)}. No judgments: {text(e.none, MESSAGE_CHARS)}.</p>")
    else:
        parts.append(f"<p>Validation: {_verdict(e.findings)}. Judgments: {_quality(len(ds.quality or ()))}.</p>")
    if e.findings:
        parts.append(_findings(e.findings))
    flags: dict[str, list[QualityFinding]] = defaultdict(list)
    for flag in ds.quality or ():
        flags[flag.question].append(flag)
    if ds.questions:
        cards = [
            _question(a, q, flags[q.question], plots, scales.get(q.question))
            for (a, _), q in zip(e.questions(), ds.questions, strict=True)
        ]
        parts += ['<div class="questions">', *cards, "</div>"]
    elif e.none is None:
        parts.append("<p>No judgments.</p>")
    note = _note(ds)  # said once for the format
    parts += [raters_section(ds, None if note is None else note_id(list(said).index(note))), "</section>"]
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
            where = text(f.file, NAME_CHARS) + (f":{f.line}" if f.line is not None else "")
            rows.append(
                f"<tr><td>{where}</td><td><code>{text(f.pointer, NAME_CHARS)}</code></td>"
                f"<td>{text(f.message, MESSAGE_CHARS)}</td></tr>"
            )
        more = f"<p>… and {len(group) - LISTED_PER_CODE} more.</p>" if len(group) > LISTED_PER_CODE else ""
        doc = RULES.get(code)
        about = f' <span class="facts">{text(doc.summary)}</span>' if doc is not None else ""
        parts.append(
            f'<details><summary><span class="{group[0].severity.value}">{linked(code)}</span> ({n}){about}'
            f'</summary><table class="found"><thead><tr><th>file:line</th><th>pointer</th><th>message</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
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
        cells = [
            text(o.option, VALUE_CHARS),
            str(o.judgments),
            "-" if o.alpha is None else f"{o.alpha:.3f}",
            o.agreement.observed_text() or "-",
            o.agreement.ac_text() or "-",
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    more = len(options) - TABLED_VALUES
    tail = f'<p class="facts">… and {count(more, "more " + kind)}.</p>' if more > 0 else ""
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
        agreement = f"alpha: not computed: {text(q.note, MESSAGE_CHARS)}"
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
    for lead, note in (("", q.agreement_note), ("level: ", q.level_note)):
        agreement += f"<br>{lead}{text(note, MESSAGE_CHARS)}" if note else ""
    parts = [
        f'<div class="question" id="{anchor}">',
        f"<h3>{text(q.question, NAME_CHARS)}</h3>",
        f'<p class="facts">{q.items} items, {q.judgments} judgments'
        + (f", {q.missing} missing" if q.missing else "")
        + f"; raters per item (min / median / max): {per_item}<br>{agreement}</p>",
        plots.of(q.values or (), q.level, scale),
        _options(q),
        disputed_items(q.disputed),
    ]
    said = [f'<p class="flag">{linked(f.code)}: {text(f.message, MESSAGE_CHARS)}</p>' for f in flags[:LISTED_FLAGS]]
    parts += said[:OPEN_FLAGS]
    if len(flags) > OPEN_FLAGS:  # the others folded, so that the card stays the size of its plot
        left = len(flags) - LISTED_FLAGS
        more = f'<p class="flag">… and {count(left, "more quality finding")}.</p>' if left > 0 else ""
        folded = count(len(flags) - OPEN_FLAGS, "more quality finding")
        parts.append(f"<details><summary>{folded}</summary>{''.join(said[OPEN_FLAGS:])}{more}</details>")
    parts.append("</div>")
    return "\n".join(parts)
