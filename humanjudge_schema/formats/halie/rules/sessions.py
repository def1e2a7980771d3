"""Sessions across rows and files: the same sessions in every file, with the same attributes,
their blocks in order, one survey row where there is one."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....registry import rule
from ..model import EVENTS, SURVEY, Task


@rule(
    "halie/unmatched-session",
    "event blocks, survey responses and accuracies cover the same sessions",
    why="Each session has its event blocks, one survey response (one row per turn, for dialogue) "
    "and, for crossword, one accuracy row. A session missing from one file is lost to every "
    "analysis that joins them.",
    bad="event_blocks.csv: sessions s1, s2; survey_responses.csv: s1",
    good="event_blocks.csv: sessions s1, s2; survey_responses.csv: s1, s2",
    scope="task",
)
def unmatched_session(task: Task) -> Iterator[Hit]:
    events = task.tables.get(EVENTS)
    if events is None or not events.complete:
        return
    for other in task.others():
        if not other.complete:
            continue
        for sid, s in other.sessions.items():
            if sid not in events.sessions:
                yield other.doc, f"/{s.first}/session_id", f"session {sid!r} has no event blocks in {EVENTS}"
        for sid, s in events.sessions.items():
            if sid not in other.sessions:
                yield events.doc, f"/{s.first}/session_id", f"session {sid!r} has no row in {other.name}"


@rule(
    "halie/session-attributes",
    "a session has one worker_id, model and prompt in every row of every file",
    why="worker_id, model, prompt (and prompt_dataset for crossword) describe the session, and are "
    "repeated on each of its rows; a row that disagrees belongs to another session or was edited "
    "by hand.",
    bad="event_blocks.csv: s1, model Jumbo; survey_responses.csv: s1, model Davinci",
    good="event_blocks.csv: s1, model Jumbo; survey_responses.csv: s1, model Jumbo",
    scope="task",
)
def session_attributes(task: Task) -> Iterator[Hit]:
    for table in task.tables.values():
        for index, column, value, first, first_row in table.attribute_changes:
            yield (
                table.doc,
                f"/{index}/{column}",
                f"{column} {value!r}, but row {first_row} of the session has {first!r}",
            )
    events = task.tables.get(EVENTS)
    if events is None:
        return
    for other in task.others():
        for sid, s in other.sessions.items():
            mine = events.sessions.get(sid)
            if mine is None or mine.attributes is None or s.attributes is None:
                continue
            for column, value in s.attributes.items():
                if column in mine.attributes and mine.attributes[column] != value:
                    yield (
                        other.doc,
                        f"/{s.attributes_row}/{column}",
                        f"{column} {value!r}, but the session's event blocks have {mine.attributes[column]!r}",
                    )


@rule(
    "halie/duplicate-session",
    "a survey or accuracy file has one row per session",
    why="Survey responses (except dialogue's per-turn ratings) and accuracies are one row per "
    "session; a second row for a session is a duplicate, and joins on session_id double its data.",
    bad="survey_responses.csv: s1,...\ns1,...",
    good="survey_responses.csv: s1,...\ns2,...",
    scope="task",
)
def duplicate_session(task: Task) -> Iterator[Hit]:
    for table in task.tables.values():
        for index, sid, first in table.duplicates:
            yield table.doc, f"/{index}/session_id", f"session {sid!r} already has row {first}"


@rule(
    "halie/block-order",
    "order_id (turn_id) counts 0, 1, 2, ... (1, 2, 3, ...) within a session",
    why="Event blocks are numbered in the order they happened, without gaps or repeats; a gap is a "
    "lost block, a repeat a duplicated one, and per-position analyses (learning effects, say) "
    "shift. Dialogue turns, and the per-turn survey rows, count from 1.",
    bad="order_id of session s1: 0, 1, 3",
    good="order_id of session s1: 0, 1, 2",
    scope="task",
)
def block_order(task: Task) -> Iterator[Hit]:
    for table in task.tables.values():
        if not table.complete:
            continue  # a row left out is a gap that is not in the data
        for index, column, got, following, start in table.order:
            if following is None:
                message = f"the session's first {column} is {got}, not {start}"
            elif got > following:
                what = f"{got - following} missing before it" if got - following > 1 else f"{following} is missing"
                message = f"{column} {got} after {following - 1} in its session: {what}"
            else:
                message = f"{column} {got} after {following - 1} in its session: a repeat, or out of order"
            yield table.doc, f"/{index}/{column}", message


@rule(
    "halie/survey-turns",
    "a dialogue session has one survey row per turn and one session row",
    why="Dialogue surveys rate every turn (turn_id 1..n, one row each) and the whole session "
    "(one row with turn_id -1 carrying quality); a turn without its rating row, or a second "
    "session row, breaks the join of ratings to turns.",
    bad="event_blocks.csv: turns 1-10 of s1; survey_responses.csv: turns 1-9 of s1 and a row with turn_id -1",
    good="survey_responses.csv: turns 1-10 of s1 and one row with turn_id -1",
    scope="task",
)
def survey_turns(task: Task) -> Iterator[Hit]:
    events, survey = task.tables.get(EVENTS), task.tables.get(SURVEY)
    if task.task != "dialogue" or survey is None or not survey.complete:
        return
    for sid, s in survey.sessions.items():
        where = f"/{s.first}/session_id"
        if s.summary_rows != 1:
            yield survey.doc, where, f"session {sid!r} has {s.summary_rows} rows with turn_id -1, expected 1"
        turns = events.sessions.get(sid) if events is not None and events.complete else None
        if turns is not None and turns.rows != s.rows:
            yield survey.doc, where, f"session {sid!r} has {s.rows} per-turn rows for {turns.rows} turns in {EVENTS}"
