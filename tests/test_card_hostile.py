"""`humanjudge card` and `card --check` against hostile input: a card whose text makes a pattern
slow, one the reader refuses (nested too deep, a number out of range, a key twice, bytes that are
not UTF-8), a named pipe, a device or a folder where a card or a data file should be, and a data
file that is a link, whose target must never appear in the card.

Whatever the card holds, the check ends in time linear in its size, with findings, never an
internal error or a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from humanjudge_schema.card import check
from humanjudge_schema.commands import cli

ROOT = Path(__file__).resolve().parent.parent
STUDY1 = ROOT / "examples" / "study1" / "valid"
COGGYM = ROOT / "examples" / "coggym" / "valid"


def _run(*args: str | Path, timeout: float = 120) -> tuple[int, str, str, float]:
    """The command run as a user runs it, in a process of its own: (exit code, stdout, stderr,
    the processor seconds it took, which a busy machine does not inflate as it does the wall
    clock's). A run longer than `timeout` fails the test, where a pattern would run for hours or
    a read wait forever."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    took = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return proc.returncode, proc.stdout, proc.stderr, took


def _cli(*args: str | Path) -> tuple[int, str, str]:
    """The command run in this process: an exception it lets out fails the test."""
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _findings(code: int, out: str, err: str) -> tuple[int, list[dict[str, Any]]]:
    assert "Traceback" not in err and "internal error" not in err, err
    assert code in (0, 1), (code, err)
    return code, json.loads(out)["findings"]


def _check(card: Path, data: Path) -> tuple[int, list[dict[str, Any]]]:
    return _findings(*_cli("card", "--check", card, data, "--format", "json", "-q"))


def _timed(card: Path, data: Path, timeout: float) -> tuple[int, list[dict[str, Any]], float]:
    code, out, err, took = _run("card", "--check", card, data, "--format", "json", "-q", timeout=timeout)
    return (*_findings(code, out, err), took)


@pytest.fixture
def study1(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    """The study-1 example copied, and its card written beside it: (data, card, the card's JSON)."""
    data = tmp_path / "study1"
    shutil.copytree(STUDY1, data)
    card = tmp_path / "croissant.json"
    code, _, err = _cli("card", data, "-o", card, "-q")
    assert code == 0, err
    return data, card, json.loads(card.read_text(encoding="utf-8"))


def _write(path: Path, card: dict[str, Any]) -> Path:
    path.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    return path


# --- time linear in the card ---------------------------------------------------------------------


@pytest.mark.parametrize("chars", [160_000, 1_600_000])
def test_a_long_run_of_digits_and_commas_is_read_once(study1: tuple[Path, Path, dict[str, Any]], chars: int) -> None:
    # "1,1,1,...": the annotators phrase was looked for from every digit after a comma, to the end
    # of the run each time (160,000 characters: minutes; 1,600,000: a hundred times that)
    data, card, doc = study1
    doc["rai:annotatorDemographics"] = ["We had " + "1," * (chars // 2) + "1 annotators."]
    code, findings, took = _timed(_write(card, doc), data, timeout=60)
    assert took < (5 if chars < 1_000_000 else 10), took
    counts = [f for f in findings if f["code"] == "card/annotator-count"]
    assert code == 1 and len(counts) == 1 and counts[0]["pointer"] == "/rai:annotatorDemographics/0"


def test_a_content_size_of_a_million_spaces_is_read_once(study1: tuple[Path, Path, dict[str, Any]]) -> None:
    # `\s*` on either side of an optional unit: quadratic in a run of spaces that ends in no unit
    data, card, doc = study1
    doc["distribution"][0]["contentSize"] = "1" + " " * 1_600_000 + "x"
    code, findings, took = _timed(_write(card, doc), data, timeout=60)
    assert took < 10 and code == 1, took
    assert ("card/file-size", "/distribution/0/contentSize") in {(f["code"], f["pointer"]) for f in findings}
    assert all(len(f["message"]) < 1000 for f in findings)  # the value is quoted as it is (a string): bounded by it


def test_many_stated_counts_are_pointed_at_in_one_pass(study1: tuple[Path, Path, dict[str, Any]]) -> None:
    # 50,000 lines each stating another number: each was looked for again from the list's start,
    # and each finding's line counted from the card's start
    data, card, doc = study1
    doc["rai:annotatorDemographics"] = [f"{n} raters" for n in range(10, 50_010)]
    code, findings, took = _timed(_write(card, doc), data, timeout=90)
    assert took < 20 and code == 1, took
    counts = [f for f in findings if f["code"] == "card/annotator-count"]
    assert len(counts) == 50_000
    assert {f["pointer"] for f in counts} == {f"/rai:annotatorDemographics/{i}" for i in range(50_000)}
    # the text is written with no line feed: every finding is on line 1
    assert {f["line"] for f in counts} == {1}


def test_a_file_named_many_times_is_read_once(
    study1: tuple[Path, Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from humanjudge_schema.card import compare, files

    data, card, doc = study1
    doc["distribution"] = doc["distribution"] * 500
    read: list[Path] = []

    def counted(path: Path) -> Any:
        read.append(path)
        return files.digest(path)

    monkeypatch.setattr(compare, "digest", counted)
    findings = check(_write(card, doc), data)
    assert not [f for f in findings if f.severity == "error"]
    assert sorted(read) == sorted(p for p in data.iterdir() if p.is_file())


def test_the_annotators_phrase_is_found_where_the_pattern_found_it() -> None:
    """The linear reading of "1,000 annotators" finds what `\\b(\\d[\\d,]*)\\s+who\\b` found."""
    from humanjudge_schema.card import rai

    pattern = re.compile(rf"\b(\d[\d,]*)\s+{rai._WHO}\b", re.IGNORECASE)
    pieces = ["1", "2", ",", " ", "\n", "a", "_", "-", ".", "é", "٣", "raters", "Annotators", "workersx"]
    rnd = random.Random(7)
    for _ in range(50_000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 14)))
        expected = [(m.group(1), m.start(), m.end()) for m in pattern.finditer(text)]
        assert list(rai.prose_annotators(text)) == expected, text


def test_placeholders_deep_in_a_card_are_listed_up_to_max_per_code(
    study1: tuple[Path, Path, dict[str, Any]],
) -> None:
    # 5,000 placeholders 500 levels down (each pointer 1,000 characters) and 5,000 under a key of
    # 200,000 characters: at most max-per-code of them are listed, with pointers no longer than
    # the card together, and the rest counted, as validate counts what it does not list
    data, card, doc = study1
    own = {f["pointer"] for f in _check(card, data)[1]}
    node: Any = ["FILL IN: x"] * 5_000
    for _ in range(500):
        node = [node]
    doc["extra"] = node
    doc["K" * 200_000] = ["FILL IN: y"] * 5_000
    size = len(_write(card, doc).read_text())
    _, findings = _check(card, data)
    unfilled = [f for f in findings if f["code"] == "card/unfilled"]
    listed = [f for f in unfilled if not f.get("more")]
    more = [f["more"] for f in unfilled if f.get("more")]
    assert len(own) == 14 and own <= {f["pointer"] for f in listed}  # the card's own come first
    assert len(listed) <= 1_000 and len(listed) + sum(more) == 10_014 and len(more) == 1
    assert sum(len(f["pointer"]) for f in listed) <= size
    # one deeper than a card's own fields keeps its pointer, without a line
    assert {f["line"] for f in listed if f["pointer"].startswith("/extra/")} == {None}


# --- a card the reader refuses, or reads with a finding -----------------------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than 1024 levels deep"),
        ('{"a": ' + "1" * 5_000 + "}", "number too large for a double"),
        ('{"a": 1e999}', "number too large for a double"),
        ("\xff\xfe{}", "UTF-16"),
    ],
    ids=["array-100000-deep", "number-5000-digits", "number-1e999", "utf16"],
)
def test_a_card_the_reader_refuses_is_one_finding(tmp_path: Path, text: str, said: str) -> None:
    card = tmp_path / "card.json"
    card.write_bytes(text.encode("latin-1") if text.startswith("\xff") else text.encode())
    code, out, err, _ = _run("card", "--check", card, STUDY1, "--format", "json", "-q")
    assert code == 1 and "Traceback" not in err and "internal error" not in err, err
    findings = json.loads(out)["findings"]
    assert [f["code"] for f in findings] == ["card/unreadable"]
    assert said in findings[0]["message"] and findings[0]["line"] == 1


def test_a_card_nested_a_thousand_deep_is_compared(study1: tuple[Path, Path, dict[str, Any]]) -> None:
    # within the reader's 1,024 levels, deeper than Python's json and the walks that recursed
    data, card, doc = study1
    doc["extra"] = "@deep@"
    deep = '{"a": ' * 1_000 + '{"b": "FILL IN: deep"}' + "}" * 1_000
    card.write_text(json.dumps(doc).replace('"@deep@"', deep))
    code, findings = _check(card, data)
    deep = [f for f in findings if f["pointer"].startswith("/extra/")]
    assert [f["code"] for f in deep] == ["card/unfilled"] and deep[0]["pointer"].endswith("/a/b")
    assert code == 0


def test_a_number_of_5000_digits_in_the_text_is_a_finding(study1: tuple[Path, Path, dict[str, Any]]) -> None:
    # int() refuses more than 4,300 digits: each stated count was an internal error
    data, card, doc = study1
    digits = "1" * 5_000
    doc["rai:annotatorDemographics"][0] = f"annotators: {digits} persons"
    doc["recordSet"][0]["description"] = re.sub(
        r": \d+ records", f": {digits} records", doc["recordSet"][0]["description"]
    )
    doc["rai:dataCollectionMissingData"] = re.sub(
        r": \d+ missing", f": {digits} missing", doc["rai:dataCollectionMissingData"]
    )
    per_item = doc["rai:annotationsPerItem"].splitlines()
    per_item[0] = re.sub(r"max \d+", f"max {digits}", per_item[0])
    doc["rai:annotationsPerItem"] = "\n".join(per_item)
    code, findings = _check(_write(card, doc), data)
    found = {(f["code"], f["pointer"]) for f in findings if f["severity"] == "error"}
    assert found == {
        ("card/annotator-count", "/rai:annotatorDemographics/0"),
        ("card/record-count", "/recordSet/0/description"),
        ("card/missing-answers", "/rai:dataCollectionMissingData"),
        ("card/annotations-per-item", "/rai:annotationsPerItem"),
    }
    assert code == 1 and all(len(f["message"]) < 500 for f in findings)


def test_a_question_named_with_an_escape_json_has_not_is_a_finding(study1: tuple[Path, Path, dict[str, Any]]) -> None:
    data, card, doc = study1
    doc["rai:dataCollectionMissingData"] = '"bad \\q escape": 3 missing answers'
    doc["rai:annotationsPerItem"] = '"\\u12": min 1, median 1, max 1 annotations per item'
    code, findings = _check(_write(card, doc), data)
    errors = {(f["code"], f["pointer"]) for f in findings if f["severity"] == "error"}
    assert code == 1
    assert errors == {
        ("card/missing-answers", "/rai:dataCollectionMissingData"),
        ("card/annotations-per-item", "/rai:annotationsPerItem"),
    }


@pytest.mark.parametrize("url", ["a\x00b.jsonl.gz", "x/" * 3_000 + "y", "/" * 5_000])
def test_a_content_url_that_is_no_path_is_a_missing_file(study1: tuple[Path, Path, dict[str, Any]], url: str) -> None:
    data, card, doc = study1
    entry = doc["distribution"][0]
    entry["contentUrl"] = entry["name"] = entry["@id"] = url
    code, findings = _check(_write(card, doc), data)
    assert ("card/missing-file", "/distribution/0") in {(f["code"], f["pointer"]) for f in findings}
    assert code == 1


def test_values_of_any_shape_where_strings_go(study1: tuple[Path, Path, dict[str, Any]]) -> None:
    # a list 1,000 deep where a size, a hash or a file name goes is quoted by what it is
    data, card, doc = study1
    doc["distribution"][0]["contentSize"] = "@deep@"
    doc["distribution"][1]["sha256"] = {"a": "@deep@"}
    doc["distribution"][2]["contentUrl"] = doc["distribution"][2]["name"] = doc["distribution"][2]["@id"] = "@deep@"
    card.write_text(json.dumps(doc).replace('"@deep@"', "[" * 1_000 + "]" * 1_000))
    code, findings = _check(card, data)
    said = {(f["code"], f["pointer"]): f["message"] for f in findings}
    assert code == 1
    assert said[("card/file-size", "/distribution/0/contentSize")].startswith("a list, the file has")
    assert said[("card/file-hash", "/distribution/1/sha256")].startswith("an object, the file's sha256")
    assert said[("card/missing-file", "/distribution/2")] == "the dataset holds no file a list"


def test_a_key_given_twice_is_a_finding_at_its_pointer(study1: tuple[Path, Path, dict[str, Any]]) -> None:
    data, card, doc = study1
    text = json.dumps(doc, indent=2)
    # the second "license" is the one read: the check goes on with it
    text = text.replace('\n  "license":', '\n  "license": "CC-BY-4.0",\n  "license":', 1)
    card.write_text(text)
    code, findings = _check(card, data)
    dupes = [f for f in findings if f["code"] == "parse/duplicate-key"]
    assert [(f["pointer"], f["severity"]) for f in dupes] == [("/license", "error")]
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith('  "license": "FILL'))
    assert dupes[0]["line"] == line
    assert ("card/unfilled", "/license") in {(f["code"], f["pointer"]) for f in findings}
    assert code == 1


@pytest.mark.parametrize("depth", [300, 1_000])
def test_a_key_given_twice_deep_in_a_card(study1: tuple[Path, Path, dict[str, Any]], depth: int) -> None:
    # deeper than orjson writes (255) and, at 1,000, deeper than Python's json reads
    data, card, doc = study1
    card.write_text(json.dumps(doc)[:-1] + ', "x": ' + '{"a": ' * depth + '{"b": 1, "b": 2}' + "}" * depth + "}")
    code, findings = _check(card, data)
    dupes = [f for f in findings if f["code"] == "parse/duplicate-key"]
    assert len(dupes) == 1 and code == 1
    if depth == 300:
        assert dupes[0]["pointer"] == "/x" + "/a" * depth + "/b" and dupes[0]["line"] == 1
    else:
        assert dupes[0]["pointer"] == "" and "too deep" in dupes[0]["message"]


def test_bytes_that_are_not_utf8_are_a_finding(study1: tuple[Path, Path, dict[str, Any]]) -> None:
    data, card, doc = study1
    doc["distribution"][0]["sha256"] = "0" * 64
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    raw = text.replace('"license": "FILL IN:', '"license": "FILL IN: caf\udce9', 1).encode("utf-8", "surrogateescape")
    card.write_bytes(raw)
    code, findings = _check(card, data)
    bad = [f for f in findings if f["code"] == "parse/invalid-utf8"]
    line = raw[: raw.index(b"\xe9")].count(b"\n") + 1
    assert [(f["pointer"], f["line"], f["severity"]) for f in bad] == [("", line, "error")]
    assert "0xe9" in bad[0]["message"]
    # the rest is compared: the bad byte is replaced, as a reader that goes on would
    found = {(f["code"], f["pointer"]) for f in findings}
    assert ("card/file-hash", "/distribution/0/sha256") in found and ("card/unfilled", "/license") in found
    assert code == 1


def test_a_byte_order_mark_is_a_finding_and_the_card_is_read(study1: tuple[Path, Path, dict[str, Any]]) -> None:
    data, card, doc = study1
    doc["distribution"][0]["sha256"] = "0" * 64
    card.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc, indent=2).encode())
    code, findings = _check(card, data)
    found = {(f["code"], f["pointer"]) for f in findings}
    assert ("parse/bom", "") in found and ("card/file-hash", "/distribution/0/sha256") in found
    assert code == 1


# --- what is opened: regular files only ----------------------------------------------------------


def _special(path: Path, kind: str) -> None:
    """Put a named pipe, a link to /dev/zero or a folder at `path`."""
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()


KINDS = ["fifo", "device", "folder"]
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="POSIX only")


@needs_fifo
@pytest.mark.parametrize("kind", KINDS)
def test_a_card_that_is_no_regular_file_is_refused_unread(tmp_path: Path, kind: str) -> None:
    card = tmp_path / "card.json"
    _special(card, kind)
    code, out, err, _ = _run("card", "--check", card, STUDY1, "--format", "json", "-q", timeout=60)
    assert code == 1 and "Traceback" not in err, err
    findings = json.loads(out)["findings"]
    assert [f["code"] for f in findings] == ["card/unreadable"]
    assert {"fifo": "named pipe", "device": "character device", "folder": "folder"}[kind] in findings[0]["message"]


@needs_fifo
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["config.json", "human_data_ind.json", "trial.jsonl"])
def test_a_data_file_that_is_no_regular_file_is_refused_unread(tmp_path: Path, kind: str, name: str) -> None:
    data = tmp_path / "exp"
    shutil.copytree(COGGYM, data)
    card = tmp_path / "croissant.json"
    assert _cli("card", data, "-o", card, "-q")[0] == 0
    _special(data / name, kind)
    # writing: a file that cannot be read is one line and exit code 2, or no file of the dataset
    code, out, err, _ = _run("card", data, "-q", timeout=60)
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and name in err
    else:
        assert name not in {o["name"] for o in json.loads(out)["distribution"]}
    # checking: the card's FileObject of the file is a finding
    index = next(i for i, o in enumerate(json.loads(card.read_text())["distribution"]) if o["name"] == name)
    code, findings, _ = _timed(card, data, timeout=60)
    assert code == 1 and ("card/missing-file", f"/distribution/{index}") in {
        (f["code"], f["pointer"]) for f in findings
    }


# --- links: named as given, never by their target -----------------------------------------------


def _linked(tmp_path: Path) -> tuple[Path, Path]:
    """A CogGym experiment whose human_data_ind.json is a link into a private folder: (the
    experiment's folder, the private folder)."""
    private = tmp_path / "home" / "user" / "private-target-4711"
    private.mkdir(parents=True)
    data = tmp_path / "public" / "exp"
    shutil.copytree(COGGYM, data)
    (data / "human_data_ind.json").rename(private / "secret-name.json")
    (data / "human_data_ind.json").symlink_to(private / "secret-name.json")
    return data, private


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="links")
@pytest.mark.parametrize("where", ["beside", "elsewhere", "stdout"])
def test_a_linked_data_file_is_named_as_given(tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data, private = _linked(tmp_path)
    cards = {"beside": data.parent, "elsewhere": tmp_path / "cards"}
    if where == "stdout":
        monkeypatch.chdir(data.parent)
        code, text, err = _cli("card", "exp", "-q")
        assert code == 0, err
        folder = data.parent
        card = tmp_path / "stdout.json"
        card.write_text(text)
    else:
        folder = cards[where]
        folder.mkdir(exist_ok=True)
        card = folder / "croissant.json"
        assert _cli("card", data, "-o", card, "-q")[0] == 0
        text = card.read_text()
    for secret in ("private-target-4711", "secret-name", str(private), "home/user"):
        assert secret not in text
    entry = next(e for e in json.loads(text)["distribution"] if e["name"] == "human_data_ind.json")
    assert Path(os.path.normpath(folder / entry["contentUrl"])) == data / "human_data_ind.json"
    assert entry["sha256"] == hashlib.sha256((private / "secret-name.json").read_bytes()).hexdigest()
    if where != "stdout":
        code, findings = _check(card, data)
        assert code == 0 and {f["code"] for f in findings} == {"card/unfilled"}


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="links")
def test_a_dataset_folder_given_through_a_link_is_named_as_given(tmp_path: Path) -> None:
    real = tmp_path / "private-store-4711" / "exp"
    shutil.copytree(COGGYM, real)
    link = tmp_path / "exp-link"
    link.symlink_to(real, target_is_directory=True)
    card = tmp_path / "croissant.json"
    assert _cli("card", link, "-o", card, "-q")[0] == 0
    text = card.read_text()
    assert "private-store-4711" not in text
    urls = {e["contentUrl"] for e in json.loads(text)["distribution"]}
    assert "exp-link/config.json" in urls
    code, findings = _check(card, link)
    assert code == 0 and {f["code"] for f in findings} == {"card/unfilled"}
