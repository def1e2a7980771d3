"""Whether a value is a DOI, and its doi.org address: the one reading of a DOI, which the
`coggym/paper-doi` rule reports on and a dataset card cites.

>>> doi_url("doi:10.1016/j.cognition.2021.104890")
'https://doi.org/10.1016/j.cognition.2021.104890'
>>> doi_url("https://doi.org/N/A") is None, doi_url("10.1111/example.doi.12345") is None
(True, True)
"""

from __future__ import annotations

import re
from typing import Any

# A DOI is "10." and a registrant code of digits (4 to 9 of them in practice, sometimes with
# dot-separated sub-codes), "/", then a suffix of any printable characters. Written bare,
# after "doi:", or as a doi.org address (dx.doi.org is its older name).
_DOI = re.compile(r"10\.\d{4,9}(?:\.\d+)*/\S+")
_DOI_ADDRESS = re.compile(r"(?:https?://(?:dx\.)?doi\.org/|doi:)(.*)", re.IGNORECASE | re.DOTALL)
# What stands in for a DOI that does not exist: "https://doi.org/N/A".
_NONE_WORDS = frozenset({"n/a", "na", "none", "null", "nil", "-", "tbd", "todo", "unknown", "pending", "xxx"})
# DOIs that are certainly not a paper's. The CogGym documentation's and template's example,
# copied unchanged; and the test prefixes of the two registration agencies of papers and data
# (Crossref's 10.5555, DataCite's former 10.5072), under which no DOI is registered.
_EXAMPLE_DOI = "10.1111/example.doi.12345"
_TEST_PREFIXES = {
    "10.5555": "Crossref's test prefix: no DOI under it is registered, so it resolves to nothing "
    "(the ACM Digital Library shows such numbers for works that have no DOI)",
    "10.5072": "DataCite's test prefix: no DOI under it is registered, so it resolves to nothing",
}


def doi_problem(value: str) -> str | None:
    """Why a paperDOI value is not a paper's DOI, or None when it may be one."""
    text = value.strip()
    if not text:
        return "paperDOI is empty: leave it out when the paper has no DOI"
    address = _DOI_ADDRESS.fullmatch(text)
    name = address.group(1) if address else text
    if not _DOI.fullmatch(name):
        if name.strip().casefold() in _NONE_WORDS:
            return (
                f"{value!r} is not a DOI: {name.strip()!r} stands in for one; "
                "leave paperDOI out when the paper has none"
            )
        if address is None and re.match(r"[a-z][a-z0-9+.-]*://", text, re.IGNORECASE):
            host = text.split("://", 1)[1].split("/", 1)[0]
            return (
                f"{value!r} is not a DOI: an address on {host}, not doi.org; "
                "give the paper's DOI (10.<registrant>/<suffix>)"
            )
        return (
            f"{value!r} is not a DOI: a DOI is 10.<registrant>/<suffix> "
            "(10.1016/j.cognition.2021.104890), bare or after https://doi.org/"
        )
    if name.casefold() == _EXAMPLE_DOI:
        return f"{value!r} is the example DOI of the CogGym documentation and template, not the paper's"
    prefix = name.split("/", 1)[0]
    if prefix in _TEST_PREFIXES:
        return f"{value!r} is under {prefix}, {_TEST_PREFIXES[prefix]}"
    return None


def doi_url(value: Any) -> str | None:
    """The https://doi.org/ address of a value that may be a paper's DOI (`doi_problem` finds
    nothing wrong with it); None for anything else, placeholders included."""
    if not isinstance(value, str) or doi_problem(value) is not None:
        return None
    text = value.strip()
    address = _DOI_ADDRESS.fullmatch(text)
    return "https://doi.org/" + (address.group(1) if address else text)
