"""`stats --format json` computed with numpy equals the figures computed here again, from the
definitions, in plain Python, a judgment at a time: on every dataset of the case folders, the
examples and (when it is beside the checkout) the real corpus. The reference reads the view's
rows one by one (no Gathered, no Tally, no profile), builds each question's coincidence matrix
for Krippendorff's alpha (Krippendorff 2011), Gwet's AC with the whole weight matrix (Gwet 2014)
and each rater's figures (docs/stats.md#raters), and every figure of the JSON must equal it
within 1e-9 (the raters' figures as the JSON rounds them). The intervals are resamples, checked
for shape only here (tests/test_agreement.py checks the draws).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.commands.common import judged
from humanjudge_schema.judgments.gather import first_answers
from humanjudge_schema.judgments.stats import describe
from humanjudge_schema.progress import views

from .conftest import CORPUS, ROOT

Counts = dict[Hashable, dict[Hashable, int]]  # unit -> value -> how often

FOLDERS = [ROOT / "tests" / "cases", ROOT / "examples"]
CORPUS_FOLDERS = ["coggym", "halie", "study1", "judgebench"]


def _described(path: Path) -> list[tuple[Any, dict[str, Any]]]:
    found = views(judged((path,), None, skip_unknown=True), None)
    return [(view, describe(view, samples=20, seed=1, raters=True).to_json()) for view in found]


# --- the reference, a judgment at a time -------------------------------------------------------


def _questions(view: Any) -> dict[str, dict[str, Any]]:
    """Per question: value counts per unit, missing answers, and each rater's answer to each
    unit that counts (where raters are persons: `first_answers`, and a rater and unit with no
    answer are one missing answer), from the rows in file order."""
    rows = list(view.rows())
    named = [view.persons and row.role == "individual" and row.rater != "" for row in rows]
    counts = first_answers(  # (question, rater, unit) -> the row of the answer that counts
        ((row.question, row.rater, (row.item, row.option)), row.value) if n else (None, None)
        for row, n in zip(rows, named, strict=True)
    )
    out: dict[str, dict[str, Any]] = {}
    for k, row in enumerate(rows):
        q = out.setdefault(row.question, {"counts": {}, "missing": 0, "answers": {}, "seen": set()})
        if row.role != "individual":
            continue
        unit = (row.item, row.option)
        if named[k]:
            q["seen"].add((row.rater, unit))
            if counts.get((row.question, row.rater, unit)) != k:
                continue
        value = tuple(row.value) if isinstance(row.value, list) else row.value
        if value is None:
            q["missing"] += 1
            continue
        if named[k]:
            q["answers"].setdefault(row.rater, {})[unit] = value
        if isinstance(value, float) and math.isnan(value):
            continue
        per = q["counts"].setdefault(unit, {})
        per[value] = per.get(value, 0) + 1
    for question, rater, unit in counts:
        out[question]["seen"].discard((rater, unit))
    for q in out.values():
        q["missing"] += len(q["seen"])  # a rater and unit with no answer: one missing answer
    return out


def _distance(level: str, values: list[Any], marginals: dict[Any, float]) -> Any:
    """Krippendorff's squared distance at a level, as a function of two values."""
    if level == "nominal":
        return lambda c, k: float(c != k)
    if level == "interval":
        return lambda c, k: float((c - k) ** 2)
    if level == "ratio":
        return lambda c, k: float(((c - k) / (c + k)) ** 2) if c + k else 0.0
    order = sorted(values)

    def ordinal(c: Any, k: Any) -> float:
        i, j = sorted((order.index(c), order.index(k)))
        between = sum(marginals.get(v, 0) for v in order[i : j + 1])
        return float((between - (marginals.get(c, 0) + marginals.get(k, 0)) / 2) ** 2)

    return ordinal


def _alpha(counts: Counts, level: str) -> float | None:
    """Alpha from the coincidence matrix of the units of two values or more."""
    o: dict[tuple[Any, Any], float] = {}
    for per in counts.values():
        m = sum(per.values())
        if m < 2:
            continue
        for c, nc in per.items():
            for k, nk in per.items():
                o[(c, k)] = o.get((c, k), 0.0) + (nc * (nk - (c == k))) / (m - 1)
    marginals: dict[Any, float] = {}
    for (c, _), x in o.items():
        marginals[c] = marginals.get(c, 0.0) + x
    values = [v for v, n in marginals.items() if n > 0]
    n = sum(marginals.values())
    if len(values) < 2:
        return None
    d = _distance(level, values, marginals)
    observed = sum(x * d(c, k) for (c, k), x in o.items())
    expected = sum(marginals[c] * marginals[k] * d(c, k) for c in values for k in values) / (n - 1)
    return None if expected <= 0 else 1 - observed / expected


def _weight(level: str, categories: list[Any]) -> Any:
    q = len(categories)
    if level == "nominal":
        return lambda a, b: float(a == b)
    if level == "ordinal":
        rank = {v: i for i, v in enumerate(categories)}
        return lambda a, b: 1 - (abs(rank[a] - rank[b]) + 1) * abs(rank[a] - rank[b]) / 2 / (q * (q - 1) / 2)
    spread = categories[-1] - categories[0]
    if level == "interval":
        return lambda a, b: 1 - ((a - b) / spread) ** 2
    most = (spread / (categories[-1] + categories[0])) ** 2
    return lambda a, b: 1 - ((((a - b) / (a + b)) ** 2 if a + b else 0.0) / most)


def _agreement(counts: Counts, level: str) -> tuple[float | None, float | None]:
    """(observed agreement, Gwet's AC) item by item, with the weight of every pair of categories."""
    categories = sorted({v for per in counts.values() for v in per}) if level != "nominal" else None
    if categories is None:
        categories = list(dict.fromkeys(v for per in counts.values() for v in per))
    pairable = [per for per in counts.values() if sum(per.values()) >= 2]
    if not pairable:
        return None, None
    observed = statistics.fmean(
        (sum(n * n for n in per.values()) - sum(per.values())) / (sum(per.values()) * (sum(per.values()) - 1))
        for per in pairable
    )
    q = len(categories)
    if q < 2:
        return observed, None
    w = _weight(level, categories)
    p_a = statistics.fmean(
        sum(nk * (sum(w(k, m) * nm for m, nm in per.items()) - 1) for k, nk in per.items())
        / (sum(per.values()) * (sum(per.values()) - 1))
        for per in pairable
    )
    pi = {c: sum(per.get(c, 0) / sum(per.values()) for per in counts.values()) / len(counts) for c in categories}
    total = sum(w(a, b) for a in categories for b in categories)
    p_e = total / (q * (q - 1)) * sum(p * (1 - p) for p in pi.values())
    return observed, (p_a - p_e) / (1 - p_e)


def _raters(name: str, q: dict[str, Any], level: str | None) -> list[dict[str, Any]]:
    """Each rater's row: items, modal answer and share, and leave-one-out agreement over the
    items they share with two other raters or more (nominal and ordinal levels only)."""
    out = []
    for rater, answers in q["answers"].items():
        (modal, times), *_ = Counter(answers.values()).most_common(1)
        agree, others, shared = [], [], 0
        for unit, value in answers.items():
            per = q["counts"].get(unit, {})
            n = sum(per.values())
            if level not in ("nominal", "ordinal") or n < 3 or value not in per:
                continue
            m = per[value]
            shared += 1
            agree.append((m - 1) / (n - 1))
            pairs = sum(k * (k - 1) for k in per.values())
            others.append((pairs - 2 * (m - 1)) / ((n - 1) * (n - 2)))
        out.append(
            {
                "rater": rater,
                "question": name,
                "items": len(answers),
                "modal": list(modal) if isinstance(modal, tuple) else modal,
                "modal_share": times / len(answers),
                "shared_items": shared,
                "agreement": sum(agree) / shared if shared else None,
                "others_agreement": sum(others) / shared if shared else None,
            }
        )
    return out


# --- the comparison ----------------------------------------------------------------------------


def _close(got: Any, want: Any, tol: float = 1e-9) -> bool:
    if want is None or got is None:
        return got is None and want is None
    return math.isclose(got, want, rel_tol=tol, abs_tol=tol)


def _parts(counts: Counts, parts: str, labels: tuple[str, ...]) -> dict[str, Counts]:
    """The value counts of each part of a question's answers: a multi-slider's labels (the
    unit's option, in the order they come), a multi-select's options (ticked: 1 or 0), a
    ranking's options (the place, 1 first), in the options' order; rows that are not rows of
    the options are left out."""
    out: dict[Any, Counts] = {}
    width = len(labels) or None
    for unit, per in counts.items():
        for value, n in per.items():
            if parts == "label":
                if unit[1] != "":
                    out.setdefault(str(unit[1]), {})[unit] = dict(per)
                continue
            if not isinstance(value, tuple) or any(type(v) is not int for v in value):
                continue
            if width is not None and len(value) != width:
                continue
            if parts == "select" and set(value) <= {0, 1}:
                cells = list(enumerate(value))
            elif parts == "rank" and len(set(value)) == len(value) and all(0 <= v < (width or 1 << 30) for v in value):
                cells = [(option, place) for place, option in enumerate(value, start=1)]
            else:
                continue
            for option, cell in cells:
                mine = out.setdefault(option, {}).setdefault(unit, {})
                mine[cell] = mine.get(cell, 0) + n
    if parts == "label":
        return out
    return {labels[k] if k < len(labels) else f"option {k + 1}": out[k] for k in sorted(out)}


def _check(view: Any, found: dict[str, Any]) -> int:
    """Compare every question of one dataset's JSON with the reference; returns the figures compared."""
    reference = _questions(view)
    compared = 0
    for question in found["questions"]:
        compared += _check_question(question, reference[question["question"]])
        declared = view.questions.get(question["question"])
        if question["options"] is not None:
            split = _parts(reference[question["question"]]["counts"], declared.parts, declared.labels or ())
            assert [o["option"] for o in question["options"]] == list(split)
            for option in question["options"]:
                compared += _check_question(option, {"counts": split[option["option"]], "missing": 0})
    if view.persons:
        # no agreement where the raters judge no shared object (a self-assessment, their own response)
        levels = {name: _level(found, name) if view.shared(name) else None for name in reference}
        rows = [r for name, q in reference.items() for r in _raters(name, q, levels[name])]
        assert len(found["raters"]) == len(rows)
        for got, want in zip(found["raters"], rows, strict=True):
            for key in ("modal_share", "agreement", "others_agreement"):
                want[key] = None if want[key] is None else round(want[key], 4)
            assert got == want or all(
                _close(got[k], want[k], 1.5e-4) if isinstance(want[k], float) else got[k] == want[k] for k in want
            ), (got, want)
            compared += 1
    return compared


def _check_question(entry: dict[str, Any], q: dict[str, Any]) -> int:
    """Compare one question's (or one part's) figures with the reference; returns 1 where alpha was compared."""
    compared = 0
    counts: Counts = q["counts"]
    sizes = [sum(per.values()) for per in counts.values()]
    assert entry["items"] == len(counts) and entry["judgments"] == sum(sizes)
    assert entry["missing"] == q["missing"]
    if sizes:
        spread = entry["raters_per_item"]
        assert (spread["min"], spread["max"]) == (min(sizes), max(sizes))
        assert spread["median"] == statistics.median(sizes)
    totals: Counter[Any] = Counter()
    for per in counts.values():
        totals.update(per)
    shown = entry["distribution"]
    if "counts" in shown:
        assert sorted(shown["counts"].values()) == sorted(totals.values())
    elif "mean" in shown:
        values = [v for v, n in totals.items() for _ in range(n)]
        assert _close(shown["mean"], statistics.fmean(values))
    level = entry["level"]
    if level is not None and entry.get("note") is None:
        want = _alpha(counts, level)
        assert _close(entry["alpha"], want), (entry["question"], entry["alpha"], want)
        observed, ac = _agreement(counts, level)
        assert _close(entry["agreement"]["observed"], observed)
        assert _close(entry["agreement"]["ac"], ac), (entry["question"], entry["agreement"], ac)
        for ci in (entry["alpha_ci"], entry["agreement"]["ac_ci"]):
            assert ci is None or ci[0] <= ci[1]
        compared += 1
    return compared


def _level(found: dict[str, Any], name: str) -> str | None:
    return next((q["level"] for q in found["questions"] if q["question"] == name), None)


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_stats_equal_the_plain_computation(folder: Path) -> None:
    compared = sum(_check(view, found) for view, found in _described(folder))
    assert compared > 50


@pytest.mark.parametrize("name", CORPUS_FOLDERS)
def test_stats_equal_the_plain_computation_on_the_corpus(name: str) -> None:
    folder = CORPUS / name
    if not folder.exists():
        pytest.skip("the corpus is not beside the checkout")
    compared = sum(_check(view, found) for view, found in _described(folder))
    assert compared > 0
