"""What a block of a declaration makes of the rows it reads: judgments (one rater's answers, or
values stored over raters the file does not name), column by column, with where each one is,
and the problems met on the way (an answer that cannot be placed, one-hot columns that do not
say one value, lists of raters and values of unequal length, a row no weight is declared for).

One `Mapper` per block and file: rows of one item, rater and question are combined (`combine`)
when the file ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import orjson

from ...engine import Document
from .declaration import Answer, Block, Declaration, MultiHot, OneHot, Weights
from .fields import ABSENT, Field, Known, text
from .records import Rows

_TRUE = frozenset({"1", "true", "True", "TRUE", "yes"})


def truthy(cell: Any) -> bool:
    """Whether a one-hot cell says its value: 1, true, "1"."""
    if cell is True or (type(cell) in (int, float) and cell == 1):
        return True
    return isinstance(cell, str) and cell.strip() in _TRUE


def item_of(parts: list[Any]) -> Any:
    """An item named by several fields: their values joined by "/" (one field: its value)."""
    if len(parts) == 1:
        return parts[0]
    return "/".join(map(text, parts))


@dataclass
class Mapped:
    """Judgments column by column (role and rater kind shared by the block), and problems as
    (code, document, pointer, message)."""

    role: str
    rater_kind: str
    item: list[Any] = field(default_factory=list)
    rater: list[Any] = field(default_factory=list)
    question: list[str] = field(default_factory=list)
    option: list[Any] = field(default_factory=list)
    value: list[Any] = field(default_factory=list)
    pointer: list[str] = field(default_factory=list)
    line: list[int | None] = field(default_factory=list)
    doc: Document | None = None
    problems: list[tuple[str, Any, str, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.value)

    def add(
        self, item: Any, rater: Any, question: str, option: Any, value: Any, pointer: str, line: int | None
    ) -> None:
        self.item.append(item)
        self.rater.append(rater)
        self.question.append(question)
        self.option.append(option)
        self.value.append(value)
        self.pointer.append(pointer)
        self.line.append(line)


class Mapper:
    """A block's reading of one file."""

    def __init__(self, decl: Declaration, block: Block, lines: bool = True) -> None:
        self.decl, self.block = decl, block
        self.lines = lines  # whether each judgment's line is wanted (a check without a view's: no)
        self.records = 0  # nodes read (records, or the nodes `each` found)
        self.groups: dict[tuple[Any, Any, str], list[Any]] = {}  # combine: [value, pointer, line]
        self.doc: Document | None = None

    def feed(self, rows: Rows) -> Mapped:
        block = self.block
        nodes = rows.below(block.each)
        self.records += len(nodes)
        self.doc = rows.doc
        role = "aggregate" if block.kind == "aggregates" else "individual"
        out = Mapped(role, "none" if block.rater is None and role == "aggregate" else block.rater_kind, doc=rows.doc)
        if not len(nodes):
            return out
        items = _items(block, nodes)
        raters = _raters(nodes.values(block.rater)) if block.rater is not None else None
        lines: list[int | None] = nodes.lines() if self.lines else [None] * len(nodes)
        for answer in block.answers:
            self._answer(answer, nodes, items, raters, lines, out)
        if block.combine is not None:
            self._group(out)
            return Mapped(out.role, out.rater_kind, doc=out.doc, problems=out.problems)
        return out

    def end(self) -> Mapped:
        """The combined judgments of the file (`combine`), once it has been read."""
        out = Mapped("individual", self.block.rater_kind, doc=self.doc)
        for (item, rater, question), (value, ptr, line) in self.groups.items():
            out.add(item, rater, question, "", value, ptr, line)
        self.groups = {}
        return out

    def _group(self, out: Mapped) -> None:
        count = self.block.combine == "count"
        groups = self.groups
        for item, rater, question, value, ptr, line in zip(
            out.item, out.rater, out.question, out.value, out.pointer, out.line, strict=True
        ):
            key = (item, rater, question)
            add = 1 if count else value
            had = groups.get(key)
            if had is None:
                groups[key] = [add, ptr, line]
            elif isinstance(had[0], (int, float)) and isinstance(add, (int, float)):
                had[0] += add

    def _answer(
        self,
        answer: Answer,
        nodes: Rows,
        items: list[Any],
        raters: list[Any] | None,
        lines: list[int | None],
        out: Mapped,
    ) -> None:
        n = len(nodes)
        values, pointers = self._values(answer.value, nodes, out)
        if isinstance(answer.question, Field):
            questions: list[Any] = nodes.values(answer.question)
        else:
            questions = [answer.question] * n
        if answer.rater is not None:
            raters = [answer.rater] * n
        if isinstance(answer.question, str) and _plain(values, items, raters):
            self._plain(answer.question, values, items, raters, pointers, lines, out)
            return
        aggregate = out.role == "aggregate"
        for i in range(n):
            value = values[i]
            if value is ABSENT:
                continue
            item, question = items[i], questions[i]
            if item is ABSENT:
                out.problems.append(
                    (
                        "declared/unplaced",
                        nodes.doc,
                        pointers[i],
                        "a value whose item is missing: " + self._said(self.block.item),
                    )
                )
                continue
            if question is ABSENT:
                out.problems.append(("declared/unplaced", nodes.doc, pointers[i], "a value whose question is missing"))
                continue
            question = str(question)
            rater = "" if raters is None else raters[i]
            if rater is ABSENT:
                out.problems.append(
                    (
                        "declared/unplaced",
                        nodes.doc,
                        pointers[i],
                        f"a value whose rater ({self.block.rater and self.block.rater.written}) is missing",
                    )
                )
                continue
            spec = self.decl.question(question)
            if isinstance(rater, list):
                self._listed(item, rater, question, value, pointers[i], lines[i], out, spec.multi)
                continue
            if isinstance(value, list) and not spec.multi and not aggregate:
                out.problems.append(
                    (
                        "declared/unpaired",
                        nodes.doc,
                        pointers[i],
                        f"a list of {len(value)} values and one rater ({rater!r}): "
                        "declare the question multi, or list the raters",
                    )
                )
                continue
            if spec.multi and isinstance(value, list):
                value = self._selected(value, spec.labels)
            out.add(item, rater, question, "", value, pointers[i], lines[i])

    @staticmethod
    def _plain(
        question: str,
        values: list[Any],
        items: list[Any],
        raters: list[Any] | None,
        pointers: list[str],
        lines: list[int | None],
        out: Mapped,
    ) -> None:
        """The usual rows, a column at a time: every value is one judgment, placed."""
        keep = [i for i, v in enumerate(values) if v is not ABSENT]
        if not keep:
            return
        pick = itemgetter(*keep)
        one = len(keep) == 1
        sources: list[tuple[list[Any], list[Any]]] = [
            (out.item, items),
            (out.value, values),
            (out.pointer, pointers),
            (out.line, lines),
        ]
        if raters is not None:
            sources.append((out.rater, raters))
        for column, source in sources:
            column.extend((pick(source),) if one else pick(source))
        if raters is None:
            out.rater.extend([""] * len(keep))
        out.question.extend([question] * len(keep))
        out.option.extend([""] * len(keep))

    def _listed(
        self,
        item: Any,
        raters: list[Any],
        question: str,
        value: Any,
        ptr: str,
        line: int | None,
        out: Mapped,
        multi: bool,
    ) -> None:
        """Raters listed for one value (raters per label), or raters and values in parallel."""
        if isinstance(value, list) and not multi:
            if len(value) != len(raters):
                out.problems.append(
                    ("declared/unpaired", out.doc, ptr, f"{len(raters)} raters and {len(value)} values")
                )
                return
            for rater, one in zip(raters, value, strict=True):
                out.add(item, rater, question, "", one, ptr, line)
            return
        for rater in raters:
            out.add(item, rater, question, "", value, ptr, line)

    @staticmethod
    def _selected(value: list[Any], labels: tuple[str, ...] | None) -> list[Any]:
        """A multi-select answer as a list of 0/1 per option, from the options chosen."""
        if labels is None or (value and all(v in (0, 1) for v in value)):
            return value
        chosen = {str(v) for v in value}
        return [int(label in chosen) for label in labels]

    @staticmethod
    def _said(fields: tuple[Field, ...]) -> str:
        return ", ".join(f.written for f in fields)

    def _values(self, spec: Any, nodes: Rows, out: Mapped) -> tuple[list[Any], list[str]]:
        """Each node's value of an answer, and where it is."""
        if isinstance(spec, Field):
            return nodes.values(spec), nodes.pointers(spec)
        if isinstance(spec, OneHot):
            return self._one_hot(spec, nodes, out)
        if isinstance(spec, MultiHot):
            return self._multi_hot(spec, nodes), nodes.pointers(spec.columns[0][1] if spec.columns else None)
        assert isinstance(spec, Weights)
        return self._weights(spec, nodes, out)

    @staticmethod
    def _multi_hot(spec: MultiHot, nodes: Rows) -> list[Any]:
        columns = [nodes.values(f) for _, f in spec.columns]
        values: list[Any] = []
        for cells in zip(*columns, strict=True):
            chosen = [int(truthy(c)) for c in cells]
            answered = spec.empty or any(chosen)
            values.append(chosen if answered and not all(c is ABSENT for c in cells) else ABSENT)
        return values

    def _one_hot(self, spec: OneHot, nodes: Rows, out: Mapped) -> tuple[list[Any], list[str]]:
        columns = [nodes.values(f) for _, f in spec.columns]
        where = [nodes.pointers(f) for _, f in spec.columns]
        row = nodes.pointers(None)
        values: list[Any] = []
        pointers: list[str] = []
        names = " ".join(f.written for _, f in spec.columns[:2]) + (" ..." if len(spec.columns) > 2 else "")
        for i, cells in enumerate(zip(*columns, strict=True)):
            if all(c is ABSENT for c in cells):
                values.append(ABSENT)
                pointers.append(row[i])
                continue
            on = [k for k, c in enumerate(cells) if truthy(c)]
            if len(on) != 1:
                said = "none" if not on else ", ".join(spec.columns[k][1].written for k in on)
                out.problems.append(
                    ("declared/one-hot", nodes.doc, row[i], f"one of the columns {names} says the value; here {said}")
                )
                values.append(ABSENT)
                pointers.append(row[i])
                continue
            values.append(spec.columns[on[0]][0])
            pointers.append(where[on[0]][i])
        return values, pointers

    def _weights(self, spec: Weights, nodes: Rows, out: Mapped) -> tuple[list[Any], list[str]]:
        named: dict[str, Field] = {}
        for when, _ in spec.rules:
            for f, _wanted in when:
                named.setdefault(f.written, f)
        cells = {name: nodes.values(f) for name, f in named.items()}
        row = nodes.pointers(None)
        # the most specific first, each wanted value as the rules compare values
        rules = [
            (tuple((f.written, Known((wanted,))) for f, wanted in when), weight)
            for when, weight in sorted(spec.rules, key=lambda r: -len(r[0]))
        ]
        values: list[Any] = []
        for i in range(len(nodes)):
            found = next(
                (weight for when, weight in rules if all(cells[name][i] in wanted for name, wanted in when)),
                None,
            )
            if found is None:
                said = ", ".join(f"{name}={cells[name][i]!r}" for name in named)
                out.problems.append(("declared/no-weight", nodes.doc, row[i], f"no declared weight is for {said}"))
                values.append(ABSENT)
            else:
                values.append(found)
        return values, row


def _raters(values: list[Any]) -> list[Any]:
    """Raters as keys: a list of them stays a list (raters listed for one value), of keys."""
    if list not in set(map(type, values)):
        return keyed(values)
    return [keyed(v) if isinstance(v, list) else keyed([v])[0] for v in values]


def _plain(values: list[Any], items: list[Any], raters: list[Any] | None) -> bool:
    """Whether rows are the usual ones (no list of values or raters, every item and rater
    given), decided a column at a time in C."""
    return (
        list not in set(map(type, values))
        and ABSENT not in items
        and (raters is None or (ABSENT not in raters and list not in set(map(type, raters))))
    )


_IDS = frozenset({str, int, float, bool})


def keyed(values: list[Any]) -> list[Any]:
    """Ids as keys: a value that is no text or number (an object where an id should be, which
    the record schema reports) as its JSON text."""
    if set(map(type, values)) <= _IDS or all(type(v) in _IDS or v is ABSENT for v in values):
        return values
    return [
        v if type(v) in _IDS or v is ABSENT else orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode() for v in values
    ]


def _items(block: Block, nodes: Rows) -> list[Any]:
    """Each node's item; of several fields, one that is empty is "" (a first turn has no
    previous one), all of them empty is no item."""
    parts = [keyed(nodes.values(f)) for f in block.item]
    if len(parts) == 1:
        return parts[0]
    if not any(ABSENT in p for p in parts):
        texts = [p if set(map(type, p)) <= {str} else list(map(text, p)) for p in parts]
        return list(map("/".join, zip(*texts, strict=True)))
    return [
        ABSENT if all(p is ABSENT for p in row) else item_of(["" if p is ABSENT else p for p in row])
        for row in zip(*parts, strict=True)
    ]


__all__ = ["Mapped", "Mapper", "item_of", "truthy"]
