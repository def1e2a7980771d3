"""The dataset's declarations: where its data comes from (dataset_url), the metrics, and which
metrics the instances are scored on."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from operator import itemgetter
from urllib.parse import urlsplit

from ....engine import Hit
from ....finding import pointer
from ....registry import rule
from ..model import DatasetFacts, Run, score_pointer
from .words import names

_WEB = frozenset({"http", "https", "ftp"})


def url_problem(value: str) -> str | None:
    """Why a dataset_url value is not the address of a page or a file on the web, or None."""
    text = value.strip()
    if not text:
        return "dataset_url is empty: say where the original data can be found"
    if any(c.isspace() for c in text):
        return f"{value!r} is not a URL: it holds spaces (a citation or a note belongs in `dataset`)"
    try:
        parts = urlsplit(text)
    except ValueError:  # an unbalanced [ in the host
        return f"{value!r} is not a URL"
    if parts.scheme.lower() in _WEB and parts.netloc:
        return None
    if not parts.scheme and "." in text.split("/", 1)[0]:
        return f"{value!r} is not a URL: it has no scheme; write https://{text}"
    if parts.scheme and parts.netloc:
        return f"{value!r} is not a web address ({parts.scheme}:); give one that opens in a browser (https://)"
    return f"{value!r} is not a URL: a URL is https://host/path"


@rule(
    "textjudge/dataset-url",
    "dataset_url is the web address of the original data",
    severity="warning",
    why="dataset_url says where the original data (and its licence and documentation) can be "
    "found; a dataset card gives it as the dataset's address. The format requires the key and the "
    "schema a string; this rule reports a string that is not an http, https or ftp address with "
    "a host: empty, without its scheme (`github.com/...`), with spaces, or of another kind. "
    "Whether the address still answers is not checked: the tool never opens a network connection.",
    bad='"dataset_url": ""   "dataset_url": "github.com/lil-lab/newsroom"',
    good='"dataset_url": "https://github.com/lil-lab/newsroom/tree/master/humaneval"',
    scope="dataset",
)
def dataset_url(ds: DatasetFacts) -> Iterator[Hit]:
    value = ds.data.get("dataset_url")
    if isinstance(value, str) and (problem := url_problem(value)) is not None:
        yield ds.doc, "/dataset_url", problem


@rule(
    "textjudge/duplicate-metric",
    "each metric is declared once",
    why="Scores are keyed by metric name, so two declarations of one name describe the same "
    "scores twice, usually with different scales or prompts. Upstream's evaluation silently "
    "uses the last one.",
    bad='"annotations": [{"metric": "fluency", "worst": 1, "best": 5, ...}, '
    '{"metric": "fluency", "worst": 1, "best": 7, ...}]',
    good='"annotations": [{"metric": "fluency", ...}, {"metric": "grammaticality", ...}]',
    scope="dataset",
)
def duplicate_metric(ds: DatasetFacts) -> Iterator[Hit]:
    seen: dict[str, int] = {}
    for k, decl in enumerate(ds.declarations):
        name = decl["metric"]
        if name in seen:
            yield (
                ds.doc,
                pointer("annotations", k, "metric"),
                f"metric {name!r} is already declared at /annotations/{seen[name]}",
            )
        else:
            seen[name] = k


@rule(
    "textjudge/undeclared-metric",
    "every metric an instance is scored on is declared",
    why="A metric without a declaration has no category, scale or labels: its scores cannot "
    "be aggregated, checked or evaluated, and upstream's evaluation never prompts for it. It is "
    "usually a misspelt metric name.",
    bad='"annotations": [{"metric": "fluency", ...}]; instance: "annotations": {"Fluency": {...}}',
    good='instance: "annotations": {"fluency": {...}}',
    scope="run",
)
def undeclared_metric(run: Run) -> Iterator[Hit]:
    metrics = run.ds.metrics
    if metrics.keys() >= set(chain.from_iterable(map(itemgetter("annotations"), run.instances))):
        return
    folded = {m.casefold().strip(): m for m in metrics}
    for i, inst in run.indexed():
        for name in inst["annotations"]:
            if name not in metrics:
                near = folded.get(name.casefold().strip())
                hint = f"; did you mean {near!r}?" if near else f" (declared: {names(metrics)})"
                yield run.doc, score_pointer(i, name), f"metric {name!r} is not declared{hint}"


@rule(
    "textjudge/missing-metric",
    "every instance has scores for every declared metric",
    why="The format keys every instance's `annotations` by the declared metrics. An instance "
    "without a metric's scores is left out of that metric's evaluation, and upstream's "
    "evaluation script stops with a KeyError when it stores a model's answer for it.",
    bad='"annotations": [{"metric": "fluency", ...}, {"metric": "adequacy", ...}]; '
    'instance: "annotations": {"fluency": {...}}',
    good='instance: "annotations": {"fluency": {...}, "adequacy": {...}}',
    scope="run",
)
def missing_metric(run: Run) -> Iterator[Hit]:
    if all(len(col) == len(run.instances) for col in run.columns):
        return
    metrics = list(run.ds.metrics)
    for i, inst in run.indexed():
        scored = inst["annotations"]
        missing = [m for m in metrics if m not in scored]
        if missing:
            plural = "s" if len(missing) > 1 else ""
            yield (
                run.doc,
                pointer("instances", i, "annotations"),
                f"no scores for declared metric{plural} {names(missing)}",
            )
