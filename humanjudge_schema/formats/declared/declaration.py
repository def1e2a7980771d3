"""A declaration read: its TOML checked against `declared/v1/declaration` and every name it uses
against the record schemas of its files, then turned into what the reader and the rules use
(`FileSpec`, `Block`, `Rules`). What is wrong with it is a list of problems with pointers into
the TOML (placed on their lines by toml.TomlDocument); only what makes a format impossible (no
readable TOML, no name) is a DeclarationError."""

from __future__ import annotations

import datetime
import difflib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...engine import schema_errors
from ...finding import escape_token
from ...judgments.view import Level
from ...readers.files import Problem as FileProblem
from ...readers.files import open_regular
from .fields import Field, Template, cast, parse
from .names import SCHEMA, schema_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BYTES = 4 * 1024 * 1024  # a declaration at most: real ones are a few kilobytes
Problem = tuple[str, str, str]  # (code, pointer into the declaration, message)


class DeclarationError(ValueError):
    """A declaration that cannot be a format at all; the message names the file and line."""


@dataclass(frozen=True)
class FileSpec:
    """One role of a dataset's files, as declared."""

    role: str
    name: str  # a name, or a glob
    glob: bool
    type: str  # csv, tsv, jsonl, json, parquet
    gzip: bool
    required: bool
    records: tuple[str, ...]  # json: the pointer's tokens, "*" for every key or index
    columns: tuple[str, ...] | None  # no header row: the columns' names
    delimiter: str
    quoting: bool
    missing: frozenset[str]
    schema: str  # the record schema's name (schemas.hold)
    record: dict[str, Any]  # the record schema

    @property
    def flat(self) -> bool:
        return self.type in ("csv", "tsv")

    @property
    def captures(self) -> int:
        return self.records.count("*")


@dataclass(frozen=True)
class QuestionSpec:
    name: str
    level: Level | None
    values: tuple[Any, ...] | None = None
    labels: tuple[str, ...] | None = None
    multi: bool = False
    shared: bool = True
    why: str | None = None


@dataclass(frozen=True)
class OneHot:
    """A value spread over columns, one per value: the column holding 1 (or true) gives it."""

    columns: tuple[tuple[Any, Field], ...]
    at: str


@dataclass(frozen=True)
class MultiHot:
    """A multi-select answer spread over columns, one per option: a list of 0/1."""

    columns: tuple[tuple[str, Field], ...]
    at: str
    empty: bool = True  # a row with no option chosen is an answer (none of them)


@dataclass(frozen=True)
class Weights:
    """A value looked up from several fields: the weight of the most specific match."""

    rules: tuple[tuple[tuple[tuple[Field, Any], ...], float], ...]
    at: str


Value = Field | OneHot | MultiHot | Weights


@dataclass(frozen=True)
class Answer:
    """One question of a block and where its value is; `rater` set for a wide row's column."""

    question: str | Field  # a name, or a field holding it
    value: Value
    rater: Any = None


@dataclass(frozen=True)
class Block:
    """A `[[judgments]]` or `[[aggregates]]` table: where in which file, which item, rater and
    question, and (aggregates) what the stored value is of the judgments."""

    kind: str  # "judgments" or "aggregates"
    at: str  # "/judgments/0"
    file: str
    each: tuple[str, ...]
    item: tuple[Field, ...]
    answers: tuple[Answer, ...]
    rater: Field | None = None
    rater_kind: str = "person"
    combine: str | None = None
    recompute: str | None = None
    tie: str = "any"


@dataclass(frozen=True)
class ReferenceSide:
    """One side of a reference: the judgments' items, raters or values, or a field of a file."""

    judgments: str | None = None
    file: str | None = None
    each: tuple[str, ...] = ()
    field: Field | None = None

    def __str__(self) -> str:
        return (
            f"the judgments' {self.judgments}s"
            if self.judgments
            else f"{self.file} {self.field and self.field.written}"
        )


@dataclass(frozen=True)
class Rules:
    unique: tuple[tuple[str, str, tuple[str, ...], tuple[Field, ...]], ...] = ()  # (at, file, each, key)
    references: tuple[tuple[str, ReferenceSide, ReferenceSide], ...] = ()
    allowed_values: bool = True
    one_answer: bool = False
    raters_per_item: tuple[int | None, int | None] | None = None
    at: str = "/rules"


@dataclass
class Declaration:
    """A declaration as read: what it says, and what is wrong with it (`problems`)."""

    path: Path
    text: str
    name: str
    title: str
    description: str
    files: dict[str, FileSpec] = field(default_factory=dict)
    questions: dict[str, QuestionSpec] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    rules: Rules = field(default_factory=Rules)
    problems: list[Problem] = field(default_factory=list)
    # the files' names, readable even where the rest is broken: the dataset is still recognised
    names: dict[str, tuple[str, bool, bool]] = field(default_factory=dict)  # role -> (name, glob, required)
    schema_files: list[str] = field(default_factory=list)  # record schemas in files beside it

    def question(self, name: str) -> QuestionSpec:
        return self.questions.get(name) or QuestionSpec(name, "nominal")


def read(path: Path) -> Declaration:
    """The declaration in a file. Raises DeclarationError where the file cannot be a format.
    (held.load reads each version of a file once.)"""
    text = _text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DeclarationError(f"{path}: invalid TOML: {exc}") from None
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise DeclarationError(f'{path}: a declaration names its format (name = "...")')
    data = _plain(data)
    decl = Declaration(
        path,
        text,
        name,
        str(data.get("title") or name),
        str(data.get("description") or ""),
    )
    decl.problems = list(schema_errors(SCHEMA, data))
    _names(decl, data)
    if decl.problems:
        return decl
    _Reader(decl, data).read()
    return decl


def capped(path: Path) -> bytes:
    """A declaration's (or its record schema's) bytes: a regular file of at most BYTES. Raises
    OSError for anything else (a pipe or a device is refused unread: it could block or never end)."""
    opened = open_regular(path)
    if isinstance(opened, FileProblem):
        raise OSError(opened.message.removeprefix("cannot read the file: "))
    with opened as f:
        raw = f.read(BYTES + 1)
    if len(raw) > BYTES:
        raise OSError(f"more than {BYTES:,} bytes, more than a declaration holds")
    return raw


def _text(path: Path) -> str:
    try:
        raw = capped(path)
    except OSError as exc:
        raise DeclarationError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DeclarationError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _plain(value: Any) -> Any:
    """TOML values as JSON values (a date as its text), so that the schema can check them."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value


def _names(decl: Declaration, data: dict[str, Any]) -> None:
    files = data.get("files")
    if not isinstance(files, dict):
        return
    for role, spec in files.items():
        if isinstance(spec, dict):
            given = spec.get("name", spec.get("glob"))
            if isinstance(given, str) and given and "/" not in given:
                decl.names[role] = (given, "name" not in spec, spec.get("required", True) is not False)


def closest(name: str, names: list[str]) -> str:
    """ "; did you mean 'x'?" for the name nearest a misspelt one, or ""."""
    near = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _steps(written: str) -> tuple[str, ...]:
    return tuple(t for t in written.strip("/").split("/") if t) if written else ()


class _Reader:
    """Turns the checked TOML into specs, noting every name that names nothing."""

    def __init__(self, decl: Declaration, data: dict[str, Any]) -> None:
        self.decl, self.data = decl, data

    def problem(self, at: str, message: str, code: str = "declared/unknown-field") -> None:
        self.decl.problems.append((code, at, message))

    def read(self) -> None:
        for role, spec in self.data["files"].items():
            found = self.file(role, spec)
            if found is not None:
                self.decl.files[role] = found
        for name, spec in self.data.get("questions", {}).items():
            self.decl.questions[name] = self.question(name, spec)
        for kind in ("judgments", "aggregates"):
            for k, spec in enumerate(self.data.get(kind, [])):
                block = self.block(kind, k, spec)
                if block is not None:
                    self.decl.blocks.append(block)
        self.decl.rules = self.rules(self.data.get("rules", {}))
        self.asked()

    # --- files -----------------------------------------------------------------------------

    def file(self, role: str, spec: dict[str, Any]) -> FileSpec | None:
        at = f"/files/{escape_token(role)}"
        given = str(spec.get("name", spec.get("glob")))
        kind = spec["type"]
        record = self.record(at, spec)
        if record is None:
            return None
        schema = schema_name(self.decl.name, role, self.decl.path)
        from ...schemas import hold, validator

        hold(schema, record)
        try:
            validator(schema)  # compiled once: the reader's checks use it
        except Exception as exc:  # jsonschema-rs: a schema that is not one, or refers out
            self.problem(at, f"the record schema of {role} is not a JSON Schema: {exc}", "declared/record-schema")
            return None
        delimiter = spec.get("delimiter", "\t" if kind == "tsv" else ",")
        columns = tuple(spec["columns"]) if spec.get("header", True) is False else None
        return FileSpec(
            role,
            given,
            "name" not in spec,
            kind,
            kind != "parquet" and bool(spec.get("gzip", given.endswith(".gz"))),
            spec.get("required", True) is not False,
            _steps(spec.get("records", "")),
            columns,
            delimiter,
            bool(spec.get("quoting", True)),
            frozenset(spec.get("missing", ())),
            schema,
            record,
        )

    def record(self, at: str, spec: dict[str, Any]) -> dict[str, Any] | None:
        if "record" in spec:
            record: Any = spec["record"]
        else:
            self.decl.schema_files.append(spec["schema"])
            try:
                record = orjson.loads(capped(self.schema_path(spec["schema"])))
            except (OSError, orjson.JSONDecodeError) as exc:
                why = exc.strerror or str(exc) if isinstance(exc, OSError) else f"not JSON: {exc}"
                self.problem(
                    at + "/schema",
                    f"the record schema {spec['schema']!r} cannot be read: {why}",
                    "declared/record-schema",
                )
                return None
        if not isinstance(record, dict):
            self.problem(at, "a record schema is a JSON object", "declared/record-schema")
            return None
        return record

    def schema_path(self, written: str) -> Path:
        """A record schema's file: one beside the declaration, part of its dataset, and not a
        link out of its folder (a declaration in a pull request may not read the runner's files)."""
        folder = self.decl.path.parent.resolve()
        path = (folder / written).resolve()
        if "/" in written or "\\" in written or path.parent != folder:
            raise OSError(f"a record schema is a file beside {self.decl.path.name}, in its folder")
        return path

    # --- names against the record schemas --------------------------------------------------

    def spec_of(self, at: str, role: str) -> FileSpec | None:
        found = self.decl.files.get(role)
        if found is None and role not in self.data["files"]:
            self.problem(at, f"{role!r} is not a file of the declaration{closest(role, list(self.data['files']))}")
        return found

    def node(self, spec: FileSpec, each: tuple[str, ...]) -> Any:
        """The schema of the node a block reads: the record's, then down `each`."""
        return _below(spec.record, each)

    def field(self, raw: Any, at: str, spec: FileSpec, each: tuple[str, ...]) -> Field:
        found = parse(raw, at, spec.flat)
        captures = spec.captures + each.count("*")
        if found.capture is not None and not 1 <= found.capture <= captures:
            said = f"{captures} key{'s' if captures != 1 else ''}" if captures else "no key"
            self.problem(found.at, f"{found.written}: records and each of {spec.role} match {said}")
        elif found.file and not spec.glob:
            self.problem(found.at, f"@file is the part of a glob's name, and {spec.role} has a name ({spec.name!r})")
        elif found.steps:
            self.name_of(found, spec.record if found.root else self.node(spec, each), spec)
        return found

    def name_of(self, found: Field, schema: Any, spec: FileSpec) -> None:
        if spec.flat:
            names = list(spec.columns) if spec.columns is not None else _names_of(spec.record)
            if names is not None and found.steps[0] not in names:
                where = "the columns" if spec.columns is not None else "the record schema"
                self.problem(
                    found.at,
                    f"{found.written!r} is not a column of {spec.role} in {where}{closest(found.steps[0], names)}",
                )
            return
        for step in found.steps:
            names = _names_of(schema)
            if names is not None and step not in names:
                said = f"{step!r} is not a field of {spec.role}'s record schema there{closest(step, names)}"
                self.problem(found.at, f"{found.written!r}: {said}")
                return
            schema = _below(schema, (step,))
            if schema is None:
                return

    def each(self, each: tuple[str, ...], at: str, spec: FileSpec) -> None:
        """The names on the way `each` goes down, against the record schema."""
        schema = spec.record
        for k, step in enumerate(each):
            names = _names_of(schema)
            if step != "*" and names is not None and step not in names:
                said = "/".join(each[: k + 1])
                self.problem(
                    at, f"{said!r}: {step!r} is not a field of {spec.role}'s record schema there{closest(step, names)}"
                )
                return
            schema = _below(schema, (step,))

    def columns(self, spec: FileSpec, each: tuple[str, ...]) -> list[str] | None:
        if spec.flat and spec.columns is not None:
            return list(spec.columns)
        return _names_of(self.node(spec, each))

    def template(
        self, written: str, at: str, spec: FileSpec, each: tuple[str, ...]
    ) -> list[tuple[str, dict[str, str]]]:
        names = self.columns(spec, each)
        if names is None:
            self.problem(at, f"{written!r}: the record schema of {spec.role} lists no fields for the template to match")
            return []
        found = Template(written, at).matches(names)
        if not found:
            probe = (
                Template(written, at).pattern().pattern.replace("(?P<rater>.+?)", "").replace("(?P<question>.+?)", "")
            )
            self.problem(at, f"{written!r} matches no field of {spec.role}{closest(probe.replace(chr(92), ''), names)}")
        return found

    # --- questions and blocks --------------------------------------------------------------

    def question(self, name: str, spec: dict[str, Any]) -> QuestionSpec:
        level = spec.get("level", "nominal")
        labels = tuple(spec["labels"]) if "labels" in spec else None
        return QuestionSpec(
            name,
            None if level == "text" else level,
            tuple(spec["values"]) if "values" in spec else None,
            labels,
            bool(spec.get("multi", False)),
            bool(spec.get("shared", True)),
            spec.get("why"),
        )

    def block(self, kind: str, k: int, spec: dict[str, Any]) -> Block | None:
        at = f"/{kind}/{k}"
        file = self.spec_of(at + "/file", spec["file"])
        if file is None:
            return None
        each = _steps(spec.get("each", ""))
        if file.flat and each:
            self.problem(at + "/each", f"each reads below a record, and a row of {file.role} is flat")
            each = ()
        self.each(each, at + "/each", file)
        raw_item = spec["item"] if isinstance(spec["item"], list) else [spec["item"]]
        item_at = at + "/item" + ("/{}" if isinstance(spec["item"], list) else "")
        item = tuple(self.field(f, item_at.format(n), file, each) for n, f in enumerate(raw_item))
        rater = self.field(spec["rater"], at + "/rater", file, each) if "rater" in spec else None
        answers = self.answers(at, spec, file, each)
        return Block(
            kind,
            at,
            file.role,
            each,
            item,
            tuple(answers),
            rater,
            spec.get("rater-kind", "person"),
            spec.get("combine"),
            spec.get("recompute"),
            spec.get("tie", "any"),
        )

    def answers(self, at: str, spec: dict[str, Any], file: FileSpec, each: tuple[str, ...]) -> list[Answer]:
        if "raters" in spec:
            out = []
            for column, said in self.template(spec["raters"], at + "/raters", file, each):
                question = said.get("question") or spec.get("question")
                if not isinstance(question, str):
                    self.problem(at + "/raters", f'{spec["raters"]!r} names no question: add question = "..."')
                    return []
                out.append(Answer(question, parse(column, at + "/raters", file.flat), said["rater"]))
            return out
        if "questions" in spec:
            return [
                Answer(name, self.value(v, f"{at}/questions/{escape_token(name)}", file, each))
                for name, v in spec["questions"].items()
            ]
        question = spec["question"]
        asked: str | Field = (
            question if isinstance(question, str) else self.field(question["field"], at + "/question/field", file, each)
        )
        return [Answer(asked, self.value(spec["value"], at + "/value", file, each))]

    def value(self, raw: Any, at: str, file: FileSpec, each: tuple[str, ...]) -> Value:
        if isinstance(raw, dict) and "one-hot" in raw:
            found = self.template(raw["one-hot"], at + "/one-hot", file, each)
            kind = raw.get("type")
            return OneHot(tuple((_typed(s["value"], kind), parse(c, at, file.flat)) for c, s in found), at)
        if isinstance(raw, dict) and "multi-hot" in raw:
            found = self.template(raw["multi-hot"], at + "/multi-hot", file, each)
            chosen = tuple((s["value"], parse(c, at, file.flat)) for c, s in found)
            return MultiHot(chosen, at, raw.get("empty", "answer") == "answer")
        if isinstance(raw, dict) and "weights" in raw:
            rules = []
            for n, entry in enumerate(raw["weights"]):
                when = tuple(
                    (self.field(name, f"{at}/weights/{n}/when/{escape_token(name)}", file, each), wanted)
                    for name, wanted in entry["when"].items()
                )
                rules.append((when, float(entry["weight"])))
            return Weights(tuple(rules), at)
        return self.field(raw, at, file, each)

    def asked(self) -> None:
        """Every question the declaration names elsewhere is one a judgments block asks: a
        misspelt one would say nothing (a scale never checked, a stored value of no question)."""
        if self.decl.problems:
            return  # the blocks are whole once their own names are right
        judged = [b for b in self.decl.blocks if b.kind == "judgments"]
        if any(not isinstance(a.question, str) for b in judged for a in b.answers):
            return  # a field names the questions: any name may be asked
        asked = sorted({str(a.question) for b in judged for a in b.answers})
        for name in self.decl.questions:
            if name not in asked:
                self.problem(
                    f"/questions/{escape_token(name)}", f"no judgments block asks {name!r}{closest(name, asked)}"
                )
        for block in self.decl.blocks:
            if block.kind != "aggregates":
                continue
            several = "questions" in self.data["aggregates"][int(block.at.rpartition("/")[2])]
            for answer in block.answers:
                name = str(answer.question)
                if name not in asked:
                    at = f"{block.at}/questions/{escape_token(name)}" if several else f"{block.at}/question"
                    self.problem(
                        at, f"no judgments block asks {name!r}, which these values are of{closest(name, asked)}"
                    )

    # --- rules -----------------------------------------------------------------------------

    def side(self, raw: dict[str, Any], at: str) -> ReferenceSide | None:
        if "judgments" in raw:
            return ReferenceSide(judgments=raw["judgments"])
        file = self.spec_of(at + "/file", raw["file"])
        if file is None:
            return None
        each = _steps(raw.get("each", ""))
        return ReferenceSide(file=file.role, each=each, field=self.field(raw["field"], at + "/field", file, each))

    def rules(self, raw: dict[str, Any]) -> Rules:
        unique = []
        for n, entry in enumerate(raw.get("unique", [])):
            at = f"/rules/unique/{n}"
            file = self.spec_of(at + "/file", entry["file"])
            if file is None:
                continue
            each = _steps(entry.get("each", ""))
            keys = entry["key"] if isinstance(entry["key"], list) else [entry["key"]]
            key_at = at + "/key" + ("/{}" if isinstance(entry["key"], list) else "")
            unique.append(
                (at, file.role, each, tuple(self.field(k, key_at.format(i), file, each) for i, k in enumerate(keys)))
            )
        references = []
        for n, entry in enumerate(raw.get("references", [])):
            at = f"/rules/references/{n}"
            source, target = self.side(entry["from"], at + "/from"), self.side(entry["to"], at + "/to")
            if source is not None and target is not None:
                references.append((at, source, target))
        bounds = raw.get("raters-per-item")
        return Rules(
            tuple(unique),
            tuple(references),
            bool(raw.get("allowed-values", True)),
            bool(raw.get("one-answer", False)),
            None if bounds is None else (bounds.get("min"), bounds.get("max")),
        )


def _typed(text: str, kind: str | None) -> Any:
    """A value a column's name gives (`is_abuse.-1` -> -1): as the type asked for, else a
    number where it reads as one."""
    if kind is not None:
        return cast(text, kind)
    value = cast(text, "number")
    return value


def _below(schema: Any, steps: tuple[str, ...]) -> Any:
    """The schema of what lies `steps` below an instance of `schema` ("*": any key or index);
    None where the schema does not say."""
    for step in steps:
        if not isinstance(schema, dict):
            return None
        props = schema.get("properties") or {}
        if step != "*" and step in props:
            schema = props[step]
        elif isinstance(schema.get("items"), dict):
            schema = schema["items"]
        elif isinstance(schema.get("additionalProperties"), dict):
            schema = schema["additionalProperties"]
        elif isinstance(schema.get("patternProperties"), dict) and len(schema["patternProperties"]) == 1:
            schema = next(iter(schema["patternProperties"].values()))
        else:
            return None
    return schema


def _names_of(schema: Any) -> list[str] | None:
    """The names of an object's fields, where its schema lists them and takes no other names
    by a pattern or a schema for the rest; None where any name may be a field."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return None
    if schema.get("patternProperties") or isinstance(schema.get("additionalProperties"), dict):
        return None
    return list(schema["properties"])


__all__ = [
    "Answer",
    "Block",
    "Declaration",
    "DeclarationError",
    "FileSpec",
    "MultiHot",
    "OneHot",
    "QuestionSpec",
    "ReferenceSide",
    "Rules",
    "Weights",
    "closest",
    "read",
]
