"""The CogGym model: what the loader gathers from an experiment folder, and the facts the rules
share.

Each document (each record of a JSON Lines file) is checked against its schema, then read into
the model part by part (parts.py): where a schema error lies, the object holding it is replaced
by an `Intact` that keeps every member that is intact, so a trial whose `option` is misspelt still
has its id, its stimuli, its other queries and the tag of that query. Rules read only what the model hands
them and skip a part that is absent or broken: the schema error is the one finding of its
cause, and no other finding is lost to it (the errors of one answer layout repeated for every
participant are one finding: layout.py). Totals over the whole experiment (the query types, the
ratings judgment_count counts, what responseType should list) are computed once, in totals.py,
for every rule that needs them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from operator import getitem, itemgetter
from pathlib import Path
from typing import Any

from ...engine import Context, schema_errors
from ...kinds import Unit
from ...readers.jsonfile import BROKEN, JsonDocument, JsonlDocument, load
from .aggregation import META_KEYS
from .answers import Choices, Facts, choice_pairs, in_order, rows_where, wrong_pairs
from .keys import Stray, stray_keys
from .layout import Error, FoldedTag, fold
from .parts import (
    Cleaner,
    Damage,
    Records,
    clean_config,
    clean_ind,
    clean_mean,
    clean_module,
    clean_trial,
    clicks_of,
    objects,
    slider_range,
)
from .totals import QueryTypes, Ratings, ResponseTypes, total_query_types, total_ratings, total_response_types

SCHEMA = "coggym/v1/"
Fold = Callable[[Any, list[Error]], list[Error]]
_URL_PREFIXES = ("http://", "https://", "data:", "//")


# --- the documents ----------------------------------------------------------------------------


def _load_jsonl(ctx: Context, path: Path | None, schema: str, clean: Cleaner) -> Records:
    out = Records()
    if path is None:
        return out
    doc, problems = load(path, ctx.config.max_document_bytes)
    ctx.problems(path, problems, doc)
    if not isinstance(doc, JsonlDocument):
        return out
    out.doc = doc
    for i, record in enumerate(doc.records):
        if record is not BROKEN:
            errors = schema_errors(schema, record)
            if errors:
                for code, ptr, message in errors:
                    ctx.add(code, doc, f"/{i}{ptr}", message)
                record = clean(record, "", Damage.of(errors))
        if not isinstance(record, dict):
            out.unread.append(doc.lines[i])
            continue
        out.readable.append((i, record))
        rid = record.get("id")
        if isinstance(rid, str):
            out.by_id.setdefault(rid, (i, record))
        else:
            out.anonymous.append(doc.lines[i])
    return out


def _load_json(
    ctx: Context, path: Path | None, schema: str, clean: Cleaner, fold: Fold | None = None
) -> tuple[JsonDocument | None, Any]:
    """The document and what is intact of it; (None, {}) when it is absent, does not parse or
    is not an object. `fold` says which schema errors to report (the others it reports as one)."""
    if path is None:
        return None, {}
    doc, problems = load(path, ctx.config.max_document_bytes)
    ctx.problems(path, problems, doc)
    if not isinstance(doc, JsonDocument):
        return None, {}
    errors = schema_errors(schema, doc.data)
    for code, ptr, message in fold(doc.data, errors) if fold is not None and errors else errors:
        ctx.add(code, doc, ptr, message)
    data = clean(doc.data, "", Damage.of(errors)) if errors else doc.data
    if not isinstance(data, dict):
        return None, {}
    return doc, data


# --- the experiment ---------------------------------------------------------------------------

Response = tuple[str, str, dict[str, Any], Any]  # (stimulus id, tag, query, its responses)


@dataclass
class Experiment:
    """One experiment as the rules see it. Documents are kept whenever they parse (findings
    point into them); what rules read is the intact part of each (`settings`, `trials`,
    `ind_data`, ...), never a value that broke its schema."""

    folder: Path
    tolerance: float
    at_most: bool  # response arrays may be shorter than participants_info.count
    config: JsonDocument | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # the intact part of config.json
    trial_records: Records = field(default_factory=Records)
    module_records: Records = field(default_factory=Records)
    ind: JsonDocument | None = None
    ind_data: dict[str, Any] = field(default_factory=dict)
    mean: JsonDocument | None = None
    mean_data: dict[str, Any] = field(default_factory=dict)
    # multi-slider tags whose answers are one object per participant (layout.py)
    layouts: list[FoldedTag] = field(default_factory=list)
    # whether a configuration selects a code: a check that cannot be done is reported only
    # when the check itself was asked for
    wants: Callable[[str], bool] = lambda code: True
    # (test, width) -> the rows that test found fine: see rows_where
    _fine_rows: dict[tuple[Callable[..., Any], int], set[tuple[Any, ...]]] = field(
        default_factory=dict, init=False, repr=False
    )
    _by_kinds: dict[tuple[str, ...], list[Response]] = field(default_factory=dict, init=False, repr=False)

    @property
    def trial_doc(self) -> JsonlDocument | None:
        return self.trial_records.doc

    @property
    def module_doc(self) -> JsonlDocument | None:
        return self.module_records.doc

    @property
    def trials(self) -> dict[str, tuple[int, dict[str, Any]]]:
        """id -> (record index, record): the first trial of each id, with only its intact parts."""
        return self.trial_records.by_id

    @property
    def modules(self) -> dict[str, tuple[int, dict[str, Any]]]:
        return self.module_records.by_id

    @property
    def trial_ids(self) -> set[str]:
        return set(self.trial_records.by_id)

    @property
    def module_ids(self) -> set[str]:
        return set(self.module_records.by_id)

    @property
    def ids_complete(self) -> bool:
        """Every trial and module record has an id that can be read: a reference to an id that
        is not there is then certainly dangling."""
        return self.trial_records.ids_complete and self.module_records.ids_complete

    @functools.cached_property
    def types(self) -> QueryTypes:
        return total_query_types(self)

    @functools.cached_property
    def ratings(self) -> Ratings:
        return total_ratings(self)

    @functools.cached_property
    def response_types(self) -> ResponseTypes:
        return total_response_types(self)

    @functools.cached_property
    def media(self) -> list[tuple[str, str, bool]]:
        """(pointer, relative url, file exists) for every local media reference of the trials."""
        out = []
        for i, trial in self.trial_records.readable:
            for si, stimulus in objects(trial.get("stimuli")):
                for k, url in enumerate(stimulus.get("media_url", [])):
                    if not url.startswith(_URL_PREFIXES):
                        out.append((f"/{i}/stimuli/{si}/media_url/{k}", url, (self.folder / url.lstrip("/")).is_file()))
        return out

    @functools.cached_property
    def _tags(self) -> tuple[dict[str, dict[str, dict[str, Any]]], set[str]]:
        tags: dict[str, dict[str, dict[str, Any]]] = {}
        complete = set()
        for tid, (_, trial) in self.trials.items():
            out: dict[str, dict[str, Any]] = {}
            whole = isinstance(trial.get("queries"), list)
            for q in trial.get("queries", []) if whole else ():
                kind = q.get("type") if isinstance(q, dict) else None
                if kind is None:
                    whole = False
                elif kind != "text-instruction":
                    if "tag" in q:
                        out.setdefault(q["tag"], q)
                    else:
                        whole = False
            tags[tid] = out
            if whole:
                complete.add(tid)
        return tags, complete

    def queries(self, trial_id: str) -> dict[str, dict[str, Any]]:
        """tag -> query of a trial (the first query with that tag), for every query whose type
        and tag can be read; {} for an unknown trial."""
        return self._tags[0].get(trial_id, {})

    def tags_complete(self, trial_id: str) -> bool:
        """Every query of the trial has a readable type and, where its type needs one, a
        readable tag: a key that is not among `queries` is then certainly no tag."""
        return trial_id in self._tags[1]

    @functools.cached_property
    def stray(self) -> list[Stray]:
        """The keys of the human data's stimuli that are no tag, by what they likely are (keys.py)."""
        return stray_keys(self)

    def responses(self) -> list[Response]:
        """(stimulus id, tag, query, responses) for every intact response array of a tag of a
        known trial in the ind file, in the file's order."""
        return self._responses

    def responses_of(self, *kinds: str) -> list[Response]:
        """`responses` of the queries of these types only, in the same order: gathered once for
        every rule about them."""
        found = self._by_kinds.get(kinds)
        if found is None:
            wanted = set(kinds)
            found = self._by_kinds[kinds] = list(compress(self._responses, map(wanted.__contains__, self._types)))
        return found

    @functools.cached_property
    def _types(self) -> list[str]:
        """The type of each query of `responses`, in its order."""
        return list(map(getitem, map(itemgetter(2), self._responses), repeat("type")))

    def alike(self, *kinds: str) -> dict[Facts, list[Response]]:
        """`responses_of(*kinds)` (every type when none is named) grouped by the facts of their
        query that the rules about answers read (type, num_clicks, slider range, number of
        options), each group in the same order: a rule that can say of a whole group at once
        that every answer is fine skips it (answers.unsettled)."""
        return {k: g for k, g in self._alike.items() if not kinds or k[0] in kinds}

    @functools.cached_property
    def _alike(self) -> dict[Facts, list[Response]]:
        groups: dict[Facts, list[Response]] = {}
        for r, kind in zip(self._responses, self._types, strict=True):
            q = r[2]
            options = q.get("option")
            n = len(options) if isinstance(options, list) else None
            if kind == "single-slider":
                key: Facts = (kind, clicks_of(q), slider_range(q), n)
            elif kind == "multi-slider":
                key = (kind, 1, slider_range(q), n)
            else:
                key = (kind, 1, None, n)
            groups.setdefault(key, []).append(r)
        return groups

    @functools.cached_property
    def _responses(self) -> list[Response]:
        return list(self._arrays(self.ind_data, intact=True))

    def response_lists(self) -> list[Response]:
        """Like `responses`, but also every array with a schema error inside it, as read: for
        rules that only count elements, which an error inside one does not change."""
        return self._response_lists

    @functools.cached_property
    def _response_lists(self) -> list[Response]:
        return [] if self.ind is None else list(self._arrays(self.ind.data, intact=False))

    def _arrays(self, data: dict[str, Any], intact: bool) -> Iterator[Response]:
        tags = self._tags[0]
        for sid, stimulus in data.items():
            queries = tags.get(sid)
            if not queries or not isinstance(stimulus, dict) or sid in META_KEYS:
                continue
            for tag, responses in stimulus.items():
                if tag in queries and (intact or isinstance(responses, list)):
                    yield sid, tag, queries[tag], responses

    @functools.cached_property
    def _choices(self) -> list[Choices]:
        return [
            Choices(sid, tag, q, responses)
            for sid, tag, q, responses in self.responses()
            if q["type"] in ("multi-choice", "ranking")
        ]

    def choices(self) -> list[Choices]:
        """The choices of every intact response array of a multi-choice or ranking query, in the
        order of `responses`; the rules about choices share what each has gathered."""
        return self._choices

    def choices_where(self, wrong: Callable[[Any, list[Any]], bool] | None) -> list[Choices]:
        """`choices()` less the multi-choice tags whose options are the same and whose every
        answer is an {idx, option_text} object with an integer idx, when wrong(choice, options)
        holds for none of their distinct pairs (wrong None: for any such group). 10,000 tags of
        the same question are thus looked at together, in C, and not one by one."""
        left = [
            group
            for options, (group, pairs) in self._choice_groups.items()
            if options is None or pairs is None or (wrong is not None and wrong_pairs(pairs, wrong, list(options)))
        ]
        if len(left) == len(self._choice_groups):
            return self._choices
        return in_order(self._choices, chain.from_iterable(left))

    @functools.cached_property
    def _choice_groups(self) -> dict[tuple[Any, ...] | None, tuple[list[Choices], set[tuple[int, Any]] | None]]:
        """The choices by the options of their multi-choice query (None: a ranking, or options
        that cannot be read), with the distinct pairs of each group (answers.choice_pairs)."""
        groups: dict[tuple[Any, ...] | None, list[Choices]] = {}
        for c in self._choices:
            options = c.query.get("option") if c.query["type"] == "multi-choice" else None
            key = tuple(options) if isinstance(options, list) and all(isinstance(o, str) for o in options) else None
            groups.setdefault(key, []).append(c)
        return {
            key: (group, choice_pairs([c.answers for c in group]) if key is not None else None)
            for key, group in groups.items()
        }

    def rows_where(
        self, answers: list[Any], problem: Callable[[Any, int], str | None], n: int
    ) -> Iterator[tuple[int, str]]:
        """(position, problem) of every row (list answer) of which problem(row, n) says
        something. A distinct row is put to the test once in the whole experiment: the rows
        found fine are remembered, so an array whose every row is known is decided in C."""
        return rows_where(answers, problem, n, self._fine_rows.setdefault((problem, n), set()))

    def quiz_queries(self) -> list[tuple[int, int, dict[str, Any]]]:
        """(record index, query position, query) of every readable query of a comprehension quiz.
        Only a quiz's queries are checked by the schema; queries on other module types are not
        part of the format and are left alone."""
        return [
            (i, qi, q)
            for i, module in self.module_records.readable
            if module.get("type") == "comprehension_quiz"
            for qi, q in objects(module.get("queries"))
        ]

    def trial_queries(self) -> list[tuple[int, int, dict[str, Any]]]:
        """(record index, query position, query) of every readable query of every trial."""
        return self._trial_queries

    @functools.cached_property
    def _trial_queries(self) -> list[tuple[int, int, dict[str, Any]]]:
        return [(i, qi, q) for i, trial in self.trial_records.readable for qi, q in objects(trial.get("queries"))]


def load_experiment(unit: Unit, ctx: Context) -> Experiment:
    """Read, parse and schema-check the experiment's files (findings go to ctx)."""
    mode = ctx.config.option("coggym", "response-count")
    exp = Experiment(unit.root, ctx.config.tolerance, mode == "at-most", wants=ctx.config.wants)
    exp.config, exp.settings = _load_json(ctx, unit.file("config.json"), SCHEMA + "config", clean_config)
    exp.trial_records = _load_jsonl(ctx, unit.file("trial.jsonl"), SCHEMA + "trial", clean_trial)
    exp.module_records = _load_jsonl(ctx, unit.file("instruction.jsonl"), SCHEMA + "instruction", clean_module)
    ind = unit.file("human_data_ind.json")
    exp.ind, exp.ind_data = _load_json(ctx, ind, SCHEMA + "human-data-ind", clean_ind, functools.partial(fold, exp))
    exp.mean, exp.mean_data = _load_json(ctx, unit.file("human_data_mean.json"), SCHEMA + "human-data-mean", clean_mean)
    return exp
