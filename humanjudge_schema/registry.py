"""Every finding code, with the words that document it.

Codes are API: never renamed, never reused. Each has a one-line summary, a reason and a bad and a
good example; `humanjudge rules` and the generated rule reference read them from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from .finding import Severity

F = TypeVar("F", bound=Callable[..., object])


@dataclass(frozen=True, slots=True)
class RuleDoc:
    code: str
    severity: Severity
    summary: str
    why: str
    bad: str
    good: str


RULES: dict[str, RuleDoc] = {}


def register(code: str, summary: str, *, severity: str = "error", why: str, bad: str, good: str) -> RuleDoc:
    if code in RULES:
        raise ValueError(f"code {code!r} registered twice")
    doc = RuleDoc(code, Severity(severity), summary, why.strip(), bad.strip(), good.strip())
    RULES[code] = doc
    return doc


# The decorator is the only list of a format's rules: a rule documented under a code is, by the
# same line, one its format's check runs.
_RUNNABLE: dict[str, list[Callable[..., Any]]] = {}


def rule(code: str, summary: str, *, severity: str = "error", why: str, bad: str, good: str) -> Callable[[F], F]:
    """Register a rule function under its code: documented as `register` does, and added to the
    rules its format's check runs (`rules_of`), the format being the code's part before "/"."""

    def wrap(fn: F) -> F:
        register(code, summary, severity=severity, why=why, bad=bad, good=good)
        fn.code = code  # type: ignore[attr-defined]
        _RUNNABLE.setdefault(code.split("/", 1)[0], []).append(fn)
        return fn

    return wrap


def rules_of(fmt: str) -> tuple[Callable[..., Any], ...]:
    """The rule functions of a format, in the order they were defined: the order its check runs
    them in."""
    return tuple(_RUNNABLE.get(fmt, ()))


def load_all() -> dict[str, RuleDoc]:
    """Import every format's rules, and the core's codes, so the registry is complete."""
    import importlib

    from . import catalog, coverage, engine, sources  # noqa: F401  (they register parse/, schema/ and dataset/ codes)

    for fmt in catalog.formats().values():
        importlib.import_module(fmt.module)
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
    import difflib

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
    registry = load_all()
    known = prefixes(registry)
    for selector in selectors:
        name = selector.rstrip("/")
        if name in registry or name in known:
            continue
        near = closest(name)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise UnknownCode(f"{where}: {selector!r} is not a rule code or prefix{hint}; `humanjudge rules` lists them")


def severity_of(code: str) -> Severity:
    doc = RULES.get(code)
    return doc.severity if doc else Severity.ERROR
