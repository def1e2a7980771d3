"""What a hostile pull request cannot make the validator do: run its templates for long, reach
the network (through a schema's $ref, a document's data, or anything else), leave half-written
files behind, show paths outside the checked tree, or forge GitHub workflow commands."""

from __future__ import annotations

import errno
import http.server
import io
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any, ClassVar

import jinja2
import jsonschema_rs
import pytest

from humanjudge_schema import render_prompts, validate, writing
from humanjudge_schema.commands import main
from humanjudge_schema.finding import escape_control, pointer
from humanjudge_schema.formats.textjudge.prompts import MAX_RENDER_SECONDS, TemplateError, inspect_template
from humanjudge_schema.schemas import available, compile_schema, validator

from .conftest import ROOT, NetworkBlocked, snapshot
from .helpers import tiny_dataset

EXAMPLES = ROOT / "examples"


def cli(*args: str) -> tuple[int, str, str]:
    """The command in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


# --- templates: never executed when unsafe, never for long when safe ---------------------------------

MB = "x" * 1_000_000
SLOW = [
    pytest.param("{{ text|wordcount }}" * 3000, {"text": MB}, id="wordcount"),
    pytest.param("{% if text|lower == 'x' %}{% endif %}" * 2000, {"text": MB}, id="filter-in-condition"),
    pytest.param("{% if a == b %}{% endif %}" * 3000, {"a": MB * 20, "b": MB * 20}, id="comparisons"),
    pytest.param("{% if a[1:] %}{% endif %}" * 3000, {"a": MB * 5}, id="slices"),
    pytest.param("{{ a|upper|length }}" * 3000, {"a": MB}, id="output"),
]


# How much larger each slow case's values are made for the time-limit test, so that rendering
# it whole takes 20-30 s on one core (measured). Stopping takes 1-2.5 s on a loaded 2-core
# machine (most of it compiling the template, before the clock starts): within 8 s proves the
# limit works, with a margin that holds under load.
HEAVIER = {"wordcount": 2, "filter-in-condition": 10, "comparisons": 3, "slices": 10, "output": 5}


@pytest.mark.parametrize(("template", "fields"), SLOW)
def test_rendering_stops_at_the_time_limit(
    template: str, fields: dict[str, str], request: pytest.FixtureRequest
) -> None:
    assert inspect_template(template).unsafe == ()  # allowed constructs, only slow
    n = HEAVIER[request.node.callspec.id]
    data = tiny_dataset(template, {k: v * n for k, v in fields.items()})
    started = time.perf_counter()
    with pytest.raises(TemplateError, match=r"takes longer than 0\.2 s to render; rendering stopped"):
        list(render_prompts(data, max_seconds=0.2))
    assert time.perf_counter() - started < 8


def test_fast_templates_are_not_slowed_by_the_clock() -> None:
    template = "Q: {{ q|trim }} {% if r == 'x' %}{{ r|upper }}{% else %}{{ s.t }}{% endif %} {{ u[0] }}\n"
    data = tiny_dataset(template, {"q": " a ", "r": "x", "s": {"t": 1}, "u": ["v"]})
    data["instances"] *= 2000
    started = time.perf_counter()
    prompts = list(render_prompts(data))
    assert len(prompts) == 2000 and prompts[0].prompt == "Q: a X v\n"
    assert time.perf_counter() - started < 5


def test_the_default_time_limit_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(tiny_dataset("{{ text|wordcount }}" * 4000, {"text": "word " * 400_000})))
    out = tmp_path / "prompts.txt"
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "render", str(path), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert time.perf_counter() - started < MAX_RENDER_SECONDS + 10
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1 and f"longer than {MAX_RENDER_SECONDS:g} s" in proc.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == [path]


# Known ways out of a Jinja template that tests/test_textjudge_security.py does not list: escaped
# underscores, other containers' classes, Flask's globals, and the clock filter itself.
MORE_PAYLOADS = [
    "{{ instance['\\x5f\\x5fclass\\x5f\\x5f'] }}",
    "{{ instance['\\u005f\\u005fclass\\u005f\\u005f'] }}",
    "{{ instance['\\137\\137class\\137\\137'] }}",
    "{{ [].__class__.__base__.__subclasses__() }}",
    "{{ ().__class__.__bases__[0] }}",
    "{{ {}.__class__ }}",
    "{{ instance.__getitem__ }}",
    "{{ instance|_tick }}",
    "{{ url_for.__globals__ }}",
    "{{ get_flashed_messages.__globals__['os'] }}",
    "{{ request.application.__globals__ }}",
    "{{ instance['_' ~ '_class__'] }}",
    "{{ instance[instance|length] }}",
    "{% if instance.__class__ %}{% endif %}",
    "{{ instance if instance.__len__ else instance }}",
]


@pytest.fixture
def nothing_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a refused template was compiled or run")

    monkeypatch.setattr(jinja2.Environment, "compile", forbidden)
    monkeypatch.setattr(jinja2.Template, "render", forbidden)
    monkeypatch.setattr(jinja2.Template, "generate", forbidden)


@pytest.mark.parametrize("payload", MORE_PAYLOADS)
def test_more_payloads_are_reported_and_never_run(payload: str, tmp_path: Path, nothing_runs: None) -> None:
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(tiny_dataset(payload + " {{ instance }}")))
    found = {(f.code, f.pointer) for f in validate([path], kind="textjudge").findings}
    assert found & {
        ("textjudge/template-unsafe", "/annotations/0/prompt"),
        ("textjudge/template-syntax", "/annotations/0/prompt"),
        ("textjudge/template-variable", "/annotations/0/prompt"),
    }, found
    with pytest.raises(TemplateError):
        list(render_prompts(tiny_dataset(payload + " {{ instance }}")))


# --- no network -------------------------------------------------------------------------------------


def test_the_suite_blocks_the_network(_no_network: list[str]) -> None:
    with pytest.raises(NetworkBlocked):
        socket.create_connection(("192.0.2.1", 80), timeout=1)
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("pypi.org", 443)
    assert len(_no_network) == 2
    _no_network.clear()  # seen; the fixture would fail the test otherwise


class _Recorder(http.server.BaseHTTPRequestHandler):
    """A web server on the loopback interface that records every request it gets."""

    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(self.path)
        body = b'{"type": "integer"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/schema+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_CONNECT = do_GET  # a proxy's tunnel request

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """(base URL, requests seen) of a recording web server on 127.0.0.1."""
    seen: list[str] = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("where", ["root", "property", "defs"])
def test_a_remote_ref_in_a_schema_is_refused_not_fetched(where: str, server: tuple[str, list[str]]) -> None:
    url, seen = server
    ref = {"$ref": f"{url}/schema.json"}
    schema: dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    if where == "root":
        schema.update(ref)
    elif where == "property":
        schema["properties"] = {"a": ref}
    else:
        schema["$defs"] = {"a": ref}
        schema["properties"] = {"a": {"$ref": "#/$defs/a"}}
    with pytest.raises(jsonschema_rs.ValidationError, match=r"refused to fetch http://127\.0\.0\.1"):
        compile_schema(schema)
    assert seen == []


def test_an_https_ref_is_refused_before_any_connection() -> None:
    with pytest.raises(jsonschema_rs.ValidationError, match=r"refused to fetch https://example\.org/s\.json"):
        compile_schema({"$ref": "https://example.org/s.json"})


def test_local_refs_still_resolve() -> None:
    check = compile_schema({"properties": {"a": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "integer"}}})
    assert check.is_valid({"a": 1}) and not check.is_valid({"a": "1"})
    for name in available():
        assert validator(name) is not None


def test_every_schema_is_compiled_by_compile_schema() -> None:
    """jsonschema-rs is called in one place, the one that refuses retrieval."""
    for path in sorted((ROOT / "humanjudge_schema").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name != "schemas.py":
            assert "jsonschema_rs." not in text and "import jsonschema\n" not in text, path


def _ref_everywhere(url: str) -> dict[str, Any]:
    data = tiny_dataset("Is it fine? {{ text }}", {"text": "fine", "$ref": f"{url}/instance.json"})
    data["$ref"] = f"{url}/dataset.json"
    data["$schema"] = f"{url}/schema.json"
    data["annotations"][0]["$id"] = f"{url}/decl.json"
    return data


def test_a_ref_in_a_document_is_data(tmp_path: Path, server: tuple[str, list[str]]) -> None:
    url, seen = server
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(_ref_everywhere(url)))
    codes = sorted({f.code for f in validate([path], kind="textjudge").findings})
    assert codes == ["schema/additional-properties"] or codes == [], codes
    assert not any(c.startswith(("engine/", "parse/")) for c in codes)
    assert seen == []


def test_the_command_makes_no_request_even_through_a_proxy(tmp_path: Path, server: tuple[str, list[str]]) -> None:
    """The whole process, the schema engine's own HTTP client included, with every proxy pointed at
    a recording server: it sees nothing."""
    url, seen = server
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    (tmp_path / "refs.json").write_text(json.dumps(_ref_everywhere("http://198.51.100.7")))
    proxies = {k: url for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")}
    for args in (["validate", "examples"], ["validate", "--kind", "textjudge", "refs.json"], ["render", "refs.json"]):
        proc = subprocess.run(
            [sys.executable, "-m", "humanjudge_schema", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, **proxies, "NO_PROXY": ""},
        )
        assert proc.returncode in (0, 1), proc.stderr
    assert seen == []


# --- writers: atomic, never a partial file --------------------------------------------------------


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _half_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file opened by write_atomic takes half of what it is given, then the disk is full."""
    real_fdopen = os.fdopen

    class Half(io.FileIO):
        def write(self, data: Any) -> int:
            super().write(bytes(data)[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "w" in mode:
            return Half(fd, "w")
        return real_fdopen(fd, mode, *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", fdopen)  # the module aggregate writes with


def _failing_replace(monkeypatch: pytest.MonkeyPatch) -> None:
    def replace(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "replace", replace)


FAILURES = {"write": _half_writer, "replace": _failing_replace}


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_write_atomic_leaves_the_old_file_or_none(
    failure: str, existing: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.json"
    if existing:
        target.write_bytes(b"old")
    FAILURES[failure](monkeypatch)
    with pytest.raises(writing.WriteError, match=r"^cannot write .*out\.json: "):
        writing.write_atomic(target, b"new content" * 1000)
    assert (target.read_bytes() if target.exists() else None) == (b"old" if existing else None)
    assert _leftovers(tmp_path) == [] and sorted(tmp_path.iterdir()) == ([target] if existing else [])


def test_write_atomic_keeps_the_permissions(tmp_path: Path) -> None:
    existing = tmp_path / "shared.json"
    existing.write_bytes(b"old")
    existing.chmod(0o644)
    writing.write_atomic(existing, b"new")
    assert stat.S_IMODE(existing.stat().st_mode) == 0o644 and existing.read_bytes() == b"new"
    fresh = tmp_path / "fresh.json"
    umask = os.umask(0o022)
    try:
        writing.write_atomic(fresh, b"x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644  # what open() gives, not mkstemp's 0600


def _coggym(tmp_path: Path) -> Path:
    folder = tmp_path / "exp"
    shutil.copytree(EXAMPLES / "coggym" / "valid", folder)
    return folder


def _textjudge(tmp_path: Path) -> Path:
    path = tmp_path / "dataset.json"
    shutil.copy(EXAMPLES / "textjudge" / "valid" / "dataset.json", path)
    return path


Command = tuple[Callable[[Path], Path], Callable[[Path], list[str]], Callable[[Path], Path] | None]
COMMANDS: dict[str, Command] = {
    "aggregate-coggym": (_coggym, lambda p: ["aggregate", str(p), "--force"], lambda p: p / "human_data_mean.json"),
    "aggregate-textjudge-o": (_textjudge, lambda p: ["aggregate", str(p), "-o", str(p.parent / "fixed.json")], None),
    "aggregate-textjudge-in-place": (_textjudge, lambda p: ["aggregate", str(p), "--in-place"], lambda p: p),
    "render-o": (_textjudge, lambda p: ["render", str(p), "-o", str(p.parent / "prompts.txt")], None),
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_write_that_fails_leaves_no_partial_file(
    command: str, failure: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build, args, target_of = COMMANDS[command]
    path = build(tmp_path)
    before = snapshot(tmp_path)
    FAILURES[failure](monkeypatch)
    code, _, err = cli(*args(path))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert snapshot(tmp_path) == before  # the old file as it was, and nothing new
    if target_of is not None:
        assert target_of(path).exists()


# --- paths: what findings show -------------------------------------------------------------------


def test_a_link_out_of_the_tree_shows_the_link_not_its_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "zq-outside" / "private-name"
    outside.mkdir(parents=True)
    (outside / "secret.json").write_bytes(b'{"participants_info": {"count": 1,}}')
    (outside / "folder").mkdir()
    shutil.copytree(EXAMPLES / "coggym" / "broken", outside / "folder" / "exp")
    tree = tmp_path / "repo" / "exp"
    tree.mkdir(parents=True)
    (tree / "human_data_ind.json").symlink_to(outside / "secret.json")
    (tree / "trial.jsonl").symlink_to(outside / "gone.jsonl")  # dangling
    (tmp_path / "repo" / "linked-folder").symlink_to(outside / "folder", target_is_directory=True)
    monkeypatch.chdir(tmp_path / "repo")
    for fmt in ("text", "json", "github", "sarif"):
        code, out, err = cli("validate", "--format", fmt, ".")
        assert code == 1, err
        assert "zq-outside" not in out + err and "private-name" not in out + err and "secret" not in out + err
    findings = json.loads(cli("validate", "--format", "json", ".")[1])["findings"]
    assert {(f["file"], f["code"]) for f in findings} == {
        ("exp/human_data_ind.json", "parse/invalid-json"),
        ("exp/trial.jsonl", "parse/unreadable"),
        ("exp/trial.jsonl", "dataset/missing-companion"),  # no config.json, no mean file
    }


# --- GitHub workflow commands from hostile names and values ---------------------------------------


def _unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_hostile_names_and_values_cannot_forge_workflow_commands(tmp_path: Path) -> None:
    folder = tmp_path / "exp %0A,ti:tle=x\r\n::error::forged"
    folder.mkdir()
    key = "k\r\n::warning file=x::forged %0A, :"
    (folder / "human_data_ind.json").write_text(
        '{"participants_info": {"count": 1, "age": 1, "gender": {}}, '
        + f"{json.dumps(key)}: {{}}, {json.dumps(key)}: {{}}}}"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "validate", "--format", "github", folder.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    findings = json.loads(
        subprocess.run(
            [sys.executable, "-m", "humanjudge_schema", "validate", "--format", "json", folder.name],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    )["findings"]
    assert proc.returncode == 1 and findings
    lines = proc.stdout.split("\n")
    assert lines[-1] == ""
    commands = [line for line in lines if line.startswith("::")]
    assert len(commands) == len(findings)  # one line per finding: no line was split or injected
    assert lines[len(commands)].endswith(" in 1 file.") and len(lines) == len(commands) + 2
    for line, f in zip(commands, findings, strict=True):
        head, message = line[2:].split("::", 1)
        severity, props = head.split(" ", 1)
        fields = dict(p.split("=", 1) for p in props.split(","))
        assert severity == f["severity"]
        assert _unescape(fields["file"]) == f["file"] and _unescape(fields["title"]) == f["code"]
        assert _unescape(message).startswith(f["message"])
        assert "\r" not in line


# --- text output from hostile names and values ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain: é, 日本, \\n, 100%", "plain: é, 日本, \\n, 100%"),
        ("a\nb\r\tc", "a\\nb\\r\\tc"),
        ("\x00\x1b[2J\x7f", "\\x00\\x1b[2J\\x7f"),
        ("\x85\x9b", "\\x85\\x9b"),
        ("\u2028\u2029", "\\u2028\\u2029"),
        ("\u202e\u2066\u200f\u061c", "\\u202e\\u2066\\u200f\\u061c"),
        ("exp\udcff", "exp\\udcff"),
    ],
    ids=["printable", "line-breaks-and-tab", "c0-and-del", "c1", "separators", "bidi", "lone-surrogate"],
)
def test_escape_control(text: str, shown: str) -> None:
    assert escape_control(text) == shown


# What must never reach a terminal raw: every control character but the line feeds that end lines.
_RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def test_hostile_names_and_values_cannot_forge_lines_of_the_text_format(tmp_path: Path) -> None:
    """A folder name and a key that hold a line feed, a carriage return, terminal escapes, Unicode
    line separators and a right-to-left override: the text format prints each finding on one line
    with those characters escaped, and the JSON format keeps them exact."""
    folder = tmp_path / "exp\nother.json:1:1: error parse-invalid-json forged\r\x1b[2K\u2028\u202e"
    folder.mkdir()
    key = "k\nexp/config.json:1:1: error coggym/unknown-tag forged\x1b[31m\u2029\x85"
    (folder / "human_data_ind.json").write_text(
        '{"participants_info": {"count": 1, "age": 1, "gender": {}}, '
        + f"{json.dumps(key)}: {{}}, {json.dumps(key)}: {{}}}}"
    )

    def run(fmt: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "humanjudge_schema", "validate", "--no-progress", "--format", fmt, folder.name],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="strict",
            timeout=60,
        )

    text, exact = run("text"), run("json")
    findings = json.loads(exact.stdout)["findings"]
    assert text.returncode == exact.returncode == 1
    assert any("\n" in f["file"] for f in findings) and any(f["pointer"] == pointer(key) for f in findings)
    assert not _RAW_CONTROL.search(text.stdout)
    lines = text.stdout.split("\n")
    assert lines[-1] == "" and len(lines) == len(findings) + 2  # a line a finding, the tally, the end
    for line, f in zip(lines, findings, strict=False):
        where = ":".join([escape_control(f["file"]), *(str(f[k]) for k in ("line", "column") if f[k] is not None)])
        at = f" (at {escape_control(f['pointer'])})" if f["pointer"] else ""
        assert line == f"{where}: {f['severity']} {f['code']} {escape_control(f['message'])}{at}"
        assert line.startswith("exp\\nother.json:1:1: error parse-invalid-json forged\\r\\x1b[2K\\u2028\\u202e/")
