"""The keys of a human-data stimulus that are no tag of its trial, sorted by what they most likely
are, so that one cause is one finding:

- the per-option keys of a tag the stimulus lacks (`agent_goal_1` ... `agent_goal_4` where the
  trial asks `agent_goal` with 4 options): the mean file's key names, used as the layout of the
  stimulus (coggym/flat-option-keys, one finding per stimulus and tag);
- a key that is the likely misspelling of a tag the stimulus lacks (`strategy` for
  `strategy_description`), found as the CLI's did-you-mean finds a code (coggym/misnamed-tag);
- any other key (coggym/unknown-tag), a run of per-option keys of one name that is no tag
  (`goal_probs_1` ... `goal_probs_4`) being one key.

A tag that is stored as per-option keys or misspelt is not missing a second time
(coggym/missing-tag skips it). Keys are matched against `<tag>_<K>` built from the trial's tags,
never parsed: a tag may itself end in `_<digits>`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...readers.jsonfile import JsonDocument
from .aggregation import META_KEYS, option_key


class Keyed(Protocol):
    """What of the experiment (model.Experiment) the keys are sorted by; a protocol, so that this
    module, which the model imports, imports nothing of it."""

    ind: JsonDocument | None
    mean: JsonDocument | None

    def queries(self, trial_id: str) -> dict[str, dict[str, Any]]: ...

    def tags_complete(self, trial_id: str) -> bool: ...


@dataclass
class Stray:
    """The keys of one stimulus of one human data file that are no tag of its trial."""

    doc: JsonDocument
    sid: str
    tags: list[str]  # the trial's tags, for the messages
    flat: dict[str, list[str]] = field(default_factory=dict)  # absent tag -> its per-option keys
    misnamed: dict[str, str] = field(default_factory=dict)  # key -> the absent tag it likely spells
    unknown: list[str] = field(default_factory=list)  # every other key, in the file's order...
    runs: dict[str, list[str]] = field(default_factory=dict)  # ...but runs of per-option keys: stem -> keys

    @property
    def explained(self) -> set[str]:
        """The tags the stimulus lacks whose data is there under other keys."""
        return set(self.flat) | set(self.misnamed.values())


def _option_count(query: dict[str, Any]) -> int | None:
    options = query.get("option")
    return len(options) if isinstance(options, list) else None


def _per_option(tag: str, n: int | None, stray: dict[str, None]) -> list[str]:
    """The keys `<tag>_1` ... `<tag>_<n>` among the stray keys (n unknown: `<tag>_1`, `<tag>_2`,
    ... while they follow each other)."""
    if n is not None:
        return [key for k in range(1, n + 1) if (key := option_key(tag, k)) in stray]
    found: list[str] = []
    while (key := option_key(tag, len(found) + 1)) in stray:
        found.append(key)
    return found


def _likely_tag(key: str, absent: list[str]) -> str | None:
    """The absent tag a key most likely spells: difflib's close match, or a tag of which the key
    is the first or last `_`-separated words (`strategy` for `strategy_description`)."""
    near = difflib.get_close_matches(key, absent, n=1, cutoff=0.6)
    if near:
        return near[0]
    words = [t for t in absent if t.startswith(key + "_") or t.endswith("_" + key)]
    return words[0] if len(words) == 1 else None


def sort_keys(doc: JsonDocument, sid: str, stimulus: dict[str, Any], queries: dict[str, dict[str, Any]]) -> Stray:
    """Sort the keys of one stimulus that are no tag of its trial (its tags and queries given)."""
    out = Stray(doc, sid, sorted(queries))
    stray = dict.fromkeys(k for k in stimulus if k not in queries)
    if not stray:
        return out
    absent = [tag for tag in queries if tag not in stimulus]
    taken: set[str] = set()  # the keys that are a tag's per-option keys
    for tag in sorted(absent, key=len, reverse=True):  # `a_1_2` is `a_1`'s before it is `a`'s
        keys = _per_option(tag, _option_count(queries[tag]), stray)
        if keys:
            out.flat[tag] = keys
            taken.update(keys)
    left = [tag for tag in absent if tag not in out.flat]
    # Per-option keys under a name that looks like an absent tag (`statement_probs_1` ... for
    # `statement_rating`), as many as its options when their count can be read. A run of them is
    # no single misspelt tag either way.
    runs = _numbered_series({k: None for k in stray if k not in taken})
    for stem, keys in runs.items():
        near = _likely_tag(stem, left) if left else None
        if near is not None and _option_count(queries[near]) in (None, len(keys)):
            out.flat[near] = keys
            taken.update(keys)
            left.remove(near)
    for stem, keys in runs.items():
        if keys[0] not in taken:
            out.runs[stem] = keys
            taken.update(keys)
    for key in stray:
        if key in taken:
            continue
        near = _likely_tag(key, left) if left else None
        if near is None:
            out.unknown.append(key)
        else:
            out.misnamed[key] = near
            left.remove(near)
    return out


def _numbered_series(stray: dict[str, None]) -> dict[str, list[str]]:
    """stem -> `stem_1`, `stem_2`, ... for every run of at least two such keys among the stray keys."""
    runs = {}
    for key in stray:
        if key.endswith("_1"):
            stem = key[:-2]
            keys = _per_option(stem, None, stray)
            if len(keys) > 1:
                runs[stem] = keys
    return runs


def stray_keys(exp: Keyed) -> list[Stray]:
    """A `Stray` for every stimulus of both human data files whose trial's tags can all be read
    and that has keys which are no tag (with a query whose tag cannot be read, any key may be
    that tag: the schema error is the finding)."""
    return list(_strays(exp))


def _strays(exp: Keyed) -> Iterator[Stray]:
    for doc in (d for d in (exp.ind, exp.mean) if d is not None):
        for sid, stimulus in doc.data.items():
            if sid in META_KEYS or not isinstance(stimulus, dict) or not exp.tags_complete(sid):
                continue
            queries = exp.queries(sid)
            if any(key not in queries for key in stimulus):
                yield sort_keys(doc, sid, stimulus, queries)


def spell(keys: list[str]) -> str:
    """Per-option keys in a message, each one: the finding stands for every key, so that each
    key's place (its stimulus's pointer and the key) can be found in it, in JSON too."""
    return ", ".join(keys)
