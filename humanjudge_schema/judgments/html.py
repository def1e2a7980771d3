"""`humanjudge report`: one self-contained HTML page per run. Per dataset: the validation summary
and its findings grouped by code, then per question its distribution (an inline SVG plot, or a
table of its most frequent answers), the agreement with its interval, the raters per item and the
quality findings.

Nothing on the page is fetched: no script, no stylesheet or font from elsewhere; the plots are
SVG in the page. Every text from the data is escaped, shortened where it could be long, and
rid of the marks that reorder bidirectional text.

The page's cost is bounded (docs/hostile-input.md): a plot is drawn once per distinct
distribution, at most PLOTTED plots are on a page, and every other question shows a table of
at most TABLED_VALUES answers; each plot's ids are its own, so no two share one.
"""

from __future__ import annotations

import math
import re
import warnings
from collections import defaultdict
from collections.abc import Hashable, Iterable
from html import escape
from pathlib import Path
from typing import Any

from ..finding import Finding
from ..validation import Result
from .stats import ac_interval_text, ac_name, ac_text, interval_text, observed_text, raters_text
from .view import Judgments

# Findings of one code listed per dataset; the rest are counted.
LISTED_PER_CODE = 50
# Plots on one page (each about 20 KB and, drawn, a tenth of a second); the questions after
# them show their answers as a table.
PLOTTED = 200
# Answers listed in such a table, quality findings listed on a question's card (the rest are
# counted), and the characters shown of a value, a question's name or a message.
TABLED_VALUES = 8
LISTED_FLAGS = 20
VALUE_CHARS = 80
NAME_CHARS = 300
MESSAGE_CHARS = 1000

# The marks that reorder bidirectional text (embeddings, overrides, isolates, the directional
# marks): shown text could otherwise read in an order other than its own.
_BIDI = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C])

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 70rem;
       padding: 0 1rem; color: #1d2430; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2.5rem; border-bottom: 1px solid #d8dde6; }
h3 { font-size: 1rem; margin: 0 0 .3rem; }
.summary td, .summary th, table.findings td, table.findings th { padding: .2rem .6rem; text-align: left; }
table { border-collapse: collapse; } tr:nth-child(even) { background: #f4f6f9; }
.error { color: #b3261e; font-weight: 600; } .warning { color: #8a5a00; font-weight: 600; } .ok { color: #2e7d32; }
.questions { display: grid; grid-template-columns: repeat(auto-fill, minmax(22rem, 1fr)); gap: 1rem; }
.question { border: 1px solid #d8dde6; border-radius: 6px; padding: .8rem; }
.question svg { max-width: 100%; height: auto; }
.facts { color: #4a5568; margin: .2rem 0 .5rem; } .flag { color: #8a5a00; margin: .3rem 0; }
table.answers td { padding: .05rem .5rem; } table.answers td.n { text-align: right; }
code { background: #f4f6f9; padding: 0 .2rem; border-radius: 3px; }
details { margin: .3rem 0; } summary { cursor: pointer; }
"""


def page(result: Result, datasets: list[dict[str, Any]], title: str = "humanjudge report") -> str:
    """The report. `datasets` are `stats.describe(..., values=True)` with their `files` (the
    dataset's files, as findings show them)."""
    findings = _by_dataset(result.findings, datasets)
    plots = _Plots()
    sections = [_dataset(k, ds, findings[k], plots) for k, ds in enumerate(datasets)]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_text(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_text(title)}</h1>",
        _overview(result, datasets, plots),
        *sections,
    ]
    if findings[len(datasets)]:
        parts.append("<h2>Other files</h2>" + _findings(findings[len(datasets)]))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(
    result: Result, views: Iterable[Judgments], target: Path, *, samples: int, seed: int = 0
) -> list[dict[str, Any]]:
    """Write the report of the datasets to `target` (whole or not at all, never over one of
    their files) and return what it shows of each (`stats.describe`, with its files)."""
    from ..readers.files import display_path
    from ..writing import write_atomic
    from .stats import describe

    found: list[dict[str, Any]] = []
    inputs: list[Path] = []
    for view in views:
        found.append(describe(view, samples=samples, seed=seed, values=True))
        found[-1]["files"] = [display_path(f) for f in view.files]
        inputs += view.files
    write_atomic(target, page(result, found).encode("utf-8"), inputs)
    return found


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _text(value: object, limit: int | None = None) -> str:
    """Text from the data as the page shows it: without bidirectional marks, at most `limit`
    characters, escaped."""
    text = str(value)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return escape(text.translate(_BIDI))


def _verdict(findings: list[Finding]) -> str:
    errors = sum(f.count for f in findings if f.severity.value == "error")
    warnings = sum(f.count for f in findings if f.severity.value == "warning")
    if not errors and not warnings:
        return '<span class="ok">no problems</span>'
    out = []
    if errors:
        out.append(f'<span class="error">{_count(errors, "error")}</span>')
    if warnings:
        out.append(f'<span class="warning">{_count(warnings, "warning")}</span>')
    return ", ".join(out)


def _by_dataset(findings: list[Finding], datasets: list[dict[str, Any]]) -> list[list[Finding]]:
    """The findings of each dataset (by its files), and last those of no dataset."""
    owner = {file: k for k, ds in enumerate(datasets) for file in ds["files"]}
    out: list[list[Finding]] = [[] for _ in range(len(datasets) + 1)]
    for f in findings:
        out[owner.get(f.file, len(datasets))].append(f)
    return out


def _quality(n: int) -> str:
    return f'<span class="warning">{_count(n, "quality finding")}</span>' if n else _count(n, "quality finding")


def _overview(result: Result, datasets: list[dict[str, Any]], plots: _Plots) -> str:
    checked = f"{_count(len(datasets), 'dataset')}, {_count(result.files, 'file')} checked"
    quality = sum(len(ds["quality"]) for ds in datasets)
    rows = [
        f"<p>{checked}: validation: {_verdict(result.findings)}; {_quality(quality)} in the judgments.</p>",
        '<table class="summary"><tr><th>dataset</th><th>format</th><th>questions</th><th>judgments</th>'
        "<th>quality findings</th></tr>",
    ]
    for k, ds in enumerate(datasets):
        judgments = sum(q["judgments"] for q in ds["questions"])
        rows.append(
            f'<tr><td><a href="#d{k}">{_text(ds["dataset"], NAME_CHARS)}</a></td><td>{_text(ds["format"])}</td>'
            f"<td>{len(ds['questions'])}</td><td>{judgments}</td><td>{len(ds['quality'])}</td></tr>"
        )
    rows.append("</table>")
    if plots.tabled:
        rows.append(
            f"<p>This page draws at most {PLOTTED} plots: the answers of the other {_count(plots.tabled, 'question')}"
            f" are shown as tables of their {TABLED_VALUES} most frequent values.</p>"
        )
    return "\n".join(rows)


def _dataset(k: int, ds: dict[str, Any], findings: list[Finding], plots: _Plots) -> str:
    parts = [
        f'<section id="d{k}"><h2>{_text(ds["dataset"], NAME_CHARS)} <small>({_text(ds["format"])})</small></h2>',
        f"<p>Validation: {_verdict(findings)}. Judgments: {_quality(len(ds['quality']))}.</p>",
    ]
    if findings:
        parts.append(_findings(findings))
    flags: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for flag in ds["quality"]:
        flags[flag["question"]].append(flag)
    parts.append('<div class="questions">')
    for q in ds["questions"]:
        parts.append(_question(q, flags.get(q["question"], []), plots))
    parts.append("</div>")
    if not ds["questions"]:
        parts.append("<p>No judgments.</p>")
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


def _question(q: dict[str, Any], flags: list[dict[str, Any]], plots: _Plots) -> str:
    per_item = raters_text(q) or "-"
    if q.get("note"):  # values that do not suit the level
        agreement = f"alpha: not computed: {_text(q['note'], MESSAGE_CHARS)}"
    elif q["alpha"] is None and q["level"]:
        agreement = "alpha: not defined (no item with two values, or one value only)"
    elif q["alpha"] is None:
        agreement = "alpha: no level"
    else:
        ci = interval_text(q)
        agreement = f"alpha ({q['level']}): <strong>{q['alpha']:.3f}</strong>" + (f" {ci}" if ci else "")
    if (agree := observed_text(q)) is not None:
        agreement += f"; the same answer in {agree} of pairs"
    if (ac := ac_text(q)) is not None:
        ac_ci = ac_interval_text(q)
        agreement += f"; Gwet's {ac_name(q)}: <strong>{ac}</strong>" + (f" {ac_ci}" if ac_ci else "")
    if q.get("agreement_note"):
        agreement += f"<br>{_text(q['agreement_note'], MESSAGE_CHARS)}"
    parts = [
        '<div class="question">',
        f"<h3>{_text(q['question'], NAME_CHARS)}</h3>",
        f'<p class="facts">{q["items"]} items, {q["judgments"]} judgments'
        + (f", {q['missing']} missing" if q["missing"] else "")
        + f"; raters per item (min / median / max): {per_item}<br>{agreement}</p>",
    ]
    for flag in flags[:LISTED_FLAGS]:
        parts.append(f'<p class="flag">{_text(flag["code"])}: {_text(flag["message"], MESSAGE_CHARS)}</p>')
    if len(flags) > LISTED_FLAGS:
        parts.append(f'<p class="flag">… and {_count(len(flags) - LISTED_FLAGS, "more quality finding")}.</p>')
    parts.append(plots.of(q))
    parts.append("</div>")
    return "\n".join(parts)


class _Plots:
    """The plots of one page. A plot shows only the answers (its card names the question), so
    questions with the same answers share one drawing; at most PLOTTED are included, each with
    ids of its own (`_own_ids`), and every other question gets a table of its answers."""

    def __init__(self) -> None:
        self.drawn: dict[tuple[Any, ...], str] = {}  # the answers -> their SVG, ids to be made own
        self.included = 0
        self.tabled = 0  # questions shown as a table because the page had its plots

    def of(self, q: dict[str, Any]) -> str:
        values: list[tuple[Hashable, int]] = q.get("values") or []
        if not values:
            return ""
        numeric = q["level"] in ("interval", "ratio") and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v, _ in values
        )
        if not numeric and q["level"] is None and len(values) > _plots().SHOWN_VALUES:
            return _answers(values, "")  # free text: a bar per answer says nothing
        if numeric and not _spanned(values):
            return _answers(values, "not plotted: the values are too far apart for a double")
        if self.included >= PLOTTED:
            self.tabled += 1
            return _answers(values, "")
        key = (numeric, *((type(v).__name__, v, n) for v, n in values))
        svg = self.drawn.get(key)
        if svg is None:
            try:
                svg = self.drawn[key] = _draw(values, numeric)
            except (ValueError, OverflowError) as exc:  # values matplotlib cannot lay out
                return _answers(values, f"not plotted: {exc}")
        self.included += 1
        return svg.replace(_MARK, f"p{self.included}-")


def _spanned(values: list[tuple[Any, int]]) -> bool:
    """Whether the largest value less the least is a number (not beyond the largest double)."""
    return math.isfinite(float(max(v for v, _ in values)) - float(min(v for v, _ in values)))


def _plots() -> Any:
    from . import plots

    return plots


def _draw(values: list[tuple[Hashable, int]], numeric: bool) -> str:
    """The SVG of the answers, its ids marked (`_own_ids`)."""
    plots = _plots()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow notes: the plot is refused instead
        if numeric:
            return _own_ids(plots.histogram(values, ""))
        return _own_ids(plots.bars([(_shown(v), n) for v, n in values], ""))


def _shown(value: Hashable) -> Hashable:
    """A value as a label: without bidirectional marks."""
    if isinstance(value, str):
        return value.translate(_BIDI)
    return tuple(map(_shown, value)) if isinstance(value, tuple) else value


_MARK = "\x00"  # where a plot's own prefix goes in its ids
_COMMENT = re.compile(r"\s*<!--.*?-->", re.S)
_ID = re.compile(r'\s+id="([^"]*)"')
_REF = re.compile(r'(url\(#|href="#)([^)"]*)')


def _own_ids(svg: str) -> str:
    """The SVG with every id that is referred to marked for a prefix (`url(#id)`, `href="#id"`,
    `xlink:href="#id"` and the `id` itself) and the other ids and the comments (which repeat
    the labels) dropped: each inclusion replaces the mark with a prefix of its own, so that no
    two plots on the page share an id, whether drawn apart or once for two questions."""
    svg = _COMMENT.sub("", svg)
    referred = {m.group(2) for m in _REF.finditer(svg)}
    svg = _ID.sub(lambda m: f' id="{_MARK}{m.group(1)}"' if m.group(1) in referred else "", svg)
    return _REF.sub(lambda m: f"{m.group(1)}{_MARK}{m.group(2)}", svg)


def _answers(values: list[tuple[Hashable, int]], note: str) -> str:
    """The most frequent answers as a table, the others counted."""
    top = sorted(values, key=lambda vc: -vc[1])[:TABLED_VALUES]
    rows = [f'<tr><td>{_text(_label(v), VALUE_CHARS)}</td><td class="n">{n}</td></tr>' for v, n in top]
    if len(values) > len(top):
        rest = sum(n for _, n in values) - sum(n for _, n in top)
        rows.append(f'<tr><td>{_count(len(values) - len(top), "other value")}</td><td class="n">{rest}</td></tr>')
    said = f"<p>{_text(note, MESSAGE_CHARS)}</p>" if note else ""
    return f'{said}<table class="answers"><tr><th>answer</th><th>judgments</th></tr>{"".join(rows)}</table>'


def _label(value: Hashable) -> str:
    return str(list(value)) if isinstance(value, tuple) else str(value)
