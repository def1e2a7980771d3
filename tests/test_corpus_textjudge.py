"""Conformance over the real JUDGE-BENCH datasets: each file's findings, counted by code and
severity, equal the table below; every entry is a true defect, explained in
docs/conformance-textjudge.md. Rendering gives, byte for byte, what upstream's evaluation code
(plain text replacement) gives, on every dataset whose templates it can fill."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import render_prompts, validate
from humanjudge_schema.formats.textjudge.prompts import template_fields
from humanjudge_schema.kinds import UsageError, find_units, survey

from .conftest import CORPUS_MISSING, corpus

REPO = "judgebench/dmg-illc+JUDGE-BENCH"
REQUIRED = ("schema/required", "error")
MEAN = ("textjudge/mean-value", "error")

EXPECTED: dict[str, dict[tuple[str, str], int]] = {
    "data/cola/cola.json": {},
    "data/dices/dices_350_crowdsourced.json": {},
    "data/dices/dices_350_expert.json": {},
    # upstream's own example: no expert_annotator / original_prompt, and four wrong means
    # (2.88 for [2, 6, 3], 2.58 for [1, 6, 3], in both instances)
    "data/example.json": {REQUIRED: 2, MEAN: 4},
    "data/inferential-strategies/inferential_strategies.json": {},
    "data/llmbar/data-adversarial.json": {},
    "data/llmbar/data-natural.json": {},
    "data/newsroom/newsroom.json": {},
    "data/recipe_crowd_sourcing_data/meta_evaluation_recipes.json": {REQUIRED: 2},
    # and no declaration has a category: the rules cannot run
    "data/recipe_crowd_sourcing_data/meta_evaluation_recipes_long_prompt.json": {REQUIRED: 8},
    "data/roscoe/roscoe-cosmos-overall.json": {},
    "data/roscoe/roscoe-cosmos-stepwise.json": {},
    "data/roscoe/roscoe-drop-overall.json": {},
    "data/roscoe/roscoe-drop-stepwise.json": {},
    "data/roscoe/roscoe-esnli-overall.json": {},
    "data/roscoe/roscoe-esnli-stepwise.json": {},
    "data/roscoe/roscoe-gsm8k-overall.json": {},
    "data/roscoe/roscoe-gsm8k-stepwise.json": {},
    # upstream's test fixture: expert_annotator is the boolean false; the prompt says
    # {{instance}} (no spaces) while the instances are objects without an `instance` field; seven
    # fields hold lists, objects, numbers or booleans, which upstream's renderer cannot fill in
    "llm_metaeval/tests/fixtures/chatbot_arena_convo.json": {
        ("schema/enum", "error"): 1,
        ("textjudge/template-variable", "error"): 1,
        ("textjudge/template-not-plain", "warning"): 1,
        ("textjudge/instance-field-type", "warning"): 7,
    },
    "llm_metaeval/tests/fixtures/example.json": {REQUIRED: 2, MEAN: 4},
}
LFS_POINTER = "data/chatbot_arena_conversations/data.json"  # stands for a dataset that is not there
NOT_A_DATASET = "data/recipe_crowd_sourcing_data/questions.json"  # the questionnaire shown to annotators


def _counts(path: Path) -> dict[tuple[str, str], int]:
    result = validate([path], kind="textjudge")
    return dict(Counter((f.code, f.severity.value) for f in result.findings))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_dataset_has_exactly_its_known_findings(name: str) -> None:
    assert _counts(corpus(REPO, name)) == EXPECTED[name]


def test_the_folder_walk_finds_every_dataset_and_the_pointer_and_reports_the_rest() -> None:
    root = corpus(REPO)
    for kind in (None, "textjudge"):  # a walk takes only what looks like a dataset, even under --kind
        found = survey([root], kind)
        assert {str(u.root.relative_to(root)) for u in found.units} == {*EXPECTED, LFS_POINTER}
        assert [str(s.path.relative_to(root)) for s in found.skipped] == [NOT_A_DATASET]


def test_a_non_dataset_named_explicitly_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not a file of a known format"):
        find_units([corpus(REPO, NOT_A_DATASET)])


@pytest.mark.parametrize("kind", [None, "textjudge"])
def test_the_lfs_pointer_says_what_it_is(kind: str | None) -> None:
    result = validate([corpus(REPO, LFS_POINTER)], kind=kind)
    assert [(f.code, f.severity.value) for f in result.findings] == [("parse/lfs-pointer", "error")]
    assert "Git LFS pointer" in result.findings[0].message


def test_questions_json_with_kind_is_reported_as_not_a_dataset() -> None:
    result = validate([corpus(REPO, NOT_A_DATASET)], kind="textjudge")
    assert Counter(f.code for f in result.findings) == {"schema/required": 6}


def test_a_copied_folder_with_a_pointer_and_questions_reports_both(tmp_path: Path) -> None:
    for name in (LFS_POINTER, NOT_A_DATASET, "data/example.json"):
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus(REPO, name), target)
    result = validate([tmp_path], cwd=str(tmp_path))
    assert result.files == 2
    assert {f.file for f in result.findings} == {"data/example.json", LFS_POINTER}
    assert [f.code for f in result.findings if f.file == LFS_POINTER] == ["parse/lfs-pointer"]
    assert [(str(s.path.relative_to(tmp_path)), s.reason) for s in result.skipped] == [
        (NOT_A_DATASET, "JSON that is not a TextJudge dataset")
    ]


# --- rendering: the same bytes as upstream ----------------------------------------------------

_PLACEHOLDER = re.compile(r"\{\{ ([A-Za-z_][A-Za-z0-9_]*) \}\}")


def upstream_render(prompt: str, instance: Any) -> str:
    """What upstream's `replace_instance` (prompt_model_json.py) produces: plain replacement of
    the exact text `{{ key }}`, falsy values (null) as ""."""
    if isinstance(instance, str):
        return prompt.replace("{{ instance }}", instance)
    for key, value in instance.items():
        prompt = prompt.replace("{{ " + key + " }}", value or "")
    return prompt


def _renderable_by_upstream(template: str, instances: list[Any]) -> bool:
    """Only `{{ name }}` placeholders, each filled by every instance with a string or null."""
    rest = _PLACEHOLDER.sub("", template)
    if "{{" in rest or "{%" in rest or "{#" in rest:
        return False
    names = set(_PLACEHOLDER.findall(template))
    for inst in instances:
        fields = {"instance": inst} if isinstance(inst, str) else inst
        if not names <= set(fields) or not all(v is None or isinstance(v, str) for v in fields.values()):
            return False
    return True


def _cases() -> list[Any]:
    out = []
    for name in sorted(EXPECTED):
        try:
            data = json.loads(corpus(REPO, name).read_text(encoding="utf-8"))
        except pytest.skip.Exception:  # one skipped case that says why, not an empty parameter set
            return [pytest.param("", "", marks=pytest.mark.skip(reason=CORPUS_MISSING))]
        for decl in data["annotations"]:
            for field in template_fields(decl):
                if isinstance(decl[field], str) and decl[field]:
                    out.append((name, field))
    return sorted(set(out))


def test_every_corpus_template_is_compared_or_known_unfillable() -> None:
    corpus(REPO)
    compared = 0
    for name, field in _cases():
        data = json.loads(corpus(REPO, name).read_text(encoding="utf-8"))
        instances = [inst["instance"] for inst in data["instances"]]
        for decl in data["annotations"]:
            if decl.get(field) and _renderable_by_upstream(decl[field], instances):
                compared += 1
            elif decl.get(field):
                assert name == "llm_metaeval/tests/fixtures/chatbot_arena_convo.json", (name, field)
    assert compared >= 60


@pytest.mark.parametrize(("name", "field"), _cases())
def test_render_is_byte_identical_to_upstream(name: str, field: str) -> None:
    path = corpus(REPO, name)
    data = json.loads(path.read_text(encoding="utf-8"))
    instances = [inst["instance"] for inst in data["instances"]]
    decls = [d for d in data["annotations"] if d.get(field)]
    if not all(_renderable_by_upstream(d[field], instances) for d in decls):
        pytest.skip("upstream's text replacement cannot fill this template (see the rules' findings)")
    fsp = {d["metric"]: set(d.get("fsp_examples_id") or ()) for d in decls}
    expected = {
        (inst["id"], d["metric"]): upstream_render(d[field], inst["instance"])
        for inst in data["instances"]
        for d in decls
        if field != "prompt_fsp" or inst["id"] not in fsp[d["metric"]]
    }
    got = {(p.id, p.metric): p.prompt for p in render_prompts(path, prompt_field=field)}
    assert got.keys() == expected.keys()
    for key, text in expected.items():
        assert got[key].encode("utf-8") == text.encode("utf-8"), key
