"""The one record every check produces."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem found in a file: what (code), how bad, where (file, JSON pointer, line, column)."""

    code: str
    severity: Severity
    message: str
    file: str
    pointer: str = ""
    line: int | None = None
    column: int | None = None
    more: int = 0  # in a summary of unlisted findings (see max-per-code): how many it stands for

    @property
    def count(self) -> int:
        """How many findings this one is: itself, or the unlisted ones it stands for."""
        return self.more or 1

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.line or 0, self.column or 0, self.pointer, self.code)

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "file": self.file,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
            **({"more": self.more} if self.more else {}),
        }


def escape_token(token: object) -> str:
    """One RFC 6901 reference token."""
    text = str(token)
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def pointer(*tokens: object) -> str:
    """Build an RFC 6901 pointer from path tokens: pointer("a/b", 0) == "/a~1b/0"."""
    return "/" + "/".join(map(escape_token, tokens)) if tokens else ""


def split_pointer(ptr: str) -> list[str]:
    if not ptr:
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in ptr[1:].split("/")]


# What a dataset could use to forge a line of human-readable output: C0 and C1 controls and DEL
# (line feeds, carriage returns, terminal escape sequences), the Unicode line and paragraph
# separators, and the marks that reorder bidirectional text. Lone surrogates too: they stand for
# the bytes of a file name that is not UTF-8, and would be written out as those raw bytes.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def escape_control(text: str) -> str:
    """The text with every control character written as an escape (a line feed as `\\n`, ESC as
    `\\x1b`, U+2028 as `\\u2028`), so that a file name, key or value printed in human-readable
    output can neither start a line of its own nor rewrite or reorder the one it is on. Every other
    character, the backslash included, is left as it is."""
    return _CONTROL.sub(_escaped, text) if _CONTROL.search(text) else text
