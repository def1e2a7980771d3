"""Whether the declaration's mapping says what the data holds: a block that makes no judgment,
and the values it could not make into one."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....registry import rule
from ..model import Model


@rule(
    "declared/no-judgment",
    "a judgments or aggregates block matches no record of its file",
    why="A declaration whose mapping finds nothing in the data would give zero judgments, and "
    "zero judgments agree perfectly; an aggregates block that finds no stored value has nothing "
    "to recompute, and every stored value would pass unchecked. A mapping that matches no record "
    "is an error, found where the block is declared.",
    bad='[[judgments]]\nfile = "ratings"\neach = "labels/*"      # the records have "annotations"',
    good='[[judgments]]\nfile = "ratings"\neach = "annotations/*"',
    scope="dataset",
)
def no_judgment(model: Model) -> Iterator[Hit]:
    for block in model.decl.blocks:
        if not model.read.get(block.at) or model.made.get(block.at):
            continue
        records = model.records.get(block.at, 0)
        if not records and block.file in model.unread:
            continue  # the file could not be read: its parse/ findings say why
        what = f"{records:,} record{'s' if records != 1 else ''} read" if records else "no record found"
        where = f" below {'/'.join(block.each)}" if block.each and records else ""
        made = "judgment" if block.kind == "judgments" else "stored value"
        yield (
            model.doc,
            block.at,
            f"this block makes no {made} of {block.file} ({what}{where}): its fields name nothing there",
        )


def _problems(model: Model, code: str) -> Iterator[Hit]:
    for found, doc, ptr, message in model.problems:
        if found == code:
            yield doc, ptr, message


@rule(
    "declared/unplaced",
    "a value whose item, rater or question is missing",
    why="A judgment is placed by its item, its rater and its question; a value with an empty item "
    "or rater cannot be compared with any other and is left out of the judgments.",
    bad="item,rater,label\n,w1,P",
    good="item,rater,label\nsite-1,w1,P",
    scope="dataset",
)
def unplaced(model: Model) -> Iterator[Hit]:
    yield from _problems(model, "declared/unplaced")


@rule(
    "declared/unpaired",
    "lists of raters and of values of unequal length",
    why="Where raters and labels are parallel lists (or comma-separated texts), the n-th label is "
    "the n-th rater's: lists of unequal length pair no label with its rater.",
    bad='{"annotators": "a1,a2,a3", "labels": "1,0"}',
    good='{"annotators": "a1,a2,a3", "labels": "1,0,0"}',
    scope="dataset",
)
def unpaired(model: Model) -> Iterator[Hit]:
    yield from _problems(model, "declared/unpaired")


@rule(
    "declared/one-hot",
    "one-hot columns that do not say exactly one value",
    why="An answer spread over one column per value (`is_abuse.1`, `is_abuse.0`, ...) is the one "
    "column that holds 1; none, or two, say no answer.",
    bad="is_abuse.1,is_abuse.0,is_abuse.-1\n1,0,1",
    good="is_abuse.1,is_abuse.0,is_abuse.-1\n1,0,0",
    scope="dataset",
)
def one_hot(model: Model) -> Iterator[Hit]:
    yield from _problems(model, "declared/one-hot")


@rule(
    "declared/no-weight",
    "a row that no declared weight is for",
    why="A weighted value (an MQM error's weight from its severity and category) is looked up in "
    "the declared weights; a row none of them matches has no weight, and its sum would be wrong.",
    bad='weights = [{when = {severity = "Major"}, weight = -5}]    # a row of severity "Critical"',
    good='weights = [{when = {severity = "Major"}, weight = -5}, {when = {severity = "Critical"}, weight = -10}]',
    scope="dataset",
)
def no_weight(model: Model) -> Iterator[Hit]:
    yield from _problems(model, "declared/no-weight")
