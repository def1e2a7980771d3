"""The Responsible-AI fields of a card (Croissant RAI 1.0), computed from the data, and the
reading of them back (`card --check` compares what a card states with the data).

Each value is text, as the RAI vocabulary defines it, one line per question, and says which
figures it comes from. A question is named as a JSON string ("rating"), so that a name holding a
colon or a quote reads back unambiguously. The agreement figures are those of
`humanjudge stats --format json` with the same bootstrap samples and seed, rounded to 4 decimals.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ..judgments.summary import QualityFinding, QuestionStats
from .codes import PLACEHOLDER
from .facts import Facts

DIGITS = 4  # decimals of the agreement figures in the card

# What only the author knows, written as a placeholder (`card/unfilled` lists each one). The RAI
# vocabulary makes some of them one text and others a list of texts: each is written as it
# defines it, so that mlcroissant reads it.
AUTHOR_FIELDS: dict[str, tuple[str, bool]] = {
    "rai:dataCollection": ("how the judgments were collected: the task, the raters' instructions, when", False),
    "rai:dataCollectionType": ("the kind of collection (e.g. crowdsourcing, lab experiment, expert annotation)", True),
    "rai:dataAnnotationProtocol": ("how raters were recruited, trained, paid and screened", True),
    "rai:dataAnnotationPlatform": ("where the annotations were collected (e.g. Prolific, MTurk, a custom site)", True),
    "rai:dataBiases": ("known biases of the items, the raters or the collection", True),
    "rai:dataUseCases": ("what the data is meant for, and what it is not", True),
    "rai:dataLimitations": ("what the data cannot support", True),
    "rai:personalSensitiveInformation": ("personal or sensitive information in the data, and how it was handled", True),
}

_NAME = r'"(?:[^"\\]|\\.)*"'
_NUMBER = r"-?\d+(?:\.\d+)?"
PER_ITEM = re.compile(
    rf"^(?P<q>{_NAME}): min (?P<min>\d+), median (?P<median>{_NUMBER}), max (?P<max>\d+) annotations per item",
    re.MULTILINE,
)
MISSING = re.compile(rf"^(?P<q>{_NAME}): (?P<missing>\d+) missing answers?", re.MULTILINE)
ANNOTATORS = re.compile(r"^annotators: (?P<n>\d+)\b", re.MULTILINE)
RECORDS = re.compile(
    rf"^One record per (?P<role>judgment|stored aggregate) of (?P<q>{_NAME}): (?P<n>\d+) records?"
    r"(?: \((?P<stored>[^)]+)\))?"
)
# A record set whose records are not one per judgment (a TextJudge file's: one per instance)
COUNTED = re.compile(r"^One record per [^:]+: (?P<n>\d+) records?")
# What a card written by hand may say instead: "3 annotations per item", "46 annotators".
_WHO = r"(?:annotators|raters|participants|workers|crowdworkers)"
PROSE_PER_ITEM = re.compile(
    r"\b(\d+)\s+(?:annotations|annotators|ratings|raters|judgments|labels)\s+(?:per|for each|each)\s+item",
    re.IGNORECASE,
)
# "1,000 annotators": a run of digits and commas before the word, the number from its first
# digit at a word boundary. The pattern starts only where a run starts, so that a long run
# ("1,1,1,...") is read once, not once per comma (`\b(\d[\d,]*)\s+` took time quadratic in it).
_RUN_BEFORE_WHO = re.compile(rf"(?<![\d,])[\d,]++(?=\s++{_WHO}\b)", re.IGNORECASE)
_AFTER_WHO = re.compile(rf"\s++{_WHO}\b", re.IGNORECASE)
_NUMBER_START = re.compile(r"\b\d")


def prose_annotators(text: str) -> Iterator[tuple[str, int, int]]:
    """Each "46 annotators" of a text written by hand: (the number as written, with any commas,
    where the phrase starts, where it ends)."""
    for run in _RUN_BEFORE_WHO.finditer(text):
        first = _NUMBER_START.search(text, run.start(), run.end())
        who = _AFTER_WHO.match(text, run.end())  # what the lookahead found
        if first is not None and who is not None:
            yield text[first.start() : run.end()], first.start(), who.end()


def quoted(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def unquoted(text: str) -> str:
    found: str = json.loads(text)
    return found


def number(x: float | int) -> str:
    """A figure as the card writes it: an integer as one, anything else rounded to DIGITS."""
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    rounded = round(x, DIGITS)
    return repr(rounded) if rounded else "0"  # the shortest text of the rounded figure; never "-0.0"


def placeholder(what: str) -> str:
    return f"{PLACEHOLDER} {what}"


def annotations_per_item(facts: Facts) -> str:
    """`rai:annotationsPerItem`: per question, the fewest, median and most individual judgments
    of an item (stats' raters_per_item), over how many items and judgments."""
    lines = []
    for q in facts.questions():
        spread = q.raters_per_item
        name = quoted(q.question)
        if spread is None:
            lines.append(f"{name}: no individual judgments (stored aggregates only)")
            continue
        lines.append(
            f"{name}: min {spread.min}, median {number(spread.median)}, max {spread.max} annotations "
            f"per item, over {q.items} items ({q.judgments} judgments)"
        )
    return "\n".join(lines) or facts.none or "no judgments"


def missing_data(facts: Facts) -> str:
    """`rai:dataCollectionMissingData`: per question, the answers stated as missing (null), beside
    the answered ones (stats' missing and judgments)."""
    lines = [
        f"{quoted(q.question)}: {q.missing} missing answers (null in the files), {q.judgments} answered"
        for q in facts.questions()
    ]
    return "\n".join(lines) or facts.none or "no judgments"


def annotators(facts: Facts, participants: dict[str, Any] | None) -> list[str]:
    """`rai:annotatorDemographics`: how many raters there are, where raters are persons (distinct
    rater ids of the individual judgments), and the demographics the files state (a CogGym
    experiment's participants_info); what the files do not state is left to the author."""
    lines = []
    if facts.persons is not None:
        lines.append(f"annotators: {facts.persons} persons (distinct rater ids of the individual judgments)")
    elif participants is not None and isinstance(participants.get("count"), int):
        lines.append(f"annotators: {participants['count']} participants (participants_info.count)")
    else:
        lines.append(
            "annotators: not stated by the files (a rater is a position within one item, not a person across items)"
        )
    for key, value in (participants or {}).items():
        lines.append(f"participants_info.{key}: {_summary(value)}")
    if not participants or set(participants) <= {"count"}:
        lines.append(placeholder("the annotators' demographics (age, gender, language, expertise, country)"))
    return lines


def _summary(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_summary(v)}" for k, v in value.items()) or "{}"
    if isinstance(value, float):
        return number(value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def analysis(facts: Facts, version: str) -> list[str]:
    """`rai:dataAnnotationAnalysis`: per question, Krippendorff's alpha at its level with its
    bootstrap interval, the observed agreement, Gwet's AC with its interval (or why there is no
    alpha), then how many findings each quality check made, with the first few."""
    lines = [
        f"Computed from the individual judgments by humanjudge-schema {version}: alpha's and AC's 95% intervals "
        f"bootstrap over items ({facts.samples} samples, seed {facts.seed}); "
        f"`humanjudge stats --format json --samples {facts.samples} --seed {facts.seed}` gives the same figures, "
        f"unrounded."
    ]
    for q in facts.questions():
        lines.append(_agreement(q))
        for note in (q.level_note, q.agreement_note):
            if note:
                lines.append(f"{quoted(q.question)}: {note}")
    by_code: dict[str, list[QualityFinding]] = {}
    for flag in facts.stats.quality or ():
        by_code.setdefault(flag.code, []).append(flag)
    for code, flags in by_code.items():
        lines.append(f"{code}: {len(flags)} finding{'' if len(flags) == 1 else 's'} of the quality checks")
        for flag in flags[:SHOWN]:
            at = _relative(flag.file, facts.dataset) + (f":{flag.line}" if flag.line else "")
            lines.append(f"{code}: {flag.message} ({at}, {flag.pointer or '/'})")
    return lines


# Findings of one quality code the card quotes; `humanjudge stats` lists every one.
SHOWN = 3


def _relative(file: str, dataset: str) -> str:
    """A file as the card names it: its path within the dataset, never where it was on the machine
    the card was written on."""
    from pathlib import PurePath

    try:
        return PurePath(file).relative_to(dataset).as_posix() if file != dataset else PurePath(file).name
    except ValueError:
        return PurePath(file).name


def _agreement(q: QuestionStats) -> str:
    name = quoted(q.question)
    counts = f"{q.items} items, {q.judgments} judgments"
    if q.alpha is None:
        return f"{name}: no alpha: {q.note or 'not computed'} ({counts})"
    parts = [f"Krippendorff's alpha ({q.level}) {number(q.alpha)}"]
    if q.alpha_ci:
        parts[0] += f", 95% interval [{number(q.alpha_ci[0])}, {number(q.alpha_ci[1])}]"
    agreement = q.agreement
    if agreement.observed is not None:
        parts.append(f"observed agreement {number(agreement.observed)}")
    if agreement.ac is not None:
        ac = f"Gwet's {agreement.ac_name()} {number(agreement.ac)}"
        if agreement.ac_ci:
            ac += f", 95% interval [{number(agreement.ac_ci[0])}, {number(agreement.ac_ci[1])}]"
        parts.append(ac)
    return f"{name}: {'; '.join(parts)} ({counts})"


def fields(facts: Facts, participants: dict[str, Any] | None, version: str) -> dict[str, Any]:
    """Every RAI field of the card: those computed from the data, and the author's placeholders."""
    out: dict[str, Any] = {
        "rai:annotationsPerItem": annotations_per_item(facts),
        "rai:annotatorDemographics": annotators(facts, participants),
        "rai:dataAnnotationAnalysis": analysis(facts, version),
        "rai:dataCollectionMissingData": missing_data(facts),
    }
    for key, (what, many) in AUTHOR_FIELDS.items():
        out[key] = [placeholder(what)] if many else placeholder(what)
    return out
