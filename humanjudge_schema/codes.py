"""The core's own codes, registered on import: `schema/*` (one per JSON Schema keyword, which
the schema stage reports), `engine/*` and `dataset/*`; the readers' `parse/*` codes are in
readers/codes.py, each format's in its rules. Codes are API: never renamed, never reused.

They are declared here, apart from the modules that report them, so that listing every code
(rulebook.py) imports declarations only, never the engine.
"""

from __future__ import annotations

import re

from .readers import codes as _parse_codes  # noqa: F401  (the parse/ codes come first in listings)
from .registry import register

_KEYWORDS = [
    "type",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "multipleOf",
    "contains",
    "dependentRequired",
    "falseSchema",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "oneOf",
    "anyOf",
]


def schema_code(keyword: str) -> str:
    """The code of a schema keyword (or of a jsonschema-rs error kind): "minItems" -> "schema/min-items"."""
    return "schema/" + re.sub(r"(?<!^)(?=[A-Z])", "-", keyword).lower()


def _register_schema_codes() -> None:
    for kw in _KEYWORDS:
        code = schema_code(kw)
        register(
            code,
            f"the value breaks the schema's `{kw}` keyword",
            why="The format's JSON Schema (the single source of truth for structure, see "
            "`humanjudge schema`) does not allow this value. The message quotes the schema's "
            "words; the pointer says which value.",
            bad=_SCHEMA_EXAMPLES.get(kw, ("", ""))[0] or f"(a value that fails `{kw}`)",
            good=_SCHEMA_EXAMPLES.get(kw, ("", ""))[1] or f"(a value that satisfies `{kw}`)",
        )
    register(
        "schema/invalid",
        "the value breaks the schema (another keyword)",
        why="A schema keyword without a code of its own rejected the value.",
        bad="(a value the schema rejects)",
        good="(a value the schema accepts)",
    )


_SCHEMA_EXAMPLES = {
    "type": ('{"count": "12"}', '{"count": 12}'),
    "required": (
        '{"type": "multi-choice", "prompt": "Which?"}  (no tag)',
        '{"type": "multi-choice", "prompt": "Which?", "tag": "goal", "option": ["a", "b"]}',
    ),
    "additionalProperties": (
        '{"type": "multi-choice", "options": ["a", "b"]}',
        '{"type": "multi-choice", "option": ["a", "b"]}',
    ),
    "enum": ('{"type": "multiple-choice"}', '{"type": "multi-choice"}'),
    "const": ('{"version": 2}', '{"version": 1}'),
    "minimum": ('{"count": -1}', '{"count": 0}'),
    "maximum": ('{"rating": 6}  (scale 1..5)', '{"rating": 5}'),
    "minItems": ('{"option": []}', '{"option": ["yes", "no"]}'),
    "minLength": ('{"id": ""}', '{"id": "trial_1"}'),
    "pattern": ('{"worker": "not-a-uuid"}', '{"worker": "6f1c...-..."}'),
    "uniqueItems": ('{"option": ["a", "a"]}', '{"option": ["a", "b"]}'),
}
_register_schema_codes()

register(
    "engine/internal-error",
    "a check failed inside the validator",
    why="A bug in humanjudge-schema, not in the data: the other checks still ran. Please report "
    "it with the file that triggers it.",
    bad="(any input that makes a rule crash)",
    good="(no such input)",
)


register(
    "dataset/missing-file",
    "a file the format requires is not in the dataset",
    why="The format's rules span its files; without this one, the others cannot be read as "
    "the format means (human data without its trials has no questions, a study-1 log without "
    "its tasks no workers). The message says which checks did not run.",
    bad="exp1/human_data_ind.json  (no trial.jsonl beside it)",
    good="exp1/trial.jsonl, exp1/human_data_ind.json, ...",
)
register(
    "dataset/not-a-file",
    "a file of the dataset is a link, a folder or a special file, and was not read",
    why="Where links are not followed (on a pull request, and with `validate --base`), a file "
    "the dataset had, or a file of its format's names, must be a regular file: a link could "
    "lead to another dataset (the check would then pass on data that is not this one) or out "
    "of the repository, and a folder, a pipe or a device holds no data. So replacing a "
    "dataset's file by one of these is an error on that path, never a dataset left unchecked.",
    bad="exp1/trial.jsonl -> ../exp2/trial.jsonl  (a link), or exp1 -> exp2",
    good="exp1/trial.jsonl  (the file itself)",
)
register(
    "dataset/missing-companion",
    "a companion file is not in the dataset, so the checks that need it did not run",
    severity="warning",
    why="The dataset can be valid without this file (an experiment before data collection has "
    "no human data), but every check that reads it across files was skipped: the message says "
    "which, so a green result is not mistaken for a complete one.",
    bad="exp1/trial.jsonl, exp1/human_data_ind.json  (no human_data_mean.json)",
    good="exp1/trial.jsonl, exp1/human_data_ind.json, exp1/human_data_mean.json",
)
register(
    "dataset/extra-file",
    "a dataset folder holds a file or folder that is no part of its format",
    severity="warning",
    why="What a dataset folder holds beyond its format's files is checked by nothing: a "
    "spreadsheet of results, notes, an analysis folder, media in a folder not named assets/. "
    "Such a file is often data the format should have held, or a sign that the folder is not "
    "what it seems. May sit there without a word: documentation and licences "
    "(README*, LICENSE*, LICENCE*, COPYING*, NOTICE*, CITATION*, AUTHORS*, CONTRIBUTORS*, "
    "CHANGELOG*, and any .md, .markdown, .rst or .pdf document), configuration (humanjudge.toml, "
    "pyproject.toml), a declaration beside the data (checked on its own), hidden files, media files "
    "(images, video, audio), the media folder assets/, and a sub-folder that holds a dataset of "
    "its own (it is checked on its own); links, which a walk does not follow, are left alone. "
    "A data file (.json, .jsonl, .csv, .gz, ...) that no format claims is reported here too; "
    "under --kind, which takes the files of one format only, the walk counts it among the files "
    "it leaves out instead, so that each file is reported once.",
    bad="exp1/config.json, trial.jsonl, ..., notes.txt, notes_old.json, analysis/run.R",
    good="exp1/config.json, trial.jsonl, ..., README.md, assets/clip_1.mp4",
)
register(
    "dataset/not-a-dataset",
    "a folder beside datasets holds none",
    severity="warning",
    why="A folder whose sub-folders are datasets (a CogGym study of experiment folders, a HALIE "
    "folder of task folders) is read as a set of datasets; a sub-folder of it that holds no "
    "dataset anywhere under it is usually one whose files are misnamed or missing, and nothing in "
    "it was checked. Reported when a folder walk reaches it, with the first dataset of its folder; "
    "hidden folders, node_modules, assets/ and links to folders (which a walk does not follow) are "
    "not.",
    bad="Study/exp1/ (an experiment), Study/exp2/ (an experiment), Study/exp3/ (only results.txt)",
    good="Study/exp1/, Study/exp2/, Study/exp3/ (each an experiment), Study/README.md",
)
