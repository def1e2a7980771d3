"""A declaration's TOML text as findings see it: where each key, table and array element starts,
so that a finding about `/judgments/1/rater` is placed on its line. tomllib gives values without
positions; this is a scan of the text that builds no value, only positions."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from ...finding import split_pointer

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
Path_ = tuple[str, ...]


class _TomlScan:
    """One pass over the text: the position of every path it meets."""

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0
        self.starts = [0] + [k + 1 for k, c in enumerate(text) if c == "\n"]
        self.found: dict[Path_, tuple[int, int]] = {}

    def at(self, i: int) -> tuple[int, int]:
        line = bisect_right(self.starts, i)
        return line, i - self.starts[line - 1] + 1

    def mark(self, path: Path_, i: int) -> None:
        self.found.setdefault(path, self.at(i))

    def blank(self, newlines: bool) -> None:
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c in " \t" or (newlines and c in "\r\n"):
                self.i += 1
            elif c == "#" and newlines:
                while self.i < len(text) and text[self.i] != "\n":
                    self.i += 1
            else:
                return

    def rest_of_line(self) -> None:
        while self.i < len(self.text) and self.text[self.i] != "\n":
            self.i += 1

    def key(self) -> list[str]:
        """A dotted key: bare, "basic" or 'literal' parts."""
        parts: list[str] = []
        while True:
            self.blank(False)
            parts.append(self.string() if self.i < len(self.text) and self.text[self.i] in "\"'" else self.bare())
            self.blank(False)
            if self.i < len(self.text) and self.text[self.i] == ".":
                self.i += 1
                continue
            return parts

    def bare(self) -> str:
        start = self.i
        while self.i < len(self.text) and self.text[self.i] in _BARE:
            self.i += 1
        return self.text[start : self.i]

    def string(self) -> str:
        text, quote = self.text, self.text[self.i]
        if text.startswith(quote * 3, self.i):
            end = text.find(quote * 3, self.i + 3)
            end = len(text) if end < 0 else end
            while text.startswith(quote, end + 3):  # up to two quotes end a multi-line string
                end += 1
            value, self.i = text[self.i + 3 : end], end + 3
            return value
        out, self.i = [], self.i + 1
        while self.i < len(text) and text[self.i] not in (quote, "\n"):
            if quote == '"' and text[self.i] == "\\" and self.i + 1 < len(text):
                out.append(text[self.i + 1])
                self.i += 2
                continue
            out.append(text[self.i])
            self.i += 1
        self.i += 1
        return "".join(out)

    def value(self, path: Path_) -> None:
        text = self.text
        if self.i >= len(text):
            return
        c = text[self.i]
        if c in "\"'":
            self.string()
        elif c == "[":
            self.i += 1
            n = 0
            while True:
                self.blank(True)
                if self.i >= len(text) or text[self.i] == "]":
                    self.i += 1
                    return
                self.mark((*path, str(n)), self.i)
                self.value((*path, str(n)))
                self.blank(True)
                if self.i < len(text) and text[self.i] == ",":
                    self.i += 1
                    n += 1
        elif c == "{":
            self.i += 1
            while True:
                self.blank(True)
                if self.i >= len(text) or text[self.i] == "}":
                    self.i += 1
                    return
                start = self.i
                key = (*path, *self.key())
                self.mark(key, start)
                if self.i < len(text) and text[self.i] == "=":
                    self.i += 1
                self.blank(False)
                self.value(key)
                self.blank(True)
                if self.i < len(text) and text[self.i] == ",":
                    self.i += 1
        else:
            while self.i < len(text) and text[self.i] not in ",]}\r\n#":
                self.i += 1

    def document(self) -> dict[Path_, tuple[int, int]]:
        table: Path_ = ()
        arrays: dict[tuple[str, ...], int] = {}  # an array of tables (its keys) -> its last index
        text = self.text
        while True:
            self.blank(True)
            if self.i >= len(text):
                return self.found
            start = self.i
            if text[self.i] == "[":
                double = text.startswith("[[", self.i)
                self.i += 2 if double else 1
                keys = self.key()
                if double:
                    arrays[tuple(keys)] = arrays.get(tuple(keys), -1) + 1
                table = self._resolve(keys, arrays)
                self.mark(table, start)
                self.rest_of_line()
                continue
            key = (*table, *self.key())
            self.mark(key, start)
            if self.i < len(text) and text[self.i] == "=":
                self.i += 1
                self.blank(False)
                self.value(key)
            self.rest_of_line()

    @staticmethod
    def _resolve(keys: list[str], arrays: dict[tuple[str, ...], int]) -> Path_:
        path: list[str] = []
        for k in range(len(keys)):
            path.append(keys[k])
            index = arrays.get(tuple(keys[: k + 1]))
            if index is not None:
                path.append(str(index))
        return tuple(path)


def positions_of(text: str) -> dict[Path_, tuple[int, int]]:
    """(line, column) of every key, table and array element of a TOML text, by its path."""
    try:
        return _TomlScan(text).document()
    except (IndexError, RecursionError):  # a text that is no TOML: nothing is placed
        return {}


@dataclass
class TomlDocument:
    """A declaration file as findings see it: a pointer is placed where its longest written
    prefix starts (a key of an inline schema is placed on the line that holds it)."""

    path: Path
    text: str
    _found: dict[Path_, tuple[int, int]] | None = field(default=None, repr=False)

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int]]:
        if self._found is None:
            self._found = positions_of(self.text)
        out = {}
        for p in pointers:
            tokens = tuple(split_pointer(p))
            while tokens and tokens not in self._found:
                tokens = tokens[:-1]
            out[p] = self._found.get(tokens, (1, 1)) if tokens else (1, 1)
        return out

    def line_of(self, pointer: str) -> int:
        return self.positions([pointer])[pointer][0]
