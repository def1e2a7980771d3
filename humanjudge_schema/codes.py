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
    "dataset/missing-companion",
    "a companion file is not in the dataset, so the checks that need it did not run",
    severity="warning",
    why="The dataset can be valid without this file (an experiment before data collection has "
    "no human data), but every check that reads it across files was skipped: the message says "
    "which, so a green result is not mistaken for a complete one.",
    bad="exp1/trial.jsonl, exp1/human_data_ind.json  (no human_data_mean.json)",
    good="exp1/trial.jsonl, exp1/human_data_ind.json, exp1/human_data_mean.json",
)
