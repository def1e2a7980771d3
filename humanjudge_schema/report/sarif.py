"""SARIF 2.1.0, the format GitHub code scanning (and most code-review tools) read.

Every code of the registry becomes a rule with its summary, its reason and its bad and good
example, so an alert explains itself. A result points at the file, line and column; its JSON
pointer is kept as a logical location and a property, and feeds a fingerprint that survives
edits elsewhere in the file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

import orjson

from .._version import __version__
from ..finding import Finding, Severity
from ..registry import RuleDoc
from ..rulebook import load_all
from ..validation import Result
from .groups import Group, grouped

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
# GitHub code scanning ingests at most this many results per run.
MAX_RESULTS = 25_000


def _level(severity: Severity) -> str:
    return "error" if severity is Severity.ERROR else "warning"


def _fence(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text}\n{fence}"


def rule_descriptor(doc: RuleDoc) -> dict[str, Any]:
    """A SARIF reportingDescriptor for one registered code."""
    family = doc.code.split("/", 1)[0]
    text = f"{doc.why}\n\nBad:\n{doc.bad}\n\nGood:\n{doc.good}"
    markdown = f"{doc.why}\n\n**Bad:**\n\n{_fence(doc.bad)}\n\n**Good:**\n\n{_fence(doc.good)}\n"
    return {
        "id": doc.code,
        "name": "".join(part.capitalize() for part in doc.code.replace("/", "-").split("-")),
        "shortDescription": {"text": doc.summary},
        "fullDescription": {"text": doc.why},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": _level(doc.severity)},
        "properties": {"tags": ["humanjudge", family], "problem.severity": _level(doc.severity)},
    }


def _uri(file: str) -> tuple[str, str | None]:
    """A relative path becomes a URI against the checkout's root; an absolute one a file: URI."""
    path = file.replace(os.sep, "/")
    if os.path.isabs(file):
        return PurePosixPath(path).as_uri() if path.startswith("/") else "file:///" + quote(path, safe="/:"), None
    return quote(path, safe="/"), "%SRCROOT%"


def _fingerprint(finding: Finding) -> str:
    # Independent of the line, so an alert stays the same alert when lines above it move.
    key = "\0".join((finding.code, finding.file, finding.pointer))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


RELATED_LISTED = 1000  # related locations of one result; its `count` property counts them all


def _location(finding: Finding) -> dict[str, Any] | None:
    if not finding.file:
        return None
    uri, base = _uri(finding.file)
    artifact: dict[str, Any] = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    # Code scanning places every result on a line: a finding about a whole file (or a
    # value whose position is unknown) goes on line 1.
    region: dict[str, Any] = {"startLine": finding.line or 1}
    if finding.line is not None and finding.column is not None:
        region["startColumn"] = finding.column
    location: dict[str, Any] = {"physicalLocation": {"artifactLocation": artifact, "region": region}}
    if finding.pointer:
        location["logicalLocations"] = [{"fullyQualifiedName": finding.pointer, "kind": "element"}]
    return location


def _result(group: Group, index: dict[str, int]) -> dict[str, Any]:
    """One result per group of alike findings (report/groups.py): the first, with the others as
    related locations and how many it stands for as `count` (a summary of unlisted findings,
    max-per-code, counts those too)."""
    finding = group.first
    at = f" (at {finding.pointer})" if finding.pointer else ""
    more = f" [{group.more()}]" if group.rest else ""
    out: dict[str, Any] = {
        "ruleId": finding.code,
        "level": _level(finding.severity),
        "message": {"text": finding.message + at + more},
    }
    if finding.code in index:
        out["ruleIndex"] = index[finding.code]
    location = _location(finding)
    if location is not None:
        out["locations"] = [location]
    related = []
    for k, other in enumerate(group.rest[:RELATED_LISTED]):
        place = _location(other)
        if place is not None:
            other_at = f" (at {other.pointer})" if other.pointer else ""
            related.append({"id": k, **place, "message": {"text": other.message + other_at}})
    if related:
        out["relatedLocations"] = related
    out["partialFingerprints"] = {"humanjudgeFinding/v1": _fingerprint(finding)}
    out["properties"] = {"pointer": finding.pointer, "count": group.count}
    return out


def document(result: Result, *, group: bool = True) -> dict[str, Any]:
    """The SARIF log as a dict: a result per group of alike findings (each finding its own with
    group=False)."""
    registry = load_all()
    rules = [rule_descriptor(registry[code]) for code in sorted(registry)]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    groups = grouped(result.findings, group=group)
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if len(groups) > MAX_RESULTS:
        invocation["toolExecutionNotifications"] = [
            {
                "level": "warning",
                "message": {
                    "text": f"{len(groups)} results; only the first {MAX_RESULTS} are in this file "
                    "(the most GitHub code scanning accepts in one run)"
                },
            }
        ]
        groups = groups[:MAX_RESULTS]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "humanjudge",
                        "fullName": "humanjudge-schema",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                "results": [_result(g, index) for g in groups],
                "properties": {"files": result.files, "errors": result.errors, "warnings": result.warnings},
            }
        ],
    }


def render(result: Result, *, group: bool = True) -> str:
    return orjson.dumps(document(result, group=group), option=orjson.OPT_INDENT_2).decode() + "\n"
