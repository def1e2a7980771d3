"""`humanjudge report`: one self-contained HTML page per run. Per dataset: the validation summary
and its findings grouped by code, then per question its distribution (an inline SVG plot), the
agreement with its interval, the raters per item and the quality findings.

Nothing on the page is fetched: no script, no stylesheet or font from elsewhere; the plots are
SVG in the page. Every text from the data is escaped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from html import escape
from pathlib import Path
from typing import Any

from ..finding import Finding
from ..validation import Result
from .stats import interval_text, raters_text
from .view import Judgments

# Findings of one code listed per dataset; the rest are counted.
LISTED_PER_CODE = 50

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
code { background: #f4f6f9; padding: 0 .2rem; border-radius: 3px; }
details { margin: .3rem 0; } summary { cursor: pointer; }
"""


def page(result: Result, datasets: list[dict[str, Any]], title: str = "humanjudge report") -> str:
    """The report. `datasets` are `stats.describe(..., values=True)` with their `files` (the
    dataset's files, as findings show them)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        _overview(result, datasets),
    ]
    findings = _by_dataset(result.findings, datasets)
    for k, ds in enumerate(datasets):
        parts.append(_dataset(k, ds, findings[k]))
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


def _overview(result: Result, datasets: list[dict[str, Any]]) -> str:
    checked = f"{_count(len(datasets), 'dataset')}, {_count(result.files, 'file')} checked"
    rows = [
        f"<p>{checked}: {_verdict(result.findings)}.</p>",
        '<table class="summary"><tr><th>dataset</th><th>format</th><th>questions</th><th>judgments</th></tr>',
    ]
    for k, ds in enumerate(datasets):
        judgments = sum(q["judgments"] for q in ds["questions"])
        rows.append(
            f'<tr><td><a href="#d{k}">{escape(ds["dataset"])}</a></td><td>{escape(ds["format"])}</td>'
            f"<td>{len(ds['questions'])}</td><td>{judgments}</td></tr>"
        )
    rows.append("</table>")
    return "\n".join(rows)


def _dataset(k: int, ds: dict[str, Any], findings: list[Finding]) -> str:
    parts = [
        f'<section id="d{k}"><h2>{escape(ds["dataset"])} <small>({escape(ds["format"])})</small></h2>',
        f"<p>Validation: {_verdict(findings)}.</p>",
    ]
    if findings:
        parts.append(_findings(findings))
    flags: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for flag in ds["quality"]:
        flags[flag["question"]].append(flag)
    parts.append('<div class="questions">')
    for q in ds["questions"]:
        parts.append(_question(q, flags.get(q["question"], [])))
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
            where = escape(f.file) + (f":{f.line}" if f.line is not None else "")
            rows.append(
                f"<tr><td>{where}</td><td><code>{escape(f.pointer)}</code></td><td>{escape(f.message)}</td></tr>"
            )
        more = f"<p>… and {len(group) - LISTED_PER_CODE} more.</p>" if len(group) > LISTED_PER_CODE else ""
        parts.append(
            f'<details><summary><span class="{group[0].severity.value}">{escape(code)}</span> ({n})</summary>'
            f'<table class="findings"><tr><th>file:line</th><th>pointer</th><th>message</th></tr>'
            f"{''.join(rows)}</table>"
            f"{more}</details>"
        )
    return "\n".join(parts)


def _question(q: dict[str, Any], flags: list[dict[str, Any]]) -> str:
    per_item = raters_text(q) or "-"
    if q.get("note"):  # values that do not suit the level
        agreement = f"alpha: not computed: {escape(q['note'])}"
    elif q["alpha"] is None and q["level"]:
        agreement = "alpha: not defined (no item with two values, or one value only)"
    elif q["alpha"] is None:
        agreement = "alpha: no level"
    else:
        ci = interval_text(q)
        agreement = f"alpha ({q['level']}): <strong>{q['alpha']:.3f}</strong>" + (f" {ci}" if ci else "")
    parts = [
        '<div class="question">',
        f"<h3>{escape(str(q['question']))}</h3>",
        f'<p class="facts">{q["items"]} items, {q["judgments"]} judgments'
        + (f", {q['missing']} missing" if q["missing"] else "")
        + f"; raters per item (min / median / max): {per_item}<br>{agreement}</p>",
    ]
    for flag in flags:
        parts.append(f'<p class="flag">{escape(flag["code"])}: {escape(flag["message"])}</p>')
    plot = _plot(q)
    if plot:
        parts.append(plot)
    parts.append("</div>")
    return "\n".join(parts)


def _plot(q: dict[str, Any]) -> str:
    from . import plots

    values = q.get("values") or []
    if not values:
        return ""
    numeric = q["level"] in ("interval", "ratio") and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v, _ in values
    )
    if numeric:
        return plots.histogram(values, f"{q['question']}: answers")
    if q["level"] is None and len(values) > plots.SHOWN_VALUES:
        return ""  # free text: a bar per answer says nothing
    return plots.bars(values, f"{q['question']}: answers")
