"""Making untrusted server text safe to show, without changing what it says.

Bidirectional controls and invisible characters in server strings could reorder
or hide text on a page (Trojan Source, CVE-2021-42574).  They are replaced by a
visible marker such as ``[U+202E]`` in prose, and by a JSON ``\\u202e`` escape in
JSON, so a reader sees exactly what the server sent.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Bidi embeddings/overrides/isolates, marks, zero-width and other invisible format characters.
_HIDDEN = re.compile(
    "[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u00ad"
    "\U000e0000-\U000e007f\u180e\u034f]"
)
# C0/C1 controls other than tab and newline have no business in prose either.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


_SHOWN = re.compile(f"{_HIDDEN.pattern[:-1]}{_CONTROL.pattern[1:-1]}]")
"""Either kind at once: a marker is printable ASCII, so one pass gives what two passes would."""


def _marker(match: re.Match[str]) -> str:
    return f"[U+{ord(match.group()):04X}]"


def visible(text: str) -> str:
    """Replace hidden and control characters with ``[U+XXXX]`` markers.

    It runs on every string a page shows (hundreds of thousands in a large build), so the
    common case, printable ASCII, returns at once.
    """
    if text.isascii() and text.isprintable():
        return text
    if len(text) > _SEEN_LENGTH:
        return _SHOWN.sub(_marker, text)
    shown = _SEEN.get(text)
    if shown is None:
        shown = _SHOWN.sub(_marker, text)
        if len(_SEEN) < _SEEN_COUNT:
            _SEEN[text] = shown
    return shown


_SEEN: dict[str, str] = {}
"""Short non-ASCII strings already shown (a Russian or Arabic page prints the same catalog strings
thousands of times), so each is scanned once; bounded, so that it stays a few megabytes."""
_SEEN_LENGTH = 200
_SEEN_COUNT = 8192


# json.dumps leaves DEL and the C1 controls raw; inside JSON strings they must stay escapes too,
# or the page-wide visible() pass would rewrite them and change the example's value.
_JSON_RAW = re.compile("[\x7f-\x9f]")


def _json_escape(match: re.Match[str]) -> str:
    """The JSON escape of one character; one beyond U+FFFF (a tag character) as its surrogate pair."""
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _escape_json(text: str) -> str:
    return _JSON_RAW.sub(_json_escape, _HIDDEN.sub(_json_escape, text))


def hidden_escaped(json_text: str) -> str:
    """JSON text with every hidden character (and DEL and the C1 controls) written as a ``\\uXXXX`` escape:
    the same JSON value, that no viewer can reorder or hide. Such characters only ever sit inside JSON
    strings, where the escape means the same; ASCII text is returned at once."""
    return json_text if json_text.isascii() else _escape_json(json_text)


def json_block(value: Any) -> str:
    """Pretty JSON with real Unicode, except hidden characters, which stay escaped."""
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
    # Hidden characters can only sit inside JSON strings, where \\uXXXX is the same value.
    return _escape_json(text)


def json_inline(value: Any) -> str:
    """Compact one-line JSON for table cells (same escaping as :func:`json_block`)."""
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return _escape_json(text)


def json_report(value: Any) -> str:
    """A report's JSON (``--format json``): indented, real Unicode, hidden and C1 characters escaped.

    ``json.dumps`` escapes C0 controls and newlines itself; DEL, the C1 controls (``\\x9b`` is a
    terminal's CSI) and bidi controls stay escapes here too, so printing the report to a terminal
    or a CI log can neither move the cursor nor reorder text, and the JSON value is unchanged.
    """
    text = _escape_json(json.dumps(value, indent=2, ensure_ascii=False))
    # "##[" can only sit inside a JSON string, where "#\u0023[" is the same value (see for_terminal).
    return text.replace("##[", "#\\u0023[") + "\n"


# GitHub Actions reads a line whose first non-blank characters are "::" as a workflow command
# (::error::, ::add-mask::, ::stop-commands::), and the older "##[command]" form anywhere in a line.
_WORKFLOW_COMMAND = re.compile(r"^([ \t]*)::", re.MULTILINE)
_OLD_WORKFLOW_COMMAND = re.compile(r"##\[")


def for_terminal(text: str) -> str:
    """*text* made safe to print on a terminal or into a CI log, for every line this tool prints.

    Control characters (C0 but tab and newline, DEL, C1, so every ESC and CSI sequence) and
    bidi or invisible characters become visible ``[U+XXXX]`` markers, as on the pages.  A line
    that would start a GitHub Actions workflow command gets its first colon shown as
    ``[U+003A]``, and ``##[`` becomes ``#[U+0023][``: a reader sees what was sent, the runner
    sees no command.  Text without such characters is returned unchanged.
    """
    text = visible(text)
    text = _WORKFLOW_COMMAND.sub(r"\1[U+003A]:", text)
    return _OLD_WORKFLOW_COMMAND.sub("#[U+0023][", text)


def encodable(text: str, encoding: str | None) -> str:
    """*text* as a stream in *encoding* can write it: each character the encoding has no bytes for (a lone
    surrogate too, from a file name that is not UTF-8) becomes a JSON escape, ``\\u0441`` (two of them beyond
    U+FFFF). A person can still read it, and a JSON report stays valid JSON. On a terminal or CI log that is not
    UTF-8 (``LANG=en_US.ISO-8859-1``, ``PYTHONIOENCODING=ascii``) every line then comes out whole, where
    Python would stop the command with an encoding error."""
    if encoding is None or text.isascii():
        return text
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return "".join(c if c.encode(encoding, "ignore") else json.dumps(c)[1:-1] for c in text)
    except LookupError:  # an encoding Python does not know: the stream itself will say so
        pass
    return text


_BACKTICKS = re.compile(r"`+")
_LINE_BREAK = re.compile(r"(?<!\s)\s*\n\s*")
"""A run of blanks that holds a line break. It starts only where the run starts (the look-behind), so a long run
without one is scanned once, not from each of its characters: linear in the text, as server text needs."""


def fold_lines(text: str) -> str:
    """*text* with each run of blanks that holds a line break made one space (a paragraph as one line)."""
    return _LINE_BREAK.sub(" ", text) if "\n" in text else text


def code_span(value: Any) -> str:
    """*value* as a one-line Markdown code span, its fence longer than any backtick run inside.

    Reports name tools, parameters and endpoints this way (``tool `x` was added``): read as
    plain text it is the name in backticks, and read as Markdown (a PR comment) the name cannot
    end the span early, whatever backticks it holds.
    """
    text = fold_lines(visible(str(value)))
    if "`" not in text:  # the common case: a single backtick fence
        return f"` {text} `" if not text.strip() else f"`{text}`"
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def one_line(value: Any) -> str:
    """A server value inside one line of a plain-text report: visible, with its line breaks as markers.

    A name holding a newline would otherwise start a line of its own in ``diff`` or ``check``
    output, one that could pass for a line of the report.
    """
    return visible(str(value)).replace("\n", "[U+000A]")


def counted(n: int, noun: str, plural: str = "") -> str:
    """*n* and *noun* for an English message: ``1 tool``, ``0 tools``, ``2 entries`` (*plural* when it is not
    *noun* + "s"). A server with one tool is common, and "1 tools" reads as a slip of the tool."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


class NotUtf8(ValueError):
    """A user's file that is not UTF-8 text. Its message says what the bytes look like, in words a user can act
    on (Python's codec message names a codec and a byte offset): UTF-16, which Windows PowerShell 5's ``>`` and
    ``Out-File`` write, or the first byte that is not UTF-8 and its line."""

    def __init__(self, content: bytes, error: UnicodeDecodeError) -> None:
        self.line = content[: error.start].count(b"\n") + 1
        utf16 = content[:2] in (b"\xff\xfe", b"\xfe\xff")
        self.detail = (
            "it is UTF-16, as Windows PowerShell writes by default" if utf16 else f"byte {content[error.start]:#04x}"
        )
        super().__init__(f"it is not UTF-8 text ({self.detail}{'' if utf16 else f', on line {self.line}'})")


def utf8_text(content: bytes) -> str:
    """*content*, a file a user wrote, as text: UTF-8, without the byte-order mark Windows editors may put first;
    :class:`NotUtf8` when it is not UTF-8."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotUtf8(content, exc) from None
