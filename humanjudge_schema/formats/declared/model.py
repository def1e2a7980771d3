"""What the check of a declared dataset gathers for the rules, as its files are read: each
question's individual judgments by item, the stored aggregates, the keys and the values the
rules compare, and the problems the blocks met while mapping rows to judgments."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...engine import Where
from ...judgments.view import hashable
from .declaration import Block, Declaration, ReferenceSide
from .fields import ABSENT, Field, Known
from .mapping import Mapped, Mapper, item_of
from .records import Rows
from .toml import TomlDocument

Spot = tuple[Where, str]  # (document, pointer)


@dataclass(frozen=True)
class Said:
    """What is wrong with a declaration, found as it was read: (code, pointer, message)."""

    doc: Any  # a toml.TomlDocument, or a document placing a TOML syntax error
    problems: list[tuple[str, str, str]]


@dataclass(frozen=True)
class Stored:
    """A value a file stores over raters it does not name."""

    block: Block
    question: str
    item: Any
    value: Any
    doc: Where
    pointer: str


@dataclass
class Model:
    """A declared dataset as its rules see it."""

    decl: Declaration
    doc: TomlDocument  # the declaration, where findings about it point
    tolerance: float = 1e-9
    # question -> item -> [(rater, value, document, pointer)]: the individual judgments
    judged: dict[str, dict[Any, list[tuple[Any, Any, Where, str]]]] = field(default_factory=dict)
    stored: list[Stored] = field(default_factory=list)
    problems: list[tuple[str, Where, str, str]] = field(default_factory=list)
    made: dict[str, int] = field(default_factory=dict)  # block -> judgments made
    read: dict[str, int] = field(default_factory=dict)  # block -> files read
    records: dict[str, int] = field(default_factory=dict)  # block -> records read
    # unique rule -> key -> where it first is; and the keys met again
    keys: dict[str, dict[Any, Spot]] = field(default_factory=dict)
    repeated: dict[str, list[tuple[Any, Spot, Spot]]] = field(default_factory=dict)
    # reference rule -> its `from` values with where each is, and its `to` values
    sources: dict[str, list[tuple[Any, Where, str]]] = field(default_factory=dict)
    targets: dict[str, Known] = field(default_factory=dict)
    # the roles with a file that is absent or could not be read whole
    unread: set[str] = field(default_factory=set)
    # What the rules of the individual judgments need, gathered as they come, each only where
    # a rule asks for it (the judgments themselves only of the questions with stored aggregates):
    # a value off its scale; (question, item) -> rater -> where first; a rater's answer again.
    outside: list[tuple[str, Any, Where, str]] = field(default_factory=list)
    raters: dict[tuple[str, Any], dict[Any, Spot]] = field(default_factory=dict)
    again: list[tuple[str, Any, Any, Where, str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        rules = self.decl.rules
        scales = {name: q.values for name, q in self.decl.questions.items() if q.values is not None and not q.multi}
        self.scales = {name: Known(v) for name, v in scales.items()} if rules.allowed_values else {}
        self.per_item = rules.one_answer or rules.raters_per_item is not None
        self.recomputed = {
            a.question
            for b in self.decl.blocks
            if b.kind == "aggregates" and b.recompute not in (None, "none")
            for a in b.answers
            if isinstance(a.question, str)
        }

    def whole(self, side: ReferenceSide) -> bool:
        """Whether every value of a side was read: its file's, or the judgments' (every file
        with judgments)."""
        if side.file is not None:
            return side.file not in self.unread
        return not any(b.file in self.unread for b in self.decl.blocks if b.kind == "judgments")

    def mappers(self, role: str, lines: bool) -> list[Mapper]:
        """A mapper for each block of a role's file (one per file read); `lines`: whether the
        judgments it hands on need their lines (a view's do)."""
        return [Mapper(self.decl, b, lines) for b in self.decl.blocks if b.file == role]

    def take(self, role: str, rows: Rows, mappers: list[Mapper]) -> list[tuple[Block, Mapped]]:
        """A piece of a role's file: what each block makes of it, noted and handed on."""
        made = [(mapper.block, mapper.feed(rows)) for mapper in mappers]
        for block, out in made:
            self.mapped(block, out)
        for at, file, each, key in self.decl.rules.unique:
            if file == role:
                self._keys(at, rows.below(each), key)
        for at, source, target in self.decl.rules.references:
            for side, into in ((source, True), (target, False)):
                if side.file == role and side.field is not None:
                    self._side(at, side, rows, into)
        return made

    def end(self, mappers: list[Mapper]) -> list[tuple[Block, Mapped]]:
        """A file read to its end: its blocks' combined judgments, noted and handed on."""
        made = []
        for mapper in mappers:
            self.records[mapper.block.at] = self.records.get(mapper.block.at, 0) + mapper.records
            self.read[mapper.block.at] = self.read.get(mapper.block.at, 0) + 1
            if mapper.block.combine is not None:
                out = mapper.end()
                self.mapped(mapper.block, out)
                made.append((mapper.block, out))
        return made

    def mapped(self, block: Block, out: Mapped) -> None:
        self.problems += out.problems
        self.made[block.at] = self.made.get(block.at, 0) + len(out)
        doc = out.doc
        if block.kind == "aggregates":
            for question, item, value, ptr in zip(out.question, out.item, out.value, out.pointer, strict=True):
                self.stored.append(Stored(block, question, item, value, doc, ptr))
            return
        scales, per_item, recomputed = self.scales, self.per_item, self.recomputed
        for question, item, rater, value, ptr in zip(
            out.question, out.item, out.rater, out.value, out.pointer, strict=True
        ):
            if question in recomputed:
                self.judged.setdefault(question, {}).setdefault(item, []).append((rater, value, doc, ptr))
            scale = scales.get(question)
            if scale is not None and not isinstance(value, list) and value not in scale:
                self.outside.append((question, value, doc, ptr))
            if per_item and rater != "":
                seen = self.raters.setdefault((question, item), {})
                key = hashable(rater)
                if key in seen:
                    self.again.append((question, item, rater, doc, ptr, seen[key][1]))
                else:
                    seen[key] = (doc, ptr)
        for at, source, target in self.decl.rules.references:
            for side, into in ((source, True), (target, False)):
                if side.judgments is not None:
                    self._judged(at, side, out, into)

    def _keys(self, at: str, rows: Rows, key: tuple[Field, ...]) -> None:
        seen = self.keys.setdefault(at, {})
        again = self.repeated.setdefault(at, [])
        parts = [rows.values(f) for f in key]
        where = rows.pointers(key[0])
        for i, row in enumerate(zip(*parts, strict=True)):
            if any(p is ABSENT for p in row):
                continue
            value = item_of(list(row))
            spot = (rows.doc, where[i])
            first = seen.setdefault(value, spot)
            if first is not spot:
                again.append((value, first, spot))

    def _side(self, at: str, side: ReferenceSide, rows: Rows, into: bool) -> None:
        assert side.field is not None
        nodes = rows.below(side.each)
        values = nodes.values(side.field)
        if into:
            where = nodes.pointers(side.field)
            found = self.sources.setdefault(at, [])
            for value, ptr in zip(values, where, strict=True):
                for one in value if isinstance(value, list) else [value]:
                    if one is not ABSENT:
                        found.append((one, rows.doc, ptr))
        else:
            target = self.targets.setdefault(at, Known())
            for value in values:
                target.update(v for v in (value if isinstance(value, list) else [value]) if v is not ABSENT)

    def _judged(self, at: str, side: ReferenceSide, out: Mapped, into: bool) -> None:
        column = {"item": out.item, "rater": out.rater, "value": out.value}[side.judgments or ""]
        if into:
            found = self.sources.setdefault(at, [])
            found += [(v, out.doc, p) for v, p in zip(column, out.pointer, strict=True) if v != ""]
        else:
            self.targets.setdefault(at, Known()).update(v for v in column if not isinstance(v, list))


__all__ = ["Model", "Stored"]
