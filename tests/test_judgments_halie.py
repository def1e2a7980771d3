"""The HALIE judgments view: one row per answered cell of the survey ratings and free texts and of
the event-block judgments. The rows per question equal a count made here with the csv module;
every row's value is the text of its cell, typed, and its line is where findings place the
cell; broken files give their readable rows and no exception; rows are read lazily, anew by
each call, in bounded memory."""

from __future__ import annotations

import csv
import shutil
import tracemalloc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import catalog, validate
from humanjudge_schema.judgments.view import Judgment, Judgments
from humanjudge_schema.kinds import survey
from humanjudge_schema.readers.csvfile import CsvDocument
from humanjudge_schema.readers.files import display_path

from .conftest import ROOT, corpus

TASKS = ("crossword", "dialogue", "metaphor", "question", "summarization")
EXAMPLES = ROOT / "examples" / "halie"
SURVEY, EVENTS = "survey_responses.csv", "event_blocks.csv"
IDS = {"session_id", "worker_id", "model", "prompt", "prompt_dataset", "turn_id"}
SUMMARY = [f"{s}_{q}" for s in ("original", "edited") for q in ("consistency", "coherency", "relevance")]
EVENT_QUESTIONS = {
    "metaphor": ["apt", "specific", "imageable"],
    "question": ["user_answer"],
    "summarization": SUMMARY + [f"{name}_third_party" for name in SUMMARY],
}
FREE_TEXT = {"helpfulness_freetext", "change_freetext", "adjectives"}
FOLDERS = [("valid", task) for task in TASKS] + [("broken", "question")] + [("corpus", task) for task in TASKS]
CROSSWORD_HEADER = (
    "session_id,worker_id,model,prompt,prompt_dataset,fluency,helpfulness,ease,joy,"
    "helpfulness_freetext,change_freetext,adjectives"
)


def _view(folder: Path) -> Judgments:
    [unit] = survey([folder], kind="halie").units
    view = catalog.get(unit.family).view(unit)
    assert isinstance(view, Judgments)
    return view


def _folder(where: str, task: str) -> Path:
    """A task folder: a bundled example, or the corpus (skipped when it is absent)."""
    return corpus("halie", "data", "std", task) if where == "corpus" else EXAMPLES / where / task


def _read(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and (line the row starts on, cells) of every data row, by the csv module."""
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows, end = [], reader.line_num
        for cells in reader:
            rows.append((end + 1, cells))
            end = reader.line_num
    return header, rows


def _answered(task: str, name: str, column: str, row: dict[str, str]) -> bool:
    """Whether a cell is a judgment, by the rules of the view, on the cells as text."""
    if not row[column] or ((task, column) == ("crossword", "joy") and row[column] == "-1"):
        return False
    if name == SURVEY and task == "dialogue" and not row["turn_id"]:
        return False
    item = row["question_id"] if (name, task) == (EVENTS, "question") else row["session_id"]
    if name == EVENTS and task != "question" and not row["order_id"]:
        return False
    return bool(item) and (column.endswith("_third_party") or bool(row["worker_id"]))


def _counts(folder: Path, task: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    for name in (SURVEY, EVENTS):
        header, rows = _read(folder / name)
        questions = [c for c in header if c not in IDS] if name == SURVEY else EVENT_QUESTIONS.get(task, [])
        for _, cells in rows:
            row = dict(zip(header, cells, strict=True))
            counts.update(c for c in questions if c in row and _answered(task, name, c, row))
    return counts


@pytest.mark.parametrize(("where", "task"), FOLDERS)
def test_rows_per_question_equal_a_count_of_the_files(where: str, task: str) -> None:
    folder = _folder(where, task)
    rows = list(_view(folder).rows())
    expected = _counts(folder, task)
    assert Counter(r.question for r in rows) == expected
    assert sum(expected.values()) > 0


def _text(value: Any) -> str:
    """A typed value as pandas wrote it."""
    return repr(value) if type(value) is float else str(value)


@pytest.mark.parametrize(("where", "task"), FOLDERS)
def test_every_value_is_the_cell_at_its_line_and_pointer(where: str, task: str) -> None:
    folder = _folder(where, task)
    rows = list(_view(folder).rows())
    for name in (SURVEY, EVENTS):
        path = folder / name
        mine = [r for r in rows if r.file == display_path(path)]
        header, table = _read(path)
        for row in mine:
            _, index, column = row.pointer.split("/")
            start, cells = table[int(index)]
            cell = cells[len(header) - 1 - header[::-1].index(column)]
            assert _text(row.value) == cell, row
            assert row.line is not None and start <= row.line <= start + "".join(cells).count("\n")
        # where findings would place the same pointers
        found = CsvDocument(path, header).positions([r.pointer for r in mine])
        assert [r.line for r in mine] == [found[r.pointer][0] for r in mine]
        assert [int(r.pointer.split("/")[1]) for r in mine] == sorted(int(r.pointer.split("/")[1]) for r in mine)
    assert {(r.format, r.dataset, r.option) for r in rows} == {("halie", display_path(folder), "")}


@pytest.mark.parametrize(("where", "task"), FOLDERS)
def test_values_are_typed_by_the_row_schema(where: str, task: str) -> None:
    view = _view(_folder(where, task))
    kinds: dict[str, set[type]] = {}
    for row in view.rows():
        kinds.setdefault(row.question, set()).add(type(row.value))
    for question, types in kinds.items():
        level = view.questions[question].level
        if level is None:
            assert types == {str}, question
        elif question == "user_answer":
            assert types == {str}
        elif question in SUMMARY:
            assert types == {bool}, question
        else:
            assert types <= {int, float} and types, question


def test_questions_and_their_levels() -> None:
    levels = {task: {n: q.level for n, q in _view(EXAMPLES / "valid" / task).questions.items()} for task in TASKS}
    assert levels["crossword"] == {
        **dict.fromkeys(("fluency", "helpfulness", "ease", "joy"), "ordinal"),
        **dict.fromkeys(("helpfulness_freetext", "change_freetext", "adjectives"), None),
    }
    turn = ("interestingness", "boringness", "preference", "fluency", "sensibility", "specificity", "humanness")
    assert levels["dialogue"] == {**dict.fromkeys(turn, "nominal"), "quality": "ordinal"}
    assert levels["metaphor"] == {
        **dict.fromkeys(("apt", "specific", "imageable"), "ordinal"),
        **dict.fromkeys(
            ("fluency", "helpfulness", "ease", "enjoyment", "satisfaction", "ownership", "reuse"), "ordinal"
        ),
    }
    assert levels["question"] == {
        "user_answer": "nominal",
        **dict.fromkeys(("fluency", "helpfulness", "ease"), "ordinal"),
        **dict.fromkeys(sorted(FREE_TEXT), None),
    }
    assert levels["summarization"] == {
        **dict.fromkeys(SUMMARY, "nominal"),
        **{f"{name}_third_party": "interval" for name in SUMMARY},
        **dict.fromkeys(("improvement", "edit", "helpfulness"), "ordinal"),
        "adjectives": None,
    }


def _at(rows: list[Judgment], file: str, ptr: str) -> Judgment | None:
    found = [r for r in rows if r.file.endswith(file) and r.pointer == ptr]
    assert len(found) <= 1
    return found[0] if found else None


def _known(task: str) -> list[Judgment]:
    return list(_view(corpus("halie", "data", "std", task)).rows())


def _who(row: Judgment | None) -> tuple[Any, ...] | None:
    return None if row is None else (row.item, row.rater, row.question, row.value, row.line)


def test_known_survey_rows_of_the_corpus() -> None:
    rows = _known("crossword")
    session = "151_57c10c96802f13f8acb3ed38f9f5c02c_ai2-jumbo"
    assert _who(_at(rows, SURVEY, "/0/fluency")) == (session, "57c10c96802f13f8acb3ed38f9f5c02c", "fluency", 3, 2)
    assert _at(rows, SURVEY, "/233/joy") is None  # -1: not asked
    assert _at(rows, SURVEY, "/233/helpfulness_freetext") is None  # an empty cell
    assert _at(rows, SURVEY, "/233/adjectives") is not None
    rows = _known("dialogue")
    session, worker = "4c208762-1acf-4b05-b068-3e6a40c4d106", "af35037f76114f50494e9976e9265df9"
    assert _who(_at(rows, SURVEY, "/0/quality")) == (session, worker, "quality", 1.0, 2)  # turn_id -1
    assert _who(_at(rows, SURVEY, "/1/interestingness")) == (f"{session}/1", worker, "interestingness", 1.0, 3)
    assert _at(rows, SURVEY, "/409/interestingness") is None  # one of the 8 ratings left empty


def test_known_event_rows_of_the_corpus() -> None:
    rows = _known("metaphor")
    item, worker = "6974535619244ad4a883e684caa10e7d/0", "a9c7faeb33dba785fed1c36cb0cb900b"
    # the third parties' ratings: aggregates, and never the writer's
    apt = _at(rows, EVENTS, "/0/apt")
    assert _who(apt) == (item, "", "apt", 0.0, 2) and apt is not None and apt.role == "aggregate"
    assert apt.rater_kind == "none" and not any(r.rater == worker and r.file.endswith(EVENTS) for r in rows)
    assert _at(rows, EVENTS, "/0/overall") is None  # an aggregate, not a judgment
    rows = _known("question")
    assert _who(_at(rows, EVENTS, "/0/user_answer")) == (5, "f3cce8c83fed3f1d9216ea35efa1d765", "user_answer", "d", 2)
    answers = [r for r in rows if r.question == "user_answer" and r.item == 5]
    assert len(answers) > 1 and len({r.rater for r in answers}) == len(answers)  # one question, many workers
    rows = _known("summarization")
    first = _at(rows, EVENTS, "/2/original_consistency_third_party")
    assert first is not None and (first.item, first.rater, first.value, first.role) == (
        "12195ed75008463084d1b299d6c39106/2",
        "",
        1.0,
        "aggregate",
    )
    user = _at(rows, EVENTS, "/2/original_consistency")
    assert user is not None and user.rater == "73ec1029bf71471d555c0684421a606f" and user.item == first.item
    assert (user.role, user.rater_kind) == ("individual", "person")
    # the one row whose original summary has third-party ratings and the edited one none
    assert _at(rows, EVENTS, "/620/original_relevance_third_party") is not None
    assert _at(rows, EVENTS, "/620/edited_relevance_third_party") is None


def _crossword(folder: Path, *lines: str, events: str | None = None) -> Path:
    """A crossword folder whose survey has these data rows (the event blocks: the example's)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SURVEY).write_text("\n".join([CROSSWORD_HEADER, *lines]) + "\n", encoding="utf-8")
    if events is None:
        shutil.copy(EXAMPLES / "valid" / "crossword" / EVENTS, folder / EVENTS)
    else:
        (folder / EVENTS).write_text(events, encoding="utf-8")
    return folder


GOOD = '61_w1_davinci,w1,Davinci,61,NYT-1,3,2,4,-1,,"no\nchange",quick'


def test_broken_rows_are_left_out_and_the_rest_kept(tmp_path: Path) -> None:
    folder = _crossword(
        tmp_path,
        GOOD,
        '61_w2_davinci,w2,Davinci,61,NYT-1,"3"x,2,4,5,,,',  # text after a closing quote
        "61_w3_davinci,w3,Davinci,61,NYT-1,3,2,4,5,,,,extra",  # a cell too many
        "61_w4_davinci,w4,Davinci,61,NYT-1,1,2",  # cells too few: the rest are empty
        ",w5,Davinci,61,NYT-1,5,5,5,5,,,",  # no session: nothing to place the ratings on
        "61_w6_davinci,w6,Davinci,61,NYT-1,x,2,4,5,,,odd",  # a rating the schema rejects is still one
    )
    rows = list(_view(folder).rows())
    placed = [(r.pointer, r.line, r.rater, r.value) for r in rows]
    assert placed == [
        ("/0/fluency", 2, "w1", 3),
        ("/0/helpfulness", 2, "w1", 2),
        ("/0/ease", 2, "w1", 4),
        ("/0/change_freetext", 2, "w1", "no\nchange"),
        ("/0/adjectives", 3, "w1", "quick"),
        ("/3/fluency", 6, "w4", 1),
        ("/3/helpfulness", 6, "w4", 2),
        ("/5/fluency", 8, "w6", "x"),
        ("/5/helpfulness", 8, "w6", 2),
        ("/5/ease", 8, "w6", 4),
        ("/5/joy", 8, "w6", 5),
        ("/5/adjectives", 8, "w6", "odd"),
    ]
    # the rows the reader could not take are the ones validation reports, under the same indices
    parse = {(f.code, f.pointer) for f in validate([folder]).findings if f.code.startswith("parse/")}
    assert {("parse/invalid-csv", "/1"), ("parse/ragged-row", "/2"), ("parse/ragged-row", "/3")} <= parse


def test_an_unclosed_quote_ends_the_file_without_losing_the_rows_before(tmp_path: Path) -> None:
    folder = _crossword(tmp_path, GOOD, '61_w2_davinci,w2,Davinci,61,NYT-1,3,2,4,5,"never closed,,')
    rows = list(_view(folder).rows())
    assert {r.pointer.split("/")[1] for r in rows if r.file.endswith(SURVEY)} == {"0"}


@pytest.mark.parametrize("content", ["", "\n\n", "\ufeff"], ids=["empty", "blank-lines", "bom-only"])
def test_empty_files_give_no_rows(tmp_path: Path, content: str) -> None:
    folder = _crossword(tmp_path / "survey-empty", events=None)
    (folder / SURVEY).write_text(content, encoding="utf-8")
    assert list(_view(folder).rows()) == []  # crossword event blocks hold no judgments
    folder = tmp_path / "both-empty"
    folder.mkdir()
    for name in (SURVEY, EVENTS):
        (folder / name).write_text(content, encoding="utf-8")
    view = _view(folder)
    assert (list(view.rows()), view.questions) == ([], {})


def test_one_empty_file_leaves_the_other_readable(tmp_path: Path) -> None:
    folder = tmp_path / "metaphor"
    shutil.copytree(EXAMPLES / "valid" / "metaphor", folder)
    (folder / SURVEY).write_text("", encoding="utf-8")
    rows = list(_view(folder).rows())
    assert {r.question for r in rows} == {"apt", "specific", "imageable"}
    assert Counter(r.question for r in rows) == _counts_of(folder / EVENTS, ["apt", "specific", "imageable"])


def _counts_of(path: Path, columns: list[str]) -> Counter[str]:
    header, table = _read(path)
    return Counter(c for _, cells in table for c, cell in zip(header, cells, strict=True) if c in columns and cell)


def test_rows_are_read_lazily_and_anew(tmp_path: Path) -> None:
    folder = _crossword(tmp_path, GOOD)
    view = _view(folder)
    rows = view.rows()
    assert isinstance(rows, Iterator)
    first = list(view.rows())
    assert first == list(view.rows()) and len(first) == 5
    _crossword(tmp_path, GOOD.replace(",3,2,4,", ",5,5,5,"), GOOD)  # after rows() was called
    assert [r.value for r in rows][:3] == [5, 5, 5]
    (folder / SURVEY).unlink()
    assert list(view.rows()) == []  # a file gone since: no rows, no exception


def _peak(folder: Path, rows: int) -> tuple[int, int]:
    """(bytes of the survey file, peak bytes allocated while counting its judgments)."""
    _crossword(folder, *(GOOD.replace("w1", f"w{k}") + " and helpful" * 25 for k in range(rows)))
    view = _view(folder)
    tracemalloc.start()
    try:
        assert sum(1 for _ in view.rows()) == rows * 5
        return (folder / SURVEY).stat().st_size, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_rows_are_read_in_bounded_memory(tmp_path: Path) -> None:
    _, small = _peak(tmp_path / "small", 8_000)  # 3 MB: more than the reader's buffers
    size, large = _peak(tmp_path / "large", 32_000)
    assert large < small * 1.5, (small, large)  # four times the rows, about the same memory
    assert large < size / 2, (large, size)


def test_the_view_is_declared_in_the_catalog() -> None:
    assert catalog.get("halie").judgments == "humanjudge_schema.formats.halie.judgments:judgments"
