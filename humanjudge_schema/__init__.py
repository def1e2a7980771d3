"""Validate datasets of human judgments against versioned JSON Schemas and cross-field rules.

>>> from humanjudge_schema import validate
>>> result = validate(["examples/coggym/valid"])
>>> result.errors
0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .config import Config
    from .diff import diff
    from .finding import Finding, Severity
    from .formats.textjudge.prompts import Prompt, render_prompts
    from .validation import Result, validate

__all__ = ["Config", "Finding", "Prompt", "Result", "Severity", "__version__", "diff", "render_prompts", "validate"]

# Imported on first use so that `import humanjudge_schema` (and `humanjudge --version`) stays fast.
_LAZY = {
    "Config": "config",
    "diff": "diff",
    "Finding": "finding",
    "Severity": "finding",
    "Prompt": "formats.textjudge.prompts",
    "render_prompts": "formats.textjudge.prompts",
    "Result": "validation",
    "validate": "validation",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
