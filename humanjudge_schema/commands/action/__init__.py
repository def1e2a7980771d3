"""The step that the composite action in action.yml runs: `python -m humanjudge_schema.commands.action`
(step.py), its inputs (inputs.py) and what a pull request changes (pull_request.py).

It reads its inputs from environment variables (never from text pasted into a script), validates
in this process, and writes annotations, the summary, the outputs and, on request, a SARIF file
(the renderers are in report/github.py). On a pull request it checks the datasets that the pull
request adds, changes, deletes files from or renames files in, with the configuration of the base
branch (see `run_step`).
"""
