"""How the CogGym rules quote data in their messages."""

from __future__ import annotations

from typing import Any


def some(items: list[str], limit: int = 3) -> str:
    """The first few items, and how many more there are."""
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def short(value: Any) -> str:
    """A value's repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
