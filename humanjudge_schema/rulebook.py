"""The complete book of codes: every format's rules and the core's codes, loaded on demand, and
the checks of the codes a user names (a typo must never turn a check off without a word)."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable

from . import catalog
from . import codes as _codes  # noqa: F401  (the schema/, engine/, dataset/ and parse/ codes)
from .registry import RULES, RuleDoc


def load_all() -> dict[str, RuleDoc]:
    """Import every format's rules, and the core's codes, so the registry is complete."""
    for fmt in catalog.formats().values():
        importlib.import_module(fmt.module)
    importlib.import_module("humanjudge_schema.judgments.quality")  # the quality/ codes
    importlib.import_module("humanjudge_schema.card.codes")  # the card/ codes of `card --check`
    return RULES


class UnknownCode(ValueError):
    """A code or prefix that names no rule; the message names it and the closest real one."""


def prefixes(codes: dict[str, RuleDoc] | None = None) -> set[str]:
    """Every prefix a selector may name: "coggym", "parse", ... (the parts before a "/")."""
    out: set[str] = set()
    for code in codes if codes is not None else RULES:
        parts = code.split("/")
        out.update("/".join(parts[:k]) for k in range(1, len(parts)))
    return out


def closest(name: str, limit: int = 1) -> list[str]:
    """The registered codes or prefixes nearest to a misspelt one."""
    registry = load_all()
    candidates = sorted({*registry, *prefixes(registry)})
    near = difflib.get_close_matches(name, candidates, n=limit, cutoff=0.6)
    if not near:  # "respons-count": the code's last part alone may be the nearest thing
        tails = {c.rsplit("/", 1)[-1]: c for c in sorted(registry)}
        near = [tails[t] for t in difflib.get_close_matches(name.rsplit("/", 1)[-1], list(tails), n=limit)]
    return near


def check_selectors(selectors: Iterable[str], where: str) -> None:
    """Raise UnknownCode for the first selector that is neither a code nor a prefix of codes, so
    that a typo never turns a check off without a word."""
    selectors = list(selectors)
    if not selectors:  # nothing to check: leave the other formats' rules unimported
        return
    registry = load_all()
    known = prefixes(registry)
    for selector in selectors:
        name = selector.rstrip("/")
        if name in registry or name in known:
            continue
        near = closest(name)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise UnknownCode(f"{where}: {selector!r} is not a rule code or prefix{hint}; `humanjudge rules` lists them")
