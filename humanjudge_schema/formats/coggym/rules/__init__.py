"""The CogGym rules, one module per theme. Importing this package registers them; the check
(`check.py`) runs them in the order they are defined, so the modules are imported in that order.

- `trials`: trial.jsonl and instruction.jsonl on their own (ids, tags, stimuli, sliders, answers)
- `config`: config.json against the other files (the flow, stimuli_count, responseType) and the
  media the trials reference
- `metadata`: participants_info and judgment_count of the human data, and the checks over the
  whole experiment that could not be made
- `structure`: the human data's stimuli and keys against the trials and their tags
- `responses`: each response of human_data_ind.json against its query
- `means`: human_data_mean.json against the individual responses
"""

from __future__ import annotations

# The rules run in the order they are defined: the themes stay in this order, unsorted.
# isort: off
from . import trials, config, metadata, structure, responses, means  # noqa: F401
# isort: on
