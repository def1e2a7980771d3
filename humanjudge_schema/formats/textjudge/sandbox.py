"""What a TextJudge prompt template may do: the one Jinja environment templates are parsed and
rendered in (sandboxed, immutable, no globals, a few filters, a clock), and the check of a
template without running it.

Templates arrive with datasets in pull requests, so they are untrusted. Before anything is compiled
or run, the parsed template is walked node by node and must stay within a small subset of Jinja:
placeholders, `{% if %}`, comparisons, a few filters and tests, and attribute or item access by
literal names that do not start with `_`. No calls, no arithmetic, no loops, no Jinja globals
(`range`, `lipsum`, `cycler`, ...), no `self`. prompts.py renders what passes.
"""

from __future__ import annotations

import contextvars
import functools
import keyword
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment

# The longest template of the published datasets has 2,813 characters. Parsing and compiling grow
# with the template, and a compiled template of a few megabytes takes seconds: refuse those unread.
MAX_TEMPLATE_CHARS = 100_000

# Filters and tests that neither call into the data's methods nor grow their input by more than a
# small factor (upper() of "ß" is "SS"): with them, a prompt's size is bounded by its template and
# the fields it shows, and the size check between output chunks can stop any excess.
SAFE_FILTERS = frozenset(
    {
        "capitalize",
        "count",
        "d",
        "default",
        "first",
        "last",
        "length",
        "lower",
        "string",
        "title",
        "trim",
        "upper",
        "wordcount",
    }
)
SAFE_TESTS = frozenset({"defined", "undefined", "none", "string", "number", "mapping", "sequence"})
# Globals of a default Jinja environment, the template's own reference, and the name a Flask
# application exposes its configuration under: the classic ways out of a template.
RESERVED_NAMES = frozenset(
    {
        "range",
        "dict",
        "lipsum",
        "cycler",
        "joiner",
        "namespace",
        "self",
        "config",
    }
)


@dataclass(frozen=True)
class TemplateCheck:
    """What can be known about a template without running it."""

    source: str
    ast: nodes.Template | None
    syntax_error: str | None = None
    unsafe: tuple[str, ...] = ()
    variables: frozenset[str] = frozenset()  # every instance field the template names
    required: frozenset[str] = frozenset()  # those not only guarded by `default` / `is defined`
    plain_problem: str | None = None  # why upstream's text replacement renders it differently
    plain: bool = False  # only text and {{ name }}: checked without Jinja, and parsed when rendered

    @property
    def usable(self) -> bool:
        return (self.ast is not None or self.plain) and not self.unsafe

    def parsed(self) -> nodes.Template:
        """The parsed template, of a usable check."""
        return self.ast if self.ast is not None else environment().parse(self.source)


# --- the environment ------------------------------------------------------------------------


class TooSlow(Exception):
    pass


# When the prompt being rendered must be done (time.monotonic()); checked by every operation that
# can cost as much as its input: filters, tests, attribute and item access, output, comparisons.
DEADLINE: contextvars.ContextVar[float] = contextvars.ContextVar("deadline", default=float("inf"))
TICK = "_tick"  # the filter that checks the clock (templates cannot name it: it starts with '_')


def tick(value: Any) -> Any:
    if time.monotonic() > DEADLINE.get():
        raise TooSlow
    return value


def _timed(f: Any) -> Callable[..., Any]:
    @functools.wraps(f)  # keeps Jinja's pass_context / pass_environment marks
    def timed(*args: Any, **kwargs: Any) -> Any:
        tick(None)
        return f(*args, **kwargs)

    return timed


def _finalize(value: Any) -> Any:
    tick(None)
    return "" if value is None else value


@functools.cache
def environment() -> ImmutableSandboxedEnvironment:
    """The one environment templates are parsed and rendered in: sandboxed, immutable, strict
    about undefined names, no autoescaping, trailing newlines kept, no globals, few filters."""
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class _Environment(ImmutableSandboxedEnvironment):
        def getitem(self, obj: Any, argument: Any) -> Any:
            tick(None)
            return super().getitem(obj, argument)

        def getattr(self, obj: Any, attribute: str) -> Any:
            tick(None)
            return super().getattr(obj, attribute)

    env = _Environment(
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        finalize=_finalize,
        cache_size=0,
        auto_reload=False,
    )
    env.globals.clear()
    env.filters = {name: _timed(f) for name, f in env.filters.items() if name in SAFE_FILTERS}
    env.filters[TICK] = tick
    env.tests = {name: _timed(t) for name, t in env.tests.items() if name in SAFE_TESTS}
    return env


# --- checking a template without running it ---------------------------------------------------


def _walk(root: nodes.Node) -> list[tuple[nodes.Node, nodes.Node | None]]:
    """(node, parent) for every node, inner nodes before the ones holding them and left to right
    (`''.__class__.__mro__` gives __class__ first), without recursion: templates can nest
    deeply."""
    out: list[tuple[nodes.Node, nodes.Node | None]] = []
    stack: list[tuple[nodes.Node, nodes.Node | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        out.append((node, parent))
        stack.extend((child, node) for child in node.iter_child_nodes())
    out.reverse()
    return out


_STATEMENTS = {
    "For": "{% for %} loops",
    "Macro": "{% macro %}",
    "CallBlock": "{% call %}",
    "FilterBlock": "{% filter %}",
    "With": "{% with %}",
    "Block": "{% block %}",
    "Extends": "{% extends %} (templates cannot read other templates)",
    "Include": "{% include %} (templates cannot read other templates)",
    "Import": "{% import %} (templates cannot read other templates)",
    "FromImport": "{% from ... import %} (templates cannot read other templates)",
    "Assign": "{% set %}",
    "AssignBlock": "{% set %}",
    "ScopedEvalContextModifier": "{% autoescape %}",
    "EvalContextModifier": "{% autoescape %}",
    "Dict": "dict literals",
    "Call": "function or method calls",
    "Concat": "the operator '~'",
}


def _const_ok(node: nodes.Node) -> bool:
    from jinja2 import nodes

    return isinstance(node, nodes.Const) and (not isinstance(node.value, str) or not node.value.startswith("_"))


def _unsafe(ast: nodes.Template) -> tuple[str, ...]:
    """Every construct of the template outside the allowed subset, each described once."""
    found: dict[str, None] = {}
    for node, parent in _walk(ast):
        problem = _problem(node, parent)
        if problem is not None:
            found.setdefault(problem)
    return tuple(found)


@functools.cache
def _unsafe_attributes() -> frozenset[str]:
    """The attributes the sandbox refuses: Python's ways into functions, methods and frames."""
    from jinja2 import sandbox

    return frozenset(
        sandbox.UNSAFE_FUNCTION_ATTRIBUTES
        | sandbox.UNSAFE_METHOD_ATTRIBUTES
        | sandbox.UNSAFE_GENERATOR_ATTRIBUTES
        | sandbox.UNSAFE_COROUTINE_ATTRIBUTES
        | sandbox.UNSAFE_ASYNC_GENERATOR_ATTRIBUTES
    )


@functools.cache
def _allowed() -> tuple[type, ...]:
    """The nodes allowed as they are (the others are checked by `_problem`, or refused)."""
    from jinja2 import nodes

    return (
        nodes.Template,
        nodes.Output,
        nodes.TemplateData,
        nodes.Const,
        nodes.If,
        nodes.CondExpr,
        nodes.Not,
        nodes.And,
        nodes.Or,
        nodes.Compare,
        nodes.Operand,
        nodes.List,
        nodes.Tuple,
    )


def _problem(node: nodes.Node, parent: nodes.Node | None) -> str | None:
    """What is unsafe about one node, or None."""
    from jinja2 import nodes

    if isinstance(node, nodes.Name):
        if node.name.startswith("_"):
            return f"the name {node.name!r} (names starting with '_' reach Python internals)"
        if node.name in RESERVED_NAMES:
            return f"{node.name!r} (a Jinja global or internal object, not an instance field)"
        return "assignments" if node.ctx != "load" else None
    if isinstance(node, nodes.Getattr):
        return (
            f"the attribute {node.attr!r}" if node.attr.startswith("_") or node.attr in _unsafe_attributes() else None
        )
    if isinstance(node, nodes.Getitem):
        return _subscript_problem(node.arg)
    if isinstance(node, nodes.Slice):
        return None if isinstance(parent, nodes.Getitem) else "slices"
    if isinstance(node, nodes.Filter):
        return _filter_problem(node)
    if isinstance(node, nodes.Test):
        if node.name not in SAFE_TESTS:
            return f"the test {node.name!r}"
        return (
            f"arguments to the test {node.name!r}"
            if node.args or node.kwargs or node.dyn_args or node.dyn_kwargs
            else None
        )
    if isinstance(node, (nodes.BinExpr, nodes.UnaryExpr)) and not isinstance(node, (nodes.Not, nodes.And, nodes.Or)):
        return f"the operator {node.operator!r}"
    if isinstance(node, nodes.Keyword):
        return "keyword arguments"
    if not isinstance(node, _allowed()):
        return _STATEMENTS.get(type(node).__name__, f"Jinja {type(node).__name__} nodes")
    return None


def _subscript_problem(arg: nodes.Node) -> str | None:
    from jinja2 import nodes

    if isinstance(arg, nodes.Slice):
        bounds = (arg.start, arg.stop, arg.step)
        return None if all(p is None or _const_ok(p) for p in bounds) else "a computed slice"
    if isinstance(arg, nodes.Const) and isinstance(arg.value, str) and arg.value.startswith("_"):
        return f"the item {arg.value!r}"
    return None if _const_ok(arg) else "a computed subscript (only literal keys and indices are allowed)"


def _filter_problem(node: nodes.Filter) -> str | None:
    if node.name not in SAFE_FILTERS:
        return f"the filter {node.name!r}"
    if node.kwargs or node.dyn_args or node.dyn_kwargs or node.node is None:
        return f"keyword or computed arguments to the filter {node.name!r}"
    if node.args and (node.name not in ("default", "d") or not all(map(_const_ok, node.args))):
        return f"arguments to the filter {node.name!r}"
    return None


def _names(ast: nodes.Template) -> tuple[frozenset[str], frozenset[str]]:
    """(every variable name, the names used somewhere other than under `default` or a
    `defined`/`undefined` test, which are the ones an instance must have)."""
    from jinja2 import meta, nodes

    every = frozenset(meta.find_undeclared_variables(ast))
    required: set[str] = set()
    for node, parent in _walk(ast):
        if isinstance(node, nodes.Name) and node.ctx == "load":
            guarded = (isinstance(parent, nodes.Filter) and parent.name in ("default", "d")) or (
                isinstance(parent, nodes.Test) and parent.name in ("defined", "undefined")
            )
            if not guarded or getattr(parent, "node", None) is not node:
                required.add(node.name)
    return every, frozenset(required & every)


def _plain_problem(source: str, ast: nodes.Template) -> str | None:
    """Why upstream's text replacement would not produce what Jinja produces, or None when the
    template is only text and `{{ name }}` placeholders written exactly so."""
    from jinja2 import nodes

    parts: list[str] = []
    spelled: list[str] = []
    for stmt in ast.body:
        if not isinstance(stmt, nodes.Output):
            return "it uses Jinja statements ({% ... %}), which upstream leaves as literal text"
        for item in stmt.nodes:
            if isinstance(item, nodes.TemplateData):
                parts.append(item.data)
            elif isinstance(item, nodes.Name):
                parts.append("{{ " + item.name + " }}")
                spelled.append(item.name)
            else:
                return (
                    "it uses Jinja expressions beyond {{ name }} (filters, tests, attribute "
                    "access), which upstream leaves as literal text"
                )
    if "".join(parts) == source:
        return None
    odd = [n for n in dict.fromkeys(spelled) if "{{ " + n + " }}" not in source]
    if odd:
        return (
            f"{{{{ {odd[0]} }}}} is not written with exactly one space inside the braces, so "
            "upstream's text replacement leaves it in the prompt"
        )
    if "\r" in source:
        return "it contains carriage returns, which Jinja turns into \\n"
    return (
        "it uses Jinja syntax besides {{ name }} placeholders (comments, raw blocks or "
        "whitespace control), which upstream leaves as literal text"
    )


# `{{ name }}` written exactly as upstream replaces it. Names Jinja reads as something else
# (keywords, constants) or refuses (see _unsafe) are left to Jinja.
_PLACEHOLDER = re.compile(r"\{\{ ([A-Za-z][A-Za-z0-9_]*) \}\}")
_NOT_PLAIN_NAMES = RESERVED_NAMES | frozenset(keyword.kwlist) | {"true", "false", "none"}


def _plain_check(source: str) -> TemplateCheck | None:
    """The check of a template made only of text and `{{ name }}` placeholders, found without
    importing Jinja (most real templates; Jinja's import and first parse cost 25 ms, a tenth of
    checking a 10 MB dataset). None when the text has any brace or carriage return left, or a
    name Jinja would not read as a plain variable: Jinja decides those. What this returns is what
    the Jinja path returns (tests/test_textjudge_rules.py compares both)."""
    text = _PLACEHOLDER.sub("", source)
    if "{" in text or "}" in text or "\r" in text:
        return None
    names = frozenset(_PLACEHOLDER.findall(source))
    if names & _NOT_PLAIN_NAMES:
        return None
    return TemplateCheck(source, None, None, (), names, names, None, plain=True)


@functools.lru_cache(maxsize=512)
def inspect_template(source: str) -> TemplateCheck:
    """Parse a template and check it without compiling or running it."""
    if len(source) > MAX_TEMPLATE_CHARS:
        too_long = f"is {len(source):,} characters long; templates are limited to {MAX_TEMPLATE_CHARS:,}"
        return TemplateCheck(source, None, unsafe=(too_long,))
    plain = _plain_check(source)
    return plain if plain is not None else _jinja_check(source)


def _jinja_check(source: str) -> TemplateCheck:
    from jinja2 import TemplateSyntaxError

    try:
        ast = environment().parse(source)
    except TemplateSyntaxError as exc:
        return TemplateCheck(source, None, f"line {exc.lineno}: {exc.message}")
    except RecursionError:
        return TemplateCheck(source, None, "nested too deeply")
    unsafe = _unsafe(ast)
    if unsafe:
        return TemplateCheck(source, ast, unsafe=unsafe)
    try:
        every, required = _names(ast)
    except RecursionError:
        return TemplateCheck(source, None, "nested too deeply")
    return TemplateCheck(source, ast, None, (), every, required, _plain_problem(source, ast))


def describe_unsafe(check: TemplateCheck) -> str:
    """What is wrong with an unsafe template, as a predicate: "uses ...", "is ... long"."""
    if check.ast is None:
        return check.unsafe[0]
    listed = ", ".join(check.unsafe[:5]) + (", ..." if len(check.unsafe) > 5 else "")
    return (
        f"uses {listed}; templates may only use {{{{ field }}}} placeholders, {{% if %}}, "
        f"comparisons, attribute or item access by literal name, and the filters "
        f"{', '.join(sorted(SAFE_FILTERS - {'d', 'count'}))}"
    )
