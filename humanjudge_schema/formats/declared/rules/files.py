"""The records across a file and across files: unique keys, and references."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....registry import rule
from ..fields import Known
from ..model import Model


@rule(
    "declared/unique-key",
    "two records of a file share a key",
    why="A key names one record (a segment's stored score, an item's gold label); two records of "
    "one key make any join with them ambiguous.",
    bad="site-1\tG\nsite-1\tX",
    good="site-1\tG\nsite-2\tX",
    scope="dataset",
)
def unique_key(model: Model) -> Iterator[Hit]:
    for at, file, _each, key in model.decl.rules.unique:
        names = ", ".join(f.written for f in key)
        for value, (_doc, first), (doc, ptr) in model.repeated.get(at, []):
            yield doc, ptr, f"the key ({names}) {value!r} of {file} again (first at {first})"


@rule(
    "declared/reference",
    "a value that names nothing on the side it refers to",
    why="Files of a dataset refer to each other: every rater is described in the demographics "
    "file, every gold label is for an item the raters judged, every label is one of the "
    "categories. A reference to nothing is a renamed id or a missing record.",
    bad='[[rules.references]]\nfrom = {judgments = "rater"}\nto = {file = "annotators", field = "@1", format = "Ann{}"}\n\n"annotations": {"Ann999": "1"}',
    good='"annotations": {"Ann3": "1"}    (MP_annotators_meta.json has "3")',
    scope="dataset",
)
def reference(model: Model) -> Iterator[Hit]:
    for at, source, target in model.decl.rules.references:
        if not model.whole(target) or (source.file is not None and source.file in model.unread):
            continue  # what was not read is said by its parse/ findings, or by its absence
        known = model.targets.get(at, Known())
        for value, doc, ptr in model.sources.get(at, []):
            if value not in known:
                yield doc, ptr, f"{value!r} is not among {target}"
