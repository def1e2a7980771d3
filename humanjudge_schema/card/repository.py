"""What a repository's card says of itself (`humanjudge card FOLDER` of several datasets): its
name, description, citation, URL and license where every dataset that states one states the same
(else a placeholder for its author), the list of its datasets, and the computed RAI fields with a
section per dataset (parts.py), each as a dataset's own card has it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import rai
from .codes import PLACEHOLDER
from .parts import CardDataset
from .rai import placeholder

__all__ = ["metadata", "rai_fields"]

_SHARED = {
    "citeAs": "how to cite the repository (its datasets cite their sources differently)",
    "url": "the repository's home page (a URL)",
    "license": "the license of the data (its datasets state none, or different ones)",
}


def metadata(parts: Sequence[CardDataset], left: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The repository's name, description, citation, URL, license and keywords."""
    out: dict[str, Any] = {"name": placeholder("the repository's name")}
    for key, what in _SHARED.items():
        stated = {str(p.shape.metadata.get(key)) for p in parts if not _unfilled(p.shape.metadata.get(key))}
        out[key] = stated.pop() if len(stated) == 1 else placeholder(what)
    words = {w for p in parts for w in p.shape.metadata.get("keywords") or ()}
    out["keywords"] = sorted(words)
    lines = [
        placeholder("what the repository is: its datasets, the questions asked, who answered them"),
        "",
        f"{len(parts)} datasets, each with its record sets (named under its path) where Croissant can read its "
        "judgments:",
    ]
    for p in parts:
        named = p.shape.metadata.get("name")
        said = f" {named}" if not _unfilled(named) else ""
        lines.append(f"- {p.name} ({p.unit.family}){':' if said else ''}{said}")
        if p.shape.note:
            lines.append(f"  {p.shape.note}")
    for name, why in left:
        lines.append(f"Left out: {name}: {why}")
    out["description"] = "\n".join(lines)
    return out


def _unfilled(value: Any) -> bool:
    return not isinstance(value, str) or not value.strip() or value.startswith(PLACEHOLDER)


def rai_fields(parts: Sequence[CardDataset], version: str) -> dict[str, Any]:
    """The computed RAI fields, a section per dataset (its header, then its lines), and the
    author's placeholders once."""
    per_item, missing, annotators = [], [], []
    analysis: list[str] = []
    for p in parts:
        header, facts = p.header(), p.facts
        per_item.append(f"{header}\n{rai.annotations_per_item(facts)}")
        missing.append(f"{header}\n{rai.missing_data(facts)}")
        annotators += [header, *(line for line in rai.annotators(facts, p.shape.participants) if not _said(line))]
        lines = rai.analysis(facts, version)
        analysis += ([lines[0]] if not analysis else []) + [header, *lines[1:]]
    annotators.append(placeholder("the annotators' demographics (age, gender, language, expertise, country)"))
    out: dict[str, Any] = {
        "rai:annotationsPerItem": "\n".join(per_item),
        "rai:annotatorDemographics": annotators,
        "rai:dataAnnotationAnalysis": analysis,
        "rai:dataCollectionMissingData": "\n".join(missing),
    }
    for key, (what, many) in rai.AUTHOR_FIELDS.items():
        out[key] = [placeholder(what)] if many else placeholder(what)
    return out


def _said(line: str) -> bool:
    """Whether a line is a placeholder, which a repository's card says once for all its datasets."""
    return line.startswith(PLACEHOLDER)
