"""The matcher of two versions' judgments against a plain reference: keys unique within each
version, so what was removed, changed and added is known from two dicts. The windows it reads
ahead in are made small, so that random edits (rows removed, inserted, changed, runs moved) cross
the chunks, the look-ahead and the rows dropped once matched many times."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from humanjudge_schema.diff import match
from humanjudge_schema.judgments.view import Batch

Row = tuple[str, int, int, str, Any]  # question, item, rater, option, value


def _batches(rows: list[Row], rng: random.Random) -> list[Batch]:
    """The rows in batches of random sizes, as a view gives them."""
    out, start = [], 0
    while start < len(rows):
        size = rng.randint(1, 9)
        part = rows[start : start + size]
        start += size
        rows_of = [("f", "d", i, r, q, o, v, "d.json", f"/{q}/{i}/{r}", None) for q, i, r, o, v in part]
        out.append(Batch.of_rows(rows_of))
    return out


def _edited(rows: list[Row], rng: random.Random) -> list[Row]:
    new = list(rows)
    for _ in range(rng.randint(0, 12)):
        what = rng.random()
        if not new:
            break
        k = rng.randrange(len(new))
        if what < 0.25:
            del new[k : k + rng.randint(1, 6)]
        elif what < 0.5:
            q, i, r, o, v = new[k]
            new.insert(k, (q, i + 1000 + rng.randrange(10**6), r, o, v))  # a key the old rows lack
        elif what < 0.75:
            q, i, r, o, v = new[k]
            new[k] = (q, i, r, o, rng.choice([v, 1, 2, "2", 2.0, True, None]))  # 2.0 is 2; True is not 1
        else:  # a run moved elsewhere
            run = new[k : k + rng.randint(1, 30)]
            del new[k : k + len(run)]
            at = rng.randrange(len(new) + 1)
            new[at:at] = run
    return new


def _reference(old: list[Row], new: list[Row]) -> dict[str, Counter[str]]:
    was = {row[:4]: row[4] for row in old}
    now = {row[:4]: row[4] for row in new}
    out: dict[str, Counter[str]] = {}
    for key in was.keys() - now.keys():
        out.setdefault(key[0], Counter())["removed"] += 1
    for key in now.keys() - was.keys():
        out.setdefault(key[0], Counter())["added"] += 1
    for key in was.keys() & now.keys():
        if not match.same(was[key], now[key]):
            out.setdefault(key[0], Counter())["changed"] += 1
    return out


@pytest.mark.parametrize("seed", range(150))
def test_matching_finds_what_two_dicts_find(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(match, "CHUNK", 7)
    monkeypatch.setattr(match, "AHEAD", 5)
    found = match.Side.index

    def index(side: match.Side, key: Any, start: int, stop: int) -> int | None:  # the first row of that key
        at = found(side, key, start, stop)
        rows = [side.key(k) for k in range(start, min(stop, len(side)))]
        assert at == (start + rows.index(key) if key in rows else None)
        return at

    monkeypatch.setattr(match.Side, "index", index)
    rng = random.Random(seed)
    old = [(q, i, r, "", rng.randint(1, 3)) for i in range(rng.randint(0, 60)) for q in ("a", "b") for r in range(3)]
    new = _edited(old, rng)
    changes = match.Changes(examples=3)
    sides = match.Side(iter(_batches(old, rng))), match.Side(iter(_batches(new, rng)))
    match.Matcher(*sides, changes).run()
    got = {q: Counter({k: n for k, n in counts.items() if n}) for q, counts in changes.counts.items()}
    assert {q: c for q, c in got.items() if c} == _reference(old, new)
    for question, kinds in changes.examples.items():  # each example is of its question, with its values
        for kind, examples in kinds.items():
            assert 0 < len(examples) <= 3
            for e in examples:
                key = (question, e.item, e.rater, e.option)
                if kind != "added":
                    assert (*key, e.old) in old
                if kind != "removed":
                    assert (*key, e.new) in new
