"""`render_prompts` and `humanjudge render`: what is rendered with what, in which order, and how
selections that do not exist are reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import humanjudge_schema
from humanjudge_schema import Prompt, render_prompts
from humanjudge_schema.formats.textjudge.prompts import DatasetError, TemplateError

from .conftest import CASES, ROOT

TRANSLATION = CASES / "textjudge" / "valid" / "translation-object-instances" / "dataset.json"
WMT23 = CASES / "textjudge" / "invalid" / "template-variable-wmt23-target" / "dataset.json"
NULLS = CASES / "textjudge" / "valid" / "null-response-fields" / "dataset.json"
VALID_EXAMPLE = ROOT / "examples" / "textjudge" / "valid" / "dataset.json"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "render", *args], capture_output=True, text=True, timeout=60
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc


def _tiny(prompt: str, instances: list[Any]) -> dict[str, Any]:
    return {
        "annotations": [{"metric": "m", "category": "graded", "prompt": prompt, "worst": 1, "best": 5}],
        "instances": [{"id": i, "instance": x, "annotations": {}} for i, x in enumerate(instances)],
    }


def test_the_api_is_exported() -> None:
    assert {"render_prompts", "Prompt"} <= set(humanjudge_schema.__all__)
    assert humanjudge_schema.render_prompts is render_prompts


def test_string_instances_fill_instance_and_trailing_newlines_stay() -> None:
    prompts = list(render_prompts(_tiny("Rate:\n\n{{ instance }}\n\n", ["A b.", "C d."])))
    assert prompts == [Prompt(0, "m", "Rate:\n\nA b.\n\n"), Prompt(1, "m", "Rate:\n\nC d.\n\n")]


def test_object_fields_are_variables_and_null_is_empty() -> None:
    prompts = list(render_prompts(NULLS))
    assert [p.id for p in prompts] == ["medical-safety-0-response-a", "medical-safety-0-response-b"]
    assert prompts[0].prompt.endswith("Response: \n")
    assert prompts[1].prompt.endswith("Response: Ask a pharmacist.\n")


def test_falsy_values_render_as_upstream_does() -> None:
    [p] = render_prompts(_tiny("[{{ a }}|{{ b }}|{{ c }}|{{ d }}]", [{"a": None, "b": False, "c": 0, "d": []}]))
    assert p.prompt == "[|||]"


def test_a_dataset_or_a_path_gives_the_same_prompts() -> None:
    data = json.loads(TRANSLATION.read_text())
    assert list(render_prompts(data)) == list(render_prompts(TRANSLATION)) == list(render_prompts(str(TRANSLATION)))


def test_paraphrases_and_fsp_exclusions() -> None:
    fsp = list(render_prompts(TRANSLATION, prompt_field="prompt_fsp"))
    assert [p.id for p in fsp] == [1, 2]  # instance 0 is the few-shot example
    assert "Context: News article." in fsp[0].prompt
    para = list(render_prompts(TRANSLATION, prompt_field="prompt_paraphrase_1", instance=2))
    assert para == [Prompt(2, "quality", para[0].prompt)]
    assert 'German source: "Ich trinke Kaffee."' in para[0].prompt
    assert 'English translation: "I drink a bridge."' in para[0].prompt


def test_instance_ids_from_the_command_line_match_numbers() -> None:
    assert [p.id for p in render_prompts(TRANSLATION, instance="1")] == [1]


def test_order_is_instance_by_instance_metrics_in_declaration_order() -> None:
    case = CASES / "textjudge" / "valid" / "majority-ties" / "dataset.json"
    assert [(p.id, p.metric) for p in render_prompts(case)] == [
        (1, "fluency"),
        (1, "grammatical"),
        (2, "fluency"),
        (2, "grammatical"),
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metric": "nope"}, "no metric 'nope'; the dataset declares 'quality'"),
        ({"prompt_field": "prompt_paraphrase_9"}, "no metric has a prompt_paraphrase_9"),
        ({"metric": "quality", "prompt_field": "prompt_paraphrase_7"}, "metric 'quality' has no prompt_paraphrase_7"),
        ({"prompt_field": "instructions"}, "'instructions' is not a prompt field"),
        ({"instance": 42}, "no instance with id 42"),
        ({"instance": 0, "prompt_field": "prompt_fsp"}, "instance 0 is a few-shot example of every selected metric"),
    ],
)
def test_selections_that_do_not_exist(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(DatasetError, match=message.replace("(", r"\(")):
        render_prompts(TRANSLATION, **kwargs)


def test_everything_is_checked_before_the_first_prompt() -> None:
    data = _tiny("{{ instance }}", ["a", {"text": "b"}])
    with pytest.raises(TemplateError, match="uses instance, which instance 1 does not have"):
        render_prompts(data)  # raised by the call itself, not half-way through the iteration


def test_the_wmt23_target_defect_is_refused() -> None:
    assert len(list(render_prompts(WMT23, prompt_field="prompt_paraphrase_1"))) == 3
    with pytest.raises(TemplateError, match="prompt_paraphrase_2 of metric 'quality' uses target"):
        render_prompts(WMT23, prompt_field="prompt_paraphrase_2")


def test_not_a_dataset(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"annotations": [], "instances": [{"id": 1}]}')
    with pytest.raises(DatasetError, match="/instances/0 has no instance text"):
        render_prompts(bad)
    bad.write_text("{")
    with pytest.raises(DatasetError, match=r"bad\.json"):
        render_prompts(bad)


def test_declarations_without_category_still_render() -> None:
    data = _tiny("{{ instance }}", ["a"])
    del data["annotations"][0]["category"]
    assert [p.prompt for p in render_prompts(data)] == ["a"]


# --- the command ----------------------------------------------------------------------------


def test_cli_jsonl(tmp_path: Path) -> None:
    proc = run(str(TRANSLATION), "--format", "jsonl", "--prompt-field", "prompt_paraphrase_2")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [list(r) for r in rows] == [["id", "metric", "prompt"]] * 3
    assert [r["id"] for r in rows] == [0, 1, 2]
    assert rows == [
        {"id": p.id, "metric": p.metric, "prompt": p.prompt}
        for p in render_prompts(TRANSLATION, prompt_field="prompt_paraphrase_2")
    ]


def test_cli_text_and_output_file(tmp_path: Path) -> None:
    out = tmp_path / "prompts.txt"
    proc = run(str(VALID_EXAMPLE), "--metric", "fluency", "--instance", "s2", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and "wrote 1 prompt to" in proc.stderr
    text = out.read_text()
    assert text.startswith("==> id 's2', metric 'fluency' <==\n")
    assert text.endswith("\n\n")


def test_cli_does_not_write_over_the_dataset(tmp_path: Path) -> None:
    copy = tmp_path / "dataset.json"
    copy.write_bytes(TRANSLATION.read_bytes())
    proc = run(str(copy), "-o", str(copy))
    assert proc.returncode == 2 and "which the output is computed from; write elsewhere" in proc.stderr
    assert copy.read_bytes() == TRANSLATION.read_bytes()


def test_cli_usage_errors_exit_2_and_template_refusals_exit_1() -> None:
    assert run(str(TRANSLATION), "--metric", "nope").returncode == 2
    assert run(str(TRANSLATION), "--prompt-field", "bogus").returncode == 2
    proc = run(str(WMT23), "--prompt-field", "prompt_paraphrase_2")
    assert proc.returncode == 1 and proc.stdout == ""
    assert "uses target" in proc.stderr


# --- memory: prompts are written as they are rendered -----------------------------------------------

_MEASURED = """
import json, os, resource, subprocess, sys
limit, out = int(sys.argv[1]), sys.argv[2]
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
with open(out, "wb") as o:
    p = subprocess.Popen([sys.executable, "-m", "humanjudge_schema", *sys.argv[3:]], stdin=subprocess.DEVNULL,
                         stdout=o, stderr=subprocess.PIPE, preexec_fn=cap)
    err = p.stderr.read().decode()
    _, status, usage = os.wait4(p.pid, 0)
    p.stderr.close()
rss = usage.ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)  # bytes on macOS, KiB elsewhere
print(json.dumps({"rc": os.waitstatus_to_exitcode(status), "rss_mb": rss, "stderr": err}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux counts it")
@pytest.mark.parametrize("to", ["file", "stdout", "refused at the last prompt"])
def test_a_template_repeating_a_field_renders_in_bounded_memory(to: str, tmp_path: Path) -> None:
    # 0.5 MB of data whose template repeats {{ instance }} 1,000 times: 183 MB of prompts, which
    # the command held three times over before writing any (550 MB; 3.7 GB for 3.4 MB of data).
    data = _tiny("Rate:\n" + "{{ instance }}\n" * 1000, ["The cat sat on the mat. " * 2 + "x" * 11] * 3000)
    if to == "refused at the last prompt":
        data["instances"][-1]["instance"] = "y" * 2000  # a 2 MB prompt: over the limit
    dataset = tmp_path / "dataset.json"
    dataset.write_text(json.dumps(data))
    out, captured = tmp_path / "prompts.txt", tmp_path / "stdout"
    out.write_bytes(b"old prompts\n")
    args = ["render", str(dataset), *(["-o", str(out), "--force"] if to != "stdout" else [])]
    probe = subprocess.run(
        [sys.executable, "-c", _MEASURED, str(1 << 30), str(captured), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    measured = json.loads(probe.stdout)
    assert "Traceback" not in measured["stderr"]
    assert measured["rss_mb"] < 100, measured  # about 40 MB
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataset.json", "prompts.txt", "stdout"]  # no .tmp
    if to == "refused at the last prompt":
        assert measured["rc"] == 1 and "is larger than 1,000,000 bytes" in measured["stderr"]
        assert out.read_bytes() == b"old prompts\n"
        return
    assert measured["rc"] == 0, measured
    written = captured if to == "stdout" else out
    prompt = "Rate:\n" + (data["instances"][0]["instance"] + "\n") * 1000
    first = f"==> id 0, metric 'm' <==\n{prompt}\n"
    headers = sum(len(f"==> id {i}, metric 'm' <==\n") for i in range(3000))
    assert written.stat().st_size == headers + 3000 * (len(prompt) + 1)
    with written.open("rb") as f:
        assert f.read(len(first)).decode() == first


def test_render_replaces_an_existing_file_only_with_force(tmp_path: Path) -> None:
    out = tmp_path / "prompts.txt"
    out.write_text("kept\n")
    proc = run(str(VALID_EXAMPLE), "--metric", "fluency", "--instance", "s2", "-o", str(out))
    assert proc.returncode == 2 and proc.stderr == f"humanjudge: {out} exists: use --force to overwrite it\n"
    assert out.read_text() == "kept\n"
    proc = run(str(VALID_EXAMPLE), "--metric", "fluency", "--instance", "s2", "-o", str(out), "--force")
    assert proc.returncode == 0 and out.read_text() != "kept\n"
