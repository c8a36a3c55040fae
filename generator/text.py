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


def visible(text: str) -> str:
    """Replace hidden and control characters with ``[U+XXXX]`` markers."""
    text = _HIDDEN.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)
    return _CONTROL.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


# json.dumps leaves DEL and the C1 controls raw; inside JSON strings they must stay escapes too,
# or the page-wide visible() pass would rewrite them and change the example's value.
_JSON_RAW = re.compile("[\x7f-\x9f]")


def _escape_json(text: str) -> str:
    text = _HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_block(value: Any) -> str:
    """Pretty JSON with real Unicode, except hidden characters, which stay escaped."""
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
    # Hidden characters can only sit inside JSON strings, where \\uXXXX is the same value.
    return _escape_json(text)


def json_inline(value: Any) -> str:
    """Compact one-line JSON for table cells (same escaping as :func:`json_block`)."""
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return _escape_json(text)
