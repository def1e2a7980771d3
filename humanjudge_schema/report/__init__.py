"""Reporters: a validation result as text for people or as data for tools."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..validation import Result

# format -> module with `render(result, *, group=True) -> str`; imported only when that format is
# asked for. `group`: alike findings shown once with their count (report/groups.py).
FORMATS = {"text": "text", "json": "json", "github": "github", "sarif": "sarif"}


def renderer(fmt: str) -> Callable[..., str]:
    module = importlib.import_module(f"{__name__}.{FORMATS[fmt]}")
    render_: Callable[..., str] = module.render
    return render_


def render(result: Result, fmt: str, *, group: bool = True) -> str:
    return renderer(fmt)(result, group=group)
