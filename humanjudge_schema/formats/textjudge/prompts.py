"""Prompt templates of TextJudge datasets: checking them without running them, and rendering them.

A declaration's `prompt` (and `prompt_fsp`, `prompt_paraphrase_N`) is a Jinja template. For a
string instance the template sees one variable, `instance`; for an object instance every field is a
top-level variable. Upstream's evaluation code fills templates by plain text replacement of
`{{ field }}`; on templates made only of such placeholders, rendering here gives the same bytes.

Templates arrive with datasets in pull requests, so they are untrusted. Each is first checked
without running it against the small subset of Jinja a prompt may use (sandbox.py); only then is
it rendered, in an `ImmutableSandboxedEnvironment` with `StrictUndefined` and no globals, with a
bound on the size of each prompt and on the time it takes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...engine import UNLOCATED
from .sandbox import (
    DEADLINE,
    MAX_TEMPLATE_CHARS,
    TICK,
    TemplateCheck,
    TooSlow,
    describe_unsafe,
    environment,
    inspect_template,
    tick,
)

if TYPE_CHECKING:
    from jinja2 import Template, nodes

SCHEMA = "textjudge/v1/dataset"
MAX_PROMPT_BYTES = 1_000_000
# Without loops a template runs each of its nodes once, but a node can still cost as much as the
# data it touches: 3,000 `{{ text|wordcount }}` over a 5 MB field take half a minute and print
# 3 kB. A prompt renders in microseconds; one that takes seconds is stopped.
MAX_RENDER_SECONDS = 5.0
PROMPT_FIELD = re.compile(r"prompt|prompt_fsp|prompt_paraphrase_[1-9][0-9]*")


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
        ptr in ("/annotations", "/instances") or ptr.startswith(("/annotations/", "/instances/")) or why == UNLOCATED
        for _, ptr, why in errors
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
class _MetricTemplate:
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


def _plans(data: dict[str, Any], metric: str | None, prompt_field: str) -> list[_MetricTemplate]:
    """The templates to render, each checked: DatasetError or TemplateError before any prompt."""
    declarations: dict[str, dict[str, Any]] = {}
    for decl in data["annotations"]:
        declarations[decl["metric"]] = decl  # the last one wins, as in upstream's evaluation
    if metric is not None and metric not in declarations:
        raise DatasetError(f"no metric {metric!r}; the dataset declares {', '.join(map(repr, declarations))}")
    plans: list[_MetricTemplate] = []
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
        plans.append(_MetricTemplate(name, prompt_field, check, frozenset(map(_key, ids or ()))))
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
        return nodes.Filter(node, TICK, [], [], None, None, lineno=node.lineno)

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


def _compile(plan: _MetricTemplate) -> Template:
    try:
        return environment().from_string(_with_clock(plan.check.parsed()))
    except Exception as exc:  # e.g. RecursionError on absurd nesting: refuse, never crash
        raise TemplateError(f"the {plan.field} of metric {plan.metric!r} cannot be compiled: {exc}") from None


def _generate(
    work: list[tuple[dict[str, Any], _MetricTemplate]],
    compiled: dict[str, Template],
    max_bytes: int,
    max_seconds: float,
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
    token = DEADLINE.set(time.monotonic() + max_seconds)
    try:
        for chunk in template.generate(context):
            tick(None)
            size += len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                raise TemplateError(f"the prompt for {what} is larger than {max_bytes:,} bytes; rendering stopped")
            parts.append(chunk)
    except TemplateError:
        raise
    except TooSlow:
        raise TemplateError(
            f"the prompt for {what} takes longer than {max_seconds:g} s to render; rendering stopped"
        ) from None
    except Exception as exc:  # undefined names, type errors of comparisons, sandbox refusals
        raise TemplateError(f"cannot render the prompt for {what}: {exc}") from None
    finally:
        DEADLINE.reset(token)
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
