"""A rule is registered once, by the decorator that documents it, and that is what makes its
format's check run it: no rule can be documented and yet never run. The one other way a format's
code is reported: the codes it hands the CSV table reader (readers/csvtable.Columns: a header's
missing and unknown columns), which the reader reports itself."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

import humanjudge_schema
from humanjudge_schema import catalog, validate
from humanjudge_schema.engine import Context
from humanjudge_schema.readers.csvtable import Columns
from humanjudge_schema.registry import rules_of
from humanjudge_schema.rulebook import load_all

from .conftest import CASES

# The formats of entry points; a declared format's rules are those of the format that declares it.
FORMATS = sorted(name for name, fmt in catalog.formats().items() if fmt.declared_by is None)


def _decorated(source: str) -> list[tuple[str, str]]:
    """(function name, code) of every function decorated with `rule("<code>", ...)`, in the
    order the source defines them."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for deco in node.decorator_list:
            if not isinstance(deco, ast.Call) or not deco.args:
                continue
            name = deco.func.id if isinstance(deco.func, ast.Name) else getattr(deco.func, "attr", None)
            if name == "rule" and isinstance(deco.args[0], ast.Constant):
                found.append((node.lineno, node.name, deco.args[0].value))
    return [(fn, code) for _, fn, code in sorted(found)]


def _rule_modules() -> dict[str, list[tuple[str, str]]]:
    """Every module of the package, and of each format's checking module, that defines rules,
    read as source so that a module nothing imports is found too."""
    names = {m.name for m in pkgutil.walk_packages(humanjudge_schema.__path__, "humanjudge_schema.")}
    names.update(fmt.module for fmt in catalog.formats().values())
    out = {}
    for name in sorted(names):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        rules = _decorated(Path(spec.origin).read_text(encoding="utf-8"))
        if rules:
            out[name] = rules
    return out


def _codes(rules: Iterable[Callable[..., Any]]) -> set[str]:
    return {r.code for r in rules}  # type: ignore[attr-defined]


def _reader_codes(fmt: str) -> set[str]:
    """The codes a format names for the CSV table reader (a `Columns` in a module of its package)."""
    check = catalog.get(fmt).module
    importlib.import_module(check)
    package = check.rpartition(".")[0]
    modules = [m for name, m in list(sys.modules.items()) if name == package or name.startswith(package + ".")]
    named = [v for m in modules for v in vars(m).values() if isinstance(v, Columns)]
    return {code for columns in named for code in (columns.missing, columns.unknown)}


def test_every_decorated_function_is_a_runnable_rule_in_definition_order() -> None:
    modules = _rule_modules()
    assert modules, "no module defines a rule: the source scan is broken"
    for name, rules in modules.items():
        module = importlib.import_module(name)
        for fmt in {code.split("/", 1)[0] for _, code in rules}:
            defined = [(fn, code) for fn, code in rules if code.split("/", 1)[0] == fmt]
            runnable = [r for r in rules_of(fmt) if r.__module__ == name]
            assert [(r.__name__, r.code) for r in runnable] == defined, (name, fmt)  # type: ignore[attr-defined]
            assert runnable == [getattr(module, fn) for fn, _ in defined], (name, fmt)
    defined_codes = {code for rules in modules.values() for _, code in rules}
    for fmt in FORMATS:
        assert _codes(rules_of(fmt)) <= defined_codes, f"{fmt} runs a rule that no module defines with @rule"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_format_runs_exactly_its_documented_codes(fmt: str) -> None:
    registered = {code for code in load_all() if code.split("/", 1)[0] == fmt}
    runnable = [r.code for r in rules_of(fmt)]  # type: ignore[attr-defined]
    assert runnable, f"{fmt} has no rules"
    assert len(runnable) == len(set(runnable))
    read = _reader_codes(fmt)
    assert not read & set(runnable), "a code both a rule and the table reader report"
    assert set(runnable) | read == registered


def test_documentation_only_codes_belong_to_no_format() -> None:
    # the quality/ rules run over any format's judgments (judgments/quality.py)
    runnable = set().union(*(_codes(rules_of(fmt)) for fmt in (*FORMATS, "quality")))
    runnable |= set().union(*map(_reader_codes, FORMATS))
    documentation_only = set(load_all()) - runnable
    # card/: the findings of `card --check`, which compares a dataset card with the data (card/compare.py)
    assert {code.split("/", 1)[0] for code in documentation_only} == {"parse", "schema", "engine", "dataset", "card"}


@pytest.mark.parametrize("fmt", [f for f in FORMATS if (CASES / f).is_dir()])
def test_the_check_runs_every_rule_of_its_format(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the format's cases, its check hands every one of its rules to the engine (HALIE's
    row rules too, which run while a file is read rather than at the end)."""
    ran: set[str] = set()
    run = Context.run

    def recording(self: Context, rule: Callable[..., Any], *args: Any) -> None:
        ran.add(rule.code)  # type: ignore[attr-defined]
        run(self, rule, *args)

    monkeypatch.setattr(Context, "run", recording)
    for case in sorted(p for p in CASES.glob(f"{fmt}/*/*") if p.is_dir()):
        validate([case], kind=fmt, cwd=str(case))
    assert sorted(_codes(rules_of(fmt)) - ran) == [], "rules its check never ran"
    assert ran <= _codes(rules_of(fmt))


def test_rules_of_an_unknown_format_is_empty() -> None:
    assert rules_of("no-such-format") == ()
