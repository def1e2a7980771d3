"""The readers' size limits, where the codes that document them (codes.py) can read them without
importing the readers themselves."""

from __future__ import annotations

# CSV: a cell longer than this (in characters) is refused, and reading stops: beyond it, an
# unclosed quote and a giant cell look the same. A line longer than this (in bytes) ends the
# reading too.
CSV_MAX_CELL = 8 * 1024 * 1024
CSV_MAX_LINE_BYTES = 8 * 1024 * 1024

# Gzipped JSON Lines: a record longer than this is not a line of a dataset but a runaway (a
# missing newline, binary data): it is reported and skipped without ever being held whole.
GZ_MAX_LINE_BYTES = 16 * 1024 * 1024
# The default of the `max-decompressed-bytes` option: a file that decompresses to more than this
# is refused (a gzip bomb expands 1000-fold). The largest real file seen is 235 MB.
GZ_MAX_DECOMPRESSED = 512 * 1024 * 1024
