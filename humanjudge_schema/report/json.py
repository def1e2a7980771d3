"""One JSON object: {"findings": [...], "summary": {"files", "errors", "warnings"}}."""

from __future__ import annotations

import orjson

from ..validation import Result


def render(result: Result) -> str:
    doc = {
        "findings": [f.as_dict() for f in result.findings],
        "summary": {"files": result.files, "errors": result.errors, "warnings": result.warnings},
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"
