"""The `card/` codes: what `humanjudge card --check` finds (compare.py) where a Croissant card and the data it
describes disagree. Registered on import, as every code is (registry.register); the pointers of
these findings are into the card, and the file is the card's."""

from __future__ import annotations

from ..registry import register

register(
    "card/unreadable",
    "the card is not a Croissant JSON-LD document that can be compared with the data",
    why="A card that cannot be read (not a regular file, larger than max-document-bytes, UTF-16, "
    "not JSON, nested deeper than 1,024 levels, a number no double holds) or whose top level is "
    "not an object says nothing that can be checked: every other card/ check needs its fields. "
    "It is read as validate reads a JSON file; a key given twice, a byte that is not UTF-8 or a "
    "byte-order mark is validate's own parse/ finding, and the rest of the card is compared.",
    bad="croissant.json: [1, 2, 3]",
    good='croissant.json: {"@type": "sc:Dataset", "name": "...", "distribution": [...], ...}',
)
register(
    "card/missing-file",
    "the card names a data file that is not in the dataset",
    why="Each `cr:FileObject` of the distribution says what a user downloads. A file the dataset "
    "does not hold (renamed, moved, never added) leaves the card describing data nobody can get.",
    bad='"distribution": [{"@type": "cr:FileObject", "contentUrl": "human_data_ind_v1.json", ...}]  '
    "(the folder holds human_data_ind.json)",
    good='"distribution": [{"@type": "cr:FileObject", "contentUrl": "human_data_ind.json", ...}]',
)
register(
    "card/unlisted-file",
    "a data file of the dataset is not in the card's distribution",
    severity="warning",
    why="A card whose distribution leaves out a file of the dataset describes less than is "
    "published: its sizes and hashes do not cover that file, and its record sets cannot read it.",
    bad='"distribution": [trial.jsonl, config.json]  (the folder also holds human_data_ind.json)',
    good='"distribution": [trial.jsonl, config.json, human_data_ind.json, ...]',
)
register(
    "card/file-size",
    "a file's contentSize in the card is not the size of the file",
    why="A size that differs from the file's means the card was written for other bytes: the file "
    "changed since, or the card was copied from another release.",
    bad='"contentSize": "5384 B"  (the file has 5,391 bytes)',
    good='"contentSize": "5391 B"',
)
register(
    "card/file-hash",
    "a file's sha256 (or md5) in the card is not the hash of the file",
    why="The hash is how a user knows the file they downloaded is the one described; a stale hash "
    "makes every careful download fail, and a wrong one hides a changed file.",
    bad='"sha256": "9f86d0..."  (the file hashes to 2c26b4...)',
    good='"sha256": "2c26b4..."',
)
register(
    "card/annotations-per-item",
    "the number of annotations per item the card states is not what the data shows",
    why="`rai:annotationsPerItem` is what readers of a card use to judge how much one item's "
    "labels can be trusted. A stated number the judgments do not show (a design figure, a "
    "figure of another release) misleads them; `humanjudge card` writes the figures from the data.",
    bad='"rai:annotationsPerItem": "\\"rating\\": min 5, median 5, max 5 annotations per item ..."  (the data: 3 to 4)',
    good='"rai:annotationsPerItem": "\\"rating\\": min 3, median 4, max 4 annotations per item ..."',
)
register(
    "card/annotator-count",
    "the number of annotators the card states is not the number of raters in the data",
    why="Where raters are persons (worker or participant ids), the data says how many there "
    "are; a card stating another number describes another collection.",
    bad='"rai:annotatorDemographics": ["annotators: 50 persons ..."]  (the data holds 46)',
    good='"rai:annotatorDemographics": ["annotators: 46 persons ..."]',
)
register(
    "card/record-count",
    "a record set's stated number of records is not the number of judgments it describes",
    why="A record set of judgments says how many records it holds; a count the data does not "
    "show means judgments were added or lost since the card was written.",
    bad='"description": "One record per judgment of \\"rating\\": 600 records ..."  (the data: 598)',
    good='"description": "One record per judgment of \\"rating\\": 598 records ..."',
)
register(
    "card/missing-answers",
    "the number of missing answers the card states is not what the data shows",
    why="`rai:dataCollectionMissingData` says how much of the collection is absent. A stated "
    "count the data does not show hides missing answers or reports ones that are not missing.",
    bad='"rai:dataCollectionMissingData": "\\"rating\\": 0 missing answers ..."  (the data: 12 nulls)',
    good='"rai:dataCollectionMissingData": "\\"rating\\": 12 missing answers ..."',
)
register(
    "card/unfilled",
    "a field of the card is a placeholder or absent, and only its author can fill it in",
    severity="warning",
    why="What the data cannot know (the dataset's name where the format carries none, its "
    "license, how raters were recruited and paid, the platform, known biases, intended uses) "
    "is left to the author: `humanjudge card` writes a placeholder starting with `FILL IN:` "
    "rather than invent it, and this check lists each one until it is written.",
    bad='"rai:dataAnnotationPlatform": "FILL IN: where the annotations were collected ..."',
    good='"rai:dataAnnotationPlatform": "Prolific, with a custom jsPsych interface"',
)

# What `humanjudge card` writes where only the author knows the value: a field starting with it
# is reported by `card/unfilled`.
PLACEHOLDER = "FILL IN:"
