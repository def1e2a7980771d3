"""Every finding code, with the words that document it.

Codes are API: never renamed, never reused. Each has a one-line summary, a reason and a bad and a
good example; `humanjudge rules` and the generated rule reference read them from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

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

# Families whose rule modules register codes when imported; loaded on demand so that
# `humanjudge --version` imports nothing heavy.
_FAMILY_MODULES = ("coggym", "textjudge", "study1", "halie")


def register(code: str, summary: str, *, severity: str = "error", why: str, bad: str, good: str) -> RuleDoc:
    if code in RULES:
        raise ValueError(f"code {code!r} registered twice")
    doc = RuleDoc(code, Severity(severity), summary, why.strip(), bad.strip(), good.strip())
    RULES[code] = doc
    return doc


def rule(code: str, summary: str, *, severity: str = "error", why: str, bad: str, good: str) -> Callable[[F], F]:
    """Register a rule function under its code (decorator form of `register`)."""

    def wrap(fn: F) -> F:
        register(code, summary, severity=severity, why=why, bad=bad, good=good)
        fn.code = code  # type: ignore[attr-defined]
        return fn

    return wrap


def load_all() -> dict[str, RuleDoc]:
    """Import every family's rules so the registry is complete."""
    import importlib

    from . import engine, sources  # noqa: F401  (they register parse/ and schema/ codes)

    for name in _FAMILY_MODULES:
        try:
            importlib.import_module(f"humanjudge_schema.rules.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"humanjudge_schema.rules.{name}":
                raise
    return RULES


def severity_of(code: str) -> Severity:
    doc = RULES.get(code)
    return doc.severity if doc else Severity.ERROR
