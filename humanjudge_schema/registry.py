"""Every finding code, with the words that document it.

Codes are API: never renamed, never reused. Each has a one-line summary, a reason and a bad and a
good example; `humanjudge rules` and the generated rule reference read them from here. This module
imports nothing of the package but `finding`, so that anything may register codes; `rulebook`
imports every module that does, when the complete list is needed.
"""

from __future__ import annotations

from collections.abc import Callable
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


def severity_of(code: str) -> Severity:
    doc = RULES.get(code)
    return doc.severity if doc else Severity.ERROR
