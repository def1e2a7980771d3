"""Read once: a dataset checked as its judgments are read (validation.Reading, a format's
`checked`) gives the findings `validate` gives and the rows its view gives, byte for byte, and
so does `validate --quality`, whose quality checks read what the check reads.

Each case, example and corpus dataset is read both ways: with the formats as declared, and with
their `checked` taken away (the check runs, then the view reads the files again, as before).
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import catalog, kinds
from humanjudge_schema.formats.textjudge import stream as textjudge_stream
from humanjudge_schema.judgments.view import FirstPass
from humanjudge_schema.reading import Reading
from humanjudge_schema.validation import validate

from .conftest import CORPUS, ROOT
from .helpers import tiny_dataset

# Every format of the catalog: its cases and its examples, where it has them.
FORMATS = list(catalog.formats())
FOLDERS = [p for name in FORMATS if (p := ROOT / "tests" / "cases" / name).is_dir()]
FOLDERS += [p for name in FORMATS if (p := ROOT / "examples" / name).is_dir()]


def _apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every format's check and view read the files each for itself."""
    for name, fmt in list(catalog.formats().items()):
        monkeypatch.setitem(catalog.formats(), name, replace(fmt, checked=None))


def _findings(found: list[Any]) -> list[tuple[Any, ...]]:
    return [(f.code, f.severity.value, f.file, f.pointer, f.line, f.column, f.message, f.more) for f in found]


def _read(path: Path) -> tuple[list[tuple[Any, ...]], list[list[tuple[Any, ...]]], list[tuple[Any, ...]]]:
    """What a Reading of the path gives: its findings, each dataset's rows (first pass) and the
    rows of a second pass over the last dataset's view."""
    reading = Reading([path], skip_unknown=True)
    rows: list[list[tuple[Any, ...]]] = []
    again: list[tuple[Any, ...]] = []
    for unit in reading.units:
        if catalog.get(unit.family).judgments is None:
            continue
        view = reading.view(unit)
        if view is None:
            continue
        rows.append([tuple(r) for r in view.rows()])
        again = [tuple(r) for r in view.rows()]
    return _findings(reading.result().findings), rows, again


def _both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found, rows, again = _read(path)
    checked = _findings(validate([path], skip_unknown=True, quality=True).findings)
    with monkeypatch.context() as apart:
        _apart(apart)
        assert _read(path) == (found, rows, again)
        assert _findings(validate([path], skip_unknown=True).findings) == found
        assert _findings(validate([path], skip_unknown=True, quality=True).findings) == checked
    if rows:
        assert again == rows[-1]  # a second pass reads the files anew, to the same rows


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_one_reading_finds_and_reads_what_two_do(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _both_ways(folder, monkeypatch)


@pytest.mark.parametrize("run_bytes", [1, 700])
def test_textjudge_in_runs_finds_and_reads_what_two_do(run_bytes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case read in runs of instances, those that give up half way included: the instances
    handed on before the check starts again on the whole file are not handed on twice."""
    monkeypatch.setattr(textjudge_stream, "STREAM_FROM", 0)
    monkeypatch.setattr(textjudge_stream, "RUN_BYTES", run_bytes)
    _both_ways(ROOT / "tests" / "cases" / "textjudge", monkeypatch)


@functools.cache
def _corpus_folders() -> dict[str, list[Path]]:
    """format -> the corpus's top folders holding its datasets (the corpus names its folders by
    source, not by format: TextJudge's is judgebench/)."""
    out: dict[str, list[Path]] = {}
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []:
        for family in sorted({u.family for u in kinds.survey([folder], skip_empty=True).units}):
            out.setdefault(family, []).append(folder)
    return out


@pytest.mark.parametrize("name", FORMATS)
def test_the_corpus_is_found_and_read_alike(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = _corpus_folders().get(name)
    if not folders:
        pytest.skip(f"no dataset of {name} in a corpus at {CORPUS}")
    for folder in folders:
        _both_ways(folder, monkeypatch)


def test_a_view_left_unread_still_has_its_check_finished(tmp_path: Path) -> None:
    """A consumer that stops after one batch (or reads none) leaves no check half run: the
    findings of the next dataset's view, and the result, are those validate gives."""
    case = ROOT / "tests" / "cases" / "textjudge"
    reading = Reading([case], skip_unknown=True)
    views = [reading.view(u) for u in reading.units if catalog.get(u.family).checked is not None]
    assert any(isinstance(v.batches, FirstPass) for v in views if v is not None)
    assert _findings(reading.result().findings) == _findings(validate([case], skip_unknown=True).findings)


def test_the_runs_of_a_large_file_are_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dataset read in runs is parsed once for its check and its rows: the runs are cut once."""
    data = tiny_dataset("Is it fluent? {{ instance }}")
    one = data["instances"][0]  # one score and its majority
    data["instances"] = [{**one, "id": k, "instance": f"sentence {k} " + "x" * 300} for k in range(3000)]
    path = tmp_path / "large.json"
    path.write_text(json.dumps(data))
    monkeypatch.setattr(textjudge_stream, "STREAM_FROM", 0)
    cut: list[Path] = []
    real = textjudge_stream.open_in_runs

    def counted(where: Path, raw: bytes) -> Any:
        cut.append(where)
        return real(where, raw)

    monkeypatch.setattr(textjudge_stream, "open_in_runs", counted)
    reading = Reading([path])
    view = reading.view(reading.units[0])
    batches = list(view.in_batches())
    assert sum(b.of_role("individual") for b in batches) == sum(b.of_role("aggregate") for b in batches) == 3000
    assert cut == [path]
    assert _findings(reading.result().findings) == _findings(validate([path]).findings)
