"""The schema stage and the context that turns problems, schema errors and rule hits into
findings with a file, a severity and (only when something is reported) a line and column."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from .codes import schema_code
from .finding import Finding, Severity, pointer, split_pointer
from .readers.files import Problem, display_path
from .registry import RULES, severity_of
from .schemas import validator

if TYPE_CHECKING:
    from .config import Config


class Document(Protocol):
    """What a finding points into: a parsed file that can say where its pointers are."""

    @property
    def path(self) -> Path: ...

    def positions(self, pointers: list[str]) -> Mapping[str, tuple[int, int | None]]: ...


# Where a finding is: a document, a file that did not parse (its Path), or nothing (the unit).
Where = Document | Path | None
Hit = tuple[Where, str, str]  # (document, pointer, message) as yielded by rules


def _short(value: Any, limit: int = 60) -> str:
    text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message(error: Any) -> str:
    message = str(error.message)
    if len(message) > 200:
        full = orjson.dumps(error.instance, option=orjson.OPT_NON_STR_KEYS).decode()
        if message.startswith(full):
            message = _short(error.instance) + message[len(full) :]
        if len(message) > 300:
            message = message[:299] + "…"
    return message


_ABSENT: Any = object()


def _child(node: Any, token: Any) -> Any:
    if isinstance(node, dict):
        return node.get(token, _ABSENT) if isinstance(token, str) else _ABSENT
    if isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node):
        return node[token]
    return _ABSENT


def _may_lose_keys(data: Any, tokens: list[Any]) -> bool:
    """Whether an instance path may lack an empty key: jsonschema-rs (0.60) leaves every object
    key "" out of `instance_path`, so a path through or to an object that has one, or a path
    that does not resolve, is suspect. Any other path is exact (the common case, decided in a
    few lookups)."""
    node = data
    for token in tokens:
        if isinstance(node, dict) and "" in node:
            return True
        node = _child(node, token)
        if node is _ABSENT:
            return True
    return isinstance(node, dict) and "" in node


def _with_empty_keys(node: Any, tokens: list[Any], instance: Any) -> list[Any] | None:
    """The path to `instance` that is `tokens` with keys "" put back where objects have them."""
    if not tokens and node == instance:
        return []
    if tokens:
        child = _child(node, tokens[0])
        if child is not _ABSENT:
            rest = _with_empty_keys(child, tokens[1:], instance)
            if rest is not None:
                return [tokens[0], *rest]
    if isinstance(node, dict) and "" in node:
        rest = _with_empty_keys(node[""], tokens, instance)
        if rest is not None:
            return ["", *rest]
    return None


def _instance_path(data: Any, error: Any) -> list[Any]:
    tokens = list(error.instance_path)
    if not _may_lose_keys(data, tokens):
        return tokens
    try:
        found = _with_empty_keys(data, tokens, error.instance)
    except RecursionError:
        found = None
    return tokens if found is None else found


# The one error of a document whose errors the engine cannot hand over (values nested past its
# 255 levels): no part of it is known to be intact.
UNLOCATED = "the document breaks its schema where values are nested too deep to say where"


def schema_errors(name: str, data: Any) -> list[tuple[str, str, str]]:
    """(code, pointer, message) for every error of `data` against the named schema."""
    checker = validator(name)
    if checker.is_valid(data):  # a fifth faster than collecting no errors, and the usual case
        return []
    out = []
    try:
        errors = list(checker.iter_errors(data))
    except ValueError as exc:  # an error's value nested too deep for the engine to hand over
        if "recursion" not in str(exc).lower():
            raise
        return [("schema/invalid", "", UNLOCATED)]
    for error in errors:
        kind = type(error.kind).__name__
        code = schema_code(kind)
        if kind == "Constant":
            code = "schema/const"
        elif kind.startswith("OneOf"):
            code = "schema/one-of"
        if code not in RULES:
            code = "schema/invalid"
        out.append((code, pointer(*_instance_path(data, error)), _message(error)))
    return out


@dataclass
class _Pending:
    code: str
    message: str
    doc: Where
    pointer: str
    line: int | None
    column: int | None
    _rank: tuple[Any, ...] | None = field(default=None, repr=False, compare=False)

    def rank(self) -> tuple[Any, ...]:
        """Where the finding stands among those of its code and file, known before positions are:
        by line when it has one, else by pointer, array indices as numbers."""
        if self._rank is None:
            steps = tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in split_pointer(self.pointer))
            self._rank = (self.line or 0, steps, self.pointer, self.message)
        return self._rank


def _path(doc: Where) -> Path | None:
    """The file a finding is about: a Path itself, or the path of a document."""
    return doc if isinstance(doc, Path) or doc is None else doc.path


_Key = tuple[Path | None, str]  # (file, code)
_Point = tuple[dict[_Key, list[_Pending]], int, dict[_Key, int]]


@dataclass
class Context:
    """What a family's check sees: the configuration and a place to put findings.

    Findings are kept per file and code. Past config.max_per_code of them the rest are only
    counted, and the ones kept are the first by `_Pending.rank`, whatever order the checks
    found them in (a file checked in runs lists what it lists checked whole); so a file broken
    on every line costs a count, not a finding per line.
    """

    config: Config
    cwd: str | None = None
    root: Path | None = None  # the unit's folder or file: where a finding with no document goes
    pending: dict[_Key, list[_Pending]] = field(default_factory=dict)
    documents: list[Document] = field(default_factory=list)  # what the unit parsed (see check_unit's keep)
    counts: dict[_Key, int] = field(default_factory=dict)  # findings noted, kept or not

    def _note(self, p: _Pending) -> None:
        key = (_path(p.doc), p.code)
        n = self.counts[key] = self.counts.get(key, 0) + 1
        kept = self.pending.setdefault(key, [])
        limit = self.config.max_per_code
        if limit and n > len(kept) + 1 and p.rank() >= kept[limit - 1].rank():
            return  # the list was cut (its first `limit` are sorted): this one comes after them all
        kept.append(p)
        if limit and len(kept) >= 2 * limit:  # sorted and cut now and then: bounded, and cheap
            kept.sort(key=_Pending.rank)
            del kept[limit:]

    def checkpoint(self) -> _Point:
        """A point to come back to with `rollback`."""
        return {k: list(v) for k, v in self.pending.items()}, len(self.documents), dict(self.counts)

    def rollback(self, point: _Point) -> None:
        """Forget every finding and document noted since the checkpoint."""
        self.pending, documents, self.counts = point
        del self.documents[documents:]

    def parsed(self, doc: Document) -> None:
        """Note a document the unit parsed (findings may point into it; see check_unit's keep)."""
        self.documents.append(doc)

    def problems(self, path: Path, problems: Iterable[Problem], doc: Document | None = None) -> None:
        if doc is not None:
            self.parsed(doc)
        for p in problems:
            where = doc if doc is not None and p.line is None else path
            self._note(_Pending(p.code, p.message, where, p.pointer, p.line, p.column))

    def add(self, code: str, doc: Where, ptr: str, message: str) -> None:
        self._note(_Pending(code, message, doc, ptr, None, None))

    def schema(self, name: str, doc: Where, data: Any, prefix: str = "") -> bool:
        """Check data against a schema; report errors; True when it is valid."""
        errors = schema_errors(name, data)
        for code, ptr, message in errors:
            self.add(code, doc, prefix + ptr, message)
        return not errors

    def run(self, rule: Callable[..., Iterable[Hit]], *args: Any) -> None:
        """Run one registered rule and report what it yields."""
        code: str = rule.code  # type: ignore[attr-defined]
        if not self.config.wants(code):
            return
        try:
            for doc, ptr, message in rule(*args):
                self.add(code, doc, ptr, message)
        except Exception as exc:  # a rule bug must not hide every other finding
            self.add("engine/internal-error", self.root, "", f"rule {code} failed: {exc!r}")

    def findings(self) -> list[Finding]:
        """Resolve positions (one pass per document) and apply the configuration."""
        limit = self.config.max_per_code
        every: list[_Pending] = []
        for kept in self.pending.values():
            if limit and len(kept) > limit:
                kept.sort(key=_Pending.rank)
                del kept[limit:]
            every += kept
        by_doc: dict[int, tuple[Document, list[_Pending]]] = {}
        for p in every:
            if p.line is None and p.doc is not None and not isinstance(p.doc, Path):
                by_doc.setdefault(id(p.doc), (p.doc, []))[1].append(p)
        located: dict[tuple[int, str], tuple[int, int | None]] = {}
        for doc, items in by_doc.values():
            try:
                spots = doc.positions(sorted({p.pointer for p in items}))
            except Exception:  # a position is a courtesy
                spots = {}
            for ptr, pos in spots.items():
                located[(id(doc), ptr)] = pos
        out = []
        for p in every:
            path = _path(p.doc)
            line, col = p.line, p.column
            if line is None and p.doc is not None and not isinstance(p.doc, Path):
                line, col = located.get((id(p.doc), p.pointer), (None, None))
            finding = self._finding(p.code, path, p.message, p.pointer, line, col)
            if finding is not None:
                out.append(finding)
        for (path, code), n in self.counts.items():
            if limit and n > limit:
                message = (
                    f"{n - limit:,} more {code} findings in this file are not listed (the first {limit:,} "
                    "are; --max-per-code 0 lists every one)"
                )
                finding = self._finding(code, path, message, more=n - limit)
                if finding is not None:
                    out.append(finding)
        out.sort(key=Finding.sort_key)
        return out

    def _finding(
        self,
        code: str,
        path: Path | None,
        message: str,
        ptr: str = "",
        line: int | None = None,
        col: int | None = None,
        more: int = 0,
    ) -> Finding | None:
        """The finding as configured: its severity, or None when the configuration drops it."""
        severity = self.config.severity(code, severity_of(code))
        if severity is None or not self.config.wants(code, path):
            return None
        file = display_path(path, self.cwd) if path is not None else ""
        return Finding(code, severity, message, file, ptr, line, col, more)


__all__ = ["Context", "Document", "Hit", "Severity", "Where", "schema_errors"]
