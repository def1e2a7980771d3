"""One JSON object: {"findings": [...] (each with "group" when it is one of alike findings),
"summary": {"files", "errors", "warnings", "skipped", "configuration"}, "skipped": [{"file",
"reason"}]}."""

from __future__ import annotations

import orjson

from ..readers.files import display_path
from ..validation import Result
from .groups import ids


def render(result: Result, *, group: bool = True) -> str:
    """Every finding; with `group`, those of a group of alike findings (report/groups.py) carry
    its id as `group`, so that tools can count them as the text output shows them."""
    findings = [f.as_dict() for f in result.findings]
    if group:
        for i, gid in ids(result.findings).items():
            findings[i]["group"] = gid
    doc = {
        "findings": findings,
        "summary": {
            "files": result.files,
            "errors": result.errors,
            "warnings": result.warnings,
            "skipped": len(result.skipped),
            "configuration": [display_path(p) for p in result.configs],
        },
        "skipped": [{"file": display_path(s.path), "reason": s.reason} for s in result.skipped],
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"
