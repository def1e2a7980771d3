"""Every finding code, with the words that document it.

Codes are API: never renamed, never reused. Each has a one-line summary, a reason and a bad and a
good example; `humanjudge rules` and the generated rule reference read them from here. This module
imports nothing of the package but `finding`, so that anything may register codes; `rulebook`
imports every module that does, when the complete list is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
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


def anchor(code: str) -> str:
    """A code's anchor in the rule reference (docs/rules.md, written by docs/gen.py), which the
    report's entry of the code names: "coggym/response-count" -> "coggym-response-count"."""
    return code.replace("/", "-").replace("_", "-").lower()


def register(code: str, summary: str, *, severity: str = "error", why: str, bad: str, good: str) -> RuleDoc:
    if code in RULES:
        raise ValueError(f"code {code!r} registered twice")
    doc = RuleDoc(code, Severity(severity), summary, why.strip(), bad.strip(), good.strip())
    RULES[code] = doc
    return doc


# The decorator is the only list of a format's rules: a rule documented under a code is, by the
# same line, one its format's check runs, with the scope it declares: (scope, function) in the
# order they were defined.
_RUNNABLE: dict[str, list[tuple[Hashable, Callable[..., Any]]]] = {}
_EVERY: Any = object()


def rule(
    code: str,
    summary: str,
    *,
    severity: str = "error",
    why: str,
    bad: str,
    good: str,
    scope: Hashable = None,
) -> Callable[[F], F]:
    """Register a rule function under its code: documented as `register` does, and added to the
    rules its format's check runs (`rules_of`), the format being the code's part before "/".

    `scope` says what the rule looks at, in the words of its format's check: "run" or "dataset"
    for TextJudge, a row scope for HALIE's row rules (formats/halie/model.py). The check asks
    for the rules of each scope (`rules_of(format, scope)`) and runs them; it is the only place
    a format's rules run. A rule that declares none looks at what its parameter's type names
    ("Experiment" -> "experiment"), as rules written before scopes did."""

    def wrap(fn: F) -> F:
        register(code, summary, severity=severity, why=why, bad=bad, good=good)
        fn.code = code  # type: ignore[attr-defined]
        _RUNNABLE.setdefault(code.split("/", 1)[0], []).append((_implied(fn) if scope is None else scope, fn))
        return fn

    return wrap


def _implied(fn: Callable[..., Any]) -> str:
    """The scope of a rule that declares none: the name of its first parameter's type, lower case,
    read as written (no import: the annotations are strings)."""
    hints = [v for k, v in getattr(fn, "__annotations__", {}).items() if k != "return"]
    written = hints[0] if hints else ""
    name = written if isinstance(written, str) else getattr(written, "__name__", "")
    return name.rpartition(".")[2].lower()


def rules_of(fmt: str, scope: Hashable = _EVERY) -> tuple[Callable[..., Any], ...]:
    """The rule functions of a format (of one scope, when given), in the order they were defined:
    the order its check runs them in."""
    return tuple(fn for s, fn in _RUNNABLE.get(fmt, ()) if scope is _EVERY or s == scope)


def scopes_of(fmt: str) -> tuple[tuple[Hashable, Callable[..., Any]], ...]:
    """(scope, function) of every rule of a format, in the order they were defined: for a check
    whose scopes are values to match (HALIE's rows of some files of some tasks)."""
    return tuple(_RUNNABLE.get(fmt, ()))


def severity_of(code: str) -> Severity:
    doc = RULES.get(code)
    return doc.severity if doc else Severity.ERROR
