"""Why a card cannot be written or checked."""

from __future__ import annotations


class CardError(ValueError):
    """A card cannot be written or checked for these paths: they hold no dataset or several, the
    dataset holds no judgments, or a file of it cannot be read. The message says which."""
