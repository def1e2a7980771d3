"""TextJudge rule behaviour the case folders do not show on their own: configuration, which parts
of a document the rules need, template inspection, and the shared numeric comparison."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import numbers, validate
from humanjudge_schema.formats.coggym.rules import means as coggym
from humanjudge_schema.formats.textjudge import aggregate as textjudge
from humanjudge_schema.formats.textjudge.prompts import inspect_template

from .conftest import CASES, ROOT

MEAN = CASES / "textjudge" / "invalid" / "mean-value" / "dataset.json"


def _write(folder: Path, data: dict[str, Any]) -> Path:
    path = folder / "dataset.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def _codes(path: Path) -> list[tuple[str, str]]:
    return [(f.code, f.pointer) for f in validate([path], kind="textjudge").findings]


def test_same_value_is_shared_with_coggym() -> None:
    assert coggym.same_value is numbers.same_value is textjudge.same_value
    assert numbers.same_value(3.67, 11 / 3, 1e-9) and numbers.same_value(3.667, 11 / 3, 1e-9)
    assert not numbers.same_value(2.88, 11 / 3, 1e-9)
    assert numbers.decimals(3.67) == 2 and numbers.decimals(4.0) == 0 and numbers.decimals(1e-20) is None


def test_the_configured_tolerance_applies(tmp_path: Path) -> None:
    data = json.loads(MEAN.read_text())
    data["instances"][0]["annotations"]["fluency"]["mean_human"] = 3.6  # exact 3.667
    strict, lenient = tmp_path / "strict", tmp_path / "lenient"
    strict.mkdir()
    lenient.mkdir()
    (lenient / "humanjudge.toml").write_text("tolerance = 0.1\n")  # configuration is found once per folder
    assert [c for c, _ in _codes(_write(strict, data))] == ["textjudge/mean-value"]
    assert _codes(_write(lenient, data)) == []


def test_severity_and_ignore_configuration(tmp_path: Path) -> None:
    data = json.loads((CASES / "textjudge/invalid/label-case/dataset.json").read_text())
    for name, toml in (
        ("severity", '[severity]\n"textjudge/label-case" = "error"\n'),
        ("ignore", 'ignore = ["textjudge/label-case"]\n'),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "humanjudge.toml").write_text(toml)
    severe = validate([_write(tmp_path / "severity", data)], kind="textjudge").findings
    assert [f.severity.value for f in severe] == ["error", "error"]
    assert _codes(_write(tmp_path / "ignore", data)) == []


def test_rules_wait_for_valid_declarations_and_instances(tmp_path: Path) -> None:
    data = json.loads(MEAN.read_text())
    data["instances"][1]["annotations"]["fluency"] = 3  # a schema error in the instances
    assert _codes(_write(tmp_path, data)) == [("schema/type", "/instances/1/annotations/fluency")]
    # the wrong mean in instance 0 is reported once the instances are valid again


def test_undeclared_metric_suggests_the_declared_spelling(tmp_path: Path) -> None:
    data = json.loads(MEAN.read_text())
    scores = data["instances"][0]["annotations"].pop("fluency")
    data["instances"][0]["annotations"]["Fluency "] = scores
    path = _write(tmp_path, data)
    result = validate([path], kind="textjudge")
    messages = {f.code: f.message for f in result.findings}
    assert messages["textjudge/undeclared-metric"] == "metric 'Fluency ' is not declared; did you mean 'fluency'?"
    assert messages["textjudge/missing-metric"] == "no scores for declared metric 'fluency'"


def test_a_string_instance_among_object_instances(tmp_path: Path) -> None:
    data = json.loads((CASES / "textjudge/valid/null-response-fields/dataset.json").read_text())
    data["instances"][1]["instance"] = "Can I take ibuprofen with a cold? Ask a pharmacist."
    result = validate([_write(tmp_path, data)], kind="textjudge")
    [finding] = result.findings
    assert finding.code == "textjudge/template-variable"
    assert "'response', which 1 of 2 instances lack (first /instances/1)" in finding.message


def test_ids_of_different_types_are_different(tmp_path: Path) -> None:
    data = json.loads(MEAN.read_text())
    data["instances"][1]["id"] = "1"  # instance 0 has the number 1
    assert _codes(_write(tmp_path, data)) == [("textjudge/mean-value", "/instances/0/annotations/fluency/mean_human")]


def test_toxic_chat_style_aggregates_only_are_not_reported() -> None:
    assert _codes(CASES / "textjudge/valid/schema-real-data-quirks/dataset.json") == []


def test_the_examples() -> None:
    assert _codes(ROOT / "examples/textjudge/valid/dataset.json") == []
    assert _codes(ROOT / "examples/textjudge/broken/dataset.json") == [
        ("textjudge/template-variable", "/annotations/0/prompt_paraphrase_2"),
        ("textjudge/mean-value", "/instances/2/annotations/quality/mean_human"),
    ]


@pytest.mark.parametrize(
    ("source", "plain"),
    [
        ("Rate: {{ instance }}\n", True),
        ("{{ source }} -> {{ translation }}", True),
        ("no placeholder at all", True),
        ("Rate: {{instance}}", False),
        ("Rate: {{  instance }}", False),
        ("Rate: {{- instance }}", False),
        ("Rate: {# note #}{{ instance }}", False),
        ("Rate: {% raw %}{{ x }}{% endraw %}{{ instance }}", False),
        ("Rate: {{ instance|upper }}", False),
        ("Rate:\r\n{{ instance }}", False),
    ],
)
def test_plain_templates(source: str, plain: bool) -> None:
    check = inspect_template(source)
    assert check.usable
    assert (check.plain_problem is None) is plain


def test_variables_guarded_by_default_or_defined_are_optional() -> None:
    check = inspect_template(
        "{{ a }} {{ b|default('-') }} {% if c is defined %}{{ d }}{% endif %} {{ e|upper }} {{ f[0].g }}"
    )
    assert check.variables == {"a", "b", "c", "d", "e", "f"}
    assert check.required == {"a", "d", "e", "f"}


def _random_dataset(rng: random.Random) -> dict[str, Any]:
    def value() -> Any:
        return rng.choice([1, 2.5, -3, 0, 7, 1.0, "yes", "No", "YES", "maybe", "1", "", None, True, [], {}])

    def template() -> Any:
        return rng.choice(
            [
                None,
                "",
                "{{ instance }}",
                "{{ text }} {{ other }}",
                "{{instance}}",
                "{{ x|default('a') }}",
                "{% if instance %}{{ instance|upper }}{% endif %}",
                "{{ ''.__class__ }}",
                "{{ instance }",
                "plain",
                "{{ instance[0] }}{{ instance['a'] }}{{ text[1:2] }}",
                "{{ a == b and c in ['x'] }}",
            ]
        )

    metrics = ["m1", "m2", "m3"][: rng.randint(1, 3)]
    decls = []
    for m in metrics:
        category = rng.choice(["continuous", "graded", "categorical"])
        decl: dict[str, Any] = {"metric": rng.choice([m, "m1"]), "category": category, "prompt": template() or "x"}
        if category == "categorical":
            decl["labels_list"] = rng.sample(["yes", "no", "Yes", "maybe", "1"], rng.randint(0, 3))
            if rng.random() < 0.3:
                decl["worst"], decl["best"] = rng.choice([("0", "1"), (0, 1)])
        else:
            lo, hi = rng.choice([(1, 5), (5, 1), (0, 100), (3, 3), (-2, 2)])
            decl["worst"], decl["best"] = (
                (float(lo), float(hi)) if category == "continuous" and rng.random() < 0.5 else (lo, hi)
            )
        for key in ("prompt_fsp", "prompt_paraphrase_1", "prompt_paraphrase_12"):
            if rng.random() < 0.3:
                decl[key] = template()
        if rng.random() < 0.3:
            decl["fsp_examples_id"] = rng.choice([None, [], [0, "0", 1.0, 99]])
        decls.append(decl)
    instances = []
    for i in range(rng.randint(0, 5)):
        inst_value: Any = rng.choice(["text", {"text": value(), "other": value()}, {}, {"instance": "x"}])
        scores = {}
        for m in rng.sample(["m1", "m2", "m3", "zz"], rng.randint(0, 4)):
            s: dict[str, Any] = {
                "individual_human_scores": [
                    rng.choice([1, 2, 3.5, 6, -1, "yes", "no", "Yes", "x"]) for _ in range(rng.randint(0, 4))
                ]
            }
            if rng.random() < 0.7:
                s["mean_human"] = rng.choice([1, 2.5, 3.333, 100, -7])
            if rng.random() < 0.6:
                s["majority_human"] = rng.choice([None, "yes", "YES", 2, 2.5, "q"])
            scores[m] = s
        instances.append({"id": rng.choice([i, str(i), 0]), "instance": inst_value, "annotations": scores})
    return {
        "dataset": "d",
        "dataset_url": "u",
        "expert_annotator": "true",
        "original_prompt": True,
        "annotations": decls,
        "instances": instances,
    }


def test_rules_never_crash_on_schema_valid_data(tmp_path: Path) -> None:
    from humanjudge_schema.engine import schema_errors
    from humanjudge_schema.formats.textjudge.prompts import usable

    rng = random.Random(20240611)
    checked = 0
    for n in range(400):
        data = _random_dataset(rng)
        if not usable(data, schema_errors("textjudge/v1/dataset", data)):
            continue
        path = tmp_path / f"d{n}.json"
        path.write_text(json.dumps(data))
        codes = {f.code for f in validate([path], kind="textjudge").findings}
        assert "engine/internal-error" not in codes, (data, codes)
        checked += 1
        # what aggregate writes passes the rules it corrects
        fixes = textjudge.corrections(data, 1e-9)
        path.write_text(textjudge.patch(path.read_text(), [(p, new) for p, _, new in fixes]))
        after = {f.code for f in validate([path], kind="textjudge").findings}
        assert not after & {"textjudge/mean-value", "textjudge/majority-value"}, (data, fixes)
    assert checked > 100


# --- templates checked without Jinja -----------------------------------------------------------

_PIECES = [
    "{{ instance }}",
    "{{ source }}",
    "{{instance}}",
    "{{ x_1 }}",
    "{{ _x }}",
    "{{ range }}",
    "{{ true }}",
    "{{ None }}",
    "{{ and }}",
    "{{ if }}",
    "{{ loop }}",
    "{{ Q }}",
    "{{ 1x }}",
    "{{ a.b }}",
    "{{  a }}",
    "{%",
    "%}",
    "{#",
    "#}",
    "{",
    "}",
    "{{",
    "}}",
    "\r",
    "\n",
    " ",
    "text",
    "é",
    "{% raw %}",
    "-}}",
]


def _fields(check: Any) -> tuple[Any, ...]:
    return (check.syntax_error, check.unsafe, check.variables, check.required, check.plain_problem, check.usable)


def test_plain_templates_are_checked_without_jinja_as_jinja_checks_them() -> None:
    from humanjudge_schema.formats.textjudge import sandbox

    rng = random.Random(7)
    sources = ["", "Rate: {{ instance }}", "{{ a }}{{ b }}\n", "A {{ source }} and {{ translation }}.\n\n"]
    sources += ["".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 8))) for _ in range(3000)]
    near = ["{{ instance }}", "{{ source }}", "{{ x_1 }}", "{{ Q }}", "{{ loop }}", "text", " ", "\n", "é", "}"]
    sources += ["".join(rng.choice(near) for _ in range(rng.randint(1, 8))) for _ in range(1000)]
    plain = 0
    for source in sources:
        fast = sandbox._plain_check(source)
        if fast is None:
            continue
        plain += 1
        assert fast.plain and fast.usable
        assert _fields(fast) == _fields(sandbox._jinja_check(source)), source
    assert plain > 500  # the generator reaches the fast path often enough to be a test
    # and what the fast path refuses, Jinja decides
    for source in ["{{ range }}", "{{ _x }}", "{{ true }}", "{{instance}}", "a } b", "a\r\n{{ x }}"]:
        assert sandbox._plain_check(source) is None
        assert inspect_template(source) == sandbox._jinja_check(source)


def test_a_plain_template_renders_after_a_check_without_jinja(tmp_path: Path) -> None:
    from humanjudge_schema.formats.textjudge.prompts import render_prompts

    data = json.loads(MEAN.read_text())
    for decl in data["annotations"]:
        decl["prompt"] = "Judge: {{ instance }}"
    path = _write(tmp_path, data)
    assert inspect_template("Judge: {{ instance }}").plain
    prompts = list(render_prompts(path))
    assert prompts and all(p.prompt.startswith("Judge: ") and "{{" not in p.prompt for p in prompts)
