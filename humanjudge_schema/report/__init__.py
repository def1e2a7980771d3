"""Reporters: a validation result as text for people or as data for tools."""

from __future__ import annotations

from collections.abc import Callable

from ..validation import Result
from . import json as _json
from . import text as _text

FORMATS: dict[str, Callable[[Result], str]] = {"text": _text.render, "json": _json.render}


def render(result: Result, fmt: str) -> str:
    return FORMATS[fmt](result)
