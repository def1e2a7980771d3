"""The prompt templates: that they parse, stay safe, render the same in upstream's evaluation
code, and name only variables the instances have."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....finding import pointer
from ....registry import rule
from ..model import DatasetFacts
from ..sandbox import describe_unsafe


@rule(
    "textjudge/template-syntax",
    "every prompt template parses",
    why="`prompt`, `prompt_fsp` and `prompt_paraphrase_N` are Jinja templates. One that does "
    "not parse cannot be rendered, and a stray `{{` or `{%` in the text is usually meant "
    "literally: write it as {{ '{{' }} or inside {% raw %}.",
    bad='"prompt": "Rate this sentence: {{ instance }"',
    good='"prompt": "Rate this sentence: {{ instance }}"',
    scope="dataset",
)
def template_syntax(ds: DatasetFacts) -> Iterator[Hit]:
    for k, name, check in ds.templates:
        if check.syntax_error is not None:
            yield ds.doc, pointer("annotations", k, name), f"{name} is not a valid Jinja template: {check.syntax_error}"


@rule(
    "textjudge/template-unsafe",
    "templates stay within the safe subset of Jinja",
    why="Templates come with datasets, from pull requests: they are untrusted. A template may "
    "use {{ field }} placeholders, {% if %}, comparisons, attribute or item access by literal "
    "name, and a few filters (upper, lower, trim, default, ...). Anything else is refused, "
    "found by reading the parsed template, never by running it: names and attributes starting "
    "with `_` (the way to Python internals), Jinja's globals (range, lipsum, cycler, joiner, "
    "namespace, dict), `self` and `config`, calls, arithmetic (`'a' * 10**9`), loops, and "
    "filters such as attr and format. `humanjudge render` refuses such templates.",
    bad='"prompt": "{{ \'\'.__class__.__mro__[1].__subclasses__() }} {{ instance }}"',
    good='"prompt": "Rate this sentence: {{ instance }}"',
    scope="dataset",
)
def template_unsafe(ds: DatasetFacts) -> Iterator[Hit]:
    for k, name, check in ds.templates:
        if check.unsafe:
            yield ds.doc, pointer("annotations", k, name), f"{name} {describe_unsafe(check)}"


@rule(
    "textjudge/template-variable",
    "every variable a template uses exists in every instance",
    why="A template is rendered with each instance's fields as variables (`instance` for a "
    "string instance). A variable that an instance lacks is an error when rendering here; "
    "upstream's text replacement leaves it in the prompt as `{{ target }}`, and the model never "
    "sees the text. That is how the wmt-23 datasets' prompt_paraphrase_2 asked for "
    "{{ target }} while the instances have source, reference and translation. For prompt_fsp "
    "the few-shot examples are left out. A variable used only under `default` or an `is "
    "defined` test is optional.",
    bad='"prompt_paraphrase_2": "Translation: {{ target }}"; "instance": {"source": "...", '
    '"reference": "...", "translation": "..."}',
    good='"prompt_paraphrase_2": "Translation: {{ translation }}"',
    scope="dataset",
)
def template_variable(ds: DatasetFacts) -> Iterator[Hit]:
    for r in ds.renderings:
        if not r.targets or not r.missing:
            continue
        parts = []
        for var in sorted(r.missing):
            n, first = r.missing[var]
            if n == r.targets:
                parts.append(f"{var!r}, which no instance has")
            else:
                parts.append(f"{var!r}, which {n} of {r.targets} instances lack (first /instances/{first})")
        have = ", ".join(sorted(r.fields)) or "none"
        yield (
            ds.doc,
            pointer("annotations", r.index, r.name),
            f"{r.name} uses {'; '.join(parts)} (instance fields: {have})",
        )


@rule(
    "textjudge/template-constant",
    "every template uses the instance",
    why="A template without any variable gives every instance the same prompt: the model never "
    "sees what it is asked to judge. Upstream's evaluation stops on it with 'Prompt was "
    "incorrectly processed'.",
    bad='"prompt": "Is the following sentence grammatical? Answer yes or no."',
    good='"prompt": "Is the following sentence grammatical? Answer yes or no.\\n{{ instance }}"',
    scope="dataset",
)
def template_constant(ds: DatasetFacts) -> Iterator[Hit]:
    for k, name, check in ds.templates:
        if check.usable and not check.variables:
            yield (
                ds.doc,
                pointer("annotations", k, name),
                f"{name} uses no instance field, so every instance gets the same prompt",
            )


@rule(
    "textjudge/template-not-plain",
    "templates are plain text with {{ name }} placeholders",
    severity="warning",
    why="Upstream's evaluation code does not run Jinja: it replaces the exact text "
    "`{{ field }}` (one space inside each brace pair) by the field's value. A template using "
    "anything else (`{{instance}}`, filters, {% if %}, comments, whitespace control) renders "
    "differently there than in Jinja, and the difference is silent.",
    bad='"prompt": "Judge the answer.\\n\\n{{instance}}"',
    good='"prompt": "Judge the answer.\\n\\n{{ instance }}"',
    scope="dataset",
)
def template_not_plain(ds: DatasetFacts) -> Iterator[Hit]:
    for k, name, check in ds.templates:
        if check.usable and check.plain_problem is not None:
            message = f"{name} renders differently in upstream's evaluation code: {check.plain_problem}"
            yield ds.doc, pointer("annotations", k, name), message
