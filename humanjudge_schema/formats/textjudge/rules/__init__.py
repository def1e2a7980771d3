"""The TextJudge rules, one module per theme. Importing this package registers them.

A rule's one parameter says what it looks at, and so when it runs (check.py):

- a rule of a `Run` looks at instances and score objects, and runs on each run of instances as
  it is read, reporting as it goes;
- a rule of the `DatasetFacts` looks at the declarations, or at the facts the dataset gathered from
  every run (ids, field types, empty scores, what each template was rendered with), and runs
  once, after the last run.

- `declarations`: the metrics and the instances' scores against them
- `instances`: ids, few-shot example ids, the types of instance fields
- `scores`: each score object against its metric's category and scale
- `aggregates`: the stored means and majorities against the individual scores
- `templates`: the prompt templates against Jinja, safety, upstream's renderer and the instances
"""

from __future__ import annotations

# isort: off
from . import declarations, instances, scores, aggregates, templates  # noqa: F401
# isort: on
