"""A diff as text for a terminal and as Markdown for a pull request's job summary. Every name
and value comes from the data: the text escapes control characters (finding.escape_control),
the Markdown goes through the job summary's escaping (report/github.py) and is bounded."""

from __future__ import annotations

import json
from typing import Any

from .model import DatasetDiff, Diff, Example, Figures, FindingChange, QuestionDiff

_SHOWN = 60  # characters of a value shown in an example


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _kinds(removed: int, changed: int, added: int) -> str:
    return f"{removed:,} removed, {changed:,} changed, {added:,} added"


def _what(kind: str, old: Any, new: Any) -> str:
    """What an example's values were and are, as its kind shows them."""
    if kind == "removed":
        return _value(old)
    return _value(new) if kind == "added" else f"{_value(old)} -> {_value(new)}"


def _value(v: Any) -> str:
    text = v if isinstance(v, str) and v else json.dumps(v, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def headline(found: Diff) -> str:
    """The one line that says what the change does to the judgments."""
    s = found.summary()
    if found.judgments_unchanged:
        said = "No judgment or stored aggregate changed"
        n = s["datasets"]["changed"]
        if n:
            said += f" ({plural(n, 'dataset')} changed in other ways)"
        return said + _findings_said(s) + "."
    ds = s["datasets"]
    parts = [f"{k} {ds[k]}" for k in ("removed", "changed", "added", "moved") if ds[k]]
    line = (
        f"Judgments: {_kinds(s['removed'], s['changed'], s['added'])}; datasets: {', '.join(parts) or 'none changed'}"
    )
    agg = [sum(getattr(d.aggregates, k) for d in found.datasets) for k in ("removed", "changed", "added")]
    if any(agg):
        line += f"; stored aggregates: {_kinds(*agg)}"
        if s["aggregates_not_matching"]:
            line += f" ({s['aggregates_not_matching']:,} not matching the judgments)"
    if s["alpha_flagged"]:
        line += f"; {plural(s['alpha_flagged'], 'question')} whose agreement moved beyond its interval"
    return line + _findings_said(s) + "."


def _findings_said(s: dict[str, Any]) -> str:
    new, fixed = s["findings_new"], s["findings_fixed"]
    if not (new["errors"] or new["warnings"] or fixed["errors"] or fixed["warnings"]):
        return ""
    return (
        f"; introduces {plural(new['errors'], 'error')} and {plural(new['warnings'], 'warning')}, "
        f"fixes {plural(fixed['errors'], 'error')} and {plural(fixed['warnings'], 'warning')}"
    )


def _figure(f: Figures | None, name: str) -> str:
    value = None if f is None else getattr(f, name)
    if value is None:
        return "-"
    ci = getattr(f, f"{name}_ci")
    return f"{value:.3f}" + ("" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]")


def _spread(f: Figures | None) -> str:
    if f is None or f.raters_per_item is None:
        return "-"
    return "/".join(f"{x:g}" for x in f.raters_per_item)


def _where(file: str, line: int | None, pointer: str) -> str:
    return f"{file}:{line} {pointer}" if line else f"{file} {pointer}"


def _example(e: Example) -> str:
    who = " ".join(
        f"{label} {_value(v)}" for label, v in (("item", e.item), ("rater", e.rater), ("option", e.option)) if v != ""
    )
    if e.old_rater is not None:
        who += f" (old {_value(e.old_rater)})"
    return f"{e.kind} {who}: {_what(e.kind, e.old, e.new)} ({_where(e.file, e.line, e.pointer)})"


def _question_lines(q: QuestionDiff) -> list[str]:
    title = f"{q.question} (renamed from {q.renamed_from})" if q.renamed_from else q.question
    lines = [f"  {title}: {_kinds(q.removed, q.changed, q.added)}"]
    for label, values in (
        ("items removed", q.items_removed),
        ("raters removed", q.raters_removed),
        ("items added", q.items_added),
        ("raters added", q.raters_added),
    ):
        if values:
            shown = ", ".join(_value(v) for v in values[:5]) + (
                f", … ({len(values) - 5:,} more)" if len(values) > 5 else ""
            )
            lines.append(f"    {label}: {len(values):,}: {shown}")
    if q.old is not None or q.new is not None:
        lines.append(f"    alpha {_figure(q.old, 'alpha')} -> {_figure(q.new, 'alpha')}")
        lines.append(f"    AC    {_figure(q.old, 'ac')} -> {_figure(q.new, 'ac')}")
        tvd = "" if q.tvd is None else f"; distribution moved by {q.tvd:.3f} (total variation)"
        lines.append(f"    raters per item {_spread(q.old)} -> {_spread(q.new)}{tvd}")
        if q.flagged:
            lines.append("    the intervals before and after do not overlap")
    lines += [f"    {_example(e)}" for e in q.examples]
    return lines


def _finding(prefix: str, f: FindingChange) -> str:
    count = f" (x{f.count})" if f.count > 1 else ""
    return f"    {prefix} {_where(f.file, f.line, f.pointer)}: {f.severity} {f.code} {f.message}{count}"


def _name(found: Diff, d: DatasetDiff) -> str:
    """A dataset as the text names it: its path within the versions, or, where each version is the
    dataset itself (its path "."), the version's path as it was given."""
    if d.dataset != ".":
        return d.dataset
    return found.old if d.status == "removed" else found.new


def _dataset_lines(found: Diff, d: DatasetDiff) -> list[str]:
    name = _name(found, d)
    if d.status == "unchanged":
        return [f"unchanged {name} ({d.format})"]
    moved = f" (moved from {d.old_dataset})" if d.moved else ""
    old, new = d.judgments
    lines = [f"{d.status} {name} ({d.format}){moved}: {old:,} -> {new:,} judgments"]
    lines += [f"  note: {n}" for n in d.notes]
    if d.alignment is not None:
        positions, aligned = d.alignment.edits
        lines.append(
            f"  raters aligned: {d.alignment.said()} ({aligned:,} judgments removed, changed or added, "
            f"against {positions:,} matched by place)"
        )
    for q in d.questions:
        if not q.empty:
            lines += _question_lines(q)
    a = d.aggregates
    if a.added or a.removed or a.changed:
        lines.append(
            f"  stored aggregates: {_kinds(a.removed, a.changed, a.added)}"
            + (f"; {a.not_matching:,} no longer match the individual judgments" if a.not_matching else "")
        )
        for x in a.examples:
            what = _what(x["kind"], x["old"], x["new"])
            match = "" if x["matches"] is None else " (matches)" if x["matches"] else " (does not match)"
            lines.append(
                f"    {x['kind']} {x['question']} item {_value(x['item'])} {x['aggregate']}: {what}{match} "
                f"({_where(x['file'], x['line'], x['pointer'])})"
            )
    if d.findings_new or d.findings_fixed:
        lines.append(f"  findings: {len(d.findings_new):,} new, {len(d.findings_fixed):,} fixed")
        lines += [_finding("new  ", f) for f in d.findings_new[:20]]
        lines += [_finding("fixed", f) for f in d.findings_fixed[:20]]
    return lines


def text(found: Diff) -> str:
    """The diff for a terminal: the headline, then each dataset (removed, changed, added)."""
    from ..finding import escape_control

    lines = [f"humanjudge diff {found.old} -> {found.new}", headline(found)]
    for d in found.datasets:
        if d.status != "unchanged":
            lines += _dataset_lines(found, d)
    unchanged = sum(d.status == "unchanged" for d in found.datasets)
    if unchanged:
        lines.append(f"{plural(unchanged, 'dataset')} unchanged")
    lines += [f"fail-on: {why}" for why in found.failed]
    return "".join(escape_control(line) + "\n" for line in lines)


def markdown(found: Diff, *, title: str = "What this change does to the judgments", limit: int = 256 * 1024) -> str:
    """The diff as a job summary section, at most `limit` bytes."""
    from ..report.github import cell, clip, code_span

    out = [f"## {cell(title)}", "", cell(headline(found))]
    if found.failed:
        out += ["", "**Fails `--fail-on`:**", *[f"- {cell(why)}" for why in found.failed]]
    shown = [d for d in found.datasets if d.status != "unchanged"]
    if shown:
        out += [
            "",
            "| dataset | format | status | judgments (old → new) | removed | changed | added | aggregates changed |",
        ]
        out.append("|---|---|---|---:|---:|---:|---:|---:|")
        for d in shown:
            moved = f" (moved from {code_span(d.old_dataset or '')})" if d.moved else ""
            totals = [sum(getattr(q, k) for q in d.questions) for k in ("removed", "changed", "added")]
            out.append(
                f"| {code_span(_name(found, d))}{moved} | {cell(d.format)} | {d.status} | {d.judgments[0]:,} → "
                f"{d.judgments[1]:,} | {totals[0]:,} | {totals[1]:,} | {totals[2]:,} | {d.aggregates.changed:,} |"
            )
    for d in shown:
        if d.status != "changed":
            continue
        said = _dataset_lines(found, d)[1:]
        if not said:
            continue
        out += ["", f"<details><summary>{code_span(_name(found, d))}</summary>", "", "<pre>"]
        out += [_pre(line) for line in said]
        out += ["</pre>", "", "</details>"]
    unchanged = len(found.datasets) - len(shown)
    if unchanged:
        out += ["", f"{plural(unchanged, 'dataset')} unchanged."]
    return clip("\n".join(out) + "\n", limit, "the diff")


def _pre(line: str) -> str:
    """A line inside <pre>: HTML escaped (no tag, no entity of the data's), control characters
    shown as escapes, at most 2,000 characters."""
    import html

    from ..finding import escape_control

    if len(line) > 2000:
        line = line[:2000] + "…"
    return escape_control(html.escape(line, quote=False))
