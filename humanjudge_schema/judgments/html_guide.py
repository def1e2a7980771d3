"""What the report says once rather than under every dataset: how to read its figures (alpha,
the observed agreement, Gwet's AC, an item's agreement) with the usual thresholds and their
sources, the notes that hold for every dataset of a format, and the documentation of each code
on the page, from the registry (the page is read offline: each code links here, and names its
entry in the rule reference, docs/rules.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..registry import RuleDoc, anchor
from .html_answers import count, text

__all__ = ["code_id", "codes", "linked", "notes", "reading"]

TOP = ' <a class="top" href="#top">↑ top</a>'

_READING = """
<section id="reading"><h2>How to read the figures{top}</h2>
<dl class="guide">
<dt>Krippendorff's alpha</dt>
<dd>1 &minus; the disagreement among the answers to each item &divide; the disagreement expected if
the question's answers were paired at random, at the question's level of measurement (nominal,
ordinal, interval, ratio), over the items with two answers or more; in brackets its 95% bootstrap
interval over items. 1: the raters agree; 0: no better than chance; below 0: they disagree
more than chance. Krippendorff (2004, p.&nbsp;241) relies on data with
<strong>alpha &ge; .800</strong>, draws only <strong>tentative</strong> conclusions from
<strong>.667 &le; alpha &lt; .800</strong>, and none below .667.</dd>
<dt>Observed agreement</dt>
<dd>&ldquo;The same answer in N% of pairs&rdquo;: the share of the pairs of an item's answers that
are the same answer, averaged over the items; not corrected for chance. Where one answer
dominates it is high whatever the raters do.</dd>
<dt>Gwet's AC</dt>
<dd>AC1 for labels, AC2 with the level's weights for ordered answers: chance-corrected like alpha,
but its chance term comes from how the answers could spread over the categories, not from how
often each is given, so it stays high where one answer dominates and alpha falls (the prevalence
paradox; Gwet 2008). It has no thresholds as settled as alpha's: Gwet (2014) benchmarks it on
scales such as Landis and Koch's (1977: .61&ndash;.80 substantial, .81&ndash;1 almost perfect),
its interval taken into account. Low alpha beside high AC and observed agreement says that one
answer dominates, not that the raters disagree (the note under such a question says so).</dd>
<dt>An item's agreement (the most disputed items)</dt>
<dd>Alpha of that item alone: 1 &minus; the mean distance between its own answers &divide; the
question's expected distance, with alpha's distance at the question's level (labels: 0 for the
same answer, 1 for another, so the mean is the share of the item's pairs of answers that differ).
1: its answers agree; 0: they differ as much as answers paired at random; below 0, more. Alpha
is the mean of the items' agreement weighted by their answers, so the items listed first are
those that pull it down most per answer. &ldquo;Where&rdquo; is the item's first answer.</dd>
</dl>
<p class="facts">Krippendorff, K. (2004). <cite>Content Analysis: An Introduction to Its
Methodology</cite> (2nd ed.). Sage. &middot; Gwet, K. L. (2008). Computing
inter-rater reliability and its variance in the presence of high agreement. <cite>British Journal
of Mathematical and Statistical Psychology</cite>, 61(1), 29&ndash;48. &middot; Gwet, K. L.
(2014). <cite>Handbook of Inter-Rater Reliability</cite> (4th ed.). Advanced Analytics.
&middot; Landis, J. R., &amp; Koch, G. G. (1977). The measurement of observer agreement for
categorical data. <cite>Biometrics</cite>, 33(1), 159&ndash;174.</p>
</section>
"""


def reading() -> str:
    """How to read the page's figures."""
    return _READING.format(top=TOP)


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


def linked(code: str, rules: Mapping[str, RuleDoc]) -> str:
    """A code as a link to its entry on the page, its summary in the link's title."""
    doc = rules.get(code)
    if doc is None:  # a code no registry documents: shown as it is
        return f"<code>{text(code)}</code>"
    return f'<a href="#{code_id(code)}" title="{text(doc.summary)}"><code>{text(code)}</code></a>'


def codes(used: Iterable[str], rules: Mapping[str, RuleDoc]) -> str:
    """The documentation of each code on the page ("" without codes)."""
    entries = []
    for code in sorted(set(used)):
        doc = rules.get(code)
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
