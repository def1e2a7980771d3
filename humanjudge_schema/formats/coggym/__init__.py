"""CogGym experiments: a folder of config.json, trial.jsonl, instruction.jsonl,
human_data_ind.json and human_data_mean.json."""

from __future__ import annotations

from ...catalog import Aggregation, DatasetFile, Format, Option

FORMAT = Format(
    name="coggym",
    title="CogGym experiments",
    intro="A CogGym experiment is a folder: `config.json` (the experiment and its flow), `trial.jsonl` "
    "(one trial a line: stimuli and the questions asked about them), `instruction.jsonl` "
    "(instruction modules), `human_data_ind.json` (every participant's answers) and "
    "`human_data_mean.json` (the aggregates). The folder is checked as a whole: the rules "
    "compare the human data with the trials and the flow.",
    check="humanjudge_schema.formats.coggym.check:check",
    judgments="humanjudge_schema.formats.coggym.judgments:judgments",
    checked="humanjudge_schema.formats.coggym.judgments:checked",
    aggregation=Aggregation(
        "humanjudge_schema.formats.coggym.aggregate:aggregate_experiment",
        what="a CogGym experiment folder",
        plural="CogGym experiments",
        folder=True,
        flags=("force",),
    ),
    files=(
        DatasetFile(
            "config.json",
            "coggym/v1/config",
            "the whole file",
            without="the experiment flow, stimuli_count and responseType were not checked",
            claims=False,
        ),
        DatasetFile(
            "trial.jsonl",
            "coggym/v1/trial",
            "each line",
            required=True,
            without="nothing in the other files could be read against the trials' questions and options",
        ),
        DatasetFile("instruction.jsonl", "coggym/v1/instruction", "each line"),
        DatasetFile(
            "human_data_ind.json",
            "coggym/v1/human-data-ind",
            "the whole file",
            without="the responses and judgment_count were not checked, nor the means recomputed",
        ),
        DatasetFile(
            "human_data_mean.json",
            "coggym/v1/human-data-mean",
            "the whole file",
            without="the means were not compared with the individual responses",
        ),
    ),
    options=(
        Option(
            "response-count",
            str,
            "exact",
            '"at-most" accepts response arrays shorter than participants_info.count, for designs '
            "where each participant saw a subset of the stimuli; longer arrays stay errors",
            choices=("exact", "at-most"),
        ),
    ),
)
