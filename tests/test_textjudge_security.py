"""Templates are untrusted input: every known way out of a Jinja template is reported by
`validate` and refused by `render`, without the template ever being compiled or run; and a
prompt cannot grow past the size limit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jinja2
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from humanjudge_schema import render_prompts, validate
from humanjudge_schema.formats.textjudge.prompts import MAX_PROMPT_BYTES, TemplateError, environment, inspect_template

from .helpers import tiny_dataset

MARKER = "/tmp/humanjudge-ssti-marker"  # a payload that ran would create this file

PAYLOADS = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__()[104].__init__.__globals__['sys'] }}",
    "{{ cycler.__init__.__globals__ }}",
    f"{{{{ cycler.__init__.__globals__.os.popen('touch {MARKER}').read() }}}}",
    f"{{{{ joiner.__init__.__globals__.os.system('touch {MARKER}') }}}}",
    "{{ self._TemplateReference__context }}",
    "{{ self.__init__.__globals__ }}",
    "{{ config }}",
    "{{ config.items() }}",
    "{{ namespace }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ lipsum.__globals__ }}",
    "{{ lipsum.__globals__['os'].popen('id').read() }}",
    "{{ range.__self__ }}",
    "{{ dict(a=1) }}",
    "{{ ''|attr('__class__') }}",
    "{{ (''|attr('__class__')|attr('__mro__'))[1] }}",
    "{% for x in range(10**9) %}{{ x }}{% endfor %}",
    "{% for x in range(10**9) %}",
    "{{ 'a' * 10**9 }}",
    "{{ instance * 100000 }}",
    "{{ 10**10**10 }}",
    "{{ '%s'|format(instance) }}",
    "{{ '%*s'|format(1000000000, 'a') }}",
    "{{ '%(x)s'|format(x=instance) }}",
    "{{ '{0.__class__}'.format(instance) }}",
    "{{ instance.format(instance) }}",
    "{{ instance['__class__'] }}",
    "{{ instance[instance] }}",
    "{{ instance|map('upper')|list }}",
    "{{ instance|center(1000000000) }}",
    "{{ instance|replace('a', instance)|replace('a', instance) }}",
    "{{ instance|join(instance) }}",
    "{{ instance|default(instance * 9) }}",
    "{{ instance ~ instance ~ instance }}",
    "{{ _ }}",
    "{{ __builtins__ }}",
    "{{ instance.__len__() }}",
    "{{ instance.gi_frame }}",
    "{% set x = instance %}{{ x }}",
    "{% include '/etc/passwd' %}",
    "{% import 'macros.j2' as m %}",
    "{% extends 'base.j2' %}",
    "{% macro m() %}{{ instance }}{% endmacro %}{{ m() }}",
    "{% filter upper %}{{ instance }}{% endfilter %}",
    "{% with a = instance %}{{ a }}{% endwith %}",
    "{{ {'a': instance} }}",
    "{{ loop.cycle('a', 'b') }}",
    "{% autoescape false %}{{ instance }}{% endautoescape %}",
]


@pytest.fixture
def nothing_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling or running any template fails the test."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a refused template was compiled or run")

    monkeypatch.setattr(jinja2.Environment, "compile", forbidden)
    monkeypatch.setattr(jinja2.Environment, "from_string", forbidden)
    monkeypatch.setattr(jinja2.Template, "render", forbidden)
    monkeypatch.setattr(jinja2.Template, "generate", forbidden)
    monkeypatch.setattr(jinja2.Template, "root_render_func", forbidden, raising=False)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_validate_reports_the_payload(payload: str, tmp_path: Path, nothing_runs: None) -> None:
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(tiny_dataset(payload + " {{ instance }}")))
    found = [(f.code, f.pointer) for f in validate([path], kind="textjudge").findings]
    assert len(found) == 1, found
    assert found[0][0] in ("textjudge/template-unsafe", "textjudge/template-syntax")
    assert found[0][1] == "/annotations/0/prompt"
    assert not Path(MARKER).exists()


@pytest.mark.parametrize("payload", PAYLOADS)
def test_render_refuses_the_payload_without_running_it(payload: str, nothing_runs: None) -> None:
    with pytest.raises(TemplateError, match=r"refused to render|not a valid template"):
        list(render_prompts(tiny_dataset(payload + " {{ instance }}")))
    assert not Path(MARKER).exists()


def test_the_cli_refuses_with_one_line_and_no_output(tmp_path: Path) -> None:
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(tiny_dataset(PAYLOADS[3] + " {{ instance }}")))
    out = tmp_path / "prompts.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "render", str(path), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith("humanjudge: refused to render the prompt of metric 'ok': it uses 'cycler'")
    assert proc.stderr.count("\n") == 1
    assert not out.exists()
    assert not Path(MARKER).exists()


def test_deep_nesting_is_a_finding_not_a_crash() -> None:
    deep = "{{ " + "(" * 5000 + "instance" + ")" * 5000 + " }}"
    assert inspect_template(deep).syntax_error == "nested too deeply"
    with pytest.raises(TemplateError):
        list(render_prompts(tiny_dataset(deep)))
    nested_ifs = "{% if instance %}" * 300 + "{{ instance }}" + "{% endif %}" * 300
    with pytest.raises(TemplateError):  # too deep for Python's compiler, refused cleanly
        list(render_prompts(tiny_dataset(nested_ifs)))


def test_the_environment_has_no_globals_and_few_filters() -> None:
    env = environment()
    assert isinstance(env, ImmutableSandboxedEnvironment)
    assert env.globals == {}
    assert env.undefined is jinja2.StrictUndefined
    assert env.autoescape is False and env.keep_trailing_newline is True
    assert not {"attr", "format", "map", "replace", "join", "center", "indent", "tojson"} & set(env.filters)


def test_the_safe_subset_renders() -> None:
    prompt = (
        "Question: {{ user_prompt|trim }}\n"
        "{% if response %}Response: {{ response }}{% else %}(no response){% endif %}\n"
        "{{ 'long' if user_prompt|length > 10 else 'short' }} {{ extra|default('-') }} {{ turns[0].role|upper }}\n"
    )
    instance = {"user_prompt": " Can I take ibuprofen? ", "response": None, "turns": [{"role": "user"}]}
    check = inspect_template(prompt)
    assert check.unsafe == () and check.required == {"user_prompt", "response", "turns"}
    [p] = render_prompts(tiny_dataset(prompt, instance))
    assert p.prompt == "Question: Can I take ibuprofen?\n(no response)\nlong - USER\n"


def test_a_prompt_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    big = "x" * (MAX_PROMPT_BYTES // 2 + 1)
    data = tiny_dataset("{{ instance }}{{ instance }}", big)
    with pytest.raises(TemplateError, match="larger than 1,000,000 bytes"):
        list(render_prompts(data))
    # exactly at the limit is fine; the limit counts UTF-8 bytes, not characters
    assert len(next(render_prompts(tiny_dataset("{{ instance }}", "x" * MAX_PROMPT_BYTES))).prompt) == MAX_PROMPT_BYTES
    with pytest.raises(TemplateError, match="larger than"):
        list(render_prompts(tiny_dataset("{{ instance }}", "é" * (MAX_PROMPT_BYTES // 2 + 1))))
    with pytest.raises(TemplateError, match="larger than 100 bytes"):
        list(render_prompts(tiny_dataset("{{ instance }}", "y" * 101), max_bytes=100))
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "prompts.txt"
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "render", str(path), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and "larger than 1,000,000 bytes" in proc.stderr
    assert not out.exists()


def test_a_huge_template_is_refused_unread(nothing_runs: None) -> None:
    # 200,000 references to a 10 kB field would be 2 GB, and compiling the template alone takes
    # seconds: templates over the length limit are refused before they are parsed
    data = tiny_dataset("{{ instance }}" * 200_000, "z" * 10_000)
    assert inspect_template(data["annotations"][0]["prompt"]).unsafe == (
        "is 2,800,000 characters long; templates are limited to 100,000",
    )
    with pytest.raises(TemplateError, match="refused"):
        list(render_prompts(data))


def test_a_template_repeating_a_field_stops_at_the_size_limit() -> None:
    data = tiny_dataset("{{ instance }}" * 7_000, "z" * 1_000)  # 7 MB if it ran to the end
    with pytest.raises(TemplateError, match="larger than"):
        list(render_prompts(data))
