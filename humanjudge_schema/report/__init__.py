"""Reporters: a validation result as text for people or as data for tools."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..validation import Result

# format -> module with `render(result) -> str`; imported only when that format is asked for.
FORMATS = {"text": "text", "json": "json", "github": "github", "sarif": "sarif"}


def renderer(fmt: str) -> Callable[[Result], str]:
    module = importlib.import_module(f"{__name__}.{FORMATS[fmt]}")
    render_: Callable[[Result], str] = module.render
    return render_


def render(result: Result, fmt: str) -> str:
    return renderer(fmt)(result)
