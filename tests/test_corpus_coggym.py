"""Conformance over the real CogGym experiments: each experiment's findings, counted by code and
severity, equal the table below. Every entry was checked against the files and is explained in
docs/conformance-coggym.md; a change in any count is either a fixed rule or a new bug."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from humanjudge_schema import validate
from humanjudge_schema.kinds import find_units

from .conftest import corpus

EML = "lance-ying__coggym/EML"
EXAMPLE = "lance-ying__example_coggym/ying2025understanding"

NOT_SHIPPED = ("coggym/media-not-shipped", "warning")
AGE = ("coggym/age-sentinel", "warning")
NO_DATA = ("coggym/no-human-data", "warning")
COUNT = ("coggym/response-count", "error")
UNUSED = ("coggym/unused-id", "warning")
MEAN_ONLY = ("dataset/missing-file", "error")  # only human_data_mean.json was published
DOI = ("coggym/paper-doi", "warning")

EXPECTED: dict[str, dict[tuple[str, str], int]] = {
    f"{EML}/Aboody2025Inferring/exp1": {NOT_SHIPPED: 1},
    f"{EML}/Aboody2025Inferring/exp2": {NOT_SHIPPED: 1},
    f"{EML}/Bass2022Partial/exp1": {MEAN_ONLY: 1},
    f"{EML}/Chandra2024Cooperative/exp1": {NOT_SHIPPED: 1, COUNT: 72},
    f"{EML}/Gerstenberg2018What/exp1a": {MEAN_ONLY: 1},
    f"{EML}/Gerstenberg2018What/exp1b": {NOT_SHIPPED: 1, NO_DATA: 2, DOI: 1},
    f"{EML}/JaraEttinger2021Quantitative/exp1": {MEAN_ONLY: 1},
    f"{EML}/JaraEttinger2021Quantitative/exp2": {NOT_SHIPPED: 1, COUNT: 68},
    f"{EML}/Levine2020Logic/exp1": {MEAN_ONLY: 1, AGE: 1},
    f"{EML}/Ong2015Affective/exp1": {MEAN_ONLY: 1},
    f"{EML}/Radkani2025What/exp4": {("coggym/missing-tag", "error"): 6, COUNT: 42},
    f"{EML}/Tsvilodub2025Nonliteral/exp1": {MEAN_ONLY: 1, AGE: 1},
    f"{EML}/Tsvilodub2025Nonliteral/exp3b": {COUNT: 30, AGE: 2},
    f"{EML}/Ying2024Grounding/exp1": {MEAN_ONLY: 1},
    f"{EML}/Yoon2020Polite/exp1": {("coggym/unknown-tag", "error"): 32, NO_DATA: 3, AGE: 2},
    f"{EML}/Zhou2023Mental/exp3": {NOT_SHIPPED: 1, NO_DATA: 3, COUNT: 84},
    f"{EML}/sosa2021Moral/exp1": {NOT_SHIPPED: 1, NO_DATA: 2},
    f"{EML}/sosa2021Moral/exp2": {NOT_SHIPPED: 1, NO_DATA: 6, COUNT: 34},
    f"{EXAMPLE}/exp1": {
        ("schema/required", "error"): 84,
        ("schema/type", "error"): 2,
        ("schema/enum", "error"): 1,
        ("coggym/stimuli-count", "error"): 1,
        ("coggym/flat-option-keys", "error"): 80,
        ("coggym/unknown-tag", "error"): 80,
        NO_DATA: 20,
        UNUSED: 5,
        NOT_SHIPPED: 1,
        DOI: 1,
    },
    f"{EXAMPLE}/exp2": {
        ("schema/required", "error"): 84,
        ("schema/type", "error"): 2,
        ("schema/enum", "error"): 1,
        ("coggym/stimuli-count", "error"): 1,
        ("coggym/unknown-stimulus", "error"): 4,
        ("coggym/flat-option-keys", "error"): 80,
        ("coggym/unknown-tag", "error"): 120,
        ("coggym/missing-tag", "error"): 40,
        ("coggym/response-types", "error"): 2,
        ("coggym/not-checked", "warning"): 1,
        UNUSED: 8,
        NOT_SHIPPED: 1,
        DOI: 1,
    },
}

# Every finding of the metadata rules on the corpus, exactly (docs/conformance-coggym.md judges
# each): (experiment, code, file, pointer). The other experiments carry a paper's DOI, a name,
# a description and their authors, their instruction.jsonl, and nothing beside their files but a
# README.md.
METADATA_CODES = ("coggym/paper-doi", "coggym/citation-missing", "coggym/no-instructions")
METADATA_CODES += ("dataset/extra-file", "dataset/not-a-dataset")
METADATA = [
    (f"{EML}/Gerstenberg2018What/exp1b", "coggym/paper-doi", "config.json", "/paperDOI"),  # https://doi.org/N/A
    (f"{EXAMPLE}/exp1", "coggym/paper-doi", "config.json", "/paperDOI"),  # the template's example DOI
    (f"{EXAMPLE}/exp2", "coggym/paper-doi", "config.json", "/paperDOI"),
]

# Findings whose line and column were checked by opening the file: (experiment, file, pointer,
# line, column). The position is that of the member's key, or of the value for array elements.
IND = "human_data_ind.json"
POSITIONS = [
    (f"{EML}/Yoon2020Polite/exp1", IND, "/trial_004/judgment_selected_option", 209, 5),
    (f"{EML}/Radkani2025What/exp4", IND, "/Legitimate_obs0", 16, 3),
    (f"{EML}/JaraEttinger2021Quantitative/exp2", IND, "/trial_reliable_0/ref_x", 12, 5),
    (f"{EML}/Aboody2025Inferring/exp1", "trial.jsonl", "/0/stimuli/0/media_url/0", 1, 67),
    (f"{EML}/Zhou2023Mental/exp3", "trial.jsonl", "/85/id", 86, 2),
    (f"{EXAMPLE}/exp1", "config.json", "/stimuli_count", 16, 5),
    (f"{EXAMPLE}/exp1", "instruction.jsonl", "/1/media_url", 2, 48),
    (f"{EXAMPLE}/exp1", "instruction.jsonl", "/7/type", 8, 2),
    (f"{EXAMPLE}/exp2", "human_data_mean.json", "/1_2_4", 74, 3),
    (f"{EXAMPLE}/exp1", "human_data_ind.json", "/1_1_1/agent_goal_1", 9, 5),
    (f"{EXAMPLE}/exp1", "trial.jsonl", "/2/id", 3, 2),
    (f"{EXAMPLE}/exp2", "instruction.jsonl", "/7/id", 8, 33),
]


def _counts(folder: Path) -> Counter[tuple[str, str]]:
    return Counter((f.code, f.severity.value) for f in validate([folder]).findings)


def test_the_table_lists_every_experiment() -> None:
    root = corpus("coggym")
    found = sorted(u.root.relative_to(root).as_posix() for u in find_units([root], "coggym"))
    assert found == sorted(EXPECTED)


@pytest.mark.parametrize("experiment", sorted(EXPECTED))
def test_findings_of_a_real_experiment(experiment: str) -> None:
    folder = corpus("coggym", experiment)
    assert _counts(folder) == Counter(EXPECTED[experiment])


def test_the_metadata_rules_find_exactly_the_known_findings() -> None:
    root = corpus("coggym")
    findings = [f for f in validate([root], cwd=str(root)).findings if f.code in METADATA_CODES]
    found = sorted((str(Path(f.file).parent), f.code, Path(f.file).name, f.pointer) for f in findings)
    assert found == sorted(METADATA)
    why = {str(Path(f.file).parent): f.message for f in findings if f.code == "coggym/paper-doi"}
    assert "'N/A' stands in for one" in why[f"{EML}/Gerstenberg2018What/exp1b"]
    assert "the example DOI of the CogGym documentation" in why[f"{EXAMPLE}/exp1"]


@pytest.mark.parametrize(
    ("experiment", "file", "ptr", "line", "column"),
    POSITIONS,
    ids=[f"{e.split('/', 2)[-1]}:{f}:{p}" for e, f, p, _, _ in POSITIONS],
)
def test_positions(experiment: str, file: str, ptr: str, line: int, column: int) -> None:
    folder = corpus("coggym", experiment)
    findings = validate([folder], cwd=str(folder)).findings
    where = {(f.file, f.pointer): (f.line, f.column) for f in findings}
    assert where[(file, ptr)] == (line, column)


def test_a_misspelt_option_hides_nothing(tmp_path: Path) -> None:
    """The example's trials spell `option` as `options`; with it spelt right in a copy, the
    findings are the same minus the 80 schema errors it causes: every rule saw every intact part
    of those trials."""
    for name in ("exp1", "exp2"):
        source = corpus("coggym", EXAMPLE, name)
        fixed = tmp_path / name
        fixed.mkdir()
        for file in source.iterdir():
            data = file.read_bytes()
            if file.name == "trial.jsonl":
                data = data.replace(b'"options":', b'"option":')
            (fixed / file.name).write_bytes(data)
        as_published = Counter((f.code, f.file, f.pointer) for f in validate([source], cwd=str(source)).findings)
        spelt_right = Counter((f.code, f.file, f.pointer) for f in validate([fixed], cwd=str(fixed)).findings)
        typo = as_published - spelt_right
        assert spelt_right - as_published == Counter()
        assert sum(typo.values()) == 80 and {code for code, _, _ in typo} == {"schema/required"}, name
        assert {ptr.rsplit("/", 1)[-1] for _, _, ptr in typo} <= {"0", "1"}  # /i/queries/0 or 1


@pytest.mark.parametrize(
    ("experiment", "causes"),
    [
        (
            "exp1",
            {
                "coggym/flat-option-keys", "coggym/media-not-shipped", "coggym/no-human-data", "coggym/stimuli-count",
                "coggym/unknown-tag", "coggym/unused-id", "schema/enum", "schema/required", "schema/type",
                "coggym/paper-doi",
            },
        ),
        (
            "exp2",
            {
                "coggym/flat-option-keys", "coggym/media-not-shipped", "coggym/missing-tag", "coggym/not-checked",
                "coggym/response-types", "coggym/stimuli-count", "coggym/unknown-stimulus", "coggym/unknown-tag",
                "coggym/unused-id", "schema/enum", "schema/required", "schema/type", "coggym/paper-doi",
            },
        ),
    ],
)  # fmt: skip
def test_a_real_release_prints_a_short_list_of_causes(experiment: str, causes: set[str]) -> None:
    """The example release printed 874 and 1,084 lines, one per finding; its causes are a dozen."""
    from humanjudge_schema.report import render

    result = validate([corpus("coggym", EXAMPLE, experiment)])
    lines = render(result, "text").splitlines()
    assert len(lines) <= 60
    assert {line.split(" ")[2] for line in lines[:-1]} == causes
    every = render(result, "json")
    assert every.count('"code"') == len(result.findings) > len(lines)  # JSON keeps each finding
