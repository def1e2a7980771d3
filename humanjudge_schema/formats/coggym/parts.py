"""What is intact of a CogGym document that broke its schema, and the facts of a query read from
it.

Where a schema error lies, the object holding it is replaced by an `Intact` that keeps every
member that is intact; a rule that needs a member an Intact lacks skips it, the schema error being
the one finding of its cause (model.py reads every document through the cleaners here).
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from ...finding import escape_token
from ...readers.jsonfile import JsonlDocument

# --- what is intact of each document -------------------------------------------------------------


class Intact(dict[str, Any]):
    """What is intact of an object that failed its schema: the members with no schema error at
    or under them, and what is intact of the containers read piece by piece (queries, stimuli,
    flow blocks, the human data's stimuli). `broken` names every member that has an error at or
    under it and every required member that is absent."""

    __slots__ = ("broken",)

    def __init__(self, members: dict[str, Any], broken: frozenset[str]) -> None:
        super().__init__(members)
        self.broken = broken


_INTACT: frozenset[str] = frozenset()


def broken_of(obj: Any) -> frozenset[str]:
    """The members of an object that broke its schema (none for an intact object)."""
    return obj.broken if isinstance(obj, Intact) else _INTACT


def keys_of(obj: dict[str, Any]) -> list[str]:
    """Every member name of an object as read, intact or not (broken scalars are left out of a
    Intact's members but are still keys of the object)."""
    broken = broken_of(obj)
    return list(obj) + [k for k in broken if k not in obj] if broken else list(obj)


_REQUIRED = re.compile(r'(".*") is a required property')


@dataclass
class Damage:
    """Where a value's schema errors lie: every pointer at or above an error, the values that
    are themselves wrong (an error at their own pointer other than a missing member: the wrong
    type, too few items), and the required members absent from each object."""

    under: set[str] = field(default_factory=set)
    wrong: set[str] = field(default_factory=set)
    # the messages of the required errors of each object, read only for the objects kept
    required: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, errors: list[tuple[str, str, str]]) -> Damage:
        under: set[str] = set()
        wrong: set[str] = set()
        required: dict[str, list[str]] = {}
        for code, ptr, message in errors:  # a file broken everywhere has millions: kept lean
            if code == "schema/required":
                required.setdefault(ptr, []).append(message)
            else:
                wrong.add(ptr)
            while ptr not in under:
                under.add(ptr)
                if not ptr:
                    break
                ptr = ptr[: ptr.rindex("/")]
        return cls(under, wrong, required)

    def absent(self, ptr: str) -> set[str]:
        """The required members the object at ptr lacks, as the schema's messages name them."""
        names = set()
        for message in self.required.get(ptr, ()):
            if m := _REQUIRED.fullmatch(message):
                with contextlib.suppress(orjson.JSONDecodeError):
                    names.add(orjson.loads(m.group(1)))
        return names


Cleaner = Callable[[Any, str, Damage], Any]


def _part(
    value: Any, ptr: str, damage: Damage, keep: dict[str, Cleaner] | None = None, other: Cleaner | None = None
) -> Any:
    """`value` itself when no error lies at or under it; else, for an object whose errors lie
    in its members (or are members it lacks), an Intact of its intact members plus what `keep` (by
    name) or `other` (any other name) keeps of the broken ones; else None."""
    if ptr not in damage.under:
        return value
    if not isinstance(value, dict) or ptr in damage.wrong:
        return None
    members: dict[str, Any] = {}
    broken = damage.absent(ptr)
    for key, member in value.items():
        at = f"{ptr}/{escape_token(key)}"
        if at not in damage.under:
            members[key] = member
            continue
        broken.add(key)
        clean = keep.get(key, other) if keep else other
        kept = clean(member, at, damage) if clean is not None else None
        if kept is not None:
            members[key] = kept
    return Intact(members, frozenset(broken))


def _each(clean: Cleaner) -> Cleaner:
    """A cleaner for a list whose errors lie in its elements: positions are kept, a broken
    element becomes what `clean` keeps of it (None when nothing). A list that is itself wrong
    (too short, not a list) is dropped: its length means nothing."""

    def run(value: Any, ptr: str, damage: Damage) -> Any:
        if not isinstance(value, list) or ptr in damage.wrong:
            return None
        return [clean(x, f"{ptr}/{i}", damage) for i, x in enumerate(value)]

    return run


def _fields(keep: dict[str, Cleaner] | None = None, other: Cleaner | None = None) -> Cleaner:
    return functools.partial(_part, keep=keep, other=other)


_slider = _fields({"labels": _each(_fields())})
_query = _fields({"slider_config": _slider})
_queries = _each(_query)
clean_trial = _fields({"stimuli": _each(_fields()), "queries": _queries})
clean_module = _fields({"queries": _queries})
_ids = _each(_each(_part))  # blocks: lists of ids; a broken id becomes None
clean_config = _fields(
    {
        "responseType": _each(_part),
        "experimentFlow": _each(_fields({"blocks": _ids, "sequences": _each(_fields({"blocks": _ids}))})),
    }
)
# Human data: a stimulus keeps its intact tags; an ind response array with an error inside is
# left out (rules that only count its elements read it as read, see Experiment.response_lists);
# a mean object keeps its intact option keys.
_metadata: dict[str, Cleaner] = {"participants_info": _fields(), "judgment_count": lambda *_: None}
clean_ind = _fields(_metadata, other=_fields())
clean_mean = _fields(_metadata, other=_fields(other=_fields()))


def objects(items: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """(position, object) of the objects of a list that can be read (a broken element is None)."""
    if isinstance(items, list):
        for k, x in enumerate(items):
            if isinstance(x, dict):
                yield k, x


# --- facts of a query -------------------------------------------------------------------------


def clicks_of(q: dict[str, Any]) -> int | None:
    """num_clicks of a slider query (1 when absent); None when its slider_config cannot be read."""
    cfg = q.get("slider_config")
    if not isinstance(cfg, dict):
        return None
    if "num_clicks" in cfg:
        clicks: int = cfg["num_clicks"]
        return clicks
    return None if "num_clicks" in broken_of(cfg) else 1


def slider_range(q: dict[str, Any]) -> tuple[float, float] | None:
    """(min, max) of a slider query, or None when they cannot be read."""
    cfg = q.get("slider_config")
    if isinstance(cfg, dict) and "min" in cfg and "max" in cfg:
        return cfg["min"], cfg["max"]
    return None


@dataclass
class Records:
    """The records of one JSON Lines file as the model reads them."""

    doc: JsonlDocument | None = None
    # (record index, record) of every record that is an object, with only its intact parts
    readable: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    # id -> (record index, record): the first record of each id that can be read
    by_id: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    # lines whose record did not parse or is not an object
    unread: list[int] = field(default_factory=list)
    # lines of records that can be read but have no readable id
    anonymous: list[int] = field(default_factory=list)

    @property
    def ids_complete(self) -> bool:
        """Every record's id can be read: an id not among them is certainly not in the file."""
        return not self.unread and not self.anonymous

    def where(self, i: int, name: str) -> str:
        """Record i in words: "trial.jsonl line 7" (the file's name alone when it did not parse)."""
        return f"{name} line {self.doc.lines[i]}" if self.doc is not None else name
