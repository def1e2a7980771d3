"""Comparing a stored aggregate with the value recomputed from the individual data.

Published datasets round their means (to 2 or 3 decimals, sometimes to whole numbers), with
whatever rounding mode their tools used. One comparison decides for every family whether a
stored value is the recomputed one.
"""

from __future__ import annotations

import math
from typing import Any


def decimals(x: float) -> int | None:
    """How many decimals the shortest representation of x has; None in exponent notation."""
    text = repr(float(x))
    if "e" in text or "E" in text:
        return None
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


def same_value(stored: Any, exact: Any, tolerance: float) -> bool:
    """Exact, equal after rounding to the stored number of decimals, or within the tolerance."""
    if stored is None or exact is None:
        return stored is None and exact is None
    if isinstance(stored, bool) or not isinstance(stored, (int, float)):
        return False
    if stored == exact or abs(stored - exact) <= tolerance:
        return True
    d = decimals(stored)
    # A whole number carries no visible rounding: 1.0 for 0.5 is a wrong proportion, not a
    # rounded one, so only decimals earn the slack of rounding.
    if d is None or d == 0:
        return False
    # any rounding mode: half-up, half-even, or the binary representation of x.xx5
    return bool(abs(stored - exact) <= 0.5 * 10.0**-d + 1e-9 * max(1.0, abs(exact)))


def fmt_number(x: Any) -> str:
    """A number as messages show it: six significant digits for floats, repr otherwise."""
    return f"{x:.6g}" if isinstance(x, float) and math.isfinite(x) else repr(x)


__all__ = ["decimals", "fmt_number", "same_value"]
