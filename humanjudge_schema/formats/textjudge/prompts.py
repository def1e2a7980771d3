"""Prompt templates of TextJudge datasets: checking them without running them, and rendering them.

A declaration's `prompt` (and `prompt_fsp`, `prompt_paraphrase_N`) is a Jinja template. For a
string instance the template sees one variable, `instance`; for an object instance every field is a
top-level variable. Upstream's evaluation code fills templates by plain text replacement of
`{{ field }}`; on templates made only of such placeholders, rendering here gives the same bytes.

Templates arrive with datasets in pull requests, so they are untrusted. Before anything is compiled
or run, the parsed template is walked node by node and must stay within a small subset of Jinja:
placeholders, `{% if %}`, comparisons, a few filters and tests, and attribute or item access by
literal names that do not start with `_`. No calls, no arithmetic, no loops, no Jinja globals
(`range`, `lipsum`, `cycler`, ...), no `self`. Only then is the template rendered, in an
`ImmutableSandboxedEnvironment` with `StrictUndefined` and no globals, with a bound on the size
of each prompt and on the time it takes.
"""

from __future__ import annotations

import contextvars
import functools
import keyword
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import Template, nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment

SCHEMA = "textjudge/v1/dataset"
MAX_PROMPT_BYTES = 1_000_000
# Without loops a template runs each of its nodes once, but a node can still cost as much as the
# data it touches: 3,000 `{{ text|wordcount }}` over a 5 MB field take half a minute and print
# 3 kB. A prompt renders in microseconds; one that takes seconds is stopped.
MAX_RENDER_SECONDS = 5.0
# The longest template of the published datasets has 2,813 characters. Parsing and compiling grow
# with the template, and a compiled template of a few megabytes takes seconds: refuse those unread.
MAX_TEMPLATE_CHARS = 100_000
PROMPT_FIELD = re.compile(r"prompt|prompt_fsp|prompt_paraphrase_[1-9][0-9]*")

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


class DatasetError(ValueError):
    """The dataset cannot be rendered as asked: unreadable, not a dataset, no such metric or
    instance, or no such prompt field. The message is for the user."""


class TemplateError(ValueError):
    """A template was refused (syntax, unsafe construct, missing variable) or a prompt grew past
    the size or time limit. Nothing of a refused template was executed."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """One rendered prompt: the instance's id, the metric, and the text given to a model."""

    id: int | str
    metric: str
    prompt: str


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


class _TooSlow(Exception):
    pass


# When the prompt being rendered must be done (time.monotonic()); checked by every operation that
# can cost as much as its input: filters, tests, attribute and item access, output, comparisons.
_DEADLINE: contextvars.ContextVar[float] = contextvars.ContextVar("deadline", default=float("inf"))
_TICK = "_tick"  # the filter that checks the clock (templates cannot name it: it starts with '_')


def _tick(value: Any) -> Any:
    if time.monotonic() > _DEADLINE.get():
        raise _TooSlow
    return value


def _timed(f: Any) -> Callable[..., Any]:
    @functools.wraps(f)  # keeps Jinja's pass_context / pass_environment marks
    def timed(*args: Any, **kwargs: Any) -> Any:
        _tick(None)
        return f(*args, **kwargs)

    return timed


def _finalize(value: Any) -> Any:
    _tick(None)
    return "" if value is None else value


@functools.cache
def environment() -> ImmutableSandboxedEnvironment:
    """The one environment templates are parsed and rendered in: sandboxed, immutable, strict
    about undefined names, no autoescaping, trailing newlines kept, no globals, few filters."""
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class _Environment(ImmutableSandboxedEnvironment):
        def getitem(self, obj: Any, argument: Any) -> Any:
            _tick(None)
            return super().getitem(obj, argument)

        def getattr(self, obj: Any, attribute: str) -> Any:
            _tick(None)
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
    env.filters[_TICK] = _tick
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


# --- datasets -------------------------------------------------------------------------------


def template_fields(declaration: Mapping[str, Any]) -> list[str]:
    """The template keys of a declaration in a stable order: prompt, prompt_fsp, then the
    paraphrases by number."""
    keys = [k for k in declaration if isinstance(k, str) and PROMPT_FIELD.fullmatch(k)]
    return sorted(keys, key=lambda k: (k != "prompt", k != "prompt_fsp", len(k), k))


def fields_of(instance: Any) -> frozenset[str]:
    """The variables an instance gives a template."""
    if isinstance(instance, str):
        return frozenset({"instance"})
    if isinstance(instance, dict):
        return frozenset(instance)
    return frozenset()


def context_of(instance: Any) -> dict[str, Any]:
    """The template variables of an instance, as upstream fills them: falsy values (null first of
    all) become the empty string."""
    if isinstance(instance, str):
        return {"instance": instance}
    return {k: v or "" for k, v in instance.items()}


def usable(data: Any, errors: list[tuple[str, str, str]]) -> bool:
    """Whether the declarations and instances passed the schema, so that rules and rendering can
    index them; errors elsewhere (a missing `expert_annotator`) do not stand in the way."""
    if not isinstance(data, dict):
        return False
    if not isinstance(data.get("annotations"), list) or not isinstance(data.get("instances"), list):
        return False
    return not any(
        ptr in ("/annotations", "/instances") or ptr.startswith(("/annotations/", "/instances/"))
        for _, ptr, _ in errors
    )


def _render_problem(data: Any) -> str | None:
    """What keeps a document from being rendered, or None. Rendering needs less than the schema
    asks for: declarations with a metric name, instances with an id and a text, and
    fsp_examples_id lists (a declaration without `category` still renders)."""
    if not isinstance(data, dict):
        return "the document is not a JSON object"
    for key in ("annotations", "instances"):
        if not isinstance(data.get(key), list):
            return f"{key!r} is missing or not a list"
    for k, decl in enumerate(data["annotations"]):
        if not isinstance(decl, dict) or not isinstance(decl.get("metric"), str):
            return f"/annotations/{k} has no metric name"
        if not isinstance(decl.get("fsp_examples_id") or [], list):
            return f"/annotations/{k}/fsp_examples_id is not a list"
    for i, inst in enumerate(data["instances"]):
        if not isinstance(inst, dict) or not isinstance(inst.get("instance"), (str, dict)):
            return f"/instances/{i} has no instance text (a string or an object)"
        ident = inst.get("id")
        if isinstance(ident, bool) or not isinstance(ident, (int, str)):
            return f"/instances/{i} has no id (an integer or a string)"
    return None


def _load(dataset: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(dataset, Mapping):
        data: Any = dict(dataset)
        where = "the dataset"
    else:
        from ...readers.jsonfile import JsonDocument, load

        path = Path(dataset)
        doc, problems = load(path)
        if not isinstance(doc, JsonDocument):
            first = problems[0].message if problems else "not a JSON document"
            raise DatasetError(f"{path}: {first}")
        data, where = doc.data, str(path)
    problem = _render_problem(data)
    if problem is not None:
        raise DatasetError(
            f"{where} is not a TextJudge dataset that can be rendered: {problem} "
            "(`humanjudge validate` lists every problem)"
        )
    return dict(data)


def _same_id(have: Any, wanted: Any) -> bool:
    if have == wanted and isinstance(have, str) == isinstance(wanted, str):
        return True
    return isinstance(wanted, str) and not isinstance(have, str) and str(have) == wanted


@dataclass(frozen=True)
class _Plan:
    metric: str
    field: str
    check: TemplateCheck
    excluded: frozenset[tuple[bool, Any]]


def _key(ident: Any) -> tuple[bool, Any]:
    return isinstance(ident, str), ident


def render_prompts(
    dataset: str | Path | Mapping[str, Any],
    metric: str | None = None,
    prompt_field: str = "prompt",
    instance: int | str | None = None,
    *,
    max_bytes: int = MAX_PROMPT_BYTES,
    max_seconds: float = MAX_RENDER_SECONDS,
) -> Iterator[Prompt]:
    """Render a dataset's prompts: one Prompt per instance and metric, instance by instance.

    `dataset` is a path or an already-parsed dataset. `prompt_field` picks the template
    (`prompt`, `prompt_fsp`, `prompt_paraphrase_N`); metrics without it are skipped, as upstream
    does, and with `prompt_fsp` the instances listed in `fsp_examples_id` are left out. Everything
    is checked before the first prompt is produced: DatasetError for a selection that does not
    exist, TemplateError for a template that does not parse, is unsafe, or names a field an
    instance lacks. A prompt over `max_bytes` (UTF-8), or one that takes more than `max_seconds`
    to render, raises TemplateError when it is reached.
    """
    if not PROMPT_FIELD.fullmatch(prompt_field):
        raise DatasetError(f"{prompt_field!r} is not a prompt field (prompt, prompt_fsp or prompt_paraphrase_N)")
    data = _load(dataset)
    plans = _plans(data, metric, prompt_field)
    instances = data["instances"]
    if instance is not None:
        instances = [x for x in instances if _same_id(x["id"], instance)]
        if not instances:
            raise DatasetError(f"no instance with id {instance!r}")
    work = [(inst, plan) for inst in instances for plan in plans if _key(inst["id"]) not in plan.excluded]
    if instance is not None and not work:
        raise DatasetError(
            f"instance {instance!r} is a few-shot example of every selected "
            f"metric: {prompt_field} is not rendered for it"
        )
    for inst, plan in work:
        missing = plan.check.required - fields_of(inst["instance"])
        if missing:
            names = ", ".join(sorted(missing))
            raise TemplateError(
                f"the {plan.field} of metric {plan.metric!r} uses {names}, which instance "
                f"{inst['id']!r} does not have (its fields: "
                f"{', '.join(sorted(fields_of(inst['instance']))) or 'none'})"
            )
    compiled = {plan.metric: _compile(plan) for plan in plans}
    return _generate(work, compiled, max_bytes, max_seconds)


def _plans(data: dict[str, Any], metric: str | None, prompt_field: str) -> list[_Plan]:
    """The templates to render, each checked: DatasetError or TemplateError before any prompt."""
    declarations: dict[str, dict[str, Any]] = {}
    for decl in data["annotations"]:
        declarations[decl["metric"]] = decl  # the last one wins, as in upstream's evaluation
    if metric is not None and metric not in declarations:
        raise DatasetError(f"no metric {metric!r}; the dataset declares {', '.join(map(repr, declarations))}")
    plans: list[_Plan] = []
    for name, decl in declarations.items():
        if metric is not None and name != metric:
            continue
        source = decl.get(prompt_field)
        if source is not None and not isinstance(source, str):
            raise DatasetError(f"the {prompt_field} of metric {name!r} is not a string")
        if not source:
            if metric is not None:
                raise DatasetError(f"metric {name!r} has no {prompt_field}")
            continue
        check = inspect_template(source)
        where = f"the {prompt_field} of metric {name!r}"
        if check.syntax_error is not None:
            raise TemplateError(f"{where} is not a valid template: {check.syntax_error}")
        if check.unsafe:
            raise TemplateError(f"refused to render {where}: it {describe_unsafe(check)}")
        ids = decl.get("fsp_examples_id") if prompt_field == "prompt_fsp" else None
        plans.append(_Plan(name, prompt_field, check, frozenset(map(_key, ids or ()))))
    if not plans:
        raise DatasetError(f"no metric has a {prompt_field}")
    return plans


def _with_clock(ast: nodes.Template) -> nodes.Template:
    """A copy of the template that checks the clock before each comparison and slice: comparing
    or slicing long fields costs as much as they are long, and Jinja compiles both to plain
    Python, past the environment's lookups and filters."""
    import copy

    from jinja2 import nodes

    def tick(node: nodes.Expr) -> nodes.Expr:
        return nodes.Filter(node, _TICK, [], [], None, None, lineno=node.lineno)

    env = environment()
    timed = copy.deepcopy(ast, {id(env): env})  # the nodes' environment stays the one environment
    for node in timed.find_all((nodes.Compare, nodes.Getitem)):
        if isinstance(node, nodes.Compare):
            node.expr = tick(node.expr)
            for op in node.ops:
                op.expr = tick(op.expr)
        elif isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Slice):
            node.node = tick(node.node)
    return timed


def _compile(plan: _Plan) -> Template:
    try:
        return environment().from_string(_with_clock(plan.check.parsed()))
    except Exception as exc:  # e.g. RecursionError on absurd nesting: refuse, never crash
        raise TemplateError(f"the {plan.field} of metric {plan.metric!r} cannot be compiled: {exc}") from None


def _generate(
    work: list[tuple[dict[str, Any], _Plan]], compiled: dict[str, Template], max_bytes: int, max_seconds: float
) -> Iterator[Prompt]:
    for inst, plan in work:
        ident = inst["id"]
        text = _render(
            compiled[plan.metric],
            context_of(inst["instance"]),
            max_bytes,
            max_seconds,
            f"instance {ident!r}, metric {plan.metric!r}",
        )
        yield Prompt(ident, plan.metric, text)


def _render(template: Template, context: dict[str, Any], max_bytes: int, max_seconds: float, what: str) -> str:
    parts: list[str] = []
    size = 0
    token = _DEADLINE.set(time.monotonic() + max_seconds)
    try:
        for chunk in template.generate(context):
            _tick(None)
            size += len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                raise TemplateError(f"the prompt for {what} is larger than {max_bytes:,} bytes; rendering stopped")
            parts.append(chunk)
    except TemplateError:
        raise
    except _TooSlow:
        raise TemplateError(
            f"the prompt for {what} takes longer than {max_seconds:g} s to render; rendering stopped"
        ) from None
    except Exception as exc:  # undefined names, type errors of comparisons, sandbox refusals
        raise TemplateError(f"cannot render the prompt for {what}: {exc}") from None
    finally:
        _DEADLINE.reset(token)
    return "".join(parts)


__all__ = [
    "MAX_PROMPT_BYTES",
    "MAX_RENDER_SECONDS",
    "MAX_TEMPLATE_CHARS",
    "DatasetError",
    "Prompt",
    "TemplateCheck",
    "TemplateError",
    "inspect_template",
    "render_prompts",
]
