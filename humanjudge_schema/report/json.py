"""One JSON object: {"findings": [...], "summary": {"files", "errors", "warnings", "skipped",
"configuration"}, "skipped": [{"file", "reason"}]}."""

from __future__ import annotations

import orjson

from ..readers.files import display_path
from ..validation import Result


def render(result: Result) -> str:
    doc = {
        "findings": [f.as_dict() for f in result.findings],
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
