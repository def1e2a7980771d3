"""Rules over the rows of event blocks: columns computed from others, and the relations the
format documents between the columns of a row."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....numbers import same_value
from ....registry import rule
from ..model import EVENTS, Rows, Table, Task, on_rows

_WORDS = {
    "dialogue": (("user_num_words", "user_input"), ("model_num_words", "model_completion")),
    "summarization": (
        ("original_length", "original_normalized_summary"),
        ("edited_length", "edited_normalized_summary"),
    ),
}


@rule(
    "halie/word-count",
    "word counts are the number of words of their text",
    why="user_num_words and model_num_words (dialogue), original_length and edited_length "
    "(summarization, of the normalized summaries) are len(text.split()); a different count was "
    "computed on another version of the text.",
    bad='user_input "I baked a cake today!", user_num_words 4',
    good='user_input "I baked a cake today!", user_num_words 5',
    scope=on_rows(("dialogue", EVENTS), ("summarization", EVENTS)),
)
def word_count(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    pairs = _WORDS[table.task]
    for index, row in rows:
        for count, text in pairs:
            n = len(row.get(text, "").split())
            if row[count] != n:
                yield table.doc, f"/{index}/{count}", f"{count} is {row[count]}, but {text} has {n} words"


def _levenshtein(a: list[str], b: list[str]) -> int:
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


@rule(
    "halie/distance",
    "distance is the word-level edit distance between the summaries",
    why="distance is the Levenshtein distance, counted in words (split on white space), between "
    "original_summary and edited_summary; in the released data it is computed on these raw "
    "summaries, not on the normalized ones. A different value belongs to another edit.",
    bad='original "a new bridge has opened", edited "the new bridge opened", distance 1',
    good='original "a new bridge has opened", edited "the new bridge opened", distance 2',
    scope=on_rows(("summarization", EVENTS)),
)
def distance(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        a, b = row.get("original_summary", "").split(), row.get("edited_summary", "").split()
        if len(a) * len(b) > 10**7:
            continue  # quadratic: leave monsters alone
        d = _levenshtein(a, b)
        if row["distance"] != d:
            yield (
                table.doc,
                f"/{index}/distance",
                f"distance is {row['distance']}, but the summaries are {d} word edits apart",
            )


@rule(
    "halie/third-party-ratings",
    "a summary's three third-party ratings are given together",
    why="A third-party evaluation rates consistency, relevance and coherency of a summary at once; "
    "for the original summary and for the edited one, the three columns are all filled or all "
    "empty. One or two of three is a half-copied evaluation.",
    bad="original_consistency_third_party 1.0, original_relevance_third_party (empty), original_coherency_third_party 4.33",
    good="original_consistency_third_party 1.0, original_relevance_third_party 3.67, original_coherency_third_party 4.33",
    scope=on_rows(("summarization", EVENTS)),
)
def third_party_ratings(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        for which in ("original", "edited"):
            columns = [f"{which}_{k}_third_party" for k in ("consistency", "relevance", "coherency")]
            given = [c for c in columns if c in row]
            if given and len(given) < 3:
                missing = [c for c in columns if c not in row]
                yield (
                    table.doc,
                    table.cell(index, missing),
                    f"{', '.join(missing)} empty, but {', '.join(given)} given",
                )


@rule(
    "halie/user-correct",
    "user_correct says whether user_answer is the answer",
    why="user_correct is 1 when user_answer equals answer and 0 otherwise; accuracy is computed "
    "from it, so a wrong value changes every result on the task.",
    bad="answer d, user_answer d, user_correct 0",
    good="answer d, user_answer d, user_correct 1",
    scope=on_rows(("question", EVENTS)),
)
def user_correct(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        want = int(row["user_answer"] == row["answer"])
        if row["user_correct"] != want:
            yield (
                table.doc,
                f"/{index}/user_correct",
                f"user_correct {row['user_correct']}, but user_answer {row['user_answer']!r} and answer {row['answer']!r} give {want}",
            )


@rule(
    "halie/answer-text",
    "answer_text is the text of the answer's choice",
    why="answer_text repeats choice_<answer> so the row reads on its own; when they differ, the "
    "answer letter or the choices were changed.",
    bad="answer d, choice_d thousand, answer_text millennium",
    good="answer d, choice_d thousand, answer_text thousand",
    scope=on_rows(("question", EVENTS)),
)
def answer_text(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        column = f"choice_{row['answer']}"
        if row["answer_text"] != row[column]:
            yield (
                table.doc,
                f"/{index}/answer_text",
                f"answer_text {row['answer_text']!r}, but {column} is {row[column]!r}",
            )


@rule(
    "halie/query-lists",
    "user_queries, user_query_types and lm_responses have equal lengths",
    why="The three lists are aligned: query k, its types and the model's response to it. Lists of "
    "different lengths cannot be paired up.",
    bad="user_queries ['q1', 'q2'], user_query_types ['close'], lm_responses ['r1', 'r2']",
    good="user_queries ['q1', 'q2'], user_query_types ['close', 'question'], lm_responses ['r1', 'r2']",
    scope=on_rows(("question", EVENTS)),
)
def query_lists(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        n = len(row["user_queries"])
        for column in ("user_query_types", "lm_responses"):
            if len(row[column]) != n:
                yield table.doc, f"/{index}/{column}", f"{len(row[column])} entries for {n} user_queries"


@rule(
    "halie/num-queries",
    "num_queries is the number of user_queries",
    severity="warning",
    why="num_queries counts the queries of the block, user_queries lists them; in the released "
    "data they differ in 68 rows, where a query was sent without a response being shown (or "
    "shown without a logged query). A warning: the difference is in the logs, not a copy error.",
    bad="num_queries 2, user_queries ['help me answer: ...']",
    good="num_queries 1, user_queries ['help me answer: ...']",
    scope=on_rows(("question", EVENTS)),
)
def num_queries(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        n = len(row["user_queries"])
        if row["num_queries"] != n:
            yield table.doc, f"/{index}/num_queries", f"num_queries {row['num_queries']}, but user_queries has {n}"


@rule(
    "halie/overall",
    "overall is the mean of apt, specific and imageable, empty when apt is 0",
    why="A metaphor's overall score is the mean of its three ratings, and is not given for a "
    "metaphor rated not apt (apt 0); unrated metaphors have none of the four. Another value is "
    "stale or computed on other ratings.",
    bad="apt 1.0, specific 0.5, imageable 0.5, overall 0.5",
    good="apt 1.0, specific 0.5, imageable 0.5, overall 0.6666666666666666",
    scope=on_rows(("metaphor", EVENTS)),
)
def overall(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    ratings = ("apt", "specific", "imageable")
    if "overall" not in table.header:
        return  # the column itself is absent: the header check's business, not every row's
    for index, row in rows:
        given = [r for r in ratings if r in row]
        stored = row.get("overall")
        if len(given) < 3:
            if given:
                missing = [r for r in ratings if r not in row]
                yield (
                    table.doc,
                    table.cell(index, missing),
                    f"{', '.join(missing)} empty, but {', '.join(given)} given",
                )
            elif stored is not None:
                yield table.doc, f"/{index}/overall", f"overall {stored!r}, but the metaphor has no ratings"
        elif row["apt"] == 0:
            if stored is not None:
                yield table.doc, f"/{index}/overall", f"overall {stored!r}, but apt is 0 (no overall score)"
        else:
            mean = sum(row[r] for r in ratings) / 3
            if stored is None:
                yield table.doc, f"/{index}/overall", f"overall is empty, the mean of the ratings is {mean:.6g}"
            elif not same_value(stored, mean, task.tolerance):
                yield table.doc, f"/{index}/overall", f"overall {stored!r}, but the mean of the ratings is {mean:.6g}"
