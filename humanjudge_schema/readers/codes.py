"""Every `parse/*` code, written once, grouped by the readers that report it.

A reader returns `Problem`s naming these codes; the engine turns them into findings with the
severity registered here. Codes are API: never renamed, never reused.
"""

from __future__ import annotations

from ..registry import register
from .limits import CSV_MAX_CELL as MAX_CELL
from .limits import CSV_MAX_LINE_BYTES as CSV_LINE
from .limits import GZ_MAX_LINE_BYTES as GZ_LINE

# Every reader: the file itself, its bytes and its encoding.
register(
    "parse/unreadable",
    "the file cannot be read",
    why="A file the validator cannot open (permissions, a broken link, a folder named like a "
    "file) cannot be checked; it is reported instead of skipped so that nothing passes unseen. "
    "Only regular files are read: a named pipe would wait forever for a writer, and a link to a "
    "device such as /dev/zero would be read until memory runs out.",
    bad="human_data_ind.json  (mode 000, or a link to /dev/zero)",
    good="human_data_ind.json  (a readable regular file)",
)
register(
    "parse/too-large",
    "the file is larger than a document read whole may be",
    why="JSON and JSON Lines files are read whole, and parsing one takes several times its size "
    "in memory (a 50 MB CogGym file peaks at about 360 MB). A file larger than "
    "`max-document-bytes` (default 512 MiB, ten times the largest real dataset) is refused "
    "before a byte of it is read; raise the option for a genuinely larger dataset.",
    bad="human_data_ind.json  (2 GB)",
    good="human_data_ind.json  (55 MB)",
)
register(
    "parse/empty",
    "the file is empty or only white space",
    why="An empty file is never a valid document of any format; it is usually an export that failed half-way.",
    bad="(0 bytes)",
    good='{"participants_info": {"count": 2}}',
)
register(
    "parse/bom",
    "the file starts with a byte-order mark",
    why="RFC 8259 forbids a byte-order mark in JSON text, and several parsers reject it; it "
    "usually comes from an editor on Windows. The rest of the file is still checked.",
    bad="\\xef\\xbb\\xbf{...}",
    good="{...}",
)
register(
    "parse/invalid-utf8",
    "the file is not valid UTF-8",
    why="JSON exchanged between systems must be UTF-8 (RFC 8259). Latin-1 or UTF-16 exports "
    "read as garbage or fail elsewhere.",
    bad='{"text": "caf\\xe9"}  (Latin-1 byte)',
    good='{"text": "café"}  (UTF-8)',
)

# JSON documents and JSON Lines records (read whole, or a line at a time from gzip).
register(
    "parse/invalid-json",
    "the text is not valid JSON",
    why="A syntax error stops every consumer of the file; the position says where parsing failed.",
    bad='{"id": "t1",}',
    good='{"id": "t1"}',
)

register(
    "parse/trailing-content",
    "there is more text after the JSON document",
    why="Two documents concatenated, or a JSON Lines file named .json: a strict parser rejects "
    "the file, a lenient one silently drops the rest.",
    bad='{"id": 1}\n{"id": 2}',
    good='[{"id": 1}, {"id": 2}]',
)
register(
    "parse/duplicate-key",
    "an object has the same key twice",
    why="Parsers keep one of the two values (most the last, some the first) without a word, so "
    "the data read depends on the reader. Plain schema validators cannot see it.",
    bad='{"t1": {"rating": [1, 2]}, "t1": {"rating": [3]}}',
    good='{"t1": {"rating": [1, 2]}, "t2": {"rating": [3]}}',
)
register(
    "parse/non-finite-number",
    "NaN or Infinity, which JSON does not have",
    why="pandas and Python's json module write NaN and Infinity by default, but they are not "
    "JSON: strict parsers reject the file and lenient ones disagree on the value. Use null.",
    bad='{"mean_human": NaN}',
    good='{"mean_human": null}',
)
register(
    "parse/number-out-of-range",
    "a number too large to be represented as a double",
    why="1e400 or a 400-digit integer becomes infinity or loses its digits in every reader.",
    bad='{"count": 1e400}',
    good='{"count": 1000}',
)
register(
    "parse/too-deep",
    "the document is nested too deeply",
    why="More than 1024 levels of nesting is never a real dataset and exhausts the stack of recursive parsers.",
    bad="[[[[ ... 2000 levels ... ]]]]",
    good="[[1, 2], [3, 4]]",
)
register(
    "parse/blank-line",
    "a JSON Lines file has an empty line between records",
    severity="warning",
    why="JSON Lines has one JSON value per line; readers differ on blank lines (some stop, some "
    "fail, some skip). A final newline at the end of the file is fine. Consecutive blank lines "
    "are one finding, at the first of them, that says how many there are.",
    bad='{"id": "t1"}\n\n{"id": "t2"}',
    good='{"id": "t1"}\n{"id": "t2"}',
)

# Gzip-compressed JSON Lines.
register(
    "parse/invalid-gzip",
    "the file is not a valid gzip stream",
    why="A .gz file that does not start like gzip, or whose compressed data or checksum is "
    "corrupt, cannot be read by anyone; the records before the damage are still checked.",
    bad="study1_tasks.jsonl.gz  (plain text renamed to .gz, or bytes flipped in transit)",
    good="study1_tasks.jsonl.gz  (written by gzip or Python's gzip module)",
)
register(
    "parse/truncated-gzip",
    "the gzip stream ends before its end marker",
    why="An interrupted download or copy: the records read so far are checked, the rest of the "
    "file is missing. Rules that need every record (a task without snapshots, say) are skipped.",
    bad="study1_responses_human.jsonl.gz  (cut at 2 MB of 3.6 MB)",
    good="study1_responses_human.jsonl.gz  (complete; `gzip -t` succeeds)",
)
register(
    "parse/decompressed-too-large",
    "the file decompresses to more than the configured limit",
    why="A few kilobytes of gzip can expand to gigabytes (a decompression bomb). The file is read "
    "up to `max-decompressed-bytes` (option of the family, default 512 MiB) and refused beyond; "
    "raise the option for a genuinely larger dataset. A Parquet row group that its footer says "
    "decompresses past `max-document-bytes` is refused before a page of it is read.",
    bad="1 GB of zeros compressed into 1 MB",
    good="study1_responses_human.jsonl.gz  (235 MB decompressed)",
)
register(
    "parse/nested-gzip",
    "the decompressed content is itself gzip-compressed",
    why="A file compressed twice (`gzip` run on a .gz file) decompresses to binary, not JSON "
    "Lines; decompress it once.",
    bad="study1_tasks.jsonl.gz.gz renamed to study1_tasks.jsonl.gz",
    good="study1_tasks.jsonl.gz  (compressed once)",
)
register(
    "parse/line-too-long",
    "a line is longer than the reader accepts",
    why=f"A line of more than {GZ_LINE // (1024 * 1024)} MiB in JSON Lines (`.jsonl.gz`), or of "
    f"more than {CSV_LINE // (1024 * 1024)} MiB in CSV, is not a record of a dataset but a "
    "runaway: a missing line break, or binary data. In JSON Lines it is skipped without being "
    "held in memory and the lines after it are still read. In CSV, where a "
    "quoted cell may span lines, nothing after it can be told apart from the runaway: the file "
    "is not read past it.",
    bad="(16 MiB of text without a line break)",
    good='{"response": "...", "text": "..."}  (one record per line)',
)

# Parquet (a declared format's files).
register(
    "parse/invalid-parquet",
    "the file is not a valid Parquet file",
    why="A file declared as Parquet that does not start and end with Parquet's magic bytes "
    "(PAR1), whose footer cannot be read or whose pages are damaged, cannot be read by anyone: "
    "another file renamed, or a copy cut short. The rows read before the damage are still "
    "checked; rules that need every record are skipped.",
    bad="ratings.parquet  (a CSV file renamed, or cut at 2 MB of 3 MB)",
    good="ratings.parquet  (written whole by pyarrow, pandas or polars)",
)

# CSV.
register(
    "parse/ragged-row",
    "a row has more or fewer cells than the header",
    why="Every row of a CSV file has one cell per column. A row with fewer cells is read with the "
    "last columns empty; a row with more cannot be matched to columns and is not checked further. "
    "Usually a delimiter inside a cell that was not quoted.",
    bad="session_id,worker_id,model\ns1,w1,Jumbo,extra",
    good='session_id,worker_id,model\ns1,w1,"Jumbo, extra"',
)
register(
    "parse/unclosed-quote",
    "a quoted cell is never closed",
    why="A cell opened with a double quote runs to the next unescaped double quote; without one it "
    "swallows every line to the end of the file. The rows after it are not checked.",
    bad='s1,w1,"It helped.\ns2,w2,Fine.',
    good='s1,w1,"It helped."\ns2,w2,Fine.',
)
register(
    "parse/invalid-csv",
    "text follows the closing quote of a cell",
    why='Inside a quoted cell a double quote is written twice (`""`); a lone quote ends the cell, '
    "and readers disagree on what to do with the text after it (Python's csv module keeps it, "
    "others fail). The row is skipped.",
    bad='s1,"He said "hi" twice",3',
    good='s1,"He said ""hi"" twice",3',
)
register(
    "parse/nul-byte",
    "the file contains NUL bytes",
    why="A NUL byte is never text: it marks a binary file, a broken export or a disk error. Some "
    "CSV readers stop at it, others drop it. The message gives the first one and the count.",
    bad="s1,w1,Jumbo\\x00",
    good="s1,w1,Jumbo",
)
register(
    "parse/line-ending",
    "a line ends with a lone carriage return",
    severity="warning",
    why="Lines end with a line feed (LF) or CR LF; a carriage return alone is the line ending of "
    "classic Mac OS. Python and pandas split lines there, but grep, wc and many editors do not, so "
    "line numbers disagree between tools.",
    bad="session_id,model\\rs1,Jumbo\\r",
    good="session_id,model\\ns1,Jumbo\\n",
)
register(
    "parse/delimiter",
    "the file is not comma-separated",
    why="These CSV files are comma-separated. A header that is one cell full of semicolons (or "
    "tabs, or bars) is a file exported with another delimiter: no column can be read. Nothing "
    "else in the file is checked.",
    bad="session_id;worker_id;model",
    good="session_id,worker_id,model",
)
register(
    "parse/repeated-header",
    "the header row appears again among the data rows",
    why="A header in the middle of the data is what concatenating two CSV files leaves behind; "
    "every reader takes it for a row of data.",
    bad="session_id,model\ns1,Jumbo\nsession_id,model\ns2,Davinci",
    good="session_id,model\ns1,Jumbo\ns2,Davinci",
)
register(
    "parse/duplicate-column",
    "two columns of the header have the same name",
    why="Readers keep one of the two columns (pandas renames the second `name.1`), so the data "
    "read depends on the reader.",
    bad="session_id,model,model",
    good="session_id,model,prompt",
)
register(
    "parse/cell-too-large",
    "a cell is larger than the reader accepts",
    why=f"A cell of more than {MAX_CELL // (1024 * 1024)} Mi characters is almost always an "
    "unclosed quote that swallowed the rest of the file. Reading stops there.",
    bad='s1,"an unclosed quote ... (the rest of a large file)',
    good='s1,"a cell of ordinary length"',
)
register(
    "parse/blank-row",
    "a blank line between rows",
    severity="warning",
    why="pandas skips blank lines but Python's csv module and spreadsheets read them as empty "
    "rows, so row counts differ between readers. A final newline at the end of the file is fine. "
    "Consecutive blank lines are one finding, at the first of them, that says how many there are.",
    bad="session_id,model\ns1,Jumbo\n\ns2,Davinci",
    good="session_id,model\ns1,Jumbo\ns2,Davinci",
)

# Any dataset file, before it is read.
register(
    "parse/lfs-pointer",
    "the file is a Git LFS pointer, not the data",
    why="A repository that stores data with Git LFS holds a three-line pointer in place of each "
    "file until `git lfs pull` fetches it (CI checkouts and clones without git-lfs see only the "
    "pointer). Nothing of the dataset was checked, so the run must not pass.",
    bad="version https://git-lfs.github.com/spec/v1\noid sha256:4d7a...\nsize 5242880",
    good='{"dataset": "...", "instances": [...]}  (after `git lfs pull`)',
)
