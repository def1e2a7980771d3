"""Locating JSON pointers in a text: a walk that stops once every pointer is found (`unique`,
for a text whose parse found no key twice in one object) finds what the walk to the end finds."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from humanjudge_schema.finding import escape_token
from humanjudge_schema.readers.locate import locate

_leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(alphabet='ab"\\/~{}[],: ', max_size=4))
_json = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(alphabet="ab/~", max_size=2), inner, max_size=4)
    ),
    max_leaves=25,
)


def _pointers(value: Any, at: str = "") -> list[str]:
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _pointers(v, f"{at}/{escape_token(k)}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _pointers(v, f"{at}/{i}")
    return out


@given(value=_json, indent=st.sampled_from([None, 1]), data=st.data())
@settings(max_examples=300, deadline=None)
def test_a_walk_that_stops_early_finds_what_the_whole_walk_finds(value: Any, indent: int | None, data: Any) -> None:
    text = json.dumps(value, indent=indent)
    every = _pointers(value)
    wanted = data.draw(st.lists(st.sampled_from(every), min_size=1, max_size=4))
    if data.draw(st.booleans()):
        wanted.append("/no/such/pointer")
    assert locate(text, wanted, unique=True) == locate(text, wanted)


def test_a_key_twice_is_found_where_the_parser_reads_it() -> None:
    text = '{"a": {"b": 1}, "a": {"b": 2}}'
    assert locate(text, ["/a/b"]) == {"/a/b": text.rindex('"b"')}
    assert locate(text, ["/a/b"], unique=True) == {"/a/b": text.index('"b"')}  # what unique promises not to meet
