"""The one record every check produces."""

from __future__ import annotations

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
